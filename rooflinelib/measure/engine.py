"""The GPU measurement engine: launch a kernel, verify it, time it, turn the time into a rate.

One class per GPU backend (:class:`NumbaGpu`, :class:`CupyGpu`) with the same methods, so Lab 1
and Lab 2 run the same plan on either.  Every measurement follows the same four steps:

1. first call: compile + launch, timed on the host and reported apart (``first_call_s``);
2. verify the output bit for bit (tolerances only for cuBLAS); a mismatch raises
   :class:`VerificationError` and no rate is produced;
3. time ``repeats`` launches with device events after a warm-up; each timed launch is queued
   behind an untimed one, so the host's launch overhead never falls inside the timed interval;
4. rate = counted work (:mod:`.accounting`) / median time, with the spread of the repeats.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import accounting as acc
from .provenance import FMA_LANES_PER_SM, SFU_PER_CLOCK_PER_SM, SHARED_BYTES_PER_CLOCK_PER_SM
from .provenance import ClockSampler
from .checks import fma_peak_expected, sfu_expected, shared_expected
from .timing import Stopwatch, Timing, time_with_events


class VerificationError(RuntimeError):
    """A kernel's output was wrong: its time is not a measurement."""


class BackendUnavailable(RuntimeError):
    """The backend asked for cannot run here (no GPU, library missing)."""


@dataclass
class Measurement:
    """One verified, timed kernel run and the rate it gives."""

    name: str  # ceiling name: dram, fp32, ...
    kind: str  # "memory" (rate in GB/s) or "compute" (rate in GFLOP/s)
    work: acc.Work
    timing: Timing
    verified: bool
    first_call_s: float = 0.0
    kernel: str = ""
    config: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    @property
    def value(self) -> float:
        t = self.timing.median_s
        return self.work.gbps(t) if self.kind == "memory" else self.work.gflops(t)

    @property
    def unit(self) -> str:
        return "GB/s" if self.kind == "memory" else "GFLOP/s"

    def ceiling_row(self) -> dict:
        return {"name": self.name, "kind": self.kind, "value": self.value, "unit": self.unit,
                "verified": self.verified, "spread": self.timing.spread}

    def detail(self) -> dict:
        return {"name": self.name, "kernel": self.kernel, "n_flops": self.work.n_flops,
                "n_bytes": self.work.n_bytes, "first_call_s": self.first_call_s,
                "config": dict(self.config), **self.timing.as_dict(), **self.extra}


def best(measurements: list) -> Measurement:
    """The ceiling is the best rate any configuration reached, as ERT reports it; the others
    stay in the details."""
    # Ties (a K = 0 sweep point does no FLOPs: every variant's GFLOP/s is 0) go to the
    # shortest median time, which is the highest rate of the same counted work.
    top = max(measurements, key=lambda m: (m.value, -m.timing.median_s))
    top.extra["configs_tried"] = [dict(m.config, value=m.value, median_s=m.timing.median_s)
                                  for m in measurements]
    return top


def _require(ok: bool, what: str):
    if not ok:
        raise VerificationError(f"verification: {what}")


def theoretical(sm_count: int, cc: tuple, clock_mhz) -> dict:
    """Per-clock peaks of this architecture at ``clock_mhz`` (empty where unknown)."""
    if not clock_mhz:
        return {}
    ghz = float(clock_mhz) / 1000.0
    out = {"clock_mhz": float(clock_mhz)}
    lanes = FMA_LANES_PER_SM.get(tuple(cc))
    if lanes:
        out["fp32_gflops"] = sm_count * lanes[0] * 2 * ghz
        out["fp64_gflops"] = sm_count * lanes[1] * 2 * ghz
    if tuple(cc) in SFU_PER_CLOCK_PER_SM:
        out["sfu_gops"] = sm_count * SFU_PER_CLOCK_PER_SM[tuple(cc)] * ghz
    out["shared_gbps"] = sm_count * SHARED_BYTES_PER_CLOCK_PER_SM * ghz
    return out


# Launch shapes.  256-thread blocks, as many as the SM holds, for the compute kernels.
BLOCK = 256
COPY_CONFIGS = ((1, 256), (2, 256), (4, 256), (1, 1024))  # (vectors per thread, block)
FP32_CONFIGS = ((8, 32), (16, 16), (4, 64))  # (chains, unroll): 256 FMAs per loop trip
#: Vectors each thread of the sweep walks (1: one vector per thread, no pipelining), tried at
#: every K; the point reports the fastest, as the copy ceiling does (:func:`best`).  Measured on
#: the H200 (benchmarks/REPORT.md), neither setting alone serves the whole curve: one vector per
#: thread reads at 0.999 of the copy ceiling at K = 0 but leaves the memory roof 2 K-steps
#: before the ridge (load latency and FMA time add up); 16 vectors, software-pipelined, overlap
#: them and put the knee within one step, but lose ~5% of the bandwidth at K = 0.
SWEEP_VECTOR_CONFIGS = (1, 16)
#: The pipelined setting, for callers that ask for one kernel only.
SWEEP_VECTORS_PER_THREAD = 16
#: The L2 ceiling reads working sets of 1, 1.5 and 2 chunks per block (each block owns its
#: chunks: no two blocks read the same line), those that stay below half the L2 the device
#: reports (13, 19.5 and 26 MB on the H200).  Smaller sets make blocks share chunks, and the
#: SMs' requests for one line then merge before they reach the L2's slices: on the H200 a 2 MB
#: set read at 15.6 TB/s while the slices (ncu, lts__t_bytes) served 45% of the bytes, at
#: 7.0 TB/s.  That is no bandwidth of the L2, and ncu's L2 bytes, which the hierarchical
#: roofline divides by this ceiling, count the slices.
L2_CHUNKS_PER_BLOCK = (1.0, 1.5, 2.0)
L2_DEFAULT_BYTES = 2 * 2 ** 20  # when the device does not report its L2 size
#: Each block owns a slice of the working set ("slices"): blocks that read the same lines
#: drift into lockstep and share each fetch, which a bandwidth ceiling must not count twice.
L2_PATTERN = "slices"
L2_BYTES_PER_LAUNCH = 8e9  # as the working-set sweep: ~0.9 ms at 9 TB/s, ramp and tail small
SHARED_FILL_MOD = 5


def l2_working_sets(l2_bytes=None, chunk_bytes: int = 16 * 1024, blocks: int = 1) -> tuple:
    """The working sets (bytes, whole chunks, at least one) the L2 ceiling reads with a grid of
    ``blocks`` blocks, on a device that reports an L2 of ``l2_bytes`` (None: unknown): 1, 1.5
    and 2 chunks per block, as far as they stay below half the L2.  When even one chunk per
    block does not, a quarter of the L2 (the blocks then share chunks; the result says so)."""
    if not l2_bytes or l2_bytes <= 0:
        sizes = (L2_DEFAULT_BYTES,)
    else:
        sizes = tuple(int(m * blocks) * chunk_bytes for m in L2_CHUNKS_PER_BLOCK
                      if m * blocks * chunk_bytes <= l2_bytes / 2) or (int(l2_bytes) // 4,)
    return tuple(sorted({max(1, s // chunk_bytes) * chunk_bytes for s in sizes}))


def _vector_count(size_bytes: int, multiple: int) -> int:
    n = int(size_bytes) // acc.VECTOR_BYTES
    return max(multiple, n - n % multiple)


class _GpuBase:
    """What both GPU backends share: the plan, the checks and the arithmetic."""

    name = "?"
    repeats = 20
    warmup = 2

    # -- to provide: device_facts(), empty(n, dtype), host(array), fill(x),
    #    count_mismatches(a, b), time(launch), and the kernel launchers

    def threads_to_fill(self) -> int:
        return self.sm_count * self.max_threads_per_sm

    def provenance(self) -> dict:
        return dict(self.device_facts(), backend=self.name)

    def warm_up(self, seconds: float = 0.3):
        """Keep the GPU busy for a moment so that the clocks read "before" are the running
        clocks, not the idle ones (an idle H200 reads 345 MHz)."""
        import time
        x = self.empty(2 ** 26, "fp32")
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            self.fill(x)
            self.synchronize()
        self.release(x)

    def _first_call(self, launch):
        with Stopwatch() as sw:
            launch()
            self.synchronize()
        return sw.seconds

    # -- DRAM -------------------------------------------------------------------------------

    def dram(self, size_bytes: int, progress=None) -> Measurement:
        """Best copy rate over COPY_CONFIGS, on two buffers of ``size_bytes`` each."""
        multiple = max(v * b for v, b in COPY_CONFIGS)
        n_vec = _vector_count(size_bytes, multiple)
        src = self.empty(4 * n_vec, "fp32")
        dst = self.empty(4 * n_vec, "fp32")
        self.fill(src)
        tried = []
        for vpt, block in COPY_CONFIGS:
            launch = self.copy_launcher(vpt, block, n_vec, src, dst)
            self.poison(dst)  # so that a kernel that writes nothing cannot pass
            first = self._first_call(launch)
            bad = self.count_mismatches(src, dst)
            _require(bad == 0, f"copy x{vpt}: {bad} of {4 * n_vec} floats differ")
            timing = self.time(launch)
            m = Measurement("dram", "memory", acc.copy_work(n_vec), timing, True, first,
                            f"copy16 x{vpt}", {"vectors_per_thread": vpt, "block": block,
                                               "buffer_bytes": 16 * n_vec})
            tried.append(m)
            if progress:
                progress(f"  copy x{vpt} block {block}: {m.value:,.0f} GB/s")
        self.release(src, dst)
        return best(tried)

    # -- FMA peak -----------------------------------------------------------------------------

    def fma_peak(self, dtype: str, configs, n_iter: int, progress=None) -> Measurement:
        threads = self.threads_to_fill()
        out = self.empty(threads, dtype)
        import numpy as np
        expected = np.zeros(threads)
        t_index = np.arange(threads)
        tried = []
        for chains, unroll in configs:
            launch = self.fma_launcher(dtype, chains, unroll, n_iter, threads, out)
            self.poison(out)
            first = self._first_call(launch)
            got = self.host(out).astype(np.float64)
            expected = fma_peak_expected(t_index, chains)
            bad = int(np.count_nonzero(got != expected))
            _require(bad == 0, f"fma_peak {dtype} chains={chains}: {bad} of {threads} threads wrong")
            with ClockSampler() as clocks:
                timing = self.time(launch)
            m = Measurement(dtype, "compute", acc.fma_peak_work(threads, n_iter, unroll, chains),
                            timing, True, first, f"fma_peak<{dtype}>",
                            {"chains": chains, "unroll": unroll, "n_iter": n_iter,
                             "threads": threads, "block": BLOCK})
            peak = theoretical(self.sm_count, self.cc, clocks.median_mhz)
            key = f"{dtype}_gflops"
            if key in peak:
                m.extra["sm_clock_mhz_during"] = peak["clock_mhz"]
                m.extra["theoretical_gflops"] = peak[key]
                m.extra["fraction_of_theoretical"] = m.value / peak[key]
            tried.append(m)
            if progress:
                progress(f"  fma_peak {dtype} chains {chains} x unroll {unroll}: "
                         f"{m.value:,.0f} GFLOP/s")
        self.release(out)
        return best(tried)

    # -- the sweep ------------------------------------------------------------------------------

    def sweep_buffers(self, size_bytes: int):
        n_vec = _vector_count(size_bytes, BLOCK * 64)
        x = self.empty(4 * n_vec, "fp32")
        y = self.empty(4 * n_vec, "fp32")
        self.fill(x)
        return n_vec, x, y

    def sweep_point(self, k: int, n_vec: int, x, y, all_ks=(), vectors_per_thread=None) -> Measurement:
        """One sweep point: every launch configuration in ``vectors_per_thread`` (an int, a
        tuple, or None for SWEEP_VECTOR_CONFIGS), each verified bit for bit, the fastest
        reported.  Its details keep the chosen setting (``config``) and every variant's GB/s,
        GFLOP/s and median time (``configs_tried``)."""
        if vectors_per_thread is None:
            configs = SWEEP_VECTOR_CONFIGS
        elif isinstance(vectors_per_thread, int):
            configs = (vectors_per_thread,)
        else:
            configs = tuple(int(v) for v in vectors_per_thread)
        if not configs or any(v < 1 for v in configs):
            raise ValueError("vectors_per_thread: must be whole numbers of at least 1")
        tried = [self._sweep_variant(k, n_vec, x, y, all_ks, v) for v in configs]
        top = best(tried)
        top.extra["configs_tried"] = [
            {"vectors_per_thread": m.config["vectors_per_thread"], "kernel": m.kernel,
             "gbps": m.work.gbps(m.timing.median_s), "gflops": m.work.gflops(m.timing.median_s),
             "median_s": m.timing.median_s, "spread": m.timing.spread,
             "first_call_s": m.first_call_s, "verified": m.verified} for m in tried]
        return top

    def _sweep_variant(self, k: int, n_vec: int, x, y, all_ks, vectors_per_thread: int) -> Measurement:
        """One launch configuration of one sweep point.  ``vectors_per_thread`` 1: one vector
        per thread, no pipelining; 2 or more: the software-pipelined kernel, each thread
        walking that many vectors."""
        pipelined = vectors_per_thread > 1
        if n_vec % (BLOCK * vectors_per_thread):
            raise ValueError("vectors_per_thread: must divide the vectors into whole blocks")
        launch = self.sweep_launcher(k, n_vec, x, y, all_ks, vectors_per_thread)
        self.poison(y)  # y still holds the previous variant's (correct) output otherwise
        first = self._first_call(launch)
        bad = self.count_mismatches(x, y)
        _require(bad == 0, f"sweep k={k} x{vectors_per_thread}: {bad} of {4 * n_vec} floats "
                           "differ from the input")
        timing = self.time(launch)
        return Measurement("sweep", "compute", acc.sweep_work(4 * n_vec, k), timing, True,
                           first, f"{'sweep_pipelined' if pipelined else 'sweep'}<{k}>",
                           {"k": k, "elements": 4 * n_vec, "block": BLOCK,
                            "vectors_per_thread": vectors_per_thread})


class NumbaGpu(_GpuBase):
    """Numba-CUDA kernels from :mod:`.kernels_numba`."""

    name = "numba"

    def __init__(self):
        try:
            from numba import cuda
        except Exception as exc:  # numba-cuda missing or broken (numpy 2.5: see README)
            raise BackendUnavailable(f"backend numba: cannot import numba.cuda ({exc})") from None
        if not cuda.is_available():
            raise BackendUnavailable("backend numba: no CUDA GPU is available to Numba")
        from . import kernels_numba as kn
        self.cuda, self.kn = cuda, kn
        dev = cuda.get_current_device()
        self.sm_count = int(dev.MULTIPROCESSOR_COUNT)
        self.max_threads_per_sm = int(dev.MAX_THREADS_PER_MULTIPROCESSOR)
        self.cc = tuple(dev.compute_capability)
        self.device_name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        try:
            self.l2_bytes = int(dev.L2_CACHE_SIZE)
        except Exception:  # an attribute this driver does not report: the default working set
            self.l2_bytes = None

    def device_facts(self) -> dict:
        from numba.cuda.cudadrv import runtime, driver
        facts = {"name": self.device_name, "kind": "gpu", "sm_count": self.sm_count,
                 "compute_capability": f"{self.cc[0]}.{self.cc[1]}"}
        try:
            facts["cuda_runtime_nvrtc"] = ".".join(map(str, runtime.get_version()))
            facts["cuda_driver"] = ".".join(map(str, driver.get_version()))
        except Exception:
            pass
        return facts

    def synchronize(self):
        self.cuda.synchronize()

    def resident_blocks_per_sm(self, kernel, block: int = BLOCK) -> int:
        """How many ``block``-thread blocks of the compiled ``kernel`` one SM holds at once,
        from the driver's occupancy calculator (registers and shared memory included).

        A working-set read launches exactly this many per SM.  With more, the blocks past the
        first wave wait for a slot, and while the first wave runs only its part of the working
        set is being reused: on the H200 the read kernels take 36-38 registers, six blocks fit
        where the thread limit alone allows eight, and a grid of eight per SM kept a 79 MB set
        "in" a 63 MB L2.  Without the calculator (the simulator) the thread limit decides."""
        limit = max(1, self.max_threads_per_sm // block)
        try:
            overload = next(iter(kernel.overloads.values()))
            per_sm = overload.max_cooperative_grid_blocks(block) // self.sm_count
        except Exception:
            return limit
        return max(1, min(limit, per_sm))

    def empty(self, n, dtype):
        import numpy as np
        return self.cuda.device_array(int(n), dtype=np.float32 if dtype == "fp32" else np.float64)

    def release(self, *arrays):
        del arrays

    def poison(self, x):
        """Every byte 0xFF: NaN in every float, equal to no input value."""
        from numba.cuda.cudadrv.driver import device_memset
        device_memset(x, 0xFF, x.nbytes)

    def host(self, array):
        return array.copy_to_host()

    def upload(self, host_array):
        return self.cuda.to_device(host_array)

    def fill(self, x):
        self.kn.fill_kernel().compile()[self.sm_count * 8, BLOCK](x)

    def count_mismatches(self, a, b) -> int:
        import numpy as np
        count = self.cuda.to_device(np.zeros(1, np.int32))
        self.kn.mismatch_kernel().compile()[self.sm_count * 8, BLOCK](a, b, count)
        return int(count.copy_to_host()[0])

    def time(self, launch, repeats=None) -> Timing:
        return time_with_events(launch, lambda: self.cuda.event(timing=True),
                                lambda s, e: s.elapsed_time(e), repeats or self.repeats,
                                self.warmup, prime=launch)

    # kernel launchers: each returns a zero-argument callable that enqueues one launch

    def copy_launcher(self, vpt, block, n_vec, src, dst):
        kernel = self.kn.copy_kernel(vpt).compile()
        grid = n_vec // (vpt * block)
        return lambda: kernel[grid, block](src, dst)

    def fma_launcher(self, dtype, chains, unroll, n_iter, threads, out):
        import numpy as np
        kernel = self.kn.fma_peak_kernel(dtype, chains, unroll, n_iter).compile()
        one, zero = (np.float32(1), np.float32(0)) if dtype == "fp32" else (1.0, 0.0)
        return lambda: kernel[threads // BLOCK, BLOCK](out, one, zero)

    def sweep_launcher(self, k, n_vec, x, y, all_ks=(), vectors_per_thread=1):
        import numpy as np
        one, zero = np.float32(1), np.float32(0)
        if vectors_per_thread > 1:
            kernel = self.kn.sweep_pipelined_kernel(k).compile()
            grid = n_vec // (BLOCK * vectors_per_thread)
            return lambda: kernel[grid, BLOCK](x, y, one, zero)
        kernel = self.kn.sweep_kernel(k).compile()
        return lambda: kernel[n_vec // BLOCK, BLOCK](x, y, one, zero)

    # -- the hierarchy and the SFU (Numba backend only) --------------------------------------

    def l2(self, progress=None, working_sets=None, bytes_per_launch: float = L2_BYTES_PER_LAUNCH,
           pattern: str = L2_PATTERN) -> Measurement:
        """Best read rate over ``working_sets`` (bytes; default :func:`l2_working_sets` of the
        device's L2), each small enough to stay in the L2.

        The kernel is the working-set sweep's (:func:`rooflinelib.workingset_kernels.read_kernel`,
        ``ld.global.cg``: the L1 never answers), so the L2 ceiling of Lab 1 and the L2 plateau of
        the hierarchical sweep are measured the same way.  Every thread's four sums are checked
        bit for bit against :func:`rooflinelib.workingset.expected_gpu_sums`.
        """
        import numpy as np
        from .. import workingset as ws
        from .. import workingset_kernels as wk
        kernel = wk.read_kernel("global-cg", pattern).compile()
        grid = self.sm_count * self.resident_blocks_per_sm(kernel, wk.BLOCK)
        sizes = tuple(working_sets or l2_working_sets(getattr(self, "l2_bytes", None), wk.CHUNK_BYTES, grid))
        all_chunks = [max(1, int(size) // wk.CHUNK_BYTES) for size in sizes]
        data = self.upload(ws.gpu_data(max(all_chunks)))
        out = self.empty(4 * grid * wk.BLOCK, "fp32")
        tried = []
        for n_chunks in all_chunks:
            n_pass = ws.passes_for(bytes_per_launch, grid, n_chunks)
            args = (data, out, np.int32(n_chunks), np.int32(n_pass))
            launch = lambda args=args: kernel[grid, wk.BLOCK](*args)  # noqa: E731
            self.poison(out)
            first = self._first_call(launch)
            got = self.host(out).astype(np.float64).reshape(grid * wk.BLOCK, 4)
            want = ws.expected_gpu_sums(n_chunks, n_pass, grid, pattern)
            bad = int(np.count_nonzero(got != want))
            _require(bad == 0, f"l2 {n_chunks * wk.CHUNK_BYTES} B {pattern}: {bad} of {got.size} sums wrong")
            with ClockSampler() as clocks:
                timing = self.time(launch)
            m = Measurement("l2", "memory", acc.chunk_read_work(grid, n_pass, wk.CHUNK_BYTES), timing,
                            True, first, f"ws_read global-cg {pattern} (ld.global.cg, 16 B)",
                            {"pattern": pattern, "working_set_bytes": n_chunks * wk.CHUNK_BYTES,
                             "n_chunks": n_chunks, "passes": n_pass, "grid": grid, "block": wk.BLOCK,
                             "blocks_per_chunk": grid / n_chunks,
                             "reported_l2_bytes": getattr(self, "l2_bytes", None)})
            if clocks.median_mhz:
                m.extra["sm_clock_mhz_during"] = clocks.median_mhz
            tried.append(m)
            if progress:
                progress(f"  l2 read ld.global.cg, pattern {pattern}, "
                         f"{n_chunks * wk.CHUNK_BYTES / 1e6:.2f} MB working set: {m.value:,.0f} GB/s")
        self.release(data, out)
        return best(tried)

    def shared(self, progress=None, unroll: int = 4, n_pass: int = 4096) -> Measurement:
        import numpy as np
        floats = self.kn.SHARED_FLOATS
        n_vec = floats // 4
        if n_vec % (unroll * BLOCK):
            raise ValueError("unroll: unroll * block must divide the shared tile's vectors")
        threads = self.threads_to_fill()
        blocks = threads // BLOCK
        data_host = (np.arange(floats) % SHARED_FILL_MOD).astype(np.float32)
        data = self.upload(data_host)
        out = self.empty(4 * threads, "fp32")
        kernel = self.kn.shared_read_kernel(unroll).compile()
        args = (data, out, np.int32(n_pass), np.int32(n_vec - 1))
        launch = lambda: kernel[blocks, BLOCK](*args)  # noqa: E731
        self.poison(out)
        first = self._first_call(launch)
        got = self.host(out).astype(np.float64).reshape(blocks, BLOCK, 4)
        want = shared_expected(data_host.reshape(n_vec, 4).astype(np.float64), BLOCK, n_pass, unroll)
        bad = int(np.count_nonzero(got != want[None, :, :]))
        _require(bad == 0, f"shared: {bad} of {got.size} sums wrong")
        with ClockSampler() as clocks:
            timing = self.time(launch)
        m = Measurement("shared", "memory", acc.read_work(threads, n_pass * unroll), timing,
                        True, first, "shared_read (ld.shared.v4, 16 B)",
                        {"passes": n_pass, "unroll": unroll, "threads": threads,
                         "tile_bytes": floats * 4})
        peak = theoretical(self.sm_count, self.cc, clocks.median_mhz)
        if "shared_gbps" in peak:
            m.extra.update(sm_clock_mhz_during=peak["clock_mhz"],
                           theoretical_gbps=peak["shared_gbps"],
                           fraction_of_theoretical=m.value / peak["shared_gbps"])
        if progress:
            progress(f"  shared-memory read: {m.value:,.0f} GB/s")
        return m

    def sfu(self, progress=None, chains: int = 8, unroll: int = 8, n_iter: int = 512) -> Measurement:
        import numpy as np
        threads = self.threads_to_fill()
        out = self.empty(threads, "fp32")
        kernel = self.kn.sfu_kernel(chains, unroll, n_iter).compile()
        zero = np.float32(0)
        launch = lambda: kernel[threads // BLOCK, BLOCK](out, zero)  # noqa: E731
        self.poison(out)
        first = self._first_call(launch)
        got = self.host(out).astype(np.float64)
        want = sfu_expected(np.arange(threads), chains, n_iter * unroll)
        bad = int(np.count_nonzero(got != want))
        _require(bad == 0, f"sfu: {bad} of {threads} threads wrong")
        with ClockSampler() as clocks:
            timing = self.time(launch)
        m = Measurement("sfu", "compute", acc.sfu_work(threads, n_iter, unroll, chains), timing,
                        True, first, "sfu (ex2.approx.ftz)",
                        {"chains": chains, "unroll": unroll, "n_iter": n_iter, "threads": threads})
        peak = theoretical(self.sm_count, self.cc, clocks.median_mhz)
        if "sfu_gops" in peak:
            m.extra.update(sm_clock_mhz_during=peak["clock_mhz"], theoretical_gflops=peak["sfu_gops"],
                           fraction_of_theoretical=m.value / peak["sfu_gops"])
        if progress:
            progress(f"  exp2 (SFU): {m.value:,.0f} G exp2/s")
        return m


class CupyGpu(_GpuBase):
    """CUDA C++ kernels from :mod:`.kernels_cupy`, compiled by NVRTC."""

    name = "cupy"

    def __init__(self):
        try:
            import cupy
        except Exception as exc:
            raise BackendUnavailable(f"backend cupy: cannot import cupy ({exc})") from None
        try:
            if cupy.cuda.runtime.getDeviceCount() < 1:
                raise RuntimeError("no device")
            props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        except Exception as exc:
            raise BackendUnavailable(f"backend cupy: no CUDA GPU is available to CuPy ({exc})") from None
        from . import kernels_cupy as kc
        self.cp, self.kc = cupy, kc
        self.sm_count = int(props["multiProcessorCount"])
        self.max_threads_per_sm = int(props["maxThreadsPerMultiProcessor"])
        self.cc = (int(props["major"]), int(props["minor"]))
        name = props["name"]
        self.device_name = name.decode() if isinstance(name, bytes) else str(name)

    def device_facts(self) -> dict:
        rt = self.cp.cuda.runtime
        def version(v):
            return f"{v // 1000}.{v % 1000 // 10}"
        return {"name": self.device_name, "kind": "gpu", "sm_count": self.sm_count,
                "compute_capability": f"{self.cc[0]}.{self.cc[1]}",
                "cuda_runtime": version(rt.runtimeGetVersion()),
                "cuda_driver": version(rt.driverGetVersion())}

    def synchronize(self):
        self.cp.cuda.Device().synchronize()

    def empty(self, n, dtype):
        return self.cp.empty(int(n), dtype=self.cp.float32 if dtype == "fp32" else self.cp.float64)

    def release(self, *arrays):
        del arrays
        self.cp.get_default_memory_pool().free_all_blocks()

    def poison(self, x):
        """Every byte 0xFF: NaN in every float, equal to no input value."""
        x.view(self.cp.uint8).fill(0xFF)

    def host(self, array):
        return self.cp.asnumpy(array)

    def upload(self, host_array):
        return self.cp.asarray(host_array)

    def fill(self, x):
        cp = self.cp
        i = cp.arange(x.size, dtype=cp.int64)
        x[...] = ((i * 40503) & 65535).astype(cp.float32) * cp.float32(0.25) + cp.float32(1)
        del i

    def count_mismatches(self, a, b) -> int:
        cp = self.cp
        count = cp.zeros(1, dtype=cp.uint64)
        fn = self.kc.kernel("count_mismatches")
        fn((self.sm_count * 8,), (BLOCK,), (a, b, cp.uint64(a.size), count))
        return int(count.get()[0])

    def time(self, launch, repeats=None) -> Timing:
        cp = self.cp
        return time_with_events(launch, cp.cuda.Event, cp.cuda.get_elapsed_time,
                                repeats or self.repeats, self.warmup, prime=launch)

    def copy_launcher(self, vpt, block, n_vec, src, dst):
        fn = self.kc.kernel(self.kc.copy_name(vpt),
                            tuple(self.kc.copy_name(v) for v, _ in COPY_CONFIGS))
        grid = n_vec // (vpt * block)
        return lambda: fn((grid,), (block,), (src, dst))

    def fma_launcher(self, dtype, chains, unroll, n_iter, threads, out):
        import numpy as np
        fn = self.kc.kernel(self.kc.fma_peak_name(dtype, chains, unroll, n_iter))
        one, zero = (np.float32(1), np.float32(0)) if dtype == "fp32" else (np.float64(1), np.float64(0))
        return lambda: fn((threads // BLOCK,), (BLOCK,), (out, one, zero))

    def sweep_launcher(self, k, n_vec, x, y, all_ks=(), vectors_per_thread=1):
        import numpy as np
        pipelined = vectors_per_thread > 1
        names = tuple(self.kc.sweep_name(j, pipelined) for j in all_ks) or (self.kc.sweep_name(k, pipelined),)
        fn = self.kc.kernel(self.kc.sweep_name(k, pipelined), names)
        one, zero = np.float32(1), np.float32(0)
        if pipelined:
            grid = n_vec // (BLOCK * vectors_per_thread)
            n = np.uint64(n_vec)
            return lambda: fn((grid,), (BLOCK,), (x, y, n, one, zero))
        return lambda: fn((n_vec // BLOCK,), (BLOCK,), (x, y, one, zero))

