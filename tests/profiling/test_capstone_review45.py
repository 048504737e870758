"""Review 44f's items on the capstone's key (rooflinelib.profiling.capstone).  1: pass 1 written with
``range(t, x.shape[1], THREADS)`` was rightly refused, but the hint sent the student to block_reduce, which
they called right; the slip is the constant step, so a loop over the thread's columns whose step is a
constant other than the simulator's block is named first wherever the output is wrong.  2: a
``cuda.atomic.add`` into ``sums`` that nobody zeroed got the generic NaN hint; it names the atomic now.
3: a chunked (contiguous-per-thread) loop passes, as it should, and the passing result says such loads are
uncoalesced on a GPU.  The page's check cell (why 32 and 256) and FLOP note (what ncu counts, then the
arithmetic) are tightened, at no more words."""

import nbformat
import pytest

from support import simulated

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone  # noqa: E402
from test_capstone_review32 import SOLUTION, _body, _solution  # noqa: E402

ROW_MAX_LOOP = "    for c in range(t, x.shape[1], cuda.blockDim.x):\n        m = max(m, x[r, c])"
EXP_SUM_LOOP = "    for c in range(t, x.shape[1], cuda.blockDim.x):\n        v = math.exp"
EXP_SUM_END = "    s = block_reduce(s, part, False)\n    if t == 0:\n        sums[r] = s\n"
NORMALIZE_LOOP = "    for c in range(t, e.shape[1], cuda.blockDim.x):\n        y[r, c]"
ATOMIC = "    cuda.atomic.add(sums, r, s)\n"
ZEROED = "    if t == 0:\n        sums[r] = float32(0)\n    cuda.syncthreads()\n" + ATOMIC
CHUNKED = ("    per = (e.shape[1] + cuda.blockDim.x - 1) // cuda.blockDim.x\n"
           "    for c in range(t * per, min(e.shape[1], (t + 1) * per)):\n        y[r, c]")
# the review's variants, and two like the first (a step below the block, one in pass 2)
VARIANTS = {
    "threads": [(ROW_MAX_LOOP, ROW_MAX_LOOP.replace("cuda.blockDim.x)", "THREADS)"))],
    "sixteen": [(EXP_SUM_LOOP, EXP_SUM_LOOP.replace("cuda.blockDim.x)", "16)"))],
    "atomic": [(EXP_SUM_END, ATOMIC)],
    "zeroed": [(EXP_SUM_END, ZEROED)],
    "chunked": [(NORMALIZE_LOOP, CHUNKED)],
}

@pytest.fixture(scope="module")
def simulated_run():
    # in a child with the simulator switched on, as a machine with no GPU runs the notebook
    return simulated.three_pass_variants("test_capstone_review45")


def _three_pass(simulated_run, key):
    (status, message), (fused, _) = simulated_run[key]
    assert fused == "pass", simulated_run[key]
    return status, message


# --- 1: a constant step is named, not the reduction ---------------------------------------------------

def test_a_step_of_threads_in_pass_1_is_named_in_the_simulator(simulated_run):
    status, message = _three_pass(simulated_run, "threads")
    assert status == "fail", message
    # the old key: "maxima[r] is not the largest x[r, c] ... combined with block_reduce"
    assert "block_reduce" not in message and "maxima[r]" not in message, message
    assert ("the loop `for c in range(t, x.shape[1], THREADS):` (row_max_body) steps by 256, a constant, not the "
            "block's size: the simulator runs 32 threads a block, so the threads never reach columns 32-255 of "
            "each 256") in message, message
    assert message.endswith(capstone.STRIDE_FIX), message


def test_a_step_below_the_block_in_pass_2_is_named_in_the_simulator(simulated_run):
    status, message = _three_pass(simulated_run, "sixteen")
    assert status == "fail", message
    # the old key: "the ordinary rows' outputs are wrong: check the reductions"
    assert "check the reductions" not in message, message
    assert "(exp_sum_body) steps by 16, a constant" in message, message
    assert "several threads read (and write) the same columns" in message, message


def _passes(src: str):
    import math
    from numba import cuda, float32
    fn = _body(src, cuda=cuda, float32=float32, math=math, THREADS=256)
    return [(cuda.jit(fn), ())]


@pytest.mark.parametrize("src", [
    # the simulator's own block: right there; the count at the stated block refuses it (review 36f)
    "def a_body(x):\n    t = cuda.threadIdx.x\n    for c in range(t, x.shape[1], 32):\n        x[0, c] = 0\n",
    # a loop that is not over the thread's columns
    "def a_body(x):\n    for k in range(0, 8, 2):\n        x[0, k] = 0\n",
    # the block's size
    "def a_body(x):\n    t = cuda.threadIdx.x\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        x[0, c] = 0\n",
])
def test_steps_that_are_not_the_slip_are_left_to_the_other_checks(src):
    assert capstone._off_block_step(_passes(src)) == ""


def test_a_named_step_is_found_with_its_value():
    src = "def a_body(x):\n    t = cuda.threadIdx.x\n    for c in range(t, x.shape[1], THREADS):\n        x[0, c] = 0\n"
    passes = _passes(src)
    assert capstone._constant_step_loop(passes) == "for c in range(t, x.shape[1], THREADS):"
    assert capstone._constant_step_value(passes) == "256"  # the traffic hints said "a step of a constant"


def test_the_model_solution_has_no_off_block_step():
    k = _solution()
    for key in ("three_pass_passes", "fused_passes"):
        assert capstone._off_block_step(k[key](capstone.softmax_buffers())) == "", key


# --- 2: an atomic into an entry nobody zeroed ---------------------------------------------------------

def test_an_atomic_into_unzeroed_sums_is_named_in_the_simulator(simulated_run):
    status, message = _three_pass(simulated_run, "atomic")
    assert status == "fail", message
    assert "came out NaN: pass 2 (exp_sum_body) updates sums with `cuda.atomic.add(sums, r, s)`, which reads " \
           "sums[r] and adds to it, but nobody zeroed sums" in message, message
    assert "if t == 0: sums[r] = float32(0)" in message and "a cuda.syncthreads() before the atomics" in message
    assert "does a thread read a value before" not in message, message  # the old, generic hint


def test_the_atomic_with_its_zeroing_still_passes_in_the_simulator(simulated_run):
    status, message = _three_pass(simulated_run, "zeroed")
    assert status == "pass", message


def test_a_zeroed_atomic_is_not_named():
    buffers = capstone.softmax_buffers()
    for replace in ([(EXP_SUM_END, ZEROED)], ()):
        passes = _solution(replace)["three_pass_passes"](buffers)
        assert capstone._unset_atomic(passes, buffers) == "", replace


# --- 3: a chunked loop passes, with a word on coalescing ----------------------------------------------

def test_a_chunked_loop_passes_with_the_coalescing_note_in_the_simulator(simulated_run):
    status, message = _three_pass(simulated_run, "chunked")
    assert status == "pass", message  # correct, and the same bytes: still a pass
    assert "Note: the loop `for c in range(t * per, min(e.shape[1], (t + 1) * per)):` (normalize_body) gives " \
           "each thread a contiguous run of the row" in message, message
    assert "uncoalesced" in message and "range(t, cols, cuda.blockDim.x)" in message, message


def test_the_model_solution_gets_no_coalescing_note():
    k = _solution()
    for key in ("three_pass_passes", "fused_passes"):
        assert capstone._chunked_loop(k[key](capstone.softmax_buffers())) == "", key


# --- 4: the page -------------------------------------------------------------------------------------

PAGES = [SOLUTION, SOLUTION.parents[1] / "exercises" / SOLUTION.name]


def _markdown(path) -> list:
    return [c.source for c in nbformat.read(str(path), as_version=4).cells if c.cell_type == "markdown"]


def test_the_check_cell_says_where_32_and_256_come_from_in_one_sentence_a_rule():
    for page in PAGES:
        check = next(m for m in _markdown(page) if m.startswith("The check runs both versions"))
        items = {line.split("**")[1]: line for line in check.splitlines() if line.startswith("- **")}
        assert "three small ones at the simulator's 32 threads a block" in items["Sizes:"], page
        assert "256 threads" in items["Sizes:"], page
        # one rule a sentence: the old items joined two rules with "; " or ", and"
        assert ";" not in items["Range:"] and ", and a race" not in items["Intermediates and races:"], page
        assert items["Traffic:"].endswith("at either block size."), page
        assert "at 32 threads a block or at 256" not in check, page


def test_the_flop_note_says_what_ncu_counts_then_the_arithmetic():
    for page in PAGES:
        note = next(m for m in _markdown(page) if m.startswith("On the recorded pair ncu counts 13.4"))
        sentences = [s.strip() for s in note.split(". ") if s.strip()]
        assert sentences[1] == "It counts adds and multiplies, not the max", note  # the old: one sentence, a colon
        assert sentences[2].startswith("That total, less the subtract, sum and multiply, leaves at most"), note


def test_the_two_cells_did_not_grow():
    for page in PAGES:
        md = _markdown(page)
        check = next(m for m in md if m.startswith("The check runs both versions"))
        note = next(m for m in md if m.startswith("On the recorded pair ncu counts 13.4"))
        assert len(check.split()) + len(note.split()) <= 132 + 35, page  # the words before this round


def test_only_a_run_over_a_global_array_gets_the_note():
    head = "def a_body(x):\n    t = cuda.threadIdx.x\n    row = cuda.shared.array(64, float32)\n"
    shared = head + "    for c in range(t * 2, t * 2 + 2):\n        row[c] = 0\n"  # a bank question, not coalescing
    assert capstone._chunked_loop(_passes(shared)) == ""
    loads = head + "    for c in range(t * 2, t * 2 + 2):\n        row[c] = x[0, c]\n"
    assert capstone._chunked_loop(_passes(loads)) == "the loop `for c in range(t * 2, t * 2 + 2):` (a_body)"
