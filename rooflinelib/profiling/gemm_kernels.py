"""The kernels of :mod:`rooflinelib.profiling.gemm_targets` (see there for what each shows).

numba is imported at module level, as the CUDA simulator requires (it swaps a kernel's global
``cuda`` for its own); :mod:`.gemm_targets` imports this module only when a kernel is needed.
"""
from __future__ import annotations

import functools

from numba import cuda, float32


@functools.lru_cache(maxsize=None)
def gemm_kernels(tile: int) -> dict:
    """``{launcher name: kernel}`` for ``tile`` x ``tile`` blocks (compiled on first launch)."""
    @cuda.jit
    def gemm_naive_kernel(a, b, c):
        """C = A B: thread (x, y) computes C[row, col] with col from x, row from y."""
        col, row = cuda.grid(2)
        n = c.shape[0]
        if row < n and col < n:
            acc = float32(0)
            for k in range(n):
                acc += a[row, k] * b[k, col]  # a: one word for the warp's row; b: a row's run
            c[row, col] = acc

    @cuda.jit
    def gemm_tiled_kernel(a, b, c):
        """C = A B through tile x tile blocks of A and B in shared memory: each input element is
        read from memory n / tile times instead of n.  n must be a multiple of tile."""
        sa = cuda.shared.array((tile, tile), dtype=float32)
        sb = cuda.shared.array((tile, tile), dtype=float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        col = cuda.blockIdx.x * tile + tx
        row = cuda.blockIdx.y * tile + ty
        n = c.shape[0]
        acc = float32(0)
        for step in range(n // tile):
            sa[ty, tx] = a[row, step * tile + tx]  # consecutive tx: consecutive words, in memory and in banks
            sb[ty, tx] = b[step * tile + ty, col]
            cuda.syncthreads()
            for k in range(tile):
                acc += sa[ty, k] * sb[k, tx]  # sa: one word per row (broadcast); sb: 16 banks, one word each
            cuda.syncthreads()
        c[row, col] = acc

    @cuda.jit
    def gemm_naive_rows_kernel(a, b, c):
        """The naive GEMM with threadIdx.x on the row: a warp reads A down a column."""
        row, col = cuda.grid(2)
        n = c.shape[0]
        if row < n and col < n:
            acc = float32(0)
            for k in range(n):
                acc += a[row, k] * b[k, col]
            c[row, col] = acc

    @cuda.jit
    def gemm_tiled_rows_kernel(a, b, c):
        """The tiled GEMM with threadIdx.x on the row: its loads are strided and its shared
        tile is read down a column (8 of a warp's threads to each bank used)."""
        sa = cuda.shared.array((tile, tile), dtype=float32)
        sb = cuda.shared.array((tile, tile), dtype=float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        row = cuda.blockIdx.x * tile + tx
        col = cuda.blockIdx.y * tile + ty
        n = c.shape[0]
        acc = float32(0)
        for step in range(n // tile):
            sa[tx, ty] = a[row, step * tile + ty]
            sb[tx, ty] = b[step * tile + tx, col]
            cuda.syncthreads()
            for k in range(tile):
                acc += sa[tx, k] * sb[k, ty]
            cuda.syncthreads()
        c[row, col] = acc

    return {"gemm_naive": gemm_naive_kernel, "gemm_tiled": gemm_tiled_kernel,
            "gemm_naive_rows": gemm_naive_rows_kernel, "gemm_tiled_rows": gemm_tiled_rows_kernel}
