"""Review 39f E1 on the capstone's key: a fused kernel whose load loop steps by a constant 32 read x
once at the simulator's 32 threads (the step is that block's) and passed, though at the stated 256
threads it reads each element 8 times; the fused kernel's x count now runs at the stated block too,
as the 3-pass version's does."""
import pytest

from support import simulated  # noqa: F401  (the simulator set up as test_capstone sets it up)

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone  # noqa: E402
from test_capstone_review32 import _solution  # noqa: E402

LOAD = "    for c in range(t, x.shape[1], cuda.blockDim.x):\n        row[c] = x[r, c]"
AT_THE_LIMIT = (capstone.LIMIT_ROWS, capstone.LIMIT_COLS)


def test_a_constant_step_in_the_fused_load_is_refused_at_the_stated_block():
    k = _solution([(LOAD, LOAD.replace("cuda.blockDim.x)", "32)"))])
    # at the simulator's 32 threads the step is the block's: one count there passed it
    assert capstone._once_rules(k["fused_passes"], capstone.SIM_SIZES[0]) == ""
    said = capstone._once_rules(k["fused_passes"], AT_THE_LIMIT, threads=capstone.LIMIT_THREADS)
    assert said.startswith("steps by a constant in `for c in range(t, x.shape[1], 32):`"), said
    assert "at 256 threads a block a step of 32 reads each element of x about 8 times" in said, said


def test_the_whole_check_refuses_it_and_passes_the_model():
    k = _solution([(LOAD, LOAD.replace("cuda.blockDim.x)", "32)"))])
    got = capstone.check_kernels(k["three_pass_passes"], k["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "fail"], got
    assert "your fused kernel steps by a constant" in got.checks[1].message, got
    model = _solution()
    assert capstone._once_rules(model["fused_passes"], AT_THE_LIMIT, threads=capstone.LIMIT_THREADS) == ""
