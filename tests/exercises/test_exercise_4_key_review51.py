"""Key 4 after review 51: a bare "both" names no side, and the model answer opens with the direct
answer to Part C's question.  Each test fails on the key before this round."""
import pytest

from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises.grading import NOT_ANSWERED

from test_exercise_keys_review32b import made_up_setup

RECORDED = ex04.prepare("recorded", progress=None)
N = NOT_ANSWERED


def _sides(answer, setup=RECORDED):
    checks = ex04.check_placement(setup, N, N, N, answer, N, N, N, N, answer, N).checks
    return checks[3], checks[8]  # the reduction's side, the FMA kernel's side


@pytest.mark.parametrize("answer", ["both", "Both", " both "])
def test_a_bare_both_is_not_the_ridge_and_hears_why(answer):
    for check in _sides(answer):
        assert check.status == "fail", check
        assert check.message.startswith("'both' names no side of the ridge"), check.message
        assert "\n" not in check.message


@pytest.mark.parametrize("answer", ["both roofs are close", "both roofs bind", "at the ridge, both roofs are close",
                                   "ridge"])
def test_both_roofs_phrases_still_read_as_the_ridge(answer):
    reduction, fma = _sides(answer)
    assert fma.status == "pass", fma               # the FMA kernel sits in the band of P / C on the H200
    assert reduction.status == "fail" and "names no side" not in reduction.message


def test_both_is_not_offered_on_the_menu():
    # read only to give its hint: neither the menu nor the "is not one of" listing offers it
    assert "'both'" not in ex04._SIDES.menu() and ex04._SIDES.read("both") == "both"


@pytest.mark.parametrize("setup", [RECORDED, made_up_setup(35_600.0, 900.0, 556.0, 200.0)])
def test_the_model_answer_opens_with_the_direct_answer_to_part_c(setup):
    # Part C asks whether the FMA kernel gets the same verdict against the H200's datasheet and
    # against the loaded ceilings: the answer's first sentence says yes or no, and both verdicts
    shown = ex04.model_verdict(setup, "the verdict depends on the ridge of the machine, not the kernel")
    first = shown.model_answer.split(". Two points")[0]
    # review 58 k45: it opens with the answer to the question reveal() prints above it (the same
    # verdict against the datasheet and the loaded ceilings? on the recording, no), then the verdicts
    assert first.startswith("No, a different verdict: against the H200's datasheet ridge")
    assert "the FMA kernel is" in first and "on the ceilings loaded here" in first
    assert not any("datasheet ridge" in aside for aside in shown.also)
