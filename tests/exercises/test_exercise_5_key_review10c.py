"""Exercise 5's key after review 10c: drill 2 counts nothing, so none of its numbers gets the
FMA/copy factor-of-2 hint, and its ridge gets a units hint; drill 4's byte hints name what to
count, not the count; drill 7's factor of 2 speaks of the score matrices; drill 5's model answer
says a FLOP convention explains at most 2x, so an 8x gap comes from the bytes."""
import json
from pathlib import Path

import pytest

from rooflinelib.exercises import ex05_drills as ex05

ROOT = Path(__file__).resolve().parents[2]
FMA_HINT = "one fused multiply-add is 2 FLOPs"


@pytest.mark.parametrize("ridge, attainable, fraction", [(150, 240, 0.267), (600, 60, 0.0667)])
def test_drill_2_slips_by_two_get_no_fma_or_copy_hint(ridge, attainable, fraction):
    # K10c-1: P, B and I are given; the hint said to recount FMAs and a copy's bytes
    check = ex05.check_drill2(ridge, "memory", attainable, fraction)
    for i in (0, 2, 3):
        message = check.checks[i].message
        assert FMA_HINT not in message and "copy both" not in message
        assert "your value is too" in message


@pytest.mark.parametrize("ridge", [300_000, 0.3])
def test_drill_2_ridge_in_the_wrong_units_gets_the_units_hint(ridge):
    message = ex05.check_drill2(ridge, "memory", 120, 0.1333).checks[0].message
    assert message == "the ridge is P/B; check the units: TFLOP/s over TB/s"


def test_drill_2_key_still_passes():
    assert ex05.check_drill2(300, "memory", 120, 120 / 900).passed


@pytest.mark.parametrize("before, after", [(0.0625, 1.25), (0.25, 0.3125)])
def test_drill_4_byte_hints_do_not_state_the_count(before, after):
    # K10c-2: "8 bytes per element, for its one FLOP" gave away 1/8 (and 5/8)
    check = ex05.check_drill4(before, after, "memory", 5)
    for message in (check.checks[0].message, check.checks[1].message):
        assert "8 bytes" not in message and "what does it read, and what does it write?" in message


@pytest.mark.parametrize("limit", [128, 32.3])
def test_drill_7_factor_of_two_names_the_score_matrices(limit):
    # K10c-1: drill 7 got the FMA/copy hint
    message = ex05.check_drill7(limit, "linear").checks[0].message
    assert FMA_HINT not in message and "S and P are each written to HBM and read back" in message


def test_drill_7_key_still_passes():
    assert ex05.check_drill7(64.6, "linear").passed


def test_drill_5_model_answer_puts_an_8x_gap_on_the_bytes():
    # K10c-3: FLOP conventions were offered as the explanation of an 8x gap
    answer, points = ex05.MODEL_ANSWERS[5]
    assert "changes the count by 2x" in answer and "look first at the bytes for a gap of 8x" in answer
    assert "transcendentals" not in answer
    assert any("explain 2x each" in point for point in points)  # review 34k2: 2:4 sparsity only


def test_the_header_gives_the_fraction_tolerance():
    # K10c-4: a fraction typed as a percentage passes within 0.5 percentage points
    for path in ("solutions/05_conceptual_drills.ipynb", "exercises/05_conceptual_drills.ipynb"):
        nb = json.loads((ROOT / path).read_text())
        header = " ".join("".join(nb["cells"][0]["source"]).split())
        assert "fractions also within ±0.5 percentage points" in header, path
