"""Review 34f's items on the capstone's key (rooflinelib.profiling.capstone): a pass 2 that reads back the e it
writes is refused before the byte step (its bytes would not match Part 2's count), and the fused kernel's
negative-row hint no longer offers the x[r, 0] start that its read-once rule refuses."""
import numpy as np
import pytest

from support import simulated  # noqa: F401  (the simulator set up as test_capstone sets it up)

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone  # noqa: E402
from test_capstone_review32 import _solution  # noqa: E402

SUM_AS_COMPUTED = ("        v = math.exp(x[r, c] - m)\n        e[r, c] = v\n        s += v\n")
SUM_READS_E = ("        e[r, c] = math.exp(x[r, c] - m)\n"
               "    for c in range(t, x.shape[1], cuda.blockDim.x):\n        s += e[r, c]\n")
ATOMIC_SUM = ("    s = block_reduce(s, part, False)\n    if t == 0:\n        sums[r] = s\n")
ATOMIC_SUM_NEW = ("    if t == 0:\n        sums[r] = float32(0)\n    cuda.syncthreads()\n"
                  "    cuda.atomic.add(sums, r, s)\n")


def test_a_pass_2_that_reads_back_its_e_is_refused_with_the_fix():
    # review 34f, E1: counted at 24 bytes an element, so the page's 20 got a "16 bytes, one array short" hint
    wrong = _solution([(SUM_AS_COMPUTED, SUM_READS_E)])
    said = capstone._pass_rereads(wrong["three_pass_passes"], capstone.SIM_SIZES[0])
    assert said.startswith("pass 2 (exp_sum_body) writes e and reads it back from global memory"), said
    assert "sum the values as you compute them" in said and "block_reduce" in said, said
    assert "count e as read as well as written" in said and "\n" not in said, said  # review 41f, E1


def test_the_model_and_the_other_right_styles_are_not_refused_as_re_reads():
    for replace in ((), [(ATOMIC_SUM, ATOMIC_SUM_NEW)]):
        k = _solution(replace)
        assert capstone._pass_rereads(k["three_pass_passes"], capstone.SIM_SIZES[0]) == "", replace
    loop = "    for c in range(t, x.shape[1], cuda.blockDim.x):\n"
    serial = _solution([(loop + SUM_AS_COMPUTED, "    if t == 0:\n        for c in range(x.shape[1]):\n"
                         + SUM_AS_COMPUTED.replace("        ", "            "))])  # thread 0 does the work
    assert capstone._pass_rereads(serial["three_pass_passes"], capstone.SIM_SIZES[0]) == ""


@pytest.mark.slow
def test_the_kernel_check_refuses_the_re_read_and_passes_the_model():
    good = _solution()
    wrong = _solution([(SUM_AS_COMPUTED, SUM_READS_E)])
    got = capstone.check_kernels(wrong["three_pass_passes"], good["fused_passes"])
    assert [c.status for c in got.checks] == ["fail", "pass"], got
    assert "reads it back from global memory" in got.checks[0].message, got
    atomic = _solution([(ATOMIC_SUM, ATOMIC_SUM_NEW)])
    got = capstone.check_kernels(atomic["three_pass_passes"], good["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "pass"], got


def test_the_fused_negative_row_hint_offers_only_minus_inf():
    # review 34f, E3: "or at the row's first value" was then refused by the fused kernel's read-once rule
    x = capstone.softmax_input(8, 256)
    x[capstone.NEGATIVE_ROW] -= np.float32(capstone.NEGATIVE_SHIFT)
    y = capstone.reference_softmax(x).astype(np.float32)
    y[capstone.NEGATIVE_ROW % len(y)] = np.nan
    three = capstone._wrong_output(y, x, 1.0)
    fused = capstone._wrong_output(y, x, 1.0, first_value=False)
    assert "-inf (float32(-math.inf)) or at the row's first value?" in three, three
    assert "-inf (float32(-math.inf))?" in fused and "first value" not in fused, fused
