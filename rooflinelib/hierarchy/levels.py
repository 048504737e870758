"""Memory levels found in a working-set sweep: plateaus, their bandwidths and capacities.

A working-set sweep reads a buffer of W bytes over and over and records the read bandwidth for
W from kilobytes to several times the last cache.  While W fits a cache, that cache serves the
reads; once it does not, the next level out does.  The bandwidth therefore falls in steps, and
each flat stretch (a *plateau*) is one memory level.  :func:`detect_levels` finds them in the
measured numbers alone: how many levels, the bandwidth of each (its ceiling), and the working set
at which each cache stops holding the data (its capacity).  Nothing about the machine is typed
in; the sizes a device reports only name the levels (:func:`name_levels`).

Pure standard library.  :mod:`rooflinelib.hierarchy.level_placement` places kernels against these
levels.
"""
from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass
from typing import Optional

from rooflinelib.core.model import Ceiling
from rooflinelib.hierarchy.workingset_files import HierarchyError

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
#: least STEP_MIN_DROP and at most PLATEAU_TOLERANCE (see _plateau_end).  A cache whose
#: replacement is not strict LRU keeps a shrinking share of the reads beyond its size, so past
#: the step the bandwidth can sink slowly; the start of the fall, not some depth of it, is where
#: the cache stops holding the whole working set.
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
    when ``ends_in_memory`` (the sweep reached several times the largest cache).  Returns a
    tuple of :class:`Level`; an empty tuple when the sweep shows no plateau.
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


def level_table(levels, reported=None, interpolated: bool = False, best: bool = True) -> str:
    """Plain-text table of detected levels: the plateau's bandwidth (what the sweep's kernel got
    from the level, not necessarily the level's roof: review 25c), its range, the capacity.

    Only main memory (``dram``) holds everything; a last plateau of a sweep that stopped short
    of it has no step within the sweep, and says so.  Given the cache sizes the machine reports
    (``{"l1": 32768, ...}``), a plateau whose range runs past one or more of them is marked as
    spanning those caches: it is not one cache level (a CPU's noisy sweep can give one).
    ``interpolated``: head the last column "fall starts" and mark each capacity "~", since it is
    interpolated between two swept sizes, not a size that was run (review 26c).  ``best``: add the
    column of the plateau's fastest sample ("best GB/s"); notebook 05 leaves it out (review 32c)."""
    lines = [f"{'level':<6} {'plateau GB/s':>13}" + (f" {'best GB/s':>11}" if best else "") + f"   {'working sets':<21} "
             + ("fall starts" if interpolated else "capacity")]
    for lv in levels:
        span = f"{format_bytes(lv.first_bytes)} - {format_bytes(lv.last_bytes)}"
        if lv.capacity_bytes:
            cap = ("~" if interpolated else "") + format_bytes(lv.capacity_bytes)
        elif lv.name == "dram":
            cap = "(holds everything)"
        else:
            cap = f"no step up to {format_bytes(lv.last_bytes)}"
        named = dict(reported or {})
        if "shared" in named and "l1" not in named:  # a GPU reports its L1's SRAM as shared memory
            named["l1"] = named.pop("shared")
        caches = sorted((size, name) for name, size in named.items() if name != "shared")
        crossed = [(size, name) for size, name in caches if lv.first_bytes < size < lv.last_bytes]
        holder = next(((size, name) for size, name in caches if size >= lv.last_bytes), None)
        if crossed:
            cap += "; spans " + ", ".join(f"{name} ({format_bytes(size)})" for size, name in crossed)
        elif lv.name != "dram" and not lv.capacity_bytes and holder and holder[1] != lv.name:
            # a plateau named by its order alone (a CPU sweep with no step inside it): say which
            # of the machine's caches its working sets fit
            cap += f"; inside {holder[1]} ({format_bytes(holder[0])})"
        fastest = f" {lv.best_gbps:>11,.0f}" if best else ""
        lines.append(f"{lv.name:<6} {lv.gbps:>13,.0f}{fastest}   {span:<21} {cap}")
    return "\n".join(lines)


def format_bytes(n) -> str:
    """Bytes in decimal units (kB, MB, GB), three significant digits: 48 kB, 50.3 MB."""
    n = float(n)
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"
