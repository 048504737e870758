"""Notebook 07, place your own kernel: what the capstone notebook calls.

The student writes a 3-pass and a fused softmax as Numba-CUDA kernels, counts their bytes with
a formula, predicts the speed-up from the model, profiles both and checks the prediction.  This
module holds everything the notebook would otherwise repeat:

- :func:`softmax_buffers` and :func:`count_passes`: the bytes a sequence of launches moves,
  counted in the CUDA simulator at a small size (no GPU needed, so the checks run anywhere);
- :func:`check_byte_formula`, :func:`check_prediction`, :func:`check_verdicts`: the self-graded
  checks, in the exercises' conventions (PASS, TRY AGAIN, NOT ANSWERED YET, CHECK YOUR INPUT);
- :func:`lab1_ceilings`: the ceilings to place on (a stored Lab 1 result, else a live one);
- :func:`profile_pair`: both softmaxes profiled live, on the GPU (the student's kernels) or on
  the CPU (the Numba-parallel pair of notebook 04), each output verified;
- :func:`comparison`: the prediction against the measurement, and which assumption failed;
- :func:`recorded_pair`, :func:`counters_text`, :func:`levels_text`: the profiles recorded on
  the H200 with their ncu counters, for every machine.

numpy and numba are imported inside the functions that need them.
"""
from __future__ import annotations

import ast
import html
import collections
import contextlib
import dataclasses
import inspect
import re
import textwrap
import time
import types
import warnings
from dataclasses import dataclass, field

from rooflinelib.core import operators
from rooflinelib.profiling.profile_result import ProfileError, percent
from rooflinelib.experiments.pitfall_readings import TOLERANCE  # the course's one agreement rule
from rooflinelib.measure.expected import fill_values
from rooflinelib.measure.protocol import NOISY_IQR, iqr_spread
from rooflinelib.profiling.counting import CountError, count_bytes, fake_device_functions, kernel_py_func
from rooflinelib.exercises.grading import (Check, Choices, NotAnsweredError, Report, report, check_function,
                                           check_number, NOT_ANSWERED, SIDES, check_choice,
                                           is_unanswered, AnswerError, run_student, read_number,
                                           reveal, BOTH_HINT, without_bare_both)
from rooflinelib.profiling import simulator
from rooflinelib.profiling.simulator import quick
from rooflinelib import modes
from rooflinelib.profiling import softmax_targets
from rooflinelib.measure.experiment_kernels_cpu import softmax_kernels
from rooflinelib.views.widget_state import seconds_text
from rooflinelib.profiling.recorded import recorded_profiles
from rooflinelib.profiling.core import on_memory_roof
from rooflinelib.store.results import dram_mixes

#: The simulator's size: 8 rows of 256 float32, one block of 32 threads per row (256 threads).
SIM_ROWS, SIM_COLS, SIM_THREADS = 8, 256, 32
#: A second small size, so that a byte formula is checked at two points, not one.
SIM_SIZES = ((SIM_ROWS, SIM_COLS), (4, 1024))
#: The sizes :func:`check_kernels` runs: :data:`SIM_SIZES`, then one whose column count is not a multiple
#: of the block, so a loop over whole chunks (``range(t*n, (t+1)*n)``, ``n = cols // blockDim``) that drops
#: the row's tail fails (review 36f, E3).
CHECK_SIZES = SIM_SIZES + ((3, 1000),)
#: The exercise's stated launch, run once more in the simulator: one row of MAX_COLS float32 with
#: THREADS threads, so a shared array too small for it (``part`` of 32, a row of 1,024) fails here,
#: not past its end on the profiled launch (about 3 s for both versions on the 2-core Xeon).
LIMIT_ROWS, LIMIT_COLS, LIMIT_THREADS = 1, 4096, softmax_targets.THREADS
#: The CPU's size: 32 MiB of float32 in rows of 2048 (8 KB, so a row stays in cache), as in
#: notebook 04.
CPU_ROWS, CPU_COLS = 4096, 2048
#: The buffers each variant's launcher takes, by name (see :func:`softmax_buffers`).
ARGUMENTS = {"3-pass": ("x", "maxima", "e", "sums", "y"), "fused": ("x", "y")}
VARIANTS = tuple(ARGUMENTS)
#: The kernel check adds this to ONE element of its input (row LARGE_ROW, column LARGE_COL): exp(x)
#: of values past 88.7 overflows float32, so a softmax that skips the max subtraction (the unsafe
#: form) writes inf or NaN there.  Only that element is raised, so shifting by any other value of
#: the row (x[r, 0], one thread's own maximum) overflows too: a shift of the whole row would let
#: any element of it pass as the maximum, since softmax(x + c) = softmax(x).  The course's input
#: alone (values up to 16) lets the unsafe form pass.
LARGE_SHIFT = 200.0
LARGE_ROW = 0
#: The last column: thread 0, the likeliest single thread to stand in for a reduction, never reads it.
LARGE_COL = -1
#: The kernel check subtracts this from every value of row NEGATIVE_ROW, so that row is all negative
#: (review 26f, 2: the course's input is all positive, so a maximum started at 0 passed).  A max
#: started at 0 then subtracts 0, and exp of every value underflows to 0 in float32: the row's sum is 0.
NEGATIVE_SHIFT = 200.0
NEGATIVE_ROW = -1  # the last row
#: A pass of the 3-pass version may read x (or e) at most this many times its size (review 26f, 3): a
#: loop over ``range(t, cols)`` (stride 1) reads up to ``cols`` elements per thread, about 30x at the
#: simulator's 32 threads, 128x at 256; a pass that reads its input twice (two loops) still passes.
REREAD_LIMIT = 2.05  # twice, and READ_ONCE_SLACK
#: Softmax outputs below this are compared absolutely: the large row's other outputs (about
#: exp(-200)) are 0 in float32.
TINY_OUTPUT = 1e-30
#: How far past one read of x, and one write of y, the fused kernel's global reads of x and its
#: writes may go (a re-read of the row from global memory, or y written twice, makes it 2x or more).
READ_ONCE_SLACK = 0.05
#: The kernel check's poison for y: a softmax never writes -1, so an element still -1 was never
#: written, and a NaN was written (NaN is what a read of shared memory no thread wrote gives there:
#: the check fills every shared array with NaN, ``simulator.SHARED_FILL``).
UNWRITTEN = -1.0
#: Rows checked against a float64 softmax after a GPU profile (every row on the CPU).
CHECKED_ROWS = 256
MAX_RELATIVE_ERROR = 1e-4
#: The recorded H200 profiles the notebook shows, in this order, where present.
RECORDED_NAMES = ("softmax 3-pass", "softmax fused", "gemm naive", "gemm tiled")
#: Those notebook 07 places level by level, in section 5: the softmax pair (the GEMMs' tables, where
#: no level binds, are docs/appendix-07.md's: review 9d, C7-2).
LEVEL_TABLE_NAMES = ("softmax 3-pass", "softmax fused")
RECORDED_SOFTMAX = {"3-pass": "softmax 3-pass", "fused": "softmax fused"}
#: The recorded GEMM profiles are the fixed variants (benchmarks/record_profiles.py): the level
#: table names them as notebook 07's four-row counter table does.
RECORDED_LABELS = {"gemm naive": "gemm naive, warp along a row", "gemm tiled": "gemm tiled, warp along a row"}
#: The copy mix of the Lab 1 run the recorded profiles were placed on (2026-12-01, the run that
#: docs/appendix-07.md describes; its raw result is docs/measurements/h200_run17/lab1.json). The
#: profiles keep only that run's best DRAM mix, the write; a softmax reads and writes, like a copy,
#: and notebook 04's rule scores a memory-bound kernel against its own access mix.
RECORDED_PROFILES_COPY_GBPS = 4256.150998461505
#: A difference of two runs' times (the timed median against Nsight Compute's kernel sum) under this
#: share of the 3-pass time is within their noise: the repeats spread by about 2%, ncu's kernel
#: times sit up to 3% off the medians.
NOISE_SHARE = 0.05
#: How the comparison names the recorded pair (:func:`graded_profiles`).
RECORDED_WHERE = "the recorded H200 profiles"


def _tolerance() -> float:
    return TOLERANCE


# --- inputs and counted bytes ----------------------------------------------------------------

def softmax_input(rows: int, cols: int):
    """The course's softmax input: exact small values (``fill_values / 1024``), float32."""
    import numpy as np
    return (fill_values(np.arange(rows * cols)) / 1024).astype(np.float32).reshape(rows, cols)


def reference_softmax(x):
    """A float64 softmax of each row."""
    import numpy as np
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_buffers(rows: int = SIM_ROWS, cols: int = SIM_COLS) -> dict:
    """Host arrays for every pass, ``{"x", "maxima", "e", "sums", "y"}``, each holding what the
    pass before it would have written, so that a pass counted on its own sees real inputs."""
    import numpy as np
    x = softmax_input(rows, cols)
    maxima = x.max(axis=1).astype(np.float32)
    e = np.exp(x - maxima[:, None]).astype(np.float32)
    sums = e.sum(axis=1, dtype=np.float32)
    return {"x": x, "maxima": maxima, "e": e, "sums": sums, "y": np.zeros_like(x)}


def count_passes(passes, griddim, blockdim) -> dict:
    """:func:`~rooflinelib.profiling.count_bytes` of each ``(kernel, args)`` launch in
    ``passes``, summed: ``{"read", "written", "unique_read", "unique_written", "launches",
    "per_launch"}``.  A launch's distinct bytes are what DRAM must move for it when nothing
    survives in the cache from the launch before, as on a buffer far larger than the L2."""
    passes = list(passes)
    if not passes:
        raise ProfileError("passes: give at least one (kernel, args) launch")
    per_launch = []
    for i, item in enumerate(passes):
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise ProfileError(f"passes[{i}]: expected (kernel, args), got {type(item).__name__}")
        kernel, args = item
        per_launch.append(count_bytes(kernel, griddim, blockdim, *args))
    total = {key: sum(c[key] for c in per_launch) for key in ("read", "written", "unique_read", "unique_written")}
    return dict(total, launches=len(per_launch), per_launch=per_launch)


def distinct_bytes(counted: dict) -> int:
    return counted["unique_read"] + counted["unique_written"]


def counted_table(counts: dict, rows: int = SIM_ROWS, cols: int = SIM_COLS) -> str:
    """One line per variant: launches, every access and the distinct bytes, per element."""
    n = rows * cols
    lines = [f"counted in the CUDA simulator at {rows} rows x {cols} columns ({n:,} float32):"]
    for name, c in counts.items():
        accesses = c["read"] + c["written"]
        lines.append(f"  {name:7s} {c['launches']} launch(es): {accesses:8,} bytes accessed ({accesses / n:.3g} per element), "
                     f"{distinct_bytes(c):8,} distinct per launch, summed ({distinct_bytes(c) / n:.3g} per element)")
    return "\n".join(lines)


# --- the self-graded checks ------------------------------------------------------------------

def check_kernels(three_pass_passes, fused_passes, sizes=CHECK_SIZES):
    """Run both versions' launches in the CUDA simulator at each of ``sizes`` (one block of
    :data:`SIM_THREADS` per row) on a poisoned output, and check ``y`` against a float64
    softmax.  ``three_pass_passes(buffers)`` and ``fused_passes(buffers)`` return each
    version's ``(kernel, args)`` launches (see :func:`softmax_buffers`).  One element of one row is
    raised by :data:`LARGE_SHIFT`, so a softmax without the max subtraction, or shifted by any other
    value of the row, fails; the 3-pass version's ``maxima`` and ``sums`` are checked too.  Kernels
    that wrote nothing to ``y`` (the exercise's stubs) are not answered yet."""

    uncompiled = []  # the versions that passed without the compile check

    def one(name, passes_of):
        question = f"{name} softmax kernels"

        def grade():
            import numpy as np
            worst = 0.0
            # review 33f, 1: two shared arrays on one line are one array in the simulator; refuse before running
            one_line = _shared_on_one_line(passes_of(softmax_buffers(*sizes[0])))
            if one_line:
                return Check(question, "fail", one_line)
            # review 42f, 1: a barrier some threads skip is undefined on a GPU, yet runs in the simulator
            divergent = _divergent_barrier(passes_of(softmax_buffers(*sizes[0])))
            if divergent:
                return Check(question, "fail", f"your {name} kernel's " + divergent)
            for rows, cols in sizes:
                buffers = softmax_buffers(rows, cols)
                buffers["x"][LARGE_ROW, LARGE_COL] += np.float32(LARGE_SHIFT)
                buffers["x"][NEGATIVE_ROW] -= np.float32(NEGATIVE_SHIFT)  # exact: the values are multiples of 1/1024
                buffers["y"] = np.full((rows, cols), UNWRITTEN, np.float32)
                for key in ("maxima", "e", "sums"):  # each pass must make its own inputs
                    buffers[key] = np.full_like(buffers[key], np.nan)
                passes = list(passes_of(buffers))
                # an overflowing exp warns from the simulator's threads; the check says it in words
                found = []  # the first shared-memory race, whichever order the simulator ran the threads in
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)
                        y = _simulate_output(passes, rows, buffers, races=found)
                except IndexError as exc:  # review 23f, 1: the stated rule or the hint, not a traceback
                    local = _local_row(passes) if name == "fused" else ""
                    if local:
                        return Check(question, "fail", "your fused kernel " + local)
                    return Check(question, "fail", f"at {rows} rows x {cols} columns, {SIM_THREADS} threads a "
                                                   f"block, " + _past_the_end(exc))
                if (y == UNWRITTEN).all():
                    return Check(question, "unanswered", "the kernels wrote nothing to y yet: write their "
                                                         "bodies, run that cell, then this check again")
                off_block = _off_block_step(passes)  # review 44f, 1: the slip, not what it breaks
                if off_block and (found or not _max_error(y, buffers["x"]) < MAX_RELATIVE_ERROR
                                  or (name == "3-pass" and _wrong_intermediates(buffers))):
                    return Check(question, "fail", f"at {rows} rows x {cols} columns: " + off_block)
                if found:
                    stride = _stride_one_loop(passes)
                    if stride:  # review 35f, E-stride: the slip, not the race it makes
                        return Check(question, "fail", f"a race at {rows} rows x {cols} columns: " + _stride_hint(stride))
                    return Check(question, "fail",
                                 f"a race at {rows} rows x {cols} columns: " + _race_hint(found[0], passes))
                error = _max_error(y, buffers["x"])
                if not error < MAX_RELATIVE_ERROR:
                    why = _wrong_output(y, buffers["x"], error, first_value=name != "fused")
                    atomic = _unset_atomic(passes, buffers) if "came out NaN" in why else ""
                    if atomic:  # review 44f, 3: name the atomic that read the NaN fill
                        why = why.split(", the value")[0] + ": " + atomic
                    if name == "3-pass" and _only_large_row_wrong(y, buffers["x"]):
                        # a pass 1 without its reduction is right wherever thread 0's part holds the
                        # row's maximum, so only the large row fails: name the pass, not overflow
                        why = _wrong_intermediates(buffers) or why
                    return Check(question, "fail", f"wrong output at {rows} rows x {cols} columns: " + why)
                if name == "3-pass":
                    wrong = _wrong_intermediates(buffers)
                    if wrong:
                        return Check(question, "fail", f"y is right at {rows} rows x {cols} columns, but " + wrong)
                worst = max(worst, error)
            refused = _compile_refusal(passes_of(softmax_buffers(*sizes[0])))
            not_compiled = refused == NOT_COMPILED
            if refused and not not_compiled:
                return Check(question, "fail", f"right output in the simulator, but Numba's CUDA compiler refuses "
                                               f"it: {refused}")
            fp64 = _fp64_constant(passes_of(softmax_buffers(*sizes[0])))
            if fp64:
                return Check(question, "fail", "right output, but " + fp64)
            if name == "3-pass":
                # review 36f, E1: at the simulator's 32 threads a step of 32 is the block's; count again at
                # the stated launch's block, where a constant step reads each element several times
                broken = (_pass_rereads(passes_of, sizes[0])
                          or _pass_rereads(passes_of, (LIMIT_ROWS, LIMIT_COLS), threads=LIMIT_THREADS))
                if broken:
                    return Check(question, "fail", "right output, but " + broken)
            if name == "fused":  # the rules the exercise states: the row in shared memory, x read once, y written once
                # review 39f, E1: counted again at the stated launch's block, as the 3-pass version is
                broken = (_local_row(passes_of(softmax_buffers(*sizes[0]))) or _once_rules(passes_of, sizes[0])
                          or _once_rules(passes_of, (LIMIT_ROWS, LIMIT_COLS), threads=LIMIT_THREADS))
                stride = _stride_one_loop(passes_of(softmax_buffers(*sizes[0]))) if broken else ""
                if stride:
                    broken = _stride_hint(stride)
                if broken:
                    return Check(question, "fail", "right output, but your fused kernel " + broken)
            # review 31f, 3: the slow check last, so a slip the small size shows (a stride of 1) is told quickly
            limits = _at_the_limits(passes_of, three_pass=name == "3-pass")
            if limits:
                return Check(question, "fail", limits)
            if not_compiled:
                uncompiled.append(name)  # said once, under the report (review 35f)
            chunked = _chunked_loop(passes_of(softmax_buffers(*sizes[0])))
            chunk_note = (f". Note: {chunked} gives each thread a contiguous run of the row: correct, and the "
                          "same DRAM bytes, but on a GPU a warp's 32 threads then load 32 far-apart elements at "
                          "once (uncoalesced, several requests); range(t, cols, cuda.blockDim.x) loads 32 "
                          "neighbours in one") if chunked else ""
            serial = "" if chunked else _serial_loop(passes_of(softmax_buffers(*sizes[0])))
            if serial:  # review 46f, K2: right, but one thread does the block's work
                chunk_note = (f". Note: {serial} walks the whole row in each thread that runs it: correct, and "
                              "the same DRAM bytes, but on a GPU that thread then does the block's work alone, one "
                              "element after another; range(t, cols, cuda.blockDim.x) shares the row among the "
                              "block's threads")
            return Check(question, "pass", f"correct in the simulator at {len(sizes)} small sizes and the stated "
                                           f"launch (largest relative error {worst:.2g} at the small sizes, against "
                                           f"a float64 softmax)" + chunk_note)

        # The simulator takes seconds, longer than run_student allows a student's call, so the
        # kernels run here, and whatever they raise becomes CHECK YOUR INPUT.
        try:
            return grade()
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except NotAnsweredError:
            return Check(question, "unanswered", "a kernel used NOT_ANSWERED: write its body first")
        except BaseException as exc:
            if isinstance(exc, AttributeError) and "FakeCUDA" in str(exc):
                return Check(question, "invalid", "the CUDA simulator has no " + (re.findall(r"'(\w+)'$", str(exc))
                             or ["such function"])[0] + " (it has no warp shuffles): this exercise's reductions go "
                             "through block_reduce")
            text = " ".join(str(exc).split())[:300]
            return Check(question, "invalid", f"the simulator stopped: {type(exc).__name__}: {text}")

    got = report("your kernels, run in the CUDA simulator", one("3-pass", three_pass_passes),
                 one("fused", fused_passes))
    note = ("Note: a PASS above is from the simulator and the source checks" + NOT_COMPILED) if uncompiled else ""
    return NotedReport(got.title, got.checks, note)


@dataclass(frozen=True)
class NotedReport(Report):
    """A report with one note under its lines (the compile check that did not run, said once)."""

    note: str = ""

    def __str__(self) -> str:
        return Report.__str__(self) + (f"\n{self.note}" if self.note else "")

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return Report._repr_html_(self) + (f"<div>{html.escape(self.note)}</div>" if self.note else "")


def _kernel_line(exc) -> str:
    """The last line of the student's code (not numba's, numpy's or this library's) that ``exc``
    passed through, or ''."""
    import linecache
    import traceback
    line = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        name = frame.filename
        if "site-packages" in name or "rooflinelib" in name or name.startswith("/usr/lib"):
            continue
        line = (linecache.getline(name, frame.lineno) or frame.line or "").strip() or line
    return line


def _overflowed(exc) -> tuple:
    """``(space, shape)`` of the watched array (:mod:`rooflinelib.profiling.races`) whose index
    raised ``exc``: ``"shared"`` or ``"global"`` (an array the launch was passed), or ``(None, None)``."""
    from rooflinelib.profiling.races import RaceShared
    found, tb = (None, None), exc.__traceback__
    while tb is not None:
        me = tb.tb_frame.f_locals.get("self")
        if isinstance(me, RaceShared):
            found = (me._space, tuple(me.shape))
        tb = tb.tb_next
    return found


def _past_the_end(exc) -> str:
    """The hint for an ``IndexError`` the simulator raised in a student's kernel: the line, and,
    for a shared array, the sizes the exercise's shared arrays need; for a global one (an array the
    launch was passed), its shape (review 26f, 1: a transposed ``e[c, r]`` got the shared sizes)."""
    line = _kernel_line(exc)
    named = f"the line `{line}` " if line else "a line "
    head = (f"{named}indexes past an array's end "
            f"({re.sub(r'^tid=[^:]*:', '', ' '.join(str(exc).split())).strip()[:120]})")
    tail = " (on the GPU nothing stops the access, which reads or corrupts other memory)"
    space, shape = _overflowed(exc)
    if space == "global":
        return (f"{head}: the array is one the launch was passed, in global memory, of shape "
                f"{' x '.join(map(str, shape))} (rows x columns): is each index within it, the row first "
                f"(x[r, c], not x[c, r])?" + tail)
    what = "the array is a shared one: " if space == "shared" else ""
    return f"{head}: {what}a shared array indexed by the thread needs THREADS entries, the row MAX_COLS" + tail


_LIMIT_WHERE = f"at the stated launch ({LIMIT_ROWS} row x {LIMIT_COLS:,} columns, {LIMIT_THREADS} threads a block)"


def _at_the_limits(passes_of, three_pass: bool = False) -> str:
    """Why the kernels fail at the exercise's stated launch (:data:`LIMIT_ROWS` x :data:`LIMIT_COLS`,
    :data:`LIMIT_THREADS` threads) when they passed the small sizes, or ''."""
    import numpy as np
    rows, cols, threads = LIMIT_ROWS, LIMIT_COLS, LIMIT_THREADS
    where = _LIMIT_WHERE
    buffers = softmax_buffers(rows, cols)
    # the large value in the last column, which the block's last thread owns: a max over part of the
    # block (a tree hard-coded for 32 threads) misses it, and its exp overflows
    buffers["x"][LARGE_ROW, LARGE_COL] += np.float32(LARGE_SHIFT)
    buffers["y"] = np.full((rows, cols), UNWRITTEN, np.float32)
    for key in ("maxima", "e", "sums"):
        buffers[key] = np.full_like(buffers[key], np.nan)
    found = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            passes = list(passes_of(buffers))
            y = _simulate_output(passes, rows, buffers, races=found, threads=threads)
    except IndexError as exc:
        return f"right at the small sizes, but {where} " + _past_the_end(exc)
    if found:
        return f"a race {where}: " + _race_hint(found[0], passes)
    error = _max_error(y, buffers["x"])
    if not error < MAX_RELATIVE_ERROR:
        return (f"right at the small sizes, but wrong output {where}: {_largest_error(error)}; the "
                f"row's one large value (+{LARGE_SHIFT:g}) sits in the last column, thread {threads - 1}'s: does every "
                "reduction cover every thread of the block (cuda.blockDim.x of them, not 32)?")
    if three_pass and not np.array_equal(buffers["maxima"], buffers["x"].max(axis=1)):
        return (f"right at the small sizes, but {where} maxima[r] is not the row's largest value, which sits in "
                f"the last column (thread {threads - 1}'s): does pass 1's reduction cover every thread of the block?")
    return ""


def _read_first(race, passes) -> bool:
    """Whether the race's read line comes before its write line in the source of one kernel of ``passes``
    (a write after a read, in the order the code runs them: the simulator's order may be either)."""
    for kernel, _ in passes or ():
        try:
            lines = [line.strip() for line in inspect.getsource(kernel_py_func(kernel)).splitlines()]
        except (OSError, TypeError):
            continue
        if race.read_line in lines and race.write_line in lines and race.read_line != race.write_line:
            return lines.index(race.read_line) < lines.index(race.write_line)
        # review 37f, E2: the write in a device function called after the read; not when the kernel holds the
        # write line itself (a tree's `part[t] = max(...)` is in block_reduce too, review 39f, E4)
        if race.read_line in lines and race.write_line not in lines:
            later = lines[lines.index(race.read_line) + 1:]
            for _, name, _, fake in fake_device_functions(kernel_py_func(kernel)).values():
                try:
                    inside = [line.strip() for line in inspect.getsource(fake.fn).splitlines()]
                except (OSError, TypeError):
                    continue
                if race.write_line in inside and any(f"{name}(" in line for line in later):
                    return True
    return False


def _loop_without_barrier(race, passes) -> str:
    """The header line of the innermost loop, in a kernel of ``passes`` or a device function it calls, whose body
    holds both of the race's lines and no cuda.syncthreads(), and whose header does not use the thread's index
    (every thread runs it the same number of times, as a tree's ``while step > 0:`` does), or ''.  A barrier
    goes inside such a loop; one in a loop over ``range(t, n, cuda.blockDim.x)`` would not be reached by every
    thread the same number of times."""
    for f, tree, lines in _parsed_functions(passes):
        names = _thread_names(tree)
        found = []
        for node in ast.walk(tree):
            if not isinstance(node, (ast.While, ast.For)) or not 0 < node.lineno <= node.end_lineno <= len(lines):
                continue
            body = [line.strip() for line in lines[node.lineno:node.end_lineno]]
            header = node.test if isinstance(node, ast.While) else node.iter
            if (race.write_line in body and race.read_line in body
                    and not _uses_thread(header, names)):
                found.append(node)
        if found:
            inner = min(found, key=lambda n: n.end_lineno - n.lineno)
            if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "syncthreads"
                       for n in ast.walk(inner)):
                return lines[inner.lineno - 1].strip()
    return ""


def _thread_dependent(tree) -> tuple:
    """``(names, depends)``: the names a function's source sets, directly or through other such names, from the
    thread's index (``cuda.threadIdx.x`` or ``cuda.grid(...)``), and a test of whether an expression uses one."""
    def direct(n) -> bool:
        return (_thread_index(n) or (isinstance(n, ast.Attribute) and n.attr in ("x", "y", "z")
                                     and isinstance(n.value, ast.Attribute) and n.value.attr == "threadIdx")
                or (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "grid"))
    names = set()

    def depends(expr) -> bool:
        return any(direct(n) or (isinstance(n, ast.Name) and n.id in names) for n in ast.walk(expr))
    grew = True
    while grew:  # r, t = ... then lo = t * k: follow the names until none is added
        grew = False
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    pairs = ([(target, node.value)] if not isinstance(target, ast.Tuple) else
                             list(zip(target.elts, node.value.elts)) if isinstance(node.value, ast.Tuple) else
                             [(e, node.value) for e in target.elts])
                    for t, v in pairs:
                        if isinstance(t, ast.Name) and t.id not in names and depends(v):
                            names.add(t.id)
                            grew = True
    return names, depends


def _divergent_barrier(passes) -> str:
    """``"`LINE` (line N of NAME) calls cuda.syncthreads() inside `HEADER`..."`` for the first barrier, in a kernel
    of ``passes`` or a device function it calls, whose enclosing ``if``, ``while`` or ``for`` header uses the
    thread's index, or ''.  On a GPU every thread of the block must reach the same barrier; one under a branch
    that differs between threads is undefined behaviour, which the simulator's threads cannot show (review 42f,
    1).  A loop whose trip count is the same for every thread (a tree's ``while step > 0:``) is let through.
    A call under such a branch to a device function that holds a barrier (``block_reduce``) counts as one,
    and is named with the function (review 46f, K1)."""
    functions = list(_parsed_functions(passes))
    holders = _barrier_holders(functions)
    for f, tree, lines in functions:
        _, depends = _thread_dependent(tree)

        def visit(node, branch):
            if (isinstance(node, ast.Call) and branch is not None
                    and ((isinstance(node.func, ast.Attribute) and node.func.attr == "syncthreads")
                         or (isinstance(node.func, ast.Name) and node.func.id in holders))):
                return node, branch
            header = (node.test if isinstance(node, (ast.If, ast.While)) else
                      node.iter if isinstance(node, ast.For) else None)
            for name, value in ast.iter_fields(node):
                inside = branch
                if header is not None and name in ("body", "orelse") and depends(header):
                    inside = branch or node
                for child in (value if isinstance(value, list) else [value]):
                    if isinstance(child, ast.AST):
                        got = visit(child, inside)
                        if got:
                            return got
            return None
        got = visit(tree, None)
        if got and 0 < got[0].lineno <= len(lines) and 0 < got[1].lineno <= len(lines):
            call, branch = got
            held = call.func.id if isinstance(call.func, ast.Name) else ""
            return (f"`{lines[call.lineno - 1].strip()}` (line {call.lineno} of {f.__name__}"
                    + (f"; {held} holds a cuda.syncthreads()" if held else "") + ") is inside "
                    f"`{lines[branch.lineno - 1].strip()}`, which depends on the thread's index: on a GPU every "
                    "thread of the block must reach the same barrier (otherwise the result is undefined, which "
                    "the simulator cannot show), so move the "
                    + (f"call to {held}" if held else "cuda.syncthreads()") + " out of the branch")
    return ""


def _barrier_holders(functions) -> set:
    """The names of the device functions among ``functions`` (:func:`_parsed_functions`'s rows) that reach a
    ``cuda.syncthreads()``, written in them or in a device function they call by name; a kernel's call to one
    is a barrier, wherever it sits (review 46f, K1)."""
    calls = {}  # a function's name: the names it calls, or True where it calls cuda.syncthreads() itself
    for f, tree, _ in functions:
        called = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "syncthreads":
                called = True
                break
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called.add(node.func.id)
        calls[f.__name__] = called
    holders = {name for name, called in calls.items() if called is True}
    grew = True
    while grew:  # through device functions that call one that holds a barrier
        grew = False
        for name, called in calls.items():
            if name not in holders and called is not True and called & holders:
                holders.add(name)
                grew = True
    return holders


def _write_outside_loops(race, passes) -> bool:
    """Whether the race's write line sits in a kernel of ``passes`` (or a device function it calls) outside every
    loop, as thread 0's ``part[0] = m`` under ``if t == 0:`` does (review 42f, 2: then it is a write, not a loop)."""
    for f, tree, lines in _parsed_functions(passes):
        where = [i + 1 for i, line in enumerate(lines) if line.strip() == race.write_line]
        if where:
            loops = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While))]
            return all(not any(n.lineno < w <= n.end_lineno for n in loops) for w in where)
    return False


def _two_writes(race, passes) -> tuple:
    """``(first, second, after, before)`` for a write-after-write race on a shared array whose two lines
    sit in one function of ``passes`` (a kernel, or a device function it calls): the two write lines in
    source order, and the two statements of one block between which a cuda.syncthreads() goes: ``after``
    holds the first write (its loop, or the line itself), ``before`` the second.  The block is the
    innermost one holding both in different statements; a block inside a branch or loop whose header
    uses the thread's index is passed over for the one around it, so that every thread reaches the
    barrier.  ``("", "", "", "")`` where the lines are one line, or not in one function."""
    if race.write_line == race.read_line:
        return "", "", "", ""
    for f, tree, lines in _parsed_functions(passes):
        stripped = [line.strip() for line in lines]
        if race.write_line not in stripped or race.read_line not in stripped:
            continue
        at = {name: stripped.index(name) + 1 for name in (race.write_line, race.read_line)}
        first, second = sorted(at, key=at.get)
        a, b = at[first], at[second]
        _, depends = _thread_dependent(tree)
        found = None

        def visit(node, divergent):
            nonlocal found
            header = (node.test if isinstance(node, (ast.If, ast.While)) else
                      node.iter if isinstance(node, ast.For) else None)
            inside = divergent or (header is not None and depends(header))
            for name, value in ast.iter_fields(node):
                if not isinstance(value, list) or not all(isinstance(s, ast.stmt) for s in value):
                    continue
                holding = [s for s in value if s.lineno <= a <= s.end_lineno or s.lineno <= b <= s.end_lineno]
                here = inside if name in ("body", "orelse") else divergent
                if (len(holding) == 2 and not here and holding[0].lineno <= a <= holding[0].end_lineno
                        and holding[1].lineno <= b <= holding[1].end_lineno):
                    found = holding  # an inner block that fits replaces this one
                for s in value:
                    visit(s, here)
        visit(tree, False)
        if found:
            s1, s2 = found
            after = (f"`{first}`" if s1.lineno == s1.end_lineno == a else
                     f"the loop `{stripped[s1.lineno - 1]}` that writes `{first}`" if isinstance(s1, (ast.For, ast.While))
                     else f"`{stripped[s1.lineno - 1]}` (which holds `{first}`)")
            return first, second, after, f"`{stripped[s2.lineno - 1]}`"
        return first, second, "", ""
    return "", "", "", ""


def _race_hint(race, passes=None) -> str:
    """The hint for a shared-memory race (:mod:`rooflinelib.profiling.races`): the two accesses,
    and the barrier that orders them; after the read where the code reads before it writes."""
    if getattr(race, "atomic", False):  # review 28f, 2: the atomic is there, the barrier is missing
        atomics_only = race.sentence() + ". An atomic orders only the atomics among themselves: "
        if race.kind == "read after write":
            return (atomics_only + "a plain read may come before other threads' atomic updates land. Put a "
                    "cuda.syncthreads() after the atomics and before the read")
        return (atomics_only + "a plain write (such as thread 0 zeroing the entry) may land after other "
                "threads' atomic updates and erase them. Put a cuda.syncthreads() after the plain write and "
                "before the atomics")
    if getattr(race, "space", "shared") == "global":
        return (race.sentence() + ". On a GPU the threads' plain reads and writes of that entry interleave, "
                "so updates are lost: combine the threads' values first (block_reduce) and let one thread "
                "write the result, or update the entry with cuda.atomic.add / cuda.atomic.max")
    loop = _loop_without_barrier(race, passes)
    if loop:  # review 39f, E4: a tree whose barrier sits after its loop needs it inside, after each step
        return (race.sentence() + ". On a GPU either may come first, so the output is right only by luck "
                f"(a cuda.syncthreads() missing between two steps of the loop `{loop}`): each step reads entries "
                "other threads wrote in the step before, so put a cuda.syncthreads() inside the loop, after each "
                "step")
    if race.kind == "write after write" and race.write_line != race.read_line:  # two writes: neither is a read
        first, second, after, before = _two_writes(race, passes)
        named = (f": first `{first}`, then `{second}`" if first else
                 f": `{race.write_line}` and `{race.read_line}`")
        where = (f"after {after} and before {before}" if after else
                 "after the first write (after its loop, if it sits in one) and before the second, outside any "
                 "branch that only some threads take")
        return (race.sentence() + f"{named}. On a GPU either may land last, so the output is right only by luck "
                f"(a cuda.syncthreads() missing between two phases): put a cuda.syncthreads() {where}")
    if _read_first(race, passes):  # review 36f, E4: the barrier goes after the read, before the write
        return (race.sentence() + ". On a GPU either may come first, so the output is right only by luck "
                "(a cuda.syncthreads() missing between two phases): put a cuda.syncthreads() after the last "
                "read of the entry and before the write that overwrites it")
    writes = "the write" if _write_outside_loops(race, passes) else "the loop that writes the shared array"
    return (race.sentence() + ". On a GPU either may come first, so the output is right only by luck "
            f"(a cuda.syncthreads() missing between two phases): put a cuda.syncthreads() after {writes} "
            "and before any thread reads entries other threads wrote")


#: Why a fused kernel may not keep its row in ``cuda.local.array`` (see :func:`_local_row`): the
#: exercise's rule, true wherever the compiler puts the array.
LOCAL_ROW_REASON = ("keeps values in cuda.local.array: this exercise asks for the row in "
                    "cuda.shared.array(MAX_COLS, float32), on chip, where the block's threads share it")
#: Added when the source indexes the local array at run time (:func:`_run_time_index`).
LOCAL_ROW_OFF_CHIP = ("; `{index}` indexes your local array at run time, so it lives in local memory, off chip "
                      "behind the L1, and its traffic is not in the 8 bytes per element")


def _local_row(passes) -> str:
    """:data:`LOCAL_ROW_REASON` when a kernel of ``passes``, or a device function it calls, asks
    for a ``cuda.local.array``, else ''; with :data:`LOCAL_ROW_OFF_CHIP` when the source indexes
    that array at run time.  The exercise keeps the fused kernel's row in shared memory.  Where
    the compiler puts a local array depends on its indices: every index known once constant-count
    loops unroll (notebook 07's recorded fused kernel, a few values per thread) lets it stay in
    registers; a run-time index (``row[c]``, ``vals[i]`` with ``i += 1``) puts it in local memory
    (off chip, cached by the L1 and L2), whose traffic the 8 bytes per element do not count.  The
    source decides, as the simulator runs local arrays as numpy arrays."""
    shared_row = _has_shared_row(passes)
    for kernel, _ in passes:
        fn = kernel_py_func(kernel)
        for f in [fn] + [fake.fn for *_, fake in fake_device_functions(fn).values()]:
            parsed = _parsed(f)
            if parsed is None:
                continue
            tree = parsed[0]
            names = [t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and _is_local_array(node.value)
                     for t in node.targets if isinstance(t, ast.Name)]
            if any(_is_local_array(node) and not (shared_row and _small_local(node, f, tree))
                   for node in ast.walk(tree)):
                index = _run_time_index(tree, f, names)
                return LOCAL_ROW_REASON + (LOCAL_ROW_OFF_CHIP.format(index=index) if index else "")
    return ""


#: A local array with fewer entries than a thread's share of the stated row (4,096 / 256) holds a few
#: values (a max and a sum), not the row: accepted beside a shared row.
SMALL_LOCAL = LIMIT_COLS // LIMIT_THREADS


def _small_local(node, fn, tree) -> bool:
    """Whether the ``cuda.local.array`` call ``node`` asks for fewer than :data:`SMALL_LOCAL` entries."""
    shape = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "shape"), None)
    size = None if shape is None else _constant_value(shape, fn, _local_constants(tree, fn))
    return size is not None and size < SMALL_LOCAL


def _has_shared_row(passes) -> bool:
    """Whether a kernel of ``passes`` asks for a ``cuda.shared.array`` that holds the stated row."""
    for kernel, _, tree, _ in _parsed_kernels(passes):
        fn = kernel_py_func(kernel)
        for node in ast.walk(tree):
            func = getattr(node, "func", None)
            if (isinstance(node, ast.Call) and isinstance(func, ast.Attribute) and func.attr == "array"
                    and isinstance(func.value, ast.Attribute) and func.value.attr == "shared" and node.args):
                size = _constant_value(node.args[0], fn, _local_constants(tree, fn))
                if size is not None and size >= LIMIT_COLS:
                    return True
    return False


def _is_local_array(node) -> bool:
    """Whether ``node`` is a call ``cuda.local.array(...)``."""
    func = getattr(node, "func", None)
    return (isinstance(node, ast.Call) and isinstance(func, ast.Attribute) and func.attr == "array"
            and isinstance(func.value, ast.Attribute) and func.value.attr == "local")


def _run_time_index(tree, fn, names) -> str:
    """The source of the first subscript of a local array (one of ``names``) in ``tree`` whose
    index is not known at compile time once constant-count loops unroll, or ''.  Known: literals,
    compile-time names (:func:`_local_constants`, globals, closures), a name bound only by
    ``for`` loops over ``range`` of those, and arithmetic on them.  Anything
    else (a thread index, a loop over ``x.shape[1]``, a counter bumped with ``+=``) is run time."""
    local_values = _local_constants(tree, fn)
    binders = {}  # name -> whether each statement binding it is a for over a constant range
    for node in ast.walk(tree):
        targets = (list(node.targets) if isinstance(node, ast.Assign) else
                   [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr,
                                                      ast.comprehension)) else [])
        call = getattr(node, "iter", None)
        counted = (isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(call, ast.Call)
                   and isinstance(call.func, ast.Name) and call.func.id == "range" and not call.keywords
                   and bool(call.args) and all(_constant_value(a, fn, local_values) is not None for a in call.args))
        while targets:  # the names a target binds (row[c] = ... binds none)
            target = targets.pop()
            if isinstance(target, ast.Name):
                binders.setdefault(target.id, []).append(counted)
            elif isinstance(target, (ast.Tuple, ast.List)):
                targets.extend(target.elts)
            elif isinstance(target, ast.Starred):
                targets.append(target.value)
    for arg in ast.walk(tree):
        if isinstance(arg, ast.arg):
            binders.setdefault(arg.arg, []).append(False)
    unrolled = {name for name, counted in binders.items() if all(counted)}

    def known(node) -> bool:
        if isinstance(node, ast.Tuple):
            return all(known(e) for e in node.elts)
        if isinstance(node, ast.BinOp):
            return known(node.left) and known(node.right)
        if isinstance(node, ast.UnaryOp):
            return known(node.operand)
        if isinstance(node, ast.Name) and node.id in unrolled:
            return True
        return _constant_value(node, fn, local_values) is not None

    found = [node for node in ast.walk(tree) if isinstance(node, ast.Subscript)
             and isinstance(node.value, ast.Name) and node.value.id in names and not known(node.slice)]
    return ast.unparse(min(found, key=lambda n: (n.lineno, n.col_offset))) if found else ""


#: What each of the 3-pass version's passes may write (the page's spec; review 28f, 3).
PASS_OUTPUTS = (("maxima",), ("e", "sums"), ("y",))


def _pass_rereads(passes_of, size, threads: int = SIM_THREADS) -> str:
    """The 3-pass version's pass that writes an array other than its own outputs (:data:`PASS_OUTPUTS`),
    or reads back the e or y it writes (review 34f, E1),
    or reads x or e more than :data:`REREAD_LIMIT` times its size (every access counted, as in
    :func:`_once_rules`), or '', at ``threads`` threads a block."""
    rows, cols = size
    buffers = softmax_buffers(rows, cols)
    passes = list(passes_of(buffers))
    try:
        counted = count_passes(passes, rows, threads)
    except CountError as exc:  # review 37f, E1: an index past an array's end gets the small sizes' hint
        if not isinstance(exc.__context__, IndexError):
            raise
        where = _LIMIT_WHERE if (rows, cols, threads) == (LIMIT_ROWS, LIMIT_COLS, LIMIT_THREADS) else (
            f"at {rows} rows x {cols} columns, {threads} threads a block,")
        return f"{where} " + _past_the_end(exc.__context__)  # after "right output, but "
    for number, ((kernel, args), c) in enumerate(zip(passes, counted["per_launch"]), 1):
        own = PASS_OUTPUTS[number - 1] if len(passes) == len(PASS_OUTPUTS) else None
        for i, a in enumerate(args):
            name = next((k for k in buffers if a is buffers[k]), None)
            if own is not None and name not in own and c["by_argument"][f"args[{i}]"]["written"]:
                kname = getattr(kernel_py_func(kernel), "__name__", "kernel")
                return (f"pass {number} ({kname}) writes {name or f'argument {i}'}, which is not its output: each "
                        "pass writes only its own (pass 1 maxima, pass 2 e and sums, pass 3 y), and the byte count "
                        "of Part 2 assumes that. Keep the value in a local variable and write only "
                        f"{' and '.join(own)}")
        for i, a in enumerate(args):  # review 34f, E1: a pass reading back its own output
            name = next((k for k in ("e", "y") if a is buffers[k]), None)
            used = c["by_argument"][f"args[{i}]"]
            if name and used["written"] and used["read"]:
                kname = getattr(kernel_py_func(kernel), "__name__", "kernel")
                # review 41f, E1: the page's traffic rule forbids this read-back; the simulator counts the
                # array as read too, so Part 2's bytes would not match (a GPU's cache would serve it)
                return (f"pass {number} ({kname}) writes {name} and reads it back from global memory, and a pass "
                        f"never reads back what it writes (the traffic rule above). Keep each value in a register, a local variable "
                        f"(v = ...; {name}[r, c] = v), and use v"
                        + (": sum the values as you compute them, then block_reduce" if name == "e" else "")
                        + f". The read-back makes the simulator count {name} as read as well as written, so Part "
                        "2's bytes would not match this kernel")
        for i, a in enumerate(args):
            name = next((k for k in ("x", "e") if a is buffers[k]), None)
            reads = c["by_argument"][f"args[{i}]"]["read"] / a.nbytes if name else 0
            if reads > REREAD_LIMIT:
                kname = getattr(kernel_py_func(kernel), "__name__", "kernel")
                step = _constant_step_loop([(kernel, args)])
                if step:
                    return (f"pass {number} ({kname}) steps by a constant in `{step}`: stride by cuda.blockDim.x, "
                            f"not a constant: at the stated launch of {threads} threads a step of "
                            f"{_constant_step_value([(kernel, args)])} reads each element of {name} about "
                            f"{reads:.0f} times")
                return (f"pass {number} ({kname}) issues {reads:.3g} loads of {name} per element, counting each "
                        f"{name}[r, c] its source reads: does a thread loop over a run of the row (stride 1)? "
                        + STRIDE_FIX)
    return ""


#: The fix for a loop with a stride of 1, in the 3-pass and the fused kernel alike (review 35f, E-stride).
STRIDE_FIX = ("Stride by the block, range(t, cols, cuda.blockDim.x), so each element is read once and a warp's 32 "
              "threads read 32 neighbouring elements in one request (coalesced)")


def _parsed(fn):
    """``(tree, lines)`` of a Python function's source, or None where it cannot be read or parsed."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        return ast.parse(source), source.splitlines()
    except (OSError, TypeError, SyntaxError, ValueError):
        return None


def _parsed_kernels(passes):
    """``(kernel, args, tree, lines)`` for each kernel of ``passes`` whose source can be read and parsed
    (a kernel defined in a notebook cell or a file); the source checks below walk these."""
    for kernel, args in passes:
        try:
            parsed = _parsed(kernel_py_func(kernel))
        except ValueError:  # CountError: not a Numba kernel
            continue
        if parsed is not None:
            yield (kernel, args) + parsed


def _parsed_functions(passes):
    """``(fn, tree, lines)`` for each kernel of ``passes`` and each device function it calls whose source
    can be read and parsed; a launch list the check cannot read is left to the checks that run it."""
    for kernel, _ in passes or ():
        try:
            fn = kernel_py_func(kernel)
            functions = [fn] + [fake.fn for *_, fake in fake_device_functions(fn).values()]
        except Exception:
            continue
        for f in functions:
            parsed = _parsed(f)
            if parsed is not None:
                yield (f,) + parsed


def _thread_index(node) -> bool:
    """Whether ``node`` is ``cuda.threadIdx.x``."""
    return (isinstance(node, ast.Attribute) and node.attr == "x" and isinstance(node.value, ast.Attribute)
            and node.value.attr == "threadIdx")


def _thread_names(tree) -> set:
    """The names a function's source sets to the thread's index (``t = cuda.threadIdx.x``, ``r, t = ...``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                pairs = ([(target, node.value)] if not isinstance(target, ast.Tuple) else
                         list(zip(target.elts, node.value.elts)) if isinstance(node.value, ast.Tuple) else [])
                names.update(t.id for t, v in pairs if isinstance(t, ast.Name) and _thread_index(v))
    return names


def _uses_thread(expr, names: set) -> bool:
    """Whether ``expr`` reads ``cuda.threadIdx.x`` or one of ``names`` (:func:`_thread_names`)."""
    return any(_thread_index(n) or (isinstance(n, ast.Name) and n.id in names) for n in ast.walk(expr))


def _stride_one_loop(passes) -> str:
    """The source line of the first loop ``for c in range(t, n)`` (no step; ``t`` the thread's index) in a
    kernel of ``passes``, or ''.  Each thread then walks a run of the row; in the fused kernel threads
    write the same shared entries, so the simulator's first finding is a race, whose hint (a barrier)
    would not fix the slip (review 35f, E-stride)."""
    for _, _, tree, lines in _parsed_kernels(passes):
        names = _thread_names(tree)
        for node in ast.walk(tree):
            it = node.iter if isinstance(node, ast.For) else None
            if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                    and len(it.args) == 2 and (_thread_index(it.args[0]) or (isinstance(it.args[0], ast.Name)
                                                                            and it.args[0].id in names))
                    and 0 < node.lineno <= len(lines)):
                return lines[node.lineno - 1].strip()
    return ""


def _chunked_loop(passes) -> str:
    """``"the loop `...` (NAME)"`` for the first loop ``for c in range(START, stop)`` (no step, or a step
    of 1) in a kernel of ``passes`` whose START is an expression of the thread's index (``t * per``)
    and whose body indexes a global array (a parameter) by the loop's column.  Each thread then walks its
    own contiguous run: right, and the same DRAM bytes, but a warp's loads are not coalesced on a GPU; the
    passing result says so (review 44f, 2).  A run over shared memory (``row[c]``) is not named; ''
    when none."""
    for kernel, _, tree, lines in _parsed_kernels(passes):
        names = _thread_names(tree)
        _, depends = _thread_dependent(tree)  # a start named first (lo = t * n) is followed to the thread
        for node in ast.walk(tree):
            it = node.iter if isinstance(node, ast.For) else None
            if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                    and len(it.args) in (2, 3) and 0 < node.lineno <= len(lines)):
                continue
            if len(it.args) == 3 and not (isinstance(it.args[2], ast.Constant) and it.args[2].value == 1):
                continue
            start, params = it.args[0], {a.arg for a in tree.body[0].args.args}
            itself = _thread_index(start) or (isinstance(start, ast.Name) and start.id in names)
            if _indexes_by_loop(node, params) and not itself and depends(start):
                kname = getattr(kernel_py_func(kernel), "__name__", "kernel")
                return f"the loop `{lines[node.lineno - 1].strip()}` ({kname})"
    return ""


def _indexes_by_loop(loop, arrays) -> bool:
    """Whether the body of the ``for`` loop ``loop`` indexes an array named in ``arrays`` (a kernel's
    parameters: its global arrays; or its shared arrays) by the loop's column, its target name."""
    return isinstance(loop.target, ast.Name) and any(
        isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in arrays
        and any(isinstance(i, ast.Name) and i.id == loop.target.id for i in ast.walk(n.slice))
        for stmt in loop.body for n in ast.walk(stmt))


def _shared_arrays(tree) -> set:
    """The names a function's source binds to ``cuda.shared.array(...)``."""
    return {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "array"
            and isinstance(node.value.func.value, ast.Attribute) and node.value.func.value.attr == "shared"
            for t in node.targets if isinstance(t, ast.Name)}


def _param_names(tree) -> set:
    """A kernel's parameters and the names its source sets from them, directly or through other such names
    (``cols = x.shape[1]``): what a bound over the row's length is written with."""
    names = {a.arg for a in tree.body[0].args.args}
    grew = True
    while grew:
        grew = False
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(isinstance(n, ast.Name) and n.id in names
                                                    for n in ast.walk(node.value)):
                for target in node.targets:
                    for t in ast.walk(target):
                        if isinstance(t, ast.Name) and t.id not in names:
                            names.add(t.id)
                            grew = True
    return names


def _single_thread_loops(tree, depends) -> set:
    """The ``for`` loops of a function's source that sit under an ``if`` whose test depends on the thread's
    index (``if t == 0:``): run by some of the block's threads, not all."""
    return {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and depends(node.test)
            for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.For)}


def _serial_loop(passes) -> str:
    """``"the loop `...` (NAME)"`` for the first loop ``for c in range(...)`` (no step, or a step of 1) in a kernel
    of ``passes`` none of whose bounds depends on the thread's index, and whose body indexes by the loop's column
    a global array (a parameter), or a shared array where the loop runs under a thread-dependent ``if`` and a
    bound is the row's length (from a parameter): thread 0 walking the whole row, in global or in shared memory,
    under ``if t == 0:``.  Right, and the same DRAM bytes, but on a GPU one thread then does the block's work;
    the passing result says so (review 46f, K2), for the row in shared memory too.  A single thread summing
    a constant number of partials (``range(1, 32)``) is not named; '' when none."""
    for kernel, _, tree, lines in _parsed_kernels(passes):
        _, depends = _thread_dependent(tree)
        params = {a.arg for a in tree.body[0].args.args}
        shared, from_params = _shared_arrays(tree), _param_names(tree)
        single = _single_thread_loops(tree, depends)
        for node in ast.walk(tree):
            it = node.iter if isinstance(node, ast.For) else None
            if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                    and 1 <= len(it.args) <= 3 and isinstance(node.target, ast.Name) and 0 < node.lineno <= len(lines)):
                continue
            if len(it.args) == 3 and not (isinstance(it.args[2], ast.Constant) and it.args[2].value == 1):
                continue
            if any(depends(a) for a in it.args):
                continue  # the thread's own columns: the stride and chunked loops
            row_long = id(node) in single and any(isinstance(n, ast.Name) and n.id in from_params
                                                  for a in it.args for n in ast.walk(a))
            if _indexes_by_loop(node, params) or (row_long and _indexes_by_loop(node, shared)):
                kname = getattr(kernel_py_func(kernel), "__name__", "kernel")
                return f"the loop `{lines[node.lineno - 1].strip()}` ({kname})"
    return ""


def _constant_step_loops(passes):
    """``(kernel, line, step, start)`` for each loop ``for c in range(start, stop, STEP)`` in a kernel of ``passes``
    whose STEP is a whole number above 1 at compile time: a literal, or a local, closure or global name
    holding one (``THREADS``)."""
    for kernel, _, tree, lines in _parsed_kernels(passes):
        fn = kernel_py_func(kernel)
        local_values = _local_constants(tree, fn)
        for node in ast.walk(tree):
            it = node.iter if isinstance(node, ast.For) else None
            if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                    and len(it.args) == 3 and 0 < node.lineno <= len(lines)):
                step = _constant_value(it.args[2], fn, local_values)
                if step is not None and step > 1:
                    yield kernel, lines[node.lineno - 1].strip(), step, it.args[0]


def _constant_step_loop(passes) -> str:
    """The source line of the first loop ``for c in range(start, stop, <whole number>)`` in a kernel of
    ``passes``, or '' (review 36f, E1: a step of 32 equals the simulator's block, not the stated one)."""
    return next((line for _, line, *_ in _constant_step_loops(passes)), "")


def _constant_step_value(passes) -> str:
    """The step of the loop :func:`_constant_step_loop` names, as text."""
    return next((str(step) for _, _, step, _ in _constant_step_loops(passes)), "a constant")


def _off_block_step(passes) -> str:
    """Why a loop of ``passes`` that starts at the thread's index and steps by a constant other than the
    simulator's :data:`SIM_THREADS` gives a wrong output there, with the fix, or ''.  Checked first
    when the output, an intermediate or a shared array is wrong (review 44f, 1: a step of ``THREADS``
    skipped columns, and the hint sent the student to block_reduce, which they called right)."""
    for kernel, line, step, start in _constant_step_loops(passes):
        if step == SIM_THREADS:
            continue  # right at the simulator's block; the traffic count at the stated block refuses it
        names = _thread_names(_parsed(kernel_py_func(kernel))[0])
        if not _uses_thread(start, names):
            continue  # not a loop over the thread's columns
        kname = getattr(kernel_py_func(kernel), "__name__", "kernel")
        effect = (f"the threads never reach columns {SIM_THREADS}-{step - 1} of each {step}" if step > SIM_THREADS
                  else f"several threads read (and write) the same columns")
        return (f"the loop `{line}` ({kname}) steps by {step}, a constant, not the block's size: the simulator "
                f"runs {SIM_THREADS} threads a block, so {effect}, and the rules allow any power of two up to "
                f"THREADS. " + STRIDE_FIX)
    return ""


def _stride_hint(line: str) -> str:
    return (f"the loop `{line}` has a stride of 1: each thread walks a run of the row, so threads read (and "
            f"write) the same elements. " + STRIDE_FIX)


def _fp64_constant(passes) -> str:
    """``"NAME: the line `s = 0.0` ..."`` for the first variable a kernel of ``passes`` sets to a bare float
    literal or an infinity (``0.0``, ``-math.inf``, ``float('inf')``) instead of ``float32(...)``, or ''.
    Numba types such a constant float64, so on the GPU the sum or max built on it runs in fp64, against
    Part 1's rule (review 35f, E2); an integer (``c = 0``) or a call such as ``float32(0)`` is let through."""
    def fp64(node) -> bool:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return fp64(node.operand)
        if isinstance(node, ast.Constant):
            return isinstance(node.value, float)
        if isinstance(node, ast.Attribute):
            return node.attr in ("inf", "nan", "pi", "e") and isinstance(node.value, ast.Name)
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float")

    for kernel, _, tree, lines in _parsed_kernels(passes):
        fn, source = kernel_py_func(kernel), "\n".join(lines)
        for node in sorted(ast.walk(tree), key=lambda n: getattr(n, "lineno", 0)):
            # a local variable only: a store into an array (maxima[r] = -math.inf) takes the array's float32
            pairs = []
            for target in (node.targets if isinstance(node, ast.Assign) else
                           [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else []):
                pairs += ([(target, node.value)] if not isinstance(target, ast.Tuple) else
                          list(zip(target.elts, node.value.elts)) if isinstance(node.value, ast.Tuple) else [])
            bad = next((v for t, v in pairs if isinstance(t, ast.Name) and fp64(v)), None)
            if bad is not None and 0 < node.lineno <= len(lines):
                const = ast.get_source_segment(source, bad) or "the constant"
                return (f"{fn.__name__}: the line `{lines[node.lineno - 1].strip()}` starts a value at {const}, a "
                        f"float64 constant, so on the GPU what is built on it runs in fp64: write float32({const})")
        more = _fp64_arithmetic(tree, lines, source)  # review 36f, E2: the same effect, other spellings
        if more:
            return f"{fn.__name__}: " + more
    return ""


def _fp64_arithmetic(tree, lines, source) -> str:
    """The hint for a float literal in arithmetic outside ``float32(...)`` (``inv = 1.0 / sums[r]``), or
    for a name started at an int literal and later added a non-int (``s = 0`` then ``s += v``), or ''.
    Numba types both float64, as it types ``s = 0.0`` (review 36f, E2).  A value counts as an int when it
    is built from int literals, the thread and block indices and sizes, shapes, ``len``, ``int`` and names
    so built (loop counters, index arithmetic), which stay allowed."""
    exempt = set()  # what float32(...) wraps: converted once, not arithmetic in fp64
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and (getattr(node.func, "id", None) or getattr(node.func, "attr", ""))
                in ("float32", "float16", "int32", "int64")):
            exempt.update(id(n) for a in node.args for n in ast.walk(a))
    nodes = sorted(ast.walk(tree), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))

    def line_of(node) -> str:
        return lines[node.lineno - 1].strip() if 0 < getattr(node, "lineno", 0) <= len(lines) else ""

    for node in nodes:
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and id(node) not in exempt:
            operands = [node.left, node.right] if isinstance(node, ast.BinOp) else [node.value]
            for o in operands:
                inner = o.operand if isinstance(o, ast.UnaryOp) else o
                if isinstance(inner, ast.Constant) and isinstance(inner.value, float) and line_of(node):
                    const = ast.get_source_segment(source, o) or repr(inner.value)
                    return (f"the line `{line_of(node)}` uses {const}, a float64 constant, in arithmetic, so on the "
                            f"GPU it runs in fp64: write float32({const})")
    ints = set()  # names that hold ints: loop counters and index arithmetic
    int_start = {}  # name -> the line that started it at an int literal

    def is_int(node) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, int) and not isinstance(node.value, bool)
        if isinstance(node, ast.Name):
            return node.id in ints
        if isinstance(node, ast.Attribute):
            return node.attr in ("x", "y", "z", "size", "ndim") or node.attr in ("threadIdx", "blockIdx",
                                                                                 "blockDim", "gridDim")
        if isinstance(node, ast.Subscript):
            return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
        if isinstance(node, ast.UnaryOp):
            return is_int(node.operand)
        if isinstance(node, ast.BinOp):
            return not isinstance(node.op, ast.Div) and is_int(node.left) and is_int(node.right)
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
            return name in ("len", "int", "grid", "gridsize") or (name in ("min", "max") and all(map(is_int, node.args)))
        if isinstance(node, ast.Tuple):
            return all(map(is_int, node.elts))
        return False

    for node in nodes:
        # `/` with an int operand (1 / sums[r], row[c] * (1 / s)): Numba's true division of an int gives a
        # float64, as 1.0 does, so it is refused as 1.0 / sums[r] is
        div = (node if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and id(node) not in exempt
               else None)
        whole = [o for o in ([div.left, div.right] if div is not None else []) if is_int(o)]
        if whole and line_of(node):
            const = ast.get_source_segment(source, whole[0]) or "the integer"
            return (f"the line `{line_of(node)}` divides with {const}, an integer, and Numba's `/` on an integer "
                    f"gives a float64, so on the GPU it runs in fp64: write float32({const})")
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            it = node.iter
            if isinstance(it, ast.Call) and getattr(it.func, "id", None) == "range":
                ints.add(node.target.id)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                pairs = ([(target, node.value)] if not isinstance(target, ast.Tuple) else
                         list(zip(target.elts, node.value.elts)) if isinstance(node.value, ast.Tuple) else [])
                for t, v in pairs:
                    if isinstance(t, ast.Name) and is_int(v):
                        ints.add(t.id)
                        if isinstance(v, ast.Constant):
                            int_start.setdefault(t.id, line_of(node))
        elif (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in int_start
              and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) and not is_int(node.value) and line_of(node)):
            name = node.target.id
            return (f"the line `{int_start[name]}` starts {name} at an integer, and `{line_of(node)}` adds a float "
                    f"to it, so Numba types {name} float64 and what is built on it runs in fp64: start it at "
                    f"float32(0)")
    return ""


def _once_rules(passes_of, size, threads: int = SIM_THREADS) -> str:
    """What breaks the fused kernel's two rules in global memory, or '': its reads of ``x``
    (counted on x alone, wherever a launch passes it) past one read of x, then its writes (to
    any array: the fused kernel has only y to write) past one write of y; at ``threads`` threads
    a block."""
    rows, cols = size
    buffers = softmax_buffers(rows, cols)
    x, y = buffers["x"], buffers["y"]
    passes = list(passes_of(buffers))
    try:
        counted = count_passes(passes, rows, threads)
    except CountError as exc:  # an index past an array's end: the limits check names it, with its rule
        if not isinstance(exc.__context__, IndexError):
            raise
        return ""
    x_read = [c["by_argument"][f"args[{i}]"]["read"]
              for (_, args), c in zip(passes, counted["per_launch"]) for i, a in enumerate(args) if a is x]
    reads = (sum(x_read) if x_read else counted["read"]) / x.nbytes  # x not passed as itself: every read
    if reads > 1 + READ_ONCE_SLACK:
        step = _constant_step_loop(passes)
        if step:  # review 39f, E1: a step of 32 is the simulator's block, not the stated launch's
            return (f"steps by a constant in `{step}`: stride by cuda.blockDim.x, not a constant: at {threads} "
                    f"threads a block a step of {_constant_step_value(passes)} reads each element of x about "
                    f"{reads:.0f} times")
        fixed, constant = _fixed_x_read(passes, x)
        if fixed:  # review 33f, 2: name the cause, every thread reading one element
            what = ("has every thread read the same element of x" if constant else
                    "reads x outside the loops, so the elements it reads are loaded again in a loop")
            return (f"issues {reads:.3g} loads of x per element, counting each x[r, c] its source reads: the "
                    f"line `{fixed}` {what}; start the max at -inf (float32(-math.inf)) instead, so each element "
                    "of x is loaded once")
        # the simulator counts loads, not DRAM bytes: a repeated load is likely an L1 or L2 hit
        return (f"issues {reads:.3g} loads of x per element, counting each x[r, c] its source reads; a repeated "
                "load costs DRAM traffic only if the row no longer sits in the L1 or L2 cache (a hypothesis: the "
                "simulator counts loads, not DRAM bytes), and the exercise asks for one: load each element of x "
                "once into the row in shared memory (cuda.shared.array), then use row[c] from there")
    writes = counted["written"] / y.nbytes
    if writes > 1 + READ_ONCE_SLACK:
        return (f"writes {writes:.3g}x the bytes of y to global memory: write each element of y once, at the end, "
                "and keep the values before it (the row, its exps) in shared memory")
    return ""


def _fixed_x_read(passes, x) -> tuple:
    """``(line, constant)``: the source line of the first read of ``x`` outside every loop in a kernel of
    ``passes`` that is passed ``x``, and whether its column is a constant (``m = x[r, 0]``: a read every
    thread of the block makes), or ``("", False)``.  Called only when x is loaded more than once per
    element: a start such as ``m = x[r, t]`` is then loaded again by the loop (review 33f, 2)."""
    for _, args, tree, lines in _parsed_kernels(passes):
        try:
            params = [a.arg for a in tree.body[0].args.args]
        except (IndexError, AttributeError):
            continue
        names = {params[i] for i, a in enumerate(args) if a is x and i < len(params)}
        in_loop = {id(n) for loop in ast.walk(tree) if isinstance(loop, (ast.For, ast.While))
                   for n in ast.walk(loop)}
        for node in sorted(ast.walk(tree), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))):
            if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
                    and isinstance(node.value, ast.Name) and node.value.id in names
                    and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2
                    and 0 < node.lineno <= len(lines)):
                constant = isinstance(node.slice.elts[1], ast.Constant)
                if constant or id(node) not in in_loop:
                    return lines[node.lineno - 1].strip(), constant
    return "", False


def _compile_refusal(passes) -> str:
    """Why the GPU compiler refuses one of ``passes``' kernels, or '' when all compile.  Where
    Numba's CUDA compiler is available (NVVM, no GPU needed; :func:`_compiler_available`), it
    decides: each kernel is compiled to PTX for sm_90, and a refusal is told with the source check's
    sentence when that check names an array whose shape is not a constant (:func:`_unsized_array`),
    else with the compiler's own first line, and any other exception it raises (np.exp's KeyError) is a
    refusal too.  Where it is not (the simulator switched on, no NVVM), the source check alone decides,
    so a shape set at run time is refused on every machine, and a pass says the compile check did not run."""
    unsized = called = ""
    for kernel, _ in passes:
        fn = kernel_py_func(kernel)
        for f in [fn] + [fake.fn for *_, fake in fake_device_functions(fn).values()]:
            unsized = unsized or _unsized_array(f)
            called = called or _module_call(f)
    if called:  # review 31f, 1: refused on every machine, not only where the compiler runs
        return called
    if not _compiler_available():  # review 28f, 1: the PASS line says the compile check did not run
        return unsized or NOT_COMPILED
    import numba
    from numba import cuda
    from numba.core.errors import NumbaError
    for kernel, args in passes:
        try:
            with _sm90_device_functions():
                cuda.compile_ptx(kernel_py_func(kernel), tuple(numba.typeof(a) for a in args), cc=(9, 0))
        except NumbaError as exc:  # numba.cuda's own TypingError is one too
            first = _first_compiler_line(str(exc))
            if unsized and ".array" in first:
                return unsized
            return first + (SHAPE_HINT if ".array" in first else "")
        except Exception as exc:
            if _no_compiler(exc):  # no driver or no NVVM: the check could not run
                return unsized or NOT_COMPILED
            return unsized or _compiler_crash(exc)  # review 28f, 1: np.exp raises KeyError(<ufunc 'exp'>)
    return ""


def _no_compiler(exc) -> bool:
    """Whether ``exc`` says the compiler could not run here (no CUDA driver, no NVVM), not that it
    refused the kernel."""
    if type(exc).__name__ in ("CudaSupportError", "NvvmSupportError"):
        return True
    return isinstance(exc, (RuntimeError, OSError, ImportError)) and bool(
        re.search(r"nvvm|cuda driver|libcuda", str(exc), re.IGNORECASE))


def _compiler_crash(exc) -> str:
    """A refusal for an exception the compiler raised that is not a Numba error, in one line: a NumPy
    ufunc (``np.exp``) is named with its ``math`` form."""
    ufunc = re.search(r"<ufunc '(\w+)'>", str(exc))
    if ufunc:
        return (f"np.{ufunc.group(1)} is not compiled in a GPU kernel (the compiler stops with "
                f"{type(exc).__name__}): call math.{ufunc.group(1)} instead")
    return f"the compiler stopped with {type(exc).__name__}: " + " ".join(str(exc).split())[:200]


@contextlib.contextmanager
def _sm90_device_functions():
    """While open, a device function the kernel calls (block_reduce) is compiled for sm_90 where no GPU
    is: Numba compiles it for the current device, and without a driver that raises CudaSupportError,
    so the compile check would not run on a machine with no GPU (review 28f, 1)."""
    from numba.cuda import dispatcher
    try:
        dispatcher.get_current_device().compute_capability
        has_gpu = True
    except Exception:
        has_gpu = False
    if has_gpu:
        yield
        return
    original = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=(9, 0))
    try:
        yield
    finally:
        dispatcher.get_current_device = original


#: :func:`_compile_refusal`'s answer when the compiler could not run on these kernels: no NVVM, the CUDA
#: simulator switched on, or a CUDA driver error.
NOT_COMPILED = ("; the compile check did not run (Numba's CUDA compiler is not available here), so a call the "
                "GPU compiler refuses is caught only where a source check names it (np.exp is)")
#: What a compiler refusal of a shared or local array adds (the source check's sentence says it).
SHAPE_HINT = " (a shared array's size must be a constant, such as MAX_COLS)"
_COMPILER = []  # [True or False] once :func:`_compiler_available` has tried


def _compiler_available() -> bool:
    """Whether Numba's CUDA compiler runs here: a two-line kernel compiled to PTX for sm_90 (NVVM,
    no GPU); never under the CUDA simulator, whose ``compile_ptx`` compiles nothing."""
    if not _COMPILER:
        try:
            from numba import config, cuda, float32
            if config.ENABLE_CUDASIM:
                raise RuntimeError("the CUDA simulator is switched on")

            def probe(a):
                a[0] = float32(1)

            cuda.compile_ptx(probe, (float32[:],), cc=(9, 0))
            _COMPILER.append(True)
        except Exception:
            _COMPILER.append(False)
    return _COMPILER[0]


def _first_compiler_line(text: str) -> str:
    """The line of a Numba error that says what failed (not "Failed in cuda mode pipeline"), with the
    signature it names, and without memory addresses or colour codes."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # Numba highlights its messages in a terminal's colours
    lines = [re.sub(r" at 0x[0-9a-fA-F]+", "", line.strip()) for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("Failed in ")] or ["a typing error"]
    first = lines[0]
    if first.endswith("found for signature:") and len(lines) > 1 and lines[1].startswith(">>>"):
        first = f"{first} {lines[1][3:].strip()}"
    return first[:200]


def _constant_shape(node, fn, local_values: dict) -> bool:
    """Whether ``node``, an array's shape in ``fn``'s source, is one the GPU compiler takes: a whole
    number, a local name holding one at compile time, a closure's or a global's name holding one, or
    a tuple of those (``local_values``: each local name, parameters included, and the whole number
    it holds or None, from :func:`_local_constants`)."""
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_constant_shape(e, fn, local_values) for e in node.elts)
    return _constant_value(node, fn, local_values) is not None


def _constant_value(node, fn, local_values: dict):
    """The whole number ``node`` holds at compile time in ``fn``, or None: a literal, a local name
    in ``local_values``, else a closure's or a global's name holding an int."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    if not isinstance(node, ast.Name):
        return None  # an expression (x.shape[1], N * 2, module.N) has a type but no value at compile time
    if node.id in local_values:
        return local_values[node.id]
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    if node.id in cells:
        try:
            value = cells[node.id].cell_contents
        except ValueError:  # an empty cell
            return None
    else:
        value = fn.__globals__.get(node.id)
    return value if type(value) is int else None


def _local_constants(tree, fn) -> dict:
    """Each name ``fn``'s source (``tree``) binds, parameters included, and the whole number it
    holds at compile time, or None.  A name holds one when every assignment to it gives one (a
    literal, a global or closure int, or another such local: ``n = MAX_COLS`` then ``m = n``) and
    they agree, or they all stand in the function's straight-line top level (the last one before
    a use reaches it); Numba's compiler takes these, and refuses a name assigned different numbers
    in two branches.  A parameter, a loop variable or an augmented assignment holds none."""
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) else []
    top = {id(stmt) for stmt in body}
    defs = {}  # name -> [(value node or None, assigned at the top level)]

    def bind(target, value, stmt):
        if isinstance(target, ast.Name):
            defs.setdefault(target.id, []).append((value, id(stmt) in top))
        elif isinstance(target, (ast.Tuple, ast.List)):
            pairs = (isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
                     and not any(isinstance(e, ast.Starred) for e in target.elts + value.elts))
            for i, element in enumerate(target.elts):
                bind(element, value.elts[i] if pairs else None, stmt)
        elif isinstance(target, ast.Starred):
            bind(target.value, None, stmt)
        # a subscript or an attribute (row[c] = ..., a.b = ...) binds no name

    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            defs.setdefault(node.arg, []).append((None, False))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                bind(target, node.value, node)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            bind(node.target, node.value, node)
        elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr)):
            bind(node.target, None, node)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bind(node.optional_vars, None, node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            defs.setdefault(node.name, []).append((None, False))
    values = {name: None for name in defs}
    changed = True
    while changed:  # a chain of aliases resolves one link a round; a cycle stays None
        changed = False
        for name, assignments in defs.items():
            if values[name] is not None:
                continue
            found = [None if node is None else _constant_value(node, fn, values) for node, _ in assignments]
            if all(v is not None for v in found) and (len(set(found)) == 1 or all(t for _, t in assignments)):
                values[name] = found[-1]
                changed = True
    return values


def _shared_on_one_line(passes) -> str:
    """``"NAME: the line `...` allocates 2 shared arrays: ..."`` for the first source line of a kernel of
    ``passes`` (or a device function it calls) with two or more ``cuda.shared.array`` calls, or ''.
    Numba's simulator keys a shared array by the line that allocates it, so two on one line
    (``row = ...; part = ...`` or ``row, part = ..., ...``) are one array there, while on a GPU they are
    two: a right kernel would fail with a misleading hint (review 33f, 1)."""
    for f, tree, lines in _parsed_functions(passes):
        per_line = collections.Counter(
            node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "array"
            and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "shared")
        crowded = sorted(line for line, n in per_line.items() if n > 1)
        if crowded:
            text = lines[crowded[0] - 1].strip() if crowded[0] <= len(lines) else ""
            return (f"{f.__name__}: the line `{text}` allocates {per_line[crowded[0]]} shared arrays: put each "
                    "cuda.shared.array on its own line (the CUDA simulator tells shared arrays apart by their "
                    "line, so on one line they are one array; on a GPU they are two)")
    return ""


def _unsized_array(fn) -> str:
    """``"NAME: cuda.shared.array(SHAPE, ...): ..."`` for the first ``cuda.shared.array`` or
    ``cuda.local.array`` in ``fn`` whose shape is not a compile-time constant, or '' (also when
    the source cannot be read).  Numba's CUDA target refuses such an array (``x.shape[1]``, a
    parameter, ``N * 2``); the simulator runs it.  A local alias of a constant (``n = MAX_COLS``)
    is a constant (:func:`_local_constants`)."""
    parsed = _parsed(fn)
    if parsed is None:
        return ""
    tree = parsed[0]
    local_values = _local_constants(tree, fn)
    for node in ast.walk(tree):
        func = getattr(node, "func", None)
        if not (isinstance(node, ast.Call) and isinstance(func, ast.Attribute) and func.attr == "array"
                and isinstance(func.value, ast.Attribute) and func.value.attr in ("shared", "local")):
            continue
        shape = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "shape"), None)
        if shape is not None and not _constant_shape(shape, fn, local_values):
            return (f"{fn.__name__}: cuda.{func.value.attr}.array({ast.unparse(shape)}, ...) has a shape set at run "
                    "time; the GPU compiler needs a constant (a number, a tuple of numbers, a global such as "
                    "MAX_COLS, or a local name set to one)")
    return ""


#: The ``math`` functions Numba's CUDA target compiles (numba/cuda/cudamath.py); any other refuses.
GPU_MATH = frozenset("acos acosh asin asinh atan atan2 atanh ceil copysign cos cosh degrees erf erfc exp expm1 fabs "
                     "floor fmod frexp gamma hypot isfinite isinf isnan ldexp lgamma log log10 log1p log2 modf pow "
                     "radians remainder sin sinh sqrt tan tanh trunc".split())


def _module_call(fn) -> str:
    """``"NAME: the line `...` calls np.exp, ...: call math.exp instead"`` for the first call in
    ``fn`` through the NumPy module (``np.exp``, ``numpy.sum``; a NumPy scalar type such as
    ``np.float32(v)`` compiles and is let through) or to a ``math`` function the GPU compiler does
    not have (``math.fsum``), or ''.  The simulator runs both; the compiler refuses them, and where
    it cannot run (review 31f, 1) this source check refuses them on every machine."""
    import math
    import numpy as np
    parsed = _parsed(fn)
    if parsed is None:
        return ""
    tree, lines = parsed
    globs = getattr(fn, "__globals__", {})
    for node in ast.walk(tree):
        func = getattr(node, "func", None) if isinstance(node, ast.Call) else None
        chain = []
        while isinstance(func, ast.Attribute):
            chain.insert(0, func.attr)
            func = func.value
        if not (isinstance(func, ast.Name) and chain):
            continue
        root = globs.get(func.id)
        module = getattr(root, "__name__", func.id) if isinstance(root, types.ModuleType) or root is None else ""
        name = ".".join([func.id] + chain)
        if module.split(".")[0] == "numpy" or (root is None and func.id in ("np", "numpy")):
            called = root
            for attr in chain:
                called = getattr(called, attr, None)
            if isinstance(called, type) and issubclass(called, np.generic):
                continue  # np.float32(v): a cast the GPU compiler has
            fix = (f"call math.{chain[-1]} instead" if chain[-1] in GPU_MATH
                   else "use a math function, cuda.* or plain arithmetic instead")
            why = "NumPy's functions are not compiled in a GPU kernel"
        elif module == "math" and len(chain) == 1 and callable(getattr(math, chain[0], None)) \
                and chain[0] not in GPU_MATH:
            fix, why = "write it with plain arithmetic or a loop instead", "the GPU compiler has no math." + chain[0]
        else:
            continue
        line = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else ""
        where = f"the line `{line}` calls {name}" if line else f"{name} is called"
        return f"{fn.__name__}: {where}, which the simulator runs but the GPU compiler refuses ({why}): {fix}"
    return ""


def _wrong_intermediates(buffers: dict) -> str:
    """What is wrong with the 3-pass version's ``maxima`` and ``sums`` when ``y`` is right ('' when
    nothing): pass 1 must write each row's true maximum, not any value that keeps exp in range."""
    import numpy as np
    x = buffers["x"]
    if not np.array_equal(buffers["maxima"], x.max(axis=1)):
        wrong = np.flatnonzero(buffers["maxima"] != x.max(axis=1))
        if len(x) > 1 and list(wrong) == [NEGATIVE_ROW % len(x)]:
            return (f"maxima[{wrong[0]}] is not the largest value of row {wrong[0]}, whose values are all "
                    f"negative (each less {NEGATIVE_SHIFT:g}): does pass 1's maximum start at -inf "
                    "(float32(-math.inf)) or at the row's first value, not at 0?")
        return ("maxima[r] is not the largest x[r, c] of row r in every row: pass 1 must reduce over the whole "
                "row (every thread's part, combined with block_reduce, which every thread must call: it holds barriers)")
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    if not np.all(np.abs(buffers["sums"] - e.sum(axis=1)) / e.sum(axis=1) < MAX_RELATIVE_ERROR):
        why = "sums[r] is not the sum of exp(x[r, c] - maxima[r]) over the whole row in every row"
        if np.isinf(buffers["sums"][LARGE_ROW]):  # the cause the fused kernel's hint names, said here too
            why += (f": row {LARGE_ROW}'s sum is infinite, as exp of its one large value (an element + "
                    f"{LARGE_SHIFT:g}) overflows float32's range unless maxima[r] is subtracted first")
        return why
    return ""


def _unset_atomic(passes, buffers: dict) -> str:
    """``"pass 2 (exp_sum_body) adds into sums with `...`"`` for the first ``cuda.atomic.<op>`` on a global
    array that no pass sets with a plain write, or ''.  An atomic reads the entry it updates, so with
    nobody zeroing it first it starts from the check's NaN fill (on a GPU, from whatever was there;
    review 44f, 3: the generic NaN hint did not name the atomic)."""
    found, written = [], set()
    for number, (kernel, args, tree, lines) in enumerate(_parsed_kernels(passes), 1):
        fn = tree.body[0] if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None
        if fn is None:
            continue
        arrays = {a.arg: next((k for k in buffers if v is buffers[k]), None) for a, v in zip(fn.args.args, args)}
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else []
            written.update(arrays.get(t.value.id) for t in targets
                           if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name))
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args
                    and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "atomic"
                    and isinstance(node.args[0], ast.Name) and arrays.get(node.args[0].id)
                    and 0 < node.lineno <= len(lines)):
                found.append((number, kernel, arrays[node.args[0].id], lines[node.lineno - 1].strip()))
    for number, kernel, name, line in found:
        if name not in written:
            kname = getattr(kernel_py_func(kernel), "__name__", "kernel")
            return (f"pass {number} ({kname}) updates {name} with `{line}`, which reads {name}[r] and adds to it, "
                    f"but nobody zeroed {name}: this check fills it with NaN before your kernels run (a GPU leaves "
                    f"whatever was there). Zero it first in the same kernel (if t == 0: {name}[r] = float32(0)), "
                    "then a cuda.syncthreads() before the atomics")
    return ""


def _only_large_row_wrong(y, x) -> bool:
    """Whether every ordinary row of ``y`` is right and only :data:`LARGE_ROW` (or the all-negative
    :data:`NEGATIVE_ROW`) is not."""
    import numpy as np
    rows = np.arange(len(y))
    ordinary = np.flatnonzero((rows != LARGE_ROW) & (rows != NEGATIVE_ROW % len(y)))
    return bool(np.isfinite(y[ordinary]).all() and _max_error(y, x, ordinary) < MAX_RELATIVE_ERROR)


def _largest_error(error: float) -> str:
    """``"the largest relative error is 0.5"``, or, for a NaN or infinite error, that the output holds
    NaN or inf (review 31f, 4: "the largest relative error is nan")."""
    import math
    return f"the largest relative error is {error:.3g}" if math.isfinite(error) else "the output holds NaN or inf"


def _wrong_output(y, x, error: float, first_value: bool = True) -> str:
    """Why ``y`` is wrong, in the order that finds the cause: outputs never written (still
    :data:`UNWRITTEN`: often a loop that strides by THREADS where the simulator runs
    :data:`SIM_THREADS`), then outputs written as NaN (shared memory or a NaN-filled intermediate, maxima, e or
    sums, read before any thread or earlier pass wrote it: a missing barrier between phases), then wrong ordinary rows (a reduction), and only when those are right the
    large row alone (an exp that overflows float32)."""
    import numpy as np
    others = np.arange(len(y)) != LARGE_ROW
    neg = NEGATIVE_ROW % len(y) if len(y) > 1 else None
    unwritten = int((y[others] == UNWRITTEN).sum())
    if unwritten:
        missed = y[others] == UNWRITTEN
        head = f"{unwritten:,} of the {y[others].size:,} outputs of the ordinary rows were never written"
        columns = np.arange(y.shape[1])
        if (missed == (columns % LIMIT_THREADS >= SIM_THREADS)).all():  # what a stride of THREADS leaves out
            return (f"{head}; the simulator runs {SIM_THREADS} threads a block, not THREADS: does every loop over "
                    "a row stride by cuda.blockDim.x?")
        rows = np.flatnonzero(others)[missed.any(axis=1)]
        cols = np.flatnonzero(missed.any(axis=0))
        return (f"{head}: column{'s' if len(cols) > 1 else ''} {_spans(cols)} of row{'s' if len(rows) > 1 else ''} "
                f"{_spans(rows)}: does every "
                "loop run over the whole row (range(t, x.shape[1], cuda.blockDim.x), row r = cuda.blockIdx.x)?")
    nan = int(np.isnan(y[others]).sum())
    if nan and neg is not None and not np.isnan(np.delete(y, [LARGE_ROW, neg], axis=0)).any():
        nan = 0  # NaN in the all-negative row alone: its hint below
    if nan:
        return (f"{nan:,} of the {y[others].size:,} outputs of the ordinary rows came out NaN, the value this check "
                "puts in every shared array and in maxima, e and sums before your kernels run: does a thread read "
                "a value before any thread or earlier pass wrote it (a cuda.syncthreads() missing between two "
                "phases, or a pass reading an intermediate no earlier pass writes)?")
    ordinary = np.flatnonzero(others & (np.arange(len(y)) != neg))
    if not (np.isfinite(y[ordinary]).all() and _max_error(y, x, ordinary) < MAX_RELATIVE_ERROR):
        return ("the ordinary rows' outputs are wrong: check the reductions (every thread needs the whole row's "
                "max and sum, not its own part of them) and each pass against its description")
    def right(r):
        return r is None or bool(np.isfinite(y[r]).all() and _max_error(y, x, [r]) < MAX_RELATIVE_ERROR)
    negative = (f"row {neg}, whose values are all negative (each less {NEGATIVE_SHIFT:g})")
    if not right(LARGE_ROW):
        large = f"row {LARGE_ROW}, which holds one large value (an element + {LARGE_SHIFT:g}), is"
        if not right(neg):  # review 37f, E3: two rows, one verb ("are")
            large = (f"rows {LARGE_ROW} (one element + {LARGE_SHIFT:g}: its exp overflows) and {neg} (all values "
                     f"- {NEGATIVE_SHIFT:g}: every exp underflows to 0) are")
        return (f"the ordinary rows are right, but {large} wrong or not finite: does every exp stay inside "
                f"float32's range (is the "
                "row's true maximum subtracted first)?")  # review 41f, E3: no race was seen (checked before)
    if not right(neg):
        # review 34f, E3: the fused kernel's x[r, 0] start is refused by the read-once rule, so not offered there
        first = " or at the row's first value" if first_value else ""
        return (f"the other rows are right, but {negative} is wrong or not finite: does each maximum start at "
                f"-inf (float32(-math.inf)){first}? A start at 0 is above every value of that "
                "row, so 0 is subtracted and every exp underflows to 0")
    return f"{_largest_error(error)}; check each pass against its description"


def _spans(values, most: int = 4) -> str:
    """Sorted integers as ranges, "0-6, 9", the first ``most`` of them."""
    spans = []
    for v in (int(v) for v in values):
        if spans and v == spans[-1][1] + 1:
            spans[-1][1] = v
        else:
            spans.append([v, v])
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans[:most])
    return text + (", ..." if len(spans) > most else "")


def _simulate_output(passes, rows: int, buffers: dict, races: list = None, threads: int = SIM_THREADS):
    """Run the launches one after another in the simulator on the host buffers, each pass
    seeing what the one before wrote, and return ``y``.  Given a list, ``races``, the shared
    arrays are watched (:func:`rooflinelib.profiling.races.detect`) and the first race found in
    a launch is appended to it, whatever order the simulator ran the threads in."""
    import numpy as np
    from numba.cuda.simulator.kernel import FakeCUDAKernel
    from rooflinelib.profiling import races as race_detector
    for kernel, args in passes:
        fn = kernel_py_func(kernel)
        fakes = fake_device_functions(fn)
        for globs, name, _, fake in fakes.values():
            globs[name] = fake
        fill, simulator.SHARED_FILL = simulator.SHARED_FILL, float("nan")  # a read before any write gives NaN, every run
        try:
            watch = race_detector.detect() if races is not None else contextlib.nullcontext([])
            with quick(), watch as found:
                if races is not None:  # the launch's arrays too: a race on global memory (an output entry)
                    args = tuple(found.watch(a) if isinstance(a, np.ndarray) and a.ndim else a for a in args)
                FakeCUDAKernel(fn, device=False)[rows, threads](*args)
            if races is not None:
                races.extend(found)
        finally:
            simulator.SHARED_FILL = fill
            for globs, name, original, _ in fakes.values():
                globs[name] = original
    return buffers["y"]


def versions_passed(check) -> dict:
    """``{"3-pass": bool, "fused": bool}``: which versions passed :func:`check_kernels`' report ``check``
    (its checks in that order), so that Part 2 counts and checks each version on its own."""
    return {name: c.passed for name, c in zip(VARIANTS, check.checks)}


def count_versions(three_pass_passes, fused_passes, passed: dict, sizes=None) -> dict:
    """``{(rows, cols): {"3-pass": count, "fused": count}}`` at ``sizes`` (:data:`SIM_SIZES`), by
    :func:`count_passes`, for the versions ``passed`` (:func:`versions_passed`) marks as passing; a version
    that has not passed, or whose count stops (an index past an array's end: Part 1 named the line), gets
    ``{}``, for which :func:`check_byte_formula` waits, never a traceback."""
    counts = {}
    for rows, cols in sizes or SIM_SIZES:
        buffers = softmax_buffers(rows, cols)
        counts[rows, cols] = {}
        for name, passes_of in zip(VARIANTS, (three_pass_passes, fused_passes)):
            try:
                counts[rows, cols][name] = (count_passes(passes_of(buffers), rows, SIM_THREADS)
                                            if passed.get(name) else {})
            except CountError:
                counts[rows, cols][name] = {}
    return counts


def check_byte_formula(formula, counted_at: dict, question: str, kernels_ok: bool = True):
    """The student's ``formula(rows, cols)`` against the distinct bytes counted at each size of
    ``counted_at`` (``{(rows, cols): count_passes(...)}``), within 2%.  The count is of the
    student's own kernels, so while they have not passed :func:`check_kernels` (``kernels_ok``
    false) or moved no bytes (the exercise's stubs), there is nothing to check against: not
    answered yet, never a verdict on the formula."""
    if not kernels_ok or not all(distinct_bytes(c) for c in counted_at.values()):
        return Check(question, "unanswered", "finish your kernels first: this formula is checked against the bytes "
                                             "they move in the simulator, and they have not passed their check yet")
    samples = [{"rows": r, "cols": c} for r, c in counted_at]
    if callable(formula) and not is_unanswered(formula):
        student = formula

        def formula(rows, cols):  # called by position: the student may name the parameters as they like
            return student(rows, cols)
    keys = {size: distinct_bytes(c) for size, c in counted_at.items()}
    accesses = {size: c["read"] + c["written"] for size, c in counted_at.items()}
    mistakes = [
        (lambda rows, cols: accesses[(rows, cols)],
         "that is every access, as the kernel's code issues them; count distinct bytes per launch: a re-read "
         "within one launch is counted once, as if cached, which holds only while the re-read data fits on "
         "chip (the fused kernel guarantees it by keeping its row in shared memory)"),
        (lambda rows, cols: keys[(rows, cols)] / 4,
         "that counts elements, not bytes: a float32 is 4 bytes"),
        (lambda rows, cols: keys[(rows, cols)] / 1e9,
         "that is the count in GB (divided by 1e9): the formula returns bytes, so leave the division out"),
        (lambda rows, cols: keys[(rows, cols)] / 2 ** 30,
         "that is the count in GiB (divided by 2**30): the formula returns bytes, so leave the division out"),
    ]
    if question.startswith("3-pass") or all(len(c.get("per_launch", ())) == 3 for c in counted_at.values()):
        # review 31f, 2: the 3-pass slips, named
        passes = "pass 1 reads x, pass 2 reads x and writes e, pass 3 reads e and writes y"
        mistakes += [
            (lambda rows, cols: keys[(rows, cols)] - 4 * rows * cols,
             f"that is 16 bytes per element, one array short: {passes}, 20 bytes per element"),
            (lambda rows, cols: keys[(rows, cols)] + 4 * rows * cols,
             f"that is 24 bytes per element, one array too many: {passes}, 20 bytes per element"),
            (lambda rows, cols: keys[(rows, cols)] - 8 * rows * cols,
             f"that is 12 bytes per element, x, e and y each counted once overall: count an array once per "
             f"launch that touches it: {passes}, 20 bytes per element"),
            (lambda rows, cols: 2 * keys[(rows, cols)],
             "that is 40 bytes per element, twice the count: a float32 is 4 bytes, not 8"),
        ]
    elif question.startswith("fused") or all(len(c.get("per_launch", ())) == 1 for c in counted_at.values()):
        # review 33f, 3: the fused slip, named
        mistakes.append((lambda rows, cols: keys[(rows, cols)] - 4 * rows * cols,
                         "that is 4 bytes per element, the write of y left out: the fused kernel reads x once and "
                         "writes y once, 8 bytes per element"))
        # review 46f, K3: x counted twice, as the streaming softmax (no row on chip) would read it
        mistakes.append((lambda rows, cols: keys[(rows, cols)] + 4 * rows * cols,
                         "that is 12 bytes per element, 4 too many: what is counted twice? The fused kernel reads x "
                         "once from global memory (its later loops read the row from shared memory) and writes y once"))
        mistakes.append((lambda rows, cols: keys[(rows, cols)] + 8 * rows * cols,
                         "that is 16 bytes per element: the row's store to shared memory and its loads from there stay "
                         "on chip, so only x's read and y's write cross DRAM, 4 bytes each (a float32 is 4 bytes, "
                         "not 8)"))
    return check_function(formula, lambda rows, cols: keys[(rows, cols)], samples, question, mistakes=mistakes)


def model_speedup(rows: int, cols: int) -> float:
    """The model's prediction: both memory-bound at one bandwidth, so time goes as bytes."""
    n = rows * cols
    return operators.softmax(n, fused=False).n_bytes / operators.softmax(n, fused=True).n_bytes


def _speedup_text(predicted):
    """``predicted`` with a trailing ``x`` dropped ("2.5x", as a speed-up is written): Part 3's check and
    Part 4's comparison read the same answer the same way."""
    if isinstance(predicted, str) and re.fullmatch(r"\s*[0-9.]+\s*[x×]\s*", predicted):
        return predicted.strip().rstrip("x×").strip()
    return predicted


def check_prediction(predicted, rows: int, cols: int, question: str = "predicted speed-up of fusion"):
    predicted = _speedup_text(predicted)
    n = rows * cols
    streaming = operators.softmax(n, fused=False).n_bytes / operators.softmax(n, fused=True, row_on_chip=False).n_bytes
    three, fused = operators.softmax(n, fused=False).n_bytes, operators.softmax(n, fused=True).n_bytes
    # A speed-up is a ratio of bytes: the generic unit and FMA hints (factor 2, KiB) would mislead.
    return check_number(predicted, model_speedup(rows, cols), question, factor_hints=False, mistakes=[
        (1 / model_speedup(rows, cols), "that is fused over 3-pass: the speed-up is the slow time over the fast one"),
        (streaming, "that is the streaming online softmax (it reads x twice from global memory); this fused kernel "
                    "keeps its row on chip and reads x once"),
        (1.0, "the FLOPs are the same in both; a memory-bound kernel's time follows its bytes"),
        (three / (fused / 2), "that divides by a fused count of 4 bytes per element: does it leave out the write "
                              "of y (x read once and y written once, 8 bytes per element)?"),
        (three / (2 * fused), "that divides by a fused count in which the kernel would read x three times (16 bytes per element "
                              "instead of 8)"),
        # review 23f, 4: the two usual slips between 1.67 and 5
        ((three - n * 4) / fused, "that counts the 3-pass version's bytes as 16 per element: pass 1 reads x, pass 2 "
                                  "reads x and writes e, pass 3 reads e and writes y, 20 bytes per element"),
        # review 41f, E5: plain words for the launch count; 3.0 is also 24 bytes per element over 8
        # review 53f, 4: a tolerance of its own, so that the recorded measured ratio (3.02) is not read as 3.0
        ((three + n * 4) / fused, "that counts the 3-pass version's bytes as 24 per element, one read or write "
                                  "too many: pass 1 reads x, pass 2 reads x and writes e, pass 3 reads e and "
                                  "writes y, 20 bytes per element, over the fused kernel's 8. 3 is also the "
                                  "number of launches (3 against 1), but the prediction is bytes over bytes",
         _SLIP_RTOL),
        (100 * model_speedup(rows, cols), f"a percent? {100 * model_speedup(rows, cols):g}% is "
                                          f"{model_speedup(rows, cols):g}x: give the ratio itself"),
    ] + _measured_mistake())


_SLIP_RTOL = 0.003  # the 3.0 slip and the recorded measured ratio (3.02) each matched this closely


def _measured_mistake() -> list:
    """The recorded pair's measured speed-up as a mistake entry (a student may type the measurement
    seen in notebook 07), or none when the recorded profiles are not there."""
    pair = recorded_softmax(recorded_pair()[0])
    if set(pair) != set(VARIANTS):
        return []
    measured = pair["3-pass"].seconds / pair["fused"].seconds
    return [(measured, "that is the speed-up measured on the recorded H200 profiles, not a prediction: the "
                       "prediction is the ratio of the two versions' bytes, at one bandwidth for both", _SLIP_RTOL)]


def tool_side(name: str, profiles: dict, machine, rows: int, cols: int) -> str:
    """The tool's verdict for a variant: its profile's side, or, with no profile, the side of
    the ridge the analytic counts place it on against ``machine``."""
    if profiles.get(name) is not None:
        return profiles[name].side
    cost = operators.softmax(rows * cols, fused=(name == "fused"))
    side = machine.roofline("fp32", "dram").classify(cost.intensity).side
    return "compute" if side == "compute" else "memory"


def _verdict_ridge(profile, machine) -> str:
    """The ridge a wrong verdict's hint quotes: the printed one (fp32 over ``machine``'s DRAM roof, as
    that cell prints it), and, where the profile's side was taken on another roof (the recorded pair's copy
    roof: 15.5 against 14), that roof's ridge too, named (review 35f, E1; review 9d, E-1)."""
    printed = machine.roofline("fp32", "dram").ridge
    text = f"the ridge printed above, {printed:.3g} FLOP/byte"
    if profile is not None and abs(profile.ridge - printed) > 0.005 * printed:
        roof = str(profile.memory).replace("dram-", "")  # "dram-copy": the copy roof, as Part 4 names it
        # review 41f, E4: two ridges, each named by its roof
        # the printed roof by its mix, not by a section number: exercise 6 has Parts, notebook 07 sections
        text += (f" (fp32 over the {machine.ceiling('dram').title} roof); its profile's side is taken on the {roof} roof, "
                 f"{profile.peak_gbps:,.0f} GB/s, whose ridge is {profile.ridge:.3g} FLOP/byte")
    return text


#: The verdicts' menu: :data:`SIDES`, where a bare "both" names no side and hears so.
VERDICT_SIDES = Choices(without_bare_both(SIDES.options), hidden=("both",))


def check_verdicts(answers: dict, profiles: dict, machine, rows: int, cols: int):
    """Each variant's verdict (``"memory"`` or ``"compute"``) against the tool's.  A key that is not
    a variant's name ('3pass') is named, with the keys expected, rather than the variant it stands
    for being called not answered."""
    if is_unanswered(answers):
        answers = {}
    if not isinstance(answers, dict):
        return report("verdicts", Check("verdicts", "invalid", "expected a dict such as "
                                        "{'3-pass': 'memory', 'fused': 'memory'}, got a " + type(answers).__name__))
    expected_keys = " and ".join(repr(v) for v in VARIANTS)
    unknown = [key for key in answers if key not in VARIANTS]
    unknown_text = ", ".join(repr(key) for key in unknown)
    checks = []
    if unknown and all(name in answers for name in VARIANTS):
        checks.append(Check("verdicts", "invalid", f"unknown key(s) {unknown_text}: the dict takes the keys "
                                                   f"{expected_keys} alone"))
    for name in VARIANTS:
        if name not in answers and unknown:  # a mistyped key ('3pass'): the student answered, under another name
            checks.append(Check(f"verdict for the {name} softmax", "invalid",
                                f"no key {name!r} in your dict, which has the unknown key(s) {unknown_text}: "
                                f"expected the keys {expected_keys}, spelled so"))
            continue
        expected = tool_side(name, profiles, machine, rows, cols)
        where = "its profile" if profiles.get(name) is not None else "the analytic counts on these ceilings"
        ridge = _verdict_ridge(profiles.get(name), machine)
        checks.append(check_choice(answers.get(name, NOT_ANSWERED), expected, f"verdict for the {name} softmax ({where})",
                                   VERDICT_SIDES,
                                   hints={"both": BOTH_HINT,
                                          "ridge": "at the ridge means an intensity within about 10% of the ridge; "
                                                   f"compare its intensity with {ridge}",
                                          "memory": f"compare its intensity with {ridge}",
                                          "compute": f"compare its intensity with {ridge}"}))
    return report("verdicts", *checks)


# --- the ceilings ----------------------------------------------------------------------------

def lab1_ceilings(mode, cpu_size_mib: float = 64, cpu_repeats: int = 3):
    """``(Loaded, seconds)``: the student's stored Lab 1 result for this mode's backend if there
    is one, else Lab 1 measured once now and stored (on a CPU at ``cpu_size_mib`` with
    ``cpu_repeats`` repeats, which keeps it to seconds; on a GPU without the matrix and
    host-link ceilings), else the recorded H200 run: the one chain of ceilings,
    :func:`rooflinelib.modes.student_ceilings`, so the ridge here is notebook 03's."""
    started = time.perf_counter()
    if mode.mode == "cpu":
        options = {"size_mib": cpu_size_mib, "repeats": cpu_repeats}
    elif mode.mode == "gpu":  # a softmax meets the fp32 and DRAM roofs only: no cuBLAS, no host link
        options = {"matrix": False, "links": False}
    else:
        options = {}
    return modes.student_ceilings(mode, measure="if-missing", **options), time.perf_counter() - started


# --- profiling both, live ----------------------------------------------------------------------

@dataclass
class Pair:
    """Both softmaxes profiled (or why not): ``profiles`` maps "3-pass" and "fused" to
    ProfileResults; ``lines`` says where they ran, what was verified and any fallback."""

    rows: int
    cols: int
    profiles: dict = field(default_factory=dict)
    lines: list = field(default_factory=list)

    def text(self) -> str:
        return "\n".join(self.lines + [p.text() for p in self.profiles.values()])


def _analytic_bytes(formula, name: str, rows: int, cols: int, lines: list) -> float:
    """The student's byte count at the profiled size, or the library's when it cannot be read."""
    library = operators.softmax(rows * cols, fused=(name == "fused")).n_bytes
    if formula is None:
        lines.append(f"{name}: no byte formula given, so the profile uses rooflinelib.core.operators.softmax's count")
        return library
    try:
        value = run_student(lambda: formula(rows, cols), f"your {name} byte formula")
        if is_unanswered(value) or is_unanswered(formula):
            raise NotAnsweredError()
        value = float(value)
        if not value > 0:
            raise AnswerError(f"it gave {value!r}")
        return value
    except (AnswerError, NotAnsweredError, TypeError, ValueError) as exc:
        reason = "not answered yet" if isinstance(exc, NotAnsweredError) else " ".join(str(exc).split())[:120]
        lines.append(f"{name}: your byte formula could not be used ({reason}), so the profile uses "
                     f"rooflinelib.core.operators.softmax's count")
        return library


def _gpu_buffers(rows: int, cols: int):
    import numpy as np
    from numba import cuda
    host = softmax_input(rows, cols)
    buffers = {"x": cuda.to_device(host), "maxima": cuda.device_array(rows, np.float32),
               "e": cuda.device_array((rows, cols), np.float32), "sums": cuda.device_array(rows, np.float32),
               "y": cuda.device_array((rows, cols), np.float32)}
    return host, buffers


def _max_error(got, host, rows_checked=None) -> float:
    import numpy as np
    pick = slice(None) if rows_checked is None else rows_checked
    reference = reference_softmax(host[pick])
    return float(np.max(np.abs(got[pick] - reference) / np.maximum(reference, TINY_OUTPUT)))


def profile_pair(mode, machine, launchers: dict = None, byte_formulas: dict = None, repeats=None,
                 gpu_size: tuple = None) -> Pair:
    """Profile both softmaxes in this mode, on ``machine``'s ceilings.

    - ``gpu``: the student's ``launchers`` (``{"3-pass": fn, "fused": fn}``, taking the buffers
      of :data:`ARGUMENTS`) at the recorded profiles' size, 16384 x 4096;
    - ``cpu``: the Numba-parallel pair of notebook 04 (:func:`cpu_kernels`), 4096 x 2048;
    - ``recorded``: nothing is measured; the lines say so.

    Each variant's output is poisoned (NaN) before and checked against a float64 softmax after
    its profile; a wrong output drops the profile.  ``byte_formulas`` gives each variant's
    ``n_bytes`` as a function of ``(rows, cols)``; unusable ones fall back to the library's count.
    ``gpu_size``: ``(rows, cols)`` instead of the recorded size (the tests' simulator run).
    """
    import numpy as np
    from rooflinelib.profiling.core import profile
    byte_formulas = byte_formulas or {}
    if mode.mode == "recorded":
        return Pair(0, 0, lines=["Recorded mode: nothing is profiled on this machine; the H200 profiles "
                                 "recorded with the course, below, are the measurement."])
    if mode.mode == "gpu":
        rows, cols = gpu_size or (softmax_targets.ROWS, softmax_targets.COLS)
        missing = [v for v in VARIANTS if not callable((launchers or {}).get(v))]
        if missing:
            raise ProfileError(f"launchers: give a function for {', '.join(repr(v) for v in missing)}")
        host, buffers = _gpu_buffers(rows, cols)
        calls = {v: (launchers[v], tuple(buffers[a] for a in ARGUMENTS[v])) for v in VARIANTS}
        where = f"{mode.device}, your Numba-CUDA kernels"
        checked = np.unique(np.linspace(0, rows - 1, CHECKED_ROWS).astype(int))

        def output(v):
            return buffers["y"].copy_to_host()

        def poison(v):
            buffers["y"].copy_to_device(np.full((rows, cols), np.nan, np.float32))
    else:
        rows, cols = CPU_ROWS, CPU_COLS
        host = softmax_input(rows, cols)
        three_pass, fused = cpu_kernels()
        scratch, y3, yf = (np.empty_like(host) for _ in range(3))
        maxima, sums = np.empty(rows, np.float32), np.empty(rows, np.float32)
        calls = {"3-pass": (three_pass, (host, scratch, y3, maxima, sums)), "fused": (fused, (host, yf))}
        outputs = {"3-pass": y3, "fused": yf}
        where = f"{mode.device}, the Numba-parallel CPU pair (rooflinelib.profiling.capstone.cpu_kernels)"
        checked = None

        def output(v):
            return outputs[v]

        def poison(v):
            outputs[v].fill(np.nan)
    pair = Pair(rows, cols, lines=[f"Profiled live on {where}: {rows:,} rows x {cols:,} float32 columns."])
    for v in VARIANTS:
        fn, args = calls[v]
        n_bytes = _analytic_bytes(byte_formulas.get(v), v, rows, cols, pair.lines)
        poison(v)
        result = profile(fn, *args, n_flops=operators.softmax(rows * cols).n_flops, n_bytes=n_bytes,
                         name=f"softmax {v}", ceilings=machine, repeats=repeats)
        error = _max_error(output(v), host, checked)
        if not error < MAX_RELATIVE_ERROR:  # NaN (an unwritten element) fails too
            pair.lines.append(f"{v}: WRONG OUTPUT (largest relative error {error:.3g} against a float64 softmax): "
                              f"its time is not a measurement, so it is not shown")
            continue
        scope = f"{len(checked)} rows spread over the matrix" if checked is not None else "every row"
        pair.lines.append(f"{v}: verified on {scope}, largest relative error {error:.2g} against a float64 softmax")
        pair.profiles[v] = result
    return pair


def cpu_kernels():
    """``(three_pass(x, scratch, y, row_max, row_sum), fused(x, y))``: notebook 04's CPU softmax
    pair, Numba's parallel target (compiled once and cached on disk)."""
    return softmax_kernels()


def cpu_sources() -> str:
    """The Python source of both CPU kernels, for the notebook to show."""
    return "\n".join(textwrap.dedent(inspect.getsource(k.py_func)) for k in cpu_kernels())


# --- prediction against measurement ----------------------------------------------------------

def _us(seconds: float, digits: int = 3) -> str:
    return seconds_text(seconds, digits)


def _rate(gbps: float) -> str:
    """A rate in GB/s to at least three significant figures: 3,158 on a GPU, 1.1 on a CPU (not 1)."""
    return f"{gbps:,.0f}" if gbps >= 100 else f"{gbps:.3g}"


def _prediction(predicted, three):
    """``(value, note)``: the student's prediction, or the model's when it cannot be read."""
    elements = round(three.n_flops / operators.SOFTMAX_FLOPS_PER_ELEMENT)
    try:
        return read_number(_speedup_text(predicted), "predicted speed-up"), ""
    except (AnswerError, NotAnsweredError) as exc:
        reason = "not answered yet" if isinstance(exc, NotAnsweredError) else str(exc)
        return model_speedup(elements, 1), f"(your prediction could not be read: {reason}; the model's is used) "


def gap_breakdown(three, fused) -> dict:
    """Where the 3-pass version's extra time went, in seconds: ``expected_s``, its time had it
    moved its counted bytes at the fused kernel's rate; ``shortfall_s``, the measured median
    beyond that; and, when ncu timed the kernels (``measured["kernel_seconds"]``),
    ``outside_kernels_s``, the median less the kernels' own time (the launches and the gaps
    between them), and ``inside_kernels_s``, the rest of the shortfall."""
    expected = fused.seconds * three.n_bytes / fused.n_bytes
    found = {"expected_s": expected, "shortfall_s": three.seconds - expected}
    kernels = (three.measured or {}).get("kernel_seconds")
    if kernels:
        found["kernel_s"] = kernels
        found["outside_kernels_s"] = three.seconds - kernels
        found["inside_kernels_s"] = found["shortfall_s"] - found["outside_kernels_s"]
    return found


def gap_text(three, fused) -> str:
    """The 3-pass shortfall split into launches and kernels, from :func:`gap_breakdown`."""
    g = gap_breakdown(three, fused)
    if g["shortfall_s"] <= 0:  # a student's prediction below the byte ratio can land here
        return (f"At the fused kernel's rate the 3-pass version would take {_us(g['expected_s'])}; it took "
                f"{_us(three.seconds)}, no longer: its passes moved their bytes at least as fast as the fused "
                "kernel, so fusion saved bytes and nothing more.")
    text = (f"At the fused kernel's rate the 3-pass version would take {_us(g['expected_s'])}; it took "
            f"{_us(g['shortfall_s'])} more")
    moral = "The byte count can be right while the equal-bandwidth assumption is not."
    if "kernel_s" not in g:
        return text + (". Without the kernels' own times (profile with counters) the launches between "
                       "the passes cannot be told apart from passes that stream below the fused rate. " + moral)
    # One line each: the expected time, outside the kernels, inside them (review 9d, C7-1).  The
    # kernels' times come from the Nsight Compute run, which flushed the L2 before each kernel, the
    # median from the timed one, which did not: the split holds as far as the kernels ran alike.
    # A three-row table (review 10d, C07-3): the expected time, then the shortfall's two parts.
    return "\n".join((
        text + ":",
        f"    {'expected, at the fused rate':37s} {_us(g['expected_s'])}",
        f"    {'outside its kernels (launches, gaps)':37s} {_between(g, three)}",
        f"    {'inside its kernels (slow passes)':37s} {_us(g['inside_kernels_s'])}",
        # review 11d C07-2: the rows carry numbers only; the one caveat follows them, once
        f"  The split subtracts the {_us(g['kernel_s'])} its three kernels took in a second run, under Nsight "
        "Compute, which flushed the L2 before each kernel (the timed run did not): it holds if they ran as "
        "long in both.",
        "  " + moral))


def _between(g: dict, three) -> str:
    """The time outside the kernels, a difference of two runs: within their noise (under
    NOISE_SHARE of the 3-pass time) it is given to two figures and said to be noise."""
    outside = g["outside_kernels_s"]
    if abs(outside) < NOISE_SHARE * three.seconds:
        return f"about {outside * 1e6:.2g} us, within the two runs' noise"
    return _us(outside)


def outcome(three, fused, predicted: float) -> str:
    """Which way the measured 3-pass / fused time ratio parts from ``predicted``: ``"holds"``
    (within the course's agreement rule), ``"more"`` (fusion gained more), ``"less-fused-slow"``
    (gained less, and the fused kernel ran under half its memory roof) or ``"less"``.  The
    comparison and the model answer both read it, so that the two never disagree."""
    measured = three.seconds / fused.seconds
    if abs(measured / predicted - 1) <= _tolerance():
        return "holds"
    if measured > predicted:
        return "more"
    return "less-fused-slow" if fused.achieved_gbps / fused.peak_gbps < 0.5 else "less"


#: What each outcome says about the equal-bandwidth half of the prediction.
_LESS_FUSED_SLOW = ("the fused kernel ran under half its memory roof: something other than its bytes bounds it "
                    "here (on a CPU its exps, notebook 04's refined prediction; on a GPU too little work per row, "
                    "or a row that does not stay on chip)")
_LESS = ("the 3-pass version streamed closer to the roof than assumed, or its passes shared data through a "
         "cache; recount its bytes against the buffer size and the cache")


def copy_roof_gbps(lab1, where: str):
    """The DRAM copy mix (GB/s) the softmaxes graded ``where`` are scored against: the recorded
    profiles' own run's for the recorded pair, else that of ``lab1`` (a ``modes.Loaded``), or
    None when it measured no copy mix."""
    if where == RECORDED_WHERE:
        return RECORDED_PROFILES_COPY_GBPS
    result = getattr(lab1, "result", None)
    return dram_mixes(result).get("copy") if result else None


def _shares(three, fused, copy_gbps) -> tuple:
    """``(3-pass share, fused share, roof words, aside)``: the shares of the copy mix when it is
    known (both versions read and write, as a copy does), the aside giving those of the memory
    roof the profiles were placed on; else the memory roof's, with no aside."""
    best3, bestf = three.achieved_gbps / three.peak_gbps, fused.achieved_gbps / fused.peak_gbps
    if not copy_gbps:
        return percent(best3), percent(bestf), f"the {three.peak_gbps:,.0f} GB/s memory roof", ""
    if three.memory == fused.memory == "dram-copy":  # already placed on the copy mix
        return percent(best3), percent(bestf), f"the {three.peak_gbps:,.0f} GB/s copy roof", ""
    if abs(three.peak_gbps / copy_gbps - 1) < 0.005:  # the copy is the fastest mix: the aside would repeat
        return percent(best3), percent(bestf), f"the {copy_gbps:,.0f} GB/s copy roof", ""
    # the profile does not name its mix (read or write): the aside names the roof by its rate only
    aside = (f" (a copy reads and writes, as both softmaxes do; against the {three.peak_gbps:,.0f} GB/s "
             f"roof of the fastest mix, {percent(best3)} and {percent(bestf)})")
    return (percent(three.achieved_gbps / copy_gbps), percent(fused.achieved_gbps / copy_gbps),
            f"the {copy_gbps:,.0f} GB/s copy roof", aside)


def too_noisy(three, fused, where: str = "this run") -> str:
    """Why a live pair's timings are too noisy to judge the equal-bandwidth claim, or '': the middle half
    of either profile's timed repeats spread over more than :data:`~rooflinelib.measure.protocol.NOISY_IQR`
    of their median, the bound past which Lab 1 calls a measurement noisy.  The recorded pair is never
    judged here: its file is what the notebook is written against."""
    if where == RECORDED_WHERE:
        return ""
    parts = []
    for name, p in (("3-pass", three), ("fused", fused)):
        samples = tuple(getattr(p, "samples_s", ()) or ())
        iqr = iqr_spread(samples)
        if iqr > NOISY_IQR:
            parts.append(f"{iqr:.0%} of their median for the {name} version ({len(samples)} repeats)")
    if not parts:
        return ""
    return ("the middle half of the timed repeats spread over " + " and ".join(parts)
            + f", more than the {NOISY_IQR:.0%} past which Lab 1 calls a measurement noisy")


#: What the comparison and the model answer ask for when :func:`too_noisy` says the run is noisy.
RERUN = "Rerun Part 4 on an idle machine (no other program busy), then Part 5"


def comparison(profiles: dict, predicted: float, where: str = "this run", copy_gbps: float = None,
               explain: bool = True) -> str:
    """The measured 3-pass / fused time ratio against ``predicted``, and why they part: one
    line for the result, then one bullet each for the bytes, the bandwidth and where the time
    went (or why fusion gained less); the shares are of ``copy_gbps`` (the softmaxes' own
    access mix, see :func:`copy_roof_gbps`) when it is given.  ``explain=False`` leaves out the
    last bullet, the reading of the gap: the exercise asks for it before :func:`model_gap`
    shows it."""
    three, fused = profiles.get("3-pass"), profiles.get("fused")
    if three is None or fused is None:
        return f"{where}: the prediction cannot be tested without a verified pair of profiles."
    predicted, note = _prediction(predicted, three)
    measured = three.seconds / fused.seconds
    share3, sharef, roof_words, aside = _shares(three, fused, copy_gbps)
    byte_ratio = three.n_bytes / fused.n_bytes
    other = abs(predicted / byte_ratio - 1) > _tolerance()  # a prediction other than the byte ratio
    # review 26f, 4: a prediction other than the byte ratio is not praised for landing near the
    # measured ratio (3.0 against 3.02): the outcome is judged against the byte ratio, as model_gap does
    found = outcome(three, fused, byte_ratio if other else predicted)
    if other:
        result = {"holds": f"within {_tolerance():.0%} of the {byte_ratio:.2f}x the bytes predict, not of yours",
                  "more": f"fusion gained more than the {byte_ratio:.2f}x the bytes predict"}
    else:
        result = {"holds": f"within {_tolerance():.0%}, the prediction holds", "more": "fusion gained more than predicted"}
    less = f"fusion gained less than the {byte_ratio:.2f}x the bytes predict" if other else "fusion gained less than predicted"
    # four figures, so that the two times printed give the measured ratio printed (425/141 is 3.01)
    noise = too_noisy(three, fused, where)
    verdict = (f"too noisy to judge the equal-bandwidth claim: {noise}. {RERUN}" if noise
               else result.get(found, less))
    lines = [note + f"{where}: predicted {predicted:.2f}x, measured {measured:.2f}x ({_us(three.seconds, 4)} "
             f"against {_us(fused.seconds, 4)}): {verdict}."]
    bytes_line = f"- bytes: {three.n_bytes:,.0f} against {fused.n_bytes:,.0f} counted, a ratio of {byte_ratio:.2f}x"
    if other:
        bytes_line += f" (the bytes alone predict {byte_ratio:.2f}x, not {predicted:.2f}x)"
    lines.append(bytes_line + ".")
    lines.append(f"- bandwidth: the 3-pass version moved its counted bytes at {share3} of {roof_words}, the fused "
                 f"one at {sharef}{aside}. Rates: {_rate(three.achieved_gbps)} GB/s (3-pass) and "
                 f"{_rate(fused.achieved_gbps)} GB/s (fused).")
    if found == "holds":
        reading = "- so both ran about equally close to the memory roof, and time followed bytes."
    elif found == "more":
        text = gap_text(three, fused)
        reading = "- where the time went: " + text[0].lower() + text[1:]
    else:
        reading = "- why: " + (_LESS_FUSED_SLOW if found == "less-fused-slow" else _LESS) + "."
    if explain and not noise:
        lines.append(reading)
    return "\n".join(lines)


# --- the recorded H200 profiles --------------------------------------------------------------

def recorded_pair(device: str = "h200", backend: str = "numba"):
    """``(profiles, message)``: the recorded profiles ``{name: ProfileResult}`` and one line of
    provenance, or ``({}, "... not recorded yet ...")`` when the file is not there.  The
    softmaxes were profiled on the run's fastest DRAM mix, the write; they read and write, as a
    copy does, so they are placed again on that run's copy mix (notebook 04's rule)."""
    try:
        profiles = recorded_profiles(device, backend)
    except ProfileError as exc:
        return {}, f"Recorded {device.upper()} profiles: not recorded yet ({' '.join(str(exc).split())[:200]})."
    if device == "h200":
        profiles = {name: _on_copy_roof(p) if name in RECORDED_SOFTMAX.values() and p.memory == "dram" else p
                    for name, p in profiles.items()}
    first = next(iter(profiles.values()))
    d = first.device or {}
    state = d.get("before") or {}
    facts = [f"{d.get('name', 'unknown device')}", f"{d.get('backend', backend)} backend",
             f"measured {str(d.get('started', '?'))[:10]}"]
    if state.get("driver"):
        facts.append(f"driver {state['driver']}")
    if state.get("sm_clock_mhz"):
        facts.append(f"SM clock {state['sm_clock_mhz']} MHz")
    names = ", ".join(repr(n) for n in profiles)
    return profiles, (f"Recorded profiles shipped with the course: {'; '.join(facts)}; {len(profiles)} "
                      f"profile(s): {names}.")


def _on_copy_roof(profile):
    """A recorded softmax placed again on its run's copy mix, without the placement's note on
    the mixes: the notebook says it in words, where the student reads it."""
    placed = on_memory_roof(profile, "dram-copy", RECORDED_PROFILES_COPY_GBPS)
    return dataclasses.replace(placed, notes=tuple(n for n in placed.notes if not n.startswith("memory roof: ")))


def profile_summary(profile) -> str:
    """A profile's text without its advice, ncu and levels lines, which the counters' lines
    (:func:`counters_text`) and section 5's level table print next (review 10d, C07-2)."""
    return "\n".join(line for line in profile.text().splitlines()
                     if not line.startswith(("  advice:", "  ncu:", "  levels:")))


def recorded_softmax(profiles: dict) -> dict:
    """The recorded softmax pair under the notebook's variant names (those present)."""
    return {v: profiles[name] for v, name in RECORDED_SOFTMAX.items() if name in profiles}


def counters_text(profiles: dict) -> str:
    """ncu's DRAM bytes of each softmax variant against its analytic count, and the ratio of
    the two variants' DRAM bytes against the model's byte ratio: the byte half of the
    prediction, tested on its own.  ``profiles`` is the recorded set (``recorded_pair``) or a
    graded pair keyed by variant (``graded_profiles``)."""
    graded = {v: profiles[v] for v in VARIANTS if v in profiles}
    pair = graded or recorded_softmax(profiles)
    lines = []
    for v, p in pair.items():
        m = p.measured
        if not m:
            lines.append(f"{v}: {'profiled' if graded else 'recorded'} without ncu counters")
            continue
        dram = m["dram_read_bytes"] + m["dram_write_bytes"]
        lines.append(f"{v:7s} ncu: {m['kernels']} launch(es), DRAM {dram:,.0f} bytes read + written "
                     f"({m['dram_over_analytic']:.3f}x the analytic {p.n_bytes:,.0f}), L2 {m['lts_bytes']:,.0f}, "
                     f"L1 {m['l1_bytes']:,.0f}; fp32 FLOPs counted {m['fp32_flops']:,.0f} against {p.n_flops:,.0f} analytic")
        if m.get("kernel_seconds"):
            lines.append(f"{'':7s} ncu's own kernel time {_us(m['kernel_seconds'])} against the profile's median "
                         f"{_us(p.seconds)} ({p.seconds / m['kernel_seconds'] - 1:+.1%}; the repeats spread {percent(p.spread)})")
    if any(p.measured for p in pair.values()):  # exercise 6 Part 5's answer rests on it
        lines.append("ncu flushed the L2 before each kernel; the timed run did not")
    if len(pair) == 2 and all(p.measured for p in pair.values()):
        three, fused = pair["3-pass"].measured, pair["fused"].measured
        ratio = ((three["dram_read_bytes"] + three["dram_write_bytes"])
                 / (fused["dram_read_bytes"] + fused["dram_write_bytes"]))
        rows_cols = round(pair["fused"].n_flops / operators.SOFTMAX_FLOPS_PER_ELEMENT)
        model = operators.softmax(rows_cols, fused=False).n_bytes / operators.softmax(rows_cols, fused=True).n_bytes
        lines.append(f"DRAM bytes, 3-pass over fused: {ratio:.2f} (the model's byte ratio: {model:.2f}); "
                     f"times, 3-pass over fused: {pair['3-pass'].seconds / pair['fused'].seconds:.2f}")
    return "\n".join(lines) if lines else "no recorded softmax profiles"


#: The level names of a recorded placement as the notebook prints them.  The profiler places
#: ncu's ``l1tex__t_bytes`` (what the SMs' L1 served for global and local loads and stores, not
#: shared-memory traffic) on the ``shared`` ceiling, the only on-chip roof Lab 1 measures: the L1
#: and shared memory are one SRAM in each SM.  The row is the L1's, so it is called that.
LEVEL_LABELS = {"dram": "dram", "l2": "l2", "shared": "l1", "l1": "l1"}
L1_NOTE = ("l1: ncu's l1tex__t_bytes (global and local accesses; shared memory's are not in it), on Lab 1's "
           "shared-memory roof, the same SRAM")

#: What the l2 row's bytes are.  ncu's ``lts__t_bytes`` counts every byte the L2 slices handled:
#: the SMs' requests (what Lab 1's L2 roof counts) and also the traffic between the H200's two L2
#: partitions, which on the course's 1 GiB sweeps (ncu by source unit, notebook 05) was about as
#: large as the DRAM reads.  The recorded profiles hold only the total, so the row's intensity is
#: a lower and its share an upper bound.
L2_NOTE = ("l2: ncu's lts__t_bytes, which also counts the traffic between the H200's two L2 partitions: "
           "the row's share is an upper bound")


#: A level "binds" in the level table only when the kernel reaches at least this share of that
#: level's roof: far below every roof (the GEMMs at 8-18%), the level that takes longest is not
#: what limits the kernel, and marking it would contradict the lesson that the limit is elsewhere.
BINDS_AT_LEAST = 0.5


def levels_text(profile) -> str:
    """The level-by-level placement of one recorded profile (from its ncu bytes): each level's
    bytes, intensity and roof, the fraction of that roof achieved, and the binding level, which
    is marked only when the kernel reaches :data:`BINDS_AT_LEAST` of its roof."""
    h = profile.hierarchical
    if not h or "levels" not in h:
        return f"{profile.name}: no level-by-level placement ({(h or {}).get('verdict', 'recorded without counters')})"
    achieved = profile.achieved_gflops
    binding = h.get("binding")
    bound = binding in h["levels"] and achieved / h["levels"][binding]["roof_gflops"] >= BINDS_AT_LEAST
    lines = [f"{RECORDED_LABELS.get(profile.name, profile.name)}: {achieved:,.1f} GFLOP/s achieved"]
    for level, p in h["levels"].items():
        mark = "  <- binds" if bound and level == binding else ""
        lines.append(f"  {LEVEL_LABELS.get(level, level):6s} {p['bytes']:>16,.0f} bytes  I = {p['intensity']:8.4g} FLOP/byte  "
                     f"roof {p['roof_gflops']:>10,.1f} GFLOP/s ({p['ceiling_gbps']:,.0f} GB/s)  "
                     f"{achieved / p['roof_gflops']:6.0%} of it{mark}")
    if binding in h["levels"] and not bound:
        p = h["levels"][binding]
        lines.append(f"  {profile.name}: no level binds: the longest, {LEVEL_LABELS.get(binding, binding)} "
                     f"({p['bytes'] / 1e9:,.3g} GB in {p['bytes'] / p['ceiling_gbps'] / 1e3:,.1f} us at "
                     f"{p['ceiling_gbps']:,.0f} GB/s), would allow {p['roof_gflops']:,.0f} GFLOP/s and the kernel "
                     f"reached {achieved / p['roof_gflops']:.0%} of it"
                     + (" (an upper bound: see the l2 note)" if binding == "l2" else "")
                     + f", under {BINDS_AT_LEAST:.0%} of every level's roof: the limit is elsewhere.")
    elif binding in ("shared", "l1"):  # "shared": profiles recorded before the L1 was named
        p = h["levels"][binding]
        lines.append(f"  {profile.name}: the L1's global-load traffic binds: its {p['bytes'] / 1e9:,.3g} GB need "
                     f"{p['bytes'] / p['ceiling_gbps'] / 1e3:,.1f} us at {p['ceiling_gbps']:,.0f} GB/s, the longest of "
                     f"any level ({achieved:,.0f} GFLOP/s achieved, {h['fraction_of_roof']:.0%} of the hierarchical roof).")
    else:
        lines.append(f"  {h['verdict']}")
    return "\n".join(lines)


#: How close a counter's DRAM bytes must come to the analytic count for the model answer to
#: say the byte count held on the hardware.
COUNTERS_AGREE_WITHIN = 0.05


def _bytes_claim(three, fused) -> tuple:
    """``(sentence, key point)`` on the byte half of the prediction: the counters' DRAM bytes
    where both profiles carry them, else the simulator's count alone."""
    ratios = [(p.measured or {}).get("dram_over_analytic") for p in (three, fused)]
    if not all(ratios):
        return ("The bytes were checked in the simulator, where each version moved the distinct bytes the "
                "formula counts; this run has no hardware counters (Nsight Compute) to check them again.",
                "the byte ratio was checked on its own, in the simulator")
    if all(abs(r - 1) <= COUNTERS_AGREE_WITHIN for r in ratios):
        return (f"The bytes held: the counters' DRAM bytes are {ratios[0]:.3f}x the count for the 3-pass version "
                f"and {ratios[1]:.3f}x for the fused one.",
                "the byte ratio was checked on its own (simulator, counters)")
    return (f"The bytes did not quite hold: the counters' DRAM bytes are {ratios[0]:.3f}x the count for the "
            f"3-pass version and {ratios[1]:.3f}x for the fused one, so the byte ratio itself moved; recount "
            "against the buffer size and the caches.",
            "the counters' DRAM bytes test the byte ratio on its own")


def model_gap(attempt, profiles: dict, where: str = "the recorded H200 profiles", copy_gbps: float = None):
    """The model answer to the capstone's last question, why the measured speed-up differs
    from the byte ratio (or why it does not), with the numbers of ``profiles``
    (``{"3-pass", "fused"}``); shown only once ``attempt`` is a real attempt.  It takes the
    branch :func:`comparison` takes for the byte ratio, so the two agree."""
    three, fused = profiles.get("3-pass"), profiles.get("fused")
    if three is None or fused is None:
        text = ("With no verified pair of profiles there is no measured speed-up to explain; the byte "
                "half of the prediction was still checked in the simulator.")
        points = ("the byte ratio was checked on its own, in the simulator",
                  "the speed-up needs a verified pair of timed profiles")
        return reveal(attempt, text, "why the measured speed-up is not the byte ratio", key_points=points)
    ratio, byte_ratio = three.seconds / fused.seconds, three.n_bytes / fused.n_bytes
    share3, sharef, roof_words, _ = _shares(three, fused, copy_gbps)
    roof_words = roof_words if copy_gbps else "the memory roof"
    bytes_sentence, bytes_point = _bytes_claim(three, fused)
    # One line for the result, then one bullet per claim and one for where the time went: the
    # comparison line above the question already holds the long form.
    lead = (f"On {where} fusion gave {ratio:.2f}x against the {byte_ratio:.2f}x of the bytes. The prediction is "
            "two claims: the byte ratio, and equal bandwidth for both versions.")
    found = outcome(three, fused, byte_ratio)
    noise = too_noisy(three, fused, where)
    if noise:
        lead = (f"On {where} fusion gave {ratio:.2f}x against the {byte_ratio:.2f}x of the bytes. The prediction is "
                "two claims: the byte ratio, and equal bandwidth for both versions. This run is too noisy to judge "
                "the second.")
        bullets = (bytes_sentence,
                   f"Equal bandwidth cannot be judged on this run: {noise}, so neither the speed-up nor the two "
                   "shares of the memory roof can be trusted.",
                   RERUN + ".")
        points = (bytes_point, "this run's timings are too noisy to test equal bandwidth",
                  "rerun on an idle machine before explaining the gap")
    elif found == "holds":
        bullets = (bytes_sentence,
                   f"Equal bandwidth held as well: the 3-pass version reached {share3} of {roof_words} and the "
                   f"fused kernel {sharef}.",
                   f"So the speed-up is the byte ratio, within {_tolerance():.0%}.")
        points = (bytes_point, "both versions ran at about the same fraction of the memory roof",
                  "so the measured speed-up is the byte ratio")
    elif found == "more":
        bullets = (bytes_sentence,
                   f"Equal bandwidth did not: the fused kernel reached {sharef} of {roof_words} and the 3-pass "
                   f"version {share3}, so fusion gained more than its bytes."
                   # review 35f: the page's hedge on the copy roof, said where it is the reason
                   + (f" The {share3} is an upper bound: pass 1 only reads, which streams faster than a copy."
                      if copy_gbps else ""),
                   _shortfall_sentence(three, fused))
        split = ("split the extra time with the kernels' own times (a second, profiled run): launches against "
                 "slow passes" if (three.measured or {}).get("kernel_seconds") else
                 "the extra time is launches or slow passes; the kernels' own times (a profile with counters) "
                 "would tell them apart")
        points = (bytes_point, "the 3-pass version ran at a lower fraction of the memory roof", split)
    else:
        reason = _LESS_FUSED_SLOW if found == "less-fused-slow" else _LESS
        bullets = (bytes_sentence,
                   f"Equal bandwidth did not, the other way: the fused kernel reached {sharef} of {roof_words} "
                   f"and the 3-pass version {share3}, so fusion gained less than its bytes.",
                   reason[0].upper() + reason[1:] + ".")
        points = (bytes_point, "the fused version ran at a lower fraction of the memory roof than the 3-pass one",
                  "what bounds the fused kernel other than its bytes (its exps on a CPU)"
                  if found == "less-fused-slow" else "where the 3-pass version's bytes were served from")
    text = "\n".join((lead,) + tuple(f"- {b}" for b in bullets))
    return reveal(attempt, text, "why the measured speed-up is not the byte ratio", key_points=points)


def _shortfall_sentence(three, fused) -> str:
    """Where the 3-pass version's extra time went, in one sentence (the model answer's third
    point; :func:`gap_text` is the comparison's longer form)."""
    g = gap_breakdown(three, fused)
    head = f"Where the extra {_us(g['shortfall_s'])} went (beyond the fused kernel's rate): "
    if "kernel_s" not in g:
        return head + ("launches between the passes, or passes that stream below the fused rate; without the "
                       "kernels' own times (a profile with counters) the two cannot be told apart.")
    # The kernels' times come from the Nsight Compute run, the median from the timed one.
    # review 35f: the split first, as a sum, then the one caveat on its own
    outside = g["outside_kernels_s"]
    launches = (f"about {outside * 1e6:.2g} us launches and gaps (within the two runs' noise)"
                if abs(outside) < NOISE_SHARE * three.seconds else f"{_us(outside)} launches and gaps")
    return head + (f"{launches} + {_us(g['inside_kernels_s'])} passes below the fused kernel's rate, since the three "
                   f"kernels took {_us(g['kernel_s'])} under Nsight Compute, a second run. This assumes the kernels "
                   f"ran about as long in both runs: Nsight Compute flushed the L2 before each kernel, the timed run "
                   f"did not.")


def graded_profiles(pair: Pair, recorded: dict) -> tuple:
    """``(profiles, where)``: the live pair's verified profiles, else the recorded softmax pair
    (recorded mode), else ``{}`` (the analytic counts then stand in for the tool's verdict)."""
    if pair.profiles:
        return pair.profiles, "this run"
    softmax = recorded_softmax(recorded)
    if softmax:
        return softmax, RECORDED_WHERE
    return {}, "no live or recorded profile"
