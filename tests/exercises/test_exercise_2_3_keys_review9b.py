"""The keys of exercises 2 and 3 after review 9b: a rounded answer hears the precision wanted,
"batch" is refused for the tiny add, the menu's own words read, row 9 gives the exp rate its
"overlap" needs, and the exercises say "at the ridge" as notebook 03 defines it."""
from pathlib import Path

import nbformat
import pytest

from rooflinelib.core.model import RIDGE_TOLERANCE
from rooflinelib.exercises import ex02_classify as ex02, ex03_attention as ex03
from rooflinelib.exercises.grading import check_number

ROOT = Path(__file__).resolve().parents[2]


def _source(folder, name):
    return "\n".join(c.source for c in nbformat.read(str(ROOT / folder / name), as_version=4).cells)


def test_a_rounded_c1_answer_hears_the_precision_wanted():
    # K2-1: "12 ns" for 12.288 and 500 for 488 got only "your value is too low/high"
    c1 = ex02.check_tiny_launch(49152, "12 ns", 500, "launch", "amortize-launch").checks
    for check, direction in ((c1[1], "too low"), (c1[2], "too high")):
        assert check.status == "fail"
        assert "close" in check.message and "keep three significant figures" in check.message
        assert direction in check.message
    assert ex02.check_tiny_launch(49152, "12.3 ns", 488, "launch", "amortize-launch").passed
    # a miss of a count, not a rounding, gets no rounding advice
    far = check_number(15, 12.288, "memory time", unit="ns")
    assert far.status == "fail" and "significant figures" not in far.message


def test_the_c1_question_asks_for_three_significant_figures():
    for folder in ("solutions", "exercises"):
        assert "Keep three significant figures." in _source(folder, "02_classify_kernels.ipynb"), folder


def test_c1_refuses_batch_for_an_add_whose_intensity_cannot_rise():
    # K2-2: the menu's batch is "a higher intensity"; a vector add's is one add per 12 bytes
    assert "(a higher intensity)" in ex02.FIRST_STEPS.options["batch"][0]
    check = ex02.check_tiny_launch(49152, 12.288, 488.3, "launch", "batch").checks[4]
    assert check.status == "fail"
    assert "cannot rise" in check.message and "another option" in check.message
    assert "amortize" not in check.message  # the hint does not name the answer
    for answer in ("amortize-launch", "cuda graphs", "fuse"):
        assert ex02.check_tiny_launch(49152, 12.288, 488.3, "launch", answer).checks[4].passed, answer
    solution = _source("solutions", "02_classify_kernels.ipynb")
    assert '"batch" and "fuse" pass too' not in solution


@pytest.mark.parametrize("answer", ["nothing left to delete", "Nothing left to delete.", "nothing to delete"])
def test_the_menus_own_words_read_as_score_bandwidth(answer):
    # K2-3: the meaning text "nothing left to delete" was CHECK YOUR INPUT
    assert ex02.FIRST_STEPS.options["score-bandwidth"][0].startswith("nothing left to delete")
    assert ex02.FIRST_STEPS.read(answer) == "score-bandwidth"
    assert ex02.check_row(2, 0.25, "memory", "memory", "memory", answer).passed


def test_row_9_gives_the_exp_rate_its_overlap_needs():
    # K2-4: "overlap" hid the exps under the MMAs at a rate the table did not give
    row = ex02._row(9)
    given = ex02.problem_table().note  # review 12b CK2-1: under the table, not in row 9's cell
    assert f"{ex02.MUFU_G_EXP_PER_S:,.0f} G exp/s" in given and "MUFU" in given and given.startswith("Row 9:")
    matrix_s = 4 * 128 / (ex02.MACHINE.ceiling("bf16-tensor").value * 1e9)  # one score's two GEMMs
    exp_s = 1 / (ex02.MUFU_G_EXP_PER_S * 1e9)
    assert exp_s / matrix_s == pytest.approx(0.5, abs=0.01)  # "half the matrix time", as on Hopper
    assert "overlap" in row.first_steps
    solution = _source("solutions", "02_classify_kernels.ipynb")
    assert "this exercise does not give its GPU's exp rate" not in solution
    assert "at 3,500 G exp/s takes half the time of its 4d = 512 FLOPs" in solution


def test_the_ridge_band_is_worded_as_notebook_03_defines_it():
    # K2-5: "(within 10% of it)" against notebook 03's ridge / 1.1 to 1.1 x ridge
    words = f"from ridge / {1 + RIDGE_TOLERANCE:g} to {1 + RIDGE_TOLERANCE:g} × ridge"
    assert words in " ".join(_source("notebooks", "03_ceilings.ipynb").split()).lower()
    for folder in ("solutions", "exercises"):
        text = " ".join(_source(folder, "02_classify_kernels.ipynb").split())
        assert "within 10% of it" not in text, folder
        assert f'`"ridge"` (at the ridge: {words}, about 10% either side)' in text, folder


def test_exercise_3_counts_the_exp_in_sm_clocks_per_score():
    # review 9b, exercise 3's clarity item: "both counted at one clock" was obscure
    # review 44k1: the paragraph is said after the student's take-away, beside the model one
    text = " ".join(ex03.model_takeaway("unfused levels off and fused grows with the length s").also)
    assert "both counted at one clock" not in text
    assert "two GEMMs, counted in SM clocks per score (notebook 02 computes it)" in text
