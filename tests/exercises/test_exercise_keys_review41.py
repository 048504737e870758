"""Keys 1-5 after reviews 40k1 and 40k2.  Each test calls a check (or reads a model answer or a key's
text) with what the review tried, and fails on the key before this round."""
import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex03_attention as ex03
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED

N = NOT_ANSWERED


# --- key 2, row 3: fusion removes two of the five accesses of this row (it does not fit on chip) ---

def test_key2_row3_smaller_dtype_note_matches_the_model_answer():
    check = ex02.check_row(3, N, N, N, N, "smaller dtype").checks[4]
    assert check.status == "pass", check
    # the model answer: 5 accesses become 3 for this 64 MiB row; 2 only if the row fits on chip
    assert "fusion removes two of them (three if the row fits on chip)" in check.message
    assert "removes three of them and" not in check.message
    # a single read or write is an access, not a round trip
    assert "round trip" not in check.message


# --- key 2, row 7: the row states C = AB, the convention its beta != 0 hint refers to -----------

def test_key2_row7_states_c_equals_ab_where_the_student_sees_it():
    row = ex02._row(7)
    assert "C = AB" in row.description
    assert "C = AB" in str(ex02.problem_table().rows)
    # the refusal of the count that also reads C points at what the row says
    gemm_with_c_read = row.op.n_flops / (4 * 4096 * 4096 * 4)
    check = ex02.check_row(7, gemm_with_c_read, N, N, N, N).checks[0]
    assert check.status == "fail" and "this GEMM computes C = AB" in check.message, check


# --- key 5, drill 5: the last sentence no longer denies the FLOP-side cases listed above it ------

def test_key5_drill5_model_answer_does_not_contradict_its_list():
    answer, points = ex05.MODEL_ANSWERS[5]
    assert "almost always comes from the bytes" not in answer
    assert "otherwise 8x comes from the bytes" not in " ".join(points)
    assert answer.endswith("When none of the cases listed above applies, look first at the bytes "
                           "for a gap of 8x.")
    assert any("when none of these applies, look first at the bytes" in p for p in points)


# --- key 1: a bandwidth roof named by its figure, "x slower", and exactly four points ------------

@pytest.mark.parametrize("answer", ["2 TB/s", "the 2 TB/s roof"])
def test_key1_this_cases_bandwidth_figure_reads_as_the_memory_roof(answer):
    checks = ex01.check_active_roofs("memory", "compute", answer, answer).checks
    assert checks[2].status == "pass", checks[2]          # 20 FLOP/byte at 2 TB/s: memory
    assert checks[3].status == "fail", checks[3]          # 80 FLOP/byte at 2 TB/s: compute
    assert "read" in checks[3].message and "'memory'" in checks[3].message


def test_key1_the_other_bandwidth_figure_is_named_not_passed():
    check = ex01.check_active_roofs("memory", "compute", "3 TB/s", "compute").checks[2]
    assert check.status == "fail", check
    assert "3 TB/s is the roof of the other case's bandwidth" in check.message


@pytest.mark.parametrize("answer", ["1.5x slower", "1.5 times slower", "33% slower"])
def test_key1_slower_with_its_factor_is_read(answer):
    assert ex01.check_slowdowns(answer, 1).checks[0].status == "pass"


def test_key1_page_asks_for_exactly_four_points_as_its_figure_check_does():
    import json
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    for page in ("solutions", "exercises"):
        cells = json.loads((root / page / "01_place_two_kernels.ipynb").read_text())["cells"]
        text = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        # review 51k1, Ex1-3: ridge markers (the model adds a second) are allowed, as cell 10 says
        assert "both bandwidth roofs and the four points (ridge markers optional)" in text, page
        assert "nothing more" not in text, page
        assert "exactly one compute ceiling" in text and "exactly four" in text, page
    pytest.importorskip("plotly")
    from rooflinelib.core.model import Ceiling, Machine
    from rooflinelib.core.placement import KernelPoint
    from rooflinelib.views.plotting import roofline_figure
    machine = Machine("m", ceilings=(Ceiling("dram", "memory", 3_000), Ceiling("dram-2tbs", "memory", 2_000),
                                     Ceiling("fp32", "compute", 120_000)))
    points = [(20, 60e3, None), (20, 40e3, "dram-2tbs"), (80, 120e3, None), (80, 120e3, "dram-2tbs"),
              (50, 100e3, None)]
    figure = roofline_figure(machine, [KernelPoint(f"k{i}", x, 1, y, memory_ceiling=m)
                                       for i, (x, y, m) in enumerate(points)])
    check = ex01.check_figure(figure)
    assert check.status == "fail" and "holds more than the page asks (exactly" in check.message, check


# --- key 3: the softmax per output element, and the log-sum-exp in the fused bytes ---------------

def test_key3_softmax_per_output_element_hears_a_hint_that_fits_it():
    check = ex03.check_flops(lambda s, d: 4 * s * s * d + 5 * s * d)
    assert check.status == "fail"
    assert "per output element (s x d)" in check.message and "s x s of them" in check.message
    # leaving it out, which the tolerance cannot tell apart, hears the same hint
    assert ex03.check_flops(lambda s, d: 4 * s * s * d).message == check.message


@pytest.mark.parametrize("lse_bytes", [2, 4])
def test_key3_fused_bytes_with_the_log_sum_exp_are_named(lse_bytes):
    check = ex03.check_fused_bytes(lambda s, d: 8 * s * d + lse_bytes * s)
    assert check.status == "fail"
    assert "log-sum-exp" in check.message and "wrong at" not in check.message, check


# --- key 4: the roof's GiB reading, the fp32 P as the sum's roof, a renamed argument -------------

RECORDED = ex04.prepare("recorded", progress=None)
RED = ex04._keys(RECORDED)["reduction"]


def _reduction_roof(answer):
    return ex04.check_placement(RECORDED, N, N, answer, N, N, N, N, N, N, N).checks[2]


def test_key4_roof_in_gib_hears_gib_first_where_it_is_nearer():
    gib = RED["roof"] * 1e9 / 2 ** 30           # 1,049 on the recorded H200, 1.9% from I x C
    copy = RED["intensity"] * RECORDED.copy_gbps
    assert abs(gib / copy - 1) <= 0.02          # the case the review met
    check = _reduction_roof(round(gib))
    assert check.status == "fail" and check.message.startswith("did you convert with GiB"), check
    assert "Otherwise: that is I x C" in check.message
    # nearer I x C, the copy ceiling's hint still leads
    assert _reduction_roof(round(copy)).message.startswith("that is I x C, the copy ceiling")


def test_key4_fp32_peak_as_the_reduction_roof_names_the_missing_min():
    check = _reduction_roof(RECORDED.peak_gflops)
    assert check.status == "fail", check
    assert check.message.startswith("that is the fp32 roof P alone") and "I x R" in check.message
    assert "cannot exceed the compute roof of its float64 adds" not in check.message


def test_key4_a_counting_function_may_name_its_argument_as_it_likes():
    def reduction_flops(N):  # noqa: N803 (the student's spelling)
        return N - 1
    check = ex04.check_accounting(reduction_flops, N, N, N).checks[0]
    assert check.status == "pass", check
