"""The exercises' answer keys and checks: course-consistent keys, teaching hints, robust input."""
import inspect
import math
import re
from pathlib import Path

import nbformat
import pytest

from support import simulated

from rooflinelib.core import operators as ops
from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex03_attention as ex03
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED, Check, Report, Reveal

MODULES = (ex01, ex02, ex03, ex04, ex05)
RECORDED = ex04.prepare("recorded", progress=None)


def statuses(result):
    return [c.status for c in result.checks] if isinstance(result, Report) else [result.status]


def messages(result):
    return [c.message for c in result.checks] if isinstance(result, Report) else [result.message]


# --- every check survives any input ----------------------------------------------------------

def check_functions():
    for module in MODULES:
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("check_") and function.__module__ == module.__name__:
                yield module.__name__.rsplit(".", 1)[-1], name, function


CHECKS = list(check_functions())


def call(function, value):
    parameters = list(inspect.signature(function).parameters)
    if parameters[0] == "number":  # ex02.check_row takes the row number first
        return function(8, *[value] * (len(parameters) - 1))
    if parameters[0] == "setup":  # ex04 grades against the ceilings the notebook loaded
        return function(RECORDED, *[value] * (len(parameters) - 1))
    return function(*[value] * len(parameters))


@pytest.mark.parametrize("module, name, function", CHECKS, ids=[f"{m}.{n}" for m, n, _ in CHECKS])
def test_unanswered_stubs_report_not_answered_yet(module, name, function):
    result = call(function, NOT_ANSWERED)
    assert set(statuses(result)) == {"unanswered"}
    assert "NOT ANSWERED YET" in str(result) or "not answered yet" in str(result)


@pytest.mark.parametrize("junk", [None, float("nan"), "purple", [1, 2], {"a": 1}, object(), True,
                                  "", -1, 1e300, "9**9**9**9"])
@pytest.mark.parametrize("module, name, function", CHECKS, ids=[f"{m}.{n}" for m, n, _ in CHECKS])
def test_junk_never_crashes_a_check_and_never_passes(module, name, function, junk):
    result = call(function, junk)
    assert isinstance(result, (Check, Report))
    assert "pass" not in statuses(result)
    for message in messages(result):
        assert message and "\n" not in message and "Traceback" not in message


def test_row_numbers_outside_the_table_are_refused():
    with pytest.raises(ValueError, match="row"):
        ex02.check_row(10, 1, 1, 1, 1, 1)


# --- exercise 2 ------------------------------------------------------------------------------

def test_the_machine_has_the_courses_two_ridges():
    assert ex02.MACHINE.ridge("fp32") == pytest.approx(15)
    assert ex02.MACHINE.ridge("bf16-tensor") == pytest.approx(300)
    assert ex02.check_ridges("45000/3000", "300 FLOP/byte").passed
    assert "1,000" in ex02.check_ridges(45 / 3000, 300).checks[0].message


# Intensities worked by hand from each row's description (the course text gives 1-3, 5, 9, 8).
HAND = {1: 1 / 12, 2: 0.25, 3: 0.25, 4: 0.25, 5: 3.99, 6: 1.0, 7: 4096 / 6, 8: 124.1, 9: 4136}
SIDES = {1: ("memory", "memory"), 2: ("memory", "memory"), 3: ("memory", "memory"),
         4: ("memory", "memory"), 5: ("memory", "memory"), 6: ("memory", "memory"),
         7: ("compute", "compute"), 8: ("compute", "memory"), 9: ("compute", "compute")}
STEPS = {1: "fusion", 2: "already optimal", 3: "single pass", 4: "tiling", 5: "bigger tiles",
         6: "batching", 7: "tensor cores", 8: "bigger batch", 9: "instruction mix"}


@pytest.mark.parametrize("number", range(1, 10))
def test_each_row_accepts_the_hand_worked_answer(number):
    vs_fp32, vs_bf16 = SIDES[number]
    verdict = vs_fp32 if ex02._row(number).roof == "fp32" else vs_bf16
    result = ex02.check_row(number, HAND[number], vs_fp32, vs_bf16, verdict, STEPS[number])
    assert result.passed, result


def test_bandwidth_score_is_against_the_kernels_own_access_mix():
    # Review 3a K02-1: the menu said "a fraction of the copy bandwidth", which flatters a
    # read-only sum (the H200's copy mix is 5% below its read); notebook 03 scores it on the read.
    description = ex02.FIRST_STEPS.options["score-bandwidth"][0]
    assert "own access mix" in description and "copy bandwidth" not in description
    assert ex02.check_row(2, 0.25, "memory", "memory", "memory", "read ceiling").passed


def test_row_9_accepts_overlapping_the_exps_with_the_mmas():
    # Review 3a K02-2 gave "overlap" a MUFU hint; review 4a K02-1: it was refused with a wrong
    # reason (overlap changes the schedule, not the mix). FlashAttention-3's overlap is a right
    # first step, and the menu entry names both kinds of overlap.
    assert ex02.check_row(9, 4136, "compute", "compute", "compute", "overlap").passed
    assert ex02.check_row(9, 4136, "compute", "compute", "compute", "instruction mix").passed
    assert "one unit's work with another's" in ex02.FIRST_STEPS.options["overlap"][0]
    assert ex02.check_row(7, 4096 / 6, "compute", "compute", "compute", "overlap").checks[4].status == "fail"


def test_c5_says_rocprof_reports_kilobytes():
    # Review 4a K02-3: FETCH_SIZE and WRITE_SIZE are rocprof's derived metrics, in KB.
    given = dict(ex02.given_part_c().rows)["C5"]
    assert given.startswith("rocprof on an MI300X") and "kilobytes" in given


def _solution_02():
    return nbformat.read(str(Path(__file__).resolve().parents[2] / "solutions" / "02_classify_kernels.ipynb"),
                         as_version=4).cells


def test_solution_02_stored_tables_are_what_the_module_prints():
    # Review 4a K02-4: the stored menu still said "the copy bandwidth" after the key changed.
    shown = 0
    for cell in _solution_02():
        source = cell.source.strip()
        if cell.cell_type != "code" or not source.startswith("ex.") or "\n" in source:
            continue
        stored = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        menu = re.fullmatch(r"ex\.(\w+)\.table\('([^']*)'\)", source)
        table = re.fullmatch(r"ex\.(\w+)\(\)", source)
        assert menu or table, source
        shown_now = getattr(ex02, menu[1]).table(menu[2]) if menu else getattr(ex02, table[1])()
        assert stored == str(shown_now), source
        shown += 1
    assert shown >= 5


def test_solution_02_states_the_launch_answers_as_bounds():
    # Review 4a K02-2: at 49 KB (C1) and 2.56 MB (C4) the traffic cannot stream at full
    # bandwidth; the course has no measured DRAM latency, so the text says "bound".
    text = " ".join(" ".join(c.source.split()) for c in _solution_02() if c.cell_type == "markdown")
    assert "how long does that take at best, at full bandwidth" in text and "your ratio is an upper bound" in text
    assert "**Note:** the model adds the launch time and the traffic time, the traffic at full bandwidth, so your fraction is an upper bound" in text
    # K02-5, then review 9b K2-5: the band in notebook 03's words
    assert ('the side of the fp32 ridge: `"memory"`, `"compute"` or `"ridge"` (at the ridge: from ridge / 1.1 '
            'to 1.1 × ridge, about 10% either side)') in text


def test_c4_sum_hint_says_one_launch_waited_on():
    # Review 3a K02-3: "the time is their sum" holds for one launch waited on, not back to back.
    wrong = ex02.check_launch_length("6e-6*4e12/12", "0.64e-6*4e12/12", 1.0)
    assert not wrong.passed and "waits for it" in str(wrong) and "back-to-back" in str(wrong)


def test_row_8_is_the_trap():
    row = ex02._row(8)
    assert row.intensity == pytest.approx(124, abs=0.5)
    result = ex02.check_row(8, 124, "compute", "memory", "compute", "batch")
    verdict = result.checks[3]
    assert verdict.status == "fail" and "matrix cores" in verdict.message
    assert "memory" not in verdict.message


@pytest.mark.parametrize("number, wrong, says", [
    (1, 1 / 4, "one array"), (1, 1 / 8, "not the write"), (1, 1 / 6, "only a fused multiply-add"),
    (2, 1 / 8, "one scalar"), (3, 5 / 8, "single-pass"), (3, 5 / 12, "not the two writes"),
    (4, 4096 / 6, "perfect reuse"), (5, 4096 / 6, "N/b times"), (6, 0.5, "check both"),
    (7, 4096 / 12, "2 FLOPs"), (7, 1024, "writing C"), (8, 8192 / 3, "not square"),
    (8, 128, "only the weights"), (9, 64.6, "unfused"),
])
def test_the_usual_counting_slips_get_their_hint(number, wrong, says):
    check = ex02.check_row(number, wrong, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED,
                           NOT_ANSWERED).checks[0]
    assert check.status == "fail" and says in check.message, check


@pytest.mark.parametrize("number, step, says", [
    (2, "tiling", "no reuse"),
    (7, "fuse", "compute-bound"), (1, "tensor cores", "fewer"), (6, "fuse", "more than one"),
])
def test_wrong_first_steps_get_a_teaching_hint(number, step, says):
    check = ex02.check_row(number, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED,
                           step).checks[4]
    assert check.status == "fail" and says in check.message


@pytest.mark.parametrize("number", [6, 8])
def test_a_smaller_dtype_is_accepted_for_the_memory_bound_bf16_rows(number):
    # Memory-bound: halving the bytes halves the time wherever the ridge sits.  Row 8 with fp8
    # weights is at about twice its bf16 intensity, still left of a ridge that doubled too.
    row = ex02._row(number)
    assert row.verdict == "memory"
    assert ex02.check_row(number, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED,
                          "smaller dtype").checks[4].status == "pass"
    fp8 = ops.gemm(8192, "fp8", m=128, k=8192) if number == 8 else ops.decode_matvec(8192, 8192, "fp8")
    assert fp8.intensity == pytest.approx(2 * row.intensity, rel=0.01)
    assert fp8.intensity < 2 * row.ridge  # the fp8 matrix roof is twice the bf16 one


def test_no_row_hint_names_its_key():
    for row in ex02.ROWS:
        result = ex02.check_row(row.number, row.intensity * 3, "ridge", "ridge", "ridge", "overlap")
        text = " ".join(c.message for c in result.checks)
        for form in (f"{row.intensity:.3g}", f"{row.intensity:.2f}"):
            if len(form) >= 3:  # "1" would match any digit in the text
                assert form not in text
        for step in row.first_steps:
            assert repr(step) not in text


def test_part_c_keys_follow_the_course():
    _, memory_s = ex02._tiny()
    assert memory_s * 1e9 == pytest.approx(12.3, abs=0.1)  # "12 nanoseconds"
    assert ex02.LAUNCH_OVERHEAD_S / memory_s == pytest.approx(488, abs=1)  # "a factor of 488"
    intensity, verdict, _ = ex02._slow()
    assert verdict.fraction_of_roof == pytest.approx(0.13, abs=0.001)
    assert verdict.status == "far-below"
    n_flops, l2_bytes, hbm_bytes = ex02._cached()
    assert (n_flops / hbm_bytes) / (n_flops / l2_bytes) == 5  # "HBM intensity is 5x"
    assert ex02.check_tiny_launch("48 KiB", "12.288 ns", 488.3, "launch", "fuse").passed
    assert ex02.check_far_below(8, "24 TFLOP/s", 3.125, "13%", "neither roof", "occupancy").passed
    assert ex02.check_cache_resident("80 KiB", "16 KiB", 0.25, 1.25, "L2").passed
    c2 = ex02.check_far_below(8, 45, 3.125, 3.125 / 45, "memory", "fuse")
    assert [c.status for c in c2.checks] == ["pass", "fail", "pass", "fail", "fail", "fail"]


# --- exercise 3 ------------------------------------------------------------------------------

def test_attention_keys_follow_the_course():
    assert ex03.check_part_a(lambda s, d: 4 * s * s * d + 5 * s * s,
                             lambda s, d: 8 * s * d + 8 * s * s, lambda s, d: 8 * s * d).passed
    assert ex03.check_limits("saturates", "grows linearly", 64.6, 0.505).passed
    assert ex03.check_crossover(246.7, 490, "no", 206.1, 409).passed  # the course: "s ~= 490"
    assert ex03.check_stretch(4136 / 2, 1.0, "bandwidth-bound", 8.0).passed


@pytest.mark.parametrize("function, says", [
    (lambda s, d: 8 * s * d + 4 * s * s, "written once and read back once"),
    (lambda s, d: 4 * s * d + 4 * s * s, "counted elements"),
    (lambda s, d: 8 * s * s, "O is written too"),
])
def test_unfused_byte_slips(function, says):
    assert says in ex03.check_unfused_bytes(function).message


def test_a_function_that_raises_is_reported_not_raised():
    def broken(s, d):
        return s / (d - d)

    check = ex03.check_fused_bytes(broken)
    assert check.status == "invalid" and "ZeroDivisionError" in check.message


def test_the_students_table_survives_stubs_and_errors():
    def stub(s, d):
        return NOT_ANSWERED

    table = ex03.intensity_table(stub, lambda s, d: 1 / 0, stub)
    assert str(table).count("—") == 10


# --- exercise 1 ------------------------------------------------------------------------------

def test_two_kernel_keys_follow_the_worked_example():
    assert ex01.check_ridges(40, 60).passed
    assert ex01.check_table(60, 120, 40, 120, "memory", "compute", "bandwidth", "compute").passed
    assert ex01.check_slowdowns(1.5, 1).passed
    wrong = ex01.check_predictions(60, 240, 40, 160)
    assert [c.status for c in wrong.checks] == ["pass", "fail", "pass", "fail"]
    assert "compute roof caps it" in wrong.checks[1].message


def figure(bandwidths=(3000, 2000), rates=(60e3, 120e3, 40e3, 120e3), own_roofs=True):
    from rooflinelib.core.model import Ceiling, Machine
    from rooflinelib.core.placement import KernelPoint
    from rooflinelib.views.plotting import roofline_figure

    machine = Machine("m", ceilings=(Ceiling("dram", "memory", bandwidths[0]),
                                     Ceiling("dram-b", "memory", bandwidths[1]),
                                     Ceiling("fp32", "compute", 120_000)))
    # the last two points are the 2 TB/s ones, judged on their own roof when own_roofs
    points = [KernelPoint(f"k{i}", i_, 1, r, memory_ceiling="dram-b" if i >= 2 and own_roofs else None)
              for i, (i_, r) in enumerate(zip((20, 80, 20, 80), rates))]
    return roofline_figure(machine, points)


def test_the_figure_check_reads_the_traces():
    pytest.importorskip("plotly")
    assert ex01.check_figure(figure()).passed
    wrong = ex01.check_figure(figure(bandwidths=(3000, 1500)))
    assert wrong.status == "fail" and "2 TB/s" in wrong.message
    misplaced = ex01.check_figure(figure(rates=(60e3, 120e3, 60e3, 120e3)))
    assert misplaced.status == "fail" and "20 FLOP/byte at 2 TB/s" in misplaced.message
    import plotly.graph_objects as go
    assert ex01.check_figure(go.Figure()).status == "invalid"


# --- exercise 5 ------------------------------------------------------------------------------

def test_drill_keys_follow_the_course():
    assert ex05.check_drill1("max", 2).passed
    assert ex05.check_drill2(300, "memory", 120, "13%").passed
    assert ex05.check_drill3(20, 20, 60, 0.2, "unmodelled", "profile").passed
    assert ex05.check_drill4(0.125, 0.625, "memory", 5).passed
    assert ex05.check_drill6("right", 20 / 3).passed
    assert ex05.check_drill7(64.6, "linear").passed


def test_drill_hints():
    assert "compute peak" in ex05.check_drill2(300, "memory", 900, 1).checks[2].message
    assert "either roof" in ex05.check_drill3(20, 20, 60, 0.2, "memory", "profile").checks[4].message
    assert "divided by B" in ex05.check_drill6("right", 60).checks[1].message


@pytest.mark.parametrize("drill", sorted(ex05.MODEL_ANSWERS))
def test_model_answers_wait_for_an_attempt(drill):
    text, _ = ex05.MODEL_ANSWERS[drill]
    hidden = ex05.model_answer(drill, NOT_ANSWERED)
    assert isinstance(hidden, Reveal) and not hidden.revealed and text not in str(hidden)
    assert not ex05.model_answer(drill, "no idea").revealed
    shown = ex05.model_answer(drill, "an honest attempt of my own with enough words in it")
    assert shown.revealed and text in str(shown)


def test_drill_9_says_the_run_time_stays_not_that_the_wait_doubles():
    # review 2, K1: faster arithmetic leaves the deliveries, and so the run time, as they were
    text, _ = ex05.MODEL_ANSWERS[9]
    assert "twice as long" not in text and "as long as before" in text


def test_drill_answers_quote_computed_numbers():
    assert "20%" in ex05.MODEL_ANSWERS[3][0] and "0.625" in ex05.MODEL_ANSWERS[4][0]
    with pytest.raises(ValueError):
        ex05.model_answer(2, "text")


def test_exercise_modules_do_not_load_heavy_packages():
    import subprocess
    import sys

    code = ("import sys; from rooflinelib.exercises import ex01_two_kernels, ex02_classify, "
            "ex03_attention, ex04_place_kernel, ex05_drills; "
            "ex04_place_kernel.prepare('recorded', progress=None); "
            "print(sorted(m for m in ('numpy', 'numba', 'plotly', 'cupy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert not math.isnan(ex02.MACHINE.ridge("fp32"))


# --- exercise 4 ------------------------------------------------------------------------------

def hand_placement(setup, side_of_fma):
    """Exercise 4's placement worked by hand from the setup's own numbers."""
    r, f = setup.reduction, setup.fma
    p, read, copy = setup.peak_gflops, setup.read_gbps, setup.copy_gbps
    r_i, f_i = r.n / (4 * r.n + 4), 16.0
    f_gflops = 128 * f.n / f.seconds / 1e9
    # each kernel against its own access mix (B when none was measured): the reduction only
    # reads, the FMA kernel reads x and writes y (the copy)
    return (r_i, r.n / r.seconds / 1e9, min(p, r_i * read), "memory", 4 * r.n / r.seconds / 1e9 / read,
            f_i, f_gflops, min(p, f_i * copy), side_of_fma, f_gflops / min(p, f_i * copy))


def test_recorded_h200_lands_where_the_course_says():
    keys = ex04._keys(RECORDED)
    assert keys["reduction"]["intensity"] == pytest.approx(0.25, rel=1e-6)  # "I ~= 0.25"
    assert keys["fma"]["intensity"] == 16  # "the FMA kernel at I = 16"
    # Lab 1's dram is its best access mix, the write (4,679.5 GB/s): its ridge is 14.1, and the FMA
    # kernel would sit 13% right of it; but it reads x and writes y, so its ridge is the copy's,
    # 66,074 / 4,277 = 15.4, and at 16 it is inside the ridge band (notebook 03's rule)
    assert RECORDED.ridge == pytest.approx(14.1, abs=0.1)
    assert RECORDED.copy_ridge == pytest.approx(15.45, abs=0.01)
    assert keys["fma"]["side"] == "ridge" and keys["fma"]["side_b"] == "compute"
    assert RECORDED.machine.ceiling("dram").label == "DRAM (write)"
    assert 0.9 < keys["reduction"]["gbps"] / RECORDED.peak_gbps < 1.05
    assert RECORDED.origin == "recorded" and "580.159.04" in RECORDED.message
    assert "1980 MHz" in RECORDED.message and "2026-12-02" in RECORDED.message


def test_placement_is_graded_against_the_loaded_ceilings():
    assert ex04.check_placement(RECORDED, *hand_placement(RECORDED, "ridge")).passed
    # The same kernels timed the same way, against a CPU-like roofline: the verdict changes.
    from rooflinelib.core.model import Ceiling, Machine
    cpu_like = Machine("cpu-like", ceilings=(Ceiling("dram", "memory", 40.0),
                                             Ceiling("fp32", "compute", 120.0)))
    other = ex04.Setup(cpu_like, RECORDED.reduction, RECORDED.fma, "live", "test")
    stale = ex04.check_placement(other, *hand_placement(RECORDED, "ridge"))
    # at the H200's copy ridge (15.4) the FMA kernel is at the ridge; at this one's (3), compute
    assert [c.status for c in stale.checks] == ["pass", "pass", "fail", "pass", "fail",
                                                "pass", "pass", "fail", "fail", "fail"]
    assert ex04.check_placement(other, *hand_placement(other, "compute")).passed


def test_placement_hints():
    answers = list(hand_placement(RECORDED, "ridge"))
    keys = ex04._keys(RECORDED)
    answers[1] = keys["reduction"]["gbps"]  # GB/s instead of GFLOP/s
    answers[6] = keys["fma"]["achieved"] / 2  # FMA counted as one FLOP
    checks = ex04.check_placement(RECORDED, *answers).checks
    assert "GB/s" in checks[1].message and "2 FLOPs" in checks[6].message


def test_accounting_checks():
    right = (lambda n: n, lambda n: 4 * n + 4, lambda n: 128 * n, lambda n: 8 * n)
    assert ex04.check_accounting(*right).passed
    slips = ex04.check_accounting(lambda n: n, lambda n: 8 * n, lambda n: 64 * n, lambda n: 4 * n)
    messages = [c.message for c in slips.checks]
    assert "one number" in messages[1] and "2 FLOPs" in messages[2] and "both" in messages[3]


def test_kernel_runs_must_be_verified():
    with pytest.raises(ex04.KernelError):
        ex04.KernelRun("reduction", 10, 1e-3, 0.0, 5, False, "k", "here")
    with pytest.raises(TypeError, match="Setup"):
        ex04.check_placement("not a setup", *[1] * 10)


def test_the_cpu_reduction_is_exact_and_a_wrong_sum_is_an_error():
    np = pytest.importorskip("numpy")
    pytest.importorskip("numba")
    from rooflinelib.measure.expected import fill_sum
    from rooflinelib.measure.cpu import CpuBackend
    from rooflinelib.measure.protocol import SweepBuffers
    b = CpuBackend()
    buffers = b.sweep_buffers(4 * 100_000)
    run = b.reduction_run(buffers)
    run.launch()
    assert run.check() is None
    assert float(np.sum(buffers.x, dtype=np.float64)) == fill_sum(4 * buffers.n_vec)
    wrong = SweepBuffers(buffers.n_vec, buffers.x.copy(), buffers.y)
    wrong.x[7] += 0.25
    bad = b.reduction_run(wrong)
    bad.launch()
    assert "expected" in bad.check()
    with pytest.raises(ex04.KernelError, match="no time reported"):
        ex04.run_kernels(_WrongSums(b))


class _WrongSums:
    """A CPU backend whose reduction adds a quarter too much: the exercise must refuse it."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def sweep_buffers(self, size_bytes):
        return self._inner.sweep_buffers(4 * 4096 * 8)

    def reduction_run(self, buffers):
        run = self._inner.reduction_run(buffers)
        run.check = lambda: "sum off by 0.25 from the exact sum"
        return run


def test_the_gpu_reduction_compiles_to_vector_loads_and_one_atomic_per_block():
    pytest.importorskip("numba.cuda")
    from rooflinelib.measure import kernels_numba as kn
    try:
        ptx = kn.reduction_kernel().ptx()
    except Exception as exc:  # no NVVM here (numba-cuda without its toolkit wheels)
        pytest.skip(f"cannot compile PTX here: {exc}")
    assert "ld.global.v4.f32" in ptx  # 16-byte loads
    assert ptx.count("atom.global.add.f64") == 1
    assert "fma.rn" not in ptx


def test_the_gpu_reduction_sums_exactly_in_the_simulator():
    pytest.importorskip("numba.cuda")
    code = ("import numpy as np\n"
            "from numba import cuda\n"
            "from rooflinelib.measure import kernels_numba as kn\n"
            "from rooflinelib.measure.expected import fill_sum, fill_values\n"
            "n = 4 * 256 * 3 + 8\n"
            "x = fill_values(np.arange(n)).astype(np.float32)\n"
            "out = np.zeros(1)\n"
            "kn.reduction_kernel().compile()[2, 256](x, out)\n"
            "print(out[0] == fill_sum(n))\n")
    out = simulated.run(code=code, timeout=120)
    assert out.stdout.strip() == "True", out.stderr[-2000:]


def test_kernel_sources_are_shown_without_importing_numba_cuda():
    text = ex04.kernel_sources()
    for name in ("def cpu_sum", "def gpu_sum", "def _sweep", "def sweep_pipelined_kernel"):
        assert name in text
    recorded = ex04.kernel_sources(RECORDED)
    assert "def gpu_sum" in recorded and "def cpu_sum" not in recorded


def test_model_verdict_uses_the_loaded_numbers():
    shown = ex04.model_verdict(RECORDED, "the ridge moves between machines and the kernel does not")
    assert shown.revealed and "P / C = 15.4 FLOP/byte" in str(shown) and "at the ridge" in str(shown)
    assert not ex04.model_verdict(RECORDED, NOT_ANSWERED).revealed
    # no rule-of-thumb ridge for a CPU: on the recorded GPU it says to measure one
    assert "few FLOP/byte" not in str(shown) and "ROOFLINE_MODE=cpu" in str(shown)


def test_model_verdict_on_a_cpu_quotes_that_cpus_measured_ridge():
    from dataclasses import replace
    cpu_machine = replace(RECORDED.machine, provenance={"kind": "cpu", "backend": "cpu"})
    shown = ex04.model_verdict(replace(RECORDED, machine=cpu_machine),
                               "the ridge moves between machines and the kernel does not")
    # review 19k2 K4-3: the ridge the FMA kernel is judged against on that CPU, P / C (not P / B)
    assert f"the FMA kernel's ridge is {RECORDED.copy_ridge:.3g} FLOP/byte" in str(shown)
    assert "ROOFLINE_MODE=cpu" not in str(shown)


def test_the_figure_accepts_unanswered_rates():
    pytest.importorskip("plotly")
    fig = ex04.placement_figure(RECORDED, NOT_ANSWERED, "junk")
    assert len([t for t in fig.data if str(t.meta).startswith("kernel:")]) == 2


# --- the keys corrected in issue 24 ------------------------------------------------------------

@pytest.mark.parametrize("step", ["fuse into its producer", "fuse", "already optimal"])
def test_the_sum_reduction_accepts_fusing_into_its_producer(step):
    # row 1 is answered with fusion for the same reason: its output is another kernel's input
    check = ex02.check_row(2, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, step).checks[4]
    assert check.status == "pass", check


def test_the_sum_reductions_factor_two_hint_speaks_of_adds_and_reads():
    check = ex02.check_row(2, 0.5, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED).checks[0]
    assert check.status == "fail" and "one add per element" in check.message
    assert "multiply-add" not in check.message and "copy" not in check.message


def test_the_three_pass_softmax_says_it_writes_exp_back():
    row = ex02._row(3)
    assert "exp(x - max) written back" in row.description
    assert row.intensity == pytest.approx(5 / 20)
    check = ex02.check_row(3, 5 / 16, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED).checks[0]
    # the 4-access slip hears the five accesses it left one of out (review 58 k2)
    assert check.status == "fail" and "you counted 4 accesses of the row; this one makes 5" in check.message
    assert "pass 3 reads that buffer and writes the result" in check.message


def test_fetch_size_counts_the_traffic_past_the_l2_not_only_hbm():
    right = ex02.check_counters("dram__bytes_read.sum", "dram__bytes_write.sum", "infinity fabric")
    assert right.passed, right
    hbm = ex02.check_counters("dram__bytes_read.sum", "dram__bytes_write.sum", "hbm").checks[2]
    assert hbm.status == "fail" and "Infinity Cache" in hbm.message
    l1 = ex02.check_counters("dram__bytes_read.sum", "dram__bytes_write.sum", "l1").checks[2]
    assert "leave the chip" not in l1.message


def test_drill_4_model_answer_has_no_unformatted_field():
    text, _ = ex05.MODEL_ANSWERS[4]
    assert "{" not in text and "}" not in text
    assert "a roof 5 times higher" in text  # 40 bytes per element before, 8 after


def test_the_side_of_a_ridge_measured_to_a_spread_accepts_both_sides_at_the_band_edge():
    from rooflinelib.exercises.grading import check_side
    # I = 16 against a ridge of 14.5: just past the 10% band, so a ridge measured 1% higher says "ridge"
    for side in ("compute", "ridge"):
        check = check_side(side, 16, 14.5, "FMA kernel side of the ridge", spread=0.01)
        assert check.status == "pass" and "measured spread" in check.message, check
    assert check_side("memory", 16, 14.5, "side", spread=0.01).status == "fail"
    # far from the edge the spread changes nothing
    assert check_side("compute", 16, 15.45, "side", spread=0.01).status == "fail"
    assert check_side("ridge", 16, 15.45, "side", spread=0.01).message == "correct"


def test_exercise_4_grades_the_side_with_its_ceilings_spread():
    assert RECORDED.ridge_spread >= ex04.RIDGE_SPREAD_FLOOR
    k = ex04._keys(RECORDED)
    fma = k["fma"]
    edge_ridge = fma["intensity"] / 1.105  # just past the band's edge
    import dataclasses
    from rooflinelib.core.model import Ceiling, Machine
    fp32 = RECORDED.machine.ceiling("fp32")
    dram = Ceiling("dram", "memory", fp32.value / edge_ridge, "measured, spread 0.5%", "DRAM")
    machine = Machine("edge", (dram, Ceiling("fp32", "compute", fp32.value, "measured, spread 0.5%", "fp32")),
                      kind="measured")
    setup = dataclasses.replace(RECORDED, machine=machine, dram_copy_gbps=dram.value)
    for side in ("compute", "ridge"):
        got = ex04.check_placement(setup, *([NOT_ANSWERED] * 8), side, NOT_ANSWERED)
        assert got.checks[8].status == "pass", got.checks[8]



# --- the keys corrected after review 1 ---------------------------------------------------------

@pytest.mark.parametrize("step", ["fuse", "score bandwidth", "already optimal"])
def test_the_vector_add_accepts_a_bandwidth_score_as_the_reduction_does(step):
    # on its own the add moves each byte once (score it); in a pipeline, fuse it: both are right
    check = ex02.check_row(1, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, step).checks[4]
    assert check.status == "pass", check
    assert ex02._row(1).first_steps == ex02._row(2).first_steps


def test_the_three_pass_softmax_dtype_note_counts_accesses_not_passes():
    # review 6b K2-1: a smaller type passes (memory-bound, as rows 6 and 8), with a note
    check = ex02.check_row(3, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, "smaller dtype").checks[4]
    assert check.status == "pass" and "five HBM accesses" in check.message and "three reads, two writes" in check.message
    assert "five passes" not in check.message


def test_launch_latency_names_the_launch_and_bare_latency_names_no_option():
    c1 = lambda bound_by: ex02.check_tiny_launch(NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, bound_by, NOT_ANSWERED).checks[3]
    assert c1("launch latency").status == "pass"
    bare = c1("latency")
    # not silently 'unmodelled'; review 7b K2-6: a hint that asks which latency, not "not one of"
    assert bare.status == "fail" and "latency of what: the launch, or a stall" in bare.message
    assert ex02.LIMITERS.read("stalls") == "unmodelled"


def test_the_batch_1_decode_runs_on_the_cuda_cores_not_the_matrix_cores():
    row = ex02._row(6)
    assert row.roof == "fp32" and "CUDA cores" in row.runs_on_name and "matrix" not in row.runs_on_name
    assert ("CUDA cores (fp32 vector units)" in [r[3] for r in ex02.problem_table().rows if r[0] == 6])
    assert row.verdict == "memory"  # memory-bound against either ridge
    wrong = ex02.check_row(6, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, "compute", NOT_ANSWERED).checks[3]
    assert "CUDA cores" in wrong.message


def test_the_crossover_accepts_the_s_over_2_shortcut_rounded_up():
    mi = ops.attention_fusion_crossover(ex03.MI300X.ridge("bf16-tensor"), ex03.HEAD_DIM, ex03.DTYPE)
    shortcut = math.ceil(2 * ex03.MI300X.ridge("bf16-tensor"))  # I ~ s/2: 494 against the exact 489
    assert shortcut / mi["fused_s"] - 1 > 0.01
    h = ops.attention_fusion_crossover(ex03.H200.ridge("bf16-tensor"), ex03.HEAD_DIM, ex03.DTYPE)
    got = ex03.check_crossover(NOT_ANSWERED, shortcut, NOT_ANSWERED, NOT_ANSWERED,
                               math.ceil(2 * ex03.H200.ridge("bf16-tensor")))
    assert got.checks[1].status == "pass" and got.checks[4].status == "pass", got
    assert ex03.check_crossover(NOT_ANSWERED, 1.05 * mi["fused_s"], NOT_ANSWERED, NOT_ANSWERED,
                                h["fused_s"]).checks[1].status == "fail"


def test_exercise_4_scores_the_reduction_against_the_read_mix():
    # notebook 03: judge a kernel against its own access mix; the reduction only reads
    assert RECORDED.dram_read_gbps == pytest.approx(4506.7)
    assert RECORDED.read_gbps < RECORDED.peak_gbps and RECORDED.machine.ceiling("dram").label == "DRAM (write)"
    keys = ex04._keys(RECORDED)
    answers = list(hand_placement(RECORDED, "ridge"))
    assert answers[4] == pytest.approx(keys["reduction"]["gbps"] / 4506.7)
    assert ex04.check_placement(RECORDED, *answers).passed
    answers[4] = keys["reduction"]["gbps"] / RECORDED.peak_gbps  # against the write mix: the old key
    check = ex04.check_placement(RECORDED, *answers).checks[4]
    assert check.status == "fail" and "only reads" in check.message and "read ceiling" in check.question
    shown = str(ex04.model_verdict(RECORDED, "the ridge moves between machines and the kernel does not"))
    assert f"{keys['reduction']['gbps'] / 4506.7:.0%} of 4,507 GB/s" in shown and "own access mix" in shown
    assert "DRAM read ceiling" in str(RECORDED.describe())


def test_exercise_4_model_verdict_says_how_far_right_of_the_h200_ridge_not_close_to_it():
    from rooflinelib.core.machines import H200
    shown = str(ex04.model_verdict(RECORDED, "the ridge moves between machines and the kernel does not"))
    past = 16 / H200.ridge("fp32", "dram") - 1
    assert past > 0.10 and f"{past:.0%} right of it, outside the ±10% band" in shown
    assert "a bandwidth no access mix reached" in shown
    assert "close to the ridge" not in shown and "few percent lower or higher can flip" not in shown
    # the stale mix sentence: Lab 1's dram is already the best mix, reads cannot 'beat' it
    assert "a stream of reads alone can beat a mix that also writes" not in shown
    import dataclasses
    fast = dataclasses.replace(RECORDED, dram_read_gbps=0.9 * ex04._keys(RECORDED)["reduction"]["gbps"])
    assert "faster than Lab 1's own read kernels" in str(ex04.model_verdict(fast, "the ridge moves and the kernel does not"))


def test_drill_4_model_answer_says_still_memory_bound_32x_left_of_the_ridge():
    text, _ = ex05.MODEL_ANSWERS[4]
    assert "still memory-bound, 32x left of the ridge" in text and "160 times left" in text
    assert "exactly as memory-bound" not in text


def test_a_live_setup_takes_the_read_mix_from_its_own_lab1_result(monkeypatch):
    import json
    from pathlib import Path
    from rooflinelib import modes
    from rooflinelib.store import results
    shipped = Path(ex04.__file__).resolve().parents[1] / "data" / "h200_ceilings_numba.json"
    result = json.loads(shipped.read_text())
    loaded = modes.Loaded("file", "stored", results.to_machine(result), result, str(shipped))
    monkeypatch.setattr(modes, "student_ceilings", lambda *a, **k: loaded)
    monkeypatch.setattr(ex04, "run_kernels", lambda backend, progress=None: (RECORDED.reduction, RECORDED.fma))
    setup = ex04.prepare("cpu", progress=None)
    assert setup.origin == "file" and setup.dram_read_gbps == pytest.approx(results.dram_mixes(result)["read"])
    assert setup.read_gbps < setup.peak_gbps  # the read mix, not the best one
    # ... and the copy mix, the FMA kernel's own (review 3, K04-1)
    assert setup.dram_copy_gbps == pytest.approx(results.dram_mixes(result)["copy"])
    assert setup.copy_ridge == pytest.approx(setup.peak_gflops / results.dram_mixes(result)["copy"])


# --- the keys corrected after review 3 ---------------------------------------------------------

def test_exercise_4_judges_the_fma_kernel_against_the_copy_mix_it_runs():
    # review 3, K04-1: the FMA kernel reads x and writes y, so by notebook 03's rule its roof is
    # the copy's (ridge 15.4 on the recorded H200), and at I = 16 the key is 'at the ridge'
    import re
    log = (Path(__file__).resolve().parents[2] / "docs/measurements/h200_mixes_b/ex03_record.log").read_text()
    copies = [float(v.replace(",", "")) for v in re.findall(r"dram-copy copy16 .*: ([\d,.]+) GB/s", log)]
    assert RECORDED.dram_copy_gbps == max(copies) == 4276.9  # the same session's best copy
    answers = list(hand_placement(RECORDED, "ridge"))
    assert ex04.check_placement(RECORDED, *answers).passed
    answers[8] = "compute"  # the side against B, the write mix: the old key
    check = ex04.check_placement(RECORDED, *answers).checks[8]
    assert check.status == "fail" and "copy" in check.message and "reads x and writes y" in check.message
    shown = str(ex04.model_verdict(RECORDED, "the ridge moves between machines and the kernel does not"))
    assert "at the ridge, both roofs are close" in shown and "the ridge would be 14.1" in shown
    # review 35k2: the recording's copy ridge is stated once, in the answer's lead
    assert "copy ridge P / C = 15.4" in shown and "DRAM copy ceiling" in str(RECORDED.describe())


def test_exercise_4_reduction_roof_is_its_read_roof_and_its_adds_are_float64():
    # K04-1/K04-3: the reduction's roof uses its own mix (I x R), and the key says its adds run
    # in float64 (the fp64 roof), which at I = 0.25 changes nothing
    keys = ex04._keys(RECORDED)
    assert keys["reduction"]["roof"] == pytest.approx(0.25 * 4506.7, rel=1e-6)
    answers = list(hand_placement(RECORDED, "ridge"))
    answers[2] = keys["reduction"]["intensity"] * RECORDED.peak_gbps  # I x B: the write mix
    check = ex04.check_placement(RECORDED, *answers).checks[2]
    assert check.status == "fail" and "only reads" in check.message
    shown = str(ex04.model_verdict(RECORDED, "the ridge moves between machines and the kernel does not"))
    assert "float64" in shown and "fp64" in shown


# --- the keys corrected after review 5 ---------------------------------------------------------

def _solution(name):
    return nbformat.read(str(Path(__file__).resolve().parents[2] / "solutions" / name), as_version=4).cells


def _markdown(cells):
    return " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")


@pytest.mark.parametrize("number", [9])  # review 27k1 K2-1: row 7 now passes (bf16 is its matrix route)
def test_a_smaller_dtype_on_the_compute_bound_rows_names_the_faster_units(number):
    # review 5a T7: notebook 02 teaches "a compute-bound GEMM gains 2x from the doubled roof"; the
    # key refused a smaller type on rows 7 and 9 with "deleting bytes no longer buys any time".
    # Review 14 (one rule for every row): a smaller type is not the first move on a compute-bound
    # row, and the refusal says it pays there only through the faster units, not through bytes.
    row = ex02._row(number)
    assert row.verdict == "compute"
    check = ex02.check_row(number, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED,
                           "smaller dtype").checks[4]
    assert check.status == "fail", check
    assert "faster units" in check.message and ex02.SMALLER_TYPE_RULE in check.message
    # review 10b K2-2: row 9's note quotes no H200 fp8 roof; review 53k1: it leads with the missing roof
    assert ("20 times the fp32 vector roof" if number == 7 else "this GPU lists no fp8 roof, so a smaller type has no faster units") in check.message
    for row in ex02.ROWS:  # no row's hint says a smaller type only deletes bytes on a compute-bound kernel
        message = ex02.check_row(row.number, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED,
                                 "smaller dtype").checks[4].message
        assert "deleting bytes no longer buys any time" not in message


def test_c3_says_why_the_re_reads_reach_l2_not_l1():
    # review 5a T8: one block re-reading its 16 KB row would mostly hit its SM's L1
    given = dict(ex02.given_part_c().rows)["C3"]
    assert "each pass is run by a different block" in given and "L1" in given
    text = _markdown(_solution("02_classify_kernels.ipynb"))
    assert "Each pass is run by a different block, so the row comes from HBM once and the later passes re-read it from L2" in text


def test_c4_uses_the_one_launch_figure_notebooks_00_and_06_quote():
    # review 5a C3: one figure for the device's cost of a launch, the recorded 'launch' run's
    from rooflinelib.lessons.pitfalls import recorded_launch_costs
    assert ex02.GRAPH_LAUNCH_S == round(recorded_launch_costs()["device_s"], 8) == 0.64e-6
    assert "0.64 µs" in dict(ex02.given_part_c().rows)["C4"]
    assert ex02.check_launch_length("6e-6*4e12/12", "0.64e-6*4e12/12", 0.5).passed
    assert not ex02.check_launch_length("6e-6*4e12/12", "0.59e-6*4e12/12", 0.5).passed
    text = _markdown(_solution("02_classify_kernels.ipynb"))
    assert "0.59" not in text and "the whole transfer is 2.56 MB" in text


def test_c4_asks_its_question_then_one_note():
    # review 5a C14: three nested asides buried the question
    cell = next(c.source for c in _solution("02_classify_kernels.ipynb") if c.source.startswith("### C4"))
    question, note = cell.split("**Note:**")
    assert " ".join(question.split()).endswith("when it pays one launch and waits for it?")
    assert "back to back" not in cell and note.count("(") == 1


def test_c2_heading_and_check_do_not_give_away_its_fraction():
    # review 5a C12: "C2: the kernel at 13% of its roof" named one of the answers
    assert ex02.check_far_below(8, 24, 3.125, 0.13, "neither", "profile").title == "C2: the slow kernel"
    headings = [c.source.splitlines()[0] for c in _solution("02_classify_kernels.ipynb") if c.cell_type == "markdown"]
    assert "### C2: the slow kernel" in headings and not any("13%" in h for h in headings)


def test_c5_shows_the_level_menu_and_does_not_name_the_answer():
    # review 5a C13: the accepted level names were never shown; the prompt said where the bytes are counted
    cells = _solution("02_classify_kernels.ipynb")
    sources = [c.source for c in cells]
    answer = next(i for i, s in enumerate(sources) if "c5_level = " in s)
    assert "ex.LEVELS.table('Levels: the menu')" in sources[answer - 1]
    prompt = next(s for s in sources if s.startswith("### C5"))
    # review 58 k2: "its L2-side traffic counters" pointed at the refused 'l2'; the prompt names them
    # as the table's two derived metrics only
    assert "fetches from, and writes to" not in prompt and "L2-side" not in prompt
    assert "two derived metrics in the table, in kilobytes of 1,024 bytes" in prompt
    meaning = ex02.LEVELS.options["past-l2"][0]
    assert "Infinity Cache" not in meaning and "fabric" not in meaning


def test_exercise_3_opens_with_a_claim_the_exercise_bears_out():
    # review 5a T9: fused attention's verdict depends on s (Part C finds where it flips)
    first = " ".join(_solution("03_attention_intensity.ipynb")[0].source.split())
    assert "depends least on its size" not in first
    # review 7b K3-2: the claim holds at d = 128 (the limit (4d + 5) / 8 reaches 206 at d = 411)
    # review 44k1: the claim is the exercise's answer, so it is revealed after the student's own
    assert "no sequence length" not in first
    model = " ".join(ex03.model_takeaway("unfused levels off and fused grows with the length s").model_answer.split())
    assert "at d = 128 no sequence length brings it to the matrix cores' ridge" in model
    assert "memory-bound at every length into one whose sequence length decides" in model
    assert "at which fused attention reaches the ridge" in first


def test_exercise_3_part_c_labels_say_reaches_the_ridge():
    # review 5a T10: at the ridge is "at the ridge" (the 10% band), compute-bound only about 1.1x later
    labels = [c.question for c in ex03.check_crossover(NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED,
                                                       NOT_ANSWERED, NOT_ANSWERED).checks]
    assert "smallest s that reaches the MI300X ridge (fused)" in labels
    assert "smallest s that reaches the H200 ridge (fused)" in labels
    assert not any("compute-bound s" in label for label in labels)


def test_exercise_4_shows_how_many_multiply_adds_the_fma_kernel_does():
    # review 5a C15: the prose said "ex.FMA_STEPS multiply-adds" and 64 appeared only in the answer
    first = " ".join(_solution("04_place_your_kernel.ipynb")[0].source.split())
    assert f"every float32 element of x gets {ex04.FMA_STEPS} multiply-adds, `ex.FMA_STEPS`" in first


def test_exercise_4_model_answer_leads_with_the_points_and_lists_the_asides():
    # review 5a C16: one paragraph of about 330 words mixed the two key points with four asides
    shown = ex04.model_verdict(RECORDED, "the ridge moves between machines and the kernel does not")
    answer = shown.model_answer
    # review 51: the direct answer to Part C's question (the datasheet against the loaded ceilings)
    # opens it, then the two points; about 45 words more, moved from the asides
    assert answer.startswith("No, a different verdict: against the H200's datasheet") and len(re.findall(r"\w+", answer)) < 175
    assert answer.index("Two points decide both verdicts") < answer.index("The reduction")
    assert len(re.findall(r"[.:;] [A-Z]", answer)) <= 4  # at most five sentences
    assert "fp64" not in answer and "CPU" not in answer and answer.count("datasheet") == 1
    assert len(shown.also) >= 4 and any("fp64" in a for a in shown.also)
    assert not any("datasheet" in a for a in shown.also)
    text = str(shown)
    assert text.index("Also:") < text.index("Does your attempt make these points?")
    assert shown._repr_html_().count("<li>") == len(shown.also) + len(shown.key_points)


def test_drill_9_model_answer_allows_a_wait_other_than_memory():
    # review 5b K5-1: a program bound by host work, launches or files also gains nothing
    text, points = ex05.MODEL_ANSWERS[9]
    assert "usually goes into waiting for data" in text and "tiny tasks" in text
    assert "whatever it waits on also gets faster" in text
    assert points[0].startswith("something other than arithmetic sets the time")


# --- review 6c: exercise 5's key ----------------------------------------------------------------

def test_ex05_drill3_accepts_a_cache_limit_with_what_would_tell_and_rules_out_the_launch():
    # K-1: only HBM bytes are given, so an L2 or L1 limit cannot be ruled out; the launch can
    cache = ex05.check_drill3(20, 20, 60, 0.2, "cache", "profile")
    assert cache.passed and "notebook 05" in cache.checks[4].message
    assert ex05.check_drill3(20, 20, 60, 0.2, "l2 bandwidth", "profile").passed
    launch = ex05.check_drill3(20, 20, 60, 0.2, "launch", "profile")
    seconds = ex05.D3_FLOPS / (ex05.D3_ACHIEVED_GFLOPS * 1e9)
    assert not launch.passed and f"take {seconds * 1e3:.0f} ms" in launch.checks[4].message
    text, points = ex05.MODEL_ANSWERS[3]
    assert "count the bytes at each level (notebook 05)" in text
    assert any("bytes per level" in p for p in points)


def test_ex05_drill6_takes_the_approximate_growths_as_approximate():
    # K-2: "about 20x" and "about 3x": 7 and 6.5 are right answers, 60 (P times B) is not
    for answer in (7, 6.5, "20/3", 6.67):
        assert ex05.check_drill6("right", answer).passed, answer
    for answer in (7.2, 6.2, 60):
        assert not ex05.check_drill6("right", answer).passed, answer


def test_ex05_drill7_states_the_byte_convention_it_grades():
    # minor: the key's (4d + 5) / 8 needs notebook 02's convention; the question now gives it
    from rooflinelib.store.fileio import read_json
    root = Path(__file__).resolve().parents[2]
    for folder in ("solutions", "exercises"):
        cells = read_json(root / folder / "05_conceptual_drills.ipynb", ValueError, "a notebook")["cells"]
        drill7 = next("".join(c["source"]) for c in cells if "## Drill 7" in "".join(c["source"]))
        text = " ".join(drill7.split())
        assert "written to HBM once and read back once in bf16 (2 bytes each time)" in text, folder
        assert "the softmax 5 FLOPs" in text, folder
    assert ex05.check_drill7((4 * 128 + 5) / 8, "linear").passed


# --- exercises 2 to 4 after review 6b -----------------------------------------------------------

@pytest.mark.parametrize("number", [1, 2, 3, 6, 8])
def test_a_smaller_dtype_gets_one_ruling_on_every_memory_bound_row(number):
    # K2-1: rows 1 and 3 refused it ("it changes the result") while rows 6 and 8 accepted it;
    # review 13b K2-1: the GEMMs' re-reads (rows 4-5) are the exception, refused as a first move
    check = ex02.check_row(number, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, "smaller dtype").checks[4]
    assert ex02._row(number).verdict == "memory" and check.status == "pass", check
    if number in (1, 2, 3):  # fp32 rows: the lever that keeps fp32 exact comes first
        assert "if the accuracy allows" in check.message and "keep" in check.message, check
    assert [r.number for r in ex02.ROWS if r.verdict == "memory" and "smaller-dtype" not in r.first_steps] == [4, 5]


def test_row_9_solution_does_not_say_folding_the_scale_saves_a_mufu_op():
    # K2-2: folding the scale into exp2's argument saves an FMUL; each score still needs one MUFU.EX2
    cell = next(c.source for c in _solution("02_classify_kernels.ipynb") if "row9_first_step =" in c.source)
    assert "exp2 with the scale folded in" not in cell
    assert 'row9_first_step = "overlap"' in cell and "saves an FMUL, not a MUFU op" in cell
    assert "polynomial FMAs" in cell and ex02.check_row(9, *[NOT_ANSWERED] * 4, "overlap").checks[4].status == "pass"


def test_c5_is_answerable_before_notebook_05():
    # CK2-1: a student who never saw a counter name gets each counter's meaning in one line
    given = dict(ex02.given_part_c().rows)["C5"]
    for counter in ex02.AMD_COUNTERS:
        assert f"{counter}, the bytes" in given
    assert "to serve its misses" in given and '"video memory"' in given
    assert "Infinity Cache" not in given and "past" not in given  # the level is still the question
    assert all(meaning for meaning, _ in ex02.NCU_COUNTERS.options.values())
    intro = next(c.source for c in _solution("02_classify_kernels.ipynb") if c.source.startswith("Look back at row 8"))
    assert "so no later notebook is needed" in " ".join(intro.split())


def test_the_first_step_column_is_a_move_not_an_optimization():
    # CK2-2: "score-bandwidth" (nothing left to delete) is a move, not an optimization
    check = ex02.check_row(2, *[NOT_ANSWERED] * 4, "score bandwidth").checks[4]
    assert check.question == "first move"
    text = _markdown(_solution("02_classify_kernels.ipynb"))
    assert "first optimization" not in text.lower() and "the first move to try" in text
    assert any("First move: the menu" in c.source for c in _solution("02_classify_kernels.ipynb"))


@pytest.mark.parametrize("off", [1.024, 1 / 1.024])
def test_a_crossover_a_few_percent_off_gets_no_byte_prefix_hint(off):
    # K3-1: s_mi300x = 500 (2.4% off) was told "KiB and KB prefixes mixed up?"; a length has no prefix
    mi = ops.attention_fusion_crossover(ex03.MI300X.ridge("bf16-tensor"), ex03.HEAD_DIM, ex03.DTYPE)["fused_s"]
    h = ops.attention_fusion_crossover(ex03.H200.ridge("bf16-tensor"), ex03.HEAD_DIM, ex03.DTYPE)["fused_s"]
    got = ex03.check_crossover(NOT_ANSWERED, mi * off, NOT_ANSWERED, NOT_ANSWERED, h * off)
    for check in (got.checks[1], got.checks[4]):
        assert check.status == "fail" and "prefix" not in check.message and "KiB" not in check.message, check
    doubled = ex03.check_crossover(NOT_ANSWERED, 2 * mi, NOT_ANSWERED, NOT_ANSWERED, 2 * h)
    assert all("a multiply-add is 2 FLOPs" in c.message for c in (doubled.checks[1], doubled.checks[4]))


def test_exercise_3_gives_the_no_overlap_bound_as_a_figure():
    # review 6b (exercise 3, clarity): "well below the tensor roof" now says how far: 1 / (1 + 0.5)
    share = ops.exp_time_over_matrix_time(ex03.HEAD_DIM, ex03.H200)
    assert share == pytest.approx(0.5)
    # review 44k1: said after the student's take-away, beside the model one
    text = " ".join(ex03.model_takeaway("unfused levels off and fused grows with the length s").also)
    assert f"at most 1/{1 + share:g} ≈ {1 / (1 + share):.0%} of the tensor roof on the H200" in text


def test_exercise_4_part_c_asks_about_the_datasheet_and_the_loaded_ceilings_not_this_machine_twice():
    # CK4-1: in recorded mode "this machine" is the H200, so two of the three cases were one run
    text = _markdown(_solution("04_place_your_kernel.ipynb"))
    assert "on a CPU, on this machine and on an H200" not in text
    assert "against the H200's datasheet and against the ceilings this notebook loaded" in text
    # review 12b CK4-1: in recorded mode a CPU verdict cannot be read off the outputs; ask what decides it
    assert "same verdict on a CPU" not in text
    assert "What would you need to know to decide it on a CPU?" in text


# --- exercise 1 after review 6a ------------------------------------------------------------------

def test_ex01_each_point_is_judged_on_its_own_bandwidth_roof():
    # K1: the chart judged every point against its first memory ceiling: the 2 TB/s kernel at
    # 20 FLOP/byte read "67% of roof (below its roof)" while it sits on its own roof.
    pytest.importorskip("plotly")
    from rooflinelib.core.placement import KernelPoint
    hover = {t.name.split(": ")[-1]: " ".join(t.hovertext) for t in figure().data
             if str(t.meta).startswith("kernel:")}  # four points are named "A: k0" and so on
    assert "dram-b, ridge 60 FLOP/byte" in hover["k2"] and "100% of roof" in hover["k2"]
    assert "dram, ridge 40 FLOP/byte" in hover["k0"] and "100% of roof" in hover["k0"]
    wrong = ex01.check_figure(figure(own_roofs=False))
    assert wrong.status == "fail" and "memory_ceiling=" in wrong.message
    assert "20 FLOP/byte at 2 TB/s and 80 FLOP/byte at 2 TB/s" in wrong.message
    with pytest.raises(ValueError, match="^memory_ceiling: must be text"):
        KernelPoint("k", 1, 1, memory_ceiling=2)
    assert KernelPoint("k", 1, 1, None, "dram-b").memory_ceiling == "dram-b"
    # the worked answer sets it, and the instructions say how
    solution = _solution("01_place_two_kernels.ipynb")
    code = next(c.source for c in solution if c.cell_type == "code" and "roofline_figure(machine" in c.source)
    assert code.count('memory_ceiling="dram-2tbs"') == 2
    for folder in ("solutions", "exercises"):
        text = _markdown(nbformat.read(str(Path(__file__).resolve().parents[2] / folder /
                                           "01_place_two_kernels.ipynb"), as_version=4).cells)
        assert "Hover over the points to read their verdicts." not in text
        # review 7a C-EX-1: the student copy has no stored image, so no "still image" in either
        assert "Once your cell runs, hover over a point to read its verdict" in text
        assert "still image" not in text
        # CX-1: the constructors part 3 asks for are shown before it asks
        assert 'Ceiling("dram", "memory", 3_000)' in text and 'Machine("my GPU", ceilings=(' in text
        assert 'KernelPoint("my kernel", n_flops, n_bytes, achieved_gflops, memory_ceiling="dram")' in text
        # CX-2: which way the factor goes
        assert "give old rate ÷ new rate" in text and "By what factor does each kernel" not in text


def test_ex01_hints_for_the_likeliest_slips():
    # K2: the 3 TB/s rate copied into the 2 TB/s row
    copied = ex01.check_predictions(60, 120, 60, 120)
    assert statuses(copied) == ["pass", "pass", "fail", "pass"]
    assert "that is the rate at 3 TB/s; the bandwidth changed" in copied.checks[2].message
    # K3: the inverse ratio, and a percentage loss (the model answer's own "loses 33%")
    inverse = ex01.check_slowdowns(2 / 3, 1)
    assert statuses(inverse) == ["fail", "pass"] and "you gave new rate / old rate" in inverse.checks[0].message
    assert ex01.check_slowdowns("33%", "0%").passed
    assert ex01.check_slowdowns("33 percent", 1).passed
    assert ex01.check_slowdowns("-33%", "-0%").passed  # written as a change of rate
    assert "loses 33% of its rate" in str(ex01.model_conclusion("a conclusion in my own words, " * 5))
    doubled = ex01.check_slowdowns("50%", 1)
    assert statuses(doubled) == ["fail", "pass"] and "read as a loss of 50%" in doubled.checks[0].message
    assert ex01.check_slowdowns("100%", 1).checks[0].status == "fail"
    assert ex01.check_slowdowns("abc%", 1).checks[0].status == "invalid"
    # K4: points entered in TFLOP/s
    pytest.importorskip("plotly")
    low = ex01.check_figure(figure(rates=(60, 120, 40, 120)))
    assert low.status == "fail" and "achieved_gflops is in GFLOP/s" in low.message
    assert "no point at the prediction" not in low.message


def test_ex01_worked_answer_follows_the_library_and_its_figure_shows_both_ridges():
    solution = _solution("01_place_two_kernels.ipynb")
    code = next(c.source for c in solution if c.cell_type == "code" and "roofline_figure(machine" in c.source)
    # K5: Machine.kind is "datasheet" or "measured" (or "example" for the library's own); the
    # worked answer keeps the default
    assert "kind=" not in code
    # CX-3: the second ridge is drawn, the coinciding points are named, the labels alternate
    assert 'text=f"ridge at 2 TB/s: {ridge_at_2:g}"' in code and "add_vline(x=ridge_at_2" in code
    assert "C and D coincide" in code
    order = re.findall(r'KernelPoint\("(\d+) FLOP/B at (\d) TB/s"', code)
    assert order == [("20", "3"), ("20", "2"), ("80", "3"), ("80", "2")]


# --- exercise 1 after review 7a ------------------------------------------------------------------

def test_ex01_review_7a_uncapped_old_bandwidth_and_dram():
    # K01-1: 240 for 80 FLOP/byte at 2 TB/s is I x B at 3 TB/s, uncapped; it got the factor-2
    # "recount" hint, though the intensities are given
    wrong = ex01.check_predictions(60, 120, 40, 240)
    assert statuses(wrong) == ["pass", "pass", "pass", "fail"]
    message = wrong.checks[3].message
    assert "that is I x B at 3 TB/s, uncapped: use the new bandwidth, 2 TB/s, then cap at the compute roof" in message
    assert "recount" not in message
    # K01-2: the exercise names its bandwidth ceiling "dram": that is a memory-side answer
    roofs = ex01.check_active_roofs("dram", "compute", "DRAM-bound", "compute")
    assert roofs.passed, roofs
    assert ex01.check_active_roofs("compute", "compute", "dram", "compute").checks[0].status == "fail"


def test_ex01_review_7a_figure_shown_once_and_the_first_ridge_is_said():
    solution = _solution("01_place_two_kernels.ipynb")
    code = next(c for c in solution if c.cell_type == "code" and "roofline_figure(machine" in c.source)
    # the nit: the cell ended in add_annotation(...), which displayed the figure a second time
    assert code.source.rstrip().splitlines()[-2].rstrip().endswith(");")
    assert not code.get("outputs"), "the figure cell shows the figure; the next cell shows it again"
    for folder in ("solutions", "exercises"):
        text = _markdown(nbformat.read(str(Path(__file__).resolve().parents[2] / folder /
                                           "01_place_two_kernels.ipynb"), as_version=4).cells)
        # C-EX-2: the chart marks one ridge; review 15a: of the ceiling a point gets by default
        # ("dram" wherever it is listed), not of the first one listed
        assert "The chart marks one ridge: that of the memory ceiling a point gets by default" in text
