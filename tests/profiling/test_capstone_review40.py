"""Review 39f's E3 and E4 on the capstone's key.  E3: under NUMBA_ENABLE_CUDASIM=1 a @cuda.jit(device=True)
function is the simulator's FakeCUDAKernel, which keeps ``device`` outside ``targetoptions``, so
counting.fake_device_functions found none and a read of ``part[0]`` before block_reduce writes ``part``
again was told to put its barrier before the read.  E4: a hand-written tree with its barrier after the loop
was told "after the loop that writes the shared array"; the barrier belongs inside it, after each step."""

import pytest

from support import simulated

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone  # noqa: E402
from rooflinelib.profiling.races import Race  # noqa: E402
from test_capstone_review32 import _solution  # noqa: E402

FUSED_MAX = "    m = block_reduce(m, part, True)\n    s = float32(0)"
TREE = ("    part[t] = m\n    cuda.syncthreads()\n    step = cuda.blockDim.x // 2\n    while step > 0:\n"
        "        if t < step:\n            part[t] = max(part[t], part[t + step])\n")
# the review's variants: no barrier after `m = part[0]` (block_reduce then writes part), and the tree's
# barrier moved out of its loop
NO_FINAL_BARRIER = TREE + "        cuda.syncthreads()\n        step //= 2\n    m = part[0]\n    s = float32(0)"
BARRIER_AFTER_LOOP = (TREE + "        step //= 2\n    cuda.syncthreads()\n    m = part[0]\n    cuda.syncthreads()\n"
                      "    s = float32(0)")
AFTER_THE_READ = "put a cuda.syncthreads() after the last read of the entry and before the write that overwrites it"
INSIDE_THE_LOOP = "so put a cuda.syncthreads() inside the loop, after each step"
GENERIC = ("put a cuda.syncthreads() after the loop that writes the shared array and before any thread reads "
           "entries other threads wrote")
TREE_LINE = "part[t] = max(part[t], part[t + step])"

# Run in a child with the simulator switched on, as a machine with no GPU runs the notebook.
IN_THE_SIMULATOR = r"""
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/profiling"]
from rooflinelib.profiling import capstone
from rooflinelib.profiling.counting import fake_device_functions
from test_capstone_review32 import _solution
import test_capstone_review40 as here
out = {"found": sorted(name for _, name, _, _ in fake_device_functions(_solution()["fused_body"]).values())}
for key, variant in (("end", here.NO_FINAL_BARRIER), ("loop", here.BARRIER_AFTER_LOOP)):
    k = _solution([(here.FUSED_MAX, variant)])
    got = capstone.check_kernels(k["three_pass_passes"], k["fused_passes"])
    out[key] = [[c.status, c.message] for c in got.checks]
print("RESULT " + json.dumps(out))
"""


@pytest.fixture(scope="module")
def simulated_run():
    from pathlib import Path
    return simulated.result(IN_THE_SIMULATOR, args=[Path(__file__).resolve().parents[1]])


def test_the_simulator_s_device_functions_are_found(simulated_run):
    assert simulated_run["found"] == ["block_reduce"], simulated_run["found"]  # the old key found none


def test_a_read_before_block_reduce_writes_puts_the_barrier_after_the_read_in_the_simulator(simulated_run):
    (status3, _), (status, message) = simulated_run["end"]
    assert (status3, status) == ("pass", "fail"), simulated_run["end"]
    assert "(the write `part[t] = value`, the read `m = part[0]`)" in message, message
    assert message.endswith(AFTER_THE_READ), message  # the old key: GENERIC, a barrier before the read


def test_a_tree_with_its_barrier_after_the_loop_hears_inside_the_loop_in_the_simulator(simulated_run):
    (status3, _), (status, message) = simulated_run["loop"]
    assert (status3, status) == ("pass", "fail"), simulated_run["loop"]
    assert f"(the write `{TREE_LINE}`, the read `{TREE_LINE}`)" in message, message
    assert "between two steps of the loop `while step > 0:`" in message and message.endswith(INSIDE_THE_LOOP), message


@pytest.mark.parametrize("kind", ["write after read", "read after write"])
def test_a_tree_with_its_barrier_after_the_loop_hears_inside_the_loop(kind):
    # here (numba's dispatchers) block_reduce was found, and its own copy of the tree's line made the old key
    # say "after the last read"; in the simulator it said GENERIC
    k = _solution([(FUSED_MAX, BARRIER_AFTER_LOOP)])
    said = capstone._race_hint(Race(0, 1, 2, TREE_LINE, TREE_LINE, kind), k["fused_passes"](capstone.softmax_buffers()))
    assert said.endswith(INSIDE_THE_LOOP), said


def test_a_loop_that_holds_its_barrier_or_steps_by_the_thread_keeps_its_hint():
    # the model tree has its barrier inside: a race there is not this slip
    k = _solution([(FUSED_MAX, NO_FINAL_BARRIER)])
    passes = k["fused_passes"](capstone.softmax_buffers())
    assert capstone._loop_without_barrier(Race(0, 1, 2, TREE_LINE, TREE_LINE, "read after write"), passes) == ""
    # a loop over range(t, cols, cuda.blockDim.x) runs a different number of times per thread: no barrier in it
    model = _solution()["fused_passes"](capstone.softmax_buffers())
    race = Race(0, 1, 2, "row[c] = x[r, c]", "m = max(m, row[c])", "read after write")
    assert capstone._loop_without_barrier(race, model) == ""
    assert capstone._race_hint(race, model).endswith(GENERIC)
