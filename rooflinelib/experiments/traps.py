"""Two traps that halve a Numba-CUDA roof, and the instruction histograms that expose them.

1. **float64 promotion.** A Python ``float`` or ``int`` literal mixed with float32 values
   makes the expression float64, and the H200 runs float64 FMAs at half the float32 rate.
2. **``range`` bookkeeping.** ``for _ in range(n)`` with a run-time ``n`` compiles to 64-bit
   counter arithmetic beside every unrolled body; on the H200 it put 34 IADD3 + 32 ISETP +
   16 SEL next to every 128 FFMA (``shared/gpu/README.md``).  A ``while`` loop on an ``int32``
   counter leaves 128 FFMA and 2 ISETP.

Each trap comes as a pair of kernels, the trap and its fix, with the same FLOPs.  Their PTX
compiles on any machine with numba-cuda's CUDA toolkit wheels (no GPU, no driver), which is
enough to see trap 1; SASS, the code the GPU runs, needs the GPU (``inspect_sass``), and so do
the rates.
"""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

CHAINS = 8  # independent FMA chains per thread
UNROLL = 16  # steps of every chain per loop trip, fully unrolled by NVVM


def cuda_toolkit_available() -> tuple:
    """(True, '') when kernels can be compiled to PTX here, else (False, reason)."""
    try:
        from numba import cuda  # noqa: F401
    except Exception as exc:
        return False, f"numba-cuda is not importable ({type(exc).__name__}: {str(exc)[:120]})"
    try:
        ptx_of("typed")
    except Exception as exc:
        return False, f"compiling to PTX failed ({type(exc).__name__}: {' '.join(str(exc).split())[:160]})"
    return True, ""


@lru_cache(maxsize=None)
def kernel_source(variant: str):
    """(python function, signature) of one variant: 'promoted', 'typed', 'range', 'while'.

    All four run 8 identity FMA chains per thread (a = 1, b = 0 at run time), UNROLL steps
    per trip, and store the chains' sum.  'promoted' and 'typed' differ only in one literal;
    'range' and 'while' only in the loop around the unrolled body.
    """
    from numba import cuda, float32, int32, void

    n_unroll = UNROLL
    signature = void(float32[::1], float32, float32, int32)

    if variant == "promoted":
        def fma_promoted(out, a, b, trips):
            t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
            base = float32(t & 1023)
            v0, v1, v2, v3 = base + float32(1), base + float32(2), base + float32(3), base + float32(4)
            v4, v5, v6, v7 = base + float32(5), base + float32(6), base + float32(7), base + float32(8)
            c = b + 0.0  # a Python float literal: c, and every chain after it, is float64
            i = int32(0)
            while i < trips:
                for _ in range(n_unroll):
                    v0 = cuda.fma(v0, a, c)
                    v1 = cuda.fma(v1, a, c)
                    v2 = cuda.fma(v2, a, c)
                    v3 = cuda.fma(v3, a, c)
                    v4 = cuda.fma(v4, a, c)
                    v5 = cuda.fma(v5, a, c)
                    v6 = cuda.fma(v6, a, c)
                    v7 = cuda.fma(v7, a, c)
                i += int32(1)
            out[t] = v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7
        return fma_promoted, signature

    if variant in ("typed", "while"):
        def fma_typed(out, a, b, trips):
            t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
            base = float32(t & 1023)
            v0, v1, v2, v3 = base + float32(1), base + float32(2), base + float32(3), base + float32(4)
            v4, v5, v6, v7 = base + float32(5), base + float32(6), base + float32(7), base + float32(8)
            c = b + float32(0)  # the same step, typed: everything stays float32
            i = int32(0)
            while i < trips:  # an int32 counter: a couple of integer instructions per trip
                for _ in range(n_unroll):
                    v0 = cuda.fma(v0, a, c)
                    v1 = cuda.fma(v1, a, c)
                    v2 = cuda.fma(v2, a, c)
                    v3 = cuda.fma(v3, a, c)
                    v4 = cuda.fma(v4, a, c)
                    v5 = cuda.fma(v5, a, c)
                    v6 = cuda.fma(v6, a, c)
                    v7 = cuda.fma(v7, a, c)
                i += int32(1)
            out[t] = v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7
        return fma_typed, signature

    if variant == "range":
        def fma_range(out, a, b, trips):
            t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
            base = float32(t & 1023)
            v0, v1, v2, v3 = base + float32(1), base + float32(2), base + float32(3), base + float32(4)
            v4, v5, v6, v7 = base + float32(5), base + float32(6), base + float32(7), base + float32(8)
            c = b + float32(0)
            for _ in range(trips):  # Python's range: 64-bit start, stop and step bookkeeping
                for _ in range(n_unroll):
                    v0 = cuda.fma(v0, a, c)
                    v1 = cuda.fma(v1, a, c)
                    v2 = cuda.fma(v2, a, c)
                    v3 = cuda.fma(v3, a, c)
                    v4 = cuda.fma(v4, a, c)
                    v5 = cuda.fma(v5, a, c)
                    v6 = cuda.fma(v6, a, c)
                    v7 = cuda.fma(v7, a, c)
            out[t] = v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7
        return fma_range, signature

    raise ValueError(f"variant: must be 'promoted', 'typed', 'range' or 'while', got {variant!r}")


PAIRS = {
    "float64 promotion": ("promoted", "typed"),
    "range bookkeeping": ("range", "while"),
}


@lru_cache(maxsize=None)
def ptx_of(variant: str, cc: tuple = (9, 0)) -> str:
    """The kernel's PTX for compute capability ``cc``; needs numba-cuda's toolkit, not a GPU."""
    from numba import cuda
    function, signature = kernel_source(variant)
    text, _ = cuda.compile_ptx(function, signature.args, cc=cc)
    return text


_PTX_INSTRUCTION = re.compile(r"^\s*(?:@%p\d+\s+)?([a-z][a-z0-9_.]*)\s", re.MULTILINE)
_SASS_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", re.MULTILINE)


def histogram(text: str, kind: str = "ptx") -> Counter:
    """Opcode counts of PTX or SASS text (whole opcodes with modifiers: ``fma.rn.f32``)."""
    pattern = _PTX_INSTRUCTION if kind == "ptx" else _SASS_INSTRUCTION
    return Counter(match.group(1) for match in pattern.finditer(text))


def ptx_summary(variant: str) -> dict:
    """The PTX counts that matter for the traps."""
    counts = histogram(ptx_of(variant))
    return {
        "fma.rn.f32": counts.get("fma.rn.f32", 0),
        "fma.rn.f64": counts.get("fma.rn.f64", 0),
        "cvt (conversions)": sum(v for k, v in counts.items() if k.startswith("cvt")),
        "64-bit integer add/compare": sum(v for k, v in counts.items()
                                          if re.match(r"(add|sub|setp\.\w+)\.[su]64$", k)),
        "32-bit integer add/compare": sum(v for k, v in counts.items()
                                          if re.match(r"(add|sub|setp\.\w+)\.[su]32$", k)),
    }


def sass_summary(sass: str) -> dict:
    """The SASS counts that matter for the traps (the GPU's own instructions)."""
    counts = histogram(sass, "sass")
    pick = lambda prefix: sum(v for k, v in counts.items() if k.split(".")[0] == prefix)
    return {"FFMA": pick("FFMA"), "DFMA": pick("DFMA"), "F2F (conversions)": pick("F2F"),
            "IADD3": pick("IADD3"), "ISETP": pick("ISETP"), "SEL": pick("SEL")}
