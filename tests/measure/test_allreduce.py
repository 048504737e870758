"""The all-reduce measurement's arithmetic and result file, on one process with no GPU (the
two-GPU run itself needs a machine with two GPUs), and its refusals."""
import json

import numpy as np
import pytest

from rooflinelib.store import results
from rooflinelib.lessons import step_roofs
from rooflinelib.measure import allreduce as ar
from rooflinelib.store import recorded as recorded_folder


def test_sizes_run_from_1_kib_to_1_gib():
    assert ar.SIZES[0] == 1024 and ar.SIZES[-1] == 2 ** 30
    assert all(b == 4 * a for a, b in zip(ar.SIZES, ar.SIZES[1:]))


@pytest.mark.parametrize("world", [1, 2, 3, 8])
def test_the_expected_sum_is_exact(world):
    n = 1000
    total = sum(ar.fill_host(n, r).astype(np.float64) for r in range(world))
    assert np.array_equal(ar.expected_sum(n, world), total.astype(np.float32))
    assert np.array_equal(total, total.astype(np.float32))  # small integers: exact in float32


def _report(times, verified=True):
    return {"times": {str(k): v for k, v in times.items()}, "verified": {str(k): verified for k in times}}


def test_merge_takes_the_slowest_rank_per_repeat_then_the_median():
    a = _report({1024: [1e-5, 3e-5, 2e-5], 2 ** 27: [1.0e-3, 1.1e-3, 1.2e-3]})
    b = _report({1024: [2e-5, 1e-5, 4e-5], 2 ** 27: [1.3e-3, 1.0e-3, 1.0e-3]})
    points = ar.merge([a, b], 2)
    small, big = points
    assert small.median_s == pytest.approx(3e-5)  # slowest per repeat: 2, 3, 4 (e-5)
    assert big.median_s == pytest.approx(1.2e-3)  # 1.3, 1.1, 1.2
    assert big.algbw_gbps == pytest.approx(2 ** 27 / 1.2e-3 / 1e9)
    assert big.busbw_gbps == pytest.approx(big.algbw_gbps * 1.0)  # 2(n-1)/n = 1 for two GPUs
    assert ar.plateau_gbps(points) == big.busbw_gbps
    assert ar.latency_s(points) == small.median_s


def test_a_wrong_result_on_any_rank_is_an_error_not_a_number():
    good = _report({2 ** 27: [1e-3]})
    bad = _report({2 ** 27: [1e-3]}, verified=False)
    with pytest.raises(ar.AllReduceError, match=r"^verification: size 134217728"):
        ar.merge([good, bad], 2)
    with pytest.raises(ar.AllReduceError, match=r"^ranks: expected 2 reports, got 1"):
        ar.merge([good], 2)


def _points(world=2):
    return ar.merge([_report({s: [s / 300e9, s / 310e9] for s in ar.SIZES})] * world, world)


def test_result_file_validates_with_its_curve_and_gpu_count(tmp_path):
    gpus = [{"index": i, "name": "NVIDIA H200"} for i in range(2)]
    result = ar.to_result(_points(), 2, "torch", gpus, "2026-12-01T00:00:00+00:00")
    assert result["gpus"] == 2 and result["device"]["gpus"] == gpus
    assert [c["name"] for c in result["ceilings"]] == ["nvlink-allreduce"]
    assert len(result["allreduce_curve"]) == len(ar.SIZES)
    path = results.save(result, tmp_path / "allreduce.json")
    assert results.load(path)["ceilings"][0]["value"] == pytest.approx(max(
        p.busbw_gbps for p in _points() if p.n_bytes >= ar.PLATEAU_BYTES))


def test_one_gpu_makes_no_ceiling():
    with pytest.raises(ar.AllReduceError, match=r"^gpus: an all-reduce ceiling needs at least 2 GPUs"):
        ar.to_result(_points(1), 1, "torch", [{"name": "GPU"}], "2026-12-01T00:00:00+00:00")


@pytest.mark.parametrize("kwargs, message", [
    (dict(library="mpi"), r"^library: must be one of torch, cupy"),
    (dict(world=0), r"^gpus: must be a whole number of at least 1"),
    (dict(world=64), r"^gpus: 64 asked for, \d+ visible on this host"),
])
def test_run_refuses_what_it_cannot_do(kwargs, message):
    with pytest.raises(ar.AllReduceError, match=message):
        ar.run(**kwargs)


def test_cli_says_why_in_one_line(capsys):
    assert ar.main(["--gpus", "64"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("allreduce: error: gpus: 64 asked for")


def test_step_roofs_use_a_shipped_all_reduce(tmp_path, monkeypatch):
    gpus = [{"index": i, "name": "NVIDIA H200"} for i in range(2)]
    result = ar.to_result(_points(), 2, "torch", gpus, "2026-12-01T00:00:00+00:00")
    (tmp_path / step_roofs.ALLREDUCE_FILE).write_text(json.dumps(result))
    for name in ("h200_ceilings_numba.json", "h200_interconnect_numba.json"):
        (tmp_path / name).write_text((recorded_folder.DATA_DIR / name).read_text())
    monkeypatch.setattr(recorded_folder, "DATA_DIR", tmp_path)
    roofs = step_roofs.recorded_step_roofs()
    measured = roofs.link("nvlink-allreduce")
    assert measured.measured and measured.gbps == result["ceilings"][0]["value"]
    assert [r.name for r in roofs.links][:2] == ["pcie-measured", "nvlink-allreduce"]
    assert "two-GPU run" in roofs.message


def test_without_a_shipped_all_reduce_nvlink_is_the_datasheet():
    roofs = step_roofs.recorded_step_roofs()
    # review 9d C6-7: the message reads as a fact, not a roadmap ("shipped yet")
    assert "NVLink: the datasheet's figure (not measured here)." in roofs.message and "yet" not in roofs.message
    assert not roofs.link("nvlink4").measured
