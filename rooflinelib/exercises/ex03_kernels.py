"""The GPU reduction of Exercise 3, in Numba-CUDA.

Kept apart from :mod:`.ex03_place_kernel` so that importing the exercise never imports
numba-cuda: this module is loaded only when a GPU run starts (and by the tests, which compile
it to PTX and run it in the CUDA simulator).  The FMA-heavy kernel is Lab 2's sweep kernel,
:func:`rooflinelib.measure.kernels_numba.sweep_kernel`, at K = ``FMA_STEPS``.
"""
from __future__ import annotations

from functools import lru_cache

from numba import cuda, float32, float64, int32, void

from ..measure.vector_access import load4

#: Threads per block; the tree in shared memory assumes a power of two.
BLOCK = 256

SIGNATURE = void(float32[::1], float64[::1])


def gpu_sum(x, out):
    """out[0] += sum(x): 16-byte loads, four float64 partial sums per thread, a tree in shared
    memory per block, one atomic add per block.

    The float64 partial sums are exact for the course's fill values (multiples of 1/4 below
    2^15), so the result is exact whatever the order of the additions.  Launch with any grid
    of BLOCK-thread blocks; len(x) must be a multiple of 4.
    """
    partial = cuda.shared.array(BLOCK, float64)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * BLOCK + tid
    stride = cuda.gridDim.x * BLOCK
    n_vec = x.shape[0] // 4
    s0 = float64(0)
    s1 = float64(0)
    s2 = float64(0)
    s3 = float64(0)
    while i < n_vec:  # four independent sums keep the loads in flight
        v0, v1, v2, v3 = load4(x, i)
        s0 += float64(v0)
        s1 += float64(v1)
        s2 += float64(v2)
        s3 += float64(v3)
        i += stride
    partial[tid] = (s0 + s1) + (s2 + s3)
    cuda.syncthreads()
    width = int32(BLOCK // 2)
    while width > 0:
        if tid < width:
            partial[tid] += partial[tid + width]
        cuda.syncthreads()
        width //= int32(2)
    if tid == 0:
        cuda.atomic.add(out, 0, partial[0])


@lru_cache(maxsize=None)
def compiled():
    """The kernel compiled for the GPU at hand."""
    return cuda.jit(SIGNATURE)(gpu_sum)
