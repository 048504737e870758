"""A template for `roofline profile`: copy this file, put your kernel in `my_kernel`, and run

    roofline profile labs/my_kernel.py:my_kernel            # time it, place it on your Lab 1 ceilings
    roofline profile labs/my_kernel.py:my_kernel --counters # add Nsight Compute's bytes per level (GPU)

`setup()` returns the arguments (made once, outside every timed call); N_FLOPS and N_BYTES are
your analytic counts of one call, as numbers or formulas.  This one is y = 2 x + y in float32:
a Numba-CUDA kernel when a GPU is visible, a Numba parallel loop on the CPU otherwise.
"""
import numpy as np

N = 1 << 26
N_FLOPS = "2 * 2**26"  # one multiply and one add per element
N_BYTES = "12 * 2**26"  # read x and y, write y: 4 bytes each

_kernels = {}


def _cuda():
    try:
        from numba import cuda
        return cuda if cuda.is_available() else None
    except Exception:
        return None


def setup():
    rng = np.random.default_rng(0)
    x, y = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    cuda = _cuda()
    return (cuda.to_device(x), cuda.to_device(y)) if cuda else (x, y)


def _gpu_axpy(cuda):
    @cuda.jit
    def axpy(x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = np.float32(2) * x[i] + y[i]
    return axpy


def _cpu_axpy():
    from numba import njit, prange

    @njit(parallel=True, fastmath=True)
    def axpy(x, y):
        for i in prange(x.size):
            y[i] = np.float32(2) * x[i] + y[i]
    return axpy


def my_kernel(x, y):
    on_gpu = not isinstance(x, np.ndarray)
    if on_gpu not in _kernels:  # compiled on the first call, which profile times apart
        _kernels[on_gpu] = _gpu_axpy(_cuda()) if on_gpu else _cpu_axpy()
    kernel = _kernels[on_gpu]
    if on_gpu:
        kernel[(x.size + 255) // 256, 256](x, y)
    else:
        kernel(x, y)
    return y
