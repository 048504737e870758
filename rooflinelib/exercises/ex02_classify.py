"""Exercise 2: classify nine kernels against two ridge points, then five questions the model misses.

The machine has one memory roof and two compute roofs, so every kernel has two candidate
verdicts and only one of them counts: the one against the roof its instructions run on.  Row 8
is built to catch the mix-up: a bf16 GEMM at about 124 FLOP/byte is compute-bound against the
fp32 ridge of 15 and memory-bound against the bf16 matrix ridge of 300.

Part C leaves the model's comfort zone in five questions: a launch too small to reach either
roof, a kernel far below its roof, a working set that lives in L2, the launch length at which
the traffic catches up with the launch, and the counters that measure the bytes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from rooflinelib.core import operators as ops
from rooflinelib.exercises.grading import (DEFAULT_RTOL, FRACTION_ATOL, AnswerError, Check, Choices,
                                           NotAnsweredError, Table, _normalize, check_choice,
                                           check_number, check_side, read_number, report)
from rooflinelib.exercises.grading import BOTH_HINT, SIDES, without_bare_both
from rooflinelib.core.vocabulary import BF16_TENSOR
from rooflinelib.core.model import Ceiling, Machine, classify, side_of_ridge, time_bounds
from rooflinelib.lessons.pitfalls import launch_dominance_elements
from rooflinelib.core.vendors import counterpart

#: Review 19k1 K2-2: the generic factor-2 hint of grading ("one fused multiply-add is 2 FLOPs, and
#: a copy both reads and writes") named neither slip where it fired (a sum, a read-only row, a
#: fraction).  Every number of this exercise lists its own factor-2 slips where one explains the
#: miss (a multiply-add on the GEMM rows, elements for bytes, a read or write left out); a factor
#: of 2 that no listed slip explains gets this hint, which names no cause.
_TWICE_OR_HALF = "off by a factor of 2: redo the count step by step"


def _number(answer, expected, question, *, mistakes=(), **options):
    """grading.check_number with the factor-2 answers that no listed mistake explains given
    :data:`_TWICE_OR_HALF` (so grading's generic FMA-or-copy hint never fires here)."""
    mistakes = list(mistakes)
    expected = float(expected)
    rtol = options.get("rtol", DEFAULT_RTOL)
    atol = options.get("atol") or (FRACTION_ATOL if options.get("unit") == "fraction" else 0.0)

    def band(value):
        return atol + rtol * abs(value)

    for wrong in (2 * expected, expected / 2):
        # Review 19g1 K2-1: where a listed mistake's band overlaps the factor-2 slip's (C2's
        # fraction of the peak, 0.069, against half the key, 0.065, at ±0.005), an answer in both
        # would hear two diagnoses run together: the listed one is the hint.
        if not any(abs(wrong - float(w)) <= band(wrong) + band(float(w)) for w, *_ in mistakes):
            mistakes.append((wrong, _TWICE_OR_HALF))
    return check_number(answer, expected, question, mistakes=mistakes, **options)


SOURCE = "Exercise 2: a round-number GPU (3.0 TB/s, 45 TFLOP/s fp32 vector, 900 TFLOP/s bf16 matrix)"

#: The exercise GPU.  Round numbers close to a current data-centre GPU; the fp32 vector roof is
#: chosen so that its ridge is 15 FLOP/byte, which puts row 8 between the two ridges.
MACHINE = Machine(
    name="exercise GPU", kind="example", source=SOURCE, date="2026-11-30",
    ceilings=(
        Ceiling("dram", "memory", 3_000.0, SOURCE, "HBM"),
        Ceiling("fp32", "compute", 45_000.0, SOURCE, "fp32 vector"),
        Ceiling(BF16_TENSOR, "compute", 900_000.0, SOURCE, "bf16 matrix"),
    ),
)
ROOF_NAMES = {"fp32": "fp32 vector units", BF16_TENSOR: "bf16 matrix cores"}

#: The exercise GPU's exp rate on its MUFU, G results/s, given in row 9 (review 9b K2-4: "overlap"
#: needs it).  The H200's dense bf16 FLOPs per MUFU result at one clock, 4,096 / 16 = 256, give
#: 900,000 / 256 = 3,516; at 3,500 a score's exp takes 0.50 of its two GEMMs' time at d = 128.
MUFU_G_EXP_PER_S = 3_500.0

#: The instruction-mix spellings that name the exps ("polynomial exp", "fewer exps"):
#: right where the mix left is the exps (row 9), and no move on a kernel that computes none (row 7,
#: a GEMM, where the mix is right for its multiply-adds): there they hear the row's ``no_exps_hint``.
_EXP_MIX = ("fewer transcendentals", "fewer exps", "polynomial exp", "polynomial exps",
            "polynomial exp2", "polynomial exp2s")

def _with_heads(options: dict, extra: dict = None) -> dict:
    """``options`` with the head of each offered option's printed meaning (up to its first colon,
    comma or parenthesis: "overlap independent work", "HBM bandwidth") read as that option, and
    ``extra`` adding the natural short forms of a meaning by name ("smaller data type")."""
    extra = extra or {}
    return {name: (desc, tuple(synonyms) + (re.split(r"[:,(]", desc)[0].strip(),)
                   + tuple(extra.get(name, ())))
            for name, (desc, synonyms) in options.items()}


#: The types narrower than bf16 (fp8, int8, int4), and fp16 (as wide as bf16), named as moves:
#: each reads as a smaller type (fp16 is none on a bf16 row, and hears so), and on row 7 each
#: names a matrix roof this GPU does not list.
_NARROW_TYPES = {"fp8": r"\bfp[ _-]?8\b", "int8": r"\bint[ _-]?8\b", "int4": r"\bint[ _-]?4\b"}
_FP16 = r"\b(fp[ _-]?16|half)\b"
_TYPE_MOVES = tuple(f"{verb}{t}" for t in ("fp16", "int4")
                    for verb in ("", "use ", "to ", "cast to ", "quantize to ", "quantise to ",
                                 "quantize weights to ", "quantise weights to ")) + (
    "fp16 weights", "use fp16 weights", "int4 weights", "use int4 weights")

#: The packed-op spellings of the instruction mix: a lever for vector arithmetic below its peak,
#: so on a row where the mix is right for another reason (rows 7 and 9) they hear the row's
#: ``packed_ops_hint``.
_PACKED_OPS = ("packed ops", "use packed ops", "packed operations", "packed math",
               "packed instructions", "use packed instructions")
_PACKED_SPELLINGS = frozenset(_normalize(s) for s in _PACKED_OPS)

#: The first move to try, as a closed menu (a move, not always an optimization: score-bandwidth).
FIRST_STEPS = Choices(_with_heads({
    "fuse": ("fuse with its neighbours so intermediates never cross HBM",
             ("fusion", "kernel fusion", "fuse kernels", "single pass", "one pass",
              "online softmax", "fuse it", "fuse into its producer", "fuse with its producer",
              "fuse into the producer", "fuse the softmax", "fuse softmax", "fuse the passes")),
    "tile": ("tile for on-chip reuse in shared memory and registers",
             ("tiling", "tiles", "bigger tiles", "larger tiles", "shared memory", "reuse",
              "blocking", "cache blocking", "use shared memory", "shared memory tiling",
              "increase tile size", "increase the tile size", "register tiling")),
    # Review 7b K2-1: batching (more FLOPs per byte read, a higher intensity) and amortizing
    # launches (the same bytes, fewer launch costs) are two moves; a CUDA graph is the second
    # only, so it must not pass where bytes set the time (rows 6 and 8).
    "batch": ("batch more tokens or requests onto each byte read (a higher intensity)",
              ("batching", "bigger batch", "larger batch", "more tokens", "increase batch",
               "more requests", "increase batch size", "increase the batch size",
               "continuous batching")),
    "amortize-launch": ("amortize the launch: CUDA graphs, persistent kernels, fewer and larger "
                        "launches (the same bytes and FLOPs, less launch cost)",
                        ("cuda graphs", "cuda graph", "graphs", "graph", "persistent kernel",
                         "persistent kernels", "fewer launches", "more work per launch",
                         "amortize launch", "amortise launch", "amortise-launch",
                         # the entry's own words and the solution's ("one bigger launch"): a
                         # larger launch is this move, never 'batch' (which raises the intensity)
                         "fewer and larger launches", "fewer, larger launches", "larger launches",
                         "larger launch", "bigger launch", "bigger launches", "one bigger launch",
                         "one larger launch", "one launch", "launch once", "batch launches",
                         "batch the launches", "merge launches", "merge the launches")),
    "smaller-dtype": ("use a smaller data type", ("smaller dtype", "quantize", "quantization",
                                                  "fp8", "int8", "lower precision", "dtype",
                                                  # review 31k1 K2-4
                                                  "quantize weights to fp8", "quantize to fp8",
                                                  "quantize weights", "fp8 weights",
                                                  # review 41k1 K2-3: row 7's move, named by its type
                                                  "bf16", "use bf16", "to bf16", "cast to bf16",
                                                  # the 8-bit types named as moves (rows 6 and 8)
                                                  "use fp8", "use fp8 weights", "to fp8", "int8 weights",
                                                  "use int8", "use int8 weights", "quantize to int8",
                                                  "quantize weights to int8", "to int8")),
    "instruction-mix": ("improve the instruction mix: matrix cores, packed ops, fewer "
                        "transcendentals", ("matrix cores", "tensor cores", "use tensor cores",
                                            "use matrix cores", "instruction mix",
                                            # review 27k1 K2-1: TF32 spellings of the same move
                                            "tf32", "use tf32", "tf32 tensor cores",
                                            "use tf32 tensor cores", "tf32 matrix cores",
                                            # review 39k1: the bf16 route named in full
                                            "bf16 tensor cores", "bf16 matrix cores",
                                            "use bf16 tensor cores", "use bf16 matrix cores",
                                            # the menu's "fewer transcendentals", and row 9's
                                            # alternative in the key's words (_EXP_MIX_SPELLINGS;
                                            # a bare "exp2" is not one: see _EXP2_ONLY)
                                            *_EXP_MIX)),
    # Two kinds of overlap, one entry: FlashAttention-3 does both (async loads under the MMAs,
    # and the softmax's exps on the MUFU under the MMAs of another block).  The gloss sorts the
    # examples as the key reads them: prefetch and async copies name loads with math only
    # (LOAD_OVERLAP_SPELLINGS), pipelining names either (GENERIC_PIPELINING_SPELLINGS).
    "overlap": ("overlap independent work: loads with math (prefetch, async copies) or one unit's "
                "work with another's (pipelining)",
                ("pipelining", "software pipelining", "prefetch", "prefetching", "double buffering",
                 "async copies", "async copy", "warp specialization", "warp specialisation",
                 "warp specialized",
                 "ping-pong", "intra-warpgroup pipelining", "overlap the softmax", "overlap softmax with mma",
                 # row 9's move in its own words: the exps under the MMAs
                 "overlap exps with mmas", "overlap the exps with the mmas", "overlap exp with mma",
                 "overlap exps", "overlap the exps",
                 "flashattention-3", "flashattention 3", "flash attention 3", "fa3", "fa-3")),
    "score-bandwidth": ("nothing left to delete: score it as a fraction of the DRAM bandwidth "
                        "of its own access mix",
                        ("bandwidth score", "percent of copy", "copy ceiling", "read ceiling",
                         "percent of read", "own access mix",
                         # review 33k1: "nothing" alone could mean "nothing can be done"
                         "already optimal", "score bandwidth",
                         # review 9b K2-3: the menu's own words
                         "nothing left to delete", "nothing to delete")),
    "profile": ("look past the roofline first: occupancy, stall reasons, spills, tail effects",
                ("occupancy", "check occupancy", "stall reasons", "stalls", "profile it",
                 "profiler", "investigate")),
}, {"fuse": ("fuse with its neighbours", "fuse with its neighbors", "fuse with neighbours",
             "fuse with neighbors"),
    "tile": ("tile for on-chip reuse", "on-chip reuse", "tile for reuse"),
    "batch": ("batch more tokens", "batch more requests", "batch more tokens or requests"),
    "smaller-dtype": ("smaller data type", "a smaller data type", "smaller type", "use a smaller type",
                      "smaller precision", "fp16", "half", "half precision", "use half precision",
                      "int4", "quantise", "quantisation", "quantise weights", "quantise to fp8",
                      "quantise weights to fp8", "quantise to int8", *_TYPE_MOVES),
    "instruction-mix": ("improve instruction mix", "tensor core", "matrix core", "use tensor core",
                        "use matrix core", "use the tensor cores", "use the matrix cores",
                        # fp16 is no smaller type on this GPU's bf16 rows; on row 7 it hears that
                        # this GPU lists no fp16 roof
                        "fp16 tensor cores", "fp16 matrix cores", "use fp16 tensor cores",
                        "use fp16 matrix cores", *_PACKED_OPS),
    "profile": ("look past the roofline",)}))

#: Review 42k1 K2-1: the "overlap" spellings that name only loads overlapped with math.  On a
#: compute-bound row that overlap is already in the roof (and buys nothing), so where a row sets
#: ``load_overlap_hint`` these spellings get that hint instead of the pass the overlap it means earns.
#: "Warp specialization" is one of them: FlashAttention-3 names by it the split of producer warps
#: (async loads) from consumer warps (the MMAs and the softmax), which overlaps loads with math;
#: its exp/MMA overlap has names of its own (ping-pong, intra-warpgroup pipelining), which pass.
LOAD_OVERLAP_SPELLINGS = frozenset(_normalize(s) for s in (
    "prefetch", "prefetching", "double buffering", "async copies", "async copy",
    "warp specialization", "warp specialisation", "warp specialized"))

#: "Pipelining" names no one overlap: GEMM kernels pipeline loads under math, FlashAttention-3
#: pipelines the softmax's exps under the MMAs ("intra-warpgroup pipelining").  So it is not a
#: load-only spelling: where a row sets ``load_overlap_hint`` these spellings pass, with the row's
#: ``pipelining_note`` saying which pipelining helps there; elsewhere they read as 'overlap'.
GENERIC_PIPELINING_SPELLINGS = frozenset(_normalize(s) for s in ("pipelining", "software pipelining"))

#: A bare "exp2" (or "use exp2") names no lever of row 9: folding the softmax scale
#: into exp2's argument saves an FMUL, not a MUFU op (the key's own note).  It reads as no option
#: (CHECK YOUR INPUT) except on a row that sets ``exp2_hint``, where it hears that hint.
_EXP2_ONLY = frozenset(_normalize(s) for s in ("exp2", "use exp2", "exp2 instead of exp"))
_EXP_MIX_SPELLINGS = frozenset(_normalize(s) for s in _EXP_MIX)

#: What limits a kernel, including the limits the single-level roofline does not draw.
LIMITERS = Choices(_with_heads({
    "memory": ("HBM bandwidth", ("hbm", "bandwidth", "dram", "memory bandwidth")),
    "compute": ("the compute roof", ("flops", "alu", "arithmetic", "compute roof")),
    "launch": ("launch overhead: too little work to reach steady state",
               ("launch overhead", "overhead", "kernel launch", "too small", "tiny launch",
                "launch latency", "launch cost",
                # C1's table names the overhead "the host's dispatch of one launch"
                "host dispatch", "dispatch", "dispatch overhead", "host overhead",
                "python overhead", "host's dispatch", "the host's dispatch")),
    # A bare "latency" names neither this option nor "launch" (in C1 a student means the
    # launch's by it, in C2 a stall's): it is its own option below, which gets a hint.
    "unmodelled": ("something the roofline does not model: occupancy, latency, stalls",
                   ("unmodeled", "not modelled", "not modeled", "neither", "neither roof",
                    "memory latency", "latency hiding", "occupancy", "stall", "stalls",
                    "something else", "other")),
    # Review 7b K2-6: a bare "latency" gets a hint, not "unreadable": which latency? Review 36k1
    # K2-2: never the answer, only a hint's trigger, so hidden from the menu (listed beside the
    # real causes it read as one); exercise 5 reads it from these options too.
    "latency": ("latency alone: say which, the launch's or a stall's", ()),
    # Review 26k1 K2-2: the natural spellings of the L2 ("l2 cache", "the l2", "l2$") read as it.
    "cache": ("a cache level's bandwidth, such as L2", ("l2", "l2 bandwidth", "cache bandwidth",
                                                        "l1", "cache level", "l2 cache",
                                                        "l2 cache bandwidth", "l2$", "l2 cache$",
                                                        "l2 bandwidth bound", "cache",
                                                        "l2 bandwidth ceiling", "l2 ceiling")),
}, {"unmodelled": ("not modelled by the roofline", "not modeled by the roofline",
                   "something the roofline does not model"),
    "cache": ("cache level bandwidth", "cache level's bandwidth", "a cache level's bandwidth")}),
    hidden=("latency",))

#: Review 26k1 K2-1: C3's question is built to rule out the L1 (each pass runs in a different
#: block), so there an L1 answer is its own option, refused with a hint; elsewhere (C1, C2,
#: exercise 5) LIMITERS is unchanged.
_C3_L1_SPELLINGS = ("l1", "l1 cache", "l1 bandwidth", "l1 cache bandwidth", "l1$", "lds",
                    "shared memory", "shared memory bandwidth", "smem")
C3_LIMITERS = Choices({
    **{name: (desc, tuple(s for s in synonyms if s not in _C3_L1_SPELLINGS))
       for name, (desc, synonyms) in LIMITERS.options.items()},
    "l1": ("the L1 / shared memory bandwidth", tuple(s for s in _C3_L1_SPELLINGS if s != "l1")),
}, hidden=("latency", "l1"))
_C3_L1_HINT = ("not the L1: each pass is run by a different block, so the re-reads cannot come "
               "from one SM's L1. Which level serves them, and which ceiling does the profiler "
               "put that level near?")

_WHICH_LATENCY = "latency of what: the launch, or a stall inside the kernel? Name that option"
_MEMORY_LEVER_ON_COMPUTE = ("it is compute-bound: fewer bytes, or more FLOPs per byte, buy no "
                            "time. Which lever makes the arithmetic itself faster?")
_COMPUTE_LEVER_ON_MEMORY = ("faster arithmetic does not help a kernel that waits on bytes: "
                            "which lever moves fewer of them?")
#: One rule for a smaller data type as the first move, on every row and stated in every ruling:
#: it is a first move where the kernel is memory-bound and its bytes scale with the element size
#: (halving the element halves the bytes and the time).  It is not the first move where the
#: intensity is set by missing reuse (a GEMM that re-reads its inputs: tile first), nor where
#: the kernel is compute-bound or bound by a launch or a stall (fewer bytes buy no time there).
SMALLER_TYPE_RULE = ("a smaller type is a first move where the kernel is memory-bound and its bytes "
                     "scale with the element size")
#: A memory-bound row whose bytes scale with the element size: right, but it changes the result,
#: which fusion and batching do not; the pass says so.
_SMALLER_TYPE_ON_MEMORY = ("correct, if the accuracy allows: " + SMALLER_TYPE_RULE + ", as here: "
                           "fewer bytes per element cut its time in proportion; ")
#: A compute-bound row: fewer bytes buy no time.  A smaller type can still pay there, but only by
#: moving the arithmetic onto faster units, and that is another lever of the menu.
_SMALLER_TYPE_ON_COMPUTE = ("not as the first move: " + SMALLER_TYPE_RULE + ". This kernel is "
                            "compute-bound, so fewer bytes buy no time; a smaller type pays here "
                            "only through the faster units that would run it, and it changes the "
                            "result. ")
#: Review 10b K2-C1: rows 1-3 do a fixed count of operations per element read, so the menu's
#: batch (more FLOPs per byte read) has nothing to work on, as C1 already says of the add.
_BATCH_ON_ELEMENTWISE = ("batching, as the menu means it, puts more FLOPs on each byte read, and "
                         "this kernel's intensity, a fixed count of operations per element it "
                         "reads, cannot rise")
#: Review 12b K2-1: rows 6 and 8 move each byte once too, but unlike rows 1-2 their intensity
#: can rise (more tokens per weight read), so scoring them as done is refused with that reason.
_SCORE_BEFORE_BATCH = ("true of this kernel as given: it already reads each weight once. But unlike "
                       "the add or the sum, its intensity is not fixed: what makes one weight read "
                       "serve more work?")
#: Rows 3-5 do not move each byte once yet, so there is still something to delete.
_SCORE_WITH_BYTES_TO_DELETE = ("there is still something to delete: this kernel moves its data through "
                               "HBM more than once. Which lever removes the extra trips?")
#: On rows 4-5 a smaller type is refused as the first move: the intensity is set by missing
#: reuse, so it cuts the bytes 2x (bf16) or 4x (8-bit), while tiling deletes the N-fold
#: (N/b-fold) re-reads, tens to hundreds of times more.
_SMALLER_TYPE_BEFORE_REUSE = ("not as the first move: " + SMALLER_TYPE_RULE + ", and here missing "
                              "reuse sets the bytes ({still}): bf16 halves the bytes, an 8-bit type "
                              "quarters them. "
                              "What deletes those re-reads?")
#: Rows 4-5: a square GEMM has no batch to grow; its bytes are set by its own re-reads.
_BATCH_ON_GEMM = ("this GEMM has no batch to grow: its bytes are set by how often it re-reads A and "
                  "B. What decides that?")
#: Review 15b, 1: row 4 with a warp's loads of A shared (coalescing): about twice its key.
WARP_SIZE = 32
_WARP_SHARES_A = ("that lets a warp share its loads of A (coalescing); this "
                  "row counts every thread's loads as HBM traffic, as its statement says")
#: Review 26k1 K2-3: exactly twice the key is the likelier slip of loading one operand only.
#: (A count whose warp shares its loads of A lands there too: review 15b's hint stays, second.)
_ONE_OPERAND = ("that counts one operand's loads only, and each output's thread "
                "loads a row of A and a column of B; or it lets a warp share its loads of A "
                "(coalescing), and this row counts every thread's loads as HBM traffic, as its "
                "statement says")
#: A graph or a persistent kernel removes launch cost, not bytes or FLOPs (review 7b K2-1).
_LAUNCH_LEVER_ON_ROOF = ("a graph or a persistent kernel removes launch cost, not bytes or FLOPs: "
                         "this kernel's time is set by its roof, not by its launches")
_DEFAULT_STEP_HINTS = {
    "memory": {"amortize-launch": _LAUNCH_LEVER_ON_ROOF,
               "instruction-mix": _COMPUTE_LEVER_ON_MEMORY,
               "overlap": "overlapping loads with math pays at the ridge; this kernel is far "
                          "left of it",
               "profile": "nothing says this kernel is far below its roof; assume it is on it"},
    # A smaller type on a compute-bound row: refused as the first move, by the one rule (the
    # rows add what it could buy through faster units).
    "compute": {"smaller-dtype": _SMALLER_TYPE_ON_COMPUTE + "Which lever makes the arithmetic "
                                                            "itself faster?",
                "amortize-launch": _LAUNCH_LEVER_ON_ROOF,
                "fuse": _MEMORY_LEVER_ON_COMPUTE, "tile": _MEMORY_LEVER_ON_COMPUTE,
                "batch": _MEMORY_LEVER_ON_COMPUTE, "score-bandwidth": _MEMORY_LEVER_ON_COMPUTE,
                "overlap": "overlapping loads with math pays at the ridge; this kernel is far "
                           "right of it",
                "profile": "nothing says this kernel is far below its roof; assume it is on it"},
}


@dataclass(frozen=True)
class Row:
    """One kernel of Part B: what the student is given, and what the key accepts."""

    number: int
    op: object  # an OpCost
    description: str
    size: str
    roof: str  # the compute ceiling its instructions run on
    first_steps: frozenset
    step_hints: dict = field(default_factory=dict)
    intensity_mistakes: tuple = ()
    verdict_hint: str = ""
    runs_on: str = ""  # the table's "runs on", when the roof's own name is not where it runs
    step_notes: dict = field(default_factory=dict)  # what a right first step's pass says
    #: True where the intensity is set by missing reuse (a GEMM that re-reads its inputs), so
    #: the first move is to capture that reuse, not to shrink the element (SMALLER_TYPE_RULE).
    missing_reuse: bool = False
    #: Review 16b (exercise 2): on a row that already runs on the matrix cores, "use the tensor
    #: (matrix) cores" names where it runs, not a move; such an answer gets this hint.
    on_matrix_cores_hint: str = ""
    #: Review 27k1 K2-1: a compute-bound row on the fp32 vector units of a GPU whose only matrix
    #: roof is bf16 (no TF32 roof): the one route onto the matrix cores is a smaller type, so
    #: "smaller-dtype" names the same move as "instruction-mix" there and passes.
    dtype_is_matrix_route: bool = False
    #: What a load-only overlap spelling (LOAD_OVERLAP_SPELLINGS) hears on a row where "overlap"
    #: is right for another overlap (row 9: the exps under the MMAs); empty where it passes.
    load_overlap_hint: str = ""
    #: What a generic pipelining spelling (GENERIC_PIPELINING_SPELLINGS) hears as its pass on a row
    #: that sets ``load_overlap_hint`` (FlashAttention-3's exp/MMA overlap is pipelining).
    pipelining_note: str = ""
    #: What a bare "exp2" (_EXP2_ONLY) hears on a row where the mix of its exps is a right move.
    exp2_hint: str = ""
    #: What an exp spelling of the mix (_EXP_MIX_SPELLINGS) hears on a row whose mix is a right
    #: move but which computes no exps (row 7).
    no_exps_hint: str = ""
    #: What a packed-op spelling of the mix (_PACKED_SPELLINGS) hears on a row whose mix is a right
    #: move for another reason (row 7: the matrix cores; row 9: the exps).
    packed_ops_hint: str = ""

    @property
    def runs_on_name(self) -> str:
        return self.runs_on or ROOF_NAMES[self.roof]

    @property
    def intensity(self) -> float:
        return self.op.intensity

    @property
    def ridge(self) -> float:
        return MACHINE.ridge(self.roof, "dram")

    @property
    def verdict(self) -> str:
        return classify(self.intensity, MACHINE.ceiling(self.roof).value,
                        MACHINE.ceiling("dram").value).side


def _rows() -> tuple:
    n = 2 ** 24
    fp32, bf16 = ops.dtype_bytes("fp32"), ops.dtype_bytes("bf16")
    square, tokens, hidden = 4096, 128, 8192
    add = ops.vector_add(n)
    red = ops.reduction(n)
    soft = ops.softmax(n, fused=False)
    naive = ops.gemm_naive(square)
    tiled = ops.gemm_tiled(square, 16)
    decode = ops.decode_matvec(hidden, hidden, "bf16")
    gemm = ops.gemm(square, "fp32")
    projection = ops.gemm(hidden, "bf16", m=tokens, k=hidden)
    flash = ops.attention(8192, 128, fused=True, dtype="bf16")
    fma_is_two = "one fused multiply-add counts as 2 FLOPs"
    matrix_over_vector = MACHINE.ceiling(BF16_TENSOR).value / MACHINE.ceiling("fp32").value
    bytes_not_elements = "you divided by elements, not bytes: check the element size"
    return (
        # Two first steps are right, as for row 2: on its own the add already moves each byte
        # once (score its bandwidth: two reads and a write lie between the read and copy roofs,
        # notebook 03, so the copy ceiling gives an upper estimate, review 13b K2-2); in a
        # pipeline, fusing it with the kernel that reads C deletes C's round trip through HBM.
        # A smaller type passes with a note, as on rows 6 and 8 (review 6b, K2-1): memory-bound,
        # so halving the bytes halves the time; it changes the result, which fusion does not.
        Row(1, add, "vector add C = A + B", "n = 2^24 fp32 elements", "fp32",
            frozenset({"fuse", "score-bandwidth", "smaller-dtype"}),
            # review 53k1 K2-7: row 2's tiling hint, true of the add too
            {"tile": "there is no reuse to capture: each element is used exactly once",
             "batch": _BATCH_ON_ELEMENTWISE},
            ((n / (n * fp32), "you counted one array's bytes: C = A + B reads A, reads B and "
                              "writes C"),
             (n / (2 * n * fp32), "you counted the two reads but not the write of C"),
             (2 * n / add.n_bytes, "an add is 1 FLOP; only a fused multiply-add counts as 2"),
             (add.intensity * fp32, bytes_not_elements)),
            step_notes={"smaller-dtype": _SMALLER_TYPE_ON_MEMORY + "fusion keeps fp32 exact and is "
                                         "the first to try"}),
        # Two first steps are right, as for row 1: on its own the sum already reads each byte
        # once (score it against the read ceiling: it only reads, and the H200's copy mix is 5%
        # below its read, so the copy would flatter it); in a pipeline, fusing it into the kernel
        # that produces A deletes A's round trip through HBM.
        Row(2, red, "sum reduction s = sum(A)", "n = 2^24 fp32 elements", "fp32",
            frozenset({"score-bandwidth", "fuse", "smaller-dtype"}),
            {"tile": "there is no reuse to capture: each element is used exactly once",
             "batch": _BATCH_ON_ELEMENTWISE},
            ((n / (2 * n * fp32), "a reduction writes one scalar, not one value per element"),
             (n / (3 * n * fp32), "a reduction reads one array and writes one scalar"),
             (2 * red.intensity, "recount: a sum does one add per element, 1 FLOP, and reads each "
                                 "4-byte element once"),
             (red.intensity * fp32, bytes_not_elements)),
            step_notes={"smaller-dtype": _SMALLER_TYPE_ON_MEMORY + "on its own it already reads "
                                         "each byte once, so score its bandwidth first, or fuse "
                                         "it into its producer, which keeps fp32 exact"}),
        Row(3, soft, "safe softmax in three passes: max; exp(x - max) written back, with its sum; "
                     "normalize that buffer",
            "n = 2^24 fp32 elements", "fp32", frozenset({"fuse", "smaller-dtype"}),
            {"batch": _BATCH_ON_ELEMENTWISE, "score-bandwidth": _SCORE_WITH_BYTES_TO_DELETE,
             "tile": f"the row is {n * fp32 // 2 ** 20} MiB: it does not fit on chip, so tiles cannot "
                     "hold it between the passes. Which lever removes the round trips between them?"},
            ((ops.softmax(n, fused=True).intensity, "that is the single-pass count; the "
                                                    "three-pass version reads the row in every "
                                                    "pass and writes it in two of them"),
             (soft.n_flops / (3 * n * fp32), "you counted the three reads but not the two writes"),
             (soft.n_flops / (4 * n * fp32), "you counted 4 accesses of the row; this one makes "
                                             "5: pass 1 reads it, pass 2 reads it and writes "
                                             "exp(x - max), pass 3 reads that buffer and writes "
                                             "the result"),
             (n / soft.n_bytes, "safe softmax costs 5 FLOPs per element: max, subtract, exp, "
                                "sum, divide"),
             (soft.intensity * fp32, bytes_not_elements)),
            # Review 40k1 K2-1: this 64 MiB row does not fit on chip, so fusion (an online
            # normalizer, two streams of the row) leaves 3 of the 5 accesses, as the model answer
            # says; 2 of them only when the row fits on chip.
            step_notes={"smaller-dtype": _SMALLER_TYPE_ON_MEMORY + "but the five HBM accesses of "
                                         "the row (three reads, two writes) stay; fusion removes "
                                         "two of them (three if the row fits on chip) and keeps "
                                         "fp32 exact, so it is the first to try"}),
        # Review 15b, 1: the thread-load count is not what HBM sees (a warp shares its loads of A),
        # so the row says to count every thread's loads as HBM traffic; a count that lets the warp
        # share them, about twice the key, hears that.
        Row(4, naive, "GEMM, one thread per output: count every thread's loads as HBM traffic "
                      "(no coalescing, no cache)",
            "N = 4096 fp32", "fp32",
            frozenset({"tile"}),
            {"fuse": "there is nothing to fuse with: the waste is inside this kernel, which "
                     "re-reads its inputs over and over",
             "score-bandwidth": _SCORE_WITH_BYTES_TO_DELETE,
             "batch": _BATCH_ON_GEMM,
             "smaller-dtype": _SMALLER_TYPE_BEFORE_REUSE.format(
                 still="every element is still read N times")},
            ((ops.gemm(square, "fp32").intensity, "that assumes perfect reuse; one thread per "
                                                  "output re-reads a row of A and a column of B "
                                                  "for every output"),
             (naive.intensity / 2, fma_is_two),
             (naive.intensity * fp32, bytes_not_elements),
             (2 * naive.intensity, _ONE_OPERAND),
             (naive.n_flops / ((square ** 3 * (1 + 1 / WARP_SIZE) + square ** 2) * fp32),
              _WARP_SHARES_A)),
            missing_reuse=True),
        Row(5, tiled, "GEMM with 16 x 16 output tiles, no L2 reuse", "N = 4096 fp32", "fp32",
            frozenset({"tile"}),
            {"fuse": "there is nothing to fuse with: what decides how often A and B are re-read?",
             "score-bandwidth": _SCORE_WITH_BYTES_TO_DELETE,
             "batch": _BATCH_ON_GEMM,
             "smaller-dtype": _SMALLER_TYPE_BEFORE_REUSE.format(
                 still="each element of A and B is still read N/b times")},
            ((ops.gemm(square, "fp32").intensity, "that assumes perfect reuse; with b x b tiles "
                                                  "A and B are each read N/b times"),
             (tiled.intensity / 2, fma_is_two),
             (tiled.intensity * fp32, bytes_not_elements),
             # Review 19k1 K2-2: one input's re-reads counted, about twice the key
             (tiled.n_flops / ((square ** 3 / 16 + 2 * square ** 2) * fp32),
              "you counted the re-reads of one input only: with b x b tiles, A and B are each read "
              "N/b times")),
            missing_reuse=True),
        # A batch-1 GEMV has one column to multiply: it cannot fill a matrix-core tile, so it
        # runs as bf16 loads and fp32 multiply-adds on the CUDA cores (the fp32 vector roof).
        # Memory-bound against either ridge; the verdict is the same.
        Row(6, decode, "decode step y = W x (batch 1)", "W is 8192 x 8192 bf16", "fp32",
            frozenset({"batch", "smaller-dtype"}),
            {"fuse": "the weights must be read whatever you fuse: what makes one weight read "
                     "serve more than one multiply-add?",
             "tile": "with a single input vector there is nothing to reuse a weight for",
             "score-bandwidth": _SCORE_BEFORE_BATCH},
            ((decode.intensity / 2, "one multiply-add per weight is 2 FLOPs, and a bf16 weight "
                                    "is 2 bytes: check both"),
             (decode.intensity * bf16, bytes_not_elements)),
            runs_on="CUDA cores (fp32 vector units)",
            step_notes={"smaller-dtype": _SMALLER_TYPE_ON_MEMORY + "8-bit weights (fp8 or int8) "
                                         "halve the bytes it reads; batching keeps the weights "
                                         "exact"}),
        # Review 40k1 K2-2: the row says C = AB, so the count that also reads C (beta != 0) is
        # refused by what the student was shown, not by an unstated convention.
        Row(7, gemm, "GEMM C = AB, library kernel with full reuse", "N = 4096 fp32", "fp32",
            frozenset({"instruction-mix", "smaller-dtype"}), {},
            ((gemm.intensity / 2, fma_is_two),
             (gemm.n_flops / (2 * square * square * fp32), "you left out writing C: A, B and C "
                                                            "each cross HBM once"),
             (gemm.intensity * fp32, bytes_not_elements),
             # Review 19k1 (noted): C read as well as written, as for C = alpha AB + beta C
             (gemm.n_flops / (4 * square * square * fp32), "that reads C as well as writing it "
                                                          "(C = alpha AB + beta C); this GEMM computes "
                                                          "C = AB, so C is only written")),
            step_notes={"smaller-dtype": "correct on this GPU: the general rule is that "
                                         + SMALLER_TYPE_RULE + ", and this kernel is compute-bound, "
                                         "but this GPU's only matrix roof is bf16 (it has no TF32 "
                                         "roof), so the route onto the matrix cores, whose roof is "
                                         f"{matrix_over_vector:g} times the fp32 vector roof, is bf16: "
                                         "it pays through the faster units, not through fewer bytes, "
                                         "and it changes the result (the same move as "
                                         "'instruction-mix' here)",
                        "instruction-mix": "correct: move it onto the matrix cores, which on this GPU "
                                           "means bf16 (the only matrix roof listed; no TF32 roof), "
                                           "if the precision allows"},
            dtype_is_matrix_route=True,
            no_exps_hint="a GEMM computes no exps (no transcendentals at all): its mix is "
                         "multiply-adds. Which faster units could run them?",
            packed_ops_hint="packed ops help vector arithmetic reach its peak, and the fp32 vector "
                            "roof is that peak: this library GEMM is taken to run at it already, so "
                            "packing cannot raise it. Which faster units could run its multiply-adds?"),
        Row(8, projection, "projection GEMM at batch 128 (tokens x hidden x hidden)",
            "128 x 8192 by 8192 x 8192, bf16", BF16_TENSOR, frozenset({"batch", "smaller-dtype"}),
            # Memory-bound, so time follows bytes wherever the ridge sits: fp8 weights cut the
            # bytes by 48% (only the weights shrink; I about 241, still left of the fp8 ridge),
            # and the time with them.
            # Review 31k1 K2-2: the row's own on-matrix-cores wording, true after a right verdict
            {"instruction-mix": "against the matrix roof it is memory-bound: faster arithmetic buys "
                                "no time. What raises the FLOPs per weight byte?",
             # Review 11b K2-2: row 6's question, in this row's words
             "fuse": "the weights must be read whatever you fuse: what makes one weight read "
                     "serve more tokens?",
             "score-bandwidth": _SCORE_BEFORE_BATCH,
             "tile": "this byte count already assumes perfect tiling (each matrix crosses HBM once); "
                     "what else raises the FLOPs per weight byte?",
             # Review 19g1 K2-2: row 8 is not far left of its ridge (124 of 300); the reason is
             # the roof's own assumption
             "overlap": "the roof already assumes loads and math overlap; what raises the FLOPs "
                        "per weight byte?"},
            ((ops.gemm(hidden, "bf16").intensity, "this GEMM is not square: only 128 tokens "
                                                  "share each weight"),
             (projection.n_flops / (hidden * hidden * bf16), "close, but you counted only the "
                                                             "weights: the activations read and "
                                                             "the outputs written cross HBM too"),
             (projection.intensity / 2, fma_is_two),
             (projection.intensity * bf16, bytes_not_elements)),
            verdict_hint="that is its verdict against the fp32 vector roof, but a bf16 GEMM runs "
                         "on the matrix cores: classify it against that roof's ridge",
            # Review 36k1 K2-3: only the weights shrink (97% of the bytes), so not "halve";
            # review 46k1 K2-2: the note names both 8-bit types, as the key accepts both
            step_notes={"smaller-dtype": _SMALLER_TYPE_ON_MEMORY + "8-bit weights (fp8 or int8) "
                                         f"cut the bytes it moves by {hidden * hidden * bf16 / 2 / projection.n_bytes:.0%} "
                                         "(only the weights shrink); batching keeps the weights exact"},
            on_matrix_cores_hint="a bf16 GEMM already runs on the matrix cores, and against their "
                                 "ridge it is memory-bound: faster arithmetic buys no time. What "
                                 "makes one weight read serve more work, or moves fewer bytes?"),
        # Review 10b K2-1: the description says the exps run after the MMAs, so "close to its
        # roof" means as close as that schedule allows (at most 1 / 1.5 of the matrix roof), and
        # overlap follows from what the row states.
        # Review 12b CK2-1: the MUFU rate and the schedule are the table's note (ROW_9_NOTE)
        Row(9, flash, "fused attention (its schedule: see the note under the table)",
            "s = 8192, d = 128, bf16",
            # Either lever for the exps, which at d = 128 take half the score's matrix time here
            # (one exp at 3,500 G exp/s against 512 FLOPs at 900 TFLOP/s) as on Hopper:
            # running them under the MMAs (overlap; the same instructions on another schedule, as
            # FlashAttention-3 does), or fewer MUFU ops (the mix: some exp2s as polynomial FMAs on
            # the fp32 units; folding the scale into exp2's argument saves an FMUL, not a MUFU op).
            BF16_TENSOR, frozenset({"instruction-mix", "overlap"}),
            # Review 10b K2-2: this GPU gives no fp8 roof, and the exps do not speed up with
            # the dtype: at twice the matrix rate the MMAs take as long as the exps, so run after
            # them the gain is 1.5 / 1.0 = 1.5x; the 2x needs the exps overlapped.
            {"fuse": "it is already fused, and it is compute-bound: bytes are not its limit",
             # Review 19k1 K2-4: the note's schedule (exps after the MMAs) is the known gap
             "profile": "nothing says this kernel is far below what its schedule allows: assume it "
                        "runs as close to its roof as the note's schedule lets it",
             # Review 31k1 (clarity): one sentence of diagnosis, one question
             "smaller-dtype": "not as the first move: " + SMALLER_TYPE_RULE + "; this kernel is "
                              "compute-bound, and this GPU lists no fp8 roof, so a smaller type "
                              "has no faster units to reach (even with one, only the MMAs would "
                              "speed up, not the exps). What else holds this kernel back?"},
            ((ops.attention(8192, 128, fused=False).intensity, "that is the unfused count: fused "
                                                               "attention never writes the score "
                                                               "matrix to HBM"),
             # Review 19k1 K2-2: the elements slip, and the two slips that halve the key
             (flash.intensity * bf16, bytes_not_elements),
             (flash.intensity / 2, "each multiply-add (in Q K^T and in P V) is 2 "
                                   "FLOPs, and a bf16 element is 2 bytes, not 4: check both")),
            # Review 16b (exercise 2): the mix that is left is the exps, not the MMAs
            step_notes={"instruction-mix": "correct: its MMAs already run on the matrix cores; what "
                                           "is left in its mix is the exps on the MUFU. Fewer MUFU "
                                           "exps, some computed as polynomials on the FMA units, "
                                           "shorten the exp phase"},
            on_matrix_cores_hint="it already runs on the matrix cores (the table says so): what in "
                                 "its instruction mix is left? The exps, one per score, on the MUFU: "
                                 "which lever shortens their time?",
            # Review 42k1 K2-1: at I of about 4,000 the roof already assumes loads and math
            # overlap (row 8's hint); the overlap that helps is the exps under the MMAs
            load_overlap_hint="at this intensity the loads already hide under the math (the roof "
                              "assumes loads and math overlap): the overlap that helps here runs "
                              "the exps on the MUFU under the matrix multiplies (MMAs) of another "
                              "block",
            # FlashAttention-3 calls its exp/MMA overlap pipelining, so the
            # word passes; the note says which pipelining helps
            pipelining_note="correct, if the pipelining puts the exps on the MUFU under the matrix "
                            "multiplies (MMAs) of another block, not the loads: at this intensity "
                            "the loads already hide under the math",
            exp2_hint="exp2 alone saves an FMUL (the softmax scale folded into its argument), not "
                      "a MUFU op: one exp per score stays. Which lever shortens the exps' time?",
            packed_ops_hint="packed ops speed up arithmetic on the vector units, but what is left in "
                            "this kernel's mix is the exps, one per score, on the MUFU at the note's "
                            f"{MUFU_G_EXP_PER_S:,.0f} G exp/s: which lever makes fewer of them, or "
                            "hides their time?"),
    )


def smaller_type_is_a_first_move(row: Row) -> bool:
    """SMALLER_TYPE_RULE for one row: memory-bound, with bytes that scale with the element size
    (not set by missing reuse)."""
    return row.verdict == "memory" and not row.missing_reuse


def _apply_smaller_type_rule(rows: tuple) -> tuple:
    """Refuse to build a key whose rows break SMALLER_TYPE_RULE, and check that every ruling
    (a pass note or a refusal) states it."""
    for row in rows:
        accepted = "smaller-dtype" in row.first_steps
        if accepted != (smaller_type_is_a_first_move(row) or row.dtype_is_matrix_route):
            raise ValueError(f"row {row.number}: a smaller type is {'accepted' if accepted else 'refused'}, "
                             f"against SMALLER_TYPE_RULE")
        ruling = (row.step_notes if accepted else
                  {**_DEFAULT_STEP_HINTS.get(row.verdict, {}), **row.step_hints}).get("smaller-dtype", "")
        if SMALLER_TYPE_RULE not in ruling:
            raise ValueError(f"row {row.number}: the smaller-type ruling does not state the rule")
    return rows


def _require_matrix_core_hints(rows: tuple) -> tuple:
    """Every row that already runs on the matrix cores says so to "use the tensor cores"."""
    for row in rows:
        if (row.roof == BF16_TENSOR) != bool(row.on_matrix_cores_hint):
            raise ValueError(f"row {row.number}: a matrix-core hint belongs exactly to the rows on "
                             "the matrix cores")
    return rows


def _require_overlap_notes(rows: tuple) -> tuple:
    """A row that refuses load-only overlap accepts 'overlap' and says which pipelining passes;
    a row with an exp2 hint accepts the instruction mix its exps are part of."""
    for row in rows:
        if bool(row.load_overlap_hint) != bool(row.pipelining_note) or (
                row.load_overlap_hint and "overlap" not in row.first_steps):
            raise ValueError(f"row {row.number}: a load-overlap hint needs 'overlap' accepted and a "
                             "pipelining note")
        if row.exp2_hint and "instruction-mix" not in row.first_steps:
            raise ValueError(f"row {row.number}: an exp2 hint belongs to a row whose mix is a right move")
        # where the mix passes, an exp spelling of it passes only if the kernel's mix has exps
        if ("instruction-mix" in row.first_steps) != bool(row.packed_ops_hint):
            raise ValueError(f"row {row.number}: a row whose mix is a right move says what packed ops "
                             "do there (packed_ops_hint), and only such a row")
        if "instruction-mix" in row.first_steps and bool(row.exp2_hint) == bool(row.no_exps_hint):
            raise ValueError(f"row {row.number}: a row whose mix is a right move says whether its "
                             "exps are that mix (exp2_hint) or it has none (no_exps_hint)")
    return rows


ROWS = _require_overlap_notes(_require_matrix_core_hints(_apply_smaller_type_rule(_rows())))


def names_matrix_cores(answer) -> bool:
    """True where a first-move answer names the tensor (matrix) cores, as "use tensor cores" does."""
    return isinstance(answer, str) and re.search(r"\b(tensor|matrix)[ _-]?cores?\b", answer.lower()) is not None


def _row(number) -> Row:
    for row in ROWS:
        if row.number == number:
            return row
    raise ValueError(f"row: must be 1 to {len(ROWS)}, got {number!r}")


#: Row 9's schedule, under the table: in the row it made the table too wide to read.
#: Its byte count is the key's (8sd: Q, K, V and O once each), so the re-reads of K and V by each
#: query block are counted as L2 hits, and the note says so.
ROW_9_NOTE = (f"Row 9: the score matrix stays on chip, and Q, K, V and O each cross HBM once (count the "
              f"blocks' re-reads of K and V as L2 hits); its exps run on the MUFU, {MUFU_G_EXP_PER_S:,.0f} "
              "G exp/s, after each block's MMAs (matrix multiply-accumulates on the tensor cores), "
              "not beside them.")


def problem_table() -> Table:
    """Part B's given data: the nine kernels, their sizes and the roof they run on."""
    return Table(("row", "kernel", "size", "runs on"),
                 tuple((r.number, r.description, r.size, r.runs_on_name) for r in ROWS),
                 title=f"{MACHINE.name}: HBM {MACHINE.ceiling('dram').value / 1000:g} TB/s, "
                       f"fp32 vector {MACHINE.ceiling('fp32').value / 1000:g} TFLOP/s, "
                       f"bf16 matrix {MACHINE.ceiling(BF16_TENSOR).value / 1000:g} TFLOP/s",
                 note=ROW_9_NOTE)


def machine_table() -> Table:
    return Table(("ceiling", "kind", "value"),
                 tuple((c.title, c.kind, f"{c.value:,.0f} {c.unit}") for c in MACHINE.ceilings),
                 title=MACHINE.name)


# --- Part A: the two ridges -------------------------------------------------------------------

#: Review 19k1 K2-3: the inverted ridge, as exercise 1 hints it.
_INVERTED_RIDGE = "that is B / P, bytes per FLOP: the ridge is the compute roof over the bandwidth"


_RIDGE_TWICE_OR_HALF = ("off by a factor of 2: the ridge is P / B, from the table's two numbers; "
                        "nothing is counted")


#: The bandwidth converted with 2^40 bytes to the TB (4.8 TB/s read as 4.8 TiB/s, or the reverse).
_RIDGE_IN_TIB = ("off by about 9%: binary (TiB, 2^40 bytes) and decimal (TB, 10^12 bytes) prefixes "
                 "mixed up? This course uses decimal TB")


#: The bandwidth converted with 2^30 bytes to the GB (3,000 GB/s read as GiB/s, or the reverse):
#: matched within 0.3%, as grading matches its own prefix slips, so it never overlaps the TiB band.
_GIB_TO_GB = 2 ** 30 / 1e9
_TIB_TO_TB = 2 ** 40 / 1e12
_RIDGE_IN_GIB = ("off by about 7%: binary (GiB, 2^30 bytes) and decimal (GB, 10^9 bytes) prefixes "
                 "mixed up? This course uses decimal GB and TB")
_PREFIX_RTOL = 0.003


def _bandwidth_prefix_slips(key: float) -> list:
    """The answers a bandwidth read with a binary prefix gives (GiB/s or TiB/s for GB/s or TB/s,
    either way), each with its hint and grading's tight prefix tolerance."""
    return [(key * f, hint, _PREFIX_RTOL)
            for ratio, hint in ((_GIB_TO_GB, _RIDGE_IN_GIB), (_TIB_TO_TB, _RIDGE_IN_TIB))
            for f in (ratio, 1 / ratio)]


#: The two ridges swapped: each is the other roof's.
_RIDGE_SWAPPED = "that is the ridge of the other compute roof: swapped?"


def check_ridges(ridge_fp32, ridge_bf16):
    return report(
        "Part A: the ridge points",
        # Review 19g1 K2-6: a ridge is given, not counted: its factor-2 hint says so (not
        # "redo the count"); grading's unit-prefix hints (1,000x) still apply
        *[check_number(answer, key, question, unit="FLOP/byte",
                       mistakes=[(1 / key, _INVERTED_RIDGE), (2 * key, _RIDGE_TWICE_OR_HALF),
                                 (other, _RIDGE_SWAPPED),
                                 (key / 2, _RIDGE_TWICE_OR_HALF),
                                 (key * 1e12 / 2 ** 40, _RIDGE_IN_TIB), (key * 2 ** 40 / 1e12, _RIDGE_IN_TIB),
                                 *[(key * f, _RIDGE_IN_GIB, _PREFIX_RTOL) for f in (_GIB_TO_GB, 1 / _GIB_TO_GB)]])
          for answer, key, other, question in (
              (ridge_fp32, MACHINE.ridge("fp32"), MACHINE.ridge(BF16_TENSOR), "ridge of the fp32 vector roof"),
              (ridge_bf16, MACHINE.ridge(BF16_TENSOR), MACHINE.ridge("fp32"), "ridge of the bf16 matrix roof"))],
    )


# --- Part B: the nine rows --------------------------------------------------------------------

#: The sides of a row: "both" alone names no side, and hears so (not the ridge band's hint).
#: "IO-bound" (bound by the input/output traffic to HBM) reads as memory.
_IO_BOUND = ("io bound", "i/o bound")
_ROW_SIDES = Choices({name: (desc, synonyms + (_IO_BOUND if name == "memory" else ()))
                      for name, (desc, synonyms) in without_bare_both(SIDES.options).items()},
                     hidden=("both",), what=SIDES.what)


def check_row(number, intensity, vs_fp32, vs_bf16, verdict, first_step):
    """Check one row: intensity, the side of each ridge, the verdict that counts, the first step."""
    row = _row(number)
    verdict_hints = _verdict_hints(row)
    step_hints = {**_DEFAULT_STEP_HINTS.get(row.verdict, {}), **row.step_hints}
    intensity_check = _number(intensity, row.intensity, "intensity", unit="FLOP/byte",
                                   mistakes=row.intensity_mistakes)
    ridges = ((vs_fp32, MACHINE.ridge("fp32"), "side of the fp32 ridge"),
              (vs_bf16, MACHINE.ridge(BF16_TENSOR), "side of the bf16 ridge"),
              (verdict, row.ridge, "verdict on the roof it runs on"))
    # The sides are always graded against the kernel's right intensity: a PASS means the side
    # is right for this kernel, never only for a wrong number above it.
    sides = [check_side(answer, row.intensity, ridge, question, choices=_ROW_SIDES,
                        hints={**(verdict_hints if question.startswith("verdict") else {}), "both": BOTH_HINT})
             for answer, ridge, question in ridges]
    carried = _carried_intensity(intensity, intensity_check)
    if carried is not None:
        # Error carried forward: a side also compared with the student's own (wrong) intensity,
        # so the message says whether their comparison was consistent; its hints are true of
        # the number they compared (a row's key-specific verdict hint is not).
        generic = {side: f"this kernel runs on the {row.runs_on_name}: classify it against that "
                         f"roof's ridge" for side in ("memory", "compute", "ridge")}
        own = [check_side(answer, carried, ridge, question, choices=_ROW_SIDES,
                          hints={**(generic if question.startswith("verdict") else {}), "both": BOTH_HINT})
               for answer, ridge, question in ridges]
        sides = [_carried(key, mine, carried) for key, mine in zip(sides, own)]
    return report(
        f"Row {row.number}: {row.description}",
        intensity_check,
        *sides,
        _check_first_step(row, first_step, step_hints),
    )


def _verdict_hints(row: Row) -> dict:
    """A wrong verdict's hint: "classify it against the roof it runs on" (or the row's own
    ``verdict_hint``) only for the side the intensity takes against the other ridge (review 17b:
    a side wrong against both ridges was told it used the wrong roof; review 19k1 K2-1: row 8's
    "ridge" was told it is its fp32 verdict)."""
    other = "fp32" if row.roof == BF16_TENSOR else BF16_TENSOR
    wrong_roof_side = side_of_ridge(row.intensity, MACHINE.ridge(other, "dram"))
    hints = {}
    for side in ("memory", "compute", "ridge"):
        if side == wrong_roof_side:
            # Review 19k1 K2-1: a row's own verdict hint (row 8's) is for this side only
            hints[side] = row.verdict_hint or (f"this kernel runs on the {row.runs_on_name}: "
                                               f"classify it against that roof's ridge")
        else:
            hints[side] = (f"that side holds against neither ridge: compare the intensity with the "
                           f"ridge of the roof it runs on, the {row.runs_on_name}, again (left of it "
                           f"is memory, right of it compute, within 10% of it the ridge)")
    return hints


def names_tf32(answer) -> bool:
    """True where a first-move answer names TF32, as "use tf32 tensor cores" does."""
    return isinstance(answer, str) and re.search(r"\btf[ _-]?32\b", answer.lower()) is not None


def lists_tf32_roof(machine=None) -> bool:
    """True where the GPU lists a TF32 (matrix) roof; the exercise GPU lists none."""
    return any(c.name.lower().startswith("tf32") for c in (machine or MACHINE).ceilings)


#: Review 31k1 K2-1: on a GPU with no TF32 roof, a TF32 route onto the matrix cores is no move.
#: Review 44k1: the hint grants that TF32 is the usual first move on a real GPU, and says why not here.
_NO_TF32_ROOF = ("on a real GPU, TF32 tensor cores are the usual first move for an fp32 GEMM, but this "
                 "GPU lists no TF32 roof, so that move has no roof to reach here: which matrix roof "
                 "can it use?")

#: Review 39k1: the other types a compute-bound move onto the matrix cores may name, and how
#: (fp16, as wide as bf16, names a matrix roof too: this GPU lists none for it).
_MATRIX_TYPE_SPELLINGS = {**_NARROW_TYPES, "fp16": _FP16}


def _named_type_without_roof(answer, machine=None) -> str:
    """The fp8 or int8 that a first-move answer names where the GPU lists no roof of that type, or ''."""
    if not isinstance(answer, str):
        return ""
    names = [c.name.lower() for c in (machine or MACHINE).ceilings]
    return next((kind for kind, spelling in _MATRIX_TYPE_SPELLINGS.items()
                 if re.search(spelling, answer.lower()) and not any(n.startswith(kind) for n in names)), "")


def _names_8bit_type(answer) -> bool:
    """True where a first-move answer names a type narrower than bf16, fp8, int8 or int4
    ("use fp8 tensor cores")."""
    return isinstance(answer, str) and any(re.search(spelling, answer.lower())
                                           for spelling in _NARROW_TYPES.values())


def _names_fp16(answer) -> bool:
    """True where a first-move answer names fp16 ("fp16", "half precision"), and no narrower type."""
    return (isinstance(answer, str) and re.search(_FP16, answer.lower()) is not None
            and not _names_8bit_type(answer))


def _names_bf16_only(answer) -> bool:
    """True where a first-move answer names bf16 and not the matrix cores ("bf16", "use bf16")."""
    return (isinstance(answer, str) and re.search(r"\bbf[ _-]?16\b", answer.lower()) is not None
            and not names_matrix_cores(answer))


def _check_first_step(row: Row, first_step, step_hints: dict) -> Check:
    """The first move; on a row already on the matrix cores, naming them gets that row's hint;
    a TF32 spelling, where the GPU lists no TF32 roof and the mix is a right move, gets a hint;
    so does a load-only overlap where the row names another overlap (``load_overlap_hint``),
    while a generic "pipelining" passes there with the row's ``pipelining_note``."""
    key = _normalize(first_step) if isinstance(first_step, str) else None
    route = {"instruction-mix", "smaller-dtype"} <= row.first_steps
    # A narrow type on the matrix cores ("use fp8 tensor cores") names the type, not where the
    # kernel runs: except where the type is the route onto the matrix cores (row 7, whose check
    # below says this GPU lists no roof of it), it gets the ruling the bare type gets ("fp8").
    if not route and names_matrix_cores(first_step) and _names_8bit_type(first_step):
        ruling = check_choice("smaller-dtype", row.first_steps, "first move", FIRST_STEPS,
                              hints=step_hints, notes=row.step_notes)
        if ruling.passed:
            unlisted = _named_type_without_roof(first_step)
            ruling = Check("first move", "pass", ruling.message + (
                f"; the matrix cores add nothing to it (this GPU lists no {unlisted} roof, and "
                "this kernel waits on bytes)" if unlisted else ""))
        return ruling
    if row.on_matrix_cores_hint and (names_matrix_cores(first_step) or names_tf32(first_step)):
        return Check("first move", "fail", row.on_matrix_cores_hint)
    if row.load_overlap_hint and key in LOAD_OVERLAP_SPELLINGS:
        return Check("first move", "fail", row.load_overlap_hint)
    if row.load_overlap_hint and key in GENERIC_PIPELINING_SPELLINGS:
        return Check("first move", "pass", row.pipelining_note)
    if row.exp2_hint and key in _EXP2_ONLY:
        return Check("first move", "fail", row.exp2_hint)
    if row.no_exps_hint and key in _EXP_MIX_SPELLINGS:
        return Check("first move", "fail", row.no_exps_hint)
    if row.packed_ops_hint and key in _PACKED_SPELLINGS:
        return Check("first move", "fail", row.packed_ops_hint)
    if "instruction-mix" in row.first_steps and names_tf32(first_step) and not lists_tf32_roof():
        return Check("first move", "fail", _NO_TF32_ROOF)
    # where a smaller type is right only as the route onto the matrix cores (row 7), it must be a
    # type this GPU lists a matrix roof for; row 9's fp8 hint is its own
    # "bf16" reads as a smaller type (row 7's route), but on a row already in bf16 it names no
    # smaller type: it must not pass there as "smaller-dtype" (review 41k1 K2-3)
    if row.op.dtype == "bf16" and _names_bf16_only(first_step):
        return Check("first move", "fail", "this kernel already uses bf16: which lever makes it "
                                           "faster?")
    # fp16 is as wide as bf16: on a row already in bf16 it is no smaller type
    if row.op.dtype == "bf16" and _names_fp16(first_step) and not names_matrix_cores(first_step):
        return Check("first move", "fail", "fp16 is as wide as bf16 (2 bytes), which this kernel "
                                           "already uses: which lever makes it faster?")
    unlisted = _named_type_without_roof(first_step) if route else ""
    if unlisted:
        return Check("first move", "fail", f"this GPU lists no {unlisted} roof: which matrix roof can it use?")
    return check_choice(first_step, row.first_steps, "first move", FIRST_STEPS,
                        hints=step_hints, notes=row.step_notes)


def _carried_intensity(answer, intensity_check):
    """The student's intensity when it failed the check but reads as a positive number, else None."""
    if intensity_check.status != "fail":
        return None
    try:
        value = read_number(answer, "intensity", unit="FLOP/byte")
    except (AnswerError, NotAnsweredError):
        return None
    return value if value > 0 else None


def _carried(key, own, carried):
    """A side after a wrong intensity: graded against the right intensity (``key``), with what
    the student's comparison of their own number (``own``) was.  A side that holds only for the
    wrong intensity is consistent with it but does not pass."""
    if key.status not in ("pass", "fail"):
        return key
    if key.passed:
        if own.passed:
            return Check(key.question, "pass", f"correct: this side holds for the kernel's right "
                                               f"intensity as well as for your {carried:.4g}")
        return Check(key.question, "pass", f"correct for this kernel, though not for your "
                                           f"intensity of {carried:.4g}: recheck that number")
    if own.passed:
        return Check(key.question, "fail", f"consistent with your intensity of {carried:.4g}, but "
                                           f"that intensity is wrong (see above), and for the "
                                           f"right one this side differs: fix it, then compare "
                                           f"again")
    return Check(key.question, "fail", f"not right for this kernel, nor for your intensity of "
                                       f"{carried:.4g}: {own.message}")


# --- Part C: where the roofline is silent -----------------------------------------------------

#: C1, the tiny launch (pitfall 1): a 4096-element vector add on a 4 TB/s GPU, launched from
#: Python one kernel at a time.  The launch overhead is the host's dispatch of one launch, not
#: the GPU's own cost: CuPy's RawKernel measured 5.3-6.2 us per launch on the H200 on 2026-12-01
#: (rooflinelib/data/h200_experiments_numba.json and docs/measurements/
#: h200_probes/experiments_chains_launch.json, experiment 'launch'; torch 6.5-8.0 us, Numba-CUDA
#: 20.8-25.9 us), against 0.59-0.64 us of device cost per kernel inside a CUDA graph (two recorded runs).
TINY_N = 4096
TINY_GBPS = 4_000.0
LAUNCH_OVERHEAD_S = 6e-6

#: C2, the slow kernel (at 13% of its roof): counted FLOPs and bytes, and a measured time.
SLOW_FLOPS = 8.0e10
SLOW_BYTES = 1.0e10
SLOW_SECONDS = 25.6e-3

#: C3, the cache-resident row: 5 read passes over a 4096-element fp32 row that stays in L2.  Each
#: pass is run by a different block, so a re-read misses the SM's L1 (which a single block's
#: re-reads of 16 KiB (16,384 bytes) would mostly hit) and is served by L2.  The kernel writes one number per row
#: (a row statistic), so the writes are negligible and only the reads are counted.
ROW_ELEMENTS = 4096
ROW_PASSES = 5
FLOPS_PER_ELEMENT_PER_PASS = 1
#: What the profiler shows for C3: the fraction of the HBM roof reached, and of the L2 ceiling.
CACHE_HBM_ROOF_FRACTION = 0.35
CACHE_L2_CEILING_FRACTION = 0.92


#: C4, how long a vector add must be before its launch stops dominating: C1's GPU and dispatch,
#: and the device's own cost of a launch inside a CUDA graph, 0.64 us per kernel: the one figure
#: notebooks 00 and 06 quote (lessons.pitfalls.recorded_launch_costs: the H200 run of 2026-12-01
#: in h200_experiments_numba.json, experiment 'launch').
GRAPH_LAUNCH_S = 0.64e-6

#: C5, the same bytes under the other vendor's name: rocprof's derived metrics on an MI300X, in
#: kilobytes of 1,024 bytes (ROCm's derived-metrics definitions divide the L2-to-fabric request
#: bytes by 1024).
AMD_COUNTERS = ("FETCH_SIZE", "WRITE_SIZE")

#: Every counter C5 can be answered with: the NVIDIA counters of rooflinelib.hierarchy.ncu.
NCU_COUNTERS = Choices({
    "dram__bytes_read.sum": ("bytes read from device memory (HBM)", ("dram bytes read", "dram read")),
    "dram__bytes_write.sum": ("bytes written to device memory (HBM)", ("dram bytes write", "dram bytes written",
                                                                       "dram write")),
    "lts__t_bytes.sum": ("bytes through the L2's slices", ("lts bytes", "l2 bytes")),
    "l1tex__t_bytes.sum": ("bytes through the L1", ("l1tex bytes", "l1 bytes")),
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": ("fp32 FMA thread instructions", ("ffma", "ffma count")),
})
LEVELS = Choices(_with_heads({
    "past-l2": ("past the L2: what the L2 sends on to the level behind it (its misses and "
                "write-backs), whatever serves them",
                ("fabric", "infinity fabric", "past the l2", "beyond the l2", "l2 misses", "l2 miss traffic",
                 "behind the l2")),
    # Review 7b K2-4: the Infinity Cache serves part of these bytes; they are not its own traffic.
    "infinity-cache": ("the Infinity Cache (MALL)", ("infinity cache", "mall")),
    # AMD's documentation's word for these bytes (given in C5); hidden, to carry its own hint
    "video-memory": ("AMD's 'video memory'", ("video memory", "vram", "vidmem")),
    "hbm": ("HBM, the device memory", ("dram", "device memory", "global memory", "hbm3", "memory")),
    "l2": ("the L2 cache", ("l2 cache",)),
    "l1": ("the L1 / LDS or shared memory", ("l1 cache", "lds", "shared memory", "shared")),
}, {"past-l2": ("misses and write-backs", "its misses and write-backs", "misses and writebacks",
                "l2 misses and write-backs", "the l2's misses and write-backs", "what the l2 sends on",
                "far side of the l2", "the l2's far side")}), hidden=("video-memory",))


def given_part_c() -> Table:
    """Part C's given data, for the notebook to print."""
    return Table(("case", "given"), (
        ("C1", f"vector add of {TINY_N} fp32 elements; HBM {TINY_GBPS / 1000:g} TB/s; "
               f"launch overhead {LAUNCH_OVERHEAD_S * 1e6:g} µs (the host's dispatch of one launch)"),
        ("C2", f"fp32 kernel: {SLOW_FLOPS:.2g} FLOPs, {SLOW_BYTES:.2g} bytes, measured "
               f"{SLOW_SECONDS * 1e3:g} ms, on the exercise GPU"),
        ("C3", f"{ROW_PASSES} read passes over each {ROW_ELEMENTS}-element fp32 row, "
               f"{FLOPS_PER_ELEMENT_PER_PASS} FLOP per element per pass, one number written per "
               f"row; each pass is run by a different block, so the row is re-read from L2 "
               f"(not from one SM's L1); "
               f"profiler: {CACHE_HBM_ROOF_FRACTION:.0%} of the HBM roof, "
               f"{CACHE_L2_CEILING_FRACTION:.0%} of the L2 bandwidth ceiling"),
        ("C4", f"C1's GPU and launch overhead ({TINY_GBPS / 1000:g} TB/s, {LAUNCH_OVERHEAD_S * 1e6:g} µs); inside a "
               f"CUDA graph a launch costs only the device's own time, {GRAPH_LAUNCH_S * 1e6:g} µs"),
        # review 6b CK2-1: what each counter counts, in one line, so C5 is answerable before
        # notebook 05 (which uses counters on a real profile)
        ("C5", f"rocprof on an MI300X reports, for a kernel, in kilobytes (of 1,024 bytes): "
               f"{AMD_COUNTERS[0]}, the bytes the L2 requested to serve its misses, and "
               f"{AMD_COUNTERS[1]}, the bytes it wrote back (AMD's documentation says "
               f"\"video memory\" for both)"),
    ), title="Part C: given data", cell_chars=1000)


def _tiny():
    op = ops.vector_add(TINY_N)
    bounds = time_bounds(op.n_flops, op.n_bytes, MACHINE.ceiling("fp32").value, TINY_GBPS)
    return op, bounds.memory_s


def check_tiny_launch(n_bytes, memory_time_ns, launch_ratio, bound_by, first_step):
    op, memory_s = _tiny()
    return report(
        "C1: the tiny launch",
        _number(n_bytes, op.n_bytes, "bytes moved", unit="B",
                     mistakes=[(op.n_bytes / 3, "C = A + B moves three arrays: two in, one out"),
                               (2 * op.n_bytes / 3, "you counted the two reads but not the write of C"),
                               (op.n_bytes * 8, "that is bits; one byte is 8 bits")]),
        # Review 26k1 K2-4: the time in seconds, not ns, gets its own hint
        _number(memory_time_ns, memory_s * 1e9, "memory time at 4 TB/s", unit="ns",
                mistakes=[(memory_s, "that is in seconds: the answer is in nanoseconds "
                                     "(1 ns = 1e-9 s)"),
                          *_bandwidth_prefix_slips(memory_s * 1e9)]),
        _number(launch_ratio, LAUNCH_OVERHEAD_S / memory_s, "launch overhead / memory time",
                     unit="x", mistakes=[(memory_s / LAUNCH_OVERHEAD_S,
                                          "that is memory time / launch overhead: the question "
                                          "asks for the launch overhead over the memory time")]),
        check_choice(bound_by, "launch", "what bounds it", LIMITERS,
                     hints={"memory": "compare the memory time with the launch overhead: which "
                                      "one is the run time made of?",
                            "unmodelled": "true, the roofline cannot see it; but you can name it: "
                                          "compare the memory time with the launch overhead",
                            "compute": "one add per element: the arithmetic takes even less time "
                                       "than the memory traffic",
                            "latency": _WHICH_LATENCY,
                            "cache": "no cache level is near its ceiling in so short a run: compare "
                                     "the memory time with the launch overhead"}),
        check_choice(first_step, {"amortize-launch", "fuse"}, "first step", FIRST_STEPS,
                     hints={"profile": "you already know the cause: the launch costs more than "
                                       "the work. What amortizes a launch?",
                            # review 9b K2-2: the menu's batch raises the intensity, and a
                            # vector add's cannot rise: one add per 12 bytes at any length
                            "batch": "batching, as the menu means it, puts more FLOPs on each "
                                     "byte read, and a vector add's intensity, one add per 12 "
                                     "bytes, cannot rise; if you mean more work per launch, "
                                     "another option says that",
                            "smaller-dtype": "not as the first move: " + SMALLER_TYPE_RULE + ". "
                                             "Here the launch sets the time: fewer bytes shorten a "
                                             "memory time that is already negligible next to it"}),
    )


def _slow():
    intensity = SLOW_FLOPS / SLOW_BYTES
    peak, bandwidth = MACHINE.ceiling("fp32").value, MACHINE.ceiling("dram").value
    achieved_gflops = SLOW_FLOPS / SLOW_SECONDS / 1e9
    return intensity, classify(intensity, peak, bandwidth, achieved_gflops), achieved_gflops


#: C2's other levers: its data (FLOPs, bytes, a time) does not say what holds it back.
_C2_GUESS = ("this kernel is far below its roof, and C2's data does not say why: any change chosen "
             "now is a guess. What do you look at first?")
_SLOW_RUN_IS_NOT_A_LAUNCH = (f"not the launch: a run of {SLOW_SECONDS * 1e3:g} ms is thousands of "
                             f"times a {LAUNCH_OVERHEAD_S * 1e6:g} µs launch")


def check_far_below(intensity, roof_tflops, achieved_tflops, fraction_of_roof, bound_by,
                    first_step):
    key_intensity, verdict, achieved_gflops = _slow()
    limiter = "unmodelled" if verdict.status == "far-below" else verdict.side
    peak, bandwidth = MACHINE.ceiling("fp32").value, MACHINE.ceiling("dram").value
    return report(
        "C2: the slow kernel",
        _number(intensity, key_intensity, "intensity", unit="FLOP/byte",
                     mistakes=[(1 / key_intensity, "that is bytes per FLOP: the intensity is FLOPs "
                                                   "over bytes")]),
        _number(roof_tflops, verdict.roof_gflops / 1000, "its roof", unit="TFLOP/s",
                     mistakes=[(peak / 1000, "that is the compute roof; at this intensity the "
                                             "bandwidth product I x B is lower")]),
        _number(achieved_tflops, achieved_gflops / 1000, "achieved rate", unit="TFLOP/s"),
        _number(fraction_of_roof, verdict.fraction_of_roof, "fraction of its roof",
                     unit="fraction",
                     mistakes=[(achieved_gflops / peak, "that is the fraction of the compute "
                                                        "peak; score it against its own roof")]),
        check_choice(bound_by, limiter, "what bounds it", LIMITERS,
                     hints={"memory": "it is on the memory side of the ridge, but at this "
                                      "fraction of its roof the memory roof is not what stops it",
                            "compute": "it is left of the fp32 ridge, and far below its roof",
                            "latency": _WHICH_LATENCY,
                            # Review 31k1 K2-3: the launch, as C1 measured it
                            "launch": _SLOW_RUN_IS_NOT_A_LAUNCH,
                            # review 38k1: the take-away lists a cache level as a cause far under
                            # the roof, so say why it is not this one
                            "cache": "nothing in C2's data (FLOPs, bytes, a time) shows a cache level "
                                     "near its ceiling; C3 is that case, with counters. Without them, "
                                     "the roofline can only say that something it does not model "
                                     "holds this kernel back"}),
        check_choice(first_step, "profile", "first step", FIRST_STEPS,
                     hints={"amortize-launch": _SLOW_RUN_IS_NOT_A_LAUNCH + ": what does it spend "
                                               "that time on?",
                            "fuse": "fusing deletes bytes, but this kernel is not even using the "
                                    "bandwidth it already has",
                            "tile": "more reuse raises the roof; the kernel is nowhere near the "
                                    "roof it has",
                            **dict.fromkeys(("overlap", "score-bandwidth", "instruction-mix", "batch"),
                                            _C2_GUESS),
                            "smaller-dtype": "not as the first move: " + SMALLER_TYPE_RULE + ". "
                                             "This kernel is far below its roof, so its bytes are "
                                             "not what holds it back"}),
    )


def _cached():
    row_bytes = ROW_ELEMENTS * ops.dtype_bytes("fp32")
    n_flops = ROW_ELEMENTS * ROW_PASSES * FLOPS_PER_ELEMENT_PER_PASS
    l2_bytes = ROW_PASSES * row_bytes
    hbm_bytes = row_bytes  # the row comes from HBM once; later passes hit L2
    return n_flops, l2_bytes, hbm_bytes


#: Review 15b, 2: C3's L2 bytes counted for the re-reads alone.
_REREADS_ONLY = ("that counts the re-reads only: the first pass's bytes reach the SM through the "
                 "L2 as well")


_ELEMENTS_NOT_BYTES = "that counts elements, not bytes: an fp32 element is 4 bytes"

#: A row of 4096 fp32 elements is 16,384 bytes: 16 KiB, not 16 KB (16,000 bytes).  A byte count in
#: KB (or an intensity from one) is 2.4% off: the hint says which prefix the row is in, not that the
#: student mixed prefixes up.
_ROW_IN_KIB = ("a row of 4096 fp32 elements is 16,384 bytes: that is 16 KiB (1 KiB = 1,024 bytes), "
               "while 16 KB is 16,000 bytes; write the count in bytes, or in KiB")
_PER_ELEMENT = "that is FLOPs per element, not per byte: an fp32 element is 4 bytes"


def check_cache_resident(l2_bytes, hbm_bytes, l2_intensity, hbm_intensity, bound_by):
    n_flops, key_l2, key_hbm = _cached()
    fp32 = ops.dtype_bytes("fp32")
    return report(
        "C3: the cache-resident row",
        _number(l2_bytes, key_l2, "L2 bytes per row", unit="B",
                     mistakes=[(key_hbm, "that is the HBM traffic; every pass reads the row "
                                         "from L2"),
                               (key_l2 - key_hbm, _REREADS_ONLY),
                               # Review 19k1 K2-2: no copy here; the row is only read
                               (2 * key_l2, "each pass only reads the row (one "
                                            "number is written per row, negligible): count one "
                                            "read of the row per pass"),
                               # Review 19g1 K2-5: elements, not bytes
                               (key_l2 / fp32, _ELEMENTS_NOT_BYTES),
                               (key_l2 / 1.024, _ROW_IN_KIB)]),
        _number(hbm_bytes, key_hbm, "HBM bytes per row", unit="B",
                     mistakes=[(key_l2, "the row stays in L2 between passes: how many times "
                                        "does it come from HBM?"),
                               (key_hbm / fp32, _ELEMENTS_NOT_BYTES),
                               (key_hbm / 1.024, _ROW_IN_KIB)]),
        _number(l2_intensity, n_flops / key_l2, "L2 intensity", unit="FLOP/byte",
                     mistakes=[(n_flops / (key_l2 - key_hbm), _REREADS_ONLY),
                               # review 39k1: FLOPs per element, as the byte counts above
                               (n_flops / (key_l2 / fp32), _PER_ELEMENT),
                               # Review 19g1 K2-5: the two intensities swapped
                               (n_flops / key_hbm, "that divides by the HBM bytes; the L2 "
                                                   "intensity divides by the L2 traffic"),
                               (1.024 * n_flops / key_l2, _ROW_IN_KIB)]),
        _number(hbm_intensity, n_flops / key_hbm, "HBM intensity", unit="FLOP/byte",
                     mistakes=[(n_flops / key_l2, "that divides by the L2 traffic; the HBM "
                                                  "intensity divides by HBM bytes"),
                               (n_flops / (key_hbm / fp32), _PER_ELEMENT),
                               (1.024 * n_flops / key_hbm, _ROW_IN_KIB)]),
        check_choice(bound_by, "cache", "what bounds it", C3_LIMITERS,
                     hints={"l1": _C3_L1_HINT,
                            "memory": "it is well below the HBM roof at its HBM intensity; which "
                                      "counter is near its ceiling?",
                            # Review 19g1 K2-5: not C1/C2's "which latency?", which steers to
                            # launch or unmodelled, both wrong here
                            "latency": "a latency limit is one no roof accounts for; here the "
                                       f"profiler puts one level's traffic at "
                                       f"{CACHE_L2_CEILING_FRACTION:.0%} of that level's own "
                                       "ceiling: which limit is that?",
                            # 'unmodelled' means no roof accounts for the time (C2's case:
                            # occupancy, latency, stalls); here one does, the L2's
                            "unmodelled": "not quite: 'unmodelled' means that no roof accounts "
                                          "for the time (as in C2), but here the profiler puts "
                                          f"one level's traffic at {CACHE_L2_CEILING_FRACTION:.0%} "
                                          "of that level's own ceiling. Which limit is that?"}),
    )


def _launch_lengths():
    return (launch_dominance_elements(TINY_GBPS, LAUNCH_OVERHEAD_S),
            launch_dominance_elements(TINY_GBPS, GRAPH_LAUNCH_S))


_COUNT = re.compile(r"^(?P<number>.*?[0-9.)])\s*(?P<scale>k|thousand|m|million)?\s*(?P<noun>elements?)?$",
                    re.IGNORECASE)
_COUNT_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6}


def _count(answer):
    """Review 31k1 K2-4: a count written "2 M", "2 million" or "213 k elements" read as the number
    it names; any other answer unchanged (its reading, and its messages, stay grading's)."""
    if not isinstance(answer, str):
        return answer
    match = _COUNT.match(answer.strip())
    if not match or not (match.group("scale") or match.group("noun")):
        return answer
    try:
        value = read_number(match.group("number"), "elements")
    except (AnswerError, NotAnsweredError):
        return answer
    return value * _COUNT_SCALES.get((match.group("scale") or "").lower(), 1)


#: C4 with 8 bytes per element: the two reads counted, the write of C not.
_READS_ONLY_PER_ELEMENT = ("each element moves 12 bytes, not 8: you counted the two reads but not "
                           "the write of C")


def check_launch_length(elements_dispatch, elements_graph, fraction_at_that_length):
    """C4: the vector-add length whose traffic takes as long as the launch, both ways."""
    dispatch, graph = _launch_lengths()
    per_element = ops.vector_add(1).n_bytes
    return report(
        "C4: how long before the launch stops dominating",
        _number(_count(elements_dispatch), dispatch, "elements, with the host's dispatch", unit="elements",
                mistakes=[(dispatch * per_element, "that is bytes: how many bytes does one element move?"),
                          (dispatch * 3, "each element moves 12 bytes, not 4: two reads and a write"),
                          (dispatch * 3 / 2, _READS_ONLY_PER_ELEMENT),
                          *_bandwidth_prefix_slips(dispatch)]),
        # Review 11b K2-1: the same 4-byte slip as the dispatch length
        _number(_count(elements_graph), graph, "elements, inside a CUDA graph", unit="elements",
                mistakes=[(graph * per_element, "that is bytes: how many bytes does one element move?"),
                          (graph * 3, "each element moves 12 bytes, not 4: two reads and a write"),
                          (graph * 3 / 2, _READS_ONLY_PER_ELEMENT),
                          *_bandwidth_prefix_slips(graph)]),
        _number(fraction_at_that_length, 0.5, "fraction of the roof at that length", unit="fraction",
                     mistakes=[(0.25, "at that length the traffic takes as long as the "
                                      "launch, and the time is their sum: what fraction of the roof's "
                                      "rate does the kernel reach?"),
                               (1.0, "the add pays one launch and waits for it: the launch still costs as "
                                     "much as the traffic, and the time is their sum (back-to-back "
                                     "launches could hide the dispatch behind the previous kernel, "
                                     "but that is not this question)")]),
    )


def check_counters(fetch_size_on_nvidia, write_size_on_nvidia, level):
    """C5: the Nsight Compute counters that count what FETCH_SIZE and WRITE_SIZE count."""
    fetch, write = (counterpart(c) for c in AMD_COUNTERS)
    other = {"lts__t_bytes.sum": "that counts the L2's traffic, which is larger than what crosses to HBM",
             "l1tex__t_bytes.sum": "that counts the L1's traffic, the level closest to the cores",
             "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": "that counts instructions, not bytes"}
    return report(
        "C5: the same bytes under NVIDIA's names",
        check_choice(fetch_size_on_nvidia, fetch, "FETCH_SIZE on NVIDIA", NCU_COUNTERS,
                     hints=dict(other, **{write: "FETCH_SIZE counts what is fetched, not what is written"})),
        check_choice(write_size_on_nvidia, write, "WRITE_SIZE on NVIDIA", NCU_COUNTERS,
                     hints=dict(other, **{fetch: "WRITE_SIZE counts what is written, not what is read"})),
        check_choice(level, "past-l2", "the level they measure", LEVELS,
                     hints={"l2": "they are counted where the L2 hands its misses and write-backs on, "
                                  "not for the L2's own traffic",
                            "l1": "they are counted at the L2's far side, not next to the cores",
                            "video-memory": "'video memory' is AMD's name for the memory behind the "
                                            "L2, where these bytes are headed or come from; but on "
                                            "the MI300X the Infinity Cache serves part of them before "
                                            "HBM is reached: where are they counted?",
                            "infinity-cache": "the Infinity Cache serves part of these bytes, but "
                                              "they are not its own traffic: where are they "
                                              "counted?",
                            "hbm": "on the H200, where nothing sits between the L2 and HBM, that is what "
                                   "dram__bytes counts; but the MI300X's Infinity Cache serves part of "
                                   "what its L2 fetches before HBM is reached: where are these bytes "
                                   "counted?"}),
    )
