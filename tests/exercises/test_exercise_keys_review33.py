"""Keys 2, 4 and 5 after reviews 33k1 and 33k2.  Each test calls a check (or the model answer) with
an answer or a setup the review tried, and fails on the key before this round."""
import pytest

from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED, AnswerError

from test_exercise_keys_review32b import made_up_setup

RECORDED = ex04.prepare("recorded", progress=None)


# --- key 2 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("which", [0, 1])
def test_c4_element_counts_hear_no_byte_prefix_hint(which):
    # 33k1 K2: 218,000 for 213,333 (2.2% off) heard the KiB/KB hint; an element count has no prefix
    dispatch, graph = ex02._launch_lengths()
    key = (dispatch, graph)[which]
    answers = [dispatch, graph]
    answers[which] = key * 1.024
    check = ex02.check_launch_length(*answers, 0.5).checks[which]
    assert check.status == "fail"
    assert "KiB" not in check.message and "prefix" not in check.message, check.message
    assert "not within ±2%" in check.message and "too high" in check.message, check.message
    answers[which] = key / 1.024
    low = ex02.check_launch_length(*answers, 0.5).checks[which]
    assert "KiB" not in low.message and "too low" in low.message, low.message


def test_c4_keeps_its_other_hints():
    dispatch, graph = ex02._launch_lengths()
    checks = ex02.check_launch_length(dispatch * 2, graph * 3, 0.5).checks
    assert "factor of 2" in checks[0].message
    assert "12 bytes" in checks[1].message
    assert ex02.check_launch_length(dispatch, "213 k elements", 0.5).passed


def test_nothing_alone_is_not_score_bandwidth():
    # 33k1 K2 (trivial): "nothing" could mean "nothing can be done"
    with pytest.raises(AnswerError):
        ex02.FIRST_STEPS.read("nothing")
    for words in ("nothing left to delete", "nothing to delete", "score-bandwidth"):
        assert ex02.FIRST_STEPS.read(words) == "score-bandwidth"


# --- key 4 ---------------------------------------------------------------------------------------

def _fma_fraction(answer):
    return ex04.check_placement(RECORDED, *([NOT_ANSWERED] * 9), answer).checks[-1]


@pytest.mark.parametrize("answer", [0.8, "80%", "0.80"])
def test_a_rounded_fma_fraction_hears_the_rounding_first(answer):
    # 33k2 item 1: 0.8 (a rounding of 0.822) was told it divided by I x C alone, and nothing else
    check = _fma_fraction(answer)
    assert check.status == "fail"
    assert "if you rounded" in check.message and "two more figures" in check.message, check.message
    assert "or did you divide by I x C alone" in check.message, check.message


@pytest.mark.parametrize("answer", [0.793, 0.79])
def test_the_i_times_c_fraction_keeps_its_named_hint(answer):
    check = _fma_fraction(answer)
    assert check.message.startswith("divide the achieved GFLOP/s by the roof you found above"), check.message
    assert "if you rounded" not in check.message
    assert _fma_fraction(0.82).passed


def _high_ridge_setup(p=80_000.0, r=880.0):
    """A live GDDR-like GPU whose fp32 ridge (about 91) is far right of the FMA kernel's 16."""
    return made_up_setup(p, r, reduction_gflops=200.0)


def test_far_left_of_the_ridge_is_said_as_a_ratio():
    # 33k2 item 2: "sits 83% left of it" where the intensity is 17% of the ridge
    text = ex04.model_verdict(_high_ridge_setup(), "the verdict depends on the ridge of the ceilings loaded here").model_answer
    assert "83% left" not in text and "% left of it" not in text.replace("(its intensity", ""), text
    assert "5.7× left of it (its intensity is 18% of the ridge)" in text, text


def test_near_the_ridge_still_a_percentage():
    text = ex04.model_verdict(RECORDED, "the verdict depends on the ridge of the ceilings loaded here").model_answer
    assert "×" not in text.split("P / C =")[1].split("band")[0]
    assert "4% right of it, inside the ±10% band" in text, text


def test_fma_bytes_12n_gets_a_named_hint():
    # 33k2 item 3: 12n bytes (y read as well as written) heard only "too high"
    check = ex04.check_accounting(NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, lambda n: 12 * n).checks[-1]
    assert check.status == "fail" and "12 bytes per element" in check.message, check.message
    assert ex04.check_accounting(NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, lambda n: 8 * n).checks[-1].passed


def test_reduction_fraction_against_the_copy_ceiling_is_named():
    # 33k2 item 3: the reduction's GB/s over C (1.02) heard only "too high"
    red = ex04._keys(RECORDED)["reduction"]
    wrong = red["gbps"] / RECORDED.copy_gbps
    args = [NOT_ANSWERED] * 10
    args[4] = wrong
    check = ex04.check_placement(RECORDED, *args).checks[4]
    assert check.status == "fail" and "copy ceiling C" in check.message, check.message
    args[4] = red["gbps"] / RECORDED.read_gbps
    assert ex04.check_placement(RECORDED, *args).checks[4].passed


# --- key 5 ---------------------------------------------------------------------------------------

def test_drill_1_says_which_assumption_the_bound_needs_not():
    text = ex05.model_answer(1, "the max of the two times, with overlap").model_answer
    assert "it holds with no assumption about overlap" in text


def test_drill_5_says_the_2x_rule_consistently():
    # 33k2 ex5 item 1: "at most 2x" then "can change it more"
    text = ex05.model_answer(5, "they may have counted bytes at different memory levels").model_answer
    assert "can change it more" not in text
    # review 34k2: 2x holds for 2:4 structured sparsity; unstructured differs by 1 / density
    # review 35k2 split the answer into two lists; the same three claims
    assert "2:4 structured sparsity counted or not by 2x" in text
    assert "Other conventions that can reach 8x:" in text
    assert "When none of the cases listed above applies, look first at the bytes for a gap of 8x" in text


@pytest.mark.parametrize("answer", [0.2, "20%"])
def test_drill_4_inverted_speedup_is_named(answer):
    # 33k2 ex5 item 3: 0.2 (after over before) heard only "too low"
    check = ex05.check_drill4(NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, answer).checks[-1]
    assert check.status == "fail" and "time before over the time after" in check.message, check.message
    assert ex05.check_drill4(NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, 5).checks[-1].passed
