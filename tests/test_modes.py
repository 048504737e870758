"""Run-mode detection: the right mode on each kind of machine, and never a crash."""
import subprocess
import sys

import pytest

from rooflinelib import modes
from rooflinelib.measure import backend as backends
from rooflinelib.measure.backend import Probe
from rooflinelib.modes import RunMode, detect_mode
from rooflinelib.store import recorded as recorded_folder


def ok(backend, detail):
    return lambda: Probe(backend, True, detail)


def unusable(backend, reason):
    return lambda: Probe(backend, False, reason)


def broken():
    raise RuntimeError("driver exploded\nwith a second line")


GPU = (ok("numba", "NVIDIA H200 (compute capability 9.0)"),)
NO_GPU = (unusable("numba", "no CUDA driver or device is visible"),
          unusable("cupy", "CuPy is not installed"))
CPU = (ok("cpu", "CPU: test CPU, 2 logical cores"),)
NO_CPU = (unusable("cpu", "numba is not installed"),)


def test_gpu_machine_runs_live_gpu():
    mode = detect_mode("auto", GPU, CPU)
    assert (mode.mode, mode.backend, mode.live) == ("gpu", "numba", True)
    assert "NVIDIA H200" in mode.describe() and "live GPU" in mode.describe()


def test_cupy_serves_when_numba_cuda_cannot():
    probes = (unusable("numba", "numba is not installed"), ok("cupy", "NVIDIA H200"))
    mode = detect_mode("auto", probes, CPU)
    assert (mode.mode, mode.backend) == ("gpu", "cupy")
    assert mode.fallbacks == ("numba: numba is not installed",)


def test_no_gpu_falls_back_to_cpu_and_says_why():
    mode = detect_mode("auto", NO_GPU, CPU)
    assert (mode.mode, mode.backend) == ("cpu", "cpu")
    text = mode.describe()
    assert "live CPU" in text
    assert "Not used: numba: no CUDA driver or device is visible" in text
    assert "Not used: cupy: CuPy is not installed" in text


def test_nothing_measurable_falls_back_to_recorded_data():
    mode = detect_mode("auto", NO_GPU, NO_CPU)
    assert (mode.mode, mode.backend, mode.live) == ("recorded", None, False)
    assert "recorded H200" in mode.describe()
    assert len(mode.fallbacks) == 3


def test_a_probe_that_raises_becomes_a_one_line_fallback():
    mode = detect_mode("auto", (broken,), CPU)
    assert mode.mode == "cpu"
    (reason,) = mode.fallbacks
    assert "RuntimeError: driver exploded with a second line" in reason
    assert "\n" not in reason


@pytest.mark.parametrize("requested, expected", [("gpu", "gpu"), ("cpu", "cpu"),
                                                 ("recorded", "recorded"), ("auto", "gpu")])
def test_requested_mode_is_honoured_when_available(requested, expected):
    mode = detect_mode(requested, GPU, CPU)
    assert mode.mode == expected and mode.requested == requested


def test_requested_gpu_without_one_says_it_fell_back():
    mode = detect_mode("gpu", NO_GPU, CPU)
    assert mode.mode == "cpu"
    assert "Asked for 'gpu'; it is not available here" in mode.describe()


def test_requested_cpu_skips_the_gpu_probes():
    mode = detect_mode("cpu", (broken,), CPU)
    assert mode.mode == "cpu" and mode.fallbacks == ()


def test_environment_variable_selects_the_mode(monkeypatch):
    monkeypatch.setenv(modes.ENV_VAR, "recorded")
    assert detect_mode(gpu_probes=GPU, cpu_probes=CPU).mode == "recorded"


def test_bad_environment_value_is_reported_not_raised(monkeypatch):
    monkeypatch.setenv(modes.ENV_VAR, "quantum")
    mode = detect_mode(gpu_probes=NO_GPU, cpu_probes=CPU)
    assert mode.mode == "cpu"
    assert "ROOFLINE_MODE: must be one of auto, gpu, cpu, recorded, got 'quantum'" in mode.fallbacks[0]


def test_bad_argument_is_a_one_line_error():
    with pytest.raises(ValueError, match=r"^mode: must be one of"):
        modes.requested_mode("fastest")


def test_simulator_is_never_taken_for_a_gpu(monkeypatch):
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    probe = backends.probe_numba()
    assert not probe.ok and "simulator" in probe.detail


def test_numpy_that_breaks_numba_cuda_is_refused(monkeypatch):
    class FakeCuda:
        @staticmethod
        def is_available():
            return True

    import numba
    monkeypatch.setattr(numba, "cuda", FakeCuda, raising=False)
    monkeypatch.setitem(sys.modules, "numba.cuda", FakeCuda)
    monkeypatch.setattr(backends, "_numpy_version", lambda: (2, 5))
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    probe = backends.probe_numba()
    assert not probe.ok and "numpy<2.5" in probe.detail


def test_real_probes_on_this_machine_do_not_raise():
    # Whatever this machine has, detection returns a mode and describes it.
    mode = detect_mode()
    assert mode.mode in modes.MODES
    assert mode.describe().startswith("Mode: ")


def test_missing_cupy_is_named(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "cupy" else real(name, *a))
    probe = backends.probe_cupy()
    assert not probe.ok and probe.detail == "CuPy is not installed"


def test_importing_modes_loads_no_heavy_library():
    code = ("import sys, rooflinelib.modes, rooflinelib.lessons.triage; "
            "heavy = [m for m in ('numba', 'cupy', 'plotly', 'numpy', 'ipywidgets') if m in sys.modules]; "
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_runmode_str_is_its_description():
    mode = RunMode("recorded", None, "recorded H200 runs", "recorded")
    assert str(mode) == mode.describe()
    assert "as asked" in str(mode)


# --- loading results with fallbacks ----------------------------------------------------------

def _ceilings_result(created="2026-11-29T12:00:00+00:00"):
    return {"format": "rooflinelib-result", "version": 1, "kind": "ceilings", "backend": "numba",
            "scope": "gpu", "created": created, "device": {"name": "NVIDIA H200"},
            "ceilings": [{"name": "dram", "kind": "memory", "value": 4200.0, "unit": "GB/s",
                          "verified": True, "spread": 0.01},
                         {"name": "fp32", "kind": "compute", "value": 60000.0, "unit": "GFLOP/s",
                          "verified": True, "spread": 0.01}]}


@pytest.fixture
def results_module():
    return pytest.importorskip("rooflinelib.store.results")


@pytest.fixture
def no_recorded(results_module, monkeypatch, tmp_path):
    monkeypatch.setattr(recorded_folder, "DATA_DIR", tmp_path / "empty")
    return results_module


def test_good_file_is_used(tmp_path, results_module):
    import json
    from datetime import datetime, timezone
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(_ceilings_result()))
    loaded = modes.load_ceilings(path, now=datetime(2026, 12, 1, tzinfo=timezone.utc))
    assert loaded.origin == "file"
    assert loaded.machine.ceiling("fp32").value == 60000.0
    assert "NVIDIA H200, numba backend, measured 2026-11-29" in loaded.message
    assert "days old" not in loaded.message


def test_old_file_is_used_with_a_warning(tmp_path, results_module):
    import json
    from datetime import datetime, timezone
    path = tmp_path / "old.json"
    path.write_text(json.dumps(_ceilings_result("2025-01-01T00:00:00+00:00")))
    loaded = modes.load_ceilings(path, now=datetime(2026, 12, 1, tzinfo=timezone.utc))
    assert loaded.origin == "file" and "699 days old" in loaded.message


@pytest.mark.parametrize("content, reason", [
    ('{"format": "rooflinelib-result", "version": 1, "kind": "ceil', "not valid JSON"),
    ('{"format": "rooflinelib-result", "version": 99}', "version: 99 is newer"),
    ('[1, 2, 3]', "top level: must be a JSON object"),
])
def test_broken_or_stale_file_falls_back_and_says_why(tmp_path, no_recorded, content, reason):
    path = tmp_path / "bad.json"
    path.write_text(content)
    loaded = modes.load_ceilings(path)
    assert loaded.origin == "datasheet" and loaded.machine.name == "H200"
    assert f"{path} could not be used" in loaded.message and reason in loaded.message
    assert "\n" not in loaded.message


def test_missing_file_and_no_recorded_data(tmp_path, no_recorded):
    loaded = modes.load_ceilings(tmp_path / "nope.json")
    assert loaded.origin == "datasheet" and "file: not found" in loaded.message
    sweep = modes.load_sweep(tmp_path / "nope.json")
    assert sweep.origin == "none" and sweep.result is None and "No sweep could be loaded" in sweep.message


def test_a_sweep_file_is_not_taken_for_ceilings(tmp_path, no_recorded):
    import json
    data = _ceilings_result()
    data.update(kind="sweep", rows=[{"k": 0, "intensity": 0.0, "gbps": 4000.0, "gflops": 0.0, "verified": True},
                                    {"k": 4, "intensity": 1.0, "gbps": 4000.0, "gflops": 4000.0, "verified": True}],
                peak_gflops=4000.0, peak_gbps=4000.0, ridge=1.0)
    del data["ceilings"]
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(data))
    assert modes.load_sweep(path).origin == "file"
    loaded = modes.load_ceilings(path)
    assert loaded.origin == "datasheet" and "kind: is 'sweep', expected 'ceilings'" in loaded.message


def test_recorded_data_is_the_fallback_when_shipped(tmp_path, results_module, monkeypatch):
    import json
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "h200_ceilings_numba.json").write_text(json.dumps(_ceilings_result()))
    monkeypatch.setattr(recorded_folder, "DATA_DIR", data_dir)
    loaded = modes.load_ceilings(tmp_path / "missing.json")
    assert loaded.origin == "recorded" and loaded.machine.name == "H200 (recorded, numba)"
    assert "recorded H200 run" in loaded.message and "missing.json could not be used" in loaded.message


def test_live_mode_measures_and_a_failed_run_falls_back(monkeypatch, no_recorded):
    measure = pytest.importorskip("rooflinelib.measure")

    def fails(**kwargs):
        raise RuntimeError("verification failed: 3 of 1024 elements differ")

    monkeypatch.setattr(measure, "measure_ceilings", fails)
    mode = RunMode("gpu", "numba", "NVIDIA H200")
    loaded = modes.ceilings_for(mode)
    assert loaded.origin == "datasheet"
    assert loaded.message.startswith("the live ceilings run on NVIDIA H200 failed (RuntimeError: verification failed")

    monkeypatch.setattr(measure, "measure_ceilings", lambda **kwargs: _ceilings_result())
    loaded = modes.ceilings_for(mode)
    assert loaded.origin == "live" and loaded.machine.ceiling("dram").value == 4200.0


def test_recorded_mode_never_measures(monkeypatch, no_recorded):
    measure = pytest.importorskip("rooflinelib.measure")
    monkeypatch.setattr(measure, "run_sweep", lambda **kwargs: pytest.fail("measured in recorded mode"))
    loaded = modes.sweep_for(RunMode("recorded", None, "recorded H200 runs"))
    assert loaded.origin == "none"


# --- the one chain of ceilings (issue 25 item 3) -------------------------------------------------

@pytest.fixture
def results_dir(tmp_path, monkeypatch):
    from rooflinelib.store.lab_files import RESULTS_DIR_ENV
    folder = tmp_path / "results"
    monkeypatch.setenv(RESULTS_DIR_ENV, str(folder))
    monkeypatch.delenv(modes.ENV_VAR, raising=False)
    monkeypatch.setattr(modes, "_measured_now", {})
    return folder


def _cpu_result(fp32=80.0, dram=10.0, noisy=False, created="2026-12-01T23:00:00+00:00"):
    noise = {"noisy": True, "noise": "another program was using the CPU"} if noisy else {}
    return {"format": "rooflinelib-result", "version": 1, "kind": "ceilings", "backend": "cpu",
            "scope": "cpu", "created": created, "device": {"name": "CPU: test CPU"},
            "ceilings": [{"name": "dram", "kind": "memory", "value": dram, "unit": "GB/s",
                          "verified": True, "spread": 0.01, **noise},
                         {"name": "fp32", "kind": "compute", "value": fp32, "unit": "GFLOP/s",
                          "verified": True, "spread": 0.01}]}


@pytest.fixture
def lab1_runs(monkeypatch, results_module):
    """measure_ceilings replaced by a queue of results; each call is counted."""
    measure = pytest.importorskip("rooflinelib.measure")
    queue, calls = [], []

    def fake(**options):
        calls.append(options)
        return results_module.validate(queue.pop(0))

    monkeypatch.setattr(measure, "measure_ceilings", fake)
    return queue, calls


CPU_MODE = RunMode("cpu", "cpu", "a test CPU")


def test_lab1_in_notebook_03_stores_its_result_and_says_where(results_dir, lab1_runs):
    queue, calls = lab1_runs
    queue.append(_cpu_result(fp32=80.0, dram=10.0))
    lab1 = modes.ceilings_for(CPU_MODE, size_mib=64)
    assert lab1.origin == "live" and calls == [{"backend": "cpu", "progress": None, "size_mib": 64}]
    stored = results_dir / "ceilings_cpu.json"
    assert stored.is_file() and lab1.path == str(stored)
    assert "Stored in " in lab1.message and "ceilings_cpu.json" in lab1.message
    # every later user of the chain sees the same ridge, with no second measurement
    again = modes.student_ceilings(CPU_MODE, measure="if-missing")
    assert again.origin == "file" and len(calls) == 1
    assert again.machine.ridge() == lab1.machine.ridge() == 8.0
    assert modes.load_ceilings(backend="cpu").machine.ridge() == 8.0


def test_with_none_stored_the_chain_measures_once_stores_and_says_how_to_measure_again(results_dir, lab1_runs):
    queue, calls = lab1_runs
    queue.append(_cpu_result(fp32=60.0, dram=12.0))
    first = modes.student_ceilings(None, backend="cpu", measure="if-missing", recorded=False)
    assert first.origin == "live" and "run `roofline measure` to measure again" in first.message.lower()
    second = modes.student_ceilings(None, backend="cpu", measure="if-missing", recorded=False)
    assert second.origin == "file" and len(calls) == 1 and second.machine.ridge() == 5.0


def test_measuring_again_changes_the_ridge_everywhere(results_dir, lab1_runs):
    queue, calls = lab1_runs
    queue += [_cpu_result(fp32=80.0, dram=10.0), _cpu_result(fp32=90.0, dram=10.0)]
    modes.ceilings_for(CPU_MODE)
    assert modes.load_ceilings(backend="cpu").machine.ridge() == 8.0
    modes.ceilings_for(CPU_MODE)
    assert modes.load_ceilings(backend="cpu").machine.ridge() == 9.0


def test_a_noisy_run_never_replaces_a_clean_stored_result(results_dir, lab1_runs):
    queue, _ = lab1_runs
    queue += [_cpu_result(fp32=80.0, dram=10.0), _cpu_result(fp32=20.0, dram=10.0, noisy=True)]
    modes.ceilings_for(CPU_MODE)
    noisy = modes.ceilings_for(CPU_MODE)
    assert noisy.origin == "live" and "noisy" in noisy.message and "does not replace" in noisy.message
    assert "another program was using the CPU" in noisy.message
    # the same call returns the noisy run: the clean one stays stored for the others, not "in use"
    assert ("which stays stored for `roofline profile`, the other notebooks and the exercises; this notebook "
            "uses the noisy run") in noisy.message and "stays in use" not in noisy.message
    assert modes.load_ceilings(backend="cpu").machine.ridge() == 8.0


def test_a_noisy_run_may_replace_a_noisy_one_and_says_so(results_dir, lab1_runs):
    queue, _ = lab1_runs
    queue += [_cpu_result(fp32=20.0, noisy=True), _cpu_result(fp32=30.0, noisy=True)]
    modes.ceilings_for(CPU_MODE)
    modes.ceilings_for(CPU_MODE)
    loaded = modes.load_ceilings(backend="cpu")
    assert loaded.machine.ridge() == 3.0 and "It was noisy" in loaded.message


def test_an_unwritable_store_measures_once_per_process(results_dir, lab1_runs, monkeypatch):
    queue, calls = lab1_runs
    queue.append(_cpu_result())
    results_dir.parent.mkdir(exist_ok=True)
    results_dir.write_text("not a folder")  # the folder cannot be made
    first = modes.student_ceilings(None, backend="cpu", measure="if-missing", recorded=False)
    assert first.origin == "live" and "Not stored" in first.message
    assert modes.student_ceilings(None, backend="cpu", measure="if-missing", recorded=False) is first
    assert len(calls) == 1


def test_measure_choice_is_checked():
    with pytest.raises(ValueError, match="measure: must be one of now, if-missing, never"):
        modes.student_ceilings(None, measure="sometimes")


def test_a_failed_cpu_lab1_falls_back_to_the_recorded_h200(results_dir, monkeypatch):
    measure = pytest.importorskip("rooflinelib.measure")

    def fails(**options):
        raise RuntimeError("verification failed")

    monkeypatch.setattr(measure, "measure_ceilings", fails)
    loaded = modes.ceilings_for(CPU_MODE)
    assert loaded.origin == "recorded" and loaded.machine.name == "H200 (recorded, numba)"
    assert loaded.message.startswith("the live ceilings run on a test CPU failed (RuntimeError: verification failed)")


def test_a_noisy_lab1_keeps_the_exercise_gradable():
    # A Lab 1 measured on a busy machine states spreads past 100%; exercise 4 grades the side of
    # the ridge within the measured spread, which must stay below 1 (grading.check_side).
    from rooflinelib.exercises import ex04_place_kernel as ex04
    from rooflinelib.store.results import to_machine, validate
    result = _cpu_result(noisy=True)
    for c in result["ceilings"]:
        c.update(spread=2.354, iqr=0.4)
    machine = to_machine(validate(result))
    assert "spread 40.0% (IQR), NOISY" in machine.ceiling("dram").source
    setup = ex04.Setup(machine, None, None, "file", "stored")
    assert setup.ridge_spread == ex04.RIDGE_SPREAD_CAP
