"""The course's two softmax launches, as functions the profiler can import: three passes, and
one fused pass (the kernels of :func:`rooflinelib.measure.experiment_kernels.softmax_kernels`).

``setup()`` makes the arguments both take, a ROWS x COLS float32 input and its buffers, on the
GPU.  ``roofline profile rooflinelib/profiling/softmax_targets.py:fused --counters`` profiles
one; the recorded H200 profiles shipped with the course were made this way.  The analytic
counts are :func:`rooflinelib.core.operators.softmax`'s.
"""
from __future__ import annotations
from rooflinelib.measure.expected import fill_values

ROWS, COLS = 16384, 4096  # 256 MiB of float32: several times the H200's L2 (docs/h200-facts.md)
THREADS = 256


def setup():
    import numpy as np
    from numba import cuda
    host = (fill_values(np.arange(ROWS * COLS)) / 1024).astype(np.float32).reshape(ROWS, COLS)
    x = cuda.to_device(host)
    scratch, y = cuda.device_array((ROWS, COLS), np.float32), cuda.device_array((ROWS, COLS), np.float32)
    maxima, sums = cuda.device_array(ROWS, np.float32), cuda.device_array(ROWS, np.float32)
    return x, maxima, scratch, sums, y


def _kernels(cols: int):
    from rooflinelib.measure.experiment_kernels import softmax_kernels
    return softmax_kernels(cols, THREADS)


def three_pass(x, maxima, scratch, sums, y):
    """Row max, then exp(x - max) and its sum, then the division: three kernels, five accesses
    per element (3 reads, 2 writes)."""
    rows, cols = x.shape
    row_max, exp_sum, normalize, _ = _kernels(cols)
    row_max[rows, THREADS](x, maxima)
    exp_sum[rows, THREADS](x, maxima, scratch, sums)
    normalize[rows, THREADS](scratch, sums, y)
    return y


def fused(x, maxima, scratch, sums, y):
    """One kernel: each row read once into registers and written once."""
    rows, cols = x.shape
    _kernels(cols)[3][rows, THREADS](x, y)
    return y
