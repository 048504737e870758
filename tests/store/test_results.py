"""Result files: round trip, and every kind of damage rejected with one line naming the field."""
import copy
import json

import pytest

from rooflinelib.store import results
from rooflinelib.store.results import ResultError
from rooflinelib.store import recorded as recorded_folder


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


# --- the recorded H200 runs shipped in rooflinelib/data ---------------------------------------

SHIPPED = ["h200_ceilings_numba.json", "h200_ceilings_cupy.json", "h200_sweep_numba.json",
           "h200_sweep_cupy.json"]


def test_every_recorded_run_is_shipped_and_valid():
    assert sorted(results.recorded_names()) == sorted(SHIPPED)
    for name in SHIPPED:
        r = results.load(recorded_folder.DATA_DIR / name)
        dev = r["device"]
        assert dev["name"] == "NVIDIA H200" and dev["sm_count"] == 132
        assert r["scope"] == "gpu" and r["backend"] in ("numba", "cupy")
        # provenance: clocks before and after, driver, versions, timestamps
        for when in ("before", "after"):
            assert dev[when]["sm_clock_mhz"] > 1000 and dev[when]["mem_clock_mhz"] > 1000
            assert dev[when]["driver"] and "temperature_c" in dev[when] and "power_w" in dev[when]
        # a run whose SM clock moved more than 2% says so (the cupy ceilings run ends right
        # after the fp16/bf16 GEMMs, which pull the clock down under the 700 W power cap)
        assert isinstance(dev["clock_drift_flag"], bool)
        if dev["clock_drift_flag"]:
            assert any("SM clock moved" in note for note in r["notes"])
        assert {"numpy", "python"} <= set(dev["libraries"]) and dev["started"] and dev["finished"]


@pytest.mark.parametrize("backend", ["numba", "cupy"])
def test_recorded_ceilings_are_plausible_for_an_h200(backend):
    m = results.recorded_h200(backend)
    assert m.kind == "measured" and m.provenance["name"] == "NVIDIA H200"
    assert 3500 < m.ceiling("dram").value < 4800  # HBM3e, under the 4.8 TB/s datasheet
    assert 55_000 < m.ceiling("fp32").value < 67_000  # 132 SMs x 128 x 2 x 1.98 GHz = 66.9 T
    assert m.ceiling("fp64").value == pytest.approx(m.ceiling("fp32").value / 2, rel=0.05)
    assert m.ceiling("bf16-tensor").value > 10 * m.ceiling("fp32").value
    assert 10 < m.ridge("fp32", "dram") < 20


def test_recorded_numba_run_has_the_hierarchy():
    m = results.recorded_h200("numba")
    assert m.ceiling("shared").value > m.ceiling("l2").value > m.ceiling("dram").value
    assert m.has("sfu")


@pytest.mark.parametrize("backend", ["numba", "cupy"])
def test_recorded_sweep_walks_k_0_to_1024(backend):
    s = results.recorded_h200_sweep(backend)
    ks = [r["k"] for r in s["rows"]]
    assert ks[0] == 0 and ks[-1] == 1024 and all(r["verified"] for r in s["rows"])
    assert s["knee"] is not None
    # the ridge from the sweep's own ends sits near the ceilings' ridge
    ceilings = results.recorded_h200(backend)
    assert s["ridge"] == pytest.approx(ceilings.ridge("fp32", "dram"), rel=0.15)


def test_recorded_bad_names_get_one_line():
    with pytest.raises(ResultError, match="backend"):
        results.recorded("ceilings", "opencl")
    with pytest.raises(ResultError, match="kind"):
        results.recorded("plot", "numba")
    with pytest.raises(ResultError, match="no recorded"):
        results.recorded("ceilings", "cpu")
