"""The roofline model: ceilings, the attainable rate, the ridge, the two time bounds, verdicts.

Units, everywhere in this package:
- compute rates in GFLOP/s (decimal, 1e9 FLOP/s);
- bandwidths in GB/s (decimal, 1e9 byte/s; a GiB is 1.074 GB, and it is never used here);
- intensity in FLOP/byte;
- times in seconds.

Since GFLOP/s divided by GB/s is FLOP/byte, the ridge needs no conversion factor.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Optional

from rooflinelib.core import sanity

#: Relative distance from the ridge within which a point is said to sit *on* the ridge.
#: 10% is about the gap between roofs a student may take for one machine (its datasheet's
#: against a measured one, a read mix against a copy: on the H200 4,800 against 4,280 GB/s,
#: and 4,509 against 4,280), so closer than that the roof taken decides the side.  (A measured
#: ceiling's run-to-run spread is far smaller: under 1% for most of the H200's.)
RIDGE_TOLERANCE = 0.10

#: Below this fraction of its roof a kernel is not bound by either roof: a rule of thumb (a
#: measured ceiling wanders by a few percent, a kernel at half its roof by far more than that).
FAR_BELOW_FRACTION = 0.50

#: Above this fraction of its roof the measurement is not credible: a roof is a hard bound,
#: so exceeding it points at the counting, the units or the clock.  The 5% margin absorbs
#: timing noise and a ceiling measured a little under the true one.
ABOVE_ROOF_FRACTION = 1.05

SIDES = ("memory", "ridge", "compute")


def checked_count(field: str, value, minimum: int = 1) -> int:
    # numbers.Integral admits numpy integers (sweeps built with np.arange); NaN and inf are
    # checked before int() so that they get this message rather than int()'s own.
    whole = isinstance(value, numbers.Integral) or (
        isinstance(value, numbers.Real) and math.isfinite(value) and value == int(value))
    if isinstance(value, bool) or not whole:
        raise ValueError(f"{field}: must be a whole number, got {value!r}")
    if value < minimum:
        raise ValueError(f"{field}: must be at least {minimum}, got {value!r}")
    return int(value)


def checked_positive(field_name: str, value: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{field_name}: must be a number, got {value!r}") from None
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{field_name}: must be a positive finite number, got {value!r}")
    return number


def checked_non_negative(field_name: str, value: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{field_name}: must be a number, got {value!r}") from None
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{field_name}: must be a non-negative finite number, got {value!r}")
    return number


@dataclass(frozen=True)
class Work:
    """FLOPs and bytes of one run of something (a kernel launch, an operator instance):
    ``n_flops`` operations and ``n_bytes`` bytes moved across one boundary.  The pair every
    count in the package is: the operator catalogue's costs and the measurement kernels'
    accounting both are ``Work``."""

    n_flops: float
    n_bytes: float

    @property
    def intensity(self) -> float:
        """FLOP/byte; infinite for work that moves no bytes."""
        return self.n_flops / self.n_bytes if self.n_bytes else math.inf

    def gflops(self, seconds: float) -> float:
        return self.n_flops / seconds / 1e9

    def gbps(self, seconds: float) -> float:
        return self.n_bytes / seconds / 1e9


@dataclass(frozen=True)
class Ceiling:
    """One roof: a compute rate (GFLOP/s) or a memory bandwidth (GB/s).

    ``name`` follows the measurement engine's names: ``dram``, ``l2``, ``shared`` for memory;
    ``fp64``, ``fp32``, ``sfu``, ``tf32-tensor``, ``bf16-tensor``, ``fp16-tensor``,
    ``fp8-tensor``, ``fp32-matrix``, ``fp64-matrix`` for compute.
    """

    name: str
    kind: str  # "compute" or "memory"
    value: float  # GFLOP/s for compute, GB/s for memory
    source: str = ""
    label: str = ""

    def __post_init__(self):
        if self.kind not in ("compute", "memory"):
            raise ValueError(f"kind: must be 'compute' or 'memory', got {self.kind!r}")
        # A roof outside the physical band is a unit slip or a forged file, wherever it came
        # from; every chart and verdict downstream assumes a sane one.
        sanity.number(self.value, f"{self.name} value", error=ValueError, positive=True,
                      unit=self.unit)

    @property
    def unit(self) -> str:
        return "GFLOP/s" if self.kind == "compute" else "GB/s"

    @property
    def title(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class TimeBounds:
    """Lower bounds on a kernel's run time, in seconds."""

    compute_s: float  # F / P
    memory_s: float  # M / B
    overlapped_s: float  # max(F/P, M/B): loads and math fully overlap (the roofline's bound)
    serial_s: float  # F/P + M/B: no overlap at all

    @property
    def limiter(self) -> str:
        return "compute" if self.compute_s >= self.memory_s else "memory"


@dataclass(frozen=True)
class Verdict:
    """Where a kernel sits against one roofline, and what to do about it."""

    intensity: float
    ridge: float
    roof_gflops: float
    side: str  # "memory", "ridge" or "compute"
    achieved_gflops: Optional[float] = None
    fraction_of_roof: Optional[float] = None
    status: str = "unmeasured"  # "unmeasured", "near-roof", "below-roof", "far-below", "above-roof"
    advice: str = ""

    @property
    def bound(self) -> str:
        """Human wording of the side: 'memory-bound', 'compute-bound' or 'at the ridge'."""
        return {"memory": "memory-bound", "compute": "compute-bound", "ridge": "at the ridge"}[self.side]


GPU_ADVICE = ADVICE = {
    "memory": (
        "Memory-bound: move fewer bytes. Fuse kernels, tile for reuse in shared memory, "
        "use a smaller dtype, avoid materializing intermediates."
    ),
    # Near its compute roof a kernel's units are busy, so more ILP or occupancy buys nothing
    # (the triage says so below the roof): fewer FLOPs, or a faster roof for the same work.
    "compute": (
        "Compute-bound: do fewer FLOPs (a better algorithm), or change the instruction mix to "
        "reach a faster roof: tensor cores (matrix cores on AMD), packed half2/bf16x2 math, "
        "fewer or cheaper transcendentals."
    ),
    "ridge": (
        "Both roofs are close: overlap loads with math (software pipelining, prefetch, async "
        "copies), then re-measure."
    ),
    "far-below": (
        "Far below its roof: bound by something the roofline does not model. Check launch "
        "size and duration, occupancy and stall reasons, register spills, tail effects and "
        "whether the bytes are real before changing bytes or FLOPs."
    ),
    "above-roof": (
        "Above its roof, which is impossible: recheck the FLOP and byte counts, the units "
        "(GB vs GiB, bits vs bytes) and the clock the ceiling was measured at."
    ),
}


#: The same decision table for a CPU roofline: the levers there are SIMD lanes, cores and
#: caches, not shared memory, matrix cores or occupancy.
CPU_ADVICE = {
    "memory": (
        "Memory-bound on a CPU: move fewer bytes. Fuse loops, block (tile) for the L1 and L2 "
        "caches so data is reused while it is resident, use a smaller dtype, avoid "
        "materializing intermediates."
    ),
    "compute": (
        "Compute-bound on a CPU: fill every SIMD lane and every core. Vectorize to the full "
        "SIMD width (8 fp32 per AVX2 FMA, 16 with AVX-512), keep several independent FMA "
        "chains per core to hide FMA latency, and run one thread per physical core."
    ),
    "ridge": (
        "Both roofs are close: overlap loads with math (cache blocking with prefetch, so the next "
        "block streams in while this one computes), then re-measure."
    ),
    "far-below": (
        "Far below its roof: bound by something the roofline does not model. Check that the "
        "loop vectorized to the SIMD width, that every core runs one thread (no more), cache "
        "misses and NUMA placement, and whether the bytes are real before changing bytes or "
        "FLOPs."
    ),
    "above-roof": (
        "Above its roof, which is impossible: recheck the FLOP and byte counts, the units "
        "(GB vs GiB, bits vs bytes) and the clock (turbo) the ceiling was measured at."
    ),
}

#: What a roofline is of: a GPU (and the datasheet machines) or a CPU; picks the advice table.
TARGETS = ("gpu", "cpu")


@dataclass(frozen=True)
class Roofline:
    """One compute ceiling against one memory ceiling."""

    peak_gflops: float
    peak_gbps: float
    compute_name: str = "compute"
    memory_name: str = "memory"
    ridge_tolerance: float = RIDGE_TOLERANCE
    target: str = "gpu"

    def __post_init__(self):
        checked_positive("peak_gflops", self.peak_gflops)
        checked_positive("peak_gbps", self.peak_gbps)
        if not 0 <= self.ridge_tolerance < 1:
            raise ValueError("ridge_tolerance: must lie in [0, 1)")
        if self.target not in TARGETS:
            raise ValueError(f"target: must be one of {', '.join(TARGETS)}, got {self.target!r}")

    @property
    def ridge(self) -> float:
        """Ridge point P/B in FLOP/byte."""
        return ridge(self.peak_gflops, self.peak_gbps)

    def attainable_gflops(self, intensity: float) -> float:
        return attainable_gflops(intensity, self.peak_gflops, self.peak_gbps)

    def time_bounds(self, n_flops: float, n_bytes: float) -> TimeBounds:
        return time_bounds(n_flops, n_bytes, self.peak_gflops, self.peak_gbps)

    def side(self, intensity: float) -> str:
        return side_of_ridge(intensity, self.ridge, self.ridge_tolerance)

    def classify(self, intensity: float, achieved_gflops: Optional[float] = None) -> Verdict:
        return classify(intensity, self.peak_gflops, self.peak_gbps, achieved_gflops,
                        self.ridge_tolerance, self.target)


def ridge(peak_gflops: float, peak_gbps: float) -> float:
    """The intensity where the two roofs meet, P/B, in FLOP/byte."""
    return checked_positive("peak_gflops", peak_gflops) / checked_positive("peak_gbps", peak_gbps)


def attainable_gflops(intensity: float, peak_gflops: float, peak_gbps: float) -> float:
    """min(P, I*B): the best rate a kernel of this intensity can reach, in GFLOP/s."""
    intensity = checked_non_negative("intensity", intensity)
    return min(checked_positive("peak_gflops", peak_gflops), intensity * checked_positive("peak_gbps", peak_gbps))


def time_bounds(n_flops: float, n_bytes: float, peak_gflops: float, peak_gbps: float) -> TimeBounds:
    """Both lower bounds on run time: overlapped ``max(F/P, M/B)`` and serial ``F/P + M/B``."""
    n_flops = checked_non_negative("n_flops", n_flops)
    n_bytes = checked_non_negative("n_bytes", n_bytes)
    compute_s = n_flops / (checked_positive("peak_gflops", peak_gflops) * 1e9)
    memory_s = n_bytes / (checked_positive("peak_gbps", peak_gbps) * 1e9)
    return TimeBounds(compute_s, memory_s, max(compute_s, memory_s), compute_s + memory_s)


def side_of_ridge(intensity: float, ridge_intensity: float, tolerance: float = RIDGE_TOLERANCE) -> str:
    """'memory' left of the ridge, 'compute' right of it, 'ridge' within ``tolerance`` of it.

    The band is symmetric in log space, [ridge/(1+tol), ridge*(1+tol)], because the roofline
    is read on log axes.
    """
    intensity = checked_non_negative("intensity", intensity)
    ridge_intensity = checked_positive("ridge", ridge_intensity)
    if not 0 <= tolerance < 1:  # a negative band would make the sides overlap
        raise ValueError(f"ridge_tolerance: must lie in [0, 1), got {tolerance!r}")
    if intensity * (1 + tolerance) < ridge_intensity:
        return "memory"
    if intensity > ridge_intensity * (1 + tolerance):
        return "compute"
    return "ridge"


def classify(intensity: float, peak_gflops: float, peak_gbps: float,
             achieved_gflops: Optional[float] = None,
             ridge_tolerance: float = RIDGE_TOLERANCE, target: str = "gpu") -> Verdict:
    """The course's decision table: the side of the ridge first, then achieved against roof.
    ``target`` 'cpu' gives the CPU's advice (:data:`CPU_ADVICE`)."""
    if target not in TARGETS:
        raise ValueError(f"target: must be one of {', '.join(TARGETS)}, got {target!r}")
    ADVICE = CPU_ADVICE if target == "cpu" else GPU_ADVICE  # noqa: N806 - the table in use
    ridge_intensity = ridge(peak_gflops, peak_gbps)
    roof = attainable_gflops(intensity, peak_gflops, peak_gbps)
    side = side_of_ridge(intensity, ridge_intensity, ridge_tolerance)
    if achieved_gflops is None:
        return Verdict(intensity, ridge_intensity, roof, side, advice=ADVICE[side])
    achieved = checked_non_negative("achieved_gflops", achieved_gflops)
    if roof == 0:
        raise ValueError("intensity: a kernel with no arithmetic has no FLOP roof to score "
                         "against; score it as a fraction of bandwidth instead")
    fraction = achieved / roof
    if fraction > ABOVE_ROOF_FRACTION:
        status, advice = "above-roof", ADVICE["above-roof"]
    elif fraction < FAR_BELOW_FRACTION:
        status, advice = "far-below", ADVICE["far-below"]
    else:
        status = "near-roof" if fraction >= 0.8 else "below-roof"
        advice = ADVICE[side]
    return Verdict(intensity, ridge_intensity, roof, side, achieved, fraction, status, advice)


@dataclass(frozen=True)
class Machine:
    """A named set of ceilings, with where they came from."""

    name: str
    ceilings: tuple = ()
    source: str = ""
    date: str = ""
    kind: str = "datasheet"  # "datasheet", "measured", or "example" (round numbers for a lesson)
    notes: str = ""
    provenance: dict = field(default_factory=dict)

    def ceiling(self, name: str) -> Ceiling:
        for c in self.ceilings:
            if c.name == name:
                return c
        known = ", ".join(c.name for c in self.ceilings)
        raise KeyError(f"{self.name} has no ceiling {name!r}; it has: {known}")

    def has(self, name: str) -> bool:
        return any(c.name == name for c in self.ceilings)

    @property
    def compute_ceilings(self) -> list:
        return [c for c in self.ceilings if c.kind == "compute"]

    @property
    def memory_ceilings(self) -> list:
        return [c for c in self.ceilings if c.kind == "memory"]

    def roofline(self, compute: str = "fp32", memory: str = "dram") -> Roofline:
        p, b = self.ceiling(compute), self.ceiling(memory)
        if p.kind != "compute":
            raise ValueError(f"compute: {compute!r} is a memory ceiling")
        if b.kind != "memory":
            raise ValueError(f"memory: {memory!r} is a compute ceiling")
        return Roofline(p.value, b.value, compute_name=p.name, memory_name=b.name,
                        target=self.target)

    @property
    def target(self) -> str:
        """'cpu' for a CPU roofline (a live CPU measurement), else 'gpu'."""
        scope = (self.provenance or {}).get("scope")
        return "cpu" if scope == "cpu" or self.notes == "CPU roofline" else "gpu"

    def ridge(self, compute: str = "fp32", memory: str = "dram") -> float:
        return self.roofline(compute, memory).ridge

    def with_ceilings(self, *ceilings: Ceiling, **changes) -> "Machine":
        """A copy in which ``ceilings`` replace those of the same name (others are kept)."""
        new = {c.name: c for c in self.ceilings}
        for c in ceilings:
            new[c.name] = c
        fields = dict(name=self.name, ceilings=tuple(new.values()), source=self.source,
                      date=self.date, kind=self.kind, notes=self.notes,
                      provenance=dict(self.provenance))
        fields.update(changes)
        return Machine(**fields)
