"""The hierarchical roofline: memory levels found in a working-set sweep, and a kernel placed
once per level.

A working-set sweep reads a buffer of W bytes over and over and records the read bandwidth for
W from kilobytes to several times the last cache.  While W fits a cache, that cache serves the
reads; once it does not, the next level out does.  The bandwidth therefore falls in steps, and
each flat stretch (a *plateau*) is one memory level.  :func:`detect_levels` finds them in the
measured numbers alone: how many levels, the bandwidth of each (its ceiling), and the working set
at which each cache stops holding the data (its capacity).  Nothing about the machine is typed in.

A kernel then enters with its FLOPs and the bytes it moves *at each level* (counted, or read off
Nsight Compute by :mod:`rooflinelib.ncu`).  Same FLOPs, different bytes: one intensity per level,
one point per level, all at the same GFLOP/s (the NERSC hierarchical roofline).  The level whose
bytes take the longest at its ceiling binds, and :func:`place_levels` names it.

Pure standard library: the measurement lives in :mod:`rooflinelib.workingset`, its file format
in :mod:`rooflinelib.workingset_results`, the charts in :mod:`rooflinelib.hierarchy_plot`.
"""
from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass
from typing import Optional

from .model import Ceiling, Machine
from .workingset_results import HierarchyError, Series, reported_sizes, series_by_access, series_of

# The result-file API stays reachable as ``hierarchy.<name>``, where notebooks, labs and
# benchmarks have always called it; each name is defined once, in workingset_results.
from .workingset_results import (ACCESSES, DATA_DIR, FORMAT, PATTERNS, ROW_KEYS,  # noqa: F401
                                 VERSION, load, loads, recorded, save, validate)

#: A point belongs to a plateau while it lies within this fraction of the plateau's median
#: bandwidth.  Runs on the H200 scatter by about 2%, and a cache level's own bandwidth drifts by
#: a few per cent across its range, while neighbouring levels differ by 2x or more.
PLATEAU_TOLERANCE = 0.15
#: A plateau must span at least this many octaves of working set (and MIN_POINTS points).  A
#: transition between two levels, sampled finely, holds short runs of similar points; a real
#: level holds its bandwidth for at least a doubling of the working set.
MIN_OCTAVES = 1.0
MIN_POINTS = 3
#: Two neighbouring plateaus closer than this ratio are one level split by noise.
MERGE_RATIO = 1.25
#: A plateau is flat: its least-squares slope stays below this change of bandwidth per doubling
#: of the working set (12%).  The tail of a transition, where a shrinking fraction of the reads
#: still hits the inner cache, can hold its bandwidth within PLATEAU_TOLERANCE over an octave,
#: but it falls faster than this.
MAX_SLOPE_PER_OCTAVE = 0.12

#: A plateau ends where the curve leaves it: the first step down (3-point running median) by
#: more than the plateau's own noise band, 3 times the point-to-point scatter of its points, at
#: least STEP_MIN_DROP and at most PLATEAU_TOLERANCE (see _plateau_end).  A cache whose replacement is not strict LRU keeps a shrinking share of
#: the reads beyond its size, so past the step the bandwidth can sink slowly; the start of the
#: fall, not some depth of it, is where the cache stops holding the whole working set.
STEP_MIN_DROP = 0.03
STEP_NOISE_BANDS = 3.0

#: What each level name means, for labels.
LEVEL_TITLES = {
    "l1": "L1 cache", "l2": "L2 cache", "l3": "L3 cache", "l4": "L4 cache",
    "l2-fast": "L2 cache, its fast range", "l3-fast": "L3 cache, its fast range",
    "dram": "main memory (DRAM/HBM)", "shared": "shared memory",
}


# ---------------------------------------------------------------------------------------------
# levels from a sweep


@dataclass(frozen=True)
class Level:
    """One memory level found in a working-set sweep.

    ``gbps`` is the level's ceiling: the median bandwidth over its plateau.  ``best_gbps`` is the
    plateau's highest point.  ``first_bytes`` .. ``last_bytes`` is the plateau's working-set
    range.  ``capacity_bytes`` is where the bandwidth leaves the plateau, i.e. the largest working
    set this level holds (``None`` for the last level, main memory, which holds everything).
    """

    name: str
    gbps: float
    best_gbps: float
    first_bytes: int
    last_bytes: int
    capacity_bytes: Optional[float]
    n_points: int

    @property
    def title(self) -> str:
        return LEVEL_TITLES.get(self.name, self.name)

    def ceiling(self, source: str = "") -> Ceiling:
        return Ceiling(self.name, "memory", self.gbps, source or "working-set sweep plateau (median)",
                       f"{self.title} (sweep)")


def _check_series(sizes, gbps):
    try:
        sizes = [float(s) for s in sizes]
        gbps = [float(g) for g in gbps]
    except (TypeError, ValueError):
        raise HierarchyError("sweep: sizes and gbps must be numbers") from None
    if len(sizes) != len(gbps):
        raise HierarchyError(f"sweep: {len(sizes)} sizes but {len(gbps)} bandwidths")
    if len(sizes) < MIN_POINTS:
        raise HierarchyError(f"sweep: needs at least {MIN_POINTS} points, got {len(sizes)}")
    for i, (s, g) in enumerate(zip(sizes, gbps)):
        if not (math.isfinite(s) and s > 0):
            raise HierarchyError(f"sweep: sizes[{i}] must be a positive number of bytes, got {s!r}")
        if not (math.isfinite(g) and g > 0):
            raise HierarchyError(f"sweep: gbps[{i}] must be a positive bandwidth, got {g!r}")
        if i and s <= sizes[i - 1]:
            raise HierarchyError(f"sweep: sizes must increase, got {s:g} after {sizes[i - 1]:g}")
    return sizes, gbps


def _runs(x, y, tolerance):
    """Greedy maximal runs of points within ``tolerance`` (in log units) of the run's median."""
    runs, start = [], 0
    for j in range(1, len(y) + 1):
        if j < len(y):
            ref = statistics.median(y[start:j])
            if abs(y[j] - ref) <= tolerance:
                continue
        runs.append((start, j))  # [start, j)
        start = j
    return runs


def _slope(x, y):
    """Least-squares slope of y on x."""
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sxx = sum((a - mx) ** 2 for a in x)
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / sxx if sxx else 0.0


def _flat_part(x, y, a, b, max_slope, min_points, min_octaves):
    """The run [a, b) itself if it is flat, else its flat core: points are dropped from
    whichever end lies farther from the run's median until the slope is small enough.
    None if too little is left."""
    while b - a >= min_points and x[b - 1] - x[a] >= min_octaves:
        if abs(_slope(x[a:b], y[a:b])) <= max_slope:
            return a, b
        mid = statistics.median(y[a:b])
        if abs(y[a] - mid) > abs(y[b - 1] - mid):
            a += 1
        else:
            b -= 1
    return None


def _plateau_end(x, raw, smooth, a, b, level, log_tol):
    """The working set (bytes) at which the curve leaves the plateau [a, b) of ``level`` (all in
    log units).  From the first point that reaches the level (a plateau can begin on the end
    of a rise or of a fall): the first step of the smoothed curve (3-point running median) below the median
    of the octave before it by more than the plateau's noise band, or PLATEAU_TOLERANCE below
    the level, whichever comes first; interpolated in log-log between the two points that
    straddle it.  The band is STEP_NOISE_BANDS times the scatter between neighbouring points
    of the plateau, at least STEP_MIN_DROP and at most PLATEAU_TOLERANCE.  Measured against the
    octave just before it, a slow drift along the plateau (the tail of a faster level inside
    it) is no step."""
    steps = [abs(raw[i + 1] - raw[i]) for i in range(a, b - 1)] or [0.0]
    scatter = 1.4826 * statistics.median(steps) / math.sqrt(2)
    band = min(max(STEP_NOISE_BANDS * scatter, math.log1p(STEP_MIN_DROP)), log_tol)
    rising = smooth[a] < level
    start = next((j for j in range(a, b) if (smooth[j] >= level if rising else smooth[j] <= level)), a)
    for j in range(start, len(smooth) - 1):
        window = [smooth[i] for i in range(start, j + 1) if x[j] - x[i] <= 1.0]
        edge = max(statistics.median(window) - band, level - log_tol)
        if smooth[j + 1] < edge:
            if smooth[j] <= edge:
                return 2.0 ** x[j]
            t = (smooth[j] - edge) / (smooth[j] - smooth[j + 1])
            return 2.0 ** (x[j] + t * (x[j + 1] - x[j]))
    return 2.0 ** x[b - 1]


def detect_levels(sizes, gbps, names=None, first_cache: int = 1, ends_in_memory: bool = True,
                  reported=None, tolerance: float = PLATEAU_TOLERANCE, min_octaves: float = MIN_OCTAVES,
                  min_points: int = MIN_POINTS, merge_ratio: float = MERGE_RATIO,
                  max_slope: float = MAX_SLOPE_PER_OCTAVE) -> tuple:
    """The memory levels of one working-set sweep, innermost first.

    ``sizes`` are working sets in bytes (increasing), ``gbps`` the bandwidth at each.  The
    bandwidth is smoothed with a 3-point running median (one stray point does not cut a plateau
    in two) and split into maximal runs of points within ``tolerance`` of the run's median.  A
    run, or its core once points at its ends are dropped, is a plateau when it spans at least
    ``min_octaves`` and ``min_points`` and its slope stays under ``max_slope`` per octave; the
    rest are the transitions between plateaus.  A level's capacity is where the curve leaves
    its plateau (:data:`STEP_MIN_DROP`).  Neighbouring plateaus within ``merge_ratio`` of one another are
    merged, and a plateau that is slower than the one after it is dropped (small working sets
    can underuse the machine: that is no memory level).

    Names: ``names`` if given (one per level found, else an error), otherwise
    :func:`name_levels`: the caches the device reports (``reported``, bytes by name) name the
    levels whose capacities match them; without those, ``l1``, ``l2``, ... counted from
    ``first_cache`` (2 for a sweep whose loads bypass the L1).  The last plateau is ``dram``
    when ``ends_in_memory`` (the sweep reached several times the largest cache).  Returns a tuple of :class:`Level`; an empty tuple when the sweep shows no plateau.
    """
    sizes, gbps = _check_series(sizes, gbps)
    x = [math.log2(s) for s in sizes]
    raw = [math.log(g) for g in gbps]
    smooth = [raw[0]] + [statistics.median(raw[i - 1:i + 2]) for i in range(1, len(raw) - 1)] + [raw[-1]]
    log_tol = math.log1p(tolerance)
    log_slope = math.log1p(max_slope)
    plateaus = [run for run in (_flat_part(x, smooth, a, b, log_slope, min_points, min_octaves)
                                for a, b in _runs(x, smooth, log_tol)) if run]

    def level_of(run):
        return statistics.median(raw[run[0]:run[1]])

    merged = True
    while merged and len(plateaus) > 1:  # merge the closest neighbouring pair first
        merged = False
        gaps = [abs(level_of(plateaus[i]) - level_of(plateaus[i + 1])) for i in range(len(plateaus) - 1)]
        i = min(range(len(gaps)), key=gaps.__getitem__)
        if gaps[i] < math.log(merge_ratio):
            plateaus[i:i + 2] = [(plateaus[i][0], plateaus[i + 1][1])]
            merged = True
    # A level must be faster than every level outside it.
    kept = []
    for run in plateaus:
        while kept and level_of(kept[-1]) <= level_of(run):
            kept.pop()
        kept.append(run)
    plateaus = kept
    if not plateaus:
        return ()

    capacities = [_plateau_end(x, raw, smooth, a, b, level_of((a, b)), log_tol) if index < len(plateaus) - 1
                  else None for index, (a, b) in enumerate(plateaus)]
    # A plateau holds the working sets up to its capacity; the slow fall after it, however
    # shallow, belongs to the transition.
    plateaus = [(a, b) if capacity is None else
                (a, max(min(b, a + min_points), max([i + 1 for i in range(a, b) if sizes[i] <= capacity],
                                                    default=b)))
                for (a, b), capacity in zip(plateaus, capacities)]

    if names is None:
        names = name_levels(capacities, reported, first_cache, ends_in_memory)
    names = list(names)
    if len(names) != len(plateaus):
        raise HierarchyError(f"names: {len(plateaus)} levels found but {len(names)} names given")
    return tuple(Level(names[i], math.exp(level_of((a, b))), max(gbps[a:b]), int(sizes[a]),
                       int(sizes[b - 1]), capacities[i], b - a)
                 for i, (a, b) in enumerate(plateaus))


def name_levels(capacities, reported=None, first_cache: int = 1, ends_in_memory: bool = True) -> list:
    """Names for levels of these capacities (bytes; None for the last), innermost first.

    Without ``reported`` sizes: ``l1``, ``l2``, ... from ``first_cache``, and ``dram`` for the
    last level when ``ends_in_memory``.  With them (``{"l2": 62914560, "shared": 233472}``, as
    the device or the OS reports its caches): each reported cache names the level whose
    capacity is nearest to its size, if within a factor of two (a GPU reports its shared memory,
    which is one SRAM with its L1, so ``shared`` names ``l1``).  A level left over below a
    matched cache sits inside that cache's capacity and is faster: a fast range of it,
    ``<name>-fast`` (the H200's L2 has one).  Any other level takes the number after the level
    inside it.
    """
    n = len(capacities)
    names = [None] * n
    if ends_in_memory and n:
        names[-1] = "dram"
    caches = dict(reported or {})
    if "shared" in caches and "l1" not in caches:
        caches["l1"] = caches.pop("shared")
    caches.pop("shared", None)
    matched = set()
    for cache, size in sorted(caches.items(), key=lambda kv: kv[1]):
        free = [i for i in range(n) if names[i] is None and capacities[i]]
        if not free or not size > 0:
            continue
        best = min(free, key=lambda i: abs(math.log2(capacities[i] / size)))
        if abs(math.log2(capacities[best] / size)) <= 1.0:
            names[best] = cache
            matched.add(best)
    for i in range(n):
        if names[i] is not None:
            continue
        outer = next((j for j in range(i + 1, n) if j in matched), None)
        if outer is not None:
            candidate = f"{names[outer]}-fast"
        else:  # the next number after the level inside it
            previous = names[i - 1] if i else None
            number = (int(previous[1:]) + 1 if previous and re.fullmatch(r"l\d+", previous)
                      else first_cache + i)
            candidate = f"l{number}"
        while candidate in names:
            candidate += "+"
        names[i] = candidate
    return names


def inside_each_level(levels) -> dict:
    """A working set well inside each level's plateau, by level name: the geometric middle of
    the plateau's first and last working sets."""
    return {lv.name: (lv.first_bytes * lv.last_bytes) ** 0.5 for lv in levels}


def level_table(levels) -> str:
    """Plain-text table of detected levels: bandwidth, plateau range, capacity."""
    lines = [f"{'level':<6} {'ceiling GB/s':>13} {'best GB/s':>11}   {'plateau':<21} capacity"]
    for lv in levels:
        span = f"{format_bytes(lv.first_bytes)} - {format_bytes(lv.last_bytes)}"
        cap = format_bytes(lv.capacity_bytes) if lv.capacity_bytes else "(holds everything)"
        lines.append(f"{lv.name:<6} {lv.gbps:>13,.0f} {lv.best_gbps:>11,.0f}   {span:<21} {cap}")
    return "\n".join(lines)


def format_bytes(n) -> str:
    """Bytes in decimal units (kB, MB, GB), three significant digits: 48 kB, 50.3 MB."""
    n = float(n)
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


# ---------------------------------------------------------------------------------------------
# a kernel placed at every level


@dataclass(frozen=True)
class HierarchicalKernel:
    """One kernel: ``n_flops`` FLOPs and the bytes it moves at each memory level.

    ``bytes_by_level`` maps a level name (``l1``, ``l2``, ``dram``, ...) to bytes.
    ``achieved_gflops`` is the measured rate, or None when the kernel was not timed.
    """

    name: str
    n_flops: float
    bytes_by_level: dict
    achieved_gflops: Optional[float] = None

    def __post_init__(self):
        from .placement import check_name
        object.__setattr__(self, "name", check_name(self.name))
        if (isinstance(self.n_flops, bool) or not isinstance(self.n_flops, (int, float))
                or not math.isfinite(self.n_flops) or not self.n_flops > 0):
            raise HierarchyError(f"{self.name}: n_flops must be a positive number, got {self.n_flops!r}")
        if not isinstance(self.bytes_by_level, dict) or not self.bytes_by_level:
            raise HierarchyError(f"{self.name}: bytes_by_level must name at least one level")
        clean = {}
        for level, n in self.bytes_by_level.items():
            if isinstance(n, bool) or not isinstance(n, (int, float)) or not math.isfinite(n) or n <= 0:
                raise HierarchyError(f"{self.name}: bytes at {level} must be a positive number, got {n!r}")
            clean[str(level)] = float(n)
        object.__setattr__(self, "bytes_by_level", clean)
        if self.achieved_gflops is not None:
            a = self.achieved_gflops
            if isinstance(a, bool) or not isinstance(a, (int, float)) or not math.isfinite(a) or a <= 0:
                raise HierarchyError(f"{self.name}: achieved_gflops must be a positive number, got {a!r}")

    def intensity(self, level: str) -> float:
        """FLOP/byte at ``level``."""
        return self.n_flops / self.bytes_by_level[level]


@dataclass(frozen=True)
class LevelPoint:
    """The kernel seen from one level: its bytes there, its intensity, the roof at it."""

    level: str
    n_bytes: float
    intensity: float
    ceiling_gbps: float
    roof_gflops: float  # min(P, I * B_level)
    time_s: float  # n_bytes / B_level: the shortest time this level allows
    fraction_of_roof: Optional[float]  # achieved / roof at this level


@dataclass(frozen=True)
class HierarchicalPlacement:
    """Where a kernel sits against every level, and which one binds."""

    name: str
    n_flops: float
    achieved_gflops: Optional[float]
    compute: str
    compute_gflops: float
    compute_time_s: float
    points: tuple
    binding: str  # a level name, or the compute ceiling's name
    roof_gflops: float  # F / max(every level's time, the compute time)
    close: tuple = ()  # other levels (or compute) whose time is within TIE_TOLERANCE of the binding one

    @property
    def fraction_of_roof(self) -> Optional[float]:
        if self.achieved_gflops is None:
            return None
        return self.achieved_gflops / self.roof_gflops

    def point(self, level: str) -> LevelPoint:
        for p in self.points:
            if p.level == level:
                return p
        raise KeyError(f"level: {self.name} has no point at {level!r}")

    @property
    def binding_is_memory(self) -> bool:
        return self.binding != self.compute

    def verdict(self) -> str:
        """Which level binds, in one or two sentences, with the lesson of seed 000's Lab 4."""
        rate = (f"{self.achieved_gflops:,.0f} GFLOP/s achieved, "
                f"{100 * self.fraction_of_roof:.0f}% of the hierarchical roof"
                if self.achieved_gflops is not None else "not timed")
        tied = ""
        if self.close:
            tied = (", tied with " + " and ".join(LEVEL_TITLES.get(c, c) for c in self.close)
                    + f" within {TIE_TOLERANCE:.0%}")
        if not self.binding_is_memory:
            return (f"{self.name}: bound by {self.compute} compute ({self.compute_gflops:,.0f} "
                    f"GFLOP/s){tied}: no level takes longer to move its bytes than the arithmetic "
                    f"takes ({rate}).")
        bind = self.point(self.binding)
        title = LEVEL_TITLES.get(self.binding, self.binding) + tied
        text = (f"{self.name}: bound by {title} — its {format_bytes(bind.n_bytes)} need "
                f"{bind.time_s * 1e6:,.1f} us at {bind.ceiling_gbps:,.0f} GB/s, the longest of any "
                f"level ({rate}).")
        try:
            dram = self.point("dram")
        except KeyError:
            return text
        reused = bind.n_bytes >= REUSE_FACTOR * dram.n_bytes
        if (self.binding != "dram" and "dram" not in self.close and reused
                and dram.intensity < self.compute_gflops / dram.ceiling_gbps):
            text += (f" Against DRAM alone it looks memory-bound (I = {dram.intensity:.3g}), yet "
                     "DRAM is not the limit: the reuse already works (each byte from DRAM is read "
                     f"{bind.n_bytes / dram.n_bytes:.0f} times at {self.binding}), and the traffic at "
                     f"{self.binding} is what to cut (more reuse closer to the cores: registers, "
                     "shared-memory tiles), not the DRAM bytes.")
        return text


#: Two bounds within this fraction of each other bind together: the ceilings themselves are
#: known to a few per cent, so the roofline cannot tell such levels apart (as at the ridge).
TIE_TOLERANCE = 0.10
#: The cache lesson needs reuse: the binding level moves at least this many times the DRAM bytes.
REUSE_FACTOR = 2.0


def place_levels(kernel: HierarchicalKernel, machine: Machine, compute: str = "fp32") -> HierarchicalPlacement:
    """Place ``kernel`` against each level of ``machine`` it has bytes for.

    Every level named in ``kernel.bytes_by_level`` must be a memory ceiling of ``machine``.
    Each level bounds the run time from below by bytes / bandwidth, the compute ceiling by
    FLOPs / peak; the largest bound binds (the roofline's max, over every level at once).
    """
    try:
        peak = machine.ceiling(compute)
    except KeyError as exc:
        raise HierarchyError(f"compute: {exc.args[0]}") from None
    if peak.kind != "compute":
        raise HierarchyError(f"compute: {compute!r} is a memory ceiling")
    compute_s = kernel.n_flops / (peak.value * 1e9)
    points, times = [], {compute: compute_s}
    for level, n_bytes in kernel.bytes_by_level.items():
        if not machine.has(level):
            names = ", ".join(c.name for c in machine.memory_ceilings)
            raise HierarchyError(f"level: {kernel.name} has bytes at {level!r}, but {machine.name} "
                                 f"has no such memory ceiling (it has: {names})")
        b = machine.ceiling(level)
        if b.kind != "memory":
            raise HierarchyError(f"level: {level!r} is a compute ceiling of {machine.name}")
        intensity = kernel.n_flops / n_bytes
        roof = min(peak.value, intensity * b.value)
        fraction = None if kernel.achieved_gflops is None else kernel.achieved_gflops / roof
        time_s = n_bytes / (b.value * 1e9)
        times[level] = time_s
        points.append(LevelPoint(level, n_bytes, intensity, b.value, roof, time_s, fraction))
    binding = max(times, key=times.get)
    close = tuple(name for name, t in sorted(times.items(), key=lambda kv: -kv[1])
                  if name != binding and t * (1 + TIE_TOLERANCE) >= times[binding])
    return HierarchicalPlacement(kernel.name, kernel.n_flops, kernel.achieved_gflops, compute,
                                 peak.value, compute_s, tuple(points), binding,
                                 kernel.n_flops / max(times.values()) / 1e9, close)


def placement_table(placements) -> str:
    """Plain-text table: one row per kernel and level, the binding level marked with '<'."""
    lines = [f"{'kernel':<28} {'level':<6} {'bytes':>10} {'I (FLOP/B)':>11} {'roof GFLOP/s':>13} "
             f"{'of roof':>8}"]
    for pl in placements:
        for p in pl.points:
            frac = "" if p.fraction_of_roof is None else f"{100 * p.fraction_of_roof:.0f}%"
            mark = " <" if p.level == pl.binding else ""
            lines.append(f"{pl.name[:28]:<28} {p.level:<6} {format_bytes(p.n_bytes):>10} "
                         f"{p.intensity:>11.3g} {p.roof_gflops:>13,.0f} {frac:>8}{mark}")
    return "\n".join(lines)


def hierarchical_machine(levels, compute_machine: Machine, compute=("fp32",), name: str = None,
                         extra=()) -> Machine:
    """A machine with one memory ceiling per detected level plus ``compute_machine``'s
    ``compute`` ceilings (and any ``extra`` ceilings, e.g. a measured ``shared``)."""
    ceilings = [lv.ceiling() for lv in levels]
    for c in compute:
        ceilings.append(compute_machine.ceiling(c))
    ceilings.extend(extra)
    return Machine(name=name or f"{compute_machine.name} (hierarchy)", ceilings=tuple(ceilings),
                   source="working-set sweep + " + (compute_machine.source or compute_machine.name),
                   date=compute_machine.date, kind="measured",
                   provenance=dict(compute_machine.provenance))


# ---------------------------------------------------------------------------------------------
# the working-set model: what a kernel that re-reads W bytes moves at each level


def working_set_traffic(ws_bytes: float, reads: float, levels) -> dict:
    """Bytes at each level for a kernel that reads a working set of ``ws_bytes`` ``reads``
    times over (``reads * ws_bytes`` bytes requested), under the simplest cache model.

    Every request reaches the innermost level.  A level further out sees only the misses of
    the level inside it: the working set once (its first touch) when it fits the inner level's
    capacity, every request when it does not (a cyclic sweep larger than an LRU cache misses on
    every access).
    """
    if not (ws_bytes > 0 and reads >= 1):
        raise HierarchyError(f"working set: need ws_bytes > 0 and reads >= 1, got {ws_bytes!r}, {reads!r}")
    if not levels:
        raise HierarchyError("levels: the sweep gave no level")
    requested = ws_bytes * reads
    traffic = {levels[0].name: requested}
    for inner, outer in zip(levels, levels[1:]):
        fits = inner.capacity_bytes is not None and ws_bytes <= inner.capacity_bytes
        traffic[outer.name] = ws_bytes if fits else requested
    return traffic


@dataclass(frozen=True)
class WorkingSetState:
    """The kernel of the working-set widget at one working-set size."""

    ws_bytes: float
    reads: float
    flops_per_byte: float
    kernel: HierarchicalKernel
    placement: HierarchicalPlacement
    predicted_gbps: float  # requested bytes / predicted time
    measured_gbps: Optional[float]  # the sweep's bandwidth at the nearest measured size
    measured_bytes: Optional[float]

    def text(self) -> str:
        pl = self.placement
        lines = [f"working set {format_bytes(self.ws_bytes)}, read {self.reads:g} times, "
                 f"{self.flops_per_byte:g} FLOP per byte requested: bound by "
                 f"{LEVEL_TITLES.get(pl.binding, pl.binding)} ({pl.binding})."]
        line = f"model: {self.predicted_gbps:,.0f} GB/s of reads"
        if self.measured_gbps is not None:
            line += (f"; the sweep measured {self.measured_gbps:,.0f} GB/s at "
                     f"{format_bytes(self.measured_bytes)}")
        lines.append(line + ".")
        return "\n".join(lines)


def working_set_state(levels, machine: Machine, ws_bytes: float, reads: float = 64,
                      flops_per_byte: float = 0.25, compute: str = "fp32", sweep=None) -> WorkingSetState:
    """The widget's kernel at working set ``ws_bytes``: traffic per level, placement, and the
    sweep's measured bandwidth at the nearest size (``sweep`` = (sizes, gbps), optional)."""
    for field_name, value in (("ws_bytes", ws_bytes), ("reads", reads), ("flops_per_byte", flops_per_byte)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise HierarchyError(f"{field_name}: must be a positive number, got {value!r}")
    traffic = working_set_traffic(ws_bytes, reads, levels)
    requested = ws_bytes * reads
    kernel = HierarchicalKernel("working-set kernel", flops_per_byte * requested, traffic)
    placement = place_levels(kernel, machine, compute)
    predicted = requested / (kernel.n_flops / (placement.roof_gflops * 1e9)) / 1e9
    measured = measured_at = None
    if sweep is not None:
        sizes, gbps = sweep
        nearest = min(range(len(sizes)), key=lambda i: abs(math.log(sizes[i] / ws_bytes)))
        measured, measured_at = float(gbps[nearest]), float(sizes[nearest])
    return WorkingSetState(ws_bytes, reads, flops_per_byte, kernel, placement, predicted,
                           measured, measured_at)


# ---------------------------------------------------------------------------------------------
# levels of a working-set result (the file itself: rooflinelib.workingset_results)


def series_levels(series: Series, ends_in_memory: bool = True, reported=None, **options) -> tuple:
    """:func:`detect_levels` on one :class:`~rooflinelib.workingset_results.Series`."""
    return detect_levels(series.sizes, series.gbps, first_cache=series.first_cache,
                         ends_in_memory=ends_in_memory, reported=reported, **options)


def ends_in_memory(result: dict, series: Series) -> bool:
    """True when the series reached at least twice the largest cache the device reports (or
    when no size is reported): its last plateau is then main memory."""
    sizes = [v for k, v in reported_sizes(result).items() if k != "shared"]
    return not sizes or series.sizes[-1] >= 2 * max(sizes)


def result_levels(result: dict, series: str = None, **options) -> tuple:
    """Detected levels of one series of a working-set result."""
    s = series_of(result, series)
    return series_levels(s, ends_in_memory(result, s), reported_sizes(result), **options)


@dataclass(frozen=True)
class StepCheck:
    """A detected capacity against the size the device reports."""

    level: str
    detected_bytes: float
    reported_bytes: float

    @property
    def ratio(self) -> float:
        return self.detected_bytes / self.reported_bytes

    def within(self, fraction: float = 0.25) -> bool:
        return abs(self.ratio - 1) <= fraction


def compare_steps(levels, reported: dict) -> list:
    """Each detected capacity against the reported size of the cache of the same name (the
    GPU's L1 is compared with its shared-memory size too, since both are one SRAM)."""
    checks = []
    for lv in levels:
        if lv.capacity_bytes is None:
            continue
        for key in (lv.name, "shared" if lv.name == "l1" else None):
            if key and key in reported:
                checks.append(StepCheck(key if key == lv.name else f"{lv.name} vs shared",
                                        lv.capacity_bytes, reported[key]))
    return checks


def _levels(result, series):
    return series_levels(series, ends_in_memory(result, series), reported_sizes(result))


def hierarchy_series(result: dict) -> tuple:
    """The series a result's levels are taken from, innermost first.

    On a GPU: the L1 from the series in which every SM reads the whole working set (global
    loads, 'spread'), since the L1 is per SM; the L2 and DRAM from the series in which each
    block reads its own slice through the L2 only ('global-cg', 'slices'), since blocks that
    share data fetch it together and make a working set larger than the L2 look cached.  That
    series counts only from the working set that gives every block chunks of its own
    (``Series.own_data``): below it, blocks share chunks, requests for one line merge before
    they reach the L2's slices, and the rate is no bandwidth of the L2 (notebook 05).  On a
    CPU, or a file with other series: the first series alone.
    """
    inner = series_by_access(result, "global", "spread")
    outer = series_by_access(result, "global-cg", "slices")
    if inner is not None and outer is not None:
        return inner, outer.own_data()
    main = series_by_access(result, "cpu") or series_by_access(result, "global") or series_of(result)
    return (main,)


def hierarchy_levels(result: dict) -> tuple:
    """The memory levels of a working-set result, innermost first (see :func:`hierarchy_series`)."""
    chosen = hierarchy_series(result)
    if len(chosen) == 1:
        levels = _levels(result, chosen[0])
    else:
        inner, outer = chosen
        levels = tuple(lv for lv in _levels(result, inner) if lv.name == "l1")[:1] + _levels(result, outer)
    if not levels:
        raise HierarchyError(f"{result['device']['name']}: series {chosen[-1].name!r}: no plateau found")
    return levels


def reference_curve(result: dict) -> tuple:
    """(sizes, gbps): the measured bandwidth the levels came from, one value per size: the
    inner series up to the L1's capacity, the outer one beyond (one series on a CPU)."""
    chosen = hierarchy_series(result)
    if len(chosen) == 1:
        return chosen[0].sizes, chosen[0].gbps
    inner, outer = chosen
    l1 = hierarchy_levels(result)[0]
    edge = l1.capacity_bytes if l1.name == "l1" and l1.capacity_bytes else 0
    pairs = [(x, g) for x, g in zip(inner.sizes, inner.gbps) if x <= edge]
    pairs += [(x, g) for x, g in zip(outer.sizes, outer.gbps) if x > edge]
    return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def machine_from_result(result: dict, compute_machine: Machine, compute=("fp32", "fp64"),
                        name: str = None) -> Machine:
    """The hierarchical machine of a working-set result: one memory ceiling per level
    (:func:`hierarchy_levels`), a ``shared`` ceiling from its shared-memory series when there is
    one, and ``compute_machine``'s compute ceilings."""
    levels = hierarchy_levels(result)
    extra = []
    shared = series_by_access(result, "shared")
    if shared is not None and not any(lv.name == "shared" for lv in levels):
        extra.append(Ceiling("shared", "memory", statistics.median(shared.gbps),
                             "shared-memory tiles of the working-set sweep (median)", "shared memory (sweep)"))
    wanted = tuple(c for c in compute if compute_machine.has(c))
    if not wanted:
        raise HierarchyError(f"compute: {compute_machine.name} has none of {', '.join(compute)}")
    date = result["created"][:10]
    machine = hierarchical_machine(levels, compute_machine, wanted,
                                   name or f"{result['device']['name']} (hierarchy, measured {date})", extra)
    provenance = dict(result["device"], workingset_created=result["created"],
                      compute_source=compute_machine.source)
    return Machine(machine.name, machine.ceilings, machine.source, date, "measured", machine.notes, provenance)
