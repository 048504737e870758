"""rooflinelib.profile, the CPU lane: timing, placement, save and load, and every bad input."""
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import rooflinelib
from rooflinelib import profiling
from rooflinelib.store import results
from rooflinelib.profiling import ProfileError, load, profile
from rooflinelib.profiling.function_timing import Timed, detect_library, time_function

TARGETS = Path(__file__).parents[1] / "profile_targets"
AXPY = TARGETS / "cpu_axpy.py"


def _axpy_args(n=1 << 16):
    rng = np.random.default_rng(0)
    return rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32), np.empty(n, np.float32)


def _axpy(x, y, out):
    np.multiply(x, 2.0, out=out)
    np.add(out, y, out=out)


# --- timing ----------------------------------------------------------------------------------

def test_first_call_is_timed_apart_and_the_median_is_of_the_repeats():
    calls = []

    def work():
        calls.append(time.perf_counter())
        time.sleep(0.02 if len(calls) == 1 else 0.002)

    timed = time_function(work, repeats=7)
    assert timed.library == "cpu" and timed.clock == "perf_counter"
    assert timed.repeats == 7
    assert timed.first_call_s >= 0.02
    assert 0.002 <= timed.median_s < 0.02  # the slow first call is not among the repeats
    assert len(calls) == 1 + timed.warmup_calls + 7
    assert timed.warmup_calls >= 3


def test_median_and_spread():
    from rooflinelib.measure.timing import Timing
    t = Timed("cpu", "perf_counter", 1.0, Timing((1.0, 3.0, 2.0, 4.0)), 3)
    assert t.median_s == 2.5
    assert t.spread == pytest.approx((4.0 - 1.0) / 2.5)


def test_default_repeats_fill_about_the_target_time():
    timed = time_function(lambda: time.sleep(0.001))
    assert 10 <= timed.repeats <= 1000


def test_plain_numpy_work_is_cpu_work():
    assert detect_library(_axpy, _axpy_args(16)) == "cpu"


# --- placement -------------------------------------------------------------------------------

def test_profile_places_on_a_datasheet_machine():
    x, y, out = _axpy_args()
    r = profile(_axpy, x, y, out, n_flops=2 * x.size, n_bytes=f"12*{x.size}", ceilings="H200", repeats=20)
    np.testing.assert_allclose(out, 2 * x + y)
    h200 = rooflinelib.get_machine("H200")
    assert r.name == "_axpy" and r.library == "cpu" and r.repeats == 20
    assert r.intensity == pytest.approx(2 / 12)
    assert r.peak_gflops == h200.ceiling("fp32").value and r.peak_gbps == h200.ceiling("dram").value
    assert r.roof_gflops == pytest.approx(r.intensity * r.peak_gbps)
    assert r.side == "memory"
    assert r.fraction_of_roof == pytest.approx(r.achieved_gflops / r.roof_gflops)
    assert r.achieved_gbps == pytest.approx(r.n_bytes / r.seconds / 1e9)
    assert "datasheet" in r.ceilings_source
    assert r.advice and r.device["kind"] == "cpu"


def test_precision_picks_the_compute_roof():
    x, y, out = _axpy_args(1024)
    r = profile(_axpy, x, y, out, n_flops=1e12, n_bytes=1e9, ceilings="H200", precision="bf16", repeats=5)
    assert r.compute == "bf16-tensor" and r.side == "compute"
    with pytest.raises(ProfileError, match=r"^precision: A100 has no 'fp8' roof"):
        profile(_axpy, x, y, out, n_flops=1, n_bytes=1, ceilings="A100", precision="fp8", repeats=5)


def test_ceilings_from_a_recorded_result_dict_and_file(tmp_path):
    lab1 = results.recorded("ceilings")
    x, y, out = _axpy_args(1024)
    r = profile(_axpy, x, y, out, n_flops=2048, n_bytes=12 * 1024, ceilings=lab1, repeats=5)
    assert r.peak_gbps == next(c["value"] for c in lab1["ceilings"] if c["name"] == "dram")
    path = results.save(lab1, tmp_path / "lab1.json")
    r2 = profile(_axpy, x, y, out, n_flops=2048, n_bytes=12 * 1024, ceilings=str(path), repeats=5)
    assert str(path) in r2.ceilings_source and r2.peak_gbps == r.peak_gbps


def test_default_ceilings_are_the_stored_lab1_result(tmp_path, monkeypatch):
    from rooflinelib.store.lab_files import RESULTS_DIR_ENV, default_path
    monkeypatch.setenv(RESULTS_DIR_ENV, str(tmp_path))
    lab1 = results.recorded("ceilings")
    stored = dict(lab1, backend="cpu", scope="cpu")
    try:
        results.save(results.validate(stored), default_path("ceilings", "cpu"))
    except results.ResultError:
        pytest.skip("a GPU result cannot pose as a CPU one under this schema")
    x, y, out = _axpy_args(1024)
    r = profile(_axpy, x, y, out, n_flops=2048, n_bytes=12 * 1024, repeats=5)
    assert r.ceilings_source.startswith("your stored Lab 1 result")


def test_a_copy_judged_against_its_own_mix_gets_the_share_of_the_copy_ceiling(tmp_path):
    lab1 = results.recorded("ceilings")
    mixes = results.dram_mixes(lab1)  # the shipped H200: write 4,693, read 4,509, copy 4,280 GB/s
    assert mixes["copy"] < mixes["write"]
    x = np.ones(1 << 16)
    y = np.empty_like(x)
    best = profile(np.copyto, y, x, n_flops=0, n_bytes=16 * x.size, ceilings=lab1, repeats=5)
    assert best.memory == "dram" and best.peak_gbps == pytest.approx(mixes["write"])
    for memory in ("copy", "dram-copy", " Copy "):
        r = profile(np.copyto, y, x, n_flops=0, n_bytes=16 * x.size, ceilings=lab1, repeats=5, memory=memory)
        assert r.memory == "dram-copy" and r.peak_gbps == pytest.approx(mixes["copy"])
        assert r.fraction_of_roof == pytest.approx(r.achieved_gbps / mixes["copy"])
        assert r.to_dict()["memory"] == "dram-copy" and "fp32 / dram-copy of" in r.text()
        assert "memory roof: dram-copy (4,280 GB/s), as asked" in r.text()
    # with FLOPs the mix sets the ridge, and a file gives the mix as the dict does
    path = results.save(lab1, tmp_path / "lab1.json")
    r = profile(np.copyto, y, x, n_flops=x.size, n_bytes=16 * x.size, ceilings=str(path), repeats=5, memory="read")
    assert r.memory == "dram-read" and r.roof_gflops == pytest.approx(r.intensity * mixes["read"])
    assert load(r.save(tmp_path / "r.json")).memory == "dram-read"


def test_a_ceilings_result_without_the_mix_names_memory_and_what_it_has():
    lab1 = results.recorded("ceilings")
    older = dict(lab1, ceilings=[c for c in lab1["ceilings"] if c["name"] != "dram-copy"])
    with pytest.raises(ProfileError, match=r"^memory: .* has no 'dram-copy' roof \(it has: dram, dram-read, "
                                           r"dram-write\)") as info:
        profile(lambda: None, n_flops=0, n_bytes=8, ceilings=older, repeats=3, memory="copy")
    assert "\n" not in str(info.value)


def _mixes_machine(dram, copy):
    from rooflinelib.core.model import Ceiling, Machine
    return Machine("mixes", (Ceiling("dram", "memory", dram), Ceiling("dram-copy", "memory", copy),
                             Ceiling("fp32", "compute", 1e9)))


def test_above_its_own_mix_but_under_the_best_is_never_told_to_recount():
    # a copy ceiling far below and a best mix far above any NumPy copy: above dram-copy, under dram
    x = np.ones(1 << 14)
    y = np.empty_like(x)
    r = profile(np.copyto, y, x, n_flops=0, n_bytes=16 * x.size, ceilings=_mixes_machine(1e9, 1e-3),
                repeats=3, memory="copy")
    assert r.fraction_of_roof > 1.05  # against its own mix: the share is what it is
    assert "above its own roof" not in r.advice and "Recount" not in r.advice
    assert any(n.startswith("above the dram-copy roof") and "judge it against dram" in n for n in r.notes)
    # the same with FLOPs (the roof at its intensity)
    r = profile(np.copyto, y, x, n_flops=x.size, n_bytes=16 * x.size, ceilings=_mixes_machine(1e9, 1e-3),
                repeats=3, memory="copy")
    assert r.fraction_of_roof > 1.05 and "Recount" not in r.advice
    # above the best mix too: that is a counting error whichever mix is judged
    r = profile(np.copyto, y, x, n_flops=0, n_bytes=16 * x.size, ceilings=_mixes_machine(2e-3, 1e-3),
                repeats=3, memory="copy")
    assert "above its own roof" in r.advice and "Recount" in r.advice


def test_a_stored_profile_placed_again_on_its_own_mix():
    from rooflinelib.profiling.core import on_memory_roof
    from rooflinelib.profiling.recorded import recorded_profiles
    fused = recorded_profiles()["softmax fused"]  # profiled on dram, the fastest mix (the write)
    assert fused.memory == "dram"
    on_copy = on_memory_roof(fused, "copy", 4256.0)
    assert on_copy.memory == "dram-copy" and on_copy.peak_gbps == 4256.0
    assert on_copy.fraction_of_roof == pytest.approx(fused.achieved_gflops / (fused.intensity * 4256.0))
    assert on_copy.fraction_of_roof > fused.fraction_of_roof  # a slower roof, a larger share
    # the level-by-level placement takes its DRAM level at the same mix
    dram = on_copy.hierarchical["levels"]["dram"]
    assert dram["ceiling_gbps"] == 4256.0 and fused.hierarchical["levels"]["dram"]["ceiling_gbps"] == fused.peak_gbps
    assert on_copy.hierarchical["levels"]["l2"] == fused.hierarchical["levels"]["l2"]
    assert "4,256 GB/s" in on_copy.hierarchical["verdict"]
    # the timing, counts, device and warnings are the profile's own; the note says what moved
    for same in ("seconds", "samples_s", "n_flops", "n_bytes", "measured", "device", "warnings", "ceilings_source"):
        assert getattr(on_copy, same) == getattr(fused, same)
    assert sum(n.startswith("memory roof: dram-copy (4,256 GB/s), the kernel's access mix") for n in on_copy.notes) == 1
    assert "fp32 / dram-copy of" in on_copy.text()
    # once placed on a mix, the fastest is not known: refused, in one line naming the field
    with pytest.raises(ProfileError, match=r"^result: softmax fused is placed on dram-copy"):
        on_memory_roof(on_copy, "read", 4000.0)
    for bad, field in ((0, "gbps"), (float("nan"), "gbps"), ("fast", "gbps")):
        with pytest.raises(ProfileError, match=rf"^{field}: "):
            on_memory_roof(fused, "copy", bad)
    with pytest.raises(ProfileError, match=r"^memory: must be one of"):
        on_memory_roof(fused, "l2", 4256.0)


def test_a_live_profile_places_its_dram_level_on_the_mix_it_is_scored_against():
    from rooflinelib.core.model import Ceiling, Machine
    from rooflinelib.profiling import core
    machine = Machine("mixes", (Ceiling("dram", "memory", 4000.0), Ceiling("dram-copy", "memory", 3000.0),
                                Ceiling("l2", "memory", 9000.0), Ceiling("fp32", "compute", 60000.0)))
    measured = {"name": "k", "n_flops": 1e9, "achieved_gflops": 500.0, "dram_read_bytes": 1e9,
                "dram_write_bytes": 1e9, "lts_bytes": 3e9, "l1_bytes": 0.0}
    on_copy = core._placement(measured, core._dram_at(machine, "dram-copy", 3000.0), "fp32")
    assert on_copy["levels"]["dram"]["ceiling_gbps"] == 3000.0
    assert core._placement(measured, core._dram_at(machine, "dram", 4000.0), "fp32")["levels"]["dram"]["ceiling_gbps"] == 4000.0


def test_zero_flops_is_scored_against_bandwidth():
    x = np.ones(1 << 16, np.float32)
    y = np.empty_like(x)
    r = profile(np.copyto, y, x, n_flops=0, n_bytes=8 * x.size, ceilings="H200", repeats=5)
    assert r.side == "memory" and r.roof_gflops == 0
    assert r.fraction_of_roof == pytest.approx(r.achieved_gbps / r.peak_gbps)
    with pytest.raises(ProfileError, match="no point on a FLOP/s roofline"):
        r.figure()


def test_figure_shows_the_kernel_next_to_the_course_kernels():
    pytest.importorskip("plotly")
    from rooflinelib.core.operators import demo_kernels
    from rooflinelib.views.plotting import kernel_id, trace_ids
    x, y, out = _axpy_args(1024)
    r = profile(_axpy, x, y, out, n_flops=2048, n_bytes=12 * 1024, ceilings="H200", repeats=5, name="my axpy")
    ids = trace_ids(r.figure())
    assert kernel_id("my axpy") in ids
    assert all(kernel_id(op.name) in ids for op in demo_kernels())
    alone = trace_ids(r.figure(others=()))
    assert kernel_id("my axpy") in alone and kernel_id(demo_kernels()[0].name) not in alone


def test_text_names_the_verdict_and_a_tiny_share_is_not_zero():
    x, y, out = _axpy_args(1024)
    r = profile(_axpy, x, y, out, n_flops=2048, n_bytes=12 * 1024, ceilings="H200", repeats=5)
    text = r.text()
    assert "memory-bound" in text and "advice:" in text
    assert " 0% of its roof" not in text


# --- save and load ---------------------------------------------------------------------------

def test_save_load_round_trip(tmp_path):
    x, y, out = _axpy_args(1024)
    r = profile(_axpy, x, y, out, n_flops=2048, n_bytes=12 * 1024, ceilings="H200", repeats=5)
    path = r.save(tmp_path / "axpy.json")
    back = load(path)
    assert back == r
    record = json.loads(Path(path).read_text())
    # the keys roofline plot --json prints for a kernel
    for key in ("name", "flops", "bytes", "intensity", "roof_gflops", "side", "achieved_gflops",
                "fraction_of_roof", "advice"):
        assert key in record


@pytest.mark.parametrize("change, message", [
    (dict(format="other"), r"format: expected 'rooflinelib-profile'"),
    (dict(seconds=-1.0), r"seconds: must be a positive number"),
    (dict(n_bytes=0.0), r"n_bytes: must be a positive number"),
    (dict(side="sideways"), r"side: must be 'memory' or 'compute'"),
    (dict(repeats=1.5), r"repeats: must be a whole number"),
    (dict(notes="text"), r"notes: must be a list of texts"),
])
def test_load_refuses_bad_fields(tmp_path, change, message):
    x, y, out = _axpy_args(256)
    record = profile(_axpy, x, y, out, n_flops=512, n_bytes=3072, ceilings="H200", repeats=3).to_dict()
    record.update(change)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    with pytest.raises(ProfileError, match=message):
        load(path)


def test_load_refuses_a_missing_field_and_a_non_json_file(tmp_path):
    x, y, out = _axpy_args(256)
    record = profile(_axpy, x, y, out, n_flops=512, n_bytes=3072, ceilings="H200", repeats=3).to_dict()
    del record["advice"]
    (tmp_path / "a.json").write_text(json.dumps(record))
    with pytest.raises(ProfileError, match=r"advice: missing"):
        load(tmp_path / "a.json")
    (tmp_path / "b.json").write_text("{not json")
    with pytest.raises(ProfileError):
        load(tmp_path / "b.json")


# --- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    (dict(n_flops=0, n_bytes=0), r"^n_bytes: must be positive"),
    (dict(n_flops=-5, n_bytes=8), r"^n_flops: must not be negative"),
    (dict(n_flops="__import__('os').system('true')", n_bytes=8), r"^n_flops: names and calls are not allowed"),
    (dict(n_flops="1e400", n_bytes=8), r"^n_flops"),
    (dict(n_flops=1, n_bytes=None), r"^n_bytes: required"),
    (dict(n_flops=1, n_bytes=8, ceilings="Cray-1"), r"^ceilings: unknown machine 'Cray-1'"),
    (dict(n_flops=1, n_bytes=8, ceilings="x" * 5000), r"^ceilings: unknown machine 'x{40}\.\.\.'"),
    (dict(n_flops=1, n_bytes=8, ceilings=42), r"^ceilings: expected a result file"),
    (dict(n_flops=1, n_bytes=8, ceilings={"format": "nope"}), r"^ceilings: "),
    (dict(n_flops=1, n_bytes=8, repeats=0), r"^repeats: must be a whole number from 1"),
    (dict(n_flops=1, n_bytes=8, counters="yes"), r"^counters: must be True or False"),
    (dict(n_flops=1, n_bytes=8, name=""), r"^name: must be a non-empty text"),
    # counts outside sanity.BANDS: once a bare ValueError from an infinite intensity
    (dict(n_flops=1e21, n_bytes=1e-300), r"^n_bytes: 1e-300 is less than one byte"),
    (dict(n_flops=1, n_bytes=0.5), r"^n_bytes: 0\.5 is less than one byte"),
    (dict(n_flops=1e25, n_bytes=8), r"^n_flops: 1e\+25 is more than .* \(at most 1e\+24 FLOPs\)"),
    (dict(n_flops=1, n_bytes=2e21), r"^n_bytes: 2e\+21 is more than .* \(at most 1e\+21 bytes\)"),
    (dict(n_flops=1, n_bytes=8, memory="bogus"), r"^memory: must be one of dram, dram-read, .*, got 'bogus'"),
    (dict(n_flops=1, n_bytes=8, memory=3), r"^memory: must be one of .*, got int"),
    (dict(n_flops=1, n_bytes=8, memory="copy"), r"^memory: H200 has no 'dram-copy' roof \(it has: dram\)"),
])
def test_bad_input_is_one_line_naming_the_argument(kwargs, message):
    kwargs.setdefault("ceilings", "H200")
    with pytest.raises(ProfileError, match=message) as info:
        profile(lambda: None, **kwargs)
    assert "\n" not in str(info.value)


def test_a_non_callable_is_refused():
    with pytest.raises(ProfileError, match=r"^fn: must be callable"):
        profile(42, n_flops=1, n_bytes=1, ceilings="H200")


@pytest.mark.parametrize("exc", [ValueError("bad shape"), SystemExit("exit!"), ZeroDivisionError("x")])
def test_a_function_that_raises_shows_its_message(exc):
    def broken():
        raise exc
    with pytest.raises(ProfileError, match=rf"^fn: raised {type(exc).__name__} on the first call: "):
        profile(broken, n_flops=1, n_bytes=1, ceilings="H200")


def test_a_missing_ceilings_file_names_it(tmp_path):
    with pytest.raises(ProfileError, match=r"^ceilings: .*nothere\.json"):
        profile(lambda: None, n_flops=1, n_bytes=1, ceilings=str(tmp_path / "nothere.json"))


def test_counters_need_a_module_function_with_setup():
    with pytest.raises(ProfileError, match=r"^fn: counters=True needs a function defined at the top level"):
        profile(lambda: None, n_flops=1, n_bytes=1, ceilings="H200", counters=True, repeats=2)


def test_counters_without_ncu_say_so(monkeypatch):
    from rooflinelib.profiling import counters
    monkeypatch.setenv(counters.ENV_NCU, "/nonexistent/ncu")
    monkeypatch.setattr(counters.shutil, "which", lambda name: None)
    monkeypatch.setattr("rooflinelib.hierarchy.ncu.NCU_DEFAULT", "/nonexistent/ncu2")
    with pytest.raises(ProfileError, match=r"^counters: Nsight Compute \(ncu\) was not found"):
        counters.ncu_path()


def test_the_counters_child_reports_a_cpu_function_in_one_line():
    done = subprocess.run([sys.executable, "-m", "rooflinelib.profiling.counters", str(AXPY), "axpy"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("ROOFLINE-CHILD-ERROR axpy: launched no GPU work")


# --- the command line ------------------------------------------------------------------------

def _roofline(*argv, timeout=120):
    return subprocess.run([sys.executable, "-m", "rooflinelib", *argv], capture_output=True, text=True,
                          timeout=timeout)


def test_cli_profiles_a_file_with_setup_and_counts(tmp_path):
    out = tmp_path / "axpy.json"
    done = _roofline("profile", f"{AXPY}:axpy", "--machine", "H200", "--repeats", "5", "--json", "--out", str(out))
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["name"] == "axpy" and record["flops"] == 2 * 2 ** 18 and record["bytes"] == 12 * 2 ** 18
    assert record["repeats"] == 5 and record["side"] == "memory"
    assert load(out).to_dict() == record


@pytest.mark.parametrize("argv, message", [
    ((f"{TARGETS}/missing.py:axpy",), r"missing\.py: no such Python file"),
    ((f"{AXPY}:nothere",), r"cpu_axpy\.py: defines no function 'nothere'"),
    ((f"{AXPY}:not_a_function",), r"defines no function 'not_a_function'"),
    ((f"{AXPY}",), r"FILE\.py:FUNCTION: expected a file and a function"),
    ((f"{AXPY}:raises",), r"fn: raised SystemExit on the first call: the student's code called exit\(\)"),
    ((f"{AXPY}:axpy", "--n-bytes", "0"), r"n_bytes: must be positive"),
    ((f"{AXPY}:axpy", "--machine", "nope"), r"ceilings: unknown machine 'nope'"),
    ((f"{AXPY}:axpy", "--memory", "hbm"), r"--memory: must be one of dram, .*, got 'hbm'"),
    ((f"{AXPY}:axpy", "--memory", "copy"), r"memory: H200 has no 'dram-copy' roof"),
])
def test_cli_errors_are_one_line_with_status_2(argv, message):
    done = _roofline("profile", *argv, "--repeats", "3", *(() if "--machine" in argv else ("--machine", "H200")))
    assert done.returncode == 2, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("roofline: error: ")
    assert __import__("re").search(message, lines[0]), lines[0]


def test_top_level_name_is_the_profiler():
    assert rooflinelib.profile is profiling.profile
    assert math.isfinite(profiling.core.COUNT_TOLERANCE)


# --- the time bound (profile(timeout=), roofline profile --timeout) ----------------------------

def _sleeps_forever():
    time.sleep(1e6)


def _spins_forever():
    while True:
        pass


_RELEASE = __import__("threading").Event()  # lets the thread that swallowed its stop request end


def _swallows_everything():
    while not _RELEASE.is_set():
        try:
            time.sleep(0.01)
        except BaseException:  # a student's bare except: the stop request is swallowed too
            pass


@pytest.mark.parametrize("fn, still", [(_spins_forever, False), (_sleeps_forever, True),
                                       (_swallows_everything, True)])
def test_a_function_that_never_returns_is_stopped_at_its_time_limit(fn, still):
    _RELEASE.clear()
    started = time.perf_counter()
    with pytest.raises(ProfileError) as caught:
        profile(fn, n_flops=0, n_bytes=8, ceilings="H200", timeout=0.5)
    took = time.perf_counter() - started
    message = str(caught.value)
    assert took < 5, f"the bound of 0.5 s returned after {took:.1f} s"
    assert message.startswith(f"fn: {fn.__name__} did not return within its time limit, timeout = 0.5 s")
    _RELEASE.set()
    assert ("still running in the background" in message) is still
    assert "\n" not in message


def test_the_default_time_limit_is_bounded_and_used():
    import inspect
    default = inspect.signature(profile).parameters["timeout"].default
    assert 10 <= default <= 3600
    seen = {}
    real = profiling.core.time_function

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    profiling.core.time_function = spy
    try:
        profile(_axpy, *_axpy_args(), n_flops=1, n_bytes=1, ceilings="H200", repeats=2)
    finally:
        profiling.core.time_function = real
    assert seen["timeout_s"] == default


@pytest.mark.parametrize("timeout, reason", [(0, "must be a positive number"), (-1, "must be a positive number"),
                                             (float("nan"), "must be a finite number"), ("5", "must be a number"),
                                             (True, "must be a number"), (1e9, "outside")])
def test_bad_timeouts_are_refused_naming_the_argument(timeout, reason):
    with pytest.raises(ProfileError, match=rf"^timeout: .*{reason}"):
        profile(_axpy, *_axpy_args(), n_flops=1, n_bytes=1, ceilings="H200", timeout=timeout)


def test_a_function_that_returns_in_time_is_timed_in_the_callers_process():
    result = profile(_axpy, *_axpy_args(), n_flops=2 * 2 ** 16, n_bytes=12 * 2 ** 16, ceilings="H200",
                     repeats=4, timeout=60)
    assert result.repeats == 4 and len(result.samples_s) == 4
    assert sorted(result.samples_s)[1] <= result.seconds <= sorted(result.samples_s)[2]


def test_samples_are_saved_and_loaded(tmp_path):
    result = profile(_axpy, *_axpy_args(), n_flops=1, n_bytes=1, ceilings="H200", repeats=3)
    back = load(result.save(tmp_path / "p.json"))
    assert back.samples_s == result.samples_s and len(back.samples_s) == 3
    record = result.to_dict()
    record["samples_s"] = [1e-3, -1.0, 2e-3]
    with pytest.raises(ProfileError, match="samples_s: must be a list"):
        profiling.from_dict(record)
    del record["samples_s"]  # a file saved before the samples were kept still loads
    assert profiling.from_dict(record).samples_s == ()


HANGS = '''
import time
N_FLOPS = 0
N_BYTES = 8
def setup():
    if SETUP_SLEEPS:
        time.sleep(1e6)
    return ()
def sleeps():
    time.sleep(1e6)
def quick():
    return None
'''


@pytest.mark.parametrize("where, function, setup_sleeps, expected", [
    ("function", "sleeps", False, r"^roofline: error: fn: sleeps did not return within its time limit, timeout = 1 s"),
    ("setup", "quick", True, r"^roofline: error: hangs\.py: setup\(\) did not return within its time limit, timeout = 1 s"),
    ("import", "quick", None, r"^roofline: error: importing .*hangs\.py did not return within its time limit, timeout = 1 s"),
])
def test_cli_profile_bounds_the_import_the_setup_and_the_function(tmp_path, where, function, setup_sleeps, expected):
    source = HANGS.replace("SETUP_SLEEPS", str(setup_sleeps))
    if setup_sleeps is None:
        source = "import time\ntime.sleep(1e6)\n" + source.replace("SETUP_SLEEPS", "False")
    (tmp_path / "hangs.py").write_text(source)
    target = f"hangs.py:{function}" if where == "setup" else f"{tmp_path / 'hangs.py'}:{function}"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "rooflinelib", "profile", target, "--machine", "H200",
                           "--timeout", "1"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert time.perf_counter() - started < 60
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and __import__("re").search(expected, lines[0]), lines


@pytest.mark.parametrize("value, reason", [("nan", "must be in (0, "), ("0", "must be in (0, "),
                                           ("abc", "must be a number, got 'abc'"), ("1e9", "must be in (0, "),
                                           ("inf", "must be in (0, "), ("__import__('os')", "must be a number")])
def test_cli_profile_timeout_is_checked(value, reason):
    done = _roofline("profile", f"{AXPY}:axpy", "--machine", "H200", "--timeout", value)
    assert done.returncode == 2
    assert done.stderr.startswith("roofline: error: --timeout: ") and reason in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# --- issue 25: one source of ceilings, and warnings that say when a placement cannot be trusted --

def _cpu_lab1(fp32=80.0, dram=10.0, device=None):
    from rooflinelib.measure.provenance import cpu_provenance
    return results.validate({
        "format": "rooflinelib-result", "version": 1, "kind": "ceilings", "backend": "cpu", "scope": "cpu",
        "created": "2026-12-01T23:00:00+00:00", "device": {"name": device or cpu_provenance(0)["name"]},
        "ceilings": [{"name": "dram", "kind": "memory", "value": dram, "unit": "GB/s", "verified": True, "spread": 0.01},
                     {"name": "fp32", "kind": "compute", "value": fp32, "unit": "GFLOP/s", "verified": True,
                      "spread": 0.01}]})


@pytest.fixture
def one_lab1(tmp_path, monkeypatch):
    """An empty results folder and a Lab 1 that counts its runs."""
    from rooflinelib import measure, modes
    from rooflinelib.store.lab_files import RESULTS_DIR_ENV
    monkeypatch.setenv(RESULTS_DIR_ENV, str(tmp_path / "results"))
    monkeypatch.delenv(modes.ENV_VAR, raising=False)
    monkeypatch.setattr(modes, "_measured_now", {})
    calls = []
    monkeypatch.setattr(measure, "measure_ceilings", lambda **o: calls.append(o) or _cpu_lab1())
    return calls


def test_profile_plot_and_the_exercises_show_one_ridge_after_one_measurement(one_lab1, capsys):
    import contextlib
    import io
    from rooflinelib.cli import main
    from rooflinelib.exercises import ex04_place_kernel as ex04
    from rooflinelib.modes import RunMode, student_ceilings
    from rooflinelib.profiling import capstone
    x, y, out = _axpy_args(1024)
    first = profile(_axpy, x, y, out, n_flops=2048, n_bytes=12 * 1024, repeats=3)
    assert len(one_lab1) == 1 and "run `roofline measure` to measure again" in first.ceilings_source.lower()
    second = profile(_axpy, x, y, out, n_flops=2048, n_bytes=12 * 1024, repeats=3)
    assert len(one_lab1) == 1 and second.ceilings_source.startswith("your stored Lab 1 result")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["plot", "--json", "--kernel", "axpy, 2048, 12288"]) == 0
    plotted = json.loads(printed.getvalue())["machine"]["ridge"]
    cpu = RunMode("cpu", "cpu", "a test CPU")
    exercise_source = student_ceilings(cpu, measure="if-missing").machine.ridge()
    notebook_07 = capstone.lab1_ceilings(cpu)[0].machine.ridge()
    assert first.ridge == second.ridge == plotted == exercise_source == notebook_07 == 8.0
    assert len(one_lab1) == 1
    assert ex04.prepare.__code__.co_names.count("student_ceilings")  # ex04 goes through the same chain


def test_a_cpu_function_on_a_gpus_ceilings_is_warned(tmp_path):
    x, y, out = _axpy_args(1024)
    r = profile(_axpy, x, y, out, n_flops=2048, n_bytes=12 * 1024, ceilings="H200", repeats=3)
    assert r.warnings and "timed on the CPU is scored against H200, a GPU's ceilings" in r.warnings[0]
    assert r.to_dict()["warnings"] == list(r.warnings)
    assert "WARNING: a function timed on the CPU" in r.text()
    assert profiling.load(r.save(tmp_path / "r.json")).warnings == r.warnings


def test_ceilings_of_another_cpu_are_warned():
    x, y, out = _axpy_args(1024)
    r = profile(_axpy, x, y, out, n_flops=2048, n_bytes=12 * 1024, ceilings=_cpu_lab1(device="CPU: another CPU"),
                repeats=3)
    assert any("measured on CPU: another CPU" in w for w in r.warnings), r.warnings
    mine = profile(_axpy, x, y, out, n_flops=2048, n_bytes=12 * 1024, ceilings=_cpu_lab1(), repeats=3)
    assert mine.warnings == ()


def test_a_clock_that_moved_the_roof_is_warned_and_the_gpu_reverse_too():
    from rooflinelib.profiling.core import result_warnings
    lab1 = results.recorded("ceilings")
    machine = results.to_machine(lab1)
    clock = machine.provenance["sm_clock_mhz_during"]["fp32"]
    name = lab1["device"]["name"]
    same = {"name": name, "after": {"sm_clock_mhz": clock * 1.04}}
    assert result_warnings("numba", machine, same, "fp32") == []
    slow = {"name": name, "after": {"sm_clock_mhz": clock * 0.90}}
    assert any("more than 5%" in w and "pitfall 8" in w for w in result_warnings("numba", machine, slow, "fp32"))
    on_cpu = results.to_machine(_cpu_lab1())
    assert any("timed on the GPU is scored against" in w for w in result_warnings("numba", on_cpu, same, "fp32"))


def test_cpu_code_gets_the_cpu_advice_plot_gives():
    from rooflinelib.core.model import CPU_ADVICE
    from rooflinelib.core.placement import KernelPoint, place
    from rooflinelib.lessons.triage import lever
    x, y, out = _axpy_args(1 << 16)
    lab1 = _cpu_lab1(fp32=10_000.0, dram=1e-3)  # a roof the axpy is near, whatever this machine's speed
    probe = profile(_axpy, x, y, out, n_flops=2 * x.size, n_bytes=12 * x.size, ceilings=lab1, repeats=3)
    lab1 = _cpu_lab1(fp32=10_000.0, dram=probe.achieved_gbps / 0.9)
    r = profile(_axpy, x, y, out, n_flops=2 * x.size, n_bytes=12 * x.size, ceilings=lab1, repeats=3)
    machine = results.to_machine(lab1)
    plotted = place(KernelPoint("axpy", r.n_flops, r.n_bytes, r.achieved_gflops), machine.roofline())
    for word in ("CUDA", "occupancy", "shared memory", "warp", "L2 hit"):
        assert word not in r.advice and word not in plotted["advice"]
    assert plotted["advice"] in CPU_ADVICE.values()
    if r.fraction_of_roof <= 1.05:  # above its roof, the triage names pitfall 6 instead
        expected = lever(plotted["advice"])  # the same lever, in the same words
        if plotted["advice"] == CPU_ADVICE["far-below"]:
            # a loaded machine can put the second run far below the roof the first set; the
            # triage then states the "not modelled" cause itself and keeps the advice's checks
            expected = expected.split(". ", 1)[-1]
        assert expected in r.advice


def test_ncu_l1_traffic_is_placed_and_named_as_the_l1_not_shared_memory():
    # l1tex__t_bytes counts global/local loads through the L1; a live profile(counters=True) once
    # placed them on the "shared" level and said "bound by shared memory" for an uncoalesced GEMM
    from rooflinelib.profiling import capstone, core
    machine = results.recorded_h200()
    measured = {"name": "gemm naive", "n_flops": 2 * 2048**3, "achieved_gflops": 1270.0,
                "dram_read_bytes": 5e7, "dram_write_bytes": 1.7e7, "lts_bytes": 2.0e10, "l1_bytes": 1.46e11}
    placed = core._placement(measured, machine, "fp32")
    assert set(placed["levels"]) == {"dram", "l2", "l1"} and placed["binding"] == "l1"
    assert "L1 cache" in placed["verdict"] and "shared memory" not in placed["verdict"]
    assert placed["levels"]["l1"]["ceiling_gbps"] == machine.ceiling("shared").value
    assert capstone.LEVEL_LABELS["l1"] == "l1"
