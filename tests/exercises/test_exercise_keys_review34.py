"""Keys 4 and 5 after review 34k2.  Each test calls a check (or the model answer) with an answer or
a setup the review tried, and fails on the key before this round."""
import pytest

from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED

from test_exercise_keys_review32b import made_up_setup

RECORDED = ex04.prepare("recorded", progress=None)


# --- key 4 ---------------------------------------------------------------------------------------

def _reduction_fraction(answer):
    args = [NOT_ANSWERED] * 10
    args[4] = answer
    return ex04.check_placement(RECORDED, *args).checks[4]


@pytest.mark.parametrize("answer", [1.0, "100%", 1])
def test_fix1_a_round_reduction_fraction_hears_the_rounding_first(answer):
    # 34k2 item 1: 1.0 (a rounding of 0.968) was told "that is against the copy ceiling C"
    check = _reduction_fraction(answer)
    assert check.status == "fail"
    assert "if you rounded" in check.message and "two more figures" in check.message, check.message
    assert "or did you divide by the copy ceiling C" in check.message, check.message
    assert "setup.read_gbps" in check.message


def test_fix1_the_copy_ceiling_fraction_keeps_its_named_hint():
    red = ex04._keys(RECORDED)["reduction"]
    check = _reduction_fraction(round(red["gbps"] / RECORDED.copy_gbps, 3))
    assert check.message.startswith("that is against the copy ceiling C"), check.message
    assert _reduction_fraction(0.968).passed and _reduction_fraction("97%").passed


def _slow_fp64_setup(p=40_000.0, p64=400.0, r=880.0, achieved=198.0):
    """The review's synthetic GPU: 1/100-rate fp64, P64 = 400 GFLOP/s, R = 880 GB/s; the
    reduction runs at 198 GFLOP/s (90% of I x R = 220, 99% of P64 / 2 = 200)."""
    return made_up_setup(p, r, p64, achieved, name="made-up slow-fp64 GPU")


def test_fix2_slow_fp64_note_does_not_deny_the_adds_limit():
    # 34k2 item 4: "= P64 / 2 = 200 GFLOP/s for adds alone" then "no compute limit lies below its
    # memory roof"
    setup = _slow_fp64_setup()
    red = ex04._keys(setup)["reduction"]
    assert red["adds_roof"] < red["roof"]
    text = " ".join(ex04._reduction_roof_note(setup, red))
    assert "= P64 / 2 = 200 GFLOP/s for adds alone" in text, text
    # review 35k2 item 4 reworded the verdict sentence ("binds appreciably below"): neither form
    for claim in ("no compute limit lies below its memory roof",
                  "no compute limit binds appreciably below its memory roof"):
        assert claim not in text, text
    assert "99% of P64 / 2, the adds-alone roof that lies below its memory roof here" in text, text
    answer = ex04.model_verdict(setup, "the verdict depends on the ridge of the ceilings loaded here").model_answer
    assert "no compute limit" not in answer


def test_fix2_recorded_note_keeps_the_verdict_sentence():
    red = ex04._keys(RECORDED)["reduction"]
    text = " ".join(ex04._reduction_roof_note(RECORDED, red))
    assert "so no compute limit binds appreciably below its memory roof" in text, text  # review 35k2 item 4


def _fma_flops_check(function):
    return ex04.check_accounting(NOT_ANSWERED, NOT_ANSWERED, function, NOT_ANSWERED).checks[2]


@pytest.mark.parametrize("unit", ["FLOPs", "flops", "kFLOPs"])
def test_fix4_a_flop_count_may_say_flops(unit):
    # 34k2 item 2: "8192 FLOPs" was refused as a compute rate
    scale = 1000 if unit.startswith("k") else 1
    check = _fma_flops_check(lambda n: f"{128 * n / scale:g} {unit}")
    assert check.passed, check.message
    red = ex04.check_accounting(lambda n: f"{ex04.reduction_cost(n).n_flops} FLOPs", NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED)
    assert red.checks[0].passed, red.checks[0].message


@pytest.mark.parametrize("answer", ["FLOP/s", "FLOPs/s", "GFLOP/s"])
def test_fix4_a_rate_is_still_refused_for_a_count(answer):
    check = _fma_flops_check(lambda n: f"{128 * n} {answer}")
    assert not check.passed and check.status != "fail", check.message  # an input message
    if answer != "FLOPs/s":  # that one is an unknown unit, as before
        assert "rate" in check.message, check.message


def test_fix4_a_wrong_count_in_flops_still_hears_its_hint():
    check = _fma_flops_check(lambda n: f"{64 * n} FLOPs")
    assert check.status == "fail" and "2 FLOPs" in check.message, check.message


# --- key 5 ---------------------------------------------------------------------------------------

def test_fix3_drill_5_bounds_sparsity_by_2x_only_for_2_4():
    # 34k2 ex5 item 1: "at most 2x each" holds for 2:4 structured sparsity only
    text = ex05.model_answer(5, "they may have counted bytes at different memory levels").model_answer
    assert "at most 2x each" not in text and "Only two other" not in text, text
    assert "2:4 structured sparsity counted or not by 2x" in text
    assert "unstructured sparse kernel's dense-equivalent count differs by 1 / density" in text
    answer, points = ex05.MODEL_ANSWERS[5]
    assert any("2:4 sparsity" in p and "unstructured sparsity (1 / density)" in p for p in points)


@pytest.mark.parametrize("factor", [1000, 1 / 1000])
def test_fix5_drill_3_ridge_prefix_slip_gets_the_unit_hint(factor):
    # 34k2 ex5 item 2: 20,000 (TFLOP/s over GB/s) heard only "too high"
    ridge = ex05.check_drill3(NOT_ANSWERED, 20, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED)
    assert ridge.checks[1].passed
    check = ex05.check_drill3(NOT_ANSWERED, 20 * factor, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED,
                              NOT_ANSWERED).checks[1]
    assert check.status == "fail" and "TFLOP/s over TB/s" in check.message, check.message
