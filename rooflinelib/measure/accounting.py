"""FLOPs and bytes of every measurement kernel, stated once.

Every backend (Numba-CUDA, CuPy, the CPU) launches its kernels with the same parameters and
asks this module what one launch does.  Nothing else in the package counts FLOPs or bytes for
these kernels, so a count fixed here is fixed for every backend, table and test.

Conventions: one fused multiply-add is 2 FLOPs; one transcendental (``exp2``) is
1 operation, reported in the FLOP/s column of the ``sfu`` ceiling; bytes are those the kernel
must move through the level being measured (read + write for a copy, reads only for the
read-only L2 and shared-memory kernels).  Bytes are counted analytically, not read from a
profiler.
"""
from __future__ import annotations

from rooflinelib.core.model import Work  # the one FLOPs-and-bytes pair

FP32_BYTES = 4
FP64_BYTES = 8
VECTOR_BYTES = 16  # one 16-byte access: four float32 or two float64

#: The working-set read kernels' geometry (:mod:`.workingset_kernels`): a chunk is what one
#: block of WS_BLOCK threads reads with WS_UNROLL 16-byte loads per thread.
WS_BLOCK = 256
WS_UNROLL = 4
CHUNK_VECTORS = WS_BLOCK * WS_UNROLL  # 1024 vectors
CHUNK_FLOATS = 4 * CHUNK_VECTORS
CHUNK_BYTES = VECTOR_BYTES * CHUNK_VECTORS  # 16 KiB: the step between working-set sizes

#: Bytes one element of the sweep moves through DRAM: one float32 read, one float32 written.
SWEEP_BYTES_PER_ELEMENT = 2 * FP32_BYTES


def copy_work(n_vectors: int) -> Work:
    """Device copy of ``n_vectors`` 16-byte vectors: each read once and written once."""
    return Work(0.0, 2.0 * VECTOR_BYTES * n_vectors)


def copy_elements_work(n_elements: int, element_bytes: int) -> Work:
    """CPU copy of ``n_elements`` scalars of ``element_bytes`` each: read once, written once."""
    return Work(0.0, 2.0 * element_bytes * n_elements)


def dram_read_work(n_elements: int, element_bytes: int = FP32_BYTES) -> Work:
    """Read-only DRAM stream: ``n_elements`` of ``element_bytes`` read once, nothing written
    (the adds that consume them are not counted: the kernel is scored on GB/s)."""
    return Work(0.0, float(element_bytes) * n_elements)


def dram_write_work(n_elements: int, element_bytes: int = FP32_BYTES) -> Work:
    """Write-only DRAM stream: ``n_elements`` of ``element_bytes`` written once, nothing read.
    Only the bytes the program asks for: a CPU that reads each line before writing it
    (write-allocate) moves twice as many, and its rate shows it."""
    return Work(0.0, float(element_bytes) * n_elements)


def fma_peak_work(n_threads: int, n_iter: int, unroll: int, chains: int) -> Work:
    """The FMA-peak kernel: every thread runs ``n_iter * unroll`` FMAs on each of ``chains``
    register-resident chains, then stores one value (whose bytes are negligible and not
    counted: the kernel is scored on FLOP/s only)."""
    return Work(2.0 * n_threads * n_iter * unroll * chains, 0.0)


def sweep_work(n_elements: int, k: int) -> Work:
    """The intensity sweep: each float32 element is read, gets ``k`` FMAs, and is written.

    I = 2k / 8 = k / 4 FLOP/byte, exactly.
    """
    return Work(2.0 * k * n_elements, float(SWEEP_BYTES_PER_ELEMENT) * n_elements)


def sweep_intensity(k: int) -> float:
    """FLOP/byte of sweep point ``k`` (float32): 2k FLOPs over 8 bytes."""
    return 2.0 * k / SWEEP_BYTES_PER_ELEMENT


def read_work(n_threads: int, vectors_per_thread: int) -> Work:
    """The read-only shared-memory kernel: each thread loads ``vectors_per_thread`` 16-byte
    vectors and adds their four floats into four accumulators.  The adds are not counted as
    FLOPs: the kernel is scored on GB/s."""
    return Work(0.0, float(VECTOR_BYTES) * n_threads * vectors_per_thread)


def chunk_read_work(n_blocks: int, n_pass: int, chunk_bytes: int) -> Work:
    """The working-set read kernel (:mod:`rooflinelib.measure.workingset_kernels`), which both the
    L2 ceiling and the hierarchical working-set sweep launch: every one of ``n_blocks`` blocks
    reads ``n_pass`` whole chunks of ``chunk_bytes``, each byte loaded once per pass.  Scored
    on GB/s; the adds that consume the loads are not counted."""
    return Work(0.0, float(n_blocks) * n_pass * chunk_bytes)


def sfu_work(n_threads: int, n_iter: int, unroll: int, chains: int) -> Work:
    """The transcendental kernel: ``n_iter * unroll`` ``exp2`` per chain per thread.
    One ``exp2`` counts as one operation (the multiply and add around it are not counted)."""
    return Work(1.0 * n_threads * n_iter * unroll * chains, 0.0)


def matmul_work(n: int, element_bytes: int) -> Work:
    """C = A @ B with n x n operands: 2 n^3 FLOPs; A and B read and C written once."""
    return gemm_work(n, n, n, element_bytes)


def gemm_work(m: int, n: int, k: int, element_bytes: int) -> Work:
    """C (m x n) = A (m x k) @ B (k x n): 2 m n k FLOPs; A and B read and C written once, all
    in the GEMM's input type (the tile-perfect traffic: no operand crosses DRAM twice)."""
    if min(m, n, k) < 1 or element_bytes < 1:
        raise ValueError(f"m, n, k, element_bytes: must be positive, got {m}, {n}, {k}, {element_bytes}")
    return Work(2.0 * m * n * k, float(element_bytes) * (m * k + k * n + m * n))
