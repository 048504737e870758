"""Run-mode detection: the right mode on each kind of machine, and never a crash."""
import subprocess
import sys

import pytest

from rooflinelib import modes
from rooflinelib.modes import Probe, RunMode, detect_mode


def ok(backend, detail):
    return lambda: Probe(backend, True, detail)


def unusable(backend, reason):
    return lambda: Probe(backend, False, reason)


def broken():
    raise RuntimeError("driver exploded\nwith a second line")


GPU = (ok("numba-cuda", "NVIDIA H200 (compute capability 9.0)"),)
NO_GPU = (unusable("numba-cuda", "no CUDA driver or device is visible"),
          unusable("cupy", "CuPy is not installed"))
CPU = (ok("numba-cpu", "CPU: test CPU, 2 logical cores"),)
NO_CPU = (unusable("numba-cpu", "numba is not installed"),)


def test_gpu_machine_runs_live_gpu():
    mode = detect_mode("auto", GPU, CPU)
    assert (mode.mode, mode.backend, mode.live) == ("gpu", "numba-cuda", True)
    assert "NVIDIA H200" in mode.describe() and "live GPU" in mode.describe()


def test_cupy_serves_when_numba_cuda_cannot():
    probes = (unusable("numba-cuda", "numba is not installed"), ok("cupy", "NVIDIA H200"))
    mode = detect_mode("auto", probes, CPU)
    assert (mode.mode, mode.backend) == ("gpu", "cupy")
    assert mode.fallbacks == ("numba-cuda: numba is not installed",)


def test_no_gpu_falls_back_to_cpu_and_says_why():
    mode = detect_mode("auto", NO_GPU, CPU)
    assert (mode.mode, mode.backend) == ("cpu", "numba-cpu")
    text = mode.describe()
    assert "live CPU" in text
    assert "Not used: numba-cuda: no CUDA driver or device is visible" in text
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
    probe = modes.probe_numba_cuda()
    assert not probe.ok and "simulator" in probe.detail


def test_numpy_that_breaks_numba_cuda_is_refused(monkeypatch):
    class FakeCuda:
        @staticmethod
        def is_available():
            return True

    import numba
    monkeypatch.setattr(numba, "cuda", FakeCuda, raising=False)
    monkeypatch.setitem(sys.modules, "numba.cuda", FakeCuda)
    monkeypatch.setattr(modes, "_numpy_version", lambda: (2, 5))
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    probe = modes.probe_numba_cuda()
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
    probe = modes.probe_cupy()
    assert not probe.ok and probe.detail == "CuPy is not installed"


def test_importing_modes_loads_no_heavy_library():
    code = ("import sys, rooflinelib.modes, rooflinelib.triage; "
            "heavy = [m for m in ('numba', 'cupy', 'plotly', 'numpy', 'ipywidgets') if m in sys.modules]; "
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_runmode_str_is_its_description():
    mode = RunMode("recorded", None, "recorded H200 runs", "recorded")
    assert str(mode) == mode.describe()
    assert "as asked" in str(mode)
