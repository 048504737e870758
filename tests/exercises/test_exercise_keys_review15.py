"""The keys of exercises 1, 2, 4 and 5 after read 15 (reviews 15b, 15c and 15e).

Exercise 1: an inverted ridge, a bare fraction lost and a percentage of the new rate get their
own hints; 1.47 and "32%" get one verdict. Exercise 2: row 4 says to count every thread's loads
as HBM traffic, and the coalescing-aware count (about twice the key) hears why it is refused;
C3's re-reads-only count gets its hint; Part C is five questions. Exercise 4: the reduction's
float64 adds reach at most half of the fp64 FMA peak P64, so P64 is an upper bound on its roof
and an answer against the adds' own roof passes. Exercise 5: drill 7's factor-2 hint names bytes
and FLOPs, model answers 1, 5 and 7 as the review asked, more spellings of "linear" and "max".
Each test fails on the key before this round."""
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED

ROOT = Path(__file__).resolve().parents[2]
N = NOT_ANSWERED


def _source(path):
    return "\n".join(c.source for c in nbformat.read(str(ROOT / path), as_version=4).cells)


# --- exercise 1 (review 15e) --------------------------------------------------------------------

def test_exercise_1_an_inverted_ridge_hears_b_over_p():
    report = ex01.check_ridges(1 / 40, 1 / 60)
    for check in report.checks:
        assert check.status == "fail" and "that is B / P; the ridge is P / B" in check.message
    assert ex01.check_ridges(40, 60).passed


@pytest.mark.parametrize("answer", [0.33, "0.333", 1 / 3])
def test_exercise_1_a_bare_fraction_lost_hears_write_it_with_percent(answer):
    check = ex01.check_slowdowns(answer, 1).checks[0]
    assert check.status == "fail" and "a share of the rate lost? Write it with %, as '33%'" in check.message


def test_exercise_1_the_new_rate_as_a_percentage_hears_what_a_percentage_means_here():
    check = ex01.check_slowdowns("66.7%", 1).checks[0]
    assert check.status == "fail" and "66.7% is the new rate as a share of the old" in check.message
    assert "share of the rate lost" in check.message
    assert ex01.check_slowdowns("33%", 1).passed and ex01.check_slowdowns("-33%", "1").passed


def test_exercise_1_a_factor_and_its_percentage_get_one_verdict_at_the_edge():
    # 1.47 is 2.0% below 1.5 and "32%" is 1 / 0.68 = 1.4706: both inside ±2%, edge included
    assert ex01.check_slowdowns(1.47, 1).checks[0].passed
    assert ex01.check_slowdowns("32%", 1).checks[0].passed
    assert ex01.check_slowdowns(1.53, 1).checks[0].passed
    # just outside, both ways of writing it fail
    assert not ex01.check_slowdowns(1.46, 1).checks[0].passed
    assert not ex01.check_slowdowns("31%", 1).checks[0].passed


# --- exercise 2 (review 15b) --------------------------------------------------------------------

def test_exercise_2_row_4_says_every_thread_load_counts_as_hbm_traffic():
    row = ex02._row(4)
    assert "count every thread's loads as HBM traffic (no coalescing, no cache)" in row.description
    assert "no cache keeps anything" not in row.description
    assert "count every thread's loads as HBM traffic" in str(ex02.problem_table())


@pytest.mark.parametrize("answer", [0.5, 0.485, "0.49"])
def test_exercise_2_row_4_coalescing_aware_count_hears_why(answer):
    check = ex02.check_row(4, answer, N, N, N, N).checks[0]
    assert check.status == "fail" and "lets a warp share its loads of A (coalescing)" in check.message
    assert "every thread's loads as HBM traffic" in check.message
    assert ex02.check_row(4, 0.25, "memory", "memory", "memory", "tile").passed
    # the FMA-as-one slip keeps its own hint
    assert "2 FLOPs" in ex02.check_row(4, 0.125, N, N, N, N).checks[0].message


def test_exercise_2_c3_re_reads_only_hears_the_first_pass_goes_through_l2():
    row_bytes = ex02.ROW_ELEMENTS * 4
    rereads = (ex02.ROW_PASSES - 1) * row_bytes  # 65,536 B
    assert rereads == 65_536
    check = ex02.check_cache_resident(rereads, N, N, N, N).checks[0]
    assert check.status == "fail" and "first pass's bytes reach the SM through the L2 as well" in check.message
    flops = ex02.ROW_ELEMENTS * ex02.ROW_PASSES * ex02.FLOPS_PER_ELEMENT_PER_PASS
    check = ex02.check_cache_resident(N, N, flops / rereads, N, N).checks[2]
    assert check.status == "fail" and "re-reads only" in check.message
    assert ex02.check_cache_resident(81_920, 16_384, 0.25, 1.25, "cache").passed


def test_exercise_2_part_c_is_five_questions_not_three_kernels():
    for path in ("solutions/02_classify_kernels.ipynb", "exercises/02_classify_kernels.ipynb"):
        intro = " ".join(nbformat.read(str(ROOT / path), as_version=4).cells[0].source.split())
        assert "Part C** is the important half: five questions, C1 to C5" in intro, path
        assert "three kernels where" not in intro, path
    assert "then five questions" in ex02.__doc__ and "three cases" not in ex02.__doc__


# --- exercise 4 (review 15b) --------------------------------------------------------------------

RECORDED = ex04.prepare("recorded", progress=None)


def test_exercise_4_the_model_answer_calls_p64_an_upper_bound_half_for_adds():
    red = ex04._keys(RECORDED)["reduction"]
    # review 19k2 (clarity): the note is two asides now, the roof and then the conversions
    note = ex04.model_verdict(RECORDED, "the ridge moves between machines, not the kernel").also[-2]
    note = " ".join(note.split())
    assert "at most the fp64 one, P64 = 33,423 GFLOP/s" in note
    assert "half that for adds alone" in note and "an add is 1" in note
    assert f"its ridge is at most P64 / R = {red['ridge']:.3g} FLOP/byte ({red['ridge'] / 2:.3g} for adds alone)" in note
    assert "its ridge is P64 / R" not in note
    assert "reach at most half" in str(RECORDED)


def test_exercise_4_the_key_computes_the_adds_roof_at_half_p64():
    red = ex04._keys(RECORDED)["reduction"]
    assert red["adds_peak"] == pytest.approx(RECORDED.fp64_gflops / 2)
    assert red["adds_ridge"] == pytest.approx(red["ridge"] / 2)
    # at 0.25 FLOP/byte both roofs are I x R; P64 / 2 as the roof hears the compute-roof hint
    names = [N] * 10
    names[2] = RECORDED.fp64_gflops / 2
    check = ex04.check_placement(RECORDED, *names).checks[2]
    assert check.status == "fail" and "compute roof of its float64 adds" in check.message


def test_exercise_4_where_the_adds_roof_differs_an_answer_against_it_passes():
    # a read ceiling so fast that I x R falls between P64 / 2 and P64: the two roofs differ
    fast = replace(RECORDED, dram_read_gbps=100_000.0)
    red = ex04._keys(fast)["reduction"]
    assert red["adds_roof"] < red["roof"] and red["adds_roof"] == pytest.approx(fast.fp64_gflops / 2)
    names = [N] * 10
    names[2], names[3] = red["adds_roof"], "compute"
    roof, side = ex04.check_placement(fast, *names).checks[2:4]
    assert roof.passed and "half of P64" in roof.message
    assert side.passed and "half of P64" in side.message
    names[2], names[3] = red["roof"], "memory"
    assert all(c.passed for c in ex04.check_placement(fast, *names).checks[2:4])
    names[2] = (red["roof"] + fast.fp64_gflops) / 2 * 1.5  # far from either
    assert not ex04.check_placement(fast, *names).checks[2].passed


def test_exercise_4_the_solution_says_p64_bounds_the_adds_roof():
    solution = " ".join(_source("solutions/04_place_your_kernel.ipynb").split())
    assert "its compute roof is at most P64 (half that for adds alone" in solution
    assert "its float64 adds meet the fp64 roof," not in solution
    for path in ("solutions/04_place_your_kernel.ipynb", "exercises/04_place_your_kernel.ipynb"):
        text = _source(path)
        assert "whose adds are float64 (an upper bound: an add is 1 FLOP, an FMA 2" in text, path


# --- exercise 5 (review 15c) --------------------------------------------------------------------

def test_exercise_5_drill_7_factor_two_hint_names_bytes_and_flops():
    fma_as_one = (2 * ex05.D7_HEAD_DIM + 5) / 8  # a matrix-product entry counted as d FLOPs
    message = ex05.check_drill7(fma_as_one, "linear").checks[0].message
    assert "recount the bytes per score" in message and "the FLOPs per score (2d" in message


def test_exercise_5_model_answer_7_says_hbm_bytes():
    text = " ".join(ex05.MODEL_ANSWERS[7][0].split())
    assert "HBM bytes grow only like s x d" in text and "its HBM bytes" in text


def test_exercise_5_model_answer_1_max_is_a_floor_either_way():
    text = " ".join(ex05.MODEL_ANSWERS[1][0].split())
    assert "If both go on at once" not in text
    assert ("Either way the kernel needs at least the longer of the two, max(F/P, M/B), and it "
            "reaches that floor only if the two overlap completely") in text


def test_exercise_5_model_answer_5_keeps_at_one_size_and_the_complex_convention():
    text, points = ex05.MODEL_ANSWERS[5]
    text = " ".join(text.split())
    assert "complex multiply-add is one operation or 8 real FLOPs" in text
    point = next(p for p in points if "explain 2x each" in p)  # review 34k2: 2:4 sparsity only
    assert point.startswith("at one size") and "complex multiply-add" in point


@pytest.mark.parametrize("answer", ["linear growth", "grows linearly with s", "linearly with s"])
def test_exercise_5_more_spellings_of_linear_pass(answer):
    assert ex05.check_drill7(64.6, answer).passed
    # but not "grows with s": a quadratic answer grows with s as well (review 46k1: it hears
    # "how fast?", the hint of growth without its rate)
    check = ex05.check_drill7(64.6, "grows with s").checks[1]
    assert check.status == "fail" and "how fast" in check.message


@pytest.mark.parametrize("answer", ["taking the larger of the two times", "the longer of the two"])
def test_exercise_5_the_larger_of_the_two_times_is_the_max(answer):
    assert ex05.check_drill1(answer, 2).checks[0].passed
