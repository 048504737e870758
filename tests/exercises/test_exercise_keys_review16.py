"""The keys of exercises 2, 4 and 5 after read 16 (reviews 16b and 16c).

Exercise 2: on a row that already runs on the matrix cores (rows 8 and 9), "use the tensor cores"
is no move and gets a hint; row 9's pass for the instruction mix names the exps on the MUFU.
Exercise 4: a "compute" or "memory" verdict for an intensity inside the band of the right ridge
hears about the band, not about B; the reduction's model answer calls P64 an upper bound that the
float32 -> float64 conversions may undercut, and says why the verdict holds anyway. Exercise 5:
drill 1 calls only the max a bound (the sum is the model's no-overlap time, no bound for a real
kernel), in its model answer, menu, question and hints; drill 7's model answer states the L2
caveat; drills 3, 4 and 7 get hints for foreseeable slips. Each test fails on the key before
this round."""
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED

ROOT = Path(__file__).resolve().parents[2]
N = NOT_ANSWERED


def _text(path):
    return " ".join(" ".join(c.source.split()) for c in nbformat.read(str(ROOT / path), as_version=4).cells)


def _first_move(number, answer):
    row = ex02._row(number)
    return ex02.check_row(number, row.intensity, N, N, N, answer).checks[-1]


# --- exercise 2 (review 16b, 1) -----------------------------------------------------------------

@pytest.mark.parametrize("answer", ["use tensor cores", "tensor cores", "matrix cores",
                                    "use matrix cores", "Tensor-Cores"])
def test_exercise_2_row_9_already_on_the_matrix_cores_refuses_them_with_a_hint(answer):
    check = _first_move(9, answer)
    assert check.status == "fail"
    assert "already runs on the matrix cores" in check.message and "MUFU" in check.message


@pytest.mark.parametrize("answer", ["tensor cores", "use matrix cores"])
def test_exercise_2_row_8_already_on_the_matrix_cores_refuses_them_with_a_hint(answer):
    check = _first_move(8, answer)
    assert check.status == "fail" and "already runs on the matrix cores" in check.message


def test_exercise_2_row_9_instruction_mix_pass_names_the_exp_change():
    check = _first_move(9, "instruction mix")
    assert check.passed
    assert "fewer MUFU exps" in check.message.replace("Fewer", "fewer")
    assert "polynomials on the FMA units" in check.message
    assert _first_move(9, "overlap").passed


def test_exercise_2_only_rows_on_the_matrix_cores_refuse_them():
    # row 7 (fp32 on the vector units) still takes the matrix cores as its move
    assert _first_move(7, "tensor cores").passed and _first_move(7, "instruction mix").passed
    for row in ex02.ROWS:
        assert bool(row.on_matrix_cores_hint) == (row.roof == ex02.BF16_TENSOR)


# --- exercise 4 (review 16b, 1 and 2) -----------------------------------------------------------

RECORDED = ex04.prepare("recorded", progress=None)


def _fma_side(setup, answer):
    names = [N] * 10
    names[8] = answer
    return ex04.check_placement(setup, *names).checks[8]


@pytest.mark.parametrize("answer", ["compute", "memory"])
def test_exercise_4_fma_inside_the_band_hears_about_the_band_not_b(answer):
    fma = ex04._keys(RECORDED)["fma"]
    assert fma["side"] == "ridge" and fma["side_b"] == "compute"
    check = _fma_side(RECORDED, answer)
    assert check.status == "fail"
    # review 19k2 K4-6: the hint names the band around P / C without stating the side
    assert "P / C = 15.4" in check.message and "counts as at the ridge" in check.message
    assert "against B" not in check.message
    assert _fma_side(RECORDED, "ridge").passed


def test_exercise_4_fma_right_only_against_b_outside_the_band_still_hears_b():
    slow_copy = replace(RECORDED, dram_copy_gbps=3000.0)  # P / C far right of 16: memory
    fma = ex04._keys(slow_copy)["fma"]
    assert fma["side"] == "memory" and fma["side_b"] == "compute"
    check = _fma_side(slow_copy, "compute")
    assert check.status == "fail" and "against B" in check.message


def test_exercise_4_reduction_inside_its_band_hears_about_the_band():
    # a read ceiling at which 0.25 FLOP/byte sits at P64 / R
    at_ridge = replace(RECORDED, dram_read_gbps=RECORDED.fp64_gflops / 0.25)
    red = ex04._keys(at_ridge)["reduction"]
    assert red["side"] == "ridge"
    names = [N] * 10
    names[3] = "memory"
    check = ex04.check_placement(at_ridge, *names).checks[3]
    # review 19k2 K4-6: the hint names the band around P64 / R without stating the side
    assert "P64 / R = 0.25" in check.message and "counts as at the ridge" in check.message


def test_exercise_4_model_answer_says_p64_is_an_upper_bound_and_the_verdict_holds():
    note = " ".join(ex04.model_verdict(RECORDED, "the ridge moves between machines, not the "
                                                 "kernel").also[-1].split())
    assert "far below either compute roof" not in note
    assert "P64 is an upper bound" in note and "float32 -> float64 conversion (one F2F" in note
    assert "may bind lower" in note
    assert "The verdict holds either way: the run reached 1,090 GFLOP/s, 97% of I x R" in note


# --- exercise 5 (review 16c) --------------------------------------------------------------------

def test_exercise_5_drill_1_only_the_max_is_a_bound():
    text, points = ex05.MODEL_ANSWERS[1]
    text = " ".join(text.split())
    assert "<= time <= F/P + M/B" not in text and "upper estimate" not in text
    assert "Only the max is a bound, a lower one" in text
    assert "a real kernel can take longer still" in text and "so the sum is no bound" in text
    assert not any("upper estimate" in p for p in points)
    assert any("it is no bound" in p for p in points)
    assert "upper" not in ex05.BOUNDS.options["sum"][0] and "no bound" in ex05.BOUNDS.options["sum"][0]
    for path in ("solutions/05_conceptual_drills.ipynb", "exercises/05_conceptual_drills.ipynb"):
        assert "pessimistic" not in _text(path).split("## Drill 2")[0]
    assert "pessimistic" not in ex05.check_drill1("max", 0.5).checks[1].message
    assert "pessimistic" not in ex05.check_drill1("max", 2).checks[1].question
    assert ex05.check_drill1("the larger", 2).passed


def test_exercise_5_drill_7_states_the_l2_caveat_and_hints_constant():
    text = " ".join(ex05.MODEL_ANSWERS[7][0].split())
    assert "if the L2 (or on-chip memory) absorbs the re-reads of K and V" in text
    message = ex05.check_drill7(64.625, "constant").checks[1].message
    assert "Q, K, V and O each cross once" in message


def test_exercise_5_drill_3_no_overlap_rate_and_drill_4_one_kernels_flop_get_hints():
    roof = ex05.check_drill3(20, 20, 30, 0.2, "unmodelled", "profile").checks[2]
    assert roof.status == "fail" and "the rate with no overlap" in roof.message
    fused = ex05.check_drill4(0.125, 0.125, "memory", 5).checks[1]
    assert fused.status == "fail" and "still does every kernel's FLOPs" in fused.message


@pytest.mark.parametrize("path", ["solutions/04_place_your_kernel.ipynb", "exercises/04_place_your_kernel.ipynb"])
def test_exercise_4_notebook_says_the_conversions_may_bind_below_p64(path):
    text = _text(path)
    assert "FMA 2, and the conversions to float64 may bind lower)" in text
    if path.startswith("solutions"):
        assert "I x R is far below either" not in text
        assert "float32 -> float64 conversions may bind lower" in text
