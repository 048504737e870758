"""A profiled kernel: its counts, its time, where it sits on the student's ceilings, and why.

:class:`ProfileResult` is what :func:`rooflinelib.profile` returns.  ``to_dict()`` holds the keys
``roofline plot --json`` prints for a kernel (``name``, ``flops``, ``bytes``, ``intensity``,
``roof_gflops``, ``side``, ``achieved_gflops``, ``fraction_of_roof``, ``advice``) and everything
else the result knows; ``save`` writes that as JSON through the one write path and :func:`load`
reads it back, checked field by field.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Optional

from rooflinelib.core import sanity
from rooflinelib.store.fileio import read_json, write_atomic

FORMAT = "rooflinelib-profile"
VERSION = 1


class ProfileError(ValueError):
    """Bad input to the profiler, or a profile file that cannot be used: one line naming the
    argument (or the file and field) and the reason."""


@dataclass(frozen=True)
class ProfileResult:
    name: str
    n_flops: float
    n_bytes: float
    seconds: float  # median of the timed repeats
    spread: float  # (max - min) / median
    first_call_s: float
    repeats: int
    library: str  # "numba", "cupy", "torch" or "cpu"
    clock: str  # "device events" or "perf_counter"
    machine: str  # the name of the ceilings' machine
    ceilings_source: str  # where the ceilings came from, in one sentence
    compute: str  # the compute ceiling it is placed against
    memory: str  # the memory ceiling it is placed against
    peak_gflops: float
    peak_gbps: float
    roof_gflops: float
    side: str  # "memory" or "compute"
    fraction_of_roof: float
    advice: str
    device: dict = field(default_factory=dict)  # provenance, with the clocks before and after
    counted: Optional[dict] = None  # count_bytes() of the launch, when it could be counted
    measured: Optional[dict] = None  # ncu counters, when collected
    hierarchical: Optional[dict] = None  # the level-by-level placement from the counters
    notes: tuple = ()
    samples_s: tuple = ()  # every timed repeat, in order (a regression gate's interval needs them)
    ceilings_sm_clock_mhz: Optional[float] = None  # the SM clock the compute ceiling was measured at
    #: what makes this placement untrustworthy, in words (core.result_warnings): CPU code on a
    #: GPU's ceilings or the reverse, ceilings of another device, a clock that moved the roof
    warnings: tuple = ()

    @property
    def intensity(self) -> float:
        return self.n_flops / self.n_bytes

    @property
    def achieved_gflops(self) -> float:
        return self.n_flops / self.seconds / 1e9

    @property
    def achieved_gbps(self) -> float:
        return self.n_bytes / self.seconds / 1e9

    @property
    def ridge(self) -> float:
        return self.peak_gflops / self.peak_gbps

    def to_dict(self) -> dict:
        record = {
            "name": self.name, "flops": self.n_flops, "bytes": self.n_bytes,
            "intensity": self.intensity, "roof_gflops": self.roof_gflops, "side": self.side,
            "achieved_gflops": self.achieved_gflops, "fraction_of_roof": self.fraction_of_roof,
            "advice": self.advice,
        }
        body = asdict(self)
        body["notes"] = list(self.notes)
        body["samples_s"] = list(self.samples_s)
        body["warnings"] = list(self.warnings)
        record.update({k: v for k, v in body.items() if k not in ("name",)})
        record.update({"achieved_gbps": self.achieved_gbps, "ridge": self.ridge})
        return {"format": FORMAT, "version": VERSION, **record}

    def save(self, path):
        """Write the result as JSON to ``path`` (temporary file, then rename); the path.
        A result that :func:`load` would refuse is not written: one ``ProfileError`` names
        the field."""
        record = self.to_dict()
        from_dict(record, f"{path}: not written")
        try:
            text = json.dumps(record, indent=1, allow_nan=False) + "\n"
        except (ValueError, TypeError) as exc:  # a non-finite or foreign value in a nested field
            raise ProfileError(f"{path}: not written: {' '.join(str(exc).split())[:120]}") from None
        return write_atomic(path, text, ProfileError)

    def kernel_point(self):
        """The result as a :class:`rooflinelib.core.placement.KernelPoint` (for charts and tables)."""
        from rooflinelib.core.placement import KernelPoint
        return KernelPoint(self.name, self.n_flops, self.n_bytes, self.achieved_gflops)

    def text(self) -> str:
        """A few lines: the rate, the roof, the verdict and the next step."""
        from rooflinelib.views.widget_state import gflops_text, seconds_text
        lines = [f"{self.name}: {seconds_text(self.seconds)} median of {self.repeats} "
                 f"({self.clock}, {self.library}; spread {self.spread:.1%}, first call "
                 f"{seconds_text(self.first_call_s)})",
                 f"  {self.n_flops:,.0f} FLOPs, {self.n_bytes:,.0f} bytes: I = {self.intensity:.4g} FLOP/byte "
                 f"against a ridge of {self.ridge:.4g} ({self.compute} / {self.memory} of {self.machine})",
                 f"  achieved {gflops_text(self.achieved_gflops)} and {self.achieved_gbps:,.1f} GB/s: "
                 f"{self.side}-bound, {percent(self.fraction_of_roof)} of its roof "
                 f"({gflops_text(self.roof_gflops)})",
                 f"  advice: {self.advice}",
                 f"  ceilings: {self.ceilings_source}"]
        lines += [f"  WARNING: {w}" for w in self.warnings]
        if self.counted:
            lines.append(f"  counted in the simulator: {self.counted['read']:,} bytes read, "
                         f"{self.counted['written']:,} written ({self.counted['unique_read'] + self.counted['unique_written']:,} distinct)")
        if self.measured:
            m = self.measured
            lines.append(f"  ncu: DRAM {m['dram_read_bytes'] + m['dram_write_bytes']:,.0f} bytes, "
                         f"L2 {m['lts_bytes']:,.0f}, L1 {m['l1_bytes']:,.0f}; "
                         f"{m['kernels']} kernel launch(es)")
        if self.hierarchical:
            lines.append(f"  levels: {self.hierarchical['verdict']}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def figure(self, others=None, title=None, text_positions=None):
        """This kernel on the Plotly roofline of its ceilings, next to ``others``:
        ProfileResults or KernelPoints; by default the course's six demonstration operators
        (:func:`rooflinelib.core.operators.demo_kernels`, on their roofs: they are not timed).
        ``text_positions`` (``{kernel name: Plotly textposition}``, default None: every label
        on its default side) goes to :func:`rooflinelib.views.plotting.roofline_figure`."""
        if self.n_flops <= 0:
            raise ProfileError(f"{self.name}: n_flops is 0, so it has no point on a FLOP/s roofline")
        from rooflinelib.views.plotting import roofline_figure
        from rooflinelib.core.machines import get_machine
        from rooflinelib.core.model import Ceiling, Machine
        try:
            machine = get_machine(self.machine)
            machine.ceiling(self.compute), machine.ceiling(self.memory)
        except (KeyError, ValueError):
            machine = Machine(self.machine, (Ceiling(self.compute, "compute", self.peak_gflops),
                                             Ceiling(self.memory, "memory", self.peak_gbps)))
        if others is None:
            from rooflinelib.core.operators import demo_kernels
            from rooflinelib.core.placement import KernelPoint
            others = [KernelPoint.from_op(op) for op in demo_kernels()]
        points = [self.kernel_point()] + [o.kernel_point() if isinstance(o, ProfileResult) else o
                                          for o in others]
        return roofline_figure(machine, points, compute=[self.compute], memory=[self.memory],
                               title=title or f"{self.name} on {self.machine}", text_positions=text_positions)


def percent(fraction: float) -> str:
    """'84%', or two significant digits below 10% ('0.31%'), so that a tiny share is not '0%'."""
    return f"{fraction:.0%}" if fraction >= 0.1 else f"{100 * fraction:.2g}%"


# --- reading a saved result back -------------------------------------------------------------

_TEXTS = ("name", "library", "clock", "machine", "ceilings_source", "compute", "memory", "side", "advice")

#: Each number's rule, the one profile() and every other reader apply (``sanity.BANDS``): the
#: unit whose band it must lie in when above 0 (None: finite alone), and whether 0 is allowed.
_NUMBERS = {
    "n_flops": ("FLOPs", False), "n_bytes": ("bytes", True), "seconds": ("s", True),
    "spread": (None, False), "first_call_s": ("s", False), "peak_gflops": ("GFLOP/s", True),
    "peak_gbps": ("GB/s", True), "roof_gflops": ("GFLOP/s", False), "fraction_of_roof": (None, False),
}
#: What a result derives from those numbers: each must come out finite, or the result is not
#: one profile() could have made (1e21 FLOPs in 1e-300 s is an infinite rate).
_DERIVED = ("intensity", "achieved_gflops", "achieved_gbps", "ridge")


def _number(value, field: str, unit, positive: bool) -> float:
    x = sanity.number(value, field, error=ProfileError, positive=positive, nonnegative=not positive)
    if unit is not None and x > 0:
        sanity.number(x, field, error=ProfileError, unit=unit)
    return x


def _field(data: dict, key: str, where: str):
    if key not in data:
        raise ProfileError(f"{where}: {key}: missing")
    return data[key]


def from_dict(data, where: str = "profile") -> ProfileResult:
    """A :class:`ProfileResult` from ``to_dict()``'s output, every field checked."""
    if not isinstance(data, dict):
        raise ProfileError(f"{where}: expected a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ProfileError(f"{where}: format: expected {FORMAT!r}, got {data.get('format')!r}")
    if data.get("version") != VERSION:
        raise ProfileError(f"{where}: version: expected {VERSION}, got {data.get('version')!r}")
    values = {key: _number(_field(data, key, where), f"{where}: {key}", unit, positive)
              for key, (unit, positive) in _NUMBERS.items()}
    for key in _TEXTS:
        v = _field(data, key, where)
        if not isinstance(v, str) or len(v) > 2000:
            raise ProfileError(f"{where}: {key}: must be a text of at most 2000 characters")
        values[key] = v
    if values["side"] not in ("memory", "compute"):
        raise ProfileError(f"{where}: side: must be 'memory' or 'compute', got {values['side']!r}")
    repeats = _field(data, "repeats", where)
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ProfileError(f"{where}: repeats: must be a whole number >= 1, got {repeats!r}")
    optional = {}
    for key in ("device", "counted", "measured", "hierarchical"):
        v = data.get(key)
        if v is not None and not isinstance(v, dict):
            raise ProfileError(f"{where}: {key}: must be an object or null")
        optional[key] = v
    notes = data.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise ProfileError(f"{where}: notes: must be a list of texts")
    samples = data.get("samples_s", [])  # absent from files saved before it was kept
    if (not isinstance(samples, list) or len(samples) > 100_000
            or not all(not isinstance(x, bool) and isinstance(x, (int, float)) and sanity.in_band(x, "s")
                       for x in samples)):
        raise ProfileError(f"{where}: samples_s: must be a list of at most 100000 times, each "
                           f"{sanity.BANDS['s'][0]:g} to {sanity.BANDS['s'][1]:g} s")
    warnings = data.get("warnings", [])  # absent from files saved before results carried them
    if (not isinstance(warnings, list) or len(warnings) > 20
            or not all(isinstance(w, str) and len(w) <= 2000 for w in warnings)):
        raise ProfileError(f"{where}: warnings: must be a list of at most 20 texts")
    clock = data.get("ceilings_sm_clock_mhz")
    if clock is not None and (isinstance(clock, bool) or not isinstance(clock, (int, float))
                              or not math.isfinite(clock) or not 0 < clock < 1e5):
        raise ProfileError(f"{where}: ceilings_sm_clock_mhz: must be null or a clock in MHz, got {clock!r}")
    result = ProfileResult(repeats=repeats, device=optional["device"] or {}, counted=optional["counted"],
                           measured=optional["measured"], hierarchical=_l1_named(optional["hierarchical"]),
                           notes=tuple(notes), samples_s=tuple(float(x) for x in samples),
                           ceilings_sm_clock_mhz=None if clock is None else float(clock),
                           warnings=tuple(warnings), **values)
    for key in _DERIVED:
        value = getattr(result, key)
        if not math.isfinite(value):
            raise ProfileError(f"{where}: {key}: {value!r} from the stored numbers; no run makes that")
    return result


#: (stored title, title now) of the L1's level in a placement's verdict
SHARED_TO_L1_TITLES = ("shared memory", "L1 cache")


def _l1_named(hierarchical):
    """A stored placement as a live profile makes it now: files saved before the L1 was named
    (the H200's shipped profiles among them) keep ncu's L1 bytes on a ``shared`` level, whose
    verdict reads "bound by shared memory" for traffic that never touched shared memory."""
    if not hierarchical or not isinstance(hierarchical.get("levels"), dict):
        return hierarchical
    levels = hierarchical["levels"]
    if "shared" not in levels or "l1" in levels:
        return hierarchical
    renamed = dict(hierarchical, levels={("l1" if k == "shared" else k): v for k, v in levels.items()})
    if renamed.get("binding") == "shared":
        renamed["binding"] = "l1"
    if isinstance(renamed.get("verdict"), str):
        # the two levels' titles in hierarchy.levels.LEVEL_TITLES, which the verdict quotes;
        # written out so that loading a profile does not import the hierarchy package
        renamed["verdict"] = renamed["verdict"].replace(*SHARED_TO_L1_TITLES).replace(" at shared", " at l1")
    return renamed


def load(path) -> ProfileResult:
    """Read a profile written by :meth:`ProfileResult.save`."""
    return from_dict(read_json(path, ProfileError, "a profile file"), str(path))
