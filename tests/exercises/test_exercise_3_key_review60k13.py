"""Review 60k13, exercise 3: a right growth with a true comment ("linear (does not level off)",
"linear, keeps growing") was refused because the comment reads as the hidden option "unbounded",
which agrees with a growing option. Such comments now stand beside linear and quadratic; beside
"levels off" they still contradict it and are refused. The passing cases fail on the old key."""
import pytest

from rooflinelib.exercises import ex03_attention


def _ruling(unfused, fused):
    result = ex03_attention.check_limits(unfused, fused, 64.625, "0.505 FLOP/byte per token")
    return {c.question: c for c in result.checks}


@pytest.mark.parametrize("fused", ["linear (does not level off)", "linear, keeps growing",
                                   "linear (grows without bound)", "linear, unbounded"])
def test_a_linear_growth_with_a_true_comment_passes(fused):
    assert _ruling("levels off", fused)["fused intensity as s grows"].status == "pass"


@pytest.mark.parametrize("fused", ["quadratic (does not level off)", "levels off (keeps growing)"])
def test_a_wrong_growth_with_the_same_comment_still_fails(fused):
    assert _ruling("levels off", fused)["fused intensity as s grows"].status == "fail"


@pytest.mark.parametrize("unfused", ["levels off (keeps growing)", "levels off, unbounded"])
def test_the_comment_still_contradicts_levels_off(unfused):
    check = _ruling(unfused, "linear")["unfused intensity as s grows"]
    assert check.status == "fail" and "name 'unbounded', another option" in check.message
