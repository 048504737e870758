"""Placing a kernel on a roofline: its FLOPs, bytes and (optionally) measured rate, and the verdict.

A kernel enters the course in one of three ways: as an operator from the catalogue
(:mod:`rooflinelib.core.operators`), typed by a student on the command line
(``--kernel "my_softmax, 5*2**24, 8*2**24, 410"``), or built in a notebook.  All three become a
:class:`KernelPoint`, and :func:`place` turns a point and a :class:`~rooflinelib.core.model.Roofline`
into the record that the ASCII chart, the Plotly chart and ``roofline plot --json`` all print.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from rooflinelib.core.expr import parse_positive
from rooflinelib.core.model import Roofline, ADVICE

#: Longest kernel name accepted: long enough for "fused attention bf16 s=8192 causal GQA 8:1",
#: short enough that a table row stays readable.
MAX_NAME_CHARS = 60

#: Intensities outside this band (FLOP/byte) are a unit slip, not a kernel: nothing real moves
#: one byte per 1e12 FLOPs or the other way round, and the charts need finite logarithms.
MIN_INTENSITY = 1e-12
MAX_INTENSITY = 1e12

#: The ``--kernel`` format, quoted in error messages.
KERNEL_SPEC_FORMAT = "name, flops, bytes[, achieved_gflops]"

#: The keys of :func:`place`'s record, in print order (``roofline plot --json`` relies on them).
PLACEMENT_KEYS = ("name", "flops", "bytes", "intensity", "roof_gflops", "side",
                  "achieved_gflops", "fraction_of_roof", "advice")


def check_name(name, field: str = "name") -> str:
    """A kernel name, stripped, or ``ValueError``: non-empty, at most 60 characters, printable."""
    if not isinstance(name, str):
        raise ValueError(f"{field}: must be text, got {type(name).__name__}")
    stripped = name.strip()
    if not stripped:
        raise ValueError(f"{field}: must not be empty")
    if len(stripped) > MAX_NAME_CHARS:
        raise ValueError(f"{field}: longer than {MAX_NAME_CHARS} characters")
    if not stripped.isprintable():
        # Control characters would break the one-line table rows and error messages.
        raise ValueError(f"{field}: contains control or non-printable characters")
    return stripped


def _positive_number(value, field: str) -> float:
    # parse_positive accepts numbers and formula strings alike and rejects bools, inf and nan.
    return parse_positive(value, field)


@dataclass(frozen=True)
class KernelPoint:
    """One kernel: ``n_flops`` FLOPs and ``n_bytes`` bytes of memory traffic per launch.

    ``achieved_gflops`` is the measured rate (``n_flops / seconds / 1e9``), or ``None`` when the
    kernel has not been timed; the point then sits on its roof.  ``memory_ceiling`` names the
    memory ceiling a chart judges this point against (``"dram-2tbs"``), when the chart draws
    it; ``None`` means the chart's first memory ceiling: the machine's ``"dram"`` ceiling when
    it has one, unless the chart's ``memory=`` puts another first.
    """

    name: str
    n_flops: float
    n_bytes: float
    achieved_gflops: Optional[float] = None
    memory_ceiling: Optional[str] = None

    def __post_init__(self):
        object.__setattr__(self, "name", check_name(self.name))
        if self.memory_ceiling is not None:
            object.__setattr__(self, "memory_ceiling",
                               check_name(self.memory_ceiling, "memory_ceiling"))
        object.__setattr__(self, "n_flops", _positive_number(self.n_flops, "n_flops"))
        object.__setattr__(self, "n_bytes", _positive_number(self.n_bytes, "n_bytes"))
        if self.achieved_gflops is not None:
            object.__setattr__(self, "achieved_gflops",
                               _positive_number(self.achieved_gflops, "achieved_gflops"))
        intensity = self.n_flops / self.n_bytes
        if not MIN_INTENSITY <= intensity <= MAX_INTENSITY:
            raise ValueError(f"intensity: flops/bytes = {intensity:.3g} FLOP/byte is outside "
                             f"{MIN_INTENSITY:g}..{MAX_INTENSITY:g}; check the units")

    @property
    def intensity(self) -> float:
        """Arithmetic intensity in FLOP/byte."""
        return self.n_flops / self.n_bytes

    @classmethod
    def from_op(cls, op, achieved_gflops: Optional[float] = None) -> "KernelPoint":
        """A point from anything with ``name``, ``n_flops`` and ``n_bytes`` (e.g. an ``OpCost``)."""
        if achieved_gflops is None:
            achieved_gflops = getattr(op, "achieved_gflops", None)
        return cls(op.name, op.n_flops, op.n_bytes, achieved_gflops)


def as_kernel_point(kernel) -> KernelPoint:
    """``kernel`` itself if it is a :class:`KernelPoint`, else :meth:`KernelPoint.from_op`."""
    return kernel if isinstance(kernel, KernelPoint) else KernelPoint.from_op(kernel)


def parse_kernel_spec(text, option: str = "--kernel") -> KernelPoint:
    """Parse ``"name, flops, bytes[, achieved_gflops]"``; numeric fields may be formulas.

    Errors are :class:`ValueError` (or its subclass :class:`ExpressionError`) with a one-line
    message that starts with the option and names the field, e.g.
    ``--kernel 'my_softmax' flops: names and calls are not allowed, only numbers``.
    """
    if not isinstance(text, str):
        raise ValueError(f"{option}: expected text {KERNEL_SPEC_FORMAT!r}")
    parts = [part.strip() for part in text.split(",")]
    shown = text.strip()
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    if len(parts) not in (3, 4):
        raise ValueError(f"{option} {shown!r}: expected {KERNEL_SPEC_FORMAT!r}, "
                         f"got {len(parts)} comma-separated field{'s' if len(parts) != 1 else ''}")
    try:
        name = check_name(parts[0], "name")
    except ValueError as exc:
        raise ValueError(f"{option} {shown!r} {exc}") from None
    where = f"{option} {name!r}"
    n_flops = parse_positive(parts[1], f"{where} flops")
    n_bytes = parse_positive(parts[2], f"{where} bytes")
    achieved = parse_positive(parts[3], f"{where} achieved_gflops") if len(parts) == 4 else None
    try:
        return KernelPoint(name, n_flops, n_bytes, achieved)
    except ValueError as exc:  # the numbers are valid one by one; their ratio may not be
        raise ValueError(f"{where} {exc}") from None


def place(kernel, roofline: Roofline) -> dict:
    """Where ``kernel`` sits on ``roofline``, as a plain record (JSON-ready).

    Keys, in order: ``name``, ``flops``, ``bytes``, ``intensity`` (FLOP/byte), ``roof_gflops``
    (``min(P, I*B)``), ``side`` (``memory``, ``ridge`` or ``compute``), ``achieved_gflops`` and
    ``fraction_of_roof`` (both ``None`` when no rate was measured), and ``advice``: the next step
    from the course's decision table, via :meth:`Roofline.classify`.
    """
    point = as_kernel_point(kernel)
    verdict = roofline.classify(point.intensity, point.achieved_gflops)
    return {
        "name": point.name,
        "flops": point.n_flops,
        "bytes": point.n_bytes,
        "intensity": point.intensity,
        "roof_gflops": verdict.roof_gflops,
        "side": verdict.side,
        "achieved_gflops": verdict.achieved_gflops,
        "fraction_of_roof": verdict.fraction_of_roof,
        "advice": verdict.advice,
    }


def verdict_phrase(kernel, roofline: Roofline) -> str:
    """A short verdict for labels and hover text: 'memory-bound, 14% of roof (far below)'."""
    point = as_kernel_point(kernel)
    verdict = roofline.classify(point.intensity, point.achieved_gflops)
    if verdict.fraction_of_roof is None:
        return f"{verdict.bound} (not measured)"
    status = {"near-roof": "near its roof", "below-roof": "below its roof",
              "far-below": "far below its roof", "above-roof": "above its roof: check counts"}
    return (f"{verdict.bound}, {100 * verdict.fraction_of_roof:.0f}% of roof "
            f"({status.get(verdict.status, verdict.status)})")



# --- Lab 2: place a measured kernel in five steps ------------------------------------------------

#: The decision table: the situation read off the chart, what it means, and which of the
#: model's verdicts (:data:`rooflinelib.core.model.ADVICE`) says what to do next.
DECISION_TABLE = (
    ("I < ridge and achieved near the roof", "memory-bound and near its bandwidth roof", "memory"),
    ("I > ridge and achieved near the roof", "compute-bound and near peak", "compute"),
    ("achieved far below the roof (under half)", "bound by something the roofline does not model",
     "far-below"),
    ("I near the ridge", "both roofs are close", "ridge"),
)


def decision_rows() -> list:
    """:data:`DECISION_TABLE` as printable rows, each with its advice from the model."""
    return [{"situation": s, "meaning": m, "next": ADVICE[key]} for s, m, key in DECISION_TABLE]


def _decision_key(verdict) -> str:
    if verdict.status in ("far-below", "above-roof"):
        return verdict.status
    return verdict.side


def five_steps(name: str, n_flops: float, n_bytes: float, seconds: float, roofline: Roofline,
               profiled_bytes: Optional[float] = None, machine_name: str = "") -> list:
    """A measured kernel placed by the five steps, each as ``(step, what it found)``:

    1. the FLOPs, counted from the algorithm; 2. the bytes, counted for the ideal
    implementation, and set against the profiler's when ``profiled_bytes`` is given (a large
    ratio is an access-pattern bug, not a roofline result); 3. the intensity and the roof from
    the measured ceilings; 4. the achieved rate from the measured time; 5. achieved against
    roof, and the decision table's row.
    """
    check_name(name)
    flops, nbytes = _positive_number(n_flops, "n_flops"), _positive_number(n_bytes, "n_bytes")
    seconds = _positive_number(seconds, "seconds")
    steps = [("1. FLOPs, from the algorithm", f"{flops:.4g} FLOPs")]
    if profiled_bytes is None:
        steps.append(("2. bytes", f"{nbytes:.4g} bytes counted for the ideal implementation; no profiler "
                                  "count here, so the ratio to the real traffic is unchecked (notebook 05 "
                                  "does this step with Nsight Compute)"))
    else:
        measured = _positive_number(profiled_bytes, "profiled_bytes")
        ratio = measured / nbytes
        steps.append(("2. bytes", f"{nbytes:.4g} counted, {measured:.4g} profiled: {ratio:.2f}x"
                      + (" - an access-pattern problem to fix before any roofline verdict" if ratio > 1.5 else "")))
    intensity = flops / nbytes
    verdict = roofline.classify(intensity, flops / seconds / 1e9)
    where = f" ({machine_name})" if machine_name else ""
    steps.append(("3. intensity and roof", f"I = {intensity:.4g} FLOP/byte against a ridge of {verdict.ridge:.4g}; "
                  f"roof = min({roofline.peak_gflops:,.0f} GFLOP/s, I x {roofline.peak_gbps:,.0f} GB/s) = "
                  f"{verdict.roof_gflops:,.1f} GFLOP/s{where}"))
    steps.append(("4. achieved", f"{flops:.4g} FLOPs in {seconds * 1e3:.5g} ms = {verdict.achieved_gflops:,.0f} GFLOP/s"))
    key = _decision_key(verdict)
    row = next((r for r in DECISION_TABLE if r[2] == key), None)
    situation = f"{row[0]}: {row[1]}" if row else "above its roof: recheck the counts and units"
    steps.append(("5. compare and act", f"{100 * verdict.fraction_of_roof:.0f}% of the roof, {verdict.bound}. "
                  f"Row: {situation}. Next: {verdict.advice}"))
    return steps
