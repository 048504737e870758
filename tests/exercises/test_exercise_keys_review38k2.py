"""Review 38k2's items for exercise 4's key: the achieved rate given as the FMA kernel's roof, and
the 1/64-rate fp64 wording of the model answer."""
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises.grading import NOT_ANSWERED

RECORDED = ex04.prepare("recorded", progress=None)
FMA_ROOF = 7  # check_placement's arguments: the reduction's five, then the FMA kernel's


def _placement(index, answer, setup=RECORDED):
    args = [NOT_ANSWERED] * 10
    args[index] = answer
    return ex04.check_placement(setup, *args).checks[index]


def test_the_fma_kernels_achieved_rate_given_as_its_roof_is_named():
    # the same slip on the reduction was named; on the FMA kernel it heard only "too low"
    fma = ex04._keys(RECORDED)["fma"]
    for answer in (fma["achieved"], round(fma["achieved"]), f"{fma['achieved'] / 1e3:.2f} TFLOP/s"):
        check = _placement(FMA_ROOF, answer)
        assert check.status == "fail"
        assert check.message.startswith("that is the achieved rate, not the roof") and "I x C" in check.message
    assert _placement(FMA_ROOF, fma["roof"]).passed


def test_the_reductions_achieved_rate_hint_still_names_its_read_roof():
    red = ex04._keys(RECORDED)["reduction"]
    check = _placement(2, red["achieved"])
    assert check.message.startswith("that is the achieved rate, not the roof") and "I x R" in check.message


def test_the_slow_fp64_wording_says_a_small_factor():
    # P64 / 2 over R on common 1/64-rate parts is 0.3-0.8 against I = 0.25: up to 3x, not "close"
    text = " ".join(ex04.model_verdict(RECORDED, "the verdict depends on the ceilings' ridge, not the kernel").also)
    assert "adds-alone ridge comes within a small factor of its intensity" in text
    assert "comes close to its intensity" not in text
