"""The experiments' own Numba-CUDA kernels (notebooks 03, 04 and 06), apart from the engine's.

The experiments (:mod:`rooflinelib.experiments.gpu`) set them up, verify them and time them
through the verified-run protocol; their FLOPs and bytes come from
:mod:`rooflinelib.core.operators` or are stated where each experiment launches them.  Kernel rules
as in :mod:`.kernels_numba`: typed float32 constants, ``while`` loops on int32 counters where
a loop must cost nothing.
"""
from __future__ import annotations

import math
from functools import lru_cache

# At module level, as the simulator requires: it swaps the kernels' global ``cuda`` for its own.
from numba import cuda, float32, int32

TILE = 32  # transpose tile: 32 x 32 floats, moved by 32 x 8 threads
TILE_ROWS = 8
SOFTMAX_COLS = 4096  # one row per block of 256 threads: 16 values per thread
SOFTMAX_THREADS = 256


@lru_cache(maxsize=None)
def softmax_kernels(cols: int = SOFTMAX_COLS, threads: int = SOFTMAX_THREADS):
    """(row_max, exp_sum, normalize, fused) for rows of ``cols`` float32, one block per row."""
    per_thread = cols // threads
    if per_thread * threads != cols:
        raise ValueError(f"cols: must be a multiple of {threads}, got {cols}")

    @cuda.jit(device=True)
    def block_reduce(value, scratch, use_max):
        t = cuda.threadIdx.x
        scratch[t] = value
        cuda.syncthreads()
        step = threads // 2
        while step > 0:
            if t < step:
                other = scratch[t + step]
                if use_max:
                    scratch[t] = max(scratch[t], other)
                else:
                    scratch[t] = scratch[t] + other
            cuda.syncthreads()
            step //= 2
        result = scratch[0]
        cuda.syncthreads()
        return result

    @cuda.jit
    def row_max(x, out):  # pass 1: read the row
        r, t = cuda.blockIdx.x, cuda.threadIdx.x
        scratch = cuda.shared.array(threads, float32)
        m = x[r, t]
        for j in range(1, per_thread):
            m = max(m, x[r, t + j * threads])
        m = block_reduce(m, scratch, True)
        if t == 0:
            out[r] = m

    @cuda.jit
    def exp_sum(x, row_max_values, scratch_out, sums):  # pass 2: read x, write exp(x - max)
        r, t = cuda.blockIdx.x, cuda.threadIdx.x
        scratch = cuda.shared.array(threads, float32)
        m = row_max_values[r]
        s = float32(0)
        for j in range(per_thread):
            e = math.exp(x[r, t + j * threads] - m)
            scratch_out[r, t + j * threads] = e
            s += e
        s = block_reduce(s, scratch, False)
        if t == 0:
            sums[r] = s

    @cuda.jit
    def normalize(scratch_in, sums, y):  # pass 3: read the exponentials, write y
        r, t = cuda.blockIdx.x, cuda.threadIdx.x
        inv = float32(1) / sums[r]
        for j in range(per_thread):
            y[r, t + j * threads] = scratch_in[r, t + j * threads] * inv

    @cuda.jit
    def fused(x, y):  # the row lives in registers: read once, write once
        r, t = cuda.blockIdx.x, cuda.threadIdx.x
        scratch = cuda.shared.array(threads, float32)
        v = cuda.local.array(per_thread, float32)
        m = x[r, t]
        for j in range(per_thread):
            v[j] = x[r, t + j * threads]
            m = max(m, v[j])
        m = block_reduce(m, scratch, True)
        s = float32(0)
        for j in range(per_thread):
            v[j] = math.exp(v[j] - m)
            s += v[j]
        s = block_reduce(s, scratch, False)
        inv = float32(1) / s
        for j in range(per_thread):
            y[r, t + j * threads] = v[j] * inv

    return row_max, exp_sum, normalize, fused


@lru_cache(maxsize=None)
def transpose_kernels():
    """(naive, tiled, padded): out = a.T for n x n float32, n a multiple of 32, 32 x 8 blocks."""

    @cuda.jit
    def naive(a, out):
        x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
        y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
        for j in range(0, TILE, TILE_ROWS):
            out[x, y + j] = a[y + j, x]  # coalesced read, writes TILE floats apart

    def make_tiled(width):
        @cuda.jit
        def tiled(a, out):
            tile = cuda.shared.array((TILE, width), float32)
            x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
            y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
            for j in range(0, TILE, TILE_ROWS):
                tile[cuda.threadIdx.y + j, cuda.threadIdx.x] = a[y + j, x]
            cuda.syncthreads()
            x = cuda.blockIdx.y * TILE + cuda.threadIdx.x
            y = cuda.blockIdx.x * TILE + cuda.threadIdx.y
            for j in range(0, TILE, TILE_ROWS):  # reads a column of the tile
                out[y + j, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y + j]
        return tiled

    # A 32-float row puts a tile's column in one shared-memory bank (32-way conflicts);
    # a 33-float row spreads it over all 32 banks.
    return naive, make_tiled(TILE), make_tiled(TILE + 1)


@lru_cache(maxsize=None)
def vector_add_kernel():

    @cuda.jit
    def vector_add(a, b, c):
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < a.shape[0]:
            c[i] = a[i] + b[i]
            i += stride

    return vector_add


@lru_cache(maxsize=None)
def empty_kernels():
    """(touch, touch_three): kernels that do no work but leave a mark a check can read, to time
    a launch itself.  ``touch(x)`` sets x[0] = 1; ``touch_three(a, b, c)`` takes the vector
    add's three arrays and sets c[0] = a[0] + b[0], because what Numba's dispatch costs grows
    with the arguments it has to marshal."""

    @cuda.jit
    def touch(x):
        if cuda.grid(1) == 0:
            x[0] = float32(1)

    @cuda.jit
    def touch_three(a, b, c):
        if cuda.grid(1) == 0:
            c[0] = a[0] + b[0]

    return touch, touch_three


@lru_cache(maxsize=None)
def grid_stride_sweep(k: int):
    """The sweep's K identity FMAs per float32 element, in a grid-stride loop: any grid works."""
    steps = int(k)

    @cuda.jit
    def sweep_any_grid(x, y, a, b):
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < x.shape[0]:
            v = x[i]
            j = int32(0)
            while j < steps:
                v = cuda.fma(v, a, b)
                j += int32(1)
            y[i] = v
            i += stride

    return sweep_any_grid


@lru_cache(maxsize=None)
def strided_sum_kernel():

    @cuda.jit
    def strided_sum(x, stride, out):
        t = cuda.grid(1)
        threads = cuda.gridsize(1)
        count = x.shape[0] // stride
        s = float32(0)
        m = t
        while m < count:
            s += x[m * stride]
            m += threads
        out[t] = s

    return strided_sum


#: The direct correlation: outputs per thread (a block-width apart) and taps per shared tile.
CORRELATE_OUTPUTS = 4
CORRELATE_TAPS = 256


@lru_cache(maxsize=None)
def correlate_kernel(threads: int = 256):
    """out[i] = sum_j signal[i + j] * taps[j] for i < len(out), the direct O(n m) route.

    Each block computes threads x CORRELATE_OUTPUTS consecutive outputs; the taps and the
    stretch of signal they need go through shared memory a tile of CORRELATE_TAPS taps at a
    time, so every FMA reads its operands from shared memory (one broadcast tap, one signal
    value).  Launch with len(out) / (threads * CORRELATE_OUTPUTS) blocks; len(out) and
    len(taps) must be multiples of those tiles, and len(signal) >= len(out) + len(taps).
    """
    outputs, tile = CORRELATE_OUTPUTS, CORRELATE_TAPS
    span = threads * outputs
    window = span + tile  # a compile-time constant: the shared array's length

    def correlate(signal, taps, out):
        sig = cuda.shared.array(window, float32)
        tap = cuda.shared.array(tile, float32)
        tid = cuda.threadIdx.x
        first = cuda.blockIdx.x * span
        a0 = float32(0)
        a1 = float32(0)
        a2 = float32(0)
        a3 = float32(0)
        j0 = int32(0)
        while j0 < taps.shape[0]:
            k = tid
            while k < window:
                sig[k] = signal[first + j0 + k]
                k += threads
            k = tid
            while k < tile:
                tap[k] = taps[j0 + k]
                k += threads
            cuda.syncthreads()
            j = int32(0)
            while j < tile:
                t = tap[j]
                a0 = cuda.fma(sig[tid + j], t, a0)
                a1 = cuda.fma(sig[tid + threads + j], t, a1)
                a2 = cuda.fma(sig[tid + 2 * threads + j], t, a2)
                a3 = cuda.fma(sig[tid + 3 * threads + j], t, a3)
                j += int32(1)
            cuda.syncthreads()
            j0 += int32(tile)
        out[first + tid] = a0
        out[first + tid + threads] = a1
        out[first + tid + 2 * threads] = a2
        out[first + tid + 3 * threads] = a3

    return cuda.jit(correlate)
