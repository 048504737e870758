"""Keys 4 and 5 after review 36k2.  Each test calls a check (or reads a model answer or a solution
page) with what the review tried, and fails on the key before this round."""
from pathlib import Path

import nbformat
from re import findall as re_findall
import pytest

from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED

from test_exercise_keys_review32b import made_up_setup

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ex04.prepare("recorded", progress=None)
N = NOT_ANSWERED


def _placement(index, answer, setup=RECORDED):
    args = [N] * 10
    args[index] = answer
    return ex04.check_placement(setup, *args).checks[index]


# --- key 4 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("answer", [15.75, "15.8", 16.25, "16.3"])
def test_item1_one_multiply_add_off_in_the_intensity_is_named(answer):
    # 15.75 FLOP/byte (K = 63) passed Part B's ±2% though Part A refuses 126n
    check = _placement(5, answer)
    assert check.status == "fail", check
    assert check.message == "count the multiply-adds in the loop: K = 64", check.message


@pytest.mark.parametrize("answer", [16, 16.0, "16", "16.0", "16 FLOP/byte", 128 / 8])
def test_item1_right_intensities_still_pass(answer):
    assert _placement(5, answer).passed
    assert _placement(5, answer, made_up_setup(30_000.0, 880.0)).passed


def test_item1_the_page_states_the_intensity_tolerance():
    nb = nbformat.read(str(ROOT / "solutions" / "04_place_your_kernel.ipynb"), as_version=4)
    text = " ".join(" ".join(c.source for c in nb.cells).split())
    assert "The FMA kernel's intensity, exact like its count, passes within ±0.5%." in text
    assert ex04.FMA_INTENSITY_RTOL == 0.005


def test_item2_a_doubled_fma_rate_hears_no_copy_hint():
    fma = ex04._keys(RECORDED)["fma"]
    check = _placement(6, 2 * fma["achieved"])
    assert check.status == "fail"
    assert "a copy both reads and writes" not in check.message, check.message
    assert check.message.startswith("did you count 4 FLOPs per multiply-add, or half the time? "
                                    "One multiply-add is 2 FLOPs"), check.message
    assert _placement(6, fma["achieved"]).passed


@pytest.mark.parametrize("answer, hint", [
    (128 / 12, "12 bytes per element counts a read of y as well"),
    ("10.7", "12 bytes per element counts a read of y as well"),
    (8, "each multiply-add counts as 2 FLOPs"),
    (32, "the kernel reads x and writes y: both cross memory")])
def test_item3_intensity_slips_get_part_a_hints(answer, hint):
    check = _placement(5, answer)
    assert check.status == "fail" and check.message.startswith(hint), check.message


def test_item3_the_roof_at_half_the_intensity_is_named():
    check = _placement(7, 8 * RECORDED.copy_gbps)
    assert check.status == "fail"
    assert check.message == ("that is I x C at I = 8, a multiply-add counted as 1 FLOP: each is "
                             "2 FLOPs"), check.message


def test_item3_memory_bound_gpu_half_roof_named_too():
    # 16 C < P: the roof is I x C, and half of it is the 1-FLOP-per-multiply-add slip
    setup = made_up_setup(30_000.0, 880.0)
    fma = ex04._keys(setup)["fma"]
    assert fma["roof"] < setup.peak_gflops
    check = _placement(7, fma["roof"] / 2, setup)
    assert check.status == "fail" and "I = 8" in check.message, check.message
    assert _placement(7, fma["roof"], setup).passed


# --- key 5 ---------------------------------------------------------------------------------------

def test_drill8_says_tf32_changes_the_precision_too():
    text = " ".join(ex05.MODEL_ANSWERS[8][0].split())
    assert "which also changes the precision" not in text
    assert "tf32 rounds the inputs to a 10-bit mantissa, bf16 to a 7-bit one" in text
    assert "(14.8 in bf16, which changes the precision more:" in text


def test_drill7_model_answer_names_where_the_linear_growth_ends():
    text = " ".join(ex05.MODEL_ANSWERS[7][0].split())
    assert "grows in proportion to s. That growth rests on the L2 absorbing the re-reads" in text
    assert "the intensity levels off near the tile size" in text


def test_drill7_constant_is_refused_with_the_assumption_named():
    check = ex05.check_drill7(N, "constant").checks[1]
    assert check.status == "fail"
    assert check.message.startswith("the drill assumes the L2 absorbs the re-reads of K and V "
                                    "(without that, the intensity does level off, near the tile "
                                    "size)"), check.message
    assert ex05.check_drill7(N, "linear").checks[1].passed


@pytest.mark.parametrize("answer", ["max of the two times", "maximum of the two times",
                                    "the larger one", "the longest", "the longer one"])
def test_drill1_max_spellings_are_read(answer):
    assert ex05.check_drill1(answer, 2).checks[0].passed


@pytest.mark.parametrize("answer", ["no, still memory-bound", "No, still memory-bound.",
                                    "no: memory-bound"])
def test_drill4_no_then_the_side_is_read(answer):
    assert ex05.check_drill4(N, N, answer, N).checks[2].passed


def test_drill4_yes_compute_is_read_and_refused_with_its_hint():
    check = ex05.check_drill4(N, N, "yes, compute-bound", N).checks[2]
    assert check.status == "fail" and check.message.startswith("compare the fused intensity"), check


@pytest.mark.parametrize("answer", ["it moves right by 6.7x", "right by about 7x",
                                    "moves to the right by 6.7 times"])
def test_drill6_direction_with_its_factor_is_read(answer):
    assert ex05.check_drill6(answer, 6.7).checks[0].passed


def test_drill6_left_with_a_factor_hears_the_left_hint():
    check = ex05.check_drill6("left by 6.7x", 6.7).checks[0]
    assert check.status == "fail" and check.message == "the ridge is P/B: which grew faster, P or B?"


def test_drill3_amortize_launch_first_hears_the_launch_arithmetic():
    check = ex05.check_drill3(N, N, N, N, N, "amortize-launch").checks[-1]
    assert check.status == "fail"
    assert "33 ms, thousands of times a launch's cost" in check.message, check.message


# --- key 4, item 5: per-block partial sums counted as DRAM bytes ---------------------------------

@pytest.mark.parametrize("answer", [lambda n: 4 * n + 8 * 1056, lambda n: f"{4 * n + 8 * 1056} B"])
def test_item5_a_fixed_count_of_per_block_bytes_is_named(answer):
    check = ex04.check_accounting(N, answer, N, N).checks[1]
    assert check.status == "fail"
    assert check.message == ex04._PER_BLOCK_HINT, check.message
    assert "only the one 8-byte result reaches DRAM" in check.message


@pytest.mark.parametrize("answer", [lambda n: 4 * n + 8, lambda n: 4 * n, lambda n: 4 * n + 8 * (n // 1024)])
def test_item5_right_byte_counts_still_pass(answer):
    assert ex04.check_accounting(N, answer, N, N).checks[1].passed


def test_item5_other_wrong_counts_keep_their_messages():
    assert ex04.check_accounting(N, lambda n: 8 * n, N, N).checks[1].message.startswith("8 bytes per element")
    assert ex04.check_accounting(N, lambda n: 5 * n, N, N).checks[1].message.startswith("wrong at 3 of 3")


# --- key 4, item 4: "near the ridge" read as the ridge -------------------------------------------

@pytest.mark.parametrize("answer", ["near the ridge", "close to the ridge", "in the ridge band"])
def test_item4_near_the_ridge_is_read_as_the_ridge(answer):
    fma = _placement(8, answer)  # the FMA kernel sits in its ridge band on the recording
    assert ex04._keys(RECORDED)["fma"]["side"] == "ridge"
    assert fma.passed, fma
    red = _placement(3, answer)  # the reduction is memory-bound: read, and refused with a hint
    assert red.status == "fail" and "is not one of" not in red.message, red


# --- review 37k2 ---------------------------------------------------------------------------------

def test_r37_k4_1_a_gib_converted_fraction_hears_gib_first():
    # 0.901 (GB/s converted with GiB) heard only "against B ... or a datasheet's"
    red = ex04._keys(RECORDED)["reduction"]
    check = _placement(4, round(red["gbps"] * 1e9 / 2 ** 30 / RECORDED.read_gbps, 3))
    assert check.status == "fail"
    assert check.message.startswith("did you convert with GiB (2^30 bytes)?"), check.message
    assert _placement(4, round(red["gbps"] / RECORDED.read_gbps, 3)).passed


def test_r37_k4_2_the_achieved_rate_as_the_roof_is_named():
    red = ex04._keys(RECORDED)["reduction"]
    for answer in (1090, round(red["achieved"], 1)):
        check = _placement(2, answer)
        assert check.status == "fail"
        assert check.message.startswith("that is the achieved rate, not the roof"), check.message
    # I x C itself keeps its own hint
    check = _placement(2, red["intensity"] * RECORDED.copy_gbps)
    assert check.message.startswith("that is I x C, the copy ceiling"), check.message


@pytest.mark.parametrize("answer", [15.9, "16.1"])
def test_r37_k4_3_the_exact_intensity_hears_no_significant_figures_hint(answer):
    check = _placement(5, answer)
    assert check.status == "fail"
    assert "keep three significant figures" not in check.message, check.message
    assert check.message.endswith("the intensity is exact here: FLOPs per element over bytes per "
                                  "element, no rounding"), check.message


def test_r37_k4_4_no_fp64_row_the_roof_hint_names_p_not_float64():
    setup = made_up_setup(30_000.0, 880.0)
    assert setup.fp64_gflops is None
    check = _placement(2, ex04._keys(setup)["reduction"]["peak"], setup)
    assert check.status == "fail"
    assert "float64" not in check.message, check.message
    assert check.message.startswith("that is the compute roof P (these ceilings hold no fp64 row)")
    # with an fp64 row, the float64 wording stays
    # (review 39k2: P64 itself is named the fp64 roof, an FMA peak)
    assert "fp64 roof" in _placement(2, ex04._keys(RECORDED)["reduction"]["peak"]).message


# --- key 5 (review 37k2) ---

def test_r37_k5_drill3_question_lists_only_the_tables_rows():
    nb = nbformat.read(str(ROOT / "solutions" / "05_conceptual_drills.ipynb"), as_version=4)
    cell = next(c.source for c in nb.cells if c.source.startswith("## Drill 3"))
    listed = set(re_findall(r'`"([a-z]+)"`', cell))
    shown = {row[0] for row in ex05.LIMITERS.table().rows}  # what the page prints
    assert listed == shown, (listed, shown)
    assert "latency" not in listed
    assert ex05.check_drill3(N, N, N, N, "latency", N).checks[4].status == "pass"  # still read


def test_r37_k5_drill2_a_thousandth_hears_the_unit_prefixes():
    check = ex05.check_drill2(N, N, 0.12, N).checks[2]
    assert check.status == "fail"
    assert check.message.startswith("off by a factor of 1,000: check the unit prefixes"), check.message


@pytest.mark.parametrize("answer", ["about 7", "~6.7", "roughly 6.7x", "about 670%"])
def test_r37_k5_drill6_about_7_is_read(answer):
    assert ex05.check_drill6(N, answer).checks[1].passed
