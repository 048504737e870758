"""Numba-CUDA kernels of the working-set sweep: read a buffer of W bytes over and over.

Layout.  The working set is ``n_chunks`` chunks of CHUNK_VECTORS 16-byte vectors (16 KiB each).
A block of BLOCK threads reads one chunk as UNROLL coalesced loads per thread (thread t reads
vectors t, t + BLOCK, t + 2*BLOCK, t + 3*BLOCK of the chunk), then moves on to the next chunk.
Two patterns decide which chunks (see :func:`read_kernel`): ``spread``, where each block reads
``n_pass`` consecutive chunks from its own starting chunk, wrapping at the end of the set (the
whole set, once or more, while it has at most ``n_pass`` chunks, so each SM's L1 sees all of it;
past that a window of it, each line read by about grid x n_pass / n_chunks blocks), and
``slices``, where each block cycles over its own share (so no two blocks share data).  Either
way, between two reads of one vector the grid reads about the whole working set: the distance
between reuses is W, and a cache holds the data while W fits it.

Why this shape (measured on the H200: docs/h200-facts.md, docs/measurements/history.md):

- 16-byte loads (``ld.global.v4.f32``): 4-byte loads leave the memory system idle;
- the offsets inside a chunk are compile-time constants, so the four loads share one address
  register and the loop costs one compare and one add per chunk, not per load;
- the loop is a ``while`` on an ``int32`` counter (a ``range`` loop with a run-time bound
  compiled to dozens of integer instructions per trip);
- every sum is exact: the values are small integers, so the output can be checked bit for bit.

Three access paths, one kernel shape:

- ``global``: plain loads, cached in L1 and L2 (the L1, the L2 and DRAM appear as steps);
- ``global-cg``: ``ld.global.cg``, cached in L2 only (the L2 and DRAM, without the L1);
- ``shared``: each block first copies a tile of TILE bytes into shared memory and reads that.

The tests compile each to sm_90 PTX and check its instructions, and run each in the CUDA
simulator against :mod:`rooflinelib.workingset`'s expected sums.
"""
from __future__ import annotations

from functools import lru_cache

from numba import cuda, float32, int32, void

from rooflinelib.measure.accounting import (CHUNK_BYTES, CHUNK_FLOATS, CHUNK_VECTORS, WS_BLOCK,
                                            WS_UNROLL)  # noqa: F401
from rooflinelib.measure.kernels_numba import KernelSource
from rooflinelib.measure.vector_access import load4, load4_cg, store4  # noqa: F401  (the simulator test wraps them)

# Threads per block and loads per thread are fixed at compile time, so that chunk offsets are
# constants; the geometry is stated once, in accounting.
BLOCK = WS_BLOCK
UNROLL = WS_UNROLL

#: Shared-memory tiles that fit the 48 KiB a block may take without opting in to more.
SHARED_TILE_CHUNKS = (1, 2, 3)

ACCESSES = ("global", "global-cg", "shared")

READ_SIGNATURE = void(float32[::1], float32[::1], int32, int32)


def _read_source(name, loader, slices):
    """The global-memory kernel, with ``loader`` as its 16-byte load.

    ``slices`` False ("spread"): block b starts at chunk b * n_chunks // gridDim and reads the
    next ``n_pass`` chunks, wrapping at the end of the set: the whole set (once or more) while
    n_chunks <= n_pass, so every SM reads all of it (the L1 holds it while it fits one SM's L1);
    past that a window of n_pass chunks, so each chunk is read by about
    gridDim x n_pass / n_chunks blocks, not by all (``hierarchy.workingset_files.spread_reading``).
    ``slices`` True: block b owns chunks [b * n_chunks // gridDim, (b + 1) * n_chunks // gridDim)
    (at least one) and cycles over those alone.  No two blocks share data once the working set
    has a chunk per block, so no block can ride on another's misses: blocks that share data
    drift into convoys that read a chunk together and fetch it from DRAM once, which makes a
    working set far larger than the L2 look cached.
    """

    def ws_read(data, out, n_chunks, n_pass):
        tid = cuda.threadIdx.x
        first = (cuda.blockIdx.x * n_chunks) // cuda.gridDim.x
        if slices:
            last = ((cuda.blockIdx.x + 1) * n_chunks) // cuda.gridDim.x
            if last <= first:
                last = first + 1
            span = (last - first) * CHUNK_VECTORS
            end = last * CHUNK_VECTORS
        else:
            span = n_chunks * CHUNK_VECTORS
            end = span
        base = first * CHUNK_VECTORS + tid
        s0 = float32(0)
        s1 = float32(0)
        s2 = float32(0)
        s3 = float32(0)
        p = int32(0)
        while p < n_pass:
            for u in range(UNROLL):
                x0, x1, x2, x3 = loader(data, base + u * BLOCK)
                s0 += x0
                s1 += x1
                s2 += x2
                s3 += x3
            base += CHUNK_VECTORS
            if base >= end:
                base -= span
            p += int32(1)
        store4(out, cuda.blockIdx.x * BLOCK + tid, s0, s1, s2, s3)

    ws_read.__name__ = name
    ws_read.__qualname__ = name
    return ws_read


PATTERNS = ("spread", "slices")


@lru_cache(maxsize=None)
def read_kernel(access: str = "global", pattern: str = "spread") -> KernelSource:
    """The working-set read kernel for ``access`` 'global' (L1 + L2) or 'global-cg' (L2 only)
    and ``pattern`` 'spread' (each block reads ``n_pass`` chunks from its own start, cycling
    over the whole set: all of it while n_chunks <= n_pass) or 'slices' (each block cycles over
    its own part).

    Launch with BLOCK threads per block and any number of blocks (a sweep launches exactly the
    blocks that are resident at once, ``NumbaGpu.resident_blocks_per_sm``); ``data`` holds at least
    ``n_chunks * CHUNK_FLOATS`` floats; every thread reads ``n_pass`` chunks' worth (UNROLL
    vectors per chunk) and writes its four sums to ``out`` (4 floats per thread).
    """
    if pattern not in PATTERNS:
        raise ValueError(f"pattern: must be 'spread' or 'slices', got {pattern!r}")
    slices = pattern == "slices"
    suffix = "_slices" if slices else ""
    if access == "global":
        fn = _read_source("ws_read_global" + suffix, load4, slices)
        # All of the SM's SRAM as L1: the kernel uses no shared memory.
        return KernelSource(f"ws_read global {pattern}", fn, READ_SIGNATURE, shared_memory_carveout="maxl1")
    if access == "global-cg":
        return KernelSource(f"ws_read global-cg {pattern}", _read_source("ws_read_cg" + suffix, load4_cg, slices),
                            READ_SIGNATURE)
    raise ValueError(f"access: must be 'global' or 'global-cg' here, got {access!r}")


@lru_cache(maxsize=None)
def shared_read_kernel(tile_chunks: int) -> KernelSource:
    """Each block copies the first ``tile_chunks`` chunks of ``data`` into shared memory and
    reads them as :func:`read_kernel` reads global memory (``n_chunks`` must equal
    ``tile_chunks``)."""
    chunks = int(tile_chunks)
    if chunks not in SHARED_TILE_CHUNKS:
        raise ValueError(f"tile_chunks: must be one of {SHARED_TILE_CHUNKS}, got {tile_chunks!r}")
    tile_floats = chunks * CHUNK_FLOATS
    tile_vectors = chunks * CHUNK_VECTORS

    def ws_read_shared(data, out, n_chunks, n_pass):
        tile = cuda.shared.array(tile_floats, float32)
        tid = cuda.threadIdx.x
        j = tid
        while j < tile_floats:
            tile[j] = data[j]
            j += BLOCK
        cuda.syncthreads()
        first = (cuda.blockIdx.x * n_chunks) // cuda.gridDim.x
        base = first * CHUNK_VECTORS + tid
        s0 = float32(0)
        s1 = float32(0)
        s2 = float32(0)
        s3 = float32(0)
        p = int32(0)
        while p < n_pass:
            for u in range(UNROLL):
                x0, x1, x2, x3 = load4(tile, base + u * BLOCK)
                s0 += x0
                s1 += x1
                s2 += x2
                s3 += x3
            base += CHUNK_VECTORS
            if base >= tile_vectors:
                base -= tile_vectors
            p += int32(1)
        store4(out, cuda.blockIdx.x * BLOCK + tid, s0, s1, s2, s3)

    # The SRAM split that leaves the most shared memory, so that as many tiles as the
    # threads allow fit on each SM.
    return KernelSource(f"ws_read shared {chunks * CHUNK_BYTES // 1024} KiB", ws_read_shared,
                        READ_SIGNATURE, shared_memory_carveout="maxshared")


def ptx_targets():
    """Every kernel of this module, for the PTX tests."""
    return ([read_kernel(a, p) for a in ("global", "global-cg") for p in PATTERNS]
            + [shared_read_kernel(c) for c in SHARED_TILE_CHUNKS])
