"""Two traps that cut a Numba-CUDA roof, and the instruction histograms that expose them.

1. **float64 promotion.** A Python ``float`` or ``int`` literal mixed with float32 values
   makes the expression float64, and the H200 runs float64 FMAs at half the float32 rate.
2. **``range`` bookkeeping.** Numba's ``range`` iterator counts down a 64-bit "remaining"
   value that stops at zero (a compare, a select and an add per step).  NVVM cannot turn that
   into a trip count, so when a ``for _ in range(n)`` loop is too long to unroll completely
   (here 128 steps of 8 FMAs), every unrolled copy keeps its own step of it: in PTX one
   ``setp.ne.s64``, ``selp.b64`` and ``add.s64`` per 8 FMAs, in SASS (the two halves of each
   64-bit value) 2 ISETP + 2 IADD3 + 1 SEL per 8 FFMA, which take issue slots from the FMAs.
   The recorded H200 run's SASS shows it (``docs/h200-facts.md`` lists the counts).  A ``while`` loop on an ``int32`` counter has a trip count NVVM
   can see: 128 FFMA and a couple of integer instructions per unrolled body.

All four kernels have one shape: a run-time outer ``while`` loop on an ``int32`` counter around
an inner loop of ``INNER`` steps of ``CHAINS`` independent FMA chains.  ``typed`` is the clean
kernel; ``promoted`` differs from it in one literal, ``range`` in the form of the inner loop
(``while`` is ``typed`` again, named as the fix of the ``range`` trap).  Their PTX compiles on
any machine with numba-cuda's CUDA toolkit wheels (no GPU, no driver), and both traps already
show there; SASS, the code the GPU runs, needs the GPU (``inspect_sass``), and so do the rates.
"""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

try:  # module globals, as the simulator requires: it swaps a kernel's global ``cuda`` for its own
    from numba import cuda, float32, int32, void
except Exception as _exc:  # no numba-cuda here: the kernels and their PTX are unavailable
    cuda = float32 = int32 = void = None
    _MISSING = f"numba-cuda is not importable ({type(_exc).__name__}: {str(_exc)[:120]})"
else:
    _MISSING = ""

CHAINS = 8  # independent FMA chains per thread
INNER = 128  # steps of every chain in the inner loop: 1024 FMAs, too many to unroll completely
FMAS_PER_TRIP = CHAINS * INNER  # FMAs per thread per trip of the outer loop
VARIANTS = ("promoted", "typed", "range", "while")


def cuda_toolkit_available() -> tuple:
    """(True, '') when kernels can be compiled to PTX here, else (False, reason)."""
    if _MISSING:
        return False, _MISSING
    try:
        ptx_of("typed")
    except Exception as exc:
        return False, f"compiling to PTX failed ({type(exc).__name__}: {' '.join(str(exc).split())[:160]})"
    return True, ""


@lru_cache(maxsize=None)
def kernel_source(variant: str):
    """(python function, signature) of one variant: 'promoted', 'typed', 'range', 'while'.

    All run ``CHAINS`` identity FMA chains per thread (a = 1, b = 0 at run time), ``trips``
    times ``INNER`` steps, and store the chains' sum; the output does not depend on the
    trip count, so every variant is checked bit for bit.
    """
    if _MISSING:
        raise RuntimeError(f"trap kernels: {_MISSING}")
    inner = INNER  # a Python int, as a user would write it: range() makes it a 64-bit count
    signature = void(float32[::1], float32, float32, int32)
    if variant not in VARIANTS:
        raise ValueError(f"variant: must be 'promoted', 'typed', 'range' or 'while', got {variant!r}")

    if variant == "promoted":
        def fma_promoted(out, a, b, trips):
            t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
            base = float32(t & 1023)
            v0, v1, v2, v3 = base + float32(1), base + float32(2), base + float32(3), base + float32(4)
            v4, v5, v6, v7 = base + float32(5), base + float32(6), base + float32(7), base + float32(8)
            c = b + 0.0  # a Python float literal: c, and every chain after it, is float64
            i = int32(0)
            while i < trips:
                j = int32(0)
                while j < inner:
                    v0 = cuda.fma(v0, a, c)
                    v1 = cuda.fma(v1, a, c)
                    v2 = cuda.fma(v2, a, c)
                    v3 = cuda.fma(v3, a, c)
                    v4 = cuda.fma(v4, a, c)
                    v5 = cuda.fma(v5, a, c)
                    v6 = cuda.fma(v6, a, c)
                    v7 = cuda.fma(v7, a, c)
                    j += int32(1)
                i += int32(1)
            out[t] = v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7
        return fma_promoted, signature

    if variant == "range":
        def fma_range(out, a, b, trips):
            t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
            base = float32(t & 1023)
            v0, v1, v2, v3 = base + float32(1), base + float32(2), base + float32(3), base + float32(4)
            v4, v5, v6, v7 = base + float32(5), base + float32(6), base + float32(7), base + float32(8)
            c = b + float32(0)
            i = int32(0)
            while i < trips:
                for _ in range(inner):  # Python's range: a 64-bit count-down in every unrolled copy
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
        return fma_range, signature

    def fma_typed(out, a, b, trips):  # 'typed', and 'while' as the fix of the range trap
        t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        base = float32(t & 1023)
        v0, v1, v2, v3 = base + float32(1), base + float32(2), base + float32(3), base + float32(4)
        v4, v5, v6, v7 = base + float32(5), base + float32(6), base + float32(7), base + float32(8)
        c = b + float32(0)  # the same step, typed: everything stays float32
        i = int32(0)
        while i < trips:
            j = int32(0)
            while j < inner:  # an int32 counter: NVVM sees the trip count and unrolls cleanly
                v0 = cuda.fma(v0, a, c)
                v1 = cuda.fma(v1, a, c)
                v2 = cuda.fma(v2, a, c)
                v3 = cuda.fma(v3, a, c)
                v4 = cuda.fma(v4, a, c)
                v5 = cuda.fma(v5, a, c)
                v6 = cuda.fma(v6, a, c)
                v7 = cuda.fma(v7, a, c)
                j += int32(1)
            i += int32(1)
        out[t] = v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7
    return fma_typed, signature


PAIRS = {
    "float64 promotion": ("promoted", "typed"),
    "range bookkeeping": ("range", "while"),
}


@lru_cache(maxsize=None)
def ptx_of(variant: str, cc: tuple = (9, 0)) -> str:
    """The kernel's PTX for compute capability ``cc``; needs numba-cuda's toolkit, not a GPU."""
    function, signature = kernel_source(variant)
    text, _ = cuda.compile_ptx(function, signature.args, cc=cc)
    return text


_PTX_INSTRUCTION = re.compile(r"^\s*(?:@!?%p\d+\s+)?([a-z][a-z0-9_.]*)\s", re.MULTILINE)
_SASS_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", re.MULTILINE)
# Labels and backward branches, to find loops: PTX "$L__BB0_3:" / "bra $L__BB0_3;",
# SASS ".L_x_1:" / "BRA `(.L_x_1)".
_PTX_LABEL = re.compile(r"^(\$L__\w+):")
_PTX_BRANCH = re.compile(r"\bbra(?:\.uni)?\s+(\$L__\w+)\s*;")
_SASS_LABEL = re.compile(r"^(\.L_x_\d+):")
_SASS_BRANCH = re.compile(r"\bBRA\b[^(]*\((\.L_x_\d+)\)")


def histogram(text: str, kind: str = "ptx") -> Counter:
    """Opcode counts of PTX or SASS text (whole opcodes with modifiers: ``fma.rn.f32``)."""
    pattern = _PTX_INSTRUCTION if kind == "ptx" else _SASS_INSTRUCTION
    return Counter(match.group(1) for match in pattern.finditer(text))


def _instructions_and_labels(text: str, kind: str):
    label_re, one = (_PTX_LABEL, _PTX_INSTRUCTION) if kind == "ptx" else (_SASS_LABEL, _SASS_INSTRUCTION)
    instructions, labels = [], {}
    for line in text.splitlines():
        found = label_re.match(line.strip())
        if found:
            labels[found.group(1)] = len(instructions)
            continue
        op = one.match(line)
        if op and not op.group(1).startswith("NOP"):
            instructions.append((op.group(1), line))
    return instructions, labels


def innermost_loops(text: str, kind: str = "ptx") -> list:
    """Opcode counts of each innermost loop body of PTX or SASS text.

    A loop is a branch back to an earlier label; innermost loops contain no other loop.
    These are the instructions a thread repeats, so their mix, not the kernel's, sets the rate.
    """
    instructions, labels = _instructions_and_labels(text, kind)
    branch = _PTX_BRANCH if kind == "ptx" else _SASS_BRANCH
    spans = []
    for end, (_, line) in enumerate(instructions):
        target = branch.search(line)
        if target and labels.get(target.group(1), end + 1) <= end:
            spans.append((labels[target.group(1)], end))
    innermost = [s for s in spans
                 if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)]
    return [Counter(op for op, _ in instructions[start:end + 1]) for start, end in innermost]


def hot_loop(text: str, kind: str = "ptx") -> Counter:
    """The innermost loop with the most FMAs (an empty Counter if there is none)."""
    fma = ("fma.rn.f32", "fma.rn.f64") if kind == "ptx" else ("FFMA", "DFMA")
    loops = innermost_loops(text, kind)
    if not loops:
        return Counter()
    return max(loops, key=lambda c: sum(n for op, n in c.items() if op.split(".")[0] in fma or op in fma))


def _ptx_counts(counts: Counter) -> dict:
    pick = lambda pattern: sum(v for k, v in counts.items() if re.match(pattern, k))
    return {
        "fma.rn.f32": counts.get("fma.rn.f32", 0),
        "fma.rn.f64": counts.get("fma.rn.f64", 0),
        "integer add": pick(r"(add|sub)\.[su](32|64)$"),
        "compare (setp)": pick(r"setp\.\w+\.[su](32|64)$"),
        "select (selp)": pick(r"selp\."),
        "64-bit integer": pick(r"(add|sub|setp\.\w+|selp)\.[sub]64$"),
        "cvt (conversions)": pick(r"cvt"),
    }


def ptx_summary(variant: str) -> dict:
    """The PTX counts that matter for the traps, in the kernel's hot loop (the innermost loop
    with the most FMAs), per unrolled body."""
    return _ptx_counts(hot_loop(ptx_of(variant), "ptx"))


def ptx_kernel_summary(variant: str) -> dict:
    """The same counts over the whole kernel, loops and set-up alike."""
    return _ptx_counts(histogram(ptx_of(variant)))


def _sass_counts(counts: Counter) -> dict:
    pick = lambda prefix: sum(v for k, v in counts.items() if k.split(".")[0] == prefix)
    return {"FFMA": pick("FFMA"), "DFMA": pick("DFMA"), "F2F (conversions)": pick("F2F"),
            "IADD3": pick("IADD3"), "ISETP": pick("ISETP"), "SEL": pick("SEL"),
            "all": sum(v for k, v in counts.items() if not k.startswith("NOP"))}


def sass_summary(sass: str) -> dict:
    """The SASS counts that matter for the traps over the whole kernel (the GPU's own
    instructions); ``all`` counts every instruction but NOPs."""
    return _sass_counts(histogram(sass, "sass"))


def sass_loop_summary(sass: str) -> dict:
    """The same counts in the hot loop: what every thread repeats."""
    return _sass_counts(hot_loop(sass, "sass"))


def issue_bound(loop: dict) -> float:
    """The fraction of the FMA pipe's rate that a hot loop can reach at most, from its SASS.

    An SM sub-partition issues one warp instruction per clock and its FP32 lanes retire one
    warp FFMA per clock, so every other instruction in the loop takes a slot an FMA could
    have used: at most FMAs / all instructions.  NaN if the loop has no FMA.
    """
    fmas = loop.get("FFMA", 0) + loop.get("DFMA", 0)
    total = loop.get("all", 0)
    return fmas / total if fmas and total else float("nan")
