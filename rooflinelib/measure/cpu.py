"""The CPU backend: the same three measurements (copy, FMA peak, the sweep) on this machine's
CPU cores, with Numba's parallel CPU target.  What it draws is a CPU roofline, and every
result it makes says so.

The vector units replace the GPU's lanes: each parallel task keeps LANES float values in a
small array whose innermost loop LLVM turns into SIMD fused multiply-adds (``contract``
fastmath allows ``v * a + b`` to become one FMA; nothing else is relaxed).  The identity trick
(a = 1, b = 0) keeps every result exact, so each run is verified bit for bit like the GPU's.
Times come from the host clock around synchronous calls, median of N after a warm-up.
"""
from __future__ import annotations

from functools import lru_cache

from . import accounting as acc
from .checks import fill_values, fma_peak_expected
from .engine import Measurement, VerificationError
from .timing import Stopwatch, time_on_host

LANES = 64  # values per task updated together: 8 AVX2 or 4 AVX-512 registers of float32
BLOCK = 4096  # elements per parallel task in the copy and the sweep
_FAST = {"contract"}


@lru_cache(maxsize=None)
def _copy():
    from numba import njit, prange

    @njit(parallel=True, cache=True)
    def cpu_copy(src, dst):
        for i in prange(src.shape[0]):
            dst[i] = src[i]

    return cpu_copy


@lru_cache(maxsize=None)
def _fma_peak(dtype: str):
    import numpy as np
    from numba import njit, prange
    ftype = np.float32 if dtype == "fp32" else np.float64

    # n_iter is a run-time argument here: with a compile-time trip count LLVM restructured
    # the loops and the rate fell several-fold (the GPU kernels are the other way round).
    @njit(parallel=True, fastmath=_FAST, cache=True)
    def cpu_fma_peak(out, a, b, trips):
        for t in prange(out.shape[0]):
            v = np.empty(LANES, ftype)
            seed = ftype(t % 1024)
            for lane in range(LANES):
                v[lane] = seed + ftype(lane + 1)
            for _ in range(trips):
                for lane in range(LANES):
                    v[lane] = v[lane] * a + b
            total = ftype(0)
            for lane in range(LANES):
                total += v[lane]
            out[t] = total

    return cpu_fma_peak


#: Up to this K the sweep is written element by element: LLVM unrolls the K FMAs and
#: vectorizes across elements.  Beyond it, the unrolled body grows too large for that, and the
#: LANES form (K steps over a register-sized group of elements) keeps the FMAs in SIMD.
ELEMENTWISE_MAX_K = 16


@lru_cache(maxsize=None)
def _sweep(k: int):
    import numpy as np
    from numba import njit, prange
    steps = int(k)
    if steps <= ELEMENTWISE_MAX_K:
        @njit(parallel=True, fastmath=_FAST, cache=True)
        def cpu_sweep_elementwise(x, y, a, b):
            for i in prange(x.shape[0]):
                v = x[i]
                for _ in range(steps):
                    v = v * a + b
                y[i] = v

        return cpu_sweep_elementwise

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


def _require(ok, what):
    if not ok:
        raise VerificationError(f"verification: {what}")


class CpuBackend:
    """Numba's parallel CPU target, on every core Numba uses."""

    name = "cpu"

    def __init__(self, repeats: int = 10, warmup: int = 1):
        try:
            import numba
        except Exception as exc:
            from .engine import BackendUnavailable
            raise BackendUnavailable(f"backend cpu: cannot import numba ({exc})") from None
        self.threads = numba.get_num_threads()
        self.repeats, self.warmup = repeats, warmup

    def provenance(self) -> dict:
        from .provenance import cpu_provenance
        return cpu_provenance(self.threads)

    def _data(self, n):
        import numpy as np
        return fill_values(np.arange(n, dtype=np.int64)).astype(np.float32)

    def dram(self, size_bytes: int, progress=None) -> Measurement:
        import numpy as np
        n = max(BLOCK, int(size_bytes) // 4 // BLOCK * BLOCK)
        src = self._data(n)
        dst = np.empty_like(src)
        kernel = _copy()
        with Stopwatch() as sw:
            kernel(src, dst)
        _require(np.array_equal(src.view(np.uint32), dst.view(np.uint32)), "cpu copy differs")
        timing = time_on_host(lambda: kernel(src, dst), self.repeats, self.warmup)
        m = Measurement("dram", "memory", acc.copy_elements_work(n, 4), timing, True, sw.seconds,
                        "cpu_copy (prange)", {"elements": n, "threads": self.threads})
        if progress:
            progress(f"  copy: {m.value:,.1f} GB/s")
        return m

    def fma_peak(self, dtype: str, target_s: float = 0.2, progress=None) -> Measurement:
        import numpy as np
        ftype = np.float32 if dtype == "fp32" else np.float64
        tasks = self.threads * 4
        out = np.empty(tasks, ftype)
        a, b = ftype(1), ftype(0)
        probe_iter = 2000
        kernel = _fma_peak(dtype)
        with Stopwatch() as sw:
            kernel(out, a, b, probe_iter)
        with Stopwatch() as probe:  # size the real run from a compiled probe
            kernel(out, a, b, probe_iter)
        n_iter = max(probe_iter, int(probe_iter * target_s / max(probe.seconds, 1e-6)))
        n_iter = min(n_iter, 2_000_000)
        want = fma_peak_expected(np.arange(tasks), LANES)
        _require(np.array_equal(out.astype(np.float64), want.astype(np.float64)),
                 f"cpu fma_peak {dtype}: wrong sums")
        timing = time_on_host(lambda: kernel(out, a, b, n_iter), self.repeats, self.warmup)
        m = Measurement(dtype, "compute", acc.fma_peak_work(tasks, n_iter, 1, LANES), timing, True,
                        sw.seconds, f"cpu_fma_peak<{dtype}>",
                        {"lanes": LANES, "n_iter": n_iter, "tasks": tasks, "threads": self.threads})
        if progress:
            progress(f"  fma_peak {dtype}: {m.value:,.1f} GFLOP/s")
        return m

    def sweep_buffers(self, size_bytes: int):
        import numpy as np
        n = max(BLOCK, int(size_bytes) // 4 // BLOCK * BLOCK)
        x = self._data(n)
        return n, x, np.empty_like(x)

    def sweep_point(self, k: int, n: int, x, y, all_ks=(), vectors_per_thread=None) -> Measurement:
        import numpy as np
        a, b = np.float32(1), np.float32(0)
        kernel = _sweep(k)
        y.fill(-1.0)
        with Stopwatch() as sw:
            kernel(x, y, a, b)
        _require(np.array_equal(x.view(np.uint32), y.view(np.uint32)),
                 f"cpu sweep k={k}: output differs from input")
        timing = time_on_host(lambda: kernel(x, y, a, b), self.repeats, self.warmup)
        return Measurement("sweep", "compute", acc.sweep_work(n, k), timing, True, sw.seconds,
                           f"cpu_sweep<{k}>", {"k": k, "elements": n, "threads": self.threads})
