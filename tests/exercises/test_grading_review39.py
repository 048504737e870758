"""Review 39k1: a negated answer is not offered the option it denies as a 'did you mean'."""
import pytest

from rooflinelib.exercises import ex03_attention
from rooflinelib.exercises.grading import SIDES, AnswerError


def _message(choices, answer) -> str:
    with pytest.raises(AnswerError) as caught:
        choices._read(answer)
    return str(caught.value)


@pytest.mark.parametrize("choices, answer", [(SIDES, "not memory bound"), (SIDES, "non-compute"),
                                             (SIDES, "never compute"), (ex03_attention.GROWTH, "sublinear")])
def test_a_negated_answer_hears_no_suggestion(choices, answer):
    message = _message(choices, answer)
    assert "did you mean" not in message and "is not one of" in message, message


@pytest.mark.parametrize("choices, answer, meant", [(SIDES, "memroy", "memory"), (SIDES, "computee", "compute"),
                                                    (ex03_attention.GROWTH, "linearr", "linear")])
def test_a_typo_still_hears_the_option_it_is_near(choices, answer, meant):
    assert f"(did you mean {meant!r}?)" in _message(choices, answer)
