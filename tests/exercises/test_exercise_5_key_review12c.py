"""Exercise 5's key after review 12c: a rate in FLOP/s or GFLOP/s hears the unit it should be in
(K12c-1), a speedup of 1 hears the memory-bound misconception (K12c-2), model answer 5 names the
commonest real cause (K12c-3), and the key's source carries no review IDs (K12c-4)."""
import inspect
import re

import pytest

from rooflinelib.exercises import ex05_drills as ex05

UNIT = "the question asks for TFLOP/s"


@pytest.mark.parametrize("rate", [120e12, 120e3])
def test_drill_2_rate_in_another_unit_names_tflops(rate):
    assert ex05.check_drill2(300, "memory", rate, 0.133).checks[2].message == UNIT


@pytest.mark.parametrize("rate", [60e12, 60e3])
def test_drill_3_roof_in_another_unit_names_tflops(rate):
    check = ex05.check_drill3(20, 20, rate, 0.2, "unmodelled", "profile")
    assert check.checks[2].message == UNIT


def test_drill_4_speedup_of_one_hears_what_sets_a_memory_bound_time():
    message = ex05.check_drill4(0.125, 0.625, "memory", 1).checks[3].message
    # review 19g2 K5-2: it asks what sets the time and names no side (the side check's answer)
    assert "same" in message and "F/P and M/B" in message and "memory" not in message


def test_keys_still_pass():
    assert ex05.check_drill2(300, "memory", 120, 0.133).passed
    assert ex05.check_drill3(20, 20, 60, 0.2, "unmodelled", "profile").passed
    assert ex05.check_drill4(0.125, 0.625, "memory", 5).passed


def test_model_answer_5_names_size_shape_and_dtype():
    text, points = ex05.MODEL_ANSWERS[5]
    assert "different sizes, shapes or data types" in text
    assert any("size" in point and "data type" in point for point in points)


def test_key_source_names_no_review_ids():
    source = inspect.getsource(ex05)
    assert not re.search(r"review \d+|K\d+c?-\d|K-\d", source)
