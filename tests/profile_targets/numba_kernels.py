"""Numba-CUDA kernels whose global-memory bytes are known exactly: the simulator lane counts
them (tests/profiling/test_profiling_sim.py) and the GPU lane profiles them on the H200.

Each launcher function does one call's work; ``setup()`` makes the GPU lane's arguments: a
copy of 2**28 float32 (1 GiB in, 1 GiB out)."""
import math

import numpy as np
from numba import cuda, float32

TILE = 4  # the tiled GEMM's tile edge (threads per block edge); the GPU lane uses 16
BLOCK = 256
N_COPY = 1 << 28
N_FLOPS = 0
N_BYTES = 8 * N_COPY


@cuda.jit
def copy_kernel(src, dst):
    i = cuda.grid(1)
    if i < src.size:
        dst[i] = src[i]


@cuda.jit
def block_sum_kernel(x, total):
    """Each block sums its BLOCK elements in shared memory, then adds its sum to total[0]."""
    part = cuda.shared.array(BLOCK, dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    part[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    stride = BLOCK // 2
    while stride > 0:
        if t < stride:
            part[t] += part[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        cuda.atomic.add(total, 0, part[0])


@cuda.jit
def gemm_naive_kernel(a, b, c):
    """C = A B for n x n matrices: each thread reads a row of A and a column of B from memory
    (threadIdx.x on the column, so that a warp's loads of B are coalesced)."""
    j, i = cuda.grid(2)
    n = c.shape[0]
    if i < n and j < n:
        acc = float32(0)
        for k in range(n):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


_TILED = {}


def make_tiled_gemm(tile: int):
    if tile in _TILED:
        return _TILED[tile]

    @cuda.jit
    def gemm_tiled_kernel(a, b, c):
        """C = A B through tile x tile blocks of A and B in shared memory: each input element is
        read n / tile times instead of n."""
        sa = cuda.shared.array((tile, tile), dtype=float32)
        sb = cuda.shared.array((tile, tile), dtype=float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        i = cuda.blockIdx.y * tile + ty
        j = cuda.blockIdx.x * tile + tx
        n = c.shape[0]
        acc = float32(0)
        for step in range(n // tile):
            sa[ty, tx] = a[i, step * tile + tx]
            sb[ty, tx] = b[step * tile + ty, j]
            cuda.syncthreads()
            for k in range(tile):
                acc += sa[ty, k] * sb[k, tx]
            cuda.syncthreads()
        c[i, j] = acc
    _TILED[tile] = gemm_tiled_kernel
    return gemm_tiled_kernel


gemm_tiled_kernel = make_tiled_gemm(TILE)


def grid_1d(n: int) -> int:
    return math.ceil(n / BLOCK)


def setup():
    src = cuda.to_device(np.arange(N_COPY, dtype=np.float32))
    return src, cuda.device_array_like(src)


def copy(src, dst):
    copy_kernel[grid_1d(src.size), BLOCK](src, dst)
