"""Key 2 after review 42k1.  Each test calls row 9's check with what the review tried, and fails
on the key before this round (or pins what must keep passing beside the fix)."""
import pytest

from rooflinelib.exercises import ex02_classify as ex02

ROW_9 = ex02._row(9)
STEP_HINTS = {**ex02._DEFAULT_STEP_HINTS.get(ROW_9.verdict, {}), **ROW_9.step_hints}


def _first_move(answer):
    return ex02._check_first_step(ROW_9, answer, STEP_HINTS)


# --- key 2, error 1: load-only overlap on a compute-bound row hears which overlap helps -------

@pytest.mark.parametrize("answer", ["prefetch", "double buffering", "async copies",
                                    "Double-Buffering", "Async copies."])
def test_key2_row9_load_overlap_is_refused_with_the_exp_overlap(answer):
    check = _first_move(answer)
    assert check.status == "fail", check
    assert "loads already hide under the math" in check.message
    assert "exps" in check.message and "matrix multiplies" in check.message


# review 56k1: "pipelining" names the exp/MMA overlap too (FlashAttention-3), so it passes here
@pytest.mark.parametrize("answer", ["overlap", "overlap the softmax", "overlap softmax with mma",
                                    "ping-pong", "FlashAttention-3", "instruction mix", "pipelining",
                                    "software pipelining"])
def test_key2_row9_the_exp_overlap_still_passes(answer):
    assert _first_move(answer).passed, answer


def test_key2_load_overlap_still_passes_where_it_is_not_refused():
    # only row 9 carries the hint: on no other row does a load-overlap spelling hear it
    for row in ex02.ROWS:
        if row.number == 9:
            continue
        hints = {**ex02._DEFAULT_STEP_HINTS.get(row.verdict, {}), **row.step_hints}
        assert ROW_9.load_overlap_hint not in ex02._check_first_step(row, "prefetch", hints).message
