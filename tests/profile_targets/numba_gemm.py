"""A naive and a tiled fp32 GEMM in Numba-CUDA at n = 2048, for the profiler's GPU lane: the
same FLOPs and the same compulsory bytes, and about TILE times fewer L1 requests tiled."""
import numpy as np

N = 2048
TILE = 16
N_FLOPS = 2 * N ** 3
N_BYTES = 3 * N * N * 4


def _kernels():
    from numba_kernels import gemm_naive_kernel, make_tiled_gemm
    return gemm_naive_kernel, make_tiled_gemm(TILE)


def setup():
    from numba import cuda
    rng = np.random.default_rng(0)
    # small integers: every product and sum is exact in float32, so the check is bit for bit
    a = rng.integers(-2, 3, (N, N)).astype(np.float32)
    b = rng.integers(-2, 3, (N, N)).astype(np.float32)
    return cuda.to_device(a), cuda.to_device(b), cuda.device_array((N, N), np.float32)


def gemm_naive(a, b, c):
    naive, _ = _kernels()
    naive[(N // TILE, N // TILE), (TILE, TILE)](a, b, c)
    return c


def gemm_tiled(a, b, c):
    _, tiled = _kernels()
    tiled[(N // TILE, N // TILE), (TILE, TILE)](a, b, c)
    return c
