"""Review 36f's items on the capstone's key (rooflinelib.profiling.capstone): a constant loop step passes
at the simulator's 32 threads, so the 3-pass re-read count runs at the stated block too (E1); an int start
later added a float and a float literal in arithmetic type float64 as ``s = 0.0`` does (E2); a chunked loop
that drops the row's tail fails at a size whose columns are not a multiple of the block (E3); a
write-after-read race puts the barrier after the read (E4)."""
import types

import pytest

from support import simulated  # noqa: F401  (the simulator set up as test_capstone sets it up)

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone  # noqa: E402
from rooflinelib.profiling.races import Race  # noqa: E402
from test_capstone_review32 import _solution  # noqa: E402

NORMALIZE_LOOP = "    for c in range(t, e.shape[1], cuda.blockDim.x):\n        y[r, c]"
ROW_MAX_LOOP = "    for c in range(t, x.shape[1], cuda.blockDim.x):\n        m = max(m, x[r, c])"
EXP_SUM_START = "    s = float32(0)\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        v"
INV = "    inv = float32(1) / sums[r]\n"
AT_THE_LIMIT = (capstone.LIMIT_ROWS, capstone.LIMIT_COLS)


def _rereads(k) -> str:
    return capstone._pass_rereads(k["three_pass_passes"], AT_THE_LIMIT, threads=capstone.LIMIT_THREADS)


# --- E1: a constant step ------------------------------------------------------------------------------

@pytest.mark.parametrize("old", [NORMALIZE_LOOP, ROW_MAX_LOOP])
def test_a_constant_step_of_32_is_refused_at_the_stated_block(old):
    k = _solution([(old, old.replace("cuda.blockDim.x)", "32)"))])
    # at the simulator's 32 threads the step is the block's: the old check's one count passed it
    assert capstone._pass_rereads(k["three_pass_passes"], capstone.SIM_SIZES[0]) == ""
    said = _rereads(k)
    assert "steps by a constant in `for c in range(t, " in said, said
    assert "stride by cuda.blockDim.x, not a constant: at the stated launch of 256 threads a step of 32 reads " \
           "each element of" in said and " about 8 times" in said, said


def test_a_constant_step_fails_the_whole_check():
    k = _solution([(NORMALIZE_LOOP, NORMALIZE_LOOP.replace("cuda.blockDim.x)", "32)"))])
    got = capstone.check_kernels(k["three_pass_passes"], k["fused_passes"])
    assert [c.status for c in got.checks] == ["fail", "pass"], got
    assert "pass 3 (normalize_body) steps by a constant" in got.checks[0].message, got


def test_the_right_strides_pass_the_count_at_the_stated_block():
    while_loop = ("    for c in range(t, e.shape[1], cuda.blockDim.x):\n        y[r, c] = e[r, c] * inv\n",
                  "    c = t\n    while c < e.shape[1]:\n        y[r, c] = e[r, c] * inv\n        c += cuda.blockDim.x\n")
    for replace in ((), [while_loop]):
        assert _rereads(_solution(replace)) == "", replace


# --- E2: float64 through an int start or a float literal -------------------------------------------

def test_an_int_start_added_a_float_is_refused_with_the_line_and_the_fix():
    k = _solution([(EXP_SUM_START, EXP_SUM_START.replace("float32(0)", "0"))])
    said = capstone._fp64_constant(k["three_pass_passes"](capstone.softmax_buffers()))
    assert said == ("exp_sum_body: the line `s = 0` starts s at an integer, and `s += v` adds a float to it, so "
                    "Numba types s float64 and what is built on it runs in fp64: start it at float32(0)"), said


def test_a_float_literal_in_arithmetic_is_refused_with_the_line_and_the_fix():
    k = _solution([(INV, INV.replace("float32(1)", "1.0"))])
    said = capstone._fp64_constant(k["three_pass_passes"](capstone.softmax_buffers()))
    assert said == ("normalize_body: the line `inv = 1.0 / sums[r]` uses 1.0, a float64 constant, in arithmetic, "
                    "so on the GPU it runs in fp64: write float32(1.0)"), said


def test_loop_counters_index_arithmetic_and_wrapped_literals_stay_allowed():
    while_loop = ("    for c in range(t, e.shape[1], cuda.blockDim.x):\n        y[r, c] = e[r, c] * inv\n",
                  "    c = 0\n    k = 0\n    while c + t < e.shape[1]:\n        y[r, c + t] = e[r, c + t] * inv\n"
                  "        c += cuda.blockDim.x\n        k += 1\n")
    wrapped = (INV, "    inv = float32(1.0 / 1) / sums[r]\n")
    for replace in ((), [while_loop], [wrapped]):
        k = _solution(replace)
        for passes in ("three_pass_passes", "fused_passes"):
            assert capstone._fp64_constant(k[passes](capstone.softmax_buffers())) == "", (replace, passes)


# --- E3: a row's tail ------------------------------------------------------------------------------

def test_a_size_whose_columns_are_not_a_multiple_of_the_block_is_checked():
    assert any(cols % capstone.SIM_THREADS for _, cols in capstone.CHECK_SIZES)
    assert capstone.CHECK_SIZES[:len(capstone.SIM_SIZES)] == capstone.SIM_SIZES


def test_a_chunked_loop_that_drops_the_tail_fails():
    chunks = (NORMALIZE_LOOP, "    n = e.shape[1] // cuda.blockDim.x\n"
                              "    for c in range(t * n, (t + 1) * n):\n        y[r, c]")
    k = _solution([chunks])
    got = capstone.check_kernels(k["three_pass_passes"], k["fused_passes"])
    assert got.checks[0].status == "fail", got
    assert got.checks[0].message.startswith("wrong output at 3 rows x 1000 columns: "), got


# --- E4: the write-after-read hint ------------------------------------------------------------------

def _war_body(part, t, s):
    m = part[0]
    part[t] = s
    return m


def _raw_body(part, t, s):
    part[t] = s
    m = part[0]
    return m


@pytest.mark.parametrize("kind", ["write after read", "read after write"])
def test_a_write_after_read_race_puts_the_barrier_after_the_read(kind):
    # the simulator's order (kind) may be either; the order the source runs the two lines decides
    race = Race(0, 1, 2, "part[t] = s", "m = part[0]", kind)
    said = capstone._race_hint(race, [(types.SimpleNamespace(py_func=_war_body), ())])
    assert said.endswith("put a cuda.syncthreads() after the last read of the entry and before the write that "
                         "overwrites it"), said
    said = capstone._race_hint(race, [(types.SimpleNamespace(py_func=_raw_body), ())])
    # no loop around the write: "after the write" (review 42f, 2)
    assert said.endswith("put a cuda.syncthreads() after the write and before any "
                         "thread reads entries other threads wrote"), said


# --- review 37f ------------------------------------------------------------------------------------
# E1: a `part` too small in the 3-pass kernels got CHECK YOUR INPUT with the counter's raw CountError;
# E2: a write-after-read race whose write is in block_reduce (called after the read) got the read-after-write
# barrier; E3: two wrong rows took "is".

ROW_MAX_PART = ("    part = cuda.shared.array(THREADS, float32)\n    m = float32(-math.inf)\n"
                "    for c in range(t, x.shape[1], cuda.blockDim.x):\n        m = max(m, x[r, c])")
PAST_THE_END = ("at the stated launch (1 row x 4,096 columns, 256 threads a block) "
                "the line `part[t] = value` indexes past an array's end")


def test_a_small_part_in_the_3_pass_kernels_gets_the_past_the_end_hint():
    k = _solution([(ROW_MAX_PART, ROW_MAX_PART.replace("(THREADS, float32)", "(32, float32)"))])
    said = _rereads(k)  # the old key let the counter's CountError escape here
    assert said.startswith(PAST_THE_END), said
    assert "a shared array indexed by the thread needs THREADS entries" in said and "CountError" not in said, said
    got = capstone.check_kernels(k["three_pass_passes"], k["fused_passes"])
    assert [c.status for c in got.checks] == ["fail", "pass"], got
    assert got.checks[0].message.startswith("right output, but " + PAST_THE_END), got


FUSED_MAX = "    m = block_reduce(m, part, True)\n    s = float32(0)"
NO_FINAL_BARRIER = ("    part[t] = m\n    cuda.syncthreads()\n    step = cuda.blockDim.x // 2\n    while step > 0:\n"
                    "        if t < step:\n            part[t] = max(part[t], part[t + step])\n"
                    "        cuda.syncthreads()\n        step //= 2\n    m = part[0]\n    s = float32(0)")


@pytest.mark.parametrize("kind", ["write after read", "read after write"])
def test_a_read_before_block_reduce_writes_puts_the_barrier_after_the_read(kind):
    k = _solution([(FUSED_MAX, NO_FINAL_BARRIER)])
    race = Race(0, 1, 2, "part[t] = value", "m = part[0]", kind)
    said = capstone._race_hint(race, k["fused_passes"](capstone.softmax_buffers()))
    assert said.endswith("put a cuda.syncthreads() after the last read of the entry and before the write that "
                         "overwrites it"), said


def test_a_missing_final_barrier_fails_with_the_barrier_after_the_read():
    k = _solution([(FUSED_MAX, NO_FINAL_BARRIER)])
    got = capstone.check_kernels(k["three_pass_passes"], k["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "fail"], got
    assert "(the write `part[t] = value`, the read `m = part[0]`)" in got.checks[1].message, got
    assert got.checks[1].message.endswith("after the last read of the entry and before the write that overwrites "
                                          "it"), got


def test_two_wrong_rows_take_are():
    import numpy as np
    b = capstone.softmax_buffers(8, 256)
    x = b["x"]
    x[capstone.LARGE_ROW, capstone.LARGE_COL] += np.float32(capstone.LARGE_SHIFT)
    x[capstone.NEGATIVE_ROW] -= np.float32(capstone.NEGATIVE_SHIFT)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    y = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    y[[capstone.LARGE_ROW, capstone.NEGATIVE_ROW]] = np.nan
    said = capstone._wrong_output(y, x, float("nan"))
    assert said.startswith(f"the ordinary rows are right, but rows {capstone.LARGE_ROW} (one element + 200: its exp "
                           f"overflows) and 7 (all values - 200: every exp underflows to 0) "
                           "are wrong or not finite: "), said
    y[capstone.NEGATIVE_ROW] = (e / e.sum(axis=1, keepdims=True))[capstone.NEGATIVE_ROW]
    said = capstone._wrong_output(y, x, float("nan"))
    assert said.startswith(f"the ordinary rows are right, but row {capstone.LARGE_ROW}, which holds one large value "
                           "(an element + 200), is wrong or not finite: "), said
