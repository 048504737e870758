"""What each measurement kernel must output, computed on the host without numba.

Every backend's result is compared with these, bit for bit: the kernels work on small
integers (or multiples of 1/4), whose float32 sums are exact, so any difference is a bug and
never rounding.  Functions take Python ints or numpy integer arrays.
"""
from __future__ import annotations

import math


def fill_values(index):
    """The value the fill kernels write at ``index``: multiples of 1/4 in [1, 16385), exact
    in float32, never 0 or -0 (so the identity FMA maps every value to itself), varying from
    element to element."""
    return ((index * 40503) & 65535) * 0.25 + 1.0


def fma_peak_expected(thread_index, chains: int):
    """What thread ``t`` of the FMA-peak kernel stores: the sum of its chain seeds,
    (t % 1024) + c + 1 for c < chains, since identity FMAs leave every chain unchanged."""
    return chains * (thread_index % 1024) + chains * (chains + 1) // 2


def sfu_expected(thread_index, chains: int, steps: int):
    """What thread t of the SFU kernel stores: each chain starts at (t % 64) + c and gains
    exactly 1 per step, because exp2(v * 0) = exp2(0) = 1 exactly."""
    return chains * (thread_index % 64) + chains * (chains - 1) // 2 + chains * steps


def shared_expected(vectors, width: int, n_pass: int, unroll: int):
    """Per-thread sums of the shared-memory kernel for one block of ``width`` threads, shape
    (width, 4): thread t reads vectors (p * unroll * width + t + u * width) mod n."""
    import numpy as np
    n = vectors.shape[0]
    reads = n_pass * unroll
    period = n // math.gcd(n, width)  # the read pattern repeats every `period` reads
    t = np.arange(width)[:, None]
    one_cycle = vectors[(t + np.arange(period)[None, :] * width) % n].sum(axis=1)
    rest = vectors[(t + np.arange(reads % period)[None, :] * width) % n].sum(axis=1)
    return (reads // period) * one_cycle + rest
