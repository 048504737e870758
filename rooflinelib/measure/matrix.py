"""Matrix ceilings: cuBLAS GEMM through CuPy, one dtype at a time.

Tuned libraries (cuBLAS, CUTLASS, and kernels such as FlashAttention-3 built on them) come
close to the tensor cores' roofs; these ceilings are cuBLAS's rate on a square product big enough to fill the chip (8192^3 by
default).  Every dtype goes through the same ``cublasGemmEx`` call with explicit data and
compute types, so what runs is never left to a library default (fp64 also tries
``cublasDgemm``, ``cupy.matmul`` and the tensor-op algorithm hint, and keeps the best):

==========  ============  ==================================  ===============
ceiling     operands      compute type                        check (rel. err)
==========  ============  ==================================  ===============
fp64-matrix float64       CUBLAS_COMPUTE_64F                  1e-12
fp32-matrix float32       CUBLAS_COMPUTE_32F, default math    1e-5
tf32-tensor float32       CUBLAS_COMPUTE_32F_FAST_TF32        5e-3
fp16-tensor float16       CUBLAS_COMPUTE_32F (fp32 accum.)    5e-3
bf16-tensor bfloat16      CUBLAS_COMPUTE_32F (fp32 accum.)    2e-2
==========  ============  ==================================  ===============

Inputs are normally distributed random numbers (never zeros: a product of zeros runs faster
than real data).  The check compares four rows of C with a float64 product of the same
(rounded) inputs; its tolerance covers the output's rounding and the reduced-precision
products, and a NaN never passes.
"""
from __future__ import annotations

from rooflinelib.measure import accounting as acc
from rooflinelib.measure.errors import VerificationError
from rooflinelib.measure.protocol import Measurement, Run, best, measure_run
from rooflinelib.core.vocabulary import COMPUTE_DTYPES

# cuBLAS / CUDA enum values (cublas_api.h, library_types.h)
CUDA_R_32F, CUDA_R_64F, CUDA_R_16F, CUDA_R_16BF = 0, 1, 2, 14
CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_64F, CUBLAS_COMPUTE_32F_FAST_TF32 = 68, 70, 77
CUBLAS_OP_N, CUBLAS_GEMM_DEFAULT, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 0, -1, 99
CUBLAS_DEFAULT_MATH, CUBLAS_POINTER_MODE_HOST = 0, 0

#: dtype -> (data type, compute type, element bytes, relative tolerance) of its cuBLAS GEMM
CUBLAS_TYPES = {
    "fp64": (CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, 1e-12),
    "fp32": (CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 1e-5),
    "tf32": (CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 5e-3),
    "fp16": (CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 5e-3),
    "bf16": (CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2e-2),
}
#: ceiling name -> (dtype, data type, compute type, element bytes, relative tolerance): every
#: matrix ceiling of the vocabulary whose dtype cuBLAS computes here (fp8's is datasheet-only)
MATRIX_CEILINGS = {name: (dtype,) + CUBLAS_TYPES[dtype] for name, dtype, group, _ in COMPUTE_DTYPES
                   if group == "matrix" and dtype in CUBLAS_TYPES}


def operands(cp, n: int, dtype: str, seed: int = 12345, m: int = None, k: int = None):
    """A (m x k), B (k x n) (row-major, stored in the GEMM's input type; m and k default to n)
    and a function giving the float64 values of such an array.  The same seed gives the same operands, so a reference
    library can be timed on exactly the data the ceiling was measured on.

    fp64 operands use every bit of the mantissa.  Data whose low bits are zero (float32
    values widened to float64, say) toggle fewer bits in the multipliers, draw less power
    and, on a card at its power cap, run at a higher clock: a ceiling measured on them would
    be optimistic for real fp64 data."""
    rng = cp.random.RandomState(seed)
    m, k = m or n, k or n
    if dtype == "fp64":
        a = rng.standard_normal((m, k), dtype=cp.float64)
        b = rng.standard_normal((k, n), dtype=cp.float64)
        return a, b, (lambda x: x)
    a32 = rng.standard_normal((m, k), dtype=cp.float32)
    b32 = rng.standard_normal((k, n), dtype=cp.float32)
    if dtype in ("fp32", "tf32"):
        return a32, b32, (lambda x: x.astype(cp.float64))
    if dtype == "fp16":
        return a32.astype(cp.float16), b32.astype(cp.float16), (lambda x: x.astype(cp.float64))

    # bfloat16: numpy has no such dtype, so keep the bits in uint16 (round to nearest even)
    def to_bf16(x):
        u = x.view(cp.uint32)
        return ((u + cp.uint32(0x7FFF) + ((u >> 16) & cp.uint32(1))) >> 16).astype(cp.uint16)

    def from_bf16(bits):
        return (bits.astype(cp.uint32) << 16).view(cp.float32).astype(cp.float64)

    return to_bf16(a32), to_bf16(b32), from_bf16


class MatrixGemm:
    """One matrix ceiling's GEMM, set up and verified: operands ``a`` and ``b`` (CuPy, from
    :func:`operands`), output ``c``, and ``calls``: label -> launch for every cuBLAS entry point
    that ran and passed the check (``failed``: label -> why, for the others).

    :func:`measure_matrix` times each call and keeps the fastest; a benchmark can time one of
    these very launches against another library on the same operands.  ``release()`` frees
    the buffers."""

    def __init__(self, name: str, n: int = 8192, m: int = None, k: int = None):
        import numpy as np
        import cupy as cp
        from cupy.cuda import cublas

        if name not in MATRIX_CEILINGS:
            raise ValueError(f"name: not a matrix ceiling, got {name!r} (one of {', '.join(MATRIX_CEILINGS)})")
        self.name, self.n = name, n
        self.m, self.k = m or n, k or n  # C is m x n, the sum runs over k
        m, k = self.m, self.k
        dtype, data_type, compute_type, self.element_bytes, tolerance = MATRIX_CEILINGS[name]
        self.dtype, self.compute_type, self.tolerance = dtype, compute_type, tolerance
        a, b, as_f64 = operands(cp, n, dtype, seed=12345, m=m, k=k)
        c = cp.empty((m, n), dtype=a.dtype)
        self.a, self.b, self.c = a, b, c
        if dtype == "fp64":
            alpha, beta = np.array(1.0, np.float64), np.array(0.0, np.float64)
        else:
            alpha, beta = np.array(1.0, np.float32), np.array(0.0, np.float32)
        self._scalars = (alpha, beta)  # their host memory must outlive every call
        handle = cp.cuda.device.get_cublas_handle()
        cublas.setPointerMode(handle, CUBLAS_POINTER_MODE_HOST)
        cublas.setMathMode(handle, CUBLAS_DEFAULT_MATH)
        _give_workspace(cp, cublas, handle)

        def gemm_ex(algo=CUBLAS_GEMM_DEFAULT):
            # cuBLAS is column-major: C^T (n x m) = B^T (n x k) A^T (k x m), so passing B then A
            # yields row-major A @ B.
            cublas.gemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k,
                          alpha.ctypes.data, b.data.ptr, data_type, n, a.data.ptr, data_type, k,
                          beta.ctypes.data, c.data.ptr, data_type, n, compute_type, algo)

        def dgemm():
            # The classic entry point, as torch.matmul calls it for float64 (same operand order).
            cublas.dgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, alpha.ctypes.data, b.data.ptr, n,
                         a.data.ptr, k, beta.ctypes.data, c.data.ptr, n)

        candidates = [("cublasGemmEx via CuPy", gemm_ex)]
        if dtype == "fp64":  # other entry points, whose heuristics may pick another kernel
            candidates.append(("cublasDgemm via CuPy", dgemm))
            candidates.append(("cupy.matmul (cuBLAS)", lambda: cp.matmul(a, b, out=c)))
            candidates.append(("cublasGemmEx DEFAULT_TENSOR_OP via CuPy",
                               lambda: gemm_ex(CUBLAS_GEMM_DEFAULT_TENSOR_OP)))
        self._rows = cp.asarray([0, m // 3, 2 * m // 3, m - 1])
        self._reference = as_f64(a[self._rows]) @ as_f64(b)
        self._as_f64 = as_f64
        self.candidates = dict(candidates)
        self.calls, self.failed, self.relative_error = {}, {}, {}

    def check(self, label: str):
        """None when C (just written by call ``label``) matches the float64 product of four of
        its rows within the tolerance, else what is wrong.  A NaN never passes."""
        import numpy as np
        import cupy as cp
        got = self._as_f64(self.c[self._rows])
        error = float(cp.linalg.norm(got - self._reference) / cp.linalg.norm(self._reference))
        self.relative_error[label] = error
        if not np.isfinite(error) or error > self.tolerance:
            return f"relative error {error:.2e} exceeds {self.tolerance:.0e}"
        return None

    def runs(self) -> list:
        """One :class:`~rooflinelib.measure.protocol.Run` per entry point."""
        import cupy as cp
        return [Run(launch, (lambda label=label: self.check(label)),
                    acc.gemm_work(self.m, self.n, self.k, self.element_bytes), label,
                    {"n": self.n, "m": self.m, "k": self.k, "dtype": self.dtype,
                     "compute_type": self.compute_type, "call": label},
                    poison=lambda: self.c.view(cp.uint8).fill(0xFF),  # NaN in every dtype, bf16 bits too
                    extra={"tolerance": self.tolerance})
                for label, launch in self.candidates.items()]

    @property
    def n_flops(self) -> float:
        return acc.gemm_work(self.m, self.n, self.k, self.element_bytes).n_flops

    def release(self):
        import cupy as cp
        self.calls.clear()
        self.candidates.clear()
        self.a = self.b = self.c = self._reference = None
        cp.get_default_memory_pool().free_all_blocks()


def measure_matrix(backend, name: str, n: int = 8192, repeats: int = 10, progress=None,
                   gemm: "MatrixGemm" = None) -> Measurement:
    """One matrix ceiling (a key of :data:`MATRIX_CEILINGS`) by the verified-run protocol: the
    fastest of :class:`MatrixGemm`'s entry points, each checked after its first call.  An entry
    point this CuPy lacks is skipped (``calls_failed``); a wrong product raises
    VerificationError.  Pass ``gemm`` (set up for ``name`` and ``n``) to keep it, e.g. to time
    the chosen call again beside another library; otherwise one is set up here and released."""
    own = gemm is None
    if own:
        gemm = MatrixGemm(name, n)
    elif (gemm.name, gemm.n) != (name, n):
        raise ValueError(f"gemm: set up for {gemm.name} {gemm.n}^3, not {name} {n}^3")
    tried = []
    for run in gemm.runs():
        try:
            m = measure_run(backend, name, "compute", run, repeats)
        except VerificationError:
            raise
        except Exception as exc:  # an entry point this CuPy lacks: the others still measure
            gemm.failed[run.kernel] = " ".join(str(exc).split())[:200]
            continue
        m.extra["relative_error"] = gemm.relative_error[run.kernel]
        gemm.calls[run.kernel] = run.launch
        tried.append(m)
    if not tried:
        raise RuntimeError(f"{name}: no cuBLAS entry point ran ({gemm.failed})")
    m = best(tried)
    if gemm.failed:
        m.extra["calls_failed"] = dict(gemm.failed)
    if own:
        gemm.release()
    if progress:
        progress(f"  {name} ({gemm.dtype}, {gemm.m} x {gemm.n} x {gemm.k}): {m.value:,.0f} GFLOP/s")
    return m


_WORKSPACE = {}  # handle -> buffer; the buffer must outlive every later call on the handle


def _give_workspace(cp, cublas, handle, size: int = 64 * 2 ** 20):
    """Hand cuBLAS a workspace, as PyTorch does: some of its fastest kernels (split-K) need
    one.  Without the call (older CuPy) cuBLAS runs with its own default."""
    if handle in _WORKSPACE or not hasattr(cublas, "setWorkspace"):
        return
    try:
        buffer = cp.empty(size, dtype=cp.uint8)
        cublas.setWorkspace(handle, buffer.data.ptr, size)
        _WORKSPACE[handle] = buffer
    except Exception:
        pass


def cupy_gpu_available() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False
