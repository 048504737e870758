"""Keys 1-5 after reviews 41k1 and 41k2.  Each test calls a check with what the review tried, and
fails on the key before this round."""
import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED, check_function

N = NOT_ANSWERED
AT_3, AT_2 = ex01.BANDWIDTHS_GBPS


# --- key 1, item 1: a rate in the roof slot hears the ridge hint, not "did you mean 'compute'" ---

@pytest.mark.parametrize("answer, bandwidth", [("60 TFLOP/s", AT_3), ("40 TFLOP/s", AT_2),
                                               ("60000 GFLOP/s", AT_3)])
def test_key1_a_rate_as_the_roof_hears_the_ridge_hint(answer, bandwidth):
    check = ex01._check_active_roof(answer, 20.0, bandwidth)
    assert check.status == "fail", check
    assert "did you mean" not in check.message
    assert "is a rate, not a roof" in check.message
    assert ex01._ridge_hint(20.0, bandwidth) in check.message


def test_key1_the_compute_roof_as_a_rate_still_names_compute():
    assert ex01._check_active_roof("120 TFLOP/s", 80.0, AT_3).passed
    assert ex01._check_active_roof("120000 GFLOP/s", 80.0, AT_3).passed
    assert ex01._check_active_roof("120 TFLOP/s", 20.0, AT_3).status == "fail"


# --- key 1, item 2: a side with its own roof in parentheses reads as that side ----------------

@pytest.mark.parametrize("answer, intensity, bandwidth", [
    ("memory (3 TB/s)", 20.0, AT_3), ("bandwidth (3 TB/s)", 20.0, AT_3),
    ("memory (2 TB/s)", 20.0, AT_2), ("compute (120 TFLOP/s)", 80.0, AT_3),
    ("compute (120 TFLOP/s)", 80.0, AT_2)])
def test_key1_side_with_its_roof_in_parentheses_passes(answer, intensity, bandwidth):
    assert ex01._check_active_roof(answer, intensity, bandwidth).passed


def test_key1_side_with_the_other_cases_bandwidth_hears_the_figure_hint():
    check = ex01._check_active_roof("memory (2 TB/s)", 20.0, AT_3)
    assert check.status == "fail", check
    assert "other case's bandwidth" in check.message


def test_key1_wrong_side_with_its_roof_still_fails():
    assert ex01._check_active_roof("compute (120 TFLOP/s)", 20.0, AT_3).status == "fail"
    assert ex01._check_active_roof("memory (3 TB/s)", 80.0, AT_3).status == "fail"


# --- key 2 ----------------------------------------------------------------------------------

@pytest.mark.parametrize("number", [4, 5])
def test_key2_smaller_type_hint_is_exact_for_this_gpus_types(number):
    message = ex02.check_row(number, N, N, N, N, "smaller dtype").checks[4].message
    assert "2x at most" not in message
    assert "bf16 halves the bytes, an 8-bit type quarters them" in message


def test_key2_row3_3r1w_hint_says_it_uses_this_kernels_flops():
    row = ex02._row(3)
    check = ex02.check_row(3, row.op.n_flops / (4 * 2 ** 24 * 4), N, N, N, N).checks[0]
    assert check.status == "fail", check
    assert "that is the 3-reads-1-write softmax" not in check.message
    # review 58 k2: it names the accesses this kernel makes, not another softmax
    assert "this one makes 5: pass 1 reads it, pass 2 reads it and writes exp(x - max)" in check.message


@pytest.mark.parametrize("answer", ["bf16", "use bf16", "BF16"])
def test_key2_row7_reads_bf16_as_its_first_move(answer):
    assert ex02.check_row(7, N, N, N, N, answer).checks[4].passed


@pytest.mark.parametrize("number", [6, 8, 9])
def test_key2_bf16_is_no_smaller_type_on_a_bf16_row(number):
    check = ex02.check_row(number, N, N, N, N, "bf16").checks[4]
    assert check.status == "fail" and "already uses bf16" in check.message


# --- key 3: the article before a type's name ------------------------------------------------

def test_key3_function_check_says_an_int():
    check = check_function(3, lambda s, d: s * d, [{"s": 1, "d": 2}], "formula")
    assert "got an int" in check.message and "got a int" not in check.message


# --- key 4, item 1: Part A names the 10^9 factor of a count in GB ---------------------------

def test_key4_part_a_names_the_unit_factor():
    result = ex04.check_accounting(lambda n: n / 1e9, lambda n: 4 * n / 1e9,
                                   lambda n: 128 * n / 1e9, lambda n: 8 * n / 1e3)
    messages = [c.message for c in result.checks]
    assert all("10^9" in m for m in messages[:3]), messages
    assert "factor of 1,000" in messages[3]
    assert ex04.check_accounting(lambda n: n, lambda n: 4 * n + 8, lambda n: 128 * n,
                                 lambda n: 8 * n).passed


# --- key 5, drill 1: "min" hears a hint ------------------------------------------------------

@pytest.mark.parametrize("answer", ["min", "minimum", "the smaller time"])
def test_key5_drill1_min_hears_a_hint(answer):
    check = ex05.check_drill1(answer, N).checks[0]
    assert check.status == "fail", check
    assert "the bound is the max, not the min" in check.message


def test_key5_drill1_min_is_not_offered():
    assert "'min'" not in ex05.BOUNDS.menu()
    assert "'min'" not in ex05.check_drill1("foo", N).checks[0].message
