"""The CPU experiments' own kernels (Numba's parallel target), apart from the CPU backend's.

:mod:`rooflinelib.experiments.cpu` sets them up, verifies them and times them through the
verified-run protocol.  ``contract`` fastmath lets ``a * b + c`` become one FMA; nothing else
is relaxed.
"""
from __future__ import annotations

from functools import lru_cache

_FAST = {"contract"}  # allow a*b+c to become one FMA; nothing else is relaxed
TILE = 32
PAD = 16  # floats added to each row of the padded output: 64 bytes, one cache line


@lru_cache(maxsize=None)
def chains_kernel(lanes: int):
    import numpy as np
    from numba import njit, prange
    width = int(lanes)

    @njit(parallel=True, fastmath=_FAST, cache=True)
    def chains(out, a, b, trips):
        for t in prange(out.shape[0]):
            v = np.empty(width, np.float32)
            seed = np.float32(t % 1024)
            for lane in range(width):
                v[lane] = seed + np.float32(lane + 1)
            for _ in range(trips):
                for lane in range(width):  # lanes are independent: SIMD and pipelining
                    v[lane] = v[lane] * a + b  # each step depends on the last: latency
            total = np.float32(0)
            for lane in range(width):
                total += v[lane]
            out[t] = total

    return chains


@lru_cache(maxsize=None)
def softmax_kernels():
    import numpy as np
    from numba import njit, prange

    @njit(parallel=True, fastmath=_FAST, cache=True)
    def three_pass(x, scratch, y, row_max, row_sum):
        rows, cols = x.shape
        for r in prange(rows):  # pass 1: read x
            m = x[r, 0]
            for c in range(1, cols):
                m = max(m, x[r, c])
            row_max[r] = m
        for r in prange(rows):  # pass 2: read x, write exp(x - max)
            s = np.float32(0)
            for c in range(cols):
                e = np.exp(x[r, c] - row_max[r])
                scratch[r, c] = e
                s += e
            row_sum[r] = s
        for r in prange(rows):  # pass 3: read the exponentials, write y
            inv = np.float32(1) / row_sum[r]
            for c in range(cols):
                y[r, c] = scratch[r, c] * inv

    @njit(parallel=True, fastmath=_FAST, cache=True)
    def fused(x, y):
        rows, cols = x.shape
        for r in prange(rows):  # one row at a time: it stays in cache between the steps
            m = x[r, 0]
            for c in range(1, cols):
                m = max(m, x[r, c])
            s = np.float32(0)
            for c in range(cols):
                e = np.exp(x[r, c] - m)
                y[r, c] = e
                s += e
            inv = np.float32(1) / s
            for c in range(cols):
                y[r, c] *= inv

    return three_pass, fused


@lru_cache(maxsize=None)
def transpose_kernels():
    from numba import njit, prange

    @njit(parallel=True, cache=True)
    def naive(a, out):
        n = a.shape[0]
        for i in prange(n):
            for j in range(n):
                out[j, i] = a[i, j]  # reads along a row, writes down a column

    @njit(parallel=True, cache=True)
    def tiled(a, out):
        n = a.shape[0]
        tiles = n // TILE
        for t in prange(tiles * tiles):
            bi, bj = t // tiles, t % tiles
            for i in range(bi * TILE, bi * TILE + TILE):
                for j in range(bj * TILE, bj * TILE + TILE):
                    out[j, i] = a[i, j]  # both tiles stay in cache while they are used

    return naive, tiled


@lru_cache(maxsize=None)
def vector_add_kernels():
    from numba import njit, prange

    @njit(parallel=True, cache=True)
    def parallel_add(a, b, c):
        for i in prange(a.shape[0]):
            c[i] = a[i] + b[i]

    @njit(cache=True)
    def serial_add(a, b, c):
        for i in range(a.shape[0]):
            c[i] = a[i] + b[i]

    return parallel_add, serial_add


@lru_cache(maxsize=None)
def chunked_sweep(k: int):
    import numpy as np
    from numba import njit, prange
    steps, lanes = int(k), 128  # 128 floats: enough independent chains to fill the FMA pipes

    @njit(parallel=True, fastmath=_FAST, cache=True)
    def chunked(x, y, a, b, chunks):
        per_chunk = x.shape[0] // chunks
        for chunk in prange(chunks):  # the parallelism is exactly `chunks`
            v = np.empty(lanes, np.float32)
            for base in range(chunk * per_chunk, (chunk + 1) * per_chunk, lanes):
                source = x[base:base + lanes]  # views index from 0: LLVM vectorizes them
                for lane in range(lanes):
                    v[lane] = source[lane]
                for _ in range(steps):
                    for lane in range(lanes):
                        v[lane] = v[lane] * a + b
                target = y[base:base + lanes]
                for lane in range(lanes):
                    target[lane] = v[lane]

    return chunked


@lru_cache(maxsize=None)
def passes_copy():
    from numba import njit, prange

    @njit(parallel=True, cache=True)
    def passes_copy(src, dst, passes, tasks):
        per = src.shape[0] // tasks
        for t in prange(tasks):
            s, d = src[t * per:(t + 1) * per], dst[t * per:(t + 1) * per]
            for _ in range(passes):  # the same slice again and again: cache-resident if small
                for i in range(per):
                    d[i] = s[i]

    return passes_copy


@lru_cache(maxsize=None)
def exp_kernels():
    import numpy as np
    from numba import njit, prange
    lanes = 64

    @njit(parallel=True, fastmath=_FAST, cache=True)
    def exp_chains(out, zero, trips):
        for t in prange(out.shape[0]):
            v = np.empty(lanes, np.float32)
            for lane in range(lanes):
                v[lane] = np.float32(t % 64) + np.float32(lane)
            for _ in range(trips):
                for lane in range(lanes):
                    v[lane] += np.exp(v[lane] * zero)  # exp(0) = 1 exactly: +1 per step
            s = np.float32(0)
            for lane in range(lanes):
                s += v[lane]
            out[t] = s

    return exp_chains


@lru_cache(maxsize=None)
def strided_kernel():
    from numba import njit, prange

    @njit(parallel=True, fastmath={"contract", "reassoc"}, cache=True)
    def strided_sum(x, stride, partial):
        tasks = partial.shape[0]
        count = x.shape[0] // stride
        per_task = count // tasks
        for t in prange(tasks):
            s = 0.0
            for m in range(t * per_task, (t + 1) * per_task):
                s += x[m * stride]
            partial[t] = s

    return strided_sum


@lru_cache(maxsize=None)
def correlate_kernel():
    import numpy as np
    from numba import njit, prange

    @njit(parallel=True, fastmath=_FAST, cache=True)
    def direct(signal, taps, out):
        m = taps.shape[0]
        blocks = out.shape[0] // 64
        for blk in prange(blocks):
            acc = np.empty(64, np.float32)
            for lane in range(64):
                acc[lane] = 0
            base = blk * 64
            for j in range(m):  # 64 outputs at once: SIMD FMAs with taps[j] broadcast
                w = taps[j]
                window = signal[base + j: base + j + 64]
                for lane in range(64):
                    acc[lane] += window[lane] * w
            for lane in range(64):
                out[base + lane] = acc[lane]

    return direct
