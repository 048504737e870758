"""The working-set sweep, measured: read bandwidth against working-set size, on a GPU (Numba)
or on this machine's CPU.

    from rooflinelib.hierarchy.workingset import run_workingset
    result = run_workingset("auto", progress=print)      # GPU if there is one, else the CPU
    from rooflinelib.hierarchy import level_placement as placement
    levels = placement.result_levels(result)              # the steps, found in the numbers

Every point is verified before it is timed: the buffer holds small integers whose float sums
are exact, so each thread's sums are compared bit for bit with :func:`expected_gpu_sums` (or
the CPU's with :func:`expected_cpu_sum`).  A wrong sum raises VerificationError and no rate is
recorded.  The result is a ``rooflinelib-workingset`` file (:mod:`rooflinelib.hierarchy.workingset_files`).

Bytes counted: the bytes the kernel loads, each 16-byte load (8 on the CPU) counted once; the
adds that consume them are not scored.  Times: device events around each launch after a
warm-up, median of ``repeats`` (the measurement engine's timing, :mod:`rooflinelib.measure`).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from rooflinelib.store.fileio import read_text
from rooflinelib.measure.backend import gpu_available
from rooflinelib.measure.expected import gpu_data, passes_for
from rooflinelib.measure.gpu_backends import NumbaGpu
from rooflinelib.measure.protocol import Run, measure_run
from rooflinelib.measure.provenance import ClockSampler, cpu_provenance, library_versions, now_iso
from rooflinelib.hierarchy.levels import format_bytes
from rooflinelib.hierarchy.workingset_files import FORMAT, SERIES_LABELS, VERSION, validate
from rooflinelib.measure.accounting import Work
from rooflinelib.measure.cpu import CpuBackend, workingset_read_kernel

KIB = 1024
MIB = 1024 * 1024

#: GPU sweep: 16 KiB (one chunk) to 512 MiB (2 GiB for the L2-to-DRAM series, thirty times the
#: H200's L2, where even a cache that keeps a fraction of a large working set no longer helps),
#: 8 sizes per octave.
GPU_MIN_BYTES = 16 * KIB
GPU_MAX_BYTES = 512 * MIB
PER_OCTAVE = 8
#: Bytes read per launch: long enough (0.3 ms from L1, 2 ms from HBM) that the launch's ramp-up
#: and tail are small, short enough that 300 launches take seconds.
GPU_BYTES_PER_LAUNCH = 8e9

#: CPU sweep defaults: 4 KiB to 64 MiB (past the L1 and L2 of most CPUs; an L3 of hundreds of
#: MB needs ``max_bytes`` raised, and patience).
CPU_MIN_BYTES = 4 * KIB
CPU_MAX_BYTES = 64 * MIB
CPU_BYTES_PER_CALL = 2e8

def working_set_sizes(min_bytes: float, max_bytes: float, per_octave: int = PER_OCTAVE,
                      multiple: int = 1) -> list:
    """Working sets from ``min_bytes`` to ``max_bytes``, ``per_octave`` per doubling, each a
    whole number of ``multiple`` bytes (so the smallest sizes are spaced by ``multiple``)."""
    if not (0 < min_bytes <= max_bytes) or per_octave < 1 or multiple < 1:
        raise ValueError(f"sizes: need 0 < min_bytes <= max_bytes and per_octave >= 1, got "
                         f"{min_bytes!r}, {max_bytes!r}, {per_octave!r}")
    steps = int(math.floor(per_octave * math.log2(max_bytes / min_bytes) + 1e-9))
    sizes = set()
    for i in range(steps + 1):
        size = min_bytes * 2.0 ** (i / per_octave)
        sizes.add(max(multiple, int(round(size / multiple)) * multiple))
    return sorted(sizes)


#: The GPU sweep's series: (access, pattern, largest working set).  The L1 needs every SM to
#: read the whole set ('spread': each block reads a window of chunks from its own start, the
#: whole set while it fits the window, :func:`.workingset_files.spread_reading`); the L2 and DRAM
#: need blocks that share nothing ('slices'), read far past the L2 so that the DRAM plateau is
#: flat.  The spread .cg series shows what sharing data between blocks does to the same L2.
GPU_SERIES = (("global", "spread", GPU_MAX_BYTES), ("global-cg", "slices", 4 * GPU_MAX_BYTES),
              ("global-cg", "spread", GPU_MAX_BYTES), ("shared", "tiles", None))
#: The name each series is stored under (files recorded before keep their own names).
SERIES_NAMES = SERIES_LABELS


# ---------------------------------------------------------------------------------------------
# GPU: the sweep


def _gpu():
    gpu = NumbaGpu()
    dev = gpu.cuda.get_current_device()
    facts = {}
    for key, attr in (("l2", "L2_CACHE_SIZE"), ("shared", "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR")):
        try:
            facts[key] = int(getattr(dev, attr))
        except Exception:  # an attribute this driver does not know: compare without it
            pass
    return gpu, facts


def _gpu_point(gpu, source, data, n_chunks, n_pass, grid, access, repeats, pattern="spread"):
    """One working set, by the verified-run protocol (sums checked bit for bit)."""
    run = gpu.workingset_run(source, data, n_chunks, n_pass, grid, pattern, access)
    return measure_run(gpu, "workingset", "memory", run, repeats)


def measure_gpu(sizes=None, series=GPU_SERIES, bytes_per_launch: float = GPU_BYTES_PER_LAUNCH,
                repeats: int = 10, progress=None) -> dict:
    """The working-set sweep on this GPU (Numba backend), one result series per entry of
    ``series``: (access, pattern, largest working set in bytes).

    ``sizes``: working sets in bytes (default 16 KiB .. 2 GiB, 8 per octave), rounded to whole
    16 KiB chunks; each series takes those up to its largest.  The ``shared`` series reads
    tiles of 16, 32 and 48 KiB in shared memory.  Returns a validated ``rooflinelib-workingset``
    result.
    """
    # The kernels module builds Numba-CUDA kernels when it is imported.
    from rooflinelib.measure.workingset_kernels import (BLOCK, CHUNK_BYTES, PATTERNS,
                                                        SHARED_TILE_CHUNKS, read_kernel,
                                                        shared_read_kernel)
    plan = []
    for entry in series:
        access, pattern, largest = entry
        if (access, pattern) not in SERIES_NAMES or (access == "shared") != (pattern == "tiles"):
            raise ValueError(f"series: unknown access/pattern {access!r}/{pattern!r}")
        plan.append((access, pattern, largest))
    gpu, reported = _gpu()
    if sizes is None:
        top = max([e[2] for e in plan if e[2]] or [GPU_MAX_BYTES])
        sizes = working_set_sizes(GPU_MIN_BYTES, top, PER_OCTAVE, CHUNK_BYTES)
    chunks = sorted({max(1, int(s) // CHUNK_BYTES) for s in sizes})
    session = gpu.start()
    started = session["started"]
    host = gpu_data(max(chunks + list(SHARED_TILE_CHUNKS)))
    data = gpu.upload(host)
    # One wave: every block resident at once (see NumbaGpu.resident_blocks_per_sm), so that
    # the whole working set is read between two reuses of any part of it.
    blocks_per_sm = {}
    out_series = []
    for access, pattern, largest in plan:
        rows = []
        if access == "shared":
            per_sm = reported.get("shared", 0)
            points = []
            for tile in SHARED_TILE_CHUNKS:
                kernel = shared_read_kernel(tile)
                # As many blocks as are resident, and no more than the tiles fit (1 KiB of each
                # block's shared memory is reserved by the system).
                fit = per_sm // (tile * CHUNK_BYTES + KIB) if per_sm else 1
                resident = min(gpu.resident_blocks_per_sm(kernel.compile(), BLOCK), max(1, fit))
                blocks_per_sm[f"shared {tile}"] = resident
                points.append((tile, kernel, gpu.sm_count * resident))
        else:
            kernel = read_kernel(access, pattern)
            resident = gpu.resident_blocks_per_sm(kernel.compile(), BLOCK)
            blocks_per_sm[f"{access} {pattern}"] = resident
            points = [(n, kernel, gpu.sm_count * resident) for n in chunks
                      if largest is None or n * CHUNK_BYTES <= largest]
        with ClockSampler() as clocks:  # the SM clock while this series ran (NVML, if present)
            for n_chunks, kernel, grid in points:
                n_pass = passes_for(bytes_per_launch, grid, n_chunks)
                m = _gpu_point(gpu, kernel, data, n_chunks, n_pass, grid, access, repeats,
                               "spread" if pattern not in PATTERNS else pattern)
                rows.append({"bytes": n_chunks * CHUNK_BYTES, "gbps": m.value,
                             "spread": m.timing.spread, "verified": True})
                if progress:
                    progress(f"  {access:<9} {pattern:<6} {format_bytes(n_chunks * CHUNK_BYTES):>9}: "
                             f"{m.value:>9,.0f} GB/s (spread {100 * m.timing.spread:.1f}%)")
        out_series.append({"name": SERIES_NAMES[(access, pattern)], "access": access, "pattern": pattern,
                           "first_cache": 2 if access == "global-cg" else 1, "rows": rows,
                           "sm_clock_mhz": clocks.median_mhz,
                           "grid": {str(n): g for n, _, g in points} if access == "shared" else
                           gpu.sm_count * resident})
    del data
    device = gpu.finish(session)
    device["reported_cache_bytes"] = reported
    result = {"format": FORMAT, "version": VERSION, "kind": "workingset",
              "backend": "numba", "scope": "gpu", "created": started, "device": device,
              "config": {"block": BLOCK, "chunk_bytes": CHUNK_BYTES, "bytes_per_launch": bytes_per_launch,
                         "repeats": repeats, "blocks_per_sm": blocks_per_sm,
                         "max_host_bytes": int(host.nbytes)},
              "series": out_series, "notes": []}
    return validate(result)


# ---------------------------------------------------------------------------------------------
# CPU


def cpu_data(n: int):
    """``n`` float64 values, small integers (i % 7): sums are exact."""
    return (np.arange(n) % 7).astype(np.float64)


def expected_cpu_sum(n: int, passes: int) -> float:
    full, rest = divmod(n, 7)
    return float(passes * (full * 21 + rest * (rest - 1) // 2))


def measure_cpu(sizes=None, bytes_per_call: float = CPU_BYTES_PER_CALL, repeats: int = 5,
                threads: int = None, progress=None) -> dict:
    """The working-set sweep on this CPU: every thread reads one shared buffer of W bytes,
    so the per-core caches (L1, L2) and the shared last-level cache appear as steps.
    Returns a validated ``rooflinelib-workingset`` result (scope 'cpu')."""
    import numba

    if sizes is None:
        sizes = working_set_sizes(CPU_MIN_BYTES, CPU_MAX_BYTES, 4, 1024)
    n_threads = int(threads or numba.get_num_threads())
    # just `repeats` trials a point (no window of seconds: a sweep has dozens of short points);
    # the fastest is the rate, as for the CPU ceilings
    backend = CpuBackend(repeats=repeats, warmup=1, window_s=0.0)
    kernel = workingset_read_kernel()
    started = now_iso()
    out = np.empty(n_threads)
    rows = []
    for size in sizes:
        n = max(1, int(size) // 8)
        data = cpu_data(n)
        passes = max(1, int(bytes_per_call // (8 * n * n_threads)))
        want = expected_cpu_sum(n, passes)
        run = Run(lambda data=data, passes=passes: kernel(data, passes, out),
                  lambda want=want: None if np.all(out == want) else f"sums {out[:2]} differ from {want}",
                  Work(0.0, 8.0 * n * passes * n_threads), f"cpu_ws_read {8 * n} B",
                  {"bytes": 8 * n, "passes": passes}, poison=lambda: out.fill(np.nan))
        m = measure_run(backend, "workingset", "memory", run)
        rows.append({"bytes": 8 * n, "gbps": m.gbps, "spread": m.timing.spread, "verified": True})
        if progress:
            progress(f"  cpu {format_bytes(8 * n):>9}: {m.gbps:>8,.1f} GB/s")
    device = dict(cpu_provenance(n_threads), backend="cpu", started=started, finished=now_iso(),
                  libraries=library_versions(), reported_cache_bytes=cpu_cache_sizes())
    result = {"format": FORMAT, "version": VERSION, "kind": "workingset",
              "backend": "cpu", "scope": "cpu", "created": started, "device": device,
              "config": {"threads": n_threads, "bytes_per_call": bytes_per_call, "repeats": repeats,
                         "rule": f"best of {repeats} trials"},
              "series": [{"name": "cpu reads (every thread the whole set)", "access": "cpu",
                          "first_cache": 1, "rows": rows}],
              "notes": ["CPU working-set sweep: the levels are this CPU's caches, not a GPU's."]}
    return validate(result)


def cpu_cache_sizes() -> dict:
    """Data and unified cache sizes the OS reports for CPU 0 (Linux sysfs), e.g.
    ``{"l1": 49152, "l2": 2097152, "l3": 314572800}``; empty elsewhere."""
    found = {}
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            kind = read_text(index / "type").strip()
            level = int(read_text(index / "level").strip())
            text = read_text(index / "size").strip().upper()
        except ValueError:  # FileError included: a file the kernel does not provide here
            continue
        if kind == "Instruction":
            continue
        scale = {"K": KIB, "M": MIB, "G": 1024 * MIB}.get(text[-1:], 1)
        try:
            found[f"l{level}"] = int(text.rstrip("KMG")) * scale
        except ValueError:
            continue
    return found


def run_workingset(backend: str = "auto", progress=None, **options) -> dict:
    """The sweep on ``backend`` 'numba' (GPU), 'cpu', or 'auto' (the GPU when Numba-CUDA can
    use one, else the CPU, and says so)."""
    if backend not in ("auto", "numba", "cpu"):
        raise ValueError(f"backend: must be auto, numba or cpu, got {backend!r}")
    if backend == "auto":
        backend = "numba" if gpu_available() else "cpu"
        if progress and backend == "cpu":
            progress("No CUDA GPU: sweeping this machine's CPU caches instead.")
    return measure_gpu(progress=progress, **options) if backend == "numba" else measure_cpu(progress=progress, **options)
