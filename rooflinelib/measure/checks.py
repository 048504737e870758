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


def read_pattern_passes(n_vectors: int, n_threads: int, unroll: int, at_least: int) -> int:
    """Passes of the L2 read kernel such that every vector of the working set is read equally
    often: passes * unroll * n_threads must be a multiple of n_vectors.  Then the sum of all
    outputs is exactly (reads per vector) * sum(working set)."""
    need = n_vectors // math.gcd(n_vectors, unroll * n_threads)
    return max(1, -(-int(at_least) // need)) * need


def l2_expected(vectors, n_threads: int, n_pass: int, unroll: int, threads=None):
    """Per-thread sums of the L2 read kernel for ``threads`` (default all), as an array of
    shape (len(threads), 4): thread t reads vectors (t + m * n_threads) mod n for
    m < n_pass * unroll.  ``vectors`` is the working set as an (n, 4) float64 array."""
    import numpy as np
    n = vectors.shape[0]
    threads = np.arange(n_threads) if threads is None else np.asarray(threads)
    m = np.arange(n_pass * unroll, dtype=np.int64)
    idx = (threads[:, None] + m[None, :] * n_threads) % n
    return vectors[idx].sum(axis=1)


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
