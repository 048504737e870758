"""Review 51's items on the capstone's key (rooflinelib.profiling.capstone, solutions/06).  A fused kernel
loading x twice heard it "reads x 2 times from global memory"; it issues two loads per element, and the
second costs DRAM traffic only if the row left the cache.  Thread 0 alone walking the row in shared memory
passed with no note.  A prediction of 3.0 (24 bytes per element over 8) was not told its slip.  The loop
checks spelled out "an array indexed by the loop's column" twice; one helper now."""
import inspect

import pytest

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone  # noqa: E402
from test_capstone_review32 import _solution  # noqa: E402
from test_capstone_review47 import _passes  # noqa: E402

# the fused kernel's max taken by thread 0 alone, over the row in shared memory
MAX_LOOP = ("    for c in range(t, x.shape[1], cuda.blockDim.x):\n        row[c] = x[r, c]\n"
            "        m = max(m, row[c])\n    m = block_reduce(m, part, True)\n")
SERIAL_MAX = ("    for c in range(t, x.shape[1], cuda.blockDim.x):\n        row[c] = x[r, c]\n"
              "    cuda.syncthreads()\n    if t == 0:\n        for c in range(x.shape[1]):\n"
              "            m = max(m, row[c])\n        part[0] = m\n    cuda.syncthreads()\n    m = part[0]\n"
              "    cuda.syncthreads()\n")


def test_thread_zero_walking_the_shared_row_is_named():
    body = ("def a_body(x, y):\n    r, t = cuda.blockIdx.x, cuda.threadIdx.x\n    row = cuda.shared.array(64, float32)\n"
            "    cols = x.shape[1]\n    s = float32(0)\n    if t == 0:\n        for c in range(cols):\n"
            "            s += row[c]\n        y[r, 0] = s\n")
    assert capstone._serial_loop(_passes(body)) == "the loop `for c in range(cols):` (a_body)"


@pytest.mark.parametrize("body", [
    # a single thread summing a constant number of partials: not the row
    ("def a_body(x):\n    t = cuda.threadIdx.x\n    part = cuda.shared.array(32, float32)\n"
     "    if t == 0:\n        for i in range(1, 32):\n            part[0] = part[0] + part[i]\n"),
    # every thread over its own columns of the shared row
    ("def a_body(x):\n    t = cuda.threadIdx.x\n    row = cuda.shared.array(64, float32)\n"
     "    for c in range(t, x.shape[1], cuda.blockDim.x):\n        row[c] = row[c] * 2\n"),
])
def test_loops_that_are_not_one_thread_over_the_shared_row_are_let_through(body):
    assert capstone._serial_loop(_passes(body)) == ""


def test_the_solution_is_not_called_serial():
    k = _solution()
    for key in ("three_pass_passes", "fused_passes"):
        assert capstone._serial_loop(k[key](capstone.softmax_buffers())) == "", key


def test_a_fused_kernel_whose_thread_zero_reduces_the_shared_row_passes_with_the_note():
    good, serial = _solution(), _solution([(MAX_LOOP, SERIAL_MAX)])
    got = capstone.check_kernels(good["three_pass_passes"], serial["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "pass"], got
    assert ("Note: the loop `for c in range(x.shape[1]):` (fused_body) walks the whole row in each thread "
            "that runs it") in got.checks[1].message, got


def test_a_second_load_of_x_is_two_loads_not_two_dram_reads():
    good = _solution()
    twice = _solution([("        row[c] = math.exp(row[c] - m)\n", "        row[c] = math.exp(x[r, c] - m)\n")])
    message = capstone.check_kernels(good["three_pass_passes"], twice["fused_passes"]).checks[1].message
    assert "issues 2 loads of x per element" in message, message
    assert "from global memory" not in message and "reads x 2 times" not in message, message
    assert "only if the row no longer sits in the L1 or L2 cache (a hypothesis" in message, message


def test_a_prediction_of_three_names_24_bytes_per_element():
    said = capstone.check_prediction(3.0, 8, 256).message
    assert said.startswith("that counts the 3-pass version's bytes as 24 per element, one read or write too many"), said
    assert "20 bytes per element, over the fused kernel's 8" in said
    assert "the number of launches (3 against 1)" in said  # review 41f's plain words stay


def test_the_loop_checks_share_one_column_index_test():
    helper = "_indexes_by_loop("
    for fn in (capstone._chunked_loop, capstone._serial_loop):
        source = inspect.getsource(fn)
        assert helper in source and "i.id == node.target.id" not in source, fn.__name__


def test_a_bare_both_verdict_names_no_side():
    # as in key 4: "both" alone was read as the ridge; the phrases that name the ridge still do
    from rooflinelib.core.machines import get_machine
    h200 = get_machine("h200")
    got = capstone.check_verdicts({"3-pass": "both", "fused": "memory"}, {}, h200, 16384, 4096).checks
    assert got[0].status == "fail" and got[0].message.startswith("'both' names no side of the ridge"), got[0]
    assert got[1].status == "pass", got[1]
    assert capstone.VERDICT_SIDES.read("both roofs bind") == "ridge"
    assert "'both'" not in capstone.VERDICT_SIDES.menu()
