"""What each measurement kernel must output, computed on the host without numba.

Every backend's result is compared with these, bit for bit: the kernels work on small
integers (or multiples of 1/4), whose float32 sums are exact, so any difference is a bug and
never rounding.  Functions take Python ints or numpy integer arrays.
"""
from __future__ import annotations

import math

from rooflinelib.measure.accounting import CHUNK_BYTES, CHUNK_FLOATS, WS_BLOCK, WS_UNROLL


def fill_values(index):
    """The value the fill kernels write at ``index``: multiples of 1/4 in [1, 16385), exact
    in float32, never 0 or -0 (so the identity FMA maps every value to itself), varying from
    element to element."""
    return ((index * 40503) & 65535) * 0.25 + 1.0


def fill_sum(n: int) -> float:
    """The exact sum of the fill values of indices 0..n-1 (multiples of 1/4: float64 is
    exact), computed in pieces so that a 1 GiB buffer's sum needs little memory."""
    import numpy as np
    total = 0.0
    chunk = 1 << 22
    for start in range(0, n, chunk):
        total += float(fill_values(np.arange(start, min(n, start + chunk), dtype=np.int64)).sum())
    return total


#: read_values repeats with this period: (e * 40503) mod 65536 depends on e mod 65536 only.
READ_PERIOD = 65536
#: The largest read_values value, in quarters: a float32 sum of fewer than 2^24 / 7 of them
#: (READ_EXACT_TERMS) is exact, since every partial sum is a multiple of 1/4 below 2^22.
READ_MAX_QUARTERS = 7
READ_EXACT_TERMS = (1 << 24) // READ_MAX_QUARTERS


def read_values(index):
    """The read kernels' input at ``index``: multiples of 1/4 from 0 to 1.75, small so that
    float32 sums of millions of them stay exact, and varying from element to element."""
    return (((index * 40503) & 65535) >> 13) * 0.25


def read_sum(n: int) -> float:
    """The exact sum of read_values over indices 0..n-1 (float64 is exact: multiples of 1/4)."""
    import numpy as np
    if n < 0:
        raise ValueError(f"n: must be >= 0, got {n}")
    period = read_values(np.arange(READ_PERIOD, dtype=np.int64))
    full, rest = divmod(int(n), READ_PERIOD)
    return float(full * period.sum() + period[:rest].sum())


def write_values(index):
    """What the write kernels store at ``index``: b + (index mod 4) / 4 with
    b = (index // 4) mod 65536, exact in float32, varying from element to element."""
    return ((index >> 2) & 65535) + (index & 3) * 0.25


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


# ---------------------------------------------------------------------------------------------
# the working-set read kernels (the L2 ceiling and the hierarchical sweep)

A_PERIOD = 5  # value of float q of a chunk: q % 5 ...
B_PERIOD = 3  # ... plus (chunk index) % 3: both small, so every float32 sum is exact


def gpu_data(n_chunks: int):
    """The float32 working set of ``n_chunks`` chunks: float q of chunk j holds
    (q % 5) + (j % 3)."""
    import numpy as np
    pattern = (np.arange(CHUNK_FLOATS) % A_PERIOD).astype(np.float32)
    chunk_term = (np.arange(n_chunks) % B_PERIOD).astype(np.float32)
    return (chunk_term[:, None] + pattern[None, :]).ravel()


def passes_for(bytes_per_launch: float, grid: int, n_chunks: int) -> int:
    """Chunks each of ``grid`` blocks reads in one launch: enough for ``bytes_per_launch`` in
    all, and enough for every block to cover its chunks of an ``n_chunks`` working set."""
    return max(int(math.ceil(bytes_per_launch / (grid * CHUNK_BYTES))), int(math.ceil(n_chunks / grid)))


def block_chunks(n_chunks: int, grid: int, pattern: str = "spread"):
    """For each block: its first chunk, how many chunks it cycles over, and where that cycle
    starts (numpy arrays).  'spread' (and the shared tiles) cycle over the whole set: a block
    reads n_pass chunks of it from its first (:func:`passes_for`), so all of it only while
    n_chunks <= n_pass; 'slices' cycle over the block's own share."""
    import numpy as np
    b = np.arange(grid, dtype=np.int64)
    first = (b * n_chunks) // grid
    if pattern != "slices":  # 'spread', and the shared tiles, cycle over the whole set
        return first, np.full(grid, n_chunks, dtype=np.int64), np.zeros(grid, dtype=np.int64)
    last = np.maximum(((b + 1) * n_chunks) // grid, first + 1)
    return first, last - first, first


def expected_gpu_sums(n_chunks: int, n_pass: int, grid: int, pattern: str = "spread"):
    """Each thread's four sums, shape (grid * WS_BLOCK, 4), for a launch of ``grid`` blocks.

    Thread t of block b reads, n_pass times, the chunk after the one before it within the
    block's cycle (the whole set for 'spread', its slice for 'slices'), at vectors
    t + u * WS_BLOCK.  The pattern term is the same every chunk (n_pass times the sum over u); the
    chunk term adds WS_UNROLL * (chunk index % 3) per chunk visited.
    """
    import numpy as np
    pattern_term = (np.arange(CHUNK_FLOATS) % A_PERIOD).astype(np.float64).reshape(WS_UNROLL, WS_BLOCK, 4)
    per_thread = n_pass * pattern_term.sum(axis=0)  # (WS_BLOCK, 4)
    terms = (np.arange(n_chunks) % B_PERIOD).astype(np.float64)
    cumulative = np.concatenate([[0.0], np.cumsum(terms)])

    def chunk_sum(lo, hi):  # sum of terms[lo:hi] for lo <= hi <= n_chunks, elementwise
        return cumulative[hi] - cumulative[lo]

    first, length, origin = block_chunks(n_chunks, grid, pattern)
    full, rest = np.divmod(np.int64(n_pass), length)
    cycle = chunk_sum(origin, origin + length)
    # the partial cycle: rest chunks from ``first``, wrapping back to ``origin``
    head = np.minimum(rest, origin + length - first)
    per_block = full * cycle + chunk_sum(first, first + head) + chunk_sum(origin, origin + rest - head)
    sums = per_thread[None, :, :] + WS_UNROLL * per_block[:, None, None]
    return sums.reshape(grid * WS_BLOCK, 4)


def l2_slab_expected(groups: int, iters: int, grid: int):
    """The four sums each block of the L2 ceiling's kernel stores, shape (grid, 4).

    Block b reads chunks i * groups + (b % groups) for i < iters (in a rotated order, which no
    sum depends on), each whole (its WS_BLOCK threads, WS_UNROLL vectors apiece), and reduces
    its threads' sums into one float4.  Float
    j of vector v in chunk c holds ((4 v + j) % A_PERIOD) + (c % B_PERIOD).
    """
    import numpy as np
    pattern = (np.arange(CHUNK_FLOATS) % A_PERIOD).astype(np.float64).reshape(-1, 4).sum(axis=0)
    g = np.arange(grid, dtype=np.int64) % groups
    chunks = np.arange(iters, dtype=np.int64)[None, :] * groups + g[:, None]
    chunk_term = (chunks % B_PERIOD).sum(axis=1).astype(np.float64) * (CHUNK_FLOATS // 4)
    return iters * pattern[None, :] + chunk_term[:, None]
