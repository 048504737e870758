"""The CPU backend: the same three measurements (copy, FMA peak, the sweep) on this machine's
CPU cores, with Numba's parallel CPU target.  What it draws is a CPU roofline, and every
result it makes says so.

The vector units replace the GPU's lanes: each parallel task keeps a few registers' worth of
float values (:func:`fma_lanes`) in a small array whose innermost loop LLVM turns into SIMD
fused multiply-adds (``contract`` fastmath allows ``v * a + b`` to become one FMA; nothing else
is relaxed).  The identity trick
(a = 1, b = 0) keeps every result exact, so each run is verified bit for bit like the GPU's.
Times come from the host clock around synchronous calls, after a warm-up.  A ceiling is the
best rate the machine sustains, so a CPU ceiling is read from the fastest of the verified
trials of a window of seconds (:data:`CEILING_RULE`, :func:`time_in_window`; STREAM and ERT
also report the best): on a shared machine a neighbour can only slow a trial down, and the
median moved with the load by up to 2x between runs.  The median and the spread stay in the
details.
"""
from __future__ import annotations

import os
import time
from functools import lru_cache

from rooflinelib.core import envvars
from rooflinelib.core.envvars import REPEATS_ENV, WINDOW_ENV
from rooflinelib.store.fileio import FileError, read_text
from rooflinelib.measure import accounting as acc
from rooflinelib.measure.expected import (fill_values, fma_peak_expected, write_values, read_sum,
                                          read_values, fill_sum)
from rooflinelib.measure.errors import VerificationError, BackendUnavailable
from rooflinelib.measure.protocol import Run, SweepBuffers
from rooflinelib.measure.timing import Stopwatch, Timing
from rooflinelib.measure.provenance import (cpu_name, cpu_provenance, now_iso, library_versions,
                                            NoClock)

LANES = 64  # values per task updated together without AVX-512: 8 AVX2 registers of float32
BLOCK = 4096  # elements per parallel task in the copy and the sweep
_FAST = {"contract"}

#: With AVX-512, the FMA peak keeps this many 64-byte registers in flight per task.  Two FMA
#: units with a 4-cycle latency need 8 independent chains; 16 leave room for a late FMA and
#: still fit the 32 zmm registers next to a and b (measured on this Xeon: 2.0 FMAs per cycle).
ZMM_CHAINS = 16
#: Without AVX-512, float64's FMA peak keeps 56 values per task: 14 of AVX2's 16 ymm registers,
#: the other two holding a and b.  float32's 64 values fill 16 registers as float64, and
#: spilled: 36 stack loads and stores among the hot loop's 32 FMAs, 53 GFLOP/s against float32's
#: 186.  16 to 48 values are few enough that LLVM unrolls the lane loop whole before its loop
#: vectorizer runs, and they came out as scalar FMAs (vfmadd213sd).  With 56 the hot loop is 28
#: ymm FMAs and no stack access: 95 GFLOP/s, 0.50 of float32 (2-core EPYC, 2026-12-02 02:10
#: UTC, the best verified trial while the load average was 3.5-13).
YMM_LANES_FP64 = 56

#: The CPU ceilings are read from the fastest verified trial ("best"); see the module notes.
CEILING_RULE = "best"
#: Trials go on until ``repeats`` are done and ``repeats x WINDOW_PER_REPEAT_S`` have passed
#: (2 s at the default 10), then until UNCONTENDED_TRIALS of them had every core to
#: themselves, for at most WINDOW_CAP such windows.  A neighbour's burst lasts seconds: on a
#: shared 2-core Xeon the copy ran at half speed for 1-3 s at a time (one of its two threads
#: waiting for a core), so 10 back-to-back trials (0.3 s) could all fall inside one burst.
WINDOW_PER_REPEAT_S = 0.2
#: Timed trials per rate for Lab 1 and Lab 3 on the CPU, unless the caller names them.
#: $ROOFLINE_CPU_WINDOW_S and $ROOFLINE_CPU_REPEATS (WINDOW_ENV, REPEATS_ENV) set the window
#: and the trials instead; rooflinelib.core.envvars checks them, for course.py too.
DEFAULT_REPEATS = 10
WINDOW_CAP = 5
UNCONTENDED_TRIALS = 3
#: A trial had the cores to itself when the process got at least this share of
#: threads x wall time as CPU time: a thread that waited for a core lowers it.
UNCONTENDED_SHARE = 0.95
MAX_TRIALS = 1000
#: An FMA-peak trial lasts at most this long.  On a shared core the scheduler hands out
#: slices of a few milliseconds: a 25 ms trial always contains a neighbour's slice, a 3 ms one
#: often does not.  Launching the parallel region costs some 20 us, under 1% of it.
FMA_TRIAL_S = 0.003

MIB = 2 ** 20
#: Never time a copy smaller than this, whatever the cache: below it a laptop's copy is short
#: enough for thread wake-up to show.
DRAM_FLOOR_BYTES = 256 * MIB
#: If the last-level cache cannot be read, assume a large laptop's.
_LLC_FALLBACK_BYTES = 32 * MIB


def last_level_cache_bytes(root: str = "/sys/devices/system/cpu/cpu0/cache"):
    """Size of this machine's largest data cache, from sysfs (None where there is none)."""
    best = None
    try:
        entries = os.listdir(root)
    except OSError:
        return None
    for entry in entries:
        try:
            kind = read_text(os.path.join(root, entry, "type")).strip()
            text = read_text(os.path.join(root, entry, "size")).strip()
        except FileError:
            continue
        if kind == "Instruction" or not text:
            continue
        scale = {"K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30}.get(text[-1].upper(), 1)
        digits = text[:-1] if scale != 1 else text
        if digits.isdigit():
            size = int(digits) * scale
            best = size if best is None else max(best, size)
    return best


def _available_bytes():
    try:
        for line in read_text("/proc/meminfo").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (ValueError, IndexError):  # FileError included
        pass
    return None


def dram_buffer_bytes(threads: int, llc_bytes=None, available_bytes=None) -> int:
    """Bytes of each copy buffer (source and destination alike) that time the memory.

    - each buffer at least 2 x the last-level cache, so source and destination together are
      4 x the cache and neither stays in it between trials;
    - each thread's share at least half the cache: Numba hands every thread one memcpy of its
      share, and glibc writes with streaming stores only above a threshold of 3/4 of a
      thread's share of the cache (glibc 2.36; a quarter of the cache since 2.38).  Below it
      every destination line is first read for ownership, and the copy moves 3 bytes for every
      2 it is credited with: 35 instead of 49 GB/s for 600 MiB on a 2-core Xeon, 300 MiB L3;
    - at least :data:`DRAM_FLOOR_BYTES`, and at most 1/8 of the free memory (two buffers).
    """
    llc = llc_bytes if llc_bytes is not None else (last_level_cache_bytes() or _LLC_FALLBACK_BYTES)
    want = max(DRAM_FLOOR_BYTES, 2 * llc, max(1, int(threads)) * llc // 2)
    free = available_bytes if available_bytes is not None else _available_bytes()
    if free:
        want = max(DRAM_FLOOR_BYTES, min(want, free // 8))
    step = 4 * BLOCK * max(1, int(threads))  # every thread gets whole tasks
    return -(-want // step) * step


def time_in_window(run, repeats: int, warmup: int, window_s: float = None,
                   rule: str = CEILING_RULE, threads: int = None, stats: dict = None) -> Timing:
    """Time ``run()`` at least ``repeats`` times and over at least ``window_s`` seconds
    (default ``repeats x WINDOW_PER_REPEAT_S``), then on until UNCONTENDED_TRIALS trials ran
    with all ``threads`` (default: Numba's) on a core, or WINDOW_CAP windows have passed.
    Every trial is kept, so the spread is the spread of all of them; the rate follows
    ``rule``.  ``stats``, if given, receives the window's length, the number of trials and
    how many of them had the cores to themselves (0: the rate is a lower bound)."""
    if threads is None:
        import numba
        threads = numba.get_num_threads()
    window = repeats * WINDOW_PER_REPEAT_S if window_s is None else window_s
    for _ in range(warmup):
        run()
    start = time.perf_counter()
    samples, uncontended = [], 0
    while len(samples) < MAX_TRIALS:
        c0, t0 = time.process_time(), time.perf_counter()
        run()
        t1, c1 = time.perf_counter(), time.process_time()
        samples.append(t1 - t0)
        if c1 - c0 >= UNCONTENDED_SHARE * max(1, threads) * (t1 - t0):
            uncontended += 1
        if len(samples) >= repeats and t1 - start >= window:
            if uncontended >= min(UNCONTENDED_TRIALS, repeats) or t1 - start >= WINDOW_CAP * window:
                break
    if stats is not None:
        stats.update(window_s=time.perf_counter() - start, trials=len(samples),
                     uncontended_trials=uncontended)
    return Timing(tuple(samples), rule)


def _host_features() -> str:
    from numba.core import config
    if config.CPU_FEATURES:
        return config.CPU_FEATURES
    import llvmlite.binding as llvm
    return llvm.get_host_cpu_features().flatten()


def has_avx512() -> bool:
    return "+avx512f" in _host_features().split(",")


def fma_lanes(dtype: str) -> int:
    """Values each FMA-peak task updates together: ZMM_CHAINS full registers with AVX-512;
    without it, 8 ymm registers of float32 (LANES) or 14 of float64 (YMM_LANES_FP64)."""
    if not has_avx512():
        return LANES if dtype == "fp32" else YMM_LANES_FP64
    return ZMM_CHAINS * 64 // (4 if dtype == "fp32" else 8)


@lru_cache(maxsize=None)
def _prefer_512(enabled: bool):
    """An intrinsic that asks LLVM to vectorize the function it is called from 512 bits wide
    (a no-op when not ``enabled``).

    LLVM's vectorizers stop at 256 bits on AVX-512 Xeons (the "prefer-256-bit" tuning, which
    avoided a clock penalty on Skylake); that halves the FMA peak.  The per-function attribute
    "prefer-vector-width" lifts it for this kernel alone.  llvmlite accepts only a fixed list of
    attribute names, so the string attribute goes into the set directly.
    """
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def prefer_512_bit_vectors(typingctx):
        def codegen(context, builder, sig, args):
            if enabled:
                set.add(builder.function.attributes, '"prefer-vector-width"="512"')
            return context.get_dummy_value()
        return types.none(), codegen

    # The FMA kernel holds this intrinsic in its closure, and Numba keys its on-disk cache by
    # the closure's pickle, which holds the intrinsic's identifier: a fresh uuid in every
    # process.  The kernel then missed the cache in every process, compiled again (1.2 s for
    # each precision) and added two files to __pycache__ each time (130 copies of one kernel
    # in a day's runs).  A fixed identifier, one per setting, keeps the key the same.
    prefer_512_bit_vectors._set_uuid(f"rooflinelib.measure.cpu.prefer_512_bit_vectors.{bool(enabled)}")
    return prefer_512_bit_vectors


@lru_cache(maxsize=None)
def _fill():
    from numba import njit, prange

    # checks.fill_values, element by element: numpy's version builds int64 and float64
    # temporaries and took 4.5 s for a 600 MiB buffer.  Filling in parallel also makes each
    # thread first touch the pages it will copy, so they sit on its own memory node.
    @njit(parallel=True, cache=True)
    def cpu_fill(x):
        for i in prange(x.shape[0]):
            x[i] = ((i * 40503) & 65535) * 0.25 + 1.0

    return cpu_fill


@lru_cache(maxsize=None)
def _copy():
    from numba import njit, prange

    @njit(parallel=True, cache=True)
    def cpu_copy(src, dst):
        for i in prange(src.shape[0]):
            dst[i] = src[i]

    return cpu_copy


@lru_cache(maxsize=None)
def _read():
    import numpy as np
    from numba import njit, prange

    # One float32 sum per task of BLOCK elements (reassoc lets LLVM keep it in several SIMD
    # accumulators), float64 across tasks: read_values are multiples of 1/4 up to 1.75, so a
    # task's sum stays below 2^13 and every partial sum is exact in any order.
    @njit(parallel=True, fastmath={"reassoc"}, cache=True)
    def cpu_read(x):
        total = 0.0
        for task in prange(x.shape[0] // BLOCK):
            base = task * BLOCK
            s = np.float32(0)
            for i in range(BLOCK):
                s += x[base + i]
            total += np.float64(s)
        return total

    return cpu_read


@lru_cache(maxsize=None)
def _write():
    import numpy as np
    from numba import njit, prange

    # checks.write_values, a task of BLOCK elements at a time: the task's first value plus a
    # 16 KiB table of offsets that stays in the L1, one add per element.  Converting each
    # int64 index to float32 instead has no SIMD instruction without AVX-512 and left the
    # stream waiting on scalar conversions.  A task starts at a multiple of BLOCK, so
    # (e >> 2) & 65535 = the task's first value + (i >> 2) never wraps inside it; every sum
    # is below 2^16 in quarters, exact in float32.
    @njit(parallel=True, fastmath={"reassoc"}, cache=True)
    def cpu_write(x, offsets):
        for task in prange(x.shape[0] // BLOCK):
            base = task * BLOCK
            first = np.float32((base >> 2) & 65535)
            for i in range(BLOCK):
                x[base + i] = first + offsets[i]

    return cpu_write


def write_offsets():
    """write_values(i) - write_values(0) for i < BLOCK: the table the CPU write kernel adds."""
    import numpy as np
    return write_values(np.arange(BLOCK, dtype=np.int64)).astype(np.float32)


@lru_cache(maxsize=None)
def _fill_read():
    import numpy as np
    from numba import njit, prange

    @njit(parallel=True, cache=True)
    def cpu_fill_read(x):
        for e in prange(x.shape[0]):
            x[e] = np.float32(((e * 40503) & 65535) >> 13) * np.float32(0.25)

    return cpu_fill_read


@lru_cache(maxsize=None)
def _write_mismatches():
    from numba import njit, prange

    # Element by element in float64, not as the write kernel computes it
    @njit(parallel=True, cache=True)
    def cpu_write_mismatches(x):
        bad = 0
        for e in prange(x.shape[0]):
            if not (x[e] == ((e // 4) % 65536) + (e % 4) * 0.25):
                bad += 1
        return bad

    return cpu_write_mismatches


@lru_cache(maxsize=None)
def _fma_peak(dtype: str, lanes: int, wide: bool):
    import numpy as np
    from numba import njit, prange
    ftype = np.float32 if dtype == "fp32" else np.float64
    widen = _prefer_512(bool(wide))

    # n_iter is a run-time argument here: with a compile-time trip count LLVM restructured
    # the loops and the rate fell several-fold (the GPU kernels are the other way round).
    @njit(parallel=True, fastmath=_FAST, cache=True)
    def cpu_fma_peak(out, a, b, trips):
        for t in prange(out.shape[0]):
            widen()  # inside the loop: its body becomes the function the threads run
            v = np.empty(lanes, ftype)
            seed = ftype(t % 1024)
            for lane in range(lanes):
                v[lane] = seed + ftype(lane + 1)
            for _ in range(trips):
                for lane in range(lanes):
                    v[lane] = v[lane] * a + b
            total = ftype(0)
            for lane in range(lanes):
                total += v[lane]
            out[t] = total

    return cpu_fma_peak


#: Up to this K the sweep is written element by element: LLVM unrolls the K FMAs and
#: vectorizes across elements.  Beyond it, the unrolled body grows too large for that, and the
#: LANES form (K steps over a register-sized group of elements) keeps the FMAs in SIMD.
ELEMENTWISE_MAX_K = 16
#: From ELEMENTWISE_MAX_K to this K both forms are timed and the faster is kept (the details
#: keep both), as the GPU sweep keeps the faster of its launch shapes.  The LANES form loads a
#: group, runs K x 8 FMAs on it and stores it, so its loads and stores do not overlap its math
#: until K is large; element by element, loads, FMAs and stores interleave.  On a 2-core EPYC
#: (2026-12-02, 64 MiB, two threads, rates per CPU-second while the machine was shared) K = 32
#: ran at 45 GFLOP/s element by element against 31 in the LANES form, K = 64 at 31 against 43;
#: at K = 128 the element-by-element loop no longer vectorizes (2.6).
BOTH_FORMS_MAX_K = 64


@lru_cache(maxsize=None)
def _sweep_elementwise(k: int):
    from numba import njit, prange
    steps = int(k)

    @njit(parallel=True, fastmath=_FAST, cache=True)
    def cpu_sweep_elementwise(x, y, a, b):
        for i in prange(x.shape[0]):
            v = x[i]
            for _ in range(steps):
                v = v * a + b
            y[i] = v

    return cpu_sweep_elementwise


@lru_cache(maxsize=None)
def _sweep_lanes(k: int):
    import numpy as np
    from numba import njit, prange
    steps = int(k)

    @njit(parallel=True, fastmath=_FAST, cache=True)
    def cpu_sweep(x, y, a, b):
        for block in prange(x.shape[0] // BLOCK):
            v = np.empty(LANES, np.float32)
            for chunk in range(BLOCK // LANES):
                base = block * BLOCK + chunk * LANES
                for lane in range(LANES):
                    v[lane] = x[base + lane]
                for _ in range(steps):
                    for lane in range(LANES):
                        v[lane] = v[lane] * a + b
                for lane in range(LANES):
                    y[base + lane] = v[lane]

    return cpu_sweep


def _sweep(k: int):
    """The sweep kernel at ``k`` (the element-by-element form up to ELEMENTWISE_MAX_K)."""
    return _sweep_elementwise(k) if k <= ELEMENTWISE_MAX_K else _sweep_lanes(k)


def sweep_forms(k: int) -> tuple:
    """``((form, kernel), ...)``: the kernels the sweep times at ``k``, the faster kept."""
    if k <= ELEMENTWISE_MAX_K:
        return (("elementwise", _sweep_elementwise(k)),)
    if k <= BOTH_FORMS_MAX_K:
        return (("elementwise", _sweep_elementwise(k)), ("lanes", _sweep_lanes(k)))
    return (("lanes", _sweep_lanes(k)),)


@lru_cache(maxsize=None)
def _reduction():
    from numba import njit, prange

    # reassoc lets LLVM keep several partial sums in SIMD registers; the inputs are multiples
    # of 1/4 below 2^15, so every float64 partial sum is exact and the order cannot matter.
    @njit(parallel=True, fastmath={"reassoc"}, cache=True)
    def cpu_sum(x):
        total = 0.0
        for i in prange(x.shape[0]):
            total += x[i]
        return total

    return cpu_sum


@lru_cache(maxsize=None)
def workingset_read_kernel():
    """The CPU working-set sweep's kernel (:mod:`rooflinelib.hierarchy.workingset`): every task
    sums the whole working set ``passes`` times.  ``reassoc`` lets LLVM keep several vector
    accumulators (the sum of small integers is exact in any order)."""
    from numba import njit, prange

    @njit(parallel=True, fastmath={"reassoc"}, cache=True)
    def cpu_ws_read(data, passes, out):
        for t in prange(out.shape[0]):
            total = 0.0
            for _ in range(passes):
                for i in range(data.shape[0]):
                    total += data[i]
            out[t] = total

    return cpu_ws_read


def _require(ok, what):
    if not ok:
        raise VerificationError(f"verification: {what}")


#: Lab 3's K values on a CPU: powers of two (its ridge lies anywhere from 1 to 30 FLOP/byte).
CPU_KS = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


def window_from_env():
    """The window ``$ROOFLINE_CPU_WINDOW_S`` asks for, in seconds (None when unset), or a
    one-line ValueError naming the variable."""
    return envvars.window_s()


def repeats_from_env():
    """The timed trials per rate ``$ROOFLINE_CPU_REPEATS`` asks for (None when unset), or a
    one-line ValueError naming the variable."""
    return envvars.repeats()


class CpuBackend:
    """Numba's parallel CPU target, on every core Numba uses
    (:class:`rooflinelib.measure.backend.Backend`)."""

    name = "cpu"
    scope = "cpu"
    sweep_ks = CPU_KS

    def __init__(self, repeats: int = None, warmup: int = 1, window_s: float = None):
        """``repeats``: timed trials per rate at least (default ``$ROOFLINE_CPU_REPEATS`` when
        set, else DEFAULT_REPEATS).  ``window_s``: how long the trials of one measurement go
        on at least (default ``$ROOFLINE_CPU_WINDOW_S`` when set, else ``repeats x
        WINDOW_PER_REPEAT_S``; 0 for just ``repeats`` trials, as a sweep of many short points
        wants)."""
        try:
            import numba
        except Exception as exc:
            raise BackendUnavailable(f"backend cpu: cannot import numba ({exc})") from None
        self.threads = numba.get_num_threads()
        # read from sysfs and /proc once: the buffers, the copy's note and the result's device
        # block all use them, and neither changes while a run lasts
        self.llc_bytes = last_level_cache_bytes()
        self.default_buffer_bytes = dram_buffer_bytes(self.threads, self.llc_bytes or _LLC_FALLBACK_BYTES)
        # a value the caller names wins over the variable; either variable, when it applies,
        # is said in the result's notes
        env_window = window_from_env() if window_s is None else None
        env_repeats = repeats_from_env() if repeats is None else None
        self.window_s = window_s if window_s is not None else env_window
        self.repeats = repeats if repeats is not None else (env_repeats or DEFAULT_REPEATS)
        self.window_set_by_env = env_window is not None
        self.repeats_set_by_env = env_repeats is not None  # after the setter, which clears it
        self.warmup = warmup
        self.cpu_name = cpu_name()
        self.device_name = f"{self.cpu_name} ({self.threads} threads)"

    @property
    def repeats(self) -> int:
        return self._repeats

    @repeats.setter
    def repeats(self, n: int) -> None:
        # a caller's count (Lab 1's and Lab 3's ``repeats=``) replaces the variable's
        self._repeats = int(n)
        self.repeats_set_by_env = False

    # -- the session ------------------------------------------------------------------------------

    def provenance(self) -> dict:
        return cpu_provenance(self.threads, self.cpu_name)

    def start(self) -> dict:
        return {"started": now_iso()}

    def finish(self, session: dict) -> dict:
        return dict(self.provenance(), backend="cpu", started=session["started"], finished=now_iso(),
                    libraries=library_versions())

    def result_notes(self, device: dict) -> list:
        notes = ["CPU roofline: measured on this machine's CPU cores, not a GPU."]
        if self.window_set_by_env:
            notes.append(f"Each rate's trials went on for at least {self.window_s:g} s "
                         f"(${WINDOW_ENV}; the default is {WINDOW_PER_REPEAT_S:g} s per repeat): "
                         "a short window is quick, and a neighbour's burst can lower its rate.")
        if self.repeats_set_by_env:
            notes.append(f"Each rate is the best of at least {self.repeats} timed trials "
                         f"(${REPEATS_ENV}; the default is {DEFAULT_REPEATS}).")
        return notes

    # -- the protocol's primitives ------------------------------------------------------------------

    def first_call(self, launch) -> float:
        with Stopwatch() as sw:  # compilation, and the first touch of every output page
            launch()
        return sw.seconds

    def time(self, launch, repeats: int = None) -> Timing:
        stats = {}
        timing = time_in_window(launch, repeats or self.repeats, self.warmup, self.window_s, stats=stats)
        if stats["uncontended_trials"] == 0:
            return Timing(timing.samples_s, timing.rule,
                          note=f"none of {stats['trials']} trials had every core to itself (other work "
                               "was running): this rate is a lower bound; measure again on a quiet machine")
        return timing

    def clock_sampler(self):
        return NoClock()

    def theoretical(self, clock_mhz) -> dict:
        return {}

    def release(self) -> None:
        """numpy frees the buffers once no run refers to them."""

    def _data(self, n):
        import numpy as np
        x = np.empty(n, np.float32)
        _fill()(x)
        head = min(n, 1 << 16)  # the parallel fill must write what the reference writes
        first = fill_values(np.arange(head, dtype=np.int64)).astype(np.float32)
        last = fill_values(np.arange(n - head, n, dtype=np.int64)).astype(np.float32)
        _require(np.array_equal(x[:head], first) and np.array_equal(x[-head:], last),
                 "cpu fill differs from fill_values")
        return x

    # -- kernels ----------------------------------------------------------------------------------

    def copy_runs(self, size_bytes: int) -> list:
        import numpy as np
        n = max(BLOCK, int(size_bytes) // 4 // BLOCK * BLOCK)
        src = self._data(n)
        dst = np.empty_like(src)
        kernel = _copy()
        llc = self.llc_bytes
        config = {"elements": n, "threads": self.threads, "buffer_bytes": 4 * n,
                  "bytes_per_thread": 4 * n // self.threads, "llc_bytes": llc}
        extra = {}
        if llc and 4 * n < dram_buffer_bytes(self.threads, llc, 1 << 62):
            extra["note"] = (f"buffers of {4 * n / MIB:,.0f} MiB are below "
                             f"{dram_buffer_bytes(self.threads, llc, 1 << 62) / MIB:,.0f} MiB: "
                             "the cache, or stores that first read each line, may set this rate")

        def check():
            return None if np.array_equal(src.view(np.uint32), dst.view(np.uint32)) else "copy differs"

        return [Run(lambda: kernel(src, dst), check, acc.copy_elements_work(n, 4), "cpu_copy (prange)",
                    config, poison=lambda: dst.fill(-1.0), extra=extra)]

    def read_runs(self, size_bytes: int) -> list:
        """A read-only sum of one buffer of ``size_bytes``, checked against the exact
        :func:`~rooflinelib.measure.expected.read_sum`."""
        import numpy as np
        n = max(BLOCK, int(size_bytes) // 4 // BLOCK * BLOCK)
        x = np.empty(n, np.float32)
        _fill_read()(x)
        head = min(n, 1 << 16)
        _require(np.array_equal(x[:head], read_values(np.arange(head, dtype=np.int64)).astype(np.float32)),
                 "cpu read fill differs from read_values")
        want = read_sum(n)
        kernel = _read()
        last = {}

        def launch():
            last["sum"] = kernel(x)

        def check():
            got = last.pop("sum", None)  # the timed trials must each leave their own sum
            return None if got == want else f"sum {got!r}, expected {want!r}"

        return [Run(launch, check, acc.dram_read_work(n), "cpu_read (prange, float32 task sums)",
                    {"elements": n, "threads": self.threads, "buffer_bytes": 4 * n},
                    poison=lambda: last.clear())]

    def write_runs(self, size_bytes: int) -> list:
        """A write-only stream into one buffer of ``size_bytes``; every element checked against
        :func:`~rooflinelib.measure.expected.write_values`."""
        import numpy as np
        n = max(BLOCK, int(size_bytes) // 4 // BLOCK * BLOCK)
        x = np.empty(n, np.float32)
        kernel, mismatches, offsets = _write(), _write_mismatches(), write_offsets()

        def check():
            bad = int(mismatches(x))
            return None if bad == 0 else f"{bad} of {n} floats differ from the expected"

        return [Run(lambda: kernel(x, offsets), check, acc.dram_write_work(n), "cpu_write (prange)",
                    {"elements": n, "threads": self.threads, "buffer_bytes": 4 * n},
                    poison=lambda: x.fill(-1.0))]

    def fma_runs(self, dtype: str, target_s: float = 0.2) -> list:
        """The FMA peak: every task runs ``n_iter`` FMAs on full-width registers, ``n_iter``
        sized from compiled probes so that one trial lasts about FMA_TRIAL_S."""
        import numpy as np
        ftype = np.float32 if dtype == "fp32" else np.float64
        tasks = self.threads * 4
        out = np.empty(tasks, ftype)
        a, b = ftype(1), ftype(0)
        probe_iter = 20000
        lanes, wide = fma_lanes(dtype), has_avx512()
        kernel = _fma_peak(dtype, lanes, wide)
        with Stopwatch() as sw:  # compiles: the first call, kept apart
            kernel(out, a, b, probe_iter)
        probe_s = []
        for _ in range(3):  # size the real run from the fastest of three compiled probes
            with Stopwatch() as probe:
                kernel(out, a, b, probe_iter)
            probe_s.append(probe.seconds)
        trial_s = min(target_s, FMA_TRIAL_S)
        n_iter = min(2_000_000, max(probe_iter, int(probe_iter * trial_s / max(min(probe_s), 1e-6))))
        want = fma_peak_expected(np.arange(tasks), lanes).astype(np.float64)

        def check():
            return None if np.array_equal(out.astype(np.float64), want) else "wrong sums"

        return [Run(lambda: kernel(out, a, b, n_iter), check, acc.fma_peak_work(tasks, n_iter, 1, lanes),
                    f"cpu_fma_peak<{dtype}>",
                    {"lanes": lanes, "vector_bits": 512 if wide else None, "n_iter": n_iter,
                     "tasks": tasks, "threads": self.threads},
                    poison=lambda: out.fill(-1), first_call_s=sw.seconds)]

    def sweep_buffers(self, size_bytes: int) -> SweepBuffers:
        import numpy as np
        n = max(BLOCK, int(size_bytes) // 4 // BLOCK * BLOCK)
        x = self._data(n)
        return SweepBuffers(n // 4, x, np.empty_like(x))

    def sweep_runs(self, k: int, buffers: SweepBuffers, all_ks=(), vectors_per_thread=None) -> list:
        """One configuration per K on the CPU (``vectors_per_thread`` is a GPU launch shape)."""
        import numpy as np
        x, y = buffers.x, buffers.y
        a, b = np.float32(1), np.float32(0)

        def check():
            return None if np.array_equal(x.view(np.uint32), y.view(np.uint32)) else "output differs from input"

        def launch(kernel):
            return lambda: kernel(x, y, a, b)

        return [Run(launch(kernel), check, acc.sweep_work(x.shape[0], k), f"cpu_sweep<{k}> ({form})",
                    {"k": k, "elements": int(x.shape[0]), "threads": self.threads, "form": form},
                    poison=lambda: y.fill(-1.0))
                for form, kernel in sweep_forms(k)]

    def reduction_run(self, buffers: SweepBuffers) -> Run:
        """Exercise 4's reduction: the float64 sum of Lab 3's input."""
        x = buffers.x
        kernel = _reduction()
        want = fill_sum(x.shape[0])
        last = {}

        def launch():
            last["sum"] = kernel(x)

        def check():
            got = last.get("sum")
            return None if got == want else f"sum {got!r}, expected {want!r}"

        return Run(launch, check, acc.Work(float(x.shape[0]), 4.0 * x.shape[0]),
                   "cpu_sum (Numba prange, float64 accumulator)", {"elements": int(x.shape[0])})

    def _absent(self, what: str):
        raise NotImplementedError(f"backend cpu: no {what} kernel (the registry lists it for GPUs only)")

    def l2_runs(self, working_sets=None) -> list:
        self._absent("L2")

    def shared_runs(self) -> list:
        self._absent("shared-memory")

    def sfu_runs(self) -> list:
        self._absent("SFU")

    def link_runs(self, direction: str) -> list:
        self._absent("host-device link")
