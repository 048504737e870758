"""Exercise 2's key after review 13b (K2-1, K2-2)."""
import inspect

import pytest

from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises.grading import NOT_ANSWERED


@pytest.mark.parametrize("number, still", [(4, "read N times"), (5, "read N/b times")])
def test_a_smaller_type_is_not_the_first_move_for_a_gemm_that_re_reads(number, still):
    # K2-1: halving the bytes (2x) is refused before tiling deletes the N-fold re-reads; the hint
    # says why and names no option
    check = ex02.check_row(number, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED,
                           "smaller dtype").checks[4]
    assert check.status == "fail", check
    assert "bf16 halves the bytes" in check.message and still in check.message, check
    assert "tile" not in check.message and "tiling" not in check.message
    assert ex02.check_row(number, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED,
                          "tiling").checks[4].status == "pass"


def test_row_1_comment_places_the_add_between_the_read_and_copy_roofs():
    # K2-2: notebook 03 puts C = A + B between the read and copy roofs, not on the copy ceiling
    source = " ".join(inspect.getsource(ex02._rows).split())
    assert "score it against the copy ceiling" not in source
    assert "lie between the read and copy roofs" in source
