"""The hardening issue's cases one by one, beside the general properties of
test_parser_properties.py: each hostile value gets a one-line error that names its field (or
a clamp), never a traceback, a hang or a wrong acceptance."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rooflinelib.exercises import grading
from rooflinelib.views import widget_state as ws
from rooflinelib.hierarchy import ncu
from rooflinelib.measure import measure_ceilings, run_sweep

ROOT = Path(__file__).resolve().parent.parent
ROOFLINE = [sys.executable, "-m", "rooflinelib.cli"]


def _roofline(*argv):
    return subprocess.run(ROOFLINE + list(argv), capture_output=True, text=True, timeout=120, cwd=ROOT)


# --- values ----------------------------------------------------------------------------------

@pytest.mark.parametrize("run", [measure_ceilings, run_sweep])
@pytest.mark.parametrize("size", [1e-300, 0.5, 1e9, math.nan, 10 ** 400])
def test_a_buffer_too_small_to_be_dram_is_refused(run, size):
    with pytest.raises(ValueError, match=r"^size_mib: "):
        run("cpu", size_mib=size)


def test_the_cli_refuses_a_tiny_buffer_before_measuring():
    done = _roofline("measure", "--backend", "cpu", "--size-mib", "1e-300")
    assert done.returncode == 2
    assert done.stderr == "roofline: error: --size-mib: must be from 1 to 65536, got '1e-300'\n"


@pytest.mark.parametrize("peaks", [("1e12", "1e-6"), ("1e-6", "1e12"), ("1e12", "1e12"), ("1e-6", "1e-6")])
def test_the_text_chart_draws_any_roofline_inside_the_band(peaks):
    done = _roofline("plot", "--peak-gflops", peaks[0], "--peak-gbps", peaks[1], "--demo-kernels",
                     "--kernel", "x, 1e12, 1", "--kernel", "y, 1, 1e12")
    assert done.returncode == 0 and done.stderr == ""
    assert "GFLOP/s" in done.stdout


@pytest.mark.parametrize("peak", ["1e300", "1e-300", "1e13"])
def test_peaks_outside_the_band_are_refused(peak):
    done = _roofline("plot", "--peak-gflops", peak, "--peak-gbps", "4000", "--demo-kernels")
    assert done.returncode == 2
    assert done.stderr.startswith("roofline: error: --peak-gflops: ") and "outside 1e-06..1e+12" in done.stderr


# --- the ncu importer ------------------------------------------------------------------------

HEADER = ('"ID","Kernel Name","l1tex__t_bytes.sum","sm__sass_thread_inst_executed_op_ffma_pred_on.sum",'
          f'"{ncu.TIME_METRIC}"\n')


def _csv(units, values, name="k(float*)"):
    return (HEADER + '"",""' + "".join(f',"{u}"' for u in units) + "\n"
            + f'"0","{name}"' + "".join(f',"{v}"' for v in values) + "\n")


@pytest.mark.parametrize("units, values, message", [
    (("byte", "inst", "nsecond"), ("-5", "10", "100"), "metric l1tex__t_bytes.sum: must not be negative"),
    (("byte", "inst", "nsecond"), ("5", "-10", "100"), "_pred_on.sum: must not be negative"),
    (("byte", "inst", "nsecond"), ("5", "10", "0"), "gpu__time_duration.sum: must be positive: a launch takes time"),
    (("byte", "inst", "byte"), ("5", "10", "100"), "gpu__time_duration.sum: unit 'byte' measures bytes, but this metric is time"),
    (("nsecond", "inst", "nsecond"), ("5", "10", "100"), "l1tex__t_bytes.sum: unit 'nsecond' measures time"),
    (("byte", "byte", "nsecond"), ("5", "10", "100"), "unit 'byte' measures bytes, but this metric is count"),
    (("byte", "inst", "nsecond"), ("9" * 400, "10", "100"), "is not a number"),
    (("byte/" * 3000, "inst", "nsecond"), ("5", "10", "100"), "is not one this importer converts"),
])
def test_ncu_values_of_the_wrong_sign_dimension_or_size_name_the_metric(units, values, message):
    with pytest.raises(ncu.NcuError, match=f"^prof.csv: line 3: .*{message}"):
        ncu.parse_csv(_csv(units, values), "prof.csv")


def test_control_characters_in_kernel_names_never_reach_the_terminal():
    (kernel,) = ncu.parse_csv(_csv(("byte", "inst", "nsecond"), ("5", "10", "100"),
                                   name="evil\x1b[2J\x1b]0;pwned\x07(float*)"))
    assert kernel.name == "evil[2J]0;pwned(float*)" and kernel.short_name == "evil[2J]0;pwned"


def test_a_launch_id_given_twice_is_refused():
    text = _csv(("byte", "inst", "nsecond"), ("5", "10", "100"))
    with pytest.raises(ncu.NcuError, match=r"line 4: column 'ID': launch '0' appears twice \(first at line 3\)"):
        ncu.parse_csv(text + text.splitlines()[-1] + "\n", "prof.csv")


# --- the CLI's minor cases -------------------------------------------------------------------

def test_a_long_machine_name_is_not_echoed_whole():
    done = _roofline("plot", "--machine", "x" * 100_000, "--demo-kernels")
    assert done.returncode == 2 and len(done.stderr) < 400
    assert done.stderr.startswith("roofline: error: --machine: unknown 'xxxx")


def test_two_kernels_of_one_name_are_refused():
    done = _roofline("plot", "--machine", "H200", "--kernel", "a, 1, 1", "--kernel", "a, 2, 2")
    assert done.returncode == 2
    assert done.stderr == ("roofline: error: --kernel: the name 'a' is given twice; give each kernel "
                           "a name of its own\n")


# --- checkers --------------------------------------------------------------------------------

class _Raises(float):
    def __float__(self):
        raise SystemExit(1)


class _BadRepr:
    def __repr__(self):
        raise ValueError("no")

    def __getattr__(self, name):
        raise KeyError(name)


class _SlowFloat(float):
    def __float__(self):
        time.sleep(60)
        return 1.0


class _SlowRepr:
    def __repr__(self):
        while True:
            pass


def _exits(**point):
    raise SystemExit(0)


def _swallows_everything(**point):
    while True:
        try:
            while True:
                pass
        except BaseException:  # a student who catches all, even the request to stop
            pass


@pytest.mark.parametrize("answer", [_Raises(2.0), _BadRepr(), _SlowFloat(3.0), _SlowRepr(),
                                    10 ** 5000, -10 ** 4301, "9" * 5000],
                         ids=["float-exits", "repr-getattr-raise", "slow-float", "endless-repr",
                              "5001-digits", "4302-digits", "5000-digit-text"])
@pytest.mark.slow
def test_a_hostile_answer_is_check_your_input_within_the_limit(answer):
    started = time.monotonic()
    for check in (grading.check_number(answer, 40.0, "q"),
                  grading.check_choice(answer, "memory", "q", grading.SIDES)):
        assert check.status == "invalid" and str(check).startswith("[CHECK YOUR INPUT] q: ")
    assert time.monotonic() - started < 4 * grading.STUDENT_TIME_LIMIT_S + 2


_STUDENT_FUNCTION = """
import sys
sys.path.insert(0, {tests!r})
import test_hostile_values as t
from rooflinelib.exercises import grading
check = grading.check_function(getattr(t, {name!r}), lambda n: n, [{{"n": 1}}, {{"n": 2}}], "f")
print(check.status, "|", check.message)
"""


@pytest.mark.parametrize("name", ["_exits", "_swallows_everything"], ids=["exits", "swallows"])
def test_a_student_function_that_exits_or_never_returns_is_check_your_input(name):
    # In a process of its own: the function that swallows the request to stop keeps its thread
    # spinning after the check has returned, and in the test process it would hold a core (and
    # inflate process_time, which the CPU lane's contention test reads) for the rest of the run.
    code = _STUDENT_FUNCTION.format(tests=str(Path(__file__).parent), name=name)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    status, message = done.stdout.strip().splitlines()[-1].split(" | ", 1)
    assert status == "invalid" and "your function at n=1" in message


def test_a_table_of_hostile_values_prints():
    table = grading.Table(("value",), ((_BadRepr(),), (10 ** 5000,), (grading.NOT_ANSWERED,)))
    assert str(table).splitlines()[2:] == ["?", "?", "—"]


# --- widget state ----------------------------------------------------------------------------

@pytest.mark.parametrize("value, reason", [(10 ** 400, "must be at most 30 digits"),
                                           (math.inf, "must be a finite number"),
                                           (math.nan, "must be a finite number"),
                                           (-1, "must be a positive number")])
def test_widget_state_names_the_field_of_a_hostile_value(value, reason):
    cases = [(lambda: ws.explorer_state("H200", "fp32", value), "intensity"),
             (lambda: ws.time_bounds_state(value, 1e9, 1e5, 1e3), "n_flops"),
             (lambda: ws.time_bounds_state(1e9, 1e9, value, 1e3), "peak_gflops"),
             (lambda: ws.gemm_state("H200", "fp32", value), "n"),
             (lambda: ws.attention_state("H200", value, 128), "s"),
             (lambda: ws.tile_state(value), "tile")]
    for call, field in cases:
        with pytest.raises(ValueError, match=rf"^{field}: ") as refused:
            call()
        if value != -1 or field in ("intensity", "n_flops", "peak_gflops"):
            assert reason in str(refused.value)


def test_an_unknown_machine_names_the_field():
    with pytest.raises(ValueError, match=r"^machine: unknown 'Z9000'; known: "):
        ws.explorer_state("Z9000")
    with pytest.raises(ValueError, match=r"^machine: must be a Machine or a machine's name"):
        ws.gemm_state(42)


def test_widgets_show_a_hostile_value_in_the_widget():
    pytest.importorskip("ipywidgets")
    from rooflinelib.views import widgets
    explorer = widgets.IntensityExplorer(warm=False)
    for value in (10 ** 400, math.inf, math.nan, 1e9):
        state = explorer.update(intensity=value)
        assert state.intensity == 1.0 and "intensity: " in explorer.verdict.value
    explorer.update(machine="Z9000")
    assert "machine: unknown" in explorer.verdict.value
    animation = widgets.TileAnimation()
    assert animation.update(10 ** 400) is None and "tile: " in animation.text.value


def test_log_sliders_clamp_values_ipywidgets_would_refuse():
    pytest.importorskip("ipywidgets")
    from rooflinelib.views import widgets
    bounds = widgets.TimeBoundsWidget()
    # The slider's ends are the stops of its grid nearest outside 1e6 and 1e15 (the grid is
    # shifted so that the starting value is a stop: test_widgets, starts exactly at the example).
    step = bounds.flops.step
    assert 6 - step < bounds.flops.min <= 6 and 15 <= bounds.flops.max < 15 + step
    top, bottom = 10 ** bounds.flops.max, 10 ** bounds.flops.min
    for value, expected in ((10 ** 400, top), (-10 ** 400, bottom), (math.inf, top)):
        bounds.flops.value = value
        assert bounds.flops.value == pytest.approx(expected, rel=1e-12) and "F/P = " in bounds.text.value
    bounds.flops.value = math.nan
    assert "n_flops: must be a finite number" in bounds.text.value


@pytest.mark.parametrize("names", [("x", "x", "x#2"), ("x#2", "x", "x"), ("x", "x", "x")])
def test_kernels_of_one_name_get_distinct_trace_ids(names):
    pytest.importorskip("plotly")
    from rooflinelib.core.machines import get_machine
    from rooflinelib.core.placement import KernelPoint
    from rooflinelib.views.plotting import roofline_figure, trace_ids
    figure = roofline_figure(get_machine("H200"), [KernelPoint(n, i + 1, 1) for i, n in enumerate(names)])
    ids = [t for t in trace_ids(figure) if str(t).startswith("kernel:")]
    assert len(ids) == len(set(ids)) == 3


def test_ncu_peaks_from_a_zero_or_absurd_clock_are_left_out():
    peak = "dram__bytes.sum.peak_sustained"
    clock = "dram__cycles_elapsed.avg.per_second"
    header = HEADER.rstrip("\n") + f',"{peak}","{clock}"\n'
    for rate in ("0", "1" + "0" * 40):
        text = (header + '"","","byte","inst","nsecond","byte/cycle","cycle/second"\n'
                + f'"0","k(float*)","5","10","100","1536","{rate}"\n')
        (kernel,) = ncu.parse_csv(text, "prof.csv")
        assert kernel.peaks() is None  # no roof of 0 or 1e31 GB/s, and no division by it


# --- a saved profile (rooflinelib.profiling.load) ----------------------------------------------

def _profile_record():
    from rooflinelib import profiling
    import numpy as np
    x = np.ones(256, dtype=np.float32)
    return profiling.profile(lambda a: a.sum(), x, n_flops=256, n_bytes=1024, ceilings="H200",
                             repeats=3).to_dict()


@pytest.mark.parametrize("change, message", [
    # the case: each number finite, the rate they make is not (was achieved_gflops = inf)
    (dict(n_flops=1e21, seconds=1e-300), r"seconds: 1e-300 s is outside 1e-12\.\.1e\+07 s"),
    (dict(n_flops=1e300), r"n_flops: 1e\+300 FLOPs is outside 0\.\.1e\+24 FLOPs"),
    (dict(n_bytes=1e22), r"n_bytes: 1e\+22 bytes is outside 0\.\.1e\+21 bytes"),
    (dict(n_bytes=1e-300, n_flops=1e21), r"intensity: inf from the stored numbers"),
    (dict(peak_gflops=1e300), r"peak_gflops: 1e\+300 GFLOP/s is outside"),
    (dict(peak_gbps=1e-300), r"peak_gbps: 1e-300 GB/s is outside"),
    (dict(roof_gflops=1e300), r"roof_gflops: 1e\+300 GFLOP/s is outside"),
    (dict(first_call_s=1e300), r"first_call_s: 1e\+300 s is outside"),
    (dict(seconds=10 ** 400), r"seconds: must be a finite number, got inf"),
])
def test_a_saved_profile_is_held_to_the_bands_of_profile_and_sanity(tmp_path, change, message):
    from rooflinelib import profiling
    record = _profile_record()
    record.update(change)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(record))
    with pytest.raises(profiling.ProfileError, match=rf"^{path}: {message}"):
        profiling.load(path)


def test_saving_a_profile_with_an_infinite_rate_names_the_field_and_writes_nothing(tmp_path):
    import dataclasses
    from rooflinelib import profiling
    good = profiling.from_dict(_profile_record())
    bad = dataclasses.replace(good, n_flops=1e21, seconds=1e-300)  # achieved_gflops = inf
    assert math.isinf(bad.achieved_gflops)
    target = tmp_path / "p.json"
    target.write_text("old\n")
    # was a bare ValueError: Out of range float values are not JSON compliant
    with pytest.raises(profiling.ProfileError, match=rf"^{target}: not written: seconds: 1e-300 s is outside"):
        bad.save(target)
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["p.json"]
    nested = dataclasses.replace(good, device={"clock_mhz": math.inf})
    with pytest.raises(profiling.ProfileError, match=rf"^{target}: not written: Out of range float"):
        nested.save(target)
    assert profiling.load(good.save(target)) == good


# --- every numeric option of every lab script: the roofline command's one check ----------------

def _lab(name):
    from support.scripts import load_script
    return load_script(f"labs/{name}.py", f"lab_{name}")


def _lab_main(name, argv):
    if name in ("lab1_ceilings", "lab3_sweep"):  # they are `roofline measure` and `roofline sweep`
        from labs._lab_common import run_lab
        return run_lab("measure" if name == "lab1_ceilings" else "sweep", ["--no-save", *argv])
    return _lab(name).main(argv)


LAB_OPTIONS = [
    ("lab4_ncu", ["profile", "--ncu", "/bin/true", "--timeout"], "lab4: --timeout: "),
    ("lab4_target", ["--analytic", "{tmp}/a.json", "--large-mib"], "lab4_target: --large-mib: "),
    ("lab4_target", ["--analytic", "{tmp}/a.json", "--small-mib"], "lab4_target: --small-mib: "),
    ("lab4_target", ["--analytic", "{tmp}/a.json", "--ws-mib"], "lab4_target: --ws-mib: "),
    ("lab4_target", ["--analytic", "{tmp}/a.json", "--ws-passes"], "lab4_target: --ws-passes: "),
    ("lab4_target", ["--analytic", "{tmp}/a.json", "--ks"], "lab4_target: --ks: "),
    ("lab4_target", ["--analytic", "{tmp}/a.json", "--l2-sharing"], "lab4_target: --l2-sharing: "),
    ("lab1_ceilings", ["--backend", "cpu", "--size-mib"], "roofline: error: --size-mib: "),
    ("lab1_ceilings", ["--backend", "cpu", "--repeats"], "roofline: error: --repeats: "),
    ("lab3_sweep", ["--backend", "cpu", "--size-mib"], "roofline: error: --size-mib: "),
    ("lab3_sweep", ["--backend", "cpu", "--repeats"], "roofline: error: --repeats: "),
]


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e400", "abc", "9" * 5000, "1e300"])
@pytest.mark.parametrize("name, argv, starts", LAB_OPTIONS, ids=[f"{n}{a[-1]}" for n, a, _ in LAB_OPTIONS])
def test_every_numeric_lab_option_refuses_a_hostile_value_in_one_line(name, argv, starts, value, tmp_path, capsys):
    # lab4_ncu.py profile --timeout nan was a traceback (ValueError from subprocess.run)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert _lab_main(name, [*argv, value]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(starts) and len(lines[0]) < 500, err
    assert out == "" and not any(tmp_path.iterdir())


def test_the_labs_word_a_bad_number_as_the_roofline_command_does(capsys):
    from rooflinelib.cli import main
    assert main(["measure", "--backend", "cpu", "--no-save", "--repeats", "0"]) == 2
    assert _lab("lab4_ncu").main(["profile", "--timeout", "0"]) == 2
    roofline_says, lab_says = capsys.readouterr().err.splitlines()
    assert roofline_says == "roofline: error: --repeats: must be in (0, 1000], got '0'"
    assert lab_says == "lab4: --timeout: must be in (0, 86400], got '0'"
