"""Exercise 3's checker after review 56k1: Part B reads the unit its question names, Part C a
"no" qualified by the question's own d (never another d), and Part B's menu says "levels off"."""
import json

import pytest

from rooflinelib.exercises import ex03_attention as ex03
from rooflinelib.exercises.grading import NOT_ANSWERED as N

# --- exercise 3 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("answer", ["0.505 FLOP/byte per token", "0.505 FLOP/B per token", "0.505 per token",
                                    "0.505 FLOP/byte/token", "0.505 flops/b per token"])
def test_part_b_reads_the_unit_its_question_names(answer):
    assert ex03.check_limits(N, N, N, answer).checks[3].passed


@pytest.mark.parametrize("answer", ["0.505 bytes per token", "0.505 FLOP/token"])
def test_part_b_per_token_after_another_unit_stays_unreadable(answer):
    assert ex03.check_limits(N, N, N, answer).checks[3].status == "invalid"


def test_part_b_per_token_does_not_pass_a_wrong_value():
    assert ex03.check_limits(N, N, N, "1.01 FLOP/byte per token").checks[3].status == "fail"


@pytest.mark.parametrize("answer", ["no at d=128", "no, at d = 128", "no (d=128)", "no (at d = 128)",
                                    "never (d=128)"])
def test_part_c_a_no_at_the_questions_own_d_reads_as_no(answer):
    assert ex03.check_crossover(N, N, answer, N, N).checks[2].passed


@pytest.mark.parametrize("answer", ["no at d=512", "no (d = 64)", "yes at d=128", "yes, at d = 512"])
def test_part_c_a_qualifier_never_passes_where_it_contradicts(answer):
    check = ex03.check_crossover(N, N, answer, N, N).checks[2]
    assert check.status == "fail", check
    if "128" not in answer:
        assert check.message.endswith("the question asks at d = 128; answer for that d")


def _part_b_markdown(path):
    cells = json.load(open(path))["cells"]
    return " ".join(" ".join("".join(c["source"]).split()) for c in cells
                    if c["cell_type"] == "markdown" and "## Part B" in "".join(c["source"]))


@pytest.mark.parametrize("path", ["solutions/03_attention_intensity.ipynb",
                                  "exercises/03_attention_intensity.ipynb"])
def test_part_b_offers_levels_off_and_the_checker_lists_it(path):
    text = _part_b_markdown(path)
    assert '`"levels off"` (tends to a constant)' in text
    assert '`"constant"`' not in text
    with pytest.raises(Exception) as raised:
        ex03.PART_B_GROWTH._read("something else")
    assert "'levels off', 'linear' or 'quadratic'" in str(raised.value)


@pytest.mark.parametrize("answer", ["levels off (tends to a constant)", "constant", *ex03.GROWTH.options["constant"][1]])
def test_part_b_every_spelling_of_constant_still_passes(answer):
    assert ex03.check_limits(answer, N, N, N).checks[0].passed
    assert ex03.check_limits(N, answer, N, N).checks[1].status == "fail"
