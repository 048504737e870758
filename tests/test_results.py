"""Result files: round trip, and every kind of damage rejected with one line naming the field."""
import copy
import json

import pytest

from rooflinelib import results
from rooflinelib.results import ResultError


def ceilings_result():
    return {
        "format": "rooflinelib-result", "version": 1, "kind": "ceilings", "backend": "numba",
        "scope": "gpu", "created": "2026-11-30T12:00:00+00:00",
        "device": {"name": "Test GPU", "kind": "gpu", "sm_count": 2},
        "ceilings": [
            {"name": "dram", "kind": "memory", "value": 4000.0, "unit": "GB/s", "verified": True, "spread": 0.01},
            {"name": "fp32", "kind": "compute", "value": 64000.0, "unit": "GFLOP/s", "verified": True, "spread": 0.0},
            {"name": "bf16-tensor", "kind": "compute", "value": 700000.0, "unit": "GFLOP/s", "verified": True, "spread": 0.02},
        ],
    }


def sweep_result():
    rows = [{"k": k, "intensity": k / 4, "gbps": g, "gflops": f, "verified": True}
            for k, g, f in [(0, 4000.0, 0.0), (4, 3990.0, 3990.0), (64, 3000.0, 48000.0),
                            (256, 1000.0, 64000.0)]]
    return {"format": "rooflinelib-result", "version": 1, "kind": "sweep", "backend": "cupy",
            "scope": "gpu", "created": "2026-11-30T12:00:00+00:00",
            "device": {"name": "Test GPU", "kind": "gpu"}, "rows": rows,
            "peak_gflops": 64000.0, "peak_gbps": 4000.0, "ridge": 16.0}


@pytest.mark.parametrize("make", [ceilings_result, sweep_result])
def test_round_trip(tmp_path, make):
    path = results.save(make(), tmp_path / "r.json")
    assert results.load(path) == make()


def test_save_refuses_an_invalid_result_and_writes_nothing(tmp_path):
    bad = ceilings_result()
    bad["ceilings"][0]["value"] = -1
    with pytest.raises(ResultError, match=r"ceilings\[0\]\.value"):
        results.save(bad, tmp_path / "r.json")
    assert list(tmp_path.iterdir()) == []


def _damaged(tmp_path, text):
    p = tmp_path / "bad.json"
    p.write_text(text)
    with pytest.raises(ResultError) as info:
        results.load(p)
    message = str(info.value)
    assert "\n" not in message and str(p) in message
    return message


def test_truncated_file(tmp_path):
    text = json.dumps(ceilings_result())
    assert "not valid JSON" in _damaged(tmp_path, text[: len(text) // 2])


def test_empty_file(tmp_path):
    assert "not valid JSON" in _damaged(tmp_path, "")


def test_binary_file(tmp_path):
    p = tmp_path / "bad.json"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ResultError, match="not UTF-8"):
        results.load(p)


def test_missing_file(tmp_path):
    with pytest.raises(ResultError, match="not found"):
        results.load(tmp_path / "nope.json")


@pytest.mark.parametrize("text,field", [
    ("[1, 2]", "top level"),
    ('{"hello": 1}', "format"),
    ('{"format": "other-tool", "version": 1}', "format"),
])
def test_foreign_json(tmp_path, text, field):
    assert f": {field}:" in _damaged(tmp_path, text)


def mutate(make, path, value):
    data = copy.deepcopy(make())
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


CASES = [
    (ceilings_result, ("version",), 2, "version"),
    (ceilings_result, ("version",), "1", "version"),
    (ceilings_result, ("kind",), "plot", "kind"),
    (ceilings_result, ("backend",), "opencl", "backend"),
    (ceilings_result, ("scope",), KeyError, "scope"),
    (ceilings_result, ("created",), KeyError, "created"),
    (ceilings_result, ("device",), KeyError, "device"),
    (ceilings_result, ("device", "name"), "", "device.name"),
    (ceilings_result, ("ceilings",), [], "ceilings"),
    (ceilings_result, ("ceilings", 1, "name"), "fp31", "ceilings[1].name"),
    (ceilings_result, ("ceilings", 1, "kind"), "memory", "ceilings[1].kind"),
    (ceilings_result, ("ceilings", 0, "unit"), "GiB/s", "ceilings[0].unit"),
    (ceilings_result, ("ceilings", 0, "value"), float("nan"), "ceilings[0].value"),
    (ceilings_result, ("ceilings", 0, "value"), "4000", "ceilings[0].value"),
    (ceilings_result, ("ceilings", 0, "value"), True, "ceilings[0].value"),
    (ceilings_result, ("ceilings", 2, "verified"), False, "ceilings[2].verified"),
    (ceilings_result, ("ceilings", 2, "spread"), -0.1, "ceilings[2].spread"),
    (ceilings_result, ("ceilings", 0, "extra"), 1, "ceilings[0].extra"),
    (ceilings_result, ("ceilings", 0, "spread"), KeyError, "ceilings[0].spread"),
    (sweep_result, ("rows",), [], "rows"),
    (sweep_result, ("rows", 1, "k"), 0, "rows[1].k"),
    (sweep_result, ("rows", 2, "intensity"), 17.0, "rows[2].intensity"),
    (sweep_result, ("rows", 2, "gbps"), 0, "rows[2].gbps"),
    (sweep_result, ("rows", 2, "gflops"), 0, "rows[2].gflops"),
    (sweep_result, ("rows", 3, "verified"), False, "rows[3].verified"),
    (sweep_result, ("ridge",), 3.0, "ridge"),
    (sweep_result, ("peak_gbps",), KeyError, "peak_gbps"),
]


@pytest.mark.parametrize("make,path,value,field", CASES)
def test_each_bad_field_is_named(tmp_path, make, path, value, field):
    data = mutate(make, path, value)
    with pytest.raises(ResultError) as info:
        results.validate(data)
    assert f": {field}:" in str(info.value)
    # and the same through a file
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(data))
    with pytest.raises(ResultError, match=re_escape(field)):
        results.load(p)


def re_escape(text):
    import re
    return re.escape(text)


def test_duplicate_ceiling_is_rejected():
    data = ceilings_result()
    data["ceilings"].append(dict(data["ceilings"][0]))
    with pytest.raises(ResultError, match="appears twice"):
        results.validate(data)


def test_ceilings_to_machine():
    m = results.to_machine(ceilings_result())
    assert m.kind == "measured"
    assert m.ceiling("dram").value == 4000.0 and m.ceiling("bf16-tensor").value == 700000.0
    assert m.ridge("fp32", "dram") == 16.0
    assert m.provenance["name"] == "Test GPU" and m.provenance["backend"] == "numba"
    assert "2026-11-30" in m.ceiling("fp32").source


def test_sweep_to_machine_uses_the_two_ends():
    m = results.to_machine(sweep_result())
    assert m.roofline().peak_gflops == 64000.0 and m.roofline().peak_gbps == 4000.0


def test_cpu_result_says_cpu_roofline():
    data = ceilings_result()
    data.update(scope="cpu", backend="cpu")
    data["device"] = {"name": "CPU: test", "kind": "cpu"}
    assert results.to_machine(data).notes == "CPU roofline"


def test_to_machine_refuses_a_bad_result():
    data = ceilings_result()
    del data["device"]
    with pytest.raises(ResultError, match="device"):
        results.to_machine(data)


def test_sweep_must_start_with_the_copy():
    data = sweep_result()
    data["rows"] = data["rows"][1:]
    with pytest.raises(ResultError, match=r"rows\[0\]\.k: a sweep starts at k = 0"):
        results.validate(data)


def test_peaks_must_be_the_sweeps_maxima():
    data = sweep_result()
    data.update(peak_gflops=1000.0, ridge=0.25)
    with pytest.raises(ResultError, match="peak_gflops: is below"):
        results.validate(data)
