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


# --- fix 2: key 2 row 7, a TF32 route is refused on a GPU with no TF32 roof (review 31k1 K2-1) ---

from rooflinelib.exercises import ex02_classify as ex02  # noqa: E402
from rooflinelib.core.model import Ceiling, Machine  # noqa: E402

TF32_SPELLINGS = ("tf32", "use tf32", "tf32 tensor cores", "use TF32 tensor cores", "TF32 matrix cores")


def _first_move(number, answer):
    return ex02.check_row(number, 4096 / 6, "compute", "compute", "compute", answer).checks[4]


@pytest.mark.parametrize("answer", TF32_SPELLINGS)
def test_fix2_row_7_refuses_tf32_on_a_gpu_with_no_tf32_roof(answer):
    assert not ex02.lists_tf32_roof()
    check = _first_move(7, answer)
    assert check.status == "fail", check
    assert check.message == "this GPU lists no TF32 roof: which matrix roof can it use?"
    # the bf16 route still passes
    for right in ("instruction-mix", "tensor cores", "smaller-dtype"):
        assert _first_move(7, right).passed


@pytest.mark.parametrize("answer", TF32_SPELLINGS)
def test_fix2_row_9_tf32_hears_it_already_runs_on_the_matrix_cores(answer):
    check = _first_move(9, answer)
    assert check.status == "fail" and check.message == ex02._row(9).on_matrix_cores_hint, check


@pytest.mark.parametrize("answer", TF32_SPELLINGS)
def test_fix2_tf32_passes_where_the_gpu_lists_a_tf32_roof(answer, monkeypatch):
    with_tf32 = Machine(name="exercise GPU with tf32", kind="example", source=ex02.SOURCE,
                        date="2026-11-30",
                        ceilings=(*ex02.MACHINE.ceilings,
                                  Ceiling("tf32-tensor", "compute", 450_000.0, ex02.SOURCE, "tf32 matrix")))
    monkeypatch.setattr(ex02, "MACHINE", with_tf32)
    assert ex02.lists_tf32_roof()
    assert _first_move(7, answer).passed


# --- fix 3: key 2 row 8, "instruction-mix" hears the row's own matrix-roof verdict (K2-2) ---------

def test_fix3_row_8_instruction_mix_hint_is_the_matrix_roof_verdict():
    projection = ex02._row(8)
    check = ex02.check_row(8, projection.intensity, "compute", "memory", "memory",
                           "instruction-mix").checks[4]
    assert check.status == "fail"
    assert check.message == ("against the matrix roof it is memory-bound: faster arithmetic buys no "
                             "time. What raises the FLOPs per weight byte?")
    assert "first check which side" not in check.message
