"""Keys after reviews 19g1 (exercises 2 and 3) and 19g2 (exercises 4 and 5).  Each test calls a
check with an answer the review tried, or reads the text it quoted, and fails on the key before
this round."""
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from rooflinelib.exercises import ex02_classify as ex02, ex03_attention as ex03
from rooflinelib.exercises import ex04_place_kernel as ex04, ex05_drills as ex05

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ex04.prepare("recorded", progress=None)


def _check(report, start):
    return next(c for c in report.checks if c.question.startswith(start))


def _cell(path, index):
    return nbformat.read(ROOT / path, as_version=4).cells[index].source


# --- exercise 4 ---------------------------------------------------------------------------

def _accounting(reduction_bytes):
    return ex04.check_accounting(lambda n: n - 1, reduction_bytes,
                                 lambda n: 2 * ex04.FMA_STEPS * n, lambda n: 8 * n)


def test_k4_1_eight_bytes_per_element_names_the_accumulator_too():
    check = _check(_accounting(lambda n: 8 * n), "reduction bytes")
    assert check.status == "fail"
    assert "accumulator" in check.message and "writes one number" in check.message
    assert _accounting(lambda n: 4 * n + 8).passed


def test_k4_2_the_sample_attempt_does_not_say_memory_bound_everywhere():
    text = _cell("solutions/04_place_your_kernel.ipynb", 14)
    assert "memory-bound everywhere" not in text
    assert "full- or half-rate fp64" in text and "1/64-rate" in text


def _slow_fp64(p64=400.0, read=1000.0):
    """Review 19g2's made-up GPU: 1/64-rate fp64, the adds alone binding below I x R."""
    machine = replace(RECORDED.machine, ceilings=tuple(
        replace(c, value=p64) if c.name == "fp64" else c for c in RECORDED.machine.ceilings))
    return replace(RECORDED, machine=machine, dram_read_gbps=read)


def test_k4_3_the_roof_note_gives_the_adds_alone_roof_where_it_binds():
    setup = _slow_fp64()
    red = ex04._keys(setup)["reduction"]
    assert red["adds_roof"] < red["roof"]
    note = " ".join(ex04._reduction_roof_note(setup, red))
    assert f"P64 / 2 = {red['adds_roof']:,.0f} GFLOP/s" in note
    assert f"its roof is I x R = {red['roof']:,.0f}" not in note
    # the recorded H200 keeps its I x R roof
    red = ex04._keys(RECORDED)["reduction"]
    assert f"its roof is I x R = {red['roof']:,.0f} GFLOP/s" in " ".join(
        ex04._reduction_roof_note(RECORDED, red))


def _placement(setup=RECORDED, **answers):
    k = ex04._keys(setup)
    red, fma = k["reduction"], k["fma"]
    args = dict(reduction_intensity=red["intensity"], reduction_gflops=red["achieved"],
                reduction_roof=red["roof"], reduction_side=red["side"],
                reduction_fraction_of_dram=red["gbps"] / setup.read_gbps,
                fma_intensity=fma["intensity"], fma_gflops=fma["achieved"], fma_roof=fma["roof"],
                fma_side=fma["side"], fma_fraction_of_roof=fma["fraction"])
    args.update(answers)
    return ex04.check_placement(setup, **args)


def test_k4_4_a_fraction_of_the_datasheet_bandwidth_is_not_called_b_alone():
    red = ex04._keys(RECORDED)["reduction"]
    check = _check(_placement(reduction_fraction_of_dram=red["gbps"] / 4800), "reduction bandwidth")
    assert check.status == "fail" and "datasheet" in check.message
    assert "read ceiling" in check.message


def test_k4_6_the_page_does_not_say_the_first_cell_measures_the_ceilings():
    for path in ("solutions/04_place_your_kernel.ipynb", "exercises/04_place_your_kernel.ipynb"):
        text = _cell(path, 0)
        assert "measures this machine's ceilings" not in text
        assert "stored Lab 1 result" in text and "recorded mode" in text


# --- exercise 5 ---------------------------------------------------------------------------

SUM_HINT = "adding the two times is the no-overlap case"


@pytest.mark.parametrize("answer", ["adding them", "sum of the two", "the sum", "add", "sum them",
                                    "adding the two times", "the sum of both", "summing",
                                    "sum of the two times", "add them"])
def test_k5_1_the_ways_to_say_sum_hear_the_sum_hint(answer):
    check = ex05.check_drill1(answer, 2).checks[0]
    assert check.status == "fail" and SUM_HINT in check.message


@pytest.mark.parametrize("answer", ["sum of teh two", "summ", "maxx", "adding teh times", "mux"])
def test_k5_1_no_fuzzy_match_names_an_option(answer):
    check = ex05.check_drill1(answer, 2).checks[0]
    assert "did you mean" not in check.message
    assert "'max' or 'sum'" in check.message


@pytest.mark.parametrize("call,answer", [
    (lambda a: ex05.check_drill6(a, 20 / 3).checks[0], "rigth"),
    (lambda a: ex05.check_drill7(64.625, a).checks[1], "quadratc"),
    (lambda a: ex05.check_drill3(20, 20, 60, 0.2, a, "profile").checks[4], "memroy"),
    (lambda a: ex05.check_drill3(20, 20, 60, 0.2, "unmodelled", a).checks[5], "fusee")])
def test_k5_1_no_drill_menu_guesses(call, answer):
    check = call(answer)
    assert check.status == "invalid" and "did you mean" not in check.message


def test_k5_2_the_speedup_of_one_hint_names_no_side():
    message = ex05.check_drill4(0.125, 0.625, "memory", 1).checks[3].message
    assert "memory" not in message and "compute" not in message
    assert "F/P and M/B" in message


def test_k5_3_quadratic_fused_growth_gets_exercise_3s_hint():
    message = ex05.check_drill7(64.625, "quadratic").checks[1].message
    assert message == ex03.GROWTH_QUADRATIC_HINT
    assert "bytes grow like s" in message


@pytest.mark.parametrize("drill,answer", [
    (3, "look past the roofline"), (3, "Nsight Compute"), (3, "ncu"), (3, "check the launch size"),
    (7, "increases linearly"), (7, "like s"), (7, "proportionally"),
    (6, "grows"), (6, "rightward"), (6, "to higher arithmetic intensity")])
def test_k5_4_right_answers_in_the_menus_words_pass(drill, answer):
    if drill == 3:
        check = ex05.check_drill3(20, 20, 60, 0.2, "unmodelled", answer).checks[5]
    elif drill == 7:
        check = ex05.check_drill7(64.625, answer).checks[1]
    else:
        check = ex05.check_drill6(answer, 20 / 3).checks[0]
    assert check.status == "pass", check.message


def test_k5_4_stays_the_same_is_read_and_refused():
    check = ex05.check_drill6("stays the same", 20 / 3).checks[0]
    assert check.status == "fail"


def test_k5_5_model_answer_1_says_the_max_is_a_bound_with_no_assumption():
    text, points = ex05.MODEL_ANSWERS[1]
    assert "because it assumes loads and arithmetic overlap perfectly" not in text
    assert "with no assumption" in text and "only with perfect overlap" in text
    assert "the max assumes perfect overlap" not in points


# --- exercise 3 ---------------------------------------------------------------------------

@pytest.mark.parametrize("unfused,fused", [
    ("tends to a constant", "grows in proportion to s"), ("approaches a constant", "linear growth"),
    ("constant (about d/2)", "linear")])
def test_k3_1_the_menus_own_words_pass(unfused, fused):
    report = ex03.check_limits(unfused, fused, ex03.ops.attention_intensity_limit(
        ex03.HEAD_DIM, fused=False, dtype=ex03.DTYPE), ex03.ops.attention(
        ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype=ex03.DTYPE).intensity / ex03.SEQ_LEN)
    assert report.checks[0].status == "pass" and report.checks[1].status == "pass"


def test_k3_1_grows_like_s_squared_is_read_as_quadratic():
    check = ex03.check_limits("grows like s squared", "linear", 64.6, 0.505).checks[0]
    assert check.status == "fail" and "ratio" in check.message


def test_k3_2_a_2d_minus_1_dot_product_is_not_told_its_gemms_are_right():
    check = ex03.check_flops(lambda s, d: 4 * s * s * d + 3 * s * s)
    assert check.status == "fail"
    assert "your two GEMMs are right" not in check.message
    assert "multiply-adds (2 FLOPs each" in check.message and "5 in all" in check.message


def test_k3_3_an_inverted_or_sparse_ridge_gets_a_hint():
    report = ex03.check_crossover(1 / 246.7, 489, "no", 2 * 206.1, 409)
    assert "B / P" in report.checks[0].message
    # review 39k1: given_machines() shows only the dense peak, so the hint is the neutral factor of 2
    assert "P / B, from the table's two numbers" in report.checks[3].message


def test_k3_4_an_s_from_a_rounded_ridge_hears_use_it_unrounded():
    check = ex03.check_crossover(246, 488, "no", 206.1, 409).checks[1]
    assert check.status == "fail" and "unrounded" in check.message


# --- exercise 2 ---------------------------------------------------------------------------

@pytest.mark.parametrize("answer", [0.069, "7%"])
def test_k2_1_fraction_of_the_peak_hears_one_diagnosis(answer):
    key_intensity, verdict, achieved = ex02._slow()
    check = ex02.check_far_below(key_intensity, verdict.roof_gflops / 1000, achieved / 1000,
                                 answer, "unmodelled", "profile").checks[3]
    assert check.status == "fail" and "compute peak" in check.message
    assert ex02._TWICE_OR_HALF not in check.message


def test_k2_2_row_8_overlap_is_not_called_far_left():
    check = ex02.check_row(8, 124.1, "compute", "memory", "memory", "overlap").checks[-1]
    assert check.status == "fail" and "far" not in check.message
    assert "already assumes loads and math overlap" in check.message


def test_k2_5_c3_latency_swap_and_elements_get_their_hints():
    n_flops, l2, hbm = ex02._cached()
    report = ex02.check_cache_resident(l2 / 4, hbm / 4, n_flops / hbm, n_flops / l2, "latency")
    assert all("elements, not bytes" in c.message for c in report.checks[:2])
    assert "divides by the HBM bytes" in report.checks[2].message
    assert "is not it" not in report.checks[4].message and "ceiling" in report.checks[4].message


def test_k2_6_a_ridge_off_by_two_is_not_told_to_redo_a_count():
    report = ex02.check_ridges(30, 150)
    assert all(ex02._TWICE_OR_HALF not in c.message and c.status == "fail" for c in report.checks)
    assert all("nothing is counted" in c.message for c in report.checks)


def test_k5_4_ratios_written_as_percentages_are_read():
    assert ex05.check_drill1("max", "200%").passed
    assert ex05.check_drill4(0.125, 0.625, "memory", "500%").passed
    assert ex05.check_drill6("right", "667%").passed
    assert ex05.check_drill4(0.125, 0.625, "memory", "100%").checks[3].status == "fail"
