"""The GPU experiments' DRAM roofs come from the one chain of ceiling sources
(modes.student_ceilings), not from a copy each experiment measures for itself."""
import ast
import copy
import inspect

import pytest

pytest.importorskip("numba")

from rooflinelib.store import results  # noqa: E402
from rooflinelib.experiments import Experiment, Variant, gpu, pitfall_readings, rows  # noqa: E402
from rooflinelib.store.lab_files import default_path  # noqa: E402


@pytest.fixture
def stored(monkeypatch, tmp_path):
    """A Lab 1 result stored where the chain looks (the recorded numba run, its mixes set apart
    so that each is told from the others)."""
    monkeypatch.setenv("ROOFLINE_RESULTS_DIR", str(tmp_path))
    result = copy.deepcopy(results.recorded("ceilings", "numba"))
    for c, rate in zip([c for c in result["ceilings"] if c["name"].startswith("dram-")], (1111.0, 2222.0, 3333.0)):
        c["value"] = rate
    path = default_path("ceilings", "numba")
    path.parent.mkdir(parents=True, exist_ok=True)
    results.save(result, path)
    return results.dram_mixes(result)


def test_the_dram_roof_of_each_mix_is_the_stored_lab1_result(stored):
    for mix in ("read", "write", "copy"):
        roof = gpu.chain_dram_roof(mix)
        assert roof["gbps"] == stored[mix] and roof["mix"] == mix and roof["origin"] == "file"
    assert sorted(stored.values()) == [1111.0, 2222.0, 3333.0]


def test_no_lab1_result_and_no_gpu_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("ROOFLINE_RESULTS_DIR", str(tmp_path))
    monkeypatch.setattr("rooflinelib.modes._live_ceilings",
                        lambda *a, **k: (None, "the live ceilings run failed (no GPU)"))
    with pytest.raises(ValueError) as error:
        gpu.chain_dram_roof("copy")
    assert "\n" not in str(error.value) and str(error.value).startswith("DRAM roof: ")
    assert "no GPU" in str(error.value)
    with pytest.raises(ValueError, match="mix: must be read, write or copy"):
        gpu.chain_dram_roof("dram")


def test_a_result_from_before_the_mixes_gives_its_copy_and_names_the_command_for_the_rest(monkeypatch, tmp_path):
    monkeypatch.setenv("ROOFLINE_RESULTS_DIR", str(tmp_path))
    result = copy.deepcopy(results.recorded("ceilings", "numba"))
    copy_gbps = results.dram_mixes(result)["copy"]
    result["ceilings"] = [c for c in result["ceilings"] if not c["name"].startswith("dram-")]
    for c in result["ceilings"]:
        if c["name"] == "dram":
            c["value"] = copy_gbps
    result["details"] = [d for d in result["details"] if not str(d.get("name", "")).startswith("dram")]
    path = default_path("ceilings", "numba")
    path.parent.mkdir(parents=True, exist_ok=True)
    results.save(result, path)
    assert gpu.chain_dram_roof("copy")["gbps"] == copy_gbps
    with pytest.raises(ValueError, match="has no dram-read ceiling; run `roofline measure` again"):
        gpu.chain_dram_roof("read")


def _calls(function) -> list:
    tree = ast.parse(inspect.getsource(function))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)]


@pytest.mark.parametrize("name", ["softmax", "transpose", "wrong_ceiling"])
def test_experiments_judged_on_dram_take_the_roof_from_the_chain(name):
    """None of them times a copy of its own for a DRAM roof (the old softmax, transpose and
    wrong_ceiling each did, through run.ceiling('dram', copy_runs(...)))."""
    calls = _calls(getattr(gpu, f"run_{name}"))
    own = [c for c in calls if c.func.attr in ("copy_runs", "read_runs", "write_runs")]
    assert not own, f"run_{name} times its own DRAM stream"
    assert any(c.func.attr == "dram_roof" for c in calls)


def test_only_the_cache_experiment_times_a_copy_and_says_why():
    timing_a_copy = [name for name, f in inspect.getmembers(gpu, inspect.isfunction)
                     if name.startswith("run_") and any(c.func.attr == "copy_runs" for c in _calls(f))]
    assert timing_a_copy == ["run_cache"]
    assert "not a roof anything is judged against" in " ".join(gpu.run_cache.__doc__.split())


def _experiment(name, variants, **extra):
    return Experiment(name, name, "numba", {"name": "GPU"}, "2026-12-02T02:00:00+00:00",
                      tuple(Variant(n, f, b, s, 0.01, 10, True, dict(e)) for n, f, b, s, e in variants), (), extra)


def test_the_transpose_is_scored_against_the_chain_copy_when_the_run_took_it():
    run = _experiment("transpose", [("naive", 0.0, 2e9, 2e-3, {}), ("tiled", 0.0, 2e9, 1e-3, {})],
                      copy_gbps=4000.0)
    got = {r["variant"]: r for r in rows.transpose_rows(run)}
    assert got["copy"] == {"variant": "copy", "gbps": 4000.0, "of_copy": 1.0}
    assert got["naive"]["of_copy"] == pytest.approx(0.25) and got["tiled"]["of_copy"] == pytest.approx(0.5)
    old = _experiment("transpose", [("copy", 0.0, 2e9, 0.5e-3, {}), ("naive", 0.0, 2e9, 2e-3, {})])
    assert {r["variant"]: r["of_copy"] for r in rows.transpose_rows(old)} == {"copy": 1.0, "naive": 0.25}


def test_wrong_ceiling_rows_judge_each_gemm_on_the_mixes_the_run_took_from_the_chain():
    shape = {"m": 16384, "n": 16384, "k": 128, "element_bytes": 2, "dtype": "bf16"}
    flops, n_bytes = 2.0 * 16384 * 16384 * 128, 2.0 * (2 * 16384 * 128 + 16384 * 16384)
    run = _experiment("wrong_ceiling", [("bf16 GEMM", flops, n_bytes, 1e-3, shape)],
                      fp32_gflops=60_000.0, bf16_tensor_gflops=700_000.0, dram_gbps=3000.0,
                      dram_mixes={"read": 3500.0, "write": 1234.0, "copy": 3000.0})
    got = pitfall_readings.wrong_ceiling_rows(run)
    assert {r["dram_mix"] for r in got} == {"write"} and {r["dram_gbps"] for r in got} == {1234.0}
