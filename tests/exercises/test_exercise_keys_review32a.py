"""Keys 1, 2 and 3 after review 31k1.  Each test calls a check with an answer the review tried and
fails on the key before this round."""
from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises.grading import AnswerError, read_number

import pytest


def _message(answer, unit="TFLOP/s"):
    with pytest.raises(AnswerError) as caught:
        read_number(answer, unit=unit)
    return str(caught.value)


# --- fix 1: a formula with a call and a comma is no thousands slip (review 31k1, key 1 item 1) ----

def test_fix1_call_with_a_comma_says_plain_arithmetic_not_thousands():
    for answer in ("min(120, 20*3)", "min(120,20*3) TFLOP/s", "2*(3,4)"):
        message = _message(answer)
        assert "thousands" not in message, message
        assert "plain arithmetic only" in message and "without quotes" in message, message
    check = ex01.check_predictions("min(120, 20*3)", 120, 40, 120).checks[0]
    assert check.status == "invalid" and "without quotes" in check.message, check


def test_fix1_a_bare_comma_keeps_the_thousands_hint():
    for answer in ("1,20", "1,20 TFLOP/s"):
        message = _message(answer)
        assert "for thousands use 120000 or 120_000" in message, message
        assert "without quotes" not in message
    assert read_number("120,000", unit="TFLOP/s") == 120000
