"""The shared answer reader after round 36: FLOP counts and rates told apart by their spelling,
count units that never hear a byte-prefix hint, and units inside a formula named as such.  Each
test fails on the reader before this round."""
import pytest

from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex03_attention as ex03
from rooflinelib.exercises.grading import AnswerError, check_number, read_number
from rooflinelib.core.machines import MI300X
from rooflinelib.core.vocabulary import BF16_TENSOR
from rooflinelib.core import operators as ops


def _refusal(answer, unit):
    with pytest.raises(AnswerError) as info:
        read_number(answer, "q", unit)
    return str(info.value)


# --- 1. counts vs rates --------------------------------------------------------------------------

@pytest.mark.parametrize("answer, value", [("8192 FLOPs", 8192), ("8192 flops", 8192),
                                           ("8 GFLOPs", 8e9), ("8192 FLOP", 8192)])
def test_flops_with_a_small_s_is_a_count_where_a_count_is_asked(answer, value):
    # review 33k1: "8192 FLOPs" was read as a rate and refused where a FLOP count is asked
    assert read_number(answer, "q", "FLOP") == pytest.approx(value)


@pytest.mark.parametrize("answer", ["8192 FLOPS", "8 GFLOPS", "8192 FLOP/s"])
def test_flops_in_capitals_stays_a_rate_and_says_how_to_write_a_count(answer):
    # review 35k2 item 3: "FLOPS" is a rate; the refusal says which spelling is a count
    message = _refusal(answer, "FLOP")
    assert "rate" in message and "for a count write FLOP or FLOPs" in message, message


@pytest.mark.parametrize("answer", ["1.2e14 FLOPS", "1.2e14 flops", "120 TFLOPS", "120 tflops", "120 TFLOPs",
                                    "120000 GFLOPS", "120000 gflops", "0.12 PFLOPS", "120 TFLOP/s"])
def test_every_rate_spelling_accepted_before_is_still_a_rate(answer):
    assert read_number(answer, "q", "TFLOP/s") == pytest.approx(120)


def test_a_bare_flops_count_is_refused_where_a_rate_is_asked():
    # "FLOPs" (capitals, small s) is the plural of FLOP: a count, no longer read as a rate
    message = _refusal("1.2e14 FLOPs", "TFLOP/s")
    assert "FLOP count" in message and "for a rate write FLOP/s or FLOPS" in message, message


# --- 2. element counts are not bytes ---------------------------------------------------------------

@pytest.mark.parametrize("unit", ["elements", "tokens", "threads", "blocks"])
def test_a_count_2_4_percent_off_hears_no_byte_prefix_hint(unit):
    check = check_number(1.024 * 213_333, 213_333, "q", unit=unit)
    assert check.status == "fail" and "KiB" not in check.message and "prefix" not in check.message
    assert "not within ±2%" in check.message, check.message
    eight = check_number(8 * 213_333, 213_333, "q", unit=unit)
    assert eight.status == "fail" and "bits" not in eight.message, eight.message


def test_a_plain_number_still_hears_the_byte_prefix_hint():
    check = check_number(1.024 * 213_333, 213_333, "q")
    assert "KiB" in check.message, check.message


def test_a_count_takes_its_own_noun_and_refuses_bytes_and_other_nouns():
    assert read_number("213333 elements", "q", "elements") == 213_333
    assert read_number("1 element", "q", "elements") == 1
    assert "byte count" in _refusal("213 KB", "elements")
    assert "count of elements" in _refusal("489 elements", "tokens")
    assert "drop the unit" in _refusal("5 elements", "")  # a plain number stays plain


def test_key_2_and_3_lean_on_the_reader_not_their_own_workarounds():
    assert not hasattr(ex02, "_element_count")
    crossover = ops.attention_fusion_crossover(MI300X.ridge(BF16_TENSOR), ex03.HEAD_DIM, ex03.DTYPE)
    key = crossover["fused_s"]
    assert ex03._check_smallest_s(f"{key} tokens", crossover, "MI300X").passed
    assert ex03._check_smallest_s(f"{key} token", crossover, "MI300X").passed
    wrong = ex03._check_smallest_s(f"{key} KB", crossover, "MI300X")
    assert wrong.status == "invalid" and "count of tokens" in wrong.message, wrong.message


# --- 3. units inside a formula ---------------------------------------------------------------------

# review 46k1: a rate over a bandwidth, asked as an intensity, is now read (test_keys_review47);
# other units in arithmetic keep their own message
@pytest.mark.parametrize("answer, unit", [("3 TB/s / 120 TFLOP/s", "FLOP/byte"), ("6 us / 12.288 ns", "x"),
                                          ("120 TFLOP/s / 3 TB/s + 1", "FLOP/byte")])
def test_units_inside_a_formula_get_their_own_message(answer, unit):
    message = _refusal(answer, unit)
    assert "write the formula without units (120/3), or one number with its unit" in message, message
    assert "could not read" not in message


def test_a_formula_that_is_wrong_for_another_reason_keeps_the_old_message():
    assert "could not read" in _refusal("2 x 3", "x")
    assert read_number("120/3 TFLOP/s", "q", "TFLOP/s") == 40
