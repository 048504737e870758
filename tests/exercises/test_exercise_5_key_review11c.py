"""Exercise 5's key after review 11c: drill 3 gives the FLOPs, the bytes, P and B, so its
intensity and ridge checks get no FMA/copy factor-of-2 hint (K11c-1), and an inverted answer
hears which quotient it is."""
import pytest

from rooflinelib.exercises import ex05_drills as ex05

FMA_HINT = "one fused multiply-add is 2 FLOPs"


@pytest.mark.parametrize("wrong", [10, 40])
@pytest.mark.parametrize("index", [0, 1])
def test_drill_3_intensity_and_ridge_slips_by_two_get_no_fma_or_copy_hint(index, wrong):
    answers = [20, 20, 60, 0.2, "unmodelled", "profile"]
    answers[index] = wrong
    message = ex05.check_drill3(*answers).checks[index].message
    assert FMA_HINT not in message and "copy both" not in message
    assert "your value is too" in message


def test_drill_3_inverted_intensity_and_ridge_hear_which_quotient():
    check = ex05.check_drill3(0.05, 0.05, 60, 0.2, "unmodelled", "profile")
    assert check.checks[0].message == "the intensity is the FLOPs divided by the bytes"
    assert check.checks[1].message == "the ridge is P divided by B"


def test_drill_3_key_still_passes():
    assert ex05.check_drill3(20, 20, 60, 0.2, "unmodelled", "profile").passed
