"""Exercise 1's key after review 16a: the fourth point drawn at the wrong height is told where its
prediction is, not to "draw it too" (it is drawn)."""
import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01

from test_exercise_1_key_review15a import CEILINGS, TWENTY, _figure


def test_an_uncapped_fourth_point_is_told_to_cap_it_not_to_draw_it():
    # review 16a, problem 1: the 2 TB/s point at 80 FLOP/byte drawn at I x B = 160,000 GFLOP/s,
    # judged against its own roof; the old key said "no point ... draw it too, as a fourth point"
    check = ex01.check_figure(_figure(CEILINGS, TWENTY + [(80, 120e3, None), (80, 160e3, "dram-2tbs")]))
    assert check.status == "fail"
    assert "fourth point" not in check.message and "draw it too" not in check.message
    assert check.message == ("the point for 80 FLOP/byte at 2 TB/s sits at 160,000 GFLOP/s, but its "
                             "prediction is min(P, I x B) = 120,000 GFLOP/s: cap it at the compute roof")


def test_the_same_point_at_its_prediction_passes_and_a_missing_one_is_still_named():
    assert ex01.check_figure(_figure(CEILINGS, TWENTY + [(80, 120e3, None), (80, 120e3, "dram-2tbs")])).passed
    one = ex01.check_figure(_figure(CEILINGS, TWENTY + [(80, 120e3, None)]))
    assert "no point for 80 FLOP/byte at 2 TB/s: it coincides with the one at 3 TB/s" in one.message


def test_a_point_below_its_prediction_is_told_the_prediction_without_a_cap():
    check = ex01.check_figure(_figure(CEILINGS, TWENTY + [(80, 120e3, None), (80, 100e3, "dram-2tbs")]))
    assert "sits at 100,000 GFLOP/s, but its prediction is min(P, I x B) = 120,000 GFLOP/s" in check.message
    assert "cap it" not in check.message
