"""The pitfalls triage tree: from what you know about a kernel to its likely cause and next step.

The course's nine pitfalls (notebook 06) are nine ways a roofline verdict misleads.  Most show up as a kernel
sitting where the model says it should not, and each leaves a fingerprint that a profiler or a
stopwatch can see: a run time of a few microseconds, a grid smaller than the device, a high L2
hit rate, far more bytes moved than the algorithm needs.  :func:`triage` checks those
fingerprints in the order that saves the most wasted effort (the checks that make the roofline
irrelevant come first) and returns every finding, the most likely one first.

Facts you do not know stay ``None``; the tree then says which facts would sharpen it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Optional

from rooflinelib.core.model import (ABOVE_ROOF_FRACTION, FAR_BELOW_FRACTION, Roofline, CPU_ADVICE,
                                    GPU_ADVICE)
from rooflinelib.lessons.pitfalls import recorded_launch_costs
from rooflinelib.core.expr import evaluate

#: A kernel shorter than this, launched one at a time from Python, is bound by its launch.  The
#: figure is set against the host's dispatch of one launch, measured on the H200 on 2026-12-01
#: (rooflinelib/data/h200_experiments_numba.json and docs/measurements/
#: h200_probes/experiments_chains_launch.json, experiment 'launch'): CuPy RawKernel 5.3-6.2 us, torch
#: 6.5-8.0 us, Numba-CUDA 20.8-25.9 us per empty kernel.  A kernel shorter than CuPy's or torch's
#: dispatch leaves the GPU waiting for the next launch (Numba's makes longer kernels wait too);
#: the device's own cost, 0.64-0.69 us per kernel inside a CUDA graph, is what a graph leaves.
LAUNCH_BOUND_US = 10.0


@lru_cache(maxsize=None)
def _dispatch_words() -> str:
    """The host's dispatch of one launch on the recorded run, as words (the shipped figures;
    a plain 'the host's dispatch of a launch' when none are shipped)."""
    try:
        costs = recorded_launch_costs()
    except ValueError:
        return "the host's dispatch of a launch"
    dispatch = sorted(costs["host_dispatch_s"].values())
    if not dispatch:
        return "the host's dispatch of a launch"
    span = (f"{dispatch[0] * 1e6:.1f} us" if len(dispatch) == 1 else
            f"{dispatch[0] * 1e6:.1f}-{dispatch[-1] * 1e6:.1f} us")
    device = (f"; the device's own cost is {costs['device_s'] * 1e6:.2f} us" if costs["device_s"] else "")
    return (f"the host's dispatch of one launch from Python ({span} per launch, {costs['source']}"
            f"{device})")

#: Achieved occupancy below this leaves too few warps per scheduler to hide memory latency
#: (under 16 of 64 warp slots on an sm_90 SM).
LOW_OCCUPANCY = 0.25

#: An L2 hit rate above this means most "HBM" bytes never reached HBM.
HIGH_L2_HIT_RATE = 0.5

#: At least this share of transcendental operations makes the FMA roof the wrong yardstick:
#: the SFU retires 16 results per clock per SM against 128 FMAs.
TRANSCENDENTAL_SHARE = 0.2

#: Measured bytes this many times the analytic count point at an access-pattern problem.
WASTED_BYTES_RATIO = 1.5

#: An SM clock this far below the one the ceilings were measured at has moved the roof.
CLOCK_DROP_RATIO = 0.9

#: A job waiting this share of its time on the interconnect is bound outside the device.
COMMUNICATION_SHARE = 0.3

#: At or above this fraction of its roof a kernel is "at the roof" (model.classify's near-roof).
NEAR_ROOF_FRACTION = 0.8

PITFALLS = {
    1: "a short or starved kernel never reaches either roof",
    2: "the model assumes loads and math overlap perfectly",
    3: "on requested bytes, the model knows nothing of caches",
    4: "a GPU has a different compute roof for each instruction class",
    5: "a FLOP's price depends on the instruction",
    6: "bytes and FLOPs can each be counted more than one way",
    7: "a kernel can be efficient and still be the wrong algorithm",
    8: "clocks, power and neighbours move the roofs",
    9: "nothing past the device's edge is on the chart",
}


@dataclass(frozen=True)
class KernelFacts:
    """What is known about one kernel run.  Every field is optional.

    Fractions and shares are between 0 and 1, except ``fraction_of_roof`` (achieved / roof),
    which may exceed 1 when something is miscounted.
    """

    fraction_of_roof: Optional[float] = None  # achieved GFLOP/s over the roof at its intensity
    side: Optional[str] = None  # "memory", "ridge" or "compute": where its intensity sits
    duration_us: Optional[float] = None  # kernel run time in microseconds
    blocks: Optional[int] = None  # blocks in the grid
    sm_count: Optional[int] = None  # SMs (or CUs) on the device
    occupancy: Optional[float] = None  # achieved occupancy, 0..1
    serial_phases: Optional[bool] = None  # loads, then math: two kernels, or barriers with no prefetch
    l2_hit_rate: Optional[float] = None  # 0..1
    matrix_instructions: Optional[bool] = None  # the kernel runs tensor/matrix-core instructions
    roof_is_matrix: Optional[bool] = None  # the compute roof it is scored against is a matrix roof
    transcendental_share: Optional[float] = None  # exp/sqrt/div share of the counted FLOPs
    bytes_ratio: Optional[float] = None  # profiler bytes over the analytic byte count
    #: set when ``bytes_ratio`` is not a profiler's count but a hypothesis's (the condition that
    #: gives it, e.g. "if the L2 fetches 64 B"): the reason then says so instead of "moved"
    bytes_ratio_hypothesis: Optional[str] = None
    clock_ratio: Optional[float] = None  # SM clock in this run over the clock of the ceilings
    communication_share: Optional[float] = None  # share of wall time waiting on the interconnect
    cheaper_algorithm: Optional[bool] = None  # a lower-complexity algorithm does the same job

    def __post_init__(self):
        for name in ("occupancy", "l2_hit_rate", "transcendental_share", "communication_share"):
            _check_share(name, getattr(self, name))
        for name in ("fraction_of_roof", "duration_us", "bytes_ratio", "clock_ratio"):
            _check_positive(name, getattr(self, name), allow_zero=name == "fraction_of_roof")
        for name in ("blocks", "sm_count"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValueError(f"{name}: must be a whole number of at least 1, got {value!r}")
        if self.bytes_ratio_hypothesis is not None and not (
                isinstance(self.bytes_ratio_hypothesis, str) and self.bytes_ratio_hypothesis.strip()):
            raise ValueError(f"bytes_ratio_hypothesis: must be a non-empty text or None, got "
                             f"{self.bytes_ratio_hypothesis!r}")
        for name in ("serial_phases", "matrix_instructions", "roof_is_matrix", "cheaper_algorithm"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, bool):
                raise ValueError(f"{name}: must be True, False or None, got {value!r}")
        if self.side is not None and self.side not in ("memory", "ridge", "compute"):
            raise ValueError(f"side: must be 'memory', 'ridge' or 'compute', got {self.side!r}")

    @classmethod
    def placed(cls, intensity: float, achieved_gflops: float, roofline: Roofline, **facts) -> "KernelFacts":
        """Facts with ``fraction_of_roof`` and ``side`` computed from a measured point."""
        verdict = roofline.classify(intensity, achieved_gflops)
        return cls(fraction_of_roof=verdict.fraction_of_roof, side=verdict.side, **facts)

    def known(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


def _check_share(name: str, value) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"{name}: must be a number from 0 to 1, got {value!r}")


def _check_positive(name: str, value, allow_zero: bool = False) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name}: must be a finite number, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name}: must be {'non-negative' if allow_zero else 'positive'}, got {value!r}")


@dataclass(frozen=True)
class Finding:
    """One branch of the tree that the facts lead to."""

    cause: str
    next_step: str
    evidence: str
    pitfall: Optional[int] = None  # the course's pitfall number, when the cause is one of them

    @property
    def title(self) -> str:
        if self.pitfall is None:
            return self.cause
        return f"Pitfall {self.pitfall} ({PITFALLS[self.pitfall]}): {self.cause}"


@dataclass(frozen=True)
class Diagnosis:
    """Every finding the facts support, most likely first, and the facts that would help."""

    findings: tuple
    missing: tuple = ()  # names of KernelFacts fields that would sharpen the answer

    @property
    def likely(self) -> Finding:
        return self.findings[0]

    @property
    def pitfalls(self) -> list:
        return [f.pitfall for f in self.findings if f.pitfall is not None]

    def text(self) -> str:
        lines = [f"Likely cause: {self.likely.title}",
                 f"  because {self.likely.evidence}",
                 f"  next step: {self.likely.next_step}"]
        for other in self.findings[1:]:
            lines.append(f"Also: {other.title} (because {other.evidence}); then: {other.next_step}")
        if self.missing:
            # the triage form's labels: the field names are the code's, not the student's
            labels = {**NUMBER_FIELDS, **BOOLEAN_FIELDS}
            lines.append("Facts that would sharpen this: "
                         + "; ".join(labels.get(name, name).rstrip("?") for name in self.missing))
        return "\n".join(lines)


def _pct(fraction: float) -> str:
    text = f"{100 * fraction:.0f}%"
    if text in ("0%", "100%") and fraction not in (0, 1):
        # a measured 99.7% printed as "100%" reads as a claim the counter did not make
        text = f"{100 * fraction:.1f}%"
    return text


def lever(advice: str) -> str:
    """A row of the model's advice table (what ``roofline plot`` prints) without its heading
    ("Memory-bound: ..."): the triage's next step contains it, so the two tools agree."""
    text = advice.split(": ", 1)[-1]
    return text[:1].upper() + text[1:]


def _specific_findings(facts: KernelFacts, target: str = "gpu") -> list:
    """The fingerprints of the pitfalls, in the order they should be ruled out."""
    found = []
    frac = facts.fraction_of_roof
    cpu = target == "cpu"
    cached = facts.l2_hit_rate is not None and facts.l2_hit_rate >= HIGH_L2_HIT_RATE
    cache_finding = Finding(
        f"the working set lives in cache, so the {'DRAM' if cpu else 'HBM'} roof is the wrong level",
        ("Draw a hierarchical roofline: place the kernel against the L1, L2 and L3 cache roofs "
         "with the bytes that cross each level." if cpu else
         "Draw a hierarchical roofline: place the kernel against the L2 and shared-memory roofs "
         "with the bytes that cross each level."),
        f"its L2 hit rate is {_pct(facts.l2_hit_rate)}" if cached else "", 3)
    wrong_roof = facts.matrix_instructions is True and facts.roof_is_matrix is False
    matrix_finding = Finding(
        "a matrix-core kernel is being scored against a vector (fp32) roof",
        "Re-plot against the matrix ceiling of the dtype it executes; its ridge is many times "
        "further right, and the verdict can flip to memory-bound.",
        "it runs tensor/matrix instructions but its roof is not a matrix roof", 4)
    if frac is not None and frac > ABOVE_ROOF_FRACTION:
        if cached and facts.side in ("memory", "ridge", None):
            # Above the DRAM roof with the bytes served by the L2: the cache explains the point,
            # so the cache comes first. Recounting comes second, and only when the bytes the L2
            # missed would alone pass the DRAM roof: then the hit rate cannot explain the point.
            found.append(cache_finding)
            missed = frac * (1 - facts.l2_hit_rate)
            if missed > ABOVE_ROOF_FRACTION:
                found.append(Finding(
                    "a point above the DRAM roof that the cache does not fully explain is most "
                    "likely a counting error, else a roof from another clock or instruction class "
                    "(pitfalls 8 and 4)",
                    "Once the kernel is placed against the L2 roof, if it is still above its roof, "
                    "recount FLOPs and bytes with one convention and check the units and the clock.",
                    f"it reaches {_pct(frac)} of the DRAM roof, and the {_pct(1 - facts.l2_hit_rate)} "
                    f"of its bytes the L2 missed alone would be {_pct(missed)} of it", 6))
        elif wrong_roof:
            # Above a vector roof with matrix instructions: the matrix roof explains the point,
            # so it comes first and recounting is only what is left if it does not.
            found.append(matrix_finding)
            found.append(Finding(
                "a point above the vector roof that the matrix roof does not explain is most "
                "likely a counting error, else a roof from another clock (pitfall 8)",
                "Once the kernel is placed against the matrix roof of its dtype, if it is still "
                "above its roof, recount FLOPs and bytes with one convention and check the units "
                "and the clock.",
                f"it reaches {_pct(frac)} of the vector roof", 6))
        else:
            found.append(Finding(
                "the point is above its own roof, which no kernel can be",
                "Recount FLOPs and bytes with one convention, check the units (GB against GiB, "
                "bits against bytes), and check the clock the ceiling was measured at against "
                "the kernel's.",
                f"it reaches {_pct(frac)} of a hard upper bound", 6))
    if facts.communication_share is not None and facts.communication_share >= COMMUNICATION_SHARE:
        found.append(Finding(
            "the job waits on the interconnect, which the device roofline has no axis for",
            "Profile the timeline; add an interconnect ceiling (FLOPs per byte communicated). "
            "Overlap communication with compute; if the link still binds, send fewer bytes per "
            "FLOP. Only then tune kernels.",
            f"{_pct(facts.communication_share)} of the wall time is spent waiting on communication", 9))
    if facts.duration_us is not None and facts.duration_us < LAUNCH_BOUND_US and cpu:
        found.append(Finding(
            "call- or latency-bound: the function is over before either roof matters",
            "Give each call more work (batch the calls, or a larger array), or keep work this "
            "small serial: starting a parallel region and returning to Python cost microseconds.",
            f"it runs for {facts.duration_us:g} us, under {LAUNCH_BOUND_US:g} us", 1))
    elif facts.duration_us is not None and facts.duration_us < LAUNCH_BOUND_US:
        found.append(Finding(
            "launch- or latency-bound: the kernel is over before either roof matters",
            "Batch the work into fewer, larger launches, fuse it into a neighbour, capture it in a "
            "CUDA graph, or leave it on the CPU.",
            f"it runs for {facts.duration_us:g} us, under {LAUNCH_BOUND_US:g} us: the scale of "
            f"{_dispatch_words()}", 1))
    if facts.blocks is not None and facts.sm_count is not None and facts.blocks < facts.sm_count:
        found.append(Finding(
            "the grid cannot fill the device, so most SMs sit idle",
            "Launch at least a few blocks per SM (a grid-stride loop keeps the work per thread "
            "sensible), then re-measure.",
            f"{facts.blocks} block{'s' if facts.blocks != 1 else ''} for {facts.sm_count} SMs", 1))
    if wrong_roof and matrix_finding not in found:
        found.append(matrix_finding)
    if facts.matrix_instructions is False and facts.roof_is_matrix is True:
        found.append(Finding(
            "a vector kernel is being scored against a matrix-core roof",
            "Re-plot against the fp32 (or fp64) vector ceiling it can actually reach.",
            "it runs no matrix instructions but its roof is a matrix roof", 4))
    if facts.transcendental_share is not None and facts.transcendental_share >= TRANSCENDENTAL_SHARE and cpu:
        found.append(Finding(
            "exp, sqrt and divisions, not the FMA units, limit it",
            "Check that the exp/sqrt/div calls vectorized (a SIMD math library), or cut their "
            "count (algebra that removes divides); the FMA roof counts none of their cost.",
            f"{_pct(facts.transcendental_share)} of its FLOPs are transcendentals", 5))
    elif facts.transcendental_share is not None and facts.transcendental_share >= TRANSCENDENTAL_SHARE:
        found.append(Finding(
            "the transcendental unit, not the FMA pipes, limits it",
            "Measure the SFU ceiling and score against it, or cut the exp/sqrt/div count "
            "(fast-math intrinsics, algebra that removes divides).",
            f"{_pct(facts.transcendental_share)} of its FLOPs are transcendentals", 5))
    if facts.bytes_ratio is not None and facts.bytes_ratio >= WASTED_BYTES_RATIO:
        found.append(Finding(
            "the memory system moves bytes the algorithm never asked for (uncoalesced or strided access)",
            "Fix the access pattern first (coalesce, or tile through shared memory so every byte "
            "fetched is used), then re-measure bytes and rate.",
            _bytes_moved_reason(facts), 6))
    if cached and cache_finding not in found:
        found.append(cache_finding)
    below_roof = frac is None or frac < NEAR_ROOF_FRACTION
    if below_roof and facts.occupancy is not None and facts.occupancy < LOW_OCCUPANCY:
        found.append(Finding(
            "too few warps to hide latency, so loads and math do not overlap",
            "Raise occupancy (fewer registers or less shared memory per block) or the independent "
            "work per thread (ILP), then re-measure.",
            f"achieved occupancy is {_pct(facts.occupancy)}", 2))
    if below_roof and facts.serial_phases is True:
        found.append(Finding(
            "load and compute phases run one after the other, so time is closer to F/P + M/B",
            ("Block for the cache and let the next block stream in (prefetch) while this one "
             "computes." if cpu else
             "Overlap the phases: fuse a load kernel and a compute kernel into one; inside one "
             "kernel, double-buffer (prefetch the next tile while computing on this one)."),
            "its loads and its math run in turn (separate kernels, or barriers with no prefetch)", 2))
    if facts.clock_ratio is not None and facts.clock_ratio < CLOCK_DROP_RATIO:
        found.append(Finding(
            "the clock dropped, so the roof it is scored against is too high",
            "Re-measure the ceilings in the thermal and power state the kernel runs in, held "
            "as long as the kernel runs (a short burst on a hot card still runs near the cool "
            "card's rate), and log the SM clock with every result.",
            f"the SM clock ran at {_pct(facts.clock_ratio)} of the clock the ceilings were measured at", 8))
    if facts.cheaper_algorithm is True:
        found.append(Finding(
            "the kernel may be efficient, but the algorithm does more work than it needs to",
            "Change the algorithm first (lower complexity, or skip the work); the roofline "
            "only scores how well this implementation runs.",
            "a lower-complexity algorithm does the same job", 7))
    return found


def _bytes_moved_reason(facts: KernelFacts) -> str:
    """Pitfall 6's reason: a counted ratio as measured, a hypothesised one labelled as such."""
    if facts.bytes_ratio_hypothesis is None:
        return f"the bytes moved are {facts.bytes_ratio:.3g}x the analytic bytes"
    return (f"the bytes moved would be {facts.bytes_ratio:.3g}x the analytic bytes "
            f"{facts.bytes_ratio_hypothesis.strip()} (a hypothesis, not a counter reading)")


_HELPFUL = ("fraction_of_roof", "duration_us", "blocks", "sm_count", "occupancy", "bytes_ratio",
            "l2_hit_rate", "matrix_instructions", "roof_is_matrix", "transcendental_share",
            "clock_ratio", "communication_share")


#: Facts that only a GPU has: a CPU's triage never asks for them.
GPU_ONLY_FACTS = ("blocks", "sm_count", "occupancy", "matrix_instructions", "roof_is_matrix")


def _general_finding(facts: KernelFacts, target: str = "gpu") -> Finding:
    """The course's decision table, for when no pitfall's fingerprint shows.

    Near its roof a kernel gets the lever of the model's table (:data:`model.GPU_ADVICE` or
    :data:`model.CPU_ADVICE`, the words ``roofline plot`` prints).  Below its roof the side
    decides: overlap is the lever only at the ridge, where load time and math time are alike.
    Left of the ridge there is little math to hide the loads behind, so a memory-side kernel
    below its roof is told to find why its bytes stream slowly (issue 24, item 4.6).
    """
    cpu = target == "cpu"
    advice = CPU_ADVICE if cpu else GPU_ADVICE
    frac, side = facts.fraction_of_roof, facts.side
    if frac is None:
        return Finding("not placed yet: without an achieved rate there is nothing to diagnose",
                       "Time the kernel, compute achieved GFLOP/s and its fraction of the roof.",
                       "no fraction of the roof was given")
    if frac < FAR_BELOW_FRACTION:
        # the advice's first sentence is the finding itself; the next step starts at "Check"
        return Finding("bound by something the roofline does not model",
                       lever(advice["far-below"]).split(". ", 1)[-1],
                       f"it reaches only {_pct(frac)} of its roof")
    if frac < NEAR_ROOF_FRACTION and side == "memory":
        return Finding("memory-bound, and the bytes stream slower than the bandwidth roof",
                       ("There is little math to overlap with, so overlap is not the lever. First "
                        "check that the loop reads contiguously and vectorized, that every core "
                        "streams, and that the roof is the one for this access mix (a copy's stores "
                        "first read each line; a read-only loop does not). Then: " if cpu else
                        "There is little math to overlap with, so overlap is not the lever. First "
                        "check that the accesses are coalesced (no wasted sectors), that enough loads "
                        "are in flight (more threads, or more independent loads per thread), and "
                        "that the roof is the one for this access mix. Then: ")
                       + lever(advice["memory"]),
                       f"it reaches {_pct(frac)} of its bandwidth roof, left of the ridge")
    if frac < NEAR_ROOF_FRACTION and side == "compute":
        return Finding("compute-bound, and the arithmetic units are idle part of the time",
                       ("First check that the loop vectorized and that every core runs one thread. "
                        "Then: " if cpu else
                        "First check the independent work per thread (ILP), occupancy and the "
                        "instruction mix (address arithmetic, transcendentals). Then: ")
                       + lever(advice["compute"]),
                       f"it reaches {_pct(frac)} of its compute roof, right of the ridge")
    if side == "ridge" or frac < NEAR_ROOF_FRACTION:
        return Finding("both roofs are close, or overlap is incomplete",
                       lever(advice["ridge"]),
                       f"it reaches {_pct(frac)} of its roof"
                       + (" at the ridge" if side == "ridge" else ""))
    if side == "compute":
        return Finding("compute-bound and near peak",
                       lever(advice["compute"]),
                       f"it reaches {_pct(frac)} of the compute roof")
    if side == "memory":
        wasted = facts.bytes_ratio is not None and facts.bytes_ratio >= WASTED_BYTES_RATIO
        if wasted:
            return Finding("memory-bound and at the bandwidth roof, but for bytes it does not need",
                           "After the access pattern is fixed, the bytes it needs are the ones to "
                           "cut: fuse, tile for reuse, use a smaller dtype.",
                           f"it reaches {_pct(frac)} of the bandwidth roof while moving "
                           f"{facts.bytes_ratio:.3g}x the analytic bytes")
        optimal = facts.bytes_ratio is not None
        return Finding("memory-bound, at the bandwidth roof with no extra bytes" if optimal
                       else "memory-bound and at the bandwidth roof",
                       lever(advice["memory"]),
                       f"it reaches {_pct(frac)} of the bandwidth roof"
                       + (" with no more bytes than the algorithm needs" if optimal else ""))
    return Finding("at its roof", "Say which side of the ridge it sits on to get the lever.",
                   f"it reaches {_pct(frac)} of its roof")


def triage(facts: KernelFacts, target: str = "gpu") -> Diagnosis:
    """Walk the tree: every pitfall whose fingerprint the facts show, else the decision table.

    ``target`` is what the kernel ran on, ``gpu`` or ``cpu`` (a CPU roofline's
    :attr:`model.Machine.target`): a CPU kernel gets a CPU's levers (SIMD lanes, cores,
    caches) and is never asked for a GPU's facts (grid size, occupancy, matrix cores).
    """
    if not isinstance(facts, KernelFacts):
        raise ValueError(f"facts: expected KernelFacts, got {type(facts).__name__}")
    if target not in ("gpu", "cpu"):
        raise ValueError(f"target: must be 'gpu' or 'cpu', got {target!r}")
    found = _specific_findings(facts, target)
    general = _general_finding(facts, target)
    if not found:
        found = [general]
        missing = tuple(name for name in _HELPFUL if getattr(facts, name) is None)
        if facts.fraction_of_roof is not None and facts.fraction_of_roof >= NEAR_ROOF_FRACTION:
            missing = tuple(name for name in ("bytes_ratio", "matrix_instructions",
                                              "roof_is_matrix", "cheaper_algorithm")
                            if getattr(facts, name) is None)
        if target == "cpu":
            missing = tuple(name for name in missing if name not in GPU_ONLY_FACTS)
        return Diagnosis(tuple(found), missing)
    # A kernel at its roof keeps the decision table's lever alongside the pitfalls.
    if facts.fraction_of_roof is not None and NEAR_ROOF_FRACTION <= facts.fraction_of_roof <= ABOVE_ROOF_FRACTION:
        found.append(general)
    return Diagnosis(tuple(found))


# --- reading the facts from a form -----------------------------------------------------------

#: The numeric facts, with the label a form shows for each.
NUMBER_FIELDS = {
    "fraction_of_roof": "achieved / roof (0.9 = 90%)",
    "duration_us": "kernel run time (us)",
    "blocks": "blocks in the grid",
    "sm_count": "SMs on the device",
    "occupancy": "achieved occupancy (0 to 1)",
    "l2_hit_rate": "L2 hit rate (0 to 1)",
    "transcendental_share": "share of FLOPs that are exp/sqrt/div",
    "bytes_ratio": "profiler bytes / analytic bytes",
    "clock_ratio": "clock now / clock of the ceilings",
    "communication_share": "share of time waiting on communication",
}

#: The yes/no facts, with their labels.
BOOLEAN_FIELDS = {
    "serial_phases": "loads and math in turn, not overlapped?",
    "matrix_instructions": "runs tensor/matrix instructions?",
    "roof_is_matrix": "scored against a matrix roof?",
    "cheaper_algorithm": "a cheaper algorithm exists?",
}

_WHOLE_FIELDS = ("blocks", "sm_count")
_UNKNOWN = ("", "unknown", "?", None)


def facts_from_inputs(values: dict) -> KernelFacts:
    """KernelFacts from a form's raw values: numbers or formulas as text, yes/no/unknown.

    Empty boxes and ``unknown`` stay ``None``.  A bad entry is a one-line ``ValueError`` that
    names the field; formulas go through :mod:`rooflinelib.core.expr`, never through ``eval``.
    """

    facts = {}
    for name, raw in values.items():
        text = raw.strip() if isinstance(raw, str) else raw
        if text in _UNKNOWN:
            continue
        if name in NUMBER_FIELDS:
            number = evaluate(text, name)
            if name in _WHOLE_FIELDS:
                if number != int(number):
                    raise ValueError(f"{name}: must be a whole number, got {number:g}")
                number = int(number)
            facts[name] = number
        elif name in BOOLEAN_FIELDS:
            if isinstance(text, bool):
                facts[name] = text
            elif str(text).lower() in ("yes", "y", "true"):
                facts[name] = True
            elif str(text).lower() in ("no", "n", "false"):
                facts[name] = False
            else:
                raise ValueError(f"{name}: answer yes, no or unknown, got {text!r}")
        elif name == "side":
            facts[name] = str(text).lower()
        else:
            raise ValueError(f"{name}: not a fact the triage knows")
    return KernelFacts(**facts)


def triage_report(values: dict) -> str:
    """The triage of a form's values as text, or a one-line message saying what to fix."""
    try:
        facts = facts_from_inputs(values)
    except ValueError as exc:
        return f"Cannot triage yet: {exc}"
    return triage(facts).text()
