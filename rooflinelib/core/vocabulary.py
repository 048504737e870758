"""The dtype vocabulary of the compute ceilings: the number type each computes in, whether
vector units ("core") or matrix units ("matrix") run it, and which one a GEMM in each dtype is
scored against.

The registry's rows carry these fields (:class:`rooflinelib.measure.registry.CeilingSpec`'s
``dtype``, ``group``, ``gemm``), built from this table; it is a module of its own, importing
nothing, so that the modules the registry itself calls (the cuBLAS runner) and the model's
operators read it without importing the registry.  Every other table from a dtype to a ceiling
name (the GEMM roofs, the profiler's ``precision`` words, the cuBLAS ceilings, a training
step's roofs, the pitfalls' span, the charts' dashed matrix roofs) is derived from it.
"""
from __future__ import annotations

from typing import Optional

#: The ceilings of matrix units, each name spelled here once: code that means one uses these.
FP64_MATRIX, FP32_MATRIX = "fp64-matrix", "fp32-matrix"
TF32_TENSOR, FP16_TENSOR, BF16_TENSOR, FP8_TENSOR = "tf32-tensor", "fp16-tensor", "bf16-tensor", "fp8-tensor"

#: (ceiling, dtype, group, GEMM roof of its dtype), in the registry's order.  An fp32 GEMM is
#: scored against the fp32 vector row: NVIDIA's tensor cores take no fp32 ("fp32-matrix" is
#: SGEMM on the CUDA cores there); an fp64 GEMM against the matrix row, which runs it on
#: tensor cores.  fp8's is a datasheet row: no backend measures it.
COMPUTE_DTYPES = (
    ("fp32", "fp32", "core", True),
    ("fp64", "fp64", "core", False),
    (FP64_MATRIX, "fp64", "matrix", True),
    (FP32_MATRIX, "fp32", "matrix", False),
    (TF32_TENSOR, "tf32", "matrix", True),
    (FP16_TENSOR, "fp16", "matrix", True),
    (BF16_TENSOR, "bf16", "matrix", True),
    (FP8_TENSOR, "fp8", "matrix", True),
)
GROUPS = ("core", "matrix")


def row_fields(name: str) -> dict:
    """The registry row's ``dtype``, ``group`` and ``gemm`` for the compute ceiling ``name``."""
    for row, dtype, group, gemm in COMPUTE_DTYPES:
        if row == name:
            return {"dtype": dtype, "group": group, "gemm": gemm}
    raise KeyError(f"ceiling: {name!r:.40} computes in no dtype of the vocabulary")


def dtype_of(name: str) -> Optional[str]:
    """The dtype the ceiling ``name`` computes in, or None (a memory ceiling, the SFU)."""
    return next((dtype for row, dtype, _, _ in COMPUTE_DTYPES if row == name), None)


def is_matrix(name: str) -> bool:
    """True for a ceiling that matrix units run (a tensor or cuBLAS row)."""
    return any(row == name and group == "matrix" for row, _, group, _ in COMPUTE_DTYPES)


def compute_ceiling(dtype: str, group: str = "core") -> Optional[str]:
    """The ceiling of ``dtype`` on vector units (``group`` "core") or matrix units ("matrix"),
    or None when there is none."""
    if group not in GROUPS:
        raise ValueError(f"group: must be one of {', '.join(GROUPS)}, got {group!r:.20}")
    return next((row for row, d, g, _ in COMPUTE_DTYPES if d == dtype and g == group), None)


def gemm_ceiling(dtype: str) -> Optional[str]:
    """The ceiling a GEMM in ``dtype`` is scored against, or None for a dtype none computes."""
    return next((row for row, d, _, gemm in COMPUTE_DTYPES if gemm and d == dtype), None)
