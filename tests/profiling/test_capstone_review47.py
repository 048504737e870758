"""Review 46f's items on the capstone's key (rooflinelib.profiling.capstone, solutions/06).  K1: a barrier
reached only under a thread-dependent branch was refused when cuda.syncthreads() was written in the branch,
but ``if t < x.shape[1]: m = block_reduce(...)`` passed; a call to a device function that holds a barrier now
counts as one.  K2: thread 0 walking the whole row passed with no word; the passing result says that on a GPU
one thread then does the block's work.  K3: a fused count of 12 bytes per element got only "too high"; it
asks what is counted twice.  N1: Part 4's copy roof comes from another Lab 1 run than Part 3's DRAM roof; the
page says so."""
import linecache

import nbformat
import pytest

from support import simulated

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone  # noqa: E402
from test_capstone_review32 import SOLUTION, _solution  # noqa: E402

ROW_MAX_END = "    m = block_reduce(m, part, True)\n    if t == 0:\n        maxima[r] = m\n"
GUARDED = "    if t < x.shape[1]:\n        m = block_reduce(m, part, True)\n    if t == 0:\n        maxima[r] = m\n"
NORMALIZE_LOOP = "    for c in range(t, e.shape[1], cuda.blockDim.x):\n        y[r, c] = e[r, c] * inv\n"
SERIAL = "    if t == 0:\n        for c in range(e.shape[1]):\n            y[r, c] = e[r, c] * inv\n"
VARIANTS = {"guarded": [(ROW_MAX_END, GUARDED)], "serial": [(NORMALIZE_LOOP, SERIAL)]}
MOVE_THE_CALL = "so move the call to block_reduce out of the branch"

@pytest.fixture(scope="module")
def simulated_run():
    # in a child with the simulator switched on, as a machine with no GPU runs the notebook
    return simulated.three_pass_variants("test_capstone_review47")


def _three_pass(simulated_run, key):
    (status, message), (fused, _) = simulated_run[key]
    assert fused == "pass", simulated_run[key]
    return status, message


# --- K1: a call to block_reduce under a thread-dependent branch ---------------------------------------

def test_block_reduce_under_a_thread_branch_is_refused_in_the_simulator(simulated_run):
    status, message = _three_pass(simulated_run, "guarded")
    assert status == "fail", message  # the old key: PASS
    assert message.startswith("your 3-pass kernel's `m = block_reduce(m, part, True)` (line "), message
    assert ("of row_max_body; block_reduce holds a cuda.syncthreads()) is inside `if t < x.shape[1]:`, which "
            "depends on the thread's index") in message, message
    assert message.endswith(MOVE_THE_CALL), message


def _namespace(src: str) -> dict:
    """``src`` run with its source readable, as a notebook cell's is, with cuda and float32 in scope."""
    from numba import cuda, float32
    name = f"<review47 {abs(hash(src))}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    namespace = {"cuda": cuda, "float32": float32}
    exec(compile(src, name, "exec"), namespace)
    return namespace


HOLDS = ("@cuda.jit(device=True)\ndef block_reduce(value, part, use_max):\n    t = cuda.threadIdx.x\n"
         "    part[t] = value\n    cuda.syncthreads()\n    return part[0]\n\n\n"
         "@cuda.jit(device=True)\ndef wrapped(value, part):\n    return block_reduce(value, part, True)\n\n\n"
         "@cuda.jit(device=True)\ndef plain(value):\n    return value * 2\n\n\n")


def _passes(body: str):
    from numba import cuda
    ns = _namespace(HOLDS + body)
    return [(cuda.jit(ns["a_body"]), ())]


@pytest.mark.parametrize("call", ["block_reduce(m, part, True)", "wrapped(m, part)"])
def test_a_call_that_reaches_a_barrier_under_a_thread_branch_is_named(call):
    fn = call.split("(")[0]
    body = ("def a_body(x):\n    t = cuda.threadIdx.x\n    part = cuda.shared.array(32, float32)\n"
            f"    m = x[0, t]\n    if t < x.shape[1]:\n        m = {call}\n    x[0, t] = m\n")
    said = capstone._divergent_barrier(_passes(body))
    assert said.startswith(f"`m = {call}` (line "), said
    assert f"; {fn} holds a cuda.syncthreads()) is inside `if t < x.shape[1]:`" in said, said
    assert said.endswith(f"so move the call to {fn} out of the branch"), said


@pytest.mark.parametrize("body", [
    # a device function with no barrier, under the branch
    "def a_body(x):\n    t = cuda.threadIdx.x\n    if t < x.shape[1]:\n        x[0, t] = plain(x[0, t])\n",
    # the barrier-holding call outside every thread-dependent branch
    ("def a_body(x):\n    t = cuda.threadIdx.x\n    part = cuda.shared.array(32, float32)\n"
     "    m = block_reduce(x[0, t], part, True)\n    if t == 0:\n        x[0, 0] = m\n"),
])
def test_calls_every_thread_reaches_or_without_a_barrier_are_let_through(body):
    assert capstone._divergent_barrier(_passes(body)) == ""


def test_a_syncthreads_written_in_the_branch_keeps_its_wording():
    body = "def a_body(x):\n    t = cuda.threadIdx.x\n    if t == 0:\n        cuda.syncthreads()\n"
    said = capstone._divergent_barrier(_passes(body))
    assert "holds a cuda.syncthreads()" not in said and said.endswith("move the cuda.syncthreads() out of the branch")


# --- K2: one thread walks the whole row --------------------------------------------------------------

def test_thread_zero_walking_the_row_passes_with_a_note_in_the_simulator(simulated_run):
    status, message = _three_pass(simulated_run, "serial")
    assert status == "pass", message
    # the old key: the plain PASS, no note
    assert ("Note: the loop `for c in range(e.shape[1]):` (normalize_body) walks the whole row in each thread "
            "that runs it: correct") in message, message
    assert "on a GPU that thread then does the block's work alone" in message, message


def test_loops_over_the_thread_s_columns_are_not_called_serial():
    k = _solution()
    for key in ("three_pass_passes", "fused_passes"):
        assert capstone._serial_loop(k[key](capstone.softmax_buffers())) == "", key
    chunked = ("def a_body(x):\n    t = cuda.threadIdx.x\n    per = (x.shape[1] + 31) // 32\n"
               "    for c in range(t * per, min(x.shape[1], (t + 1) * per)):\n        x[0, c] = 0\n")
    assert capstone._serial_loop(_passes(chunked)) == ""
    # a loop over shared memory only (the hand-written reduce of review 42f) touches no global array
    shared = ("def a_body(x):\n    t = cuda.threadIdx.x\n    part = cuda.shared.array(32, float32)\n"
              "    if t == 0:\n        for i in range(1, 32):\n            part[0] = part[0] + part[i]\n")
    assert capstone._serial_loop(_passes(shared)) == ""


# --- K3: the fused count of 12 bytes per element ------------------------------------------------------

def test_a_fused_count_of_12_bytes_per_element_asks_what_is_counted_twice():
    k = _solution()
    fused = {}
    for rows, cols in capstone.SIM_SIZES:
        b = capstone.softmax_buffers(rows, cols)
        fused[(rows, cols)] = capstone.count_passes(k["fused_passes"](b), rows, capstone.SIM_THREADS)
    assert capstone.check_byte_formula(lambda rows, cols: 8 * rows * cols, fused, "fused bytes").passed
    got = capstone.check_byte_formula(lambda rows, cols: 12 * rows * cols, fused, "fused bytes")
    assert got.status == "fail", got
    assert "that is 12 bytes per element, 4 too many: what is counted twice?" in got.message, got  # old: too high
    assert "reads x once from global memory" in got.message, got


# --- N1: two Lab 1 runs on one page --------------------------------------------------------------------

@pytest.mark.parametrize("page", [SOLUTION, SOLUTION.parents[1] / "exercises" / SOLUTION.name])
def test_part_4_says_its_copy_roof_is_another_run_s_than_part_3_s(page):
    nb = nbformat.read(str(page), as_version=4)
    part4 = next(c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## Part 4"))
    assert "scored against the copy roof of their own Lab 1 run, not the run Part 3 printed" in part4, part4
