"""The measurement kernels in Numba-CUDA.

Each factory returns a compiled kernel for one set of compile-time constants, memoized, so a
sweep point K is compiled once per process (and once per machine with the on-disk cache).
What each launch computes is counted in :mod:`rooflinelib.measure.accounting`.

Rules these kernels follow, each learnt on the H200 (docs/measurements/history.md):

- Loops that must cost nothing are ``while`` loops on an ``int32`` counter around a body of
  ``for _ in range(CONSTANT)`` that NVVM unrolls fully.  A ``for _ in range(n)`` with a run-time
  ``n`` compiled to ~80 integer instructions beside every 128 FFMA.
- Every float constant is built with the kernel's own float type.  A bare ``1`` or ``1.0`` mixed
  with float32 promotes the expression to float64, which runs at half rate.
- Memory kernels move 16 bytes per access (:mod:`.vector_access`).
- The FMA kernels use the identity trick of notebook 03: ``v = fma(v, a, b)`` with ``a = 1, b = 0``
  passed at run time, so the compiler cannot fold the work away and the result is known
  exactly.

The test suite compiles every kernel here to sm_90 PTX and checks its instruction mix, and runs
every kernel in the CUDA simulator.
"""
from __future__ import annotations

import math
from functools import lru_cache

from numba import cuda, float32, float64, int32, void

from rooflinelib.measure.accounting import CHUNK_VECTORS, WS_BLOCK
from rooflinelib.measure.vector_access import load4, load4_cg, store4, simulator_enabled

# NVVM fully unrolls a constant-trip ``range`` loop of up to a few hundred FMAs.  The sweep's
# body holds SWEEP_UNROLL steps of its four chains: 256 FMAs per trip of the outer ``while``,
# against 3 instructions of loop control, so the loop costs ~1%.
SWEEP_UNROLL = 64
SWEEP_CHAINS = 4  # the four floats of one 16-byte vector

# Shared memory per block for the shared-memory kernel, in float32 values: 16 KiB, so that the
# 8 blocks of 256 threads a Hopper SM holds fit in its shared memory together.
SHARED_FLOATS = 4096

_FLOAT_TYPES = {"fp32": float32, "fp64": float64}
_ARR = {"fp32": float32[::1], "fp64": float64[::1]}

# The compile cache lives beside this file, or in NUMBA_CACHE_DIR when that is set.
_CACHE = not simulator_enabled()


class KernelSource:
    """One kernel before compilation: its Python function, its signature and its options.

    Kept apart from the compiled kernel so that the tests can compile it to PTX on a machine
    without a GPU (``ptx``) while the measurement compiles it for the GPU at hand
    (``compile``, memoized, on-disk cached).
    """

    def __init__(self, name, py_func, signature, **options):
        self.name = name
        self.py_func = py_func
        self.signature = signature
        self.options = options
        self._kernel = None

    def compile(self):
        if self._kernel is None:
            if simulator_enabled():  # the simulator ignores signatures and options
                self._kernel = cuda.jit(self.py_func)
            else:
                self._kernel = cuda.jit(self.signature, cache=_CACHE, **self.options)(self.py_func)
        return self._kernel

    def ptx(self, cc=(9, 0)) -> str:
        fastmath = self.options.get("fastmath", False)
        text, _ = cuda.compile_ptx(self.py_func, self.signature.args, cc=cc, fastmath=fastmath)
        return text

    def __repr__(self):
        return f"KernelSource({self.name!r})"


# ---------------------------------------------------------------------------------------------
# DRAM: copy


COPY_SIGNATURE = void(float32[::1], float32[::1])


@lru_cache(maxsize=None)
def copy_kernel(vectors_per_thread: int = 1):
    """dst[v] = src[v] for 16-byte vectors.  Each thread moves ``vectors_per_thread`` vectors,
    one block-width apart so that every access is coalesced, issuing all its loads before its
    first store.  Launch with exactly n_vectors / (block * vectors_per_thread) blocks."""
    per_thread = int(vectors_per_thread)
    if per_thread == 1:
        def copy16(src, dst):
            i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
            v0, v1, v2, v3 = load4(src, i)
            store4(dst, i, v0, v1, v2, v3)
        return KernelSource("copy x1", copy16, COPY_SIGNATURE)

    if per_thread == 2:
        def copy16x2(src, dst):
            width = cuda.blockDim.x
            i = cuda.blockIdx.x * (2 * width) + cuda.threadIdx.x
            a0, a1, a2, a3 = load4(src, i)
            b0, b1, b2, b3 = load4(src, i + width)
            store4(dst, i, a0, a1, a2, a3)
            store4(dst, i + width, b0, b1, b2, b3)
        return KernelSource("copy x2", copy16x2, COPY_SIGNATURE)

    if per_thread == 4:
        def copy16x4(src, dst):
            width = cuda.blockDim.x
            i = cuda.blockIdx.x * (4 * width) + cuda.threadIdx.x
            a0, a1, a2, a3 = load4(src, i)
            b0, b1, b2, b3 = load4(src, i + width)
            c0, c1, c2, c3 = load4(src, i + 2 * width)
            d0, d1, d2, d3 = load4(src, i + 3 * width)
            store4(dst, i, a0, a1, a2, a3)
            store4(dst, i + width, b0, b1, b2, b3)
            store4(dst, i + 2 * width, c0, c1, c2, c3)
            store4(dst, i + 3 * width, d0, d1, d2, d3)
        return KernelSource("copy x4", copy16x4, COPY_SIGNATURE)

    raise ValueError(f"vectors_per_thread: must be 1, 2 or 4, got {vectors_per_thread!r}")


# ---------------------------------------------------------------------------------------------
# DRAM: read only and write only (checks.read_values, checks.write_values)


DRAM_READ_SIGNATURE = void(float32[::1], float32[::1])
DRAM_WRITE_SIGNATURE = void(float32[::1])


@lru_cache(maxsize=None)
def dram_read_kernel(unroll: int = 4, block: int = 256):
    """out[b] = the four float32 lane sums of what block b read: a grid-stride walk over
    len(x) / 4 16-byte vectors, ``unroll`` independent loads per thread per trip, one
    block-width apart (coalesced), then a tree in shared memory.  Launch a resident grid of
    ``block``-thread blocks; any grid covers every vector once (the tail one load at a time).

    float32 sums are exact while each lane of a block adds fewer than 2^24 / 7 values of
    :func:`~rooflinelib.measure.expected.read_values` (multiples of 1/4 up to 1.75): the
    caller keeps len(x) / (4 * grid) below that."""
    n_unroll, width = int(unroll), int(block)
    if n_unroll not in (1, 2, 4, 8) or width not in (32, 64, 128, 256, 512, 1024):
        raise ValueError(f"unroll, block: must be 1, 2, 4 or 8 and a power of 2 from 32 to 1024, "
                         f"got {unroll!r}, {block!r}")
    span = n_unroll * width

    def dram_read(x, out):
        part = cuda.shared.array((width, 4), float32)
        tid = cuda.threadIdx.x
        n_vec = x.shape[0] // 4
        i = cuda.blockIdx.x * span + tid
        stride = cuda.gridDim.x * span
        last = n_vec - (n_unroll - 1) * width  # a trip starting below it reads whole
        s0 = float32(0)
        s1 = float32(0)
        s2 = float32(0)
        s3 = float32(0)
        while i < last:
            for u in range(n_unroll):
                v0, v1, v2, v3 = load4(x, i + u * width)
                s0 += v0
                s1 += v1
                s2 += v2
                s3 += v3
            i += stride
        while i < n_vec:  # the tail: at most unroll - 1 vectors of this thread's last trip
            v0, v1, v2, v3 = load4(x, i)
            s0 += v0
            s1 += v1
            s2 += v2
            s3 += v3
            i += width
        part[tid, 0] = s0
        part[tid, 1] = s1
        part[tid, 2] = s2
        part[tid, 3] = s3
        cuda.syncthreads()
        half = int32(width // 2)
        while half > 0:
            if tid < half:
                for c in range(4):
                    part[tid, c] += part[tid + half, c]
            cuda.syncthreads()
            half //= int32(2)
        if tid == 0:
            store4(out, cuda.blockIdx.x, part[0, 0], part[0, 1], part[0, 2], part[0, 3])

    return KernelSource(f"dram_read unroll={n_unroll} block={width}", dram_read, DRAM_READ_SIGNATURE)


@lru_cache(maxsize=None)
def dram_write_kernel(vectors_per_thread: int = 1):
    """Vector j of x (elements 4j .. 4j+3) = b, b + 1/4, b + 1/2, b + 3/4 with b = j mod 65536
    (:func:`~rooflinelib.measure.expected.write_values`): 16-byte stores and nothing read.  Each
    thread stores ``vectors_per_thread`` vectors one block-width apart, as the copy does.
    Launch with exactly len(x) / (4 * block * vectors_per_thread) blocks."""
    per_thread = int(vectors_per_thread)
    if per_thread not in (1, 2, 4, 8):
        raise ValueError(f"vectors_per_thread: must be 1, 2, 4 or 8, got {vectors_per_thread!r}")

    def dram_write(x):
        width = cuda.blockDim.x
        first = cuda.blockIdx.x * (per_thread * width) + cuda.threadIdx.x
        for u in range(per_thread):
            j = first + u * width
            b = float32(int32(j & 65535))
            store4(x, j, b, b + float32(0.25), b + float32(0.5), b + float32(0.75))

    return KernelSource(f"dram_write x{per_thread}", dram_write, DRAM_WRITE_SIGNATURE)


@lru_cache(maxsize=None)
def fill_read_kernel():
    """x[e] = checks.read_values(e), element by element (the read kernel's input)."""
    def fill_read(x):
        e = cuda.grid(1)
        stride = cuda.gridsize(1)
        while e < x.shape[0]:
            x[e] = float32(((e * 40503) & 65535) >> 13) * float32(0.25)
            e += stride

    return KernelSource("fill_read", fill_read, FILL_SIGNATURE)


@lru_cache(maxsize=None)
def write_mismatch_kernel():
    """count[0] += the elements of x that differ from checks.write_values, computed here
    element by element (not as the write kernel does it, a vector at a time)."""
    def count_write_mismatches(x, count):
        e = cuda.grid(1)
        stride = cuda.gridsize(1)
        bad = int32(0)
        while e < x.shape[0]:
            want = float32((e >> 2) & 65535) + float32(e & 3) * float32(0.25)
            if not (x[e] == want):
                bad += int32(1)
            e += stride
        if bad:
            cuda.atomic.add(count, 0, bad)

    return KernelSource("count_write_mismatches", count_write_mismatches, WRITE_COUNT_SIGNATURE)


# ---------------------------------------------------------------------------------------------
# Compute: FMA peak (fp32 and fp64)


def fma_peak_signature(dtype: str):
    t = _FLOAT_TYPES[dtype]
    return void(_ARR[dtype], t, t)



@lru_cache(maxsize=None)
def fma_peak_kernel(dtype: str = "fp32", chains: int = 8, unroll: int = 32, n_iter: int = 4096):
    """``chains`` independent register-resident FMA chains per thread; ``n_iter`` trips of a
    loop whose body holds ``unroll`` steps of every chain; then one store per thread.

    All three counts are compile-time constants: NVVM then turns the loop into a 32-bit
    count-down (3 instructions per trip), where a run-time bound compared in 64 bits (Numba
    widens int32 arithmetic) cost 6.
    """
    if dtype not in _FLOAT_TYPES:
        raise ValueError(f"dtype: must be 'fp32' or 'fp64', got {dtype!r}")
    ftype = _FLOAT_TYPES[dtype]
    n_chains, n_unroll, n_trips = int(chains), int(unroll), int(n_iter)

    def fma_peak(out, a, b):
        t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        seed = ftype(t & 1023)
        v = cuda.local.array(n_chains, ftype)  # promoted to registers: every index is constant
        for c in range(n_chains):
            v[c] = seed + ftype(c + 1)
        i = 0
        while i < n_trips:
            for _ in range(n_unroll):
                for c in range(n_chains):
                    v[c] = cuda.fma(v[c], a, b)
            i += 1
        total = ftype(0)
        for c in range(n_chains):
            total += v[c]
        out[t] = total

    return KernelSource(f"fma_peak {dtype} chains={n_chains} unroll={n_unroll} n_iter={n_trips}",
                        fma_peak, fma_peak_signature(dtype))


# ---------------------------------------------------------------------------------------------
# The intensity sweep: K FMAs per float32 element, K fixed at compile time


SWEEP_SIGNATURE = void(float32[::1], float32[::1], float32, float32)


@lru_cache(maxsize=None)
def sweep_kernel(k: int):
    """y = x after ``k`` identity FMAs on every element, for one compile-time ``k``.

    Each thread loads one 16-byte vector, runs ``k`` FMAs on each of its four floats (four
    independent chains) and stores the vector: 8 bytes and 2k FLOPs per element, I = k/4.
    ``k`` is a closure constant, so NVVM sees the exact trip counts: below k = 128 (two trips)
    the FMAs are straight-line code, NVVM folding a single trip into it (the sm_90 PTX of
    numba-cuda 0.30.4); from k = 128, a loop of SWEEP_UNROLL steps (256 FMAs) per trip, plus
    the remainder written out.
    Launch with exactly len(x) / (4 * block) blocks.
    """
    k = int(k)
    if k < 0:
        raise ValueError(f"k: must be >= 0, got {k}")
    k_blocks, k_rest = divmod(k, SWEEP_UNROLL)

    def sweep(x, y, a, b):
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        v0, v1, v2, v3 = load4(x, i)
        j = int32(0)
        while j < k_blocks:
            for _ in range(SWEEP_UNROLL):
                v0 = cuda.fma(v0, a, b)
                v1 = cuda.fma(v1, a, b)
                v2 = cuda.fma(v2, a, b)
                v3 = cuda.fma(v3, a, b)
            j += int32(1)
        for _ in range(k_rest):
            v0 = cuda.fma(v0, a, b)
            v1 = cuda.fma(v1, a, b)
            v2 = cuda.fma(v2, a, b)
            v3 = cuda.fma(v3, a, b)
        store4(y, i, v0, v1, v2, v3)

    return KernelSource(f"sweep k={k}", sweep, SWEEP_SIGNATURE)


@lru_cache(maxsize=None)
def sweep_pipelined_kernel(k: int):
    """The same work as :func:`sweep_kernel`, software-pipelined: each block walks its own
    contiguous chunk of len(x) / (4 * grid) vectors, a block-width at a time, and each thread
    loads its next vector before it works on the current one.  A thread then has a load in
    flight while it computes, so memory and arithmetic overlap inside the thread too and the
    measured curve follows max(F/P, M/B) more closely near the ridge (pitfall 2, on
    overlap: one vector per thread leans towards F/P + M/B there).  Chunks keep the blocks
    that run together on neighbouring addresses, as in a plain copy.
    Launch with a grid that divides the vector count into multiples of the block width.
    """
    k = int(k)
    if k < 0:
        raise ValueError(f"k: must be >= 0, got {k}")
    k_blocks, k_rest = divmod(k, SWEEP_UNROLL)

    def sweep_pipelined(x, y, a, b):
        chunk = (x.shape[0] // 4) // cuda.gridDim.x
        i = cuda.blockIdx.x * chunk + cuda.threadIdx.x
        end = cuda.blockIdx.x * chunk + chunk
        width = cuda.blockDim.x
        if i < end:
            v0, v1, v2, v3 = load4(x, i)
            while True:
                following = i + width
                w0, w1, w2, w3 = v0, v1, v2, v3
                if following < end:  # prefetch: in flight during the FMAs below
                    w0, w1, w2, w3 = load4(x, following)
                j = int32(0)
                while j < k_blocks:
                    for _ in range(SWEEP_UNROLL):
                        v0 = cuda.fma(v0, a, b)
                        v1 = cuda.fma(v1, a, b)
                        v2 = cuda.fma(v2, a, b)
                        v3 = cuda.fma(v3, a, b)
                    j += int32(1)
                for _ in range(k_rest):
                    v0 = cuda.fma(v0, a, b)
                    v1 = cuda.fma(v1, a, b)
                    v2 = cuda.fma(v2, a, b)
                    v3 = cuda.fma(v3, a, b)
                store4(y, i, v0, v1, v2, v3)
                if following >= end:
                    break
                i = following
                v0, v1, v2, v3 = w0, w1, w2, w3

    return KernelSource(f"sweep_pipelined k={k}", sweep_pipelined, SWEEP_SIGNATURE)


READ_SIGNATURE = void(float32[::1], float32[::1], int32, int32)


# ---------------------------------------------------------------------------------------------
# The L2 ceiling: many short blocks, each reading its own strided set of chunks


@lru_cache(maxsize=None)
def l2_slab_kernel():
    """Block b reads ``iters`` whole chunks, i * groups + (b % groups) for i < iters, with
    ``ld.global.cg`` (L2 only), two chunks per trip, then reduces its threads' four sums into
    one float4 at out[b].  Launch many more blocks than are resident (a multiple of
    ``groups``): the blocks that read one group then run at different times, and the block
    scheduler hands the next block to whichever SM is free, so SMs close to fast L2 slices do
    not wait for the others.  The blocks of one group start at different pairs of chunks
    (``(b // groups) % (iters / 2)``), so that two blocks resident together rarely ask for the
    same line at once: requests that merge before the L2 would be bytes its slices never served.

    Measured under ncu on the H200 (benchmarks/REPORT.md), this shape lets the L2's slices
    serve as much as the best public L2 benchmark; a grid of resident blocks that each cycle
    over their own chunks, the shape of the working-set sweep, about 7% less.  Launch with
    WS_BLOCK threads per block and an even ``iters``.
    """
    def l2_slab(data, out, groups, iters):
        part = cuda.shared.array((WS_BLOCK, 4), float32)
        tid = cuda.threadIdx.x
        g = cuda.blockIdx.x % groups
        pairs = iters // int32(2)
        phase = (cuda.blockIdx.x // groups) % pairs
        s0 = float32(0)
        s1 = float32(0)
        s2 = float32(0)
        s3 = float32(0)
        p = int32(0)
        while p < pairs:
            q = p + phase
            if q >= pairs:
                q -= pairs
            first = (int32(2) * q * groups + g) * CHUNK_VECTORS + tid
            second = first + groups * CHUNK_VECTORS
            a0, a1, a2, a3 = load4_cg(data, first)
            b0, b1, b2, b3 = load4_cg(data, first + WS_BLOCK)
            c0, c1, c2, c3 = load4_cg(data, first + 2 * WS_BLOCK)
            d0, d1, d2, d3 = load4_cg(data, first + 3 * WS_BLOCK)
            e0, e1, e2, e3 = load4_cg(data, second)
            f0, f1, f2, f3 = load4_cg(data, second + WS_BLOCK)
            h0, h1, h2, h3 = load4_cg(data, second + 2 * WS_BLOCK)
            k0, k1, k2, k3 = load4_cg(data, second + 3 * WS_BLOCK)
            s0 += ((a0 + b0) + (c0 + d0)) + ((e0 + f0) + (h0 + k0))
            s1 += ((a1 + b1) + (c1 + d1)) + ((e1 + f1) + (h1 + k1))
            s2 += ((a2 + b2) + (c2 + d2)) + ((e2 + f2) + (h2 + k2))
            s3 += ((a3 + b3) + (c3 + d3)) + ((e3 + f3) + (h3 + k3))
            p += int32(1)
        part[tid, 0] = s0
        part[tid, 1] = s1
        part[tid, 2] = s2
        part[tid, 3] = s3
        cuda.syncthreads()
        width = int32(WS_BLOCK // 2)
        while width > 0:
            if tid < width:
                for c in range(4):
                    part[tid, c] += part[tid + width, c]
            cuda.syncthreads()
            width //= int32(2)
        if tid == 0:
            store4(out, cuda.blockIdx.x, part[0, 0], part[0, 1], part[0, 2], part[0, 3])

    # 32 registers, as NVRTC gives the CuPy twin: eight blocks per SM instead of six
    return KernelSource("l2_slab (ld.global.cg, 16 B)", l2_slab, READ_SIGNATURE, max_registers=32)


# ---------------------------------------------------------------------------------------------
# Read-only bandwidth of shared memory



@lru_cache(maxsize=None)
def shared_read_kernel(unroll: int = 4):
    """Each block copies SHARED_FLOATS floats of ``data`` into shared memory, then every
    thread sums 16-byte vectors of it, ``n_pass`` passes of ``unroll`` loads.

    Thread t of a block of width W reads vectors (start + t + u*W), start = p*unroll*W mod n:
    a warp reads 512 consecutive bytes, which the 32 banks serve in four conflict-free
    phases.  The host keeps unroll*W a divisor of n, so no load wraps and every offset is a
    constant.  ``mask`` is n - 1 for the n = SHARED_FLOATS/4 vectors.
    """
    n_unroll = int(unroll)

    def shared_read(data, out, n_pass, mask):
        tile = cuda.shared.array(SHARED_FLOATS, float32)
        tid = cuda.threadIdx.x
        width = cuda.blockDim.x
        j = tid
        while j < SHARED_FLOATS:
            tile[j] = data[j]
            j += width
        cuda.syncthreads()
        s0 = float32(0)
        s1 = float32(0)
        s2 = float32(0)
        s3 = float32(0)
        step = n_unroll * width
        p = int32(0)
        while p < n_pass:
            start = (p * step) & mask
            for u in range(n_unroll):
                x0, x1, x2, x3 = load4(tile, start + tid + u * width)
                s0 += x0
                s1 += x1
                s2 += x2
                s3 += x3
            p += int32(1)
        store4(out, cuda.blockIdx.x * width + tid, s0, s1, s2, s3)

    return KernelSource(f"shared_read unroll={n_unroll}", shared_read, READ_SIGNATURE)


# ---------------------------------------------------------------------------------------------
# The transcendental (SFU) ceiling


SFU_SIGNATURE = void(float32[::1], float32)



@lru_cache(maxsize=None)
def sfu_kernel(chains: int = 8, unroll: int = 8, n_iter: int = 1024):
    """``v = v + exp2(v * zero)`` on ``chains`` chains: one MUFU.EX2 per step and chain,
    ``n_iter * unroll`` steps (compile-time constants, as in :func:`fma_peak_kernel`).

    ``zero`` is a run-time 0, so each step adds exactly 1 (checkable) while the compiler must
    still evaluate every exp2.  fastmath maps exp2 to the hardware's approximate ``ex2``
    instruction, which is what the SFU ceiling is about.
    """
    n_chains, n_unroll, n_trips = int(chains), int(unroll), int(n_iter)

    def sfu(out, zero):
        t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        seed = float32(t & 63)
        v = cuda.local.array(n_chains, float32)
        for c in range(n_chains):
            v[c] = seed + float32(c)
        i = 0
        while i < n_trips:
            for _ in range(n_unroll):
                for c in range(n_chains):
                    v[c] = v[c] + math.exp2(v[c] * zero)
            i += 1
        total = float32(0)
        for c in range(n_chains):
            total += v[c]
        out[t] = total

    return KernelSource(f"sfu chains={n_chains} unroll={n_unroll} n_iter={n_trips}", sfu,
                        SFU_SIGNATURE, fastmath=True)


# ---------------------------------------------------------------------------------------------
# Exercise 4's reduction


REDUCTION_SIGNATURE = void(float32[::1], float64[::1])


@lru_cache(maxsize=None)
def reduction_kernel():
    """out[0] += sum(x): 16-byte loads, four float64 partial sums per thread, a tree in shared
    memory per block, one atomic add per block.

    The float64 partial sums are exact for the fill values (multiples of 1/4 below 2^15), so
    the result is exact whatever the order of the additions.  Launch with any grid of BLOCK
    (256)-thread blocks; len(x) must be a multiple of 4.
    """
    block = 256

    def gpu_sum(x, out):
        partial = cuda.shared.array(block, float64)
        tid = cuda.threadIdx.x
        i = cuda.blockIdx.x * block + tid
        stride = cuda.gridDim.x * block
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
        width = int32(block // 2)
        while width > 0:
            if tid < width:
                partial[tid] += partial[tid + width]
            cuda.syncthreads()
            width //= int32(2)
        if tid == 0:
            cuda.atomic.add(out, 0, partial[0])

    return KernelSource("reduction (gpu_sum)", gpu_sum, REDUCTION_SIGNATURE)


# ---------------------------------------------------------------------------------------------
# Input data, made on the device (a 1 GiB host array would take longer to make than to measure)


FILL_SIGNATURE = void(float32[::1])



@lru_cache(maxsize=None)
def fill_kernel():
    def fill(x):
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < x.shape[0]:
            x[i] = float32((i * 40503) & 65535) * float32(0.25) + float32(1)
            i += stride

    return KernelSource("fill", fill, FILL_SIGNATURE)


# ---------------------------------------------------------------------------------------------
# Checks that run on the device, so that a 1 GiB result is not copied to the host to verify it


COUNT_SIGNATURE = void(float32[::1], float32[::1], int32[::1])
WRITE_COUNT_SIGNATURE = void(float32[::1], int32[::1])


@lru_cache(maxsize=None)
def mismatch_kernel():
    """count[0] += the number of positions where a and b differ bit for bit (NaN-safe: two
    floats that are == and both non-NaN have the same bits, except +0 and -0, which the
    inputs never hold)."""
    def count_mismatches(a, b, count):
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        bad = int32(0)
        while i < a.shape[0]:
            if not (a[i] == b[i]):
                bad += int32(1)
            i += stride
        if bad:
            cuda.atomic.add(count, 0, bad)

    return KernelSource("count_mismatches", count_mismatches, COUNT_SIGNATURE)


def ptx_targets():
    """A representative of every kernel family, as :class:`KernelSource` (the tests compile
    each to PTX and check its instruction mix)."""
    return [
        copy_kernel(1), copy_kernel(2), copy_kernel(4),
        dram_read_kernel(4, 256), dram_read_kernel(8, 256), dram_write_kernel(1), dram_write_kernel(4),
        fill_read_kernel(), write_mismatch_kernel(),
        fma_peak_kernel("fp32"), fma_peak_kernel("fp64"),
        sweep_kernel(0), sweep_kernel(64), sweep_kernel(1024),
        sweep_pipelined_kernel(0), sweep_pipelined_kernel(64), sweep_pipelined_kernel(1024),
        shared_read_kernel(), sfu_kernel(), mismatch_kernel(), fill_kernel(), l2_slab_kernel(),
        reduction_kernel(),
    ]
