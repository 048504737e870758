"""Review 41f's items on the capstone's key (rooflinelib.profiling.capstone) and page: a pass that reads back
its own write is refused by a rule the page states, with the register form as the fix (E1); the exp's cost
is exact, with what ncu leaves out named (E2); the no-max hint offers no barrier guess when no race was
seen (E3); the verdict hint names each ridge's roof (E4); the 3.0 prediction's hint says "launches" plainly (E5)."""
from pathlib import Path

import nbformat
import pytest

from support import simulated  # noqa: F401  (the simulator set up as test_capstone sets it up)

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone, softmax_targets  # noqa: E402
from test_capstone_review32 import _solution  # noqa: E402
from test_capstone_review34 import SUM_AS_COMPUTED  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / folder / "06_place_your_kernel_capstone.ipynb" for folder in ("solutions", "exercises")]
# the reader's variant: the sum reads back, in the same loop, the e just written
SUM_READS_OWN_WRITE = "        e[r, c] = math.exp(x[r, c] - m)\n        s += e[r, c]\n"


def _markdown(path) -> list:
    return [c.source for c in nbformat.read(str(path), as_version=4).cells if c.cell_type == "markdown"]


# --- E1: the read-back of a pass's own write ---------------------------------------------------------

def test_the_page_states_the_rule_that_refuses_a_read_back():
    for page in PAGES:
        check = next(m for m in _markdown(page) if m.startswith("The check runs both versions"))
        traffic = next(line for line in check.splitlines() if line.startswith("- **Traffic:**"))
        assert "or read back what it writes" in traffic, page


def test_a_read_back_of_its_own_write_gets_the_rule_and_the_register_fix():
    wrong = _solution([(SUM_AS_COMPUTED, SUM_READS_OWN_WRITE)])
    said = capstone._pass_rereads(wrong["three_pass_passes"], capstone.SIM_SIZES[0])
    assert said.startswith("pass 2 (exp_sum_body) writes e and reads it back from global memory"), said
    assert "a pass never reads back what it writes (the traffic rule above)" in said, said
    assert "Keep each value in a register" in said and "(v = ...; e[r, c] = v)" in said, said
    assert "count e as read as well as written" in said, said
    # the odd reason: it counts e twice, so "once per launch, as if cached" is gone
    assert "as if cached" not in said and "once per launch" not in said, said


# --- E2: the exp's cost, exact ---------------------------------------------------------------------

def test_the_exp_cost_is_the_total_less_the_three_counted_flops():
    profiles, _ = capstone.recorded_pair()
    pair = capstone.recorded_softmax(profiles)
    per_element = pair["fused"].measured["fp32_flops"] / (pair["fused"].n_flops / 5)
    exp_cost = per_element - 3  # ncu counts fadd, fmul, ffma: the subtract, sum and multiply, not the max
    for page in PAGES:
        note = next(m for m in _markdown(page) if m.startswith("On the recorded pair ncu counts 13.4"))
        # review 51f, 10: the rest of the total bounds the exp, which shares it with the reciprocal and reductions
        assert f"leaves at most {exp_cost:.1f} per `exp`." in note and "about ten" not in note, page
        assert "not the max" in note and "less the subtract, sum and multiply" in note, page


# --- E3: no barrier guess when no race was seen -----------------------------------------------------

def test_the_no_max_hint_offers_no_barrier_guess():
    import numpy as np
    rows, cols = capstone.SIM_SIZES[0]
    x = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
    x[capstone.LARGE_ROW, capstone.LARGE_COL] += np.float32(capstone.LARGE_SHIFT)
    with np.errstate(all="ignore"):
        e = np.exp(x)  # float32 and no max subtracted: the large row's exp overflows to inf
        y = e / e.sum(axis=1, keepdims=True)
    said = capstone._wrong_output(y, x, capstone._max_error(y, x))
    assert "is the row's true maximum subtracted first)?" in said, said
    assert "syncthreads" not in said, said


# --- E4: each ridge named by its roof ---------------------------------------------------------------

def test_the_verdict_hint_says_which_ridge_is_which():
    from rooflinelib.modes import detect_mode
    lab1, _ = capstone.lab1_ceilings(detect_mode("recorded"))
    graded = capstone.recorded_softmax(capstone.recorded_pair()[0])
    got = capstone.check_verdicts({"3-pass": "compute", "fused": "compute"}, graded, lab1.machine,
                                  softmax_targets.ROWS, softmax_targets.COLS)
    printed = lab1.machine.roofline("fp32", "dram").ridge
    for check in got.checks:
        assert check.status == "fail", got
        # the printed roof is named by its mix (notebook 07 has no Part 3; the printed roof is the write's)
        assert "Part 3" not in check.message, check
        assert f"the ridge printed above, {printed:.3g} FLOP/byte (fp32 over the " \
               f"{lab1.machine.ceiling('dram').title} roof); its profile's side is " \
               "taken on the copy roof, 4,256 GB/s, whose ridge is 15.5 FLOP/byte" in check.message, check
        assert ": ridge 15.5)" not in check.message, check


# --- E5: the launches in plain words ----------------------------------------------------------------

def test_the_three_point_zero_hint_says_launches_plainly():
    said = capstone.check_prediction(3.0, 8, 256).message
    assert "the number of launches (3 against 1)" in said and "3 over 1" not in said, said
