"""The experiments' DRAM roofs come from the one chain of ceiling sources
(modes.student_ceilings, through experiments.roofs.chain_dram_roof, one helper for the GPU and
the CPU), not from a copy each experiment measures for itself."""
import ast
import copy
import inspect
import json

import pytest

pytest.importorskip("numba")

from support.lab1 import MIX_GBPS, NOISE, cpu_result, store_cpu  # noqa: E402

from rooflinelib import experiments, measure, modes  # noqa: E402
from rooflinelib.store import results  # noqa: E402
from rooflinelib.experiments import Experiment, Variant, cpu, gpu, pitfall_readings, record, roofs, rows  # noqa: E402
from rooflinelib.modes import RunMode  # noqa: E402
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
        roof = roofs.chain_dram_roof(mix)
        assert roof.gbps == stored[mix] and roof.mix == mix and roof.origin == "file" and not roof.noisy
    assert sorted(stored.values()) == [1111.0, 2222.0, 3333.0]


def test_no_lab1_result_and_no_gpu_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("ROOFLINE_RESULTS_DIR", str(tmp_path))
    monkeypatch.setattr("rooflinelib.modes._live_ceilings",
                        lambda *a, **k: (None, "the live ceilings run failed (no GPU)"))
    with pytest.raises(ValueError) as error:
        roofs.chain_dram_roof("copy")
    assert "\n" not in str(error.value) and str(error.value).startswith("DRAM roof: ")
    assert "no GPU" in str(error.value)
    with pytest.raises(ValueError, match="mix: must be read, write or copy"):
        roofs.chain_dram_roof("dram")


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
    assert roofs.chain_dram_roof("copy").gbps == copy_gbps
    with pytest.raises(ValueError, match="has no dram-read ceiling; run `roofline measure` again"):
        roofs.chain_dram_roof("read")


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


# --- the CPU experiments: the same chain, the same helper ------------------------------------

CPU = RunMode("cpu", "cpu", "a test CPU")


@pytest.fixture
def cpu_lab1(monkeypatch, tmp_path):
    """An empty results folder for the chain, and Lab 1 replaced by a queue of results: each
    call is counted, and a call with the queue empty fails the test."""
    monkeypatch.setenv("ROOFLINE_RESULTS_DIR", str(tmp_path))
    monkeypatch.delenv(modes.ENV_VAR, raising=False)
    monkeypatch.setattr(modes, "_measured_now", {})
    queue, calls = [], []

    def fake(**options):
        calls.append(options)
        assert queue, "Lab 1 was measured again although a result was stored"
        got = queue.pop(0)
        if isinstance(got, Exception):
            raise got
        return got

    monkeypatch.setattr(measure, "measure_ceilings", fake)
    return queue, calls


def _softmax(progress=None):
    return experiments.experiment_for(CPU, "softmax", progress, cpu={"size_mib": 1, "cols": 256, "repeats": 2})


def _transpose(progress=None):
    return experiments.experiment_for(CPU, "transpose", progress, cpu={"n": 128, "repeats": 2})


def test_the_cpu_softmax_is_judged_on_the_stored_lab1_copy_mix(cpu_lab1):
    store_cpu(cpu_result())
    outcome = _softmax()
    assert outcome.origin == "live", outcome.message
    run = outcome.experiment
    assert run.extra["copy_gbps"] == MIX_GBPS["copy"]
    assert run.extra["dram_roof"] == {"gbps": 17.25, "mix": "copy", "origin": "file",
                                      "created": "2026-12-02T04:00:00+00:00", "noisy": False}
    three = {r["variant"]: r for r in rows.softmax_rows(run)}["3-pass"]
    assert three["bytes_s"] == pytest.approx(run.variant("3-pass").n_bytes / 17.25e9)
    assert "copy speed: 17.25 GB/s, Lab 1 copy of 2026-12-02" in rows.softmax_table(run)
    # the chain's message reaches the notebook's line: which stored result, from where
    assert "DRAM roof from Lab 1: Ceilings from " in outcome.message and "ceilings_cpu.json" in outcome.message


def test_the_cpu_transpose_is_a_fraction_of_the_stored_lab1_copy_mix_and_times_no_copy(cpu_lab1):
    store_cpu(cpu_result())
    said = []
    outcome = _transpose(said.append)
    run = outcome.experiment
    assert [v.name for v in run.variants] == ["naive", "tiled", "tiled + padded"]
    got = rows.transpose_rows(run)
    assert got[0] == {"variant": "Lab 1 copy of 2026-12-02", "gbps": 17.25, "of_copy": 1.0}
    assert got[1]["of_copy"] == pytest.approx(run.variant("naive").gbps / 17.25)
    assert "  DRAM roof (copy): 17.2 GB/s, Lab 1 (file, 2026-12-02T04:00:00+00:00)" in said


def test_with_no_lab1_stored_the_cpu_experiments_measure_it_once_store_it_and_say_so(cpu_lab1):
    queue, calls = cpu_lab1
    queue.append(cpu_result(copy_gbps=9.5))
    first = _transpose()
    assert first.experiment.extra["copy_gbps"] == 9.5
    assert first.experiment.extra["dram_roof"]["origin"] == "live"
    assert calls == [{"backend": "cpu", "progress": None, "size_mib": modes.LAB1_CPU_SIZE_MIB}]
    assert "Stored in " in first.message and "Run `roofline measure` to measure again." in first.message
    assert default_path("ceilings", "cpu").is_file()
    second = _softmax()  # the stored result now: no second Lab 1
    assert len(calls) == 1 and second.experiment.extra["copy_gbps"] == 9.5
    assert second.experiment.extra["dram_roof"]["origin"] == "file"


def test_a_noisy_stored_copy_is_the_roof_and_the_table_and_the_message_say_so(cpu_lab1):
    # the chain's rule: the stored result is the one used, noisy or not, and its noise is said
    # (a noisy run never replaces a clean one: modes.keeps_clean, tested in test_modes)
    store_cpu(cpu_result(noisy=True))
    outcome = _transpose()
    run = outcome.experiment
    assert run.extra["copy_gbps"] == 17.25
    assert run.extra["dram_roof"]["noisy"] is True and run.extra["dram_roof"]["noise"] == NOISE
    assert rows.transpose_rows(run)[0]["variant"] == "Lab 1 copy of 2026-12-02, NOISY"
    assert f"It was noisy (dram-copy: {NOISE}): re-run `roofline measure`" in outcome.message
    assert "\n" not in outcome.message


def test_a_cpu_lab1_without_the_mixes_gives_its_copy_and_no_result_is_one_line(cpu_lab1):
    old = cpu_result()
    old["ceilings"] = [c for c in old["ceilings"] if not c["name"].startswith("dram-")]
    old["ceilings"][0]["value"] = 11.5
    old["details"] = []  # a result from before the mixes: its dram was a copy
    store_cpu(results.validate(old))
    assert roofs.chain_dram_roof("copy", backend="cpu").gbps == 11.5
    with pytest.raises(ValueError, match="has no dram-read ceiling; run `roofline measure` again"):
        roofs.chain_dram_roof("read", backend="cpu")
    default_path("ceilings", "cpu").unlink()
    queue, _ = cpu_lab1
    queue.append(RuntimeError("no CPU today"))  # Lab 1 fails: no roof, so no live run
    with pytest.raises(ValueError) as error:
        cpu.run_transpose(n=128, repeats=2)
    assert str(error.value).startswith("DRAM roof: ") and "no CPU today" in str(error.value)
    assert "\n" not in str(error.value)


def test_a_live_runs_chain_message_is_not_saved_with_it(cpu_lab1, tmp_path):
    path = store_cpu(cpu_result())
    run = _transpose().experiment
    assert run.said and str(path.name) in " ".join(run.said)
    saved = record.save_experiments([run], tmp_path / "run.json")
    text = saved.read_text()
    assert "said" not in json.loads(text)["experiments"][0] and path.name not in text
    assert record.load_experiments(saved)["transpose"].extra["dram_roof"]["gbps"] == 17.25


@pytest.mark.parametrize("name", ["softmax", "transpose"])
def test_cpu_experiments_judged_on_dram_take_the_roof_from_the_chain(name):
    """Neither times a copy of its own (the old softmax called run_cache for one; the old
    transpose timed a 'copy' variant)."""
    function = getattr(cpu, f"run_{name}")
    called = [node.func.id for node in ast.walk(ast.parse(inspect.getsource(function)))
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    assert "run_cache" not in called and "copy" not in called and "_dram_roof" in called


def test_one_helper_gives_both_backends_their_dram_roof():
    for module in (cpu, gpu):
        assert module.chain_dram_roof is roofs.chain_dram_roof
        assert "def chain_dram_roof" not in inspect.getsource(module)


def test_a_gpu_run_says_where_its_roofs_came_from_once(stored):
    """The GPU side of the one helper: the session takes each mix from the chain, says it in
    its progress, and its experiment carries the chain's message once, whatever the mixes."""
    run = object.__new__(gpu._Run)  # no GPU here: the session's bookkeeping only
    lines = []
    run.gpu = type("NoGpu", (), {"finish": lambda self, session: {"name": "GPU"}})()
    run.progress, run.session, run.started, run.said = lines.append, {}, "2026-12-02T05:00:00+00:00", []
    mixes = {mix: run.dram_roof(mix) for mix in ("read", "write", "copy")}
    assert {mix: roof.gbps for mix, roof in mixes.items()} == stored
    assert f"  DRAM roof (copy): {stored['copy']:,.0f} GB/s, Lab 1 (file, " in " ".join(lines)
    experiment = run.experiment("transpose", "t", [], copy_gbps=mixes["copy"].gbps, dram_roof=mixes["copy"].as_extra())
    assert len(experiment.said) == 1 and "DRAM roof from Lab 1: Ceilings from " in experiment.said[0]
    assert experiment.extra["dram_roof"]["gbps"] == stored["copy"] and "message" not in experiment.extra["dram_roof"]


def test_the_ci_gate_use_case_reads_a_transpose_run_scored_on_the_chain(monkeypatch):
    """A transpose recorded since the chain has no 'copy' variant: the use-case row gates each
    variant on its copy_gbps (it raised KeyError 'variant: transpose has no copy')."""
    from rooflinelib.lessons import use_cases
    run = _experiment("transpose", [("naive", 0.0, 2e9, 2e-3, {}), ("tiled", 0.0, 2e9, 0.6e-3, {})],
                      copy_gbps=4000.0, dram_roof={"gbps": 4000.0, "mix": "copy", "origin": "file",
                                                   "created": "2026-12-02T02:00:00+00:00", "noisy": False})
    monkeypatch.setattr(use_cases, "_recorded_transpose", lambda: run)
    figure = next(r["figure"] for r in use_cases.use_case_rows() if r["use"] == "regression gates in CI")
    assert "naive 25% (fail), tiled 83% (pass)" in figure
