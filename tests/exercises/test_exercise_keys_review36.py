"""Keys 4 and 5 after review 35k2.  Each test calls a check (or a model answer, or reads a solution
page) with what the review tried, and fails on the key before this round."""
from pathlib import Path

import nbformat
import pytest

from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED

from test_exercise_keys_review32b import made_up_setup

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ex04.prepare("recorded", progress=None)
N = NOT_ANSWERED


# --- key 4 ---------------------------------------------------------------------------------------

def _accounting(reduction_bytes=N, fma_flops=N, fma_bytes=N):
    return ex04.check_accounting(N, reduction_bytes, fma_flops, fma_bytes).checks


@pytest.mark.parametrize("k", [63, 65])
def test_item1_one_multiply_add_off_is_named(k):
    # 35k2 item 1: 126n passed within the ±2% tolerance
    check = _accounting(fma_flops=lambda n: 2 * k * n)[2]
    assert check.status == "fail", check
    assert check.message == "count the multiply-adds in the loop: K = 64", check.message


@pytest.mark.parametrize("answer", [lambda n: 128 * n, lambda n: 2 * ex04.FMA_STEPS * n,
                                    lambda n: f"{128 * n / 1e9:.4g} GFLOPs"])
def test_item1_the_exact_count_passes_also_written_to_four_figures(answer):
    assert _accounting(fma_flops=answer)[2].passed


@pytest.mark.parametrize("answer", [lambda n: 4 * n + 4, lambda n: 4 * n + 8, lambda n: 4 * n])
def test_item1_the_reduction_bytes_keep_their_two_percent(answer):
    assert _accounting(reduction_bytes=answer)[1].passed


def _fma_fraction(answer, setup=RECORDED):
    args = [N] * 10
    args[9] = answer
    return ex04.check_placement(setup, *args).checks[9]


def test_item2_a_fraction_against_i_times_b_alone_is_named():
    # 35k2 item 2: achieved / (16 B) = 0.725 on the recording got only "too low"
    fma = ex04._keys(RECORDED)["fma"]
    wrong = fma["achieved"] / (fma["intensity"] * RECORDED.peak_gbps)
    assert round(wrong, 3) == 0.725
    check = _fma_fraction(round(wrong, 3))
    assert check.status == "fail"
    assert check.message.endswith("not by I x B alone (the same as GB/s over B)"), check.message
    assert _fma_fraction(round(fma["fraction"], 3)).passed


def test_item2_where_the_roof_against_b_is_i_times_b_it_is_named_once():
    # a made-up GDDR-like GPU: 16 B < P, so the roof against B is I x B itself
    setup = made_up_setup(35_600.0, 900.0, 556.0, 200.0, name="made-up GDDR GPU")
    names = [name for _, name in ex04._fma_wrong_roofs(setup, ex04._keys(setup)["fma"])]
    assert "I x B alone" not in names and len(names) == len(set(names)), names


def test_item3_the_twelve_bytes_hint_calls_the_read_for_ownership_dram_traffic():
    check = _accounting(fma_bytes=lambda n: 12 * n)[3]
    assert "DRAM traffic the write-allocate policy adds, which this course's count, like Lab 1's " \
           "copy ceiling, leaves out" in check.message, check.message
    assert "cache's traffic" not in check.message


def test_item4_the_verdict_sentence_claims_no_more_than_ninety_percent_shows():
    red = ex04._keys(RECORDED)["reduction"]
    text = " ".join(ex04._reduction_roof_note(RECORDED, red))
    assert "so no compute limit binds appreciably below its memory roof" in text, text
    assert "lies below its memory roof" not in text


def _verdict(setup=RECORDED):
    return ex04.model_verdict(setup, "the verdict depends on the ridge of the machine, not the kernel")


def test_item5_the_datasheet_ridge_is_stated_once():
    # 35k2 clarity: 13.9 was in the first aside and again in the fifth
    # review 51: that answer opens the model answer now, no longer the first aside
    shown = _verdict()
    also, head = shown.also, shown.model_answer
    assert sum("13.9" in part for part in (head, *also)) == 1, also
    assert head.startswith("No, a different verdict: against the H200's datasheet ridge, 13.9 FLOP/byte (66.9 TFLOP/s "
                           "over 4.8 TB/s"), head
    assert "15% right of it, outside the ±10% band" in head
    assert len(also) == 5, also


def test_item5_another_machine_still_hears_the_course_h200s_copy_ridge():
    setup = made_up_setup(35_600.0, 900.0, 556.0, 200.0, name="made-up GDDR GPU")
    first = _verdict(setup).model_answer
    assert "The course's H200, measured, has a copy ridge of 15.4 (C = 4,277 GB/s): at the ridge" in first


def test_item5_the_fp64_asides_sit_under_a_lead_in():
    also = _verdict().also
    assert also[-2].startswith("The reduction's compute roof: its adds run in float64"), also[-2]
    assert also[-1].startswith("P64 is an upper bound: each element's float32 -> float64 conversion")


def _solution(number):
    path = next((ROOT / "solutions").glob(f"{number:02d}_*.ipynb"))
    return nbformat.read(str(path), as_version=4).cells


def test_item6_the_figure_caption_says_why_no_fp64_roof_is_drawn():
    cells = _solution(4)
    at = next(i for i, c in enumerate(cells) if "ex.placement_figure(" in c.source)
    assert "The\nreduction's fp64 roof is not drawn: on the H200, at I = 0.25, its memory roof binds far " \
           "below it." in cells[at - 1].source


def test_item1_the_page_says_the_fma_flops_check_is_exact():
    part_a = next(c.source for c in _solution(4) if c.source.startswith("## Part A"))
    assert "The FMA kernel's FLOPs are an exact count:\nthat check allows 0.1%." in part_a
    assert ex04.FMA_FLOPS_RTOL == 0.001


# --- key 5 ---------------------------------------------------------------------------------------

def test_item8_drill7_lists_only_the_three_growths_offered():
    check = ex05.check_drill7(N, "exponential").checks[1]
    assert check.message == "'exponential' is not one of 'constant', 'linear' or 'quadratic'", check.message
    unbounded = ex05.check_drill7(N, "unbounded").checks[1]
    assert unbounded.status == "fail" and "does not level off" in unbounded.message


def test_item9_drill3_instruction_mix_first_gets_its_own_hint():
    check = ex05.check_drill3(N, N, N, N, N, "instruction-mix").checks[-1]
    assert check.status == "fail"
    assert check.message == ("checking that P is the right roof comes after the launch size, "
                             "occupancy and bytes; and this menu item is a change, not a check")


def test_item10_drill8_says_up_to_the_ratio_of_peaks():
    text = ex05.MODEL_ANSWERS[8][0]
    assert "the tensor cores could run up to about 7.4 times faster in tf32" in text
    assert "could run about" not in text


@pytest.mark.parametrize("answer", ["max of F/P and M/B", "the max of F/P and M/B", "max(F/P, M/B)",
                                    "maximum of F/P and M/B", "max(M/B, F/P)"])
def test_item11_drill1_reads_the_max_written_out(answer):
    assert ex05.check_drill1(answer, N).checks[0].passed


@pytest.mark.parametrize("answer", ["sum of F/P and M/B", "F/P plus M/B"])
def test_item11_the_sum_written_out_hears_the_sum_hint(answer):
    check = ex05.check_drill1(answer, N).checks[0]
    assert check.status == "fail" and check.message.startswith("adding the two times"), check.message


def test_item12_drill5_splits_the_expected_answers_from_the_other_conventions():
    text = ex05.MODEL_ANSWERS[5][0]
    expected = text.index("Two answers an interviewer expects:\n- bytes counted at different levels")
    other = text.index("Other conventions that can reach 8x:\n- the kernel evaluated at different sizes")
    assert expected < text.index("- the algorithm's ideal bytes versus the profiler's measured") < other
    assert len(text.split()) <= 190, len(text.split())


# --- key 4, item 7: the rounding hint's behaviour, pinned across its rewrite as a slip table ------

_ONE_FLOP = "; or, if you counted each multiply-add as 1 FLOP, in the rate and in the roof alike: each is 2 FLOPs"
_ROUNDED = ("too far from the key to pass (±2% or ±0.5 percentage points): if you rounded, give two "
            "more figures; or did you divide by ")


@pytest.mark.parametrize("index, answer, message", [
    (4, 1.0, _ROUNDED + "the copy ceiling C (the reduction only reads)? (divide its GB/s by the read "
                        "ceiling, setup.read_gbps)"),
    (4, "100%", _ROUNDED + "the copy ceiling C (the reduction only reads)? (divide its GB/s by the "
                           "read ceiling, setup.read_gbps)"),
    # review 37k2 K4-1: 0.9 is also the key read with GiB (0.901), named first
    (4, 0.9, "did you convert with GiB (2^30 bytes)? This course uses decimal GB (10^9 bytes), and "
             "GiB gives about 7% less. Otherwise: "
             "that is against B, Lab 1's best access mix (a write), or a bandwidth near it such as a "
             "datasheet's; the reduction only reads: score it against the read ceiling, setup.read_gbps"),
    (4, 0.8, "not within ±2% or ±0.5 percentage points of the key: your value is too low"),
    # review 58 k45 item 6: on the recorded H200 the fraction against I x C alone is also that of
    # each multiply-add counted as 1 FLOP in the rate and the roof, (achieved / 2) / (8 x C): named too
    (9, 0.8, _ROUNDED + "I x C alone (the same as GB/s over C)? (divide by the roof you found above, "
                        "min(P, I x C))" + _ONE_FLOP),
    (9, "80%", _ROUNDED + "I x C alone (the same as GB/s over C)? (divide by the roof you found "
                          "above, min(P, I x C))" + _ONE_FLOP),
    (9, 0.793, "divide the achieved GFLOP/s by the roof you found above, min(P, I x C), not by I x C "
               "alone (the same as GB/s over C)" + _ONE_FLOP),
    (9, 0.9, "not within ±2% or ±0.5 percentage points of the key: your value is too high"),
    (9, 1.62, "that is against the fp64 roof, P64; this kernel's FMAs are fp32: divide by its roof, "
              "min(P, I x C); a fraction above 1 means the roof divided by is not the kernel's"),
])
def test_item7_the_rounding_hint_is_heard_only_where_it_was(index, answer, message):
    args = [N] * 10
    args[index] = answer
    check = ex04.check_placement(RECORDED, *args).checks[index]
    assert (check.status, check.message) == ("fail", message), check.message
