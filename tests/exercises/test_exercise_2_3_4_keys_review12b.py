"""The keys of exercises 2, 3 and 4 after review 12b: exercise 2's score-bandwidth on rows that
can still batch or still delete bytes gets that row's reason; factor-of-2 slips in exercise 3's
Part B and exercise 4's reduction rate hear their own causes, not an FMA or a copy; the shown
kernel source is code without its docstring."""
import pytest

from rooflinelib.core import operators as ops
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex03_attention as ex03
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises.grading import NOT_ANSWERED

GENERIC_STEP = "try another option"
GENERIC_FACTOR = "a copy both reads and writes"


def _first_move(number, move):
    row = ex02._row(number)
    fp32 = ex02.check_row(number, row.op.intensity, "memory", "memory", "memory", move).checks[-1]
    return fp32


@pytest.mark.parametrize("number", [6, 8])
def test_score_bandwidth_on_a_row_that_can_batch_says_why_not(number):
    # K2-1: rows 6 and 8 read each weight once too, but their intensity rises with the batch
    row = ex02._row(number)
    check = ex02.check_row(number, row.op.intensity, "compute" if number == 8 else "memory",
                           "memory", "memory", "score-bandwidth").checks[-1]
    assert check.status == "fail", check
    assert GENERIC_STEP not in check.message and "already reads each weight once" in check.message
    assert "what makes one weight read serve more work?" in check.message


@pytest.mark.parametrize("number", [3, 4, 5])
def test_score_bandwidth_on_a_row_with_bytes_to_delete_says_so(number):
    check = _first_move(number, "score-bandwidth")
    assert check.status == "fail" and GENERIC_STEP not in check.message, check
    assert "moves its data through HBM more than once" in check.message


@pytest.mark.parametrize("number", [1, 2])
def test_score_bandwidth_still_passes_where_the_intensity_is_fixed(number):
    assert _first_move(number, "score-bandwidth").passed


def test_part_b_factor_two_slips_hear_attention_causes():
    # K3-1: attention copies nothing
    per_token = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype=ex03.DTYPE).intensity / ex03.SEQ_LEN
    limit = ops.attention_intensity_limit(ex03.HEAD_DIM, fused=False, dtype=ex03.DTYPE)
    half, double = (ex03.check_limits("constant", "linear", limit, v).checks[3] for v in (per_token / 2, per_token * 2))
    assert "2 FLOPs per multiply-add" in half.message and "bf16 element" in half.message
    assert "reads Q, K and V and writes O" in double.message
    low = ex03.check_limits("constant", "linear", limit / 2, per_token).checks[2]
    for check in (half, double, low):
        assert check.status == "fail" and GENERIC_FACTOR not in check.message, check


def test_reduction_rate_factor_two_hears_an_add_not_an_fma_or_a_copy():
    # K4-1: the achieved rate, like the intensity, has no FMA and no copy in it
    setup = ex04.prepare("recorded", progress=None)
    achieved = ex04._keys(setup)["reduction"]["achieved"]
    for value, words in ((2 * achieved, "an add is 1 FLOP"), (achieved / 2, "one per element")):
        check = ex04.check_placement(setup, NOT_ANSWERED, value, *([NOT_ANSWERED] * 8)).checks[1]
        assert check.status == "fail" and GENERIC_FACTOR not in check.message and words in check.message, check


def test_kernel_sources_show_code_without_docstrings():
    # CK4-2: the GPU FMA kernel's docstring (pitfalls, chunk layout) is not the student's business
    text = ex04.kernel_sources()
    assert '"""' not in text and "def sweep_pipelined_kernel" in text and "cuda.fma" in text


def test_the_problem_table_is_readable_width():
    # CK2-1: row 9's 180-character description wrapped the table; its schedule is a note under it
    table = str(ex02.problem_table())
    assert max(len(line) for line in table.splitlines() if not line.startswith("Row 9:")) <= 170  # was 259
    assert table.splitlines()[-1] == ex02.ROW_9_NOTE and "3,500 G exp/s" in ex02.ROW_9_NOTE
