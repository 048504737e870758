"""The operator catalogue: FLOPs, HBM bytes and intensity for the operators the course studies.

Conventions, stated once and used everywhere (they follow Williams, Waterman and Patterson's
roofline paper; see REFERENCES.md):
- one fused multiply-add is 2 FLOPs; an ``exp``, a compare, a divide is 1 FLOP each;
- bytes are those that cross the boundary named by :attr:`OpCost.level`, counted from the tensor
  sizes, not from a profiler.  For most operators that is HBM (the compulsory traffic of the
  implementation named); the naive GEMM instead counts what its threads load and the tiled GEMM
  what its tiles request, because how much of that coalescing and the caches keep away from HBM
  is exactly what those two models leave out;
- element sizes are those of :data:`DTYPE_BYTES`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from rooflinelib.core.machines import sfu_at_tensor_clock
from rooflinelib.core.vocabulary import gemm_ceiling
from rooflinelib.core.model import Work, checked_count

DTYPE_BYTES = {"fp64": 8, "fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}

# The compute ceiling a dtype's GEMM is scored against, by ceiling name (the vocabulary's
# ``gemm`` rows), in DTYPE_BYTES's order, which the widgets' dtype menus follow.
GEMM_CEILING = {dtype: gemm_ceiling(dtype) for dtype in DTYPE_BYTES}

# FLOPs per score element of attention's softmax: max, subtract, exp, sum, divide.
SOFTMAX_FLOPS_PER_ELEMENT = 5
# The online normalizer streamed from HBM (Milakov and Gimelshein 2018, Algorithm 3 as written):
# pass 1 keeps a running max and sum, rescaling the sum by exp(m_old - m_new) at each element
# (subtract, exp, multiply) besides the max, subtract, exp and add; pass 2 recomputes
# exp(x - m) before dividing (subtract, exp, divide), since it was never stored.
ONLINE_SOFTMAX_FLOPS_PER_ELEMENT = 10


@dataclass(frozen=True)
class OpCost(Work):
    """FLOPs and bytes of one operator instance (a :class:`~rooflinelib.core.model.Work` with a name,
    a dtype, a note and the boundary its bytes are counted at).  ``intensity`` is FLOP/byte."""

    name: str = ""
    dtype: str = "fp32"
    note: str = ""
    #: the boundary the bytes are counted at: "HBM", what each thread loads ("thread loads") or
    #: what the SMs request ("SM requests")
    level: str = "HBM"


def dtype_bytes(dtype: str) -> int:
    try:
        return DTYPE_BYTES[dtype]
    except KeyError:
        raise ValueError(f"dtype: unknown {dtype!r}; known: {', '.join(DTYPE_BYTES)}") from None


def _ridge_value(ridge) -> float:
    try:
        number = float(ridge)
    except (TypeError, ValueError, OverflowError):
        number = math.nan
    if isinstance(ridge, (bool, str)) or not math.isfinite(number) or number <= 0:
        raise ValueError(f"ridge: must be a positive finite number of FLOP/byte, got {ridge!r}")
    return number


def times_below_ridge(op: OpCost, ridge) -> float:
    """How many times ``ridge`` exceeds the operator's intensity: the reuse it lacks before
    arithmetic could become its limit."""
    return _ridge_value(ridge) / op.intensity


# --- elementwise and reductions -------------------------------------------------------------

def vector_add(n: int, dtype: str = "fp32") -> OpCost:
    """C = A + B: one add per element; read A and B, write C."""
    n, s = checked_count("n", n), dtype_bytes(dtype)
    return OpCost(name="vector add", n_flops=n, n_bytes=3 * n * s, dtype=dtype, note="1 FLOP; 2 reads + 1 write per element")


def elementwise_chain(n: int, ops: int, fused: bool, dtype: str = "fp32") -> OpCost:
    """``ops`` one-FLOP elementwise operations applied in turn to ``n`` elements: as ``ops``
    kernels, each reads its input and writes its output; fused into one, the chain reads the
    input once and writes the result once, the intermediates staying in registers."""
    n, ops, s = checked_count("n", n), checked_count("ops", ops), dtype_bytes(dtype)
    passes = 1 if fused else ops
    return OpCost(name=f"{ops} elementwise ops, {'fused' if fused else 'one kernel each'}",
                  n_flops=ops * n, n_bytes=2 * s * n * passes, dtype=dtype,
                  note=f"{ops} FLOPs; {passes} read + {passes} write per element")


def reduction(n: int, dtype: str = "fp32") -> OpCost:
    """sum(A): one add per element; read A once and write one scalar."""
    n, s = checked_count("n", n), dtype_bytes(dtype)
    return OpCost(name="sum reduction", n_flops=n, n_bytes=(n + 1) * s, dtype=dtype,
                  note="1 FLOP and 1 read per element, 1 scalar out")


def softmax(n: int, fused: bool = True, dtype: str = "fp32", row_on_chip: bool = True) -> OpCost:
    """Safe softmax over n elements: 5 FLOPs each (max, subtract, exp, sum, divide).

    Three forms, told apart by their HBM traffic:

    - ``fused=False``: the 3-pass form (max, then exponentiate and sum, then normalize) reads
      the row in each pass and writes in two: 3 reads + 2 writes, 20 bytes per fp32 element;
    - ``fused=True, row_on_chip=False``: the online normalizer (Milakov and Gimelshein 2018)
      streaming from HBM.  It finds the maximum and the sum in one read, then reads again to
      write the output: 2 reads + 1 write, 12 bytes per fp32 element;
    - ``fused=True, row_on_chip=True`` (the default): a single pass that keeps the whole row in
      registers or shared memory, so the row is read once and written once: 8 bytes per fp32
      element.  This needs a row that fits on chip; it is what notebook 04's kernel does.

    The 3-pass form here is the course's own variant: its second pass writes exp(x - m) back,
    so the third only divides.  The usual safe softmax, older than the online normalizer and the
    baseline Milakov and Gimelshein measure against, instead recomputes the exp in its third
    pass: 3 reads + 1 write, against which their online form saves a quarter of the traffic
    (their "up to 1.3x"), where the course's 3-pass form gives 1.67x and 2.5x.

    FLOPs: 5 per element for the 3-pass and the on-chip forms; 10 for the streaming online
    normalizer, whose rescaling adds a subtract, an exp and a multiply per element and whose
    second pass recomputes the exp (:data:`ONLINE_SOFTMAX_FLOPS_PER_ELEMENT`).  Every form stays
    memory-bound, so the predicted speed-ups are byte ratios all the same.
    """
    n, s = checked_count("n", n), dtype_bytes(dtype)
    flops = SOFTMAX_FLOPS_PER_ELEMENT
    if not fused:
        accesses, name, how = 5, "3-pass softmax", "3 reads + 2 writes"
    elif row_on_chip:
        accesses, name, how = 2, "fused softmax", "1 read + 1 write, row kept on chip"
    else:
        accesses, name, how = 3, "online softmax, streaming", "2 reads + 1 write"
        flops = ONLINE_SOFTMAX_FLOPS_PER_ELEMENT
    return OpCost(name=name, n_flops=flops * n, n_bytes=accesses * n * s, dtype=dtype,
                  note=f"{flops} FLOPs, {how} per element")


# --- GEMM ------------------------------------------------------------------------------------

def gemm(n: int, dtype: str = "fp32", m: int = None, k: int = None) -> OpCost:
    """C[m,n] = A[m,k] B[k,n] with perfect reuse: each of A, B and C crosses HBM once."""
    n = checked_count("n", n)
    m = n if m is None else checked_count("m", m)
    k = n if k is None else checked_count("k", k)
    s = dtype_bytes(dtype)
    return OpCost(name="GEMM", n_flops=2 * m * n * k, n_bytes=(m * k + k * n + m * n) * s, dtype=dtype,
                  note="perfect reuse")


def gemm_naive(n: int, dtype: str = "fp32") -> OpCost:
    """One thread per output, no reuse: each output reads a row of A and a column of B."""
    n, s = checked_count("n", n), dtype_bytes(dtype)
    return OpCost(name="GEMM naive", n_flops=2 * n ** 3, n_bytes=(2 * n ** 3 + n * n) * s, dtype=dtype,
                  note="2n loads per output, C written once; counted as each thread loads them, before "
                  "coalescing, the L1 and the L2 serve most of them", level="thread loads")


def gemm_tiled(n: int, tile: int, dtype: str = "fp32") -> OpCost:
    """Square GEMM with b x b output tiles and no L2 reuse (the classic tile model).

    Each tile loads b rows of A and b columns of B (n elements each), so A and B are read
    n/b times in all: 2 n^3 / b elements, plus n^2 for writing C.
    I = (b/s) / (1 + b/(2n)); for fp32, b/4 / (1 + b/(2n)).
    """
    n, b, s = checked_count("n", n), checked_count("tile", tile), dtype_bytes(dtype)
    if b > n:
        raise ValueError(f"tile: must not exceed n ({n}), got {b}")
    return OpCost(name=f"GEMM {b}x{b} tiles", n_flops=2 * n ** 3, n_bytes=(2 * n ** 3 / b + n * n) * s,
                  dtype=dtype, note="tile model: the tiles' loads as the SMs request them; HBM traffic only if the "
                  "L2 keeps nothing", level="SM requests")


def _smallest_reaching(intensity_at, ridge: float, guess: int, upper: int = 2 ** 62):
    """Smallest size k in [1, upper] with ``intensity_at(k) >= ridge``, or None.

    Bisection from the closed-form ``guess`` (``intensity_at`` never decreases with k).  Near
    an asymptote, float rounding can put the closed form far from the answer, so stepping one
    size at a time from it could run for ever.
    """
    hi = min(max(1, guess), upper)
    while intensity_at(hi) < ridge:
        if hi >= upper:
            return None
        hi = min(2 * hi, upper)
    lo = 0  # stands for "nothing smaller reaches the ridge"
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if intensity_at(mid) >= ridge:
            hi = mid
        else:
            lo = mid
    return hi


def smallest_compute_bound_gemm_n(ridge: float, dtype: str) -> int:
    """Smallest square N whose perfect-reuse GEMM reaches the ridge: 2N/(3s) >= ridge."""
    ridge = _ridge_value(ridge)
    s = dtype_bytes(dtype)
    n = math.ceil(1.5 * s * ridge)
    while gemm(n, dtype).intensity < ridge:  # guard the ceil against rounding down
        n += 1
    return max(n, 1)


def smallest_tile(ridge: float, n: int, dtype: str = "fp32") -> dict:
    """Smallest b x b tile whose GEMM intensity reaches ``ridge``, exact and as a power of two.

    From (b/s) / (1 + b/(2n)) >= ridge:  b >= ridge*s / (1 - ridge*s/(2n)).  Returns None
    entries when no tile up to n gets there.
    """
    ridge = _ridge_value(ridge)
    n, s = checked_count("n", n), dtype_bytes(dtype)
    exact = _smallest_reaching(lambda b: gemm_tiled(n, b, dtype).intensity, ridge, n, upper=n)
    pow2 = None if exact is None else 1 << (exact - 1).bit_length()
    if pow2 is not None and pow2 > n:
        pow2 = None
    return {"exact": exact, "power_of_two": pow2, "estimate": ridge * s}


# --- attention -------------------------------------------------------------------------------

def attention(s: int, d: int, fused: bool, dtype: str = "bf16", causal: bool = False,
              queries: int = None, heads_per_kv: int = 1) -> OpCost:
    """One KV head of attention with ``heads_per_kv`` query heads sharing it.

    ``s`` is the key length and ``queries`` the query length (``s`` for prefill, 1 for one
    decode step).  Each (query, key) pair costs 4d FLOPs in the two GEMMs (QK^T and PV) and
    5 in the softmax.  Causal masking keeps the pairs with key index <= query index, with the
    queries taken as the last ``queries`` positions.

    Bytes: Q and O per query head, K and V once per KV head.  Unfused attention also writes the
    query x key score matrix and reads it back, then writes the probabilities and reads them
    back: 4 accesses per element.  The unfused kernels materialize the full rectangle even when
    causal, since masking happens inside the softmax kernel.
    """
    s, d = checked_count("s", s), checked_count("d", d)
    q = s if queries is None else checked_count("queries", queries)
    if q > s:
        raise ValueError(f"queries: must not exceed s ({s}), got {q}")
    g = checked_count("heads_per_kv", heads_per_kv)
    e = dtype_bytes(dtype)
    pairs = q * s - (q * (q - 1)) // 2 if causal else q * s
    n_flops = g * pairs * (4 * d + SOFTMAX_FLOPS_PER_ELEMENT)
    n_bytes = e * (2 * g * q * d + 2 * s * d)
    if not fused:
        n_bytes += e * g * 4 * q * s
    parts = ["fused" if fused else "unfused"]
    if causal:
        parts.append("causal")
    if q == 1 and s > 1:
        parts.append("decode")
    if g > 1:
        parts.append(f"GQA {g}:1")
    return OpCost(name=f"attention ({', '.join(parts)})", n_flops=n_flops, n_bytes=n_bytes, dtype=dtype,
                  note=f"s={s}, d={d}, queries={q}")


def attention_intensity_limit(d: int, fused: bool, dtype: str = "bf16"):
    """Intensity as s grows: unfused tends to (4d+5)/(4e)... a constant; fused has no limit.

    For bf16 (e = 2) the unfused limit is (4d+5)/8, about d/2.  Returns ``math.inf`` for fused.
    """
    d = checked_count("d", d)
    if fused:
        return math.inf
    return (4 * d + SOFTMAX_FLOPS_PER_ELEMENT) / (4 * dtype_bytes(dtype))


def attention_fusion_crossover(ridge: float, d: int, dtype: str = "bf16") -> dict:
    """The sequence length where fusion changes attention's classification.

    Returns the smallest s at which fused attention reaches ``ridge``, and whether unfused
    attention ever does (its intensity is bounded by :func:`attention_intensity_limit`).
    """
    ridge = _ridge_value(ridge)
    d, e = checked_count("d", d), dtype_bytes(dtype)
    # fused: s (4d+5) / (4 e d) >= ridge
    estimate = ridge * 4 * e * d / (4 * d + SOFTMAX_FLOPS_PER_ELEMENT)
    s = _smallest_reaching(lambda k: attention(k, d, fused=True, dtype=dtype).intensity, ridge,
                           math.ceil(estimate))
    limit = attention_intensity_limit(d, fused=False, dtype=dtype)
    unfused_s = None
    if limit > ridge:
        # unfused: s (4d+5) / (4e (d + s)) >= ridge  =>  s >= ridge 4e d / ((4d+5) - 4e ridge)
        # (None when the ridge is within rounding of the limit: no sequence length gets there)
        unfused_s = _smallest_reaching(
            lambda k: attention(k, d, fused=False, dtype=dtype).intensity, ridge,
            math.ceil(ridge * 4 * e * d / ((4 * d + 5) - 4 * e * ridge)))
    return {"fused_s": s, "fused_estimate": estimate, "unfused_limit": limit,
            "unfused_s": unfused_s, "unfused_ever_compute_bound": unfused_s is not None}


# --- inference -------------------------------------------------------------------------------

def decode_matvec(rows: int, cols: int, dtype: str = "bf16") -> OpCost:
    """Batch-1 decode: y = W x with W rows x cols.  Every weight is read once for one FMA."""
    m, n, e = checked_count("rows", rows), checked_count("cols", cols), dtype_bytes(dtype)
    return OpCost(name="decode matvec", n_flops=2 * m * n, n_bytes=(m * n + n + m) * e, dtype=dtype,
                  note="each weight read once, one FMA per weight")


# --- the demonstration set -------------------------------------------------------------------

DEMO_N = 2 ** 24  # elements for the elementwise demos: large enough that one-off terms vanish


def demo_kernels() -> list:
    """The six operators notebook 02 places on a roofline, from elementwise to fused attention."""
    return [
        vector_add(DEMO_N, "fp32"),
        reduction(DEMO_N, "fp32"),
        softmax(DEMO_N, fused=True, dtype="fp32"),
        replace(attention(8192, 128, fused=False, dtype="bf16"), name="unfused attention bf16 s=8192"),
        replace(gemm(8192, "fp32"), name="GEMM fp32 N=8192"),
        replace(attention(8192, 128, fused=True, dtype="bf16"), name="fused attention bf16 s=8192"),
    ]


def operator_table(n: int = DEMO_N, gemm_n: int = 8192, s: int = 8192, d: int = 128) -> list:
    """The operator-intensity table of notebook 02 as rows, every figure computed here.

    ``level`` says which boundary each byte count is for (see :attr:`OpCost.level`)."""
    rows = [
        vector_add(n), reduction(n), softmax(n, fused=False),
        softmax(n, fused=True, row_on_chip=False), softmax(n, fused=True),
        gemm(gemm_n, "fp32"), gemm_naive(gemm_n, "fp32"),
        attention(s, d, fused=False), attention(s, d, fused=True),
        attention(s, d, fused=True, queries=1), decode_matvec(gemm_n, gemm_n, "bf16"),
    ]
    return [{"operator": r.name, "dtype": r.dtype, "n_flops": r.n_flops, "n_bytes": r.n_bytes,
             "level": r.level, "intensity": r.intensity} for r in rows]


def exp_time_over_matrix_time(d: int, machine, dtype: str = "bf16") -> float:
    """Fused attention's exp time over its matrix time, per score, on ``machine``'s datasheet.

    Each score costs 4d FLOPs on the matrix units (QK^T and PV) and one ``exp`` on the
    transcendental unit (SFU, in G results/s).  The ratio is (1 / sfu) / (4d / matrix peak),
    with the SFU rate taken at the clock the tensor figure implies
    (``machines.sfu_at_tensor_clock``): the H100's datasheet tensor figure is at 1.83 GHz, its
    derived SFU row at the 1.98 GHz boost, and mixing the two made 50% read as 46%.  Near 1 or
    above, the SFU is a second compute roof that the matrix roof alone does not show (the
    motivation of FlashAttention-3's overlap of softmax with the GEMMs).
    """
    d = checked_count("d", d)
    matrix = machine.ceiling(GEMM_CEILING[dtype]).value
    sfu = sfu_at_tensor_clock(machine)
    return (1.0 / sfu) / (4 * d / matrix)
