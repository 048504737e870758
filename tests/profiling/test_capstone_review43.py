"""Review 42f's items on the capstone's key (rooflinelib.profiling.capstone).  1: a fused kernel whose thread 0
calls cuda.syncthreads() under ``if t == 0:`` and the others under ``else:`` passed; a barrier under a branch
that depends on the thread's index is undefined on a GPU, and the simulator cannot show it, so the key refuses
it from the source.  2: a race whose write is ``part[0] = m`` under ``if t == 0:`` was told to put the barrier
"after the loop that writes the shared array"; there is no loop, so it says "after the write"."""

import pytest

from support import simulated

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone  # noqa: E402
from rooflinelib.profiling.races import Race  # noqa: E402
from test_capstone_review32 import _body, _solution  # noqa: E402

FUSED_MAX = "    m = block_reduce(m, part, True)\n    s = float32(0)\n"
SERIAL = ("    part[t] = m\n    cuda.syncthreads()\n    if t == 0:\n        for i in range(1, cuda.blockDim.x):\n"
          "            m = max(m, part[i])\n        part[0] = m\n")
# the review's variants: each arm of `if t == 0:` has its own barrier; no barrier after thread 0 writes part[0]
SYNC_IN_BRANCH = SERIAL + ("        cuda.syncthreads()\n    else:\n        cuda.syncthreads()\n    m = part[0]\n"
                           "    cuda.syncthreads()\n    s = float32(0)\n")
NO_BARRIER_AFTER_WRITE = SERIAL + "    m = part[0]\n    cuda.syncthreads()\n    s = float32(0)\n"
MOVE_IT_OUT = "move the cuda.syncthreads() out of the branch"
AFTER_THE_WRITE = ("put a cuda.syncthreads() after the write and before any thread reads entries other threads "
                   "wrote")

# Run in a child with the simulator switched on, as a machine with no GPU runs the notebook.
IN_THE_SIMULATOR = r"""
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/profiling"]
from rooflinelib.profiling import capstone
from test_capstone_review32 import _solution
import test_capstone_review43 as here
out = {}
for key, variant in (("branch", here.SYNC_IN_BRANCH), ("write", here.NO_BARRIER_AFTER_WRITE)):
    k = _solution([(here.FUSED_MAX, variant)])
    got = capstone.check_kernels(k["three_pass_passes"], k["fused_passes"])
    out[key] = [[c.status, c.message] for c in got.checks]
print("RESULT " + json.dumps(out))
"""


@pytest.fixture(scope="module")
def simulated_run():
    from pathlib import Path
    return simulated.result(IN_THE_SIMULATOR, args=[Path(__file__).resolve().parents[1]])


# --- 1: a barrier under a thread-dependent branch ---------------------------------------------------

def test_a_barrier_in_each_arm_of_a_thread_branch_is_refused_in_the_simulator(simulated_run):
    (status3, _), (status, message) = simulated_run["branch"]
    assert (status3, status) == ("pass", "fail"), simulated_run["branch"]  # the old key: pass, pass
    assert message.startswith("your fused kernel's `cuda.syncthreads()` (line "), message
    assert "of fused_body) is inside `if t == 0:`, which depends on the thread's index" in message, message
    assert message.endswith(MOVE_IT_OUT), message


def _passes(src: str, **globs):
    from numba import cuda, float32
    fn = _body(src, cuda=cuda, float32=float32, **globs)
    return [(cuda.jit(fn), ())]


@pytest.mark.parametrize("src, header", [
    # a while over the thread's own columns: threads run it a different number of times
    ("def a_body(x):\n    t = cuda.threadIdx.x\n    c = t\n    while c < x.shape[1]:\n        cuda.syncthreads()\n"
     "        c += cuda.blockDim.x\n", "while c < x.shape[1]:"),
    # a name set from the index through another name, and cuda.grid
    ("def a_body(x):\n    t = cuda.threadIdx.x\n    lo = t * 4\n    if lo < 8:\n        cuda.syncthreads()\n",
     "if lo < 8:"),
    ("def a_body(x):\n    i = cuda.grid(1)\n    if i > 0:\n        pass\n    else:\n        cuda.syncthreads()\n",
     "if i > 0:"),
])
def test_a_barrier_under_a_thread_dependent_header_is_named(src, header):
    said = capstone._divergent_barrier(_passes(src))
    assert f"is inside `{header}`, which depends on the thread's index" in said and said.endswith(MOVE_IT_OUT), said


@pytest.mark.parametrize("src", [
    # the tree: a uniform step, its barrier inside the loop, the thread's test around the update only
    ("def a_body(part):\n    t = cuda.threadIdx.x\n    step = cuda.blockDim.x // 2\n    while step > 0:\n"
     "        if t < step:\n            part[t] = part[t] + part[t + step]\n        cuda.syncthreads()\n"
     "        step //= 2\n"),
    ("def a_body(x):\n    t = cuda.threadIdx.x\n    for k in range(x.shape[1] // cuda.blockDim.x):\n"
     "        cuda.syncthreads()\n"),
])
def test_a_barrier_every_thread_reaches_is_let_through(src):
    assert capstone._divergent_barrier(_passes(src)) == ""


def test_the_model_solution_has_no_divergent_barrier():
    k = _solution()
    for key in ("three_pass_passes", "fused_passes"):
        assert capstone._divergent_barrier(k[key](capstone.softmax_buffers())) == "", key


# --- 2: "after the write" where the write is not in a loop ------------------------------------------

def test_a_race_on_thread_zero_s_write_says_after_the_write_in_the_simulator(simulated_run):
    (status3, _), (status, message) = simulated_run["write"]
    assert (status3, status) == ("pass", "fail"), simulated_run["write"]
    assert "`part[0] = m`" in message and "`m = part[0]`" in message, message
    assert message.endswith(AFTER_THE_WRITE), message  # the old key: "after the loop that writes ..."


def test_a_write_in_a_loop_keeps_the_loop_wording():
    k = _solution([(FUSED_MAX, NO_BARRIER_AFTER_WRITE)])
    passes = k["fused_passes"](capstone.softmax_buffers())
    alone = capstone._race_hint(Race(0, 1, 2, "part[0] = m", "m = part[0]", "read after write"), passes)
    assert alone.endswith(AFTER_THE_WRITE), alone
    looped = capstone._race_hint(Race(0, 1, 2, "row[c] = x[r, c]", "m = max(m, row[c])", "read after write"), passes)
    assert "after the loop that writes the shared array" in looped, looped
