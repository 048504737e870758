"""The hierarchical roofline: memory levels found in a working-set sweep, and a kernel placed
once per level.

The levels of a working-set sweep (the flat stretches of its bandwidth curve, one per memory
level) are found by :mod:`rooflinelib.hierarchy.levels`.

A kernel then enters with its FLOPs and the bytes it moves *at each level* (counted, or read off
Nsight Compute by :mod:`rooflinelib.hierarchy.ncu`).  Same FLOPs, different bytes: one intensity per level,
one point per level, all at the same GFLOP/s (the NERSC hierarchical roofline).  The level whose
bytes take the longest at its ceiling binds, and :func:`place_levels` names it.

Pure standard library: the measurement lives in :mod:`rooflinelib.hierarchy.workingset`, its file
format in :mod:`rooflinelib.hierarchy.workingset_files`, the charts in :mod:`rooflinelib.hierarchy.plot`.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Optional

from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.core.placement import check_name
from rooflinelib.hierarchy.levels import LEVEL_TITLES, detect_levels, format_bytes
from rooflinelib.hierarchy.workingset_files import (HierarchyError, Series, reported_sizes,
                                                    series_by_access, series_of)


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
        """Which level binds, in one or two sentences, with the lesson of Lab 4."""
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
    """Plain-text table: one row per kernel and level, the binding level marked with '<', a level
    tied with the binding bound (``close``: within :data:`TIE_TOLERANCE`) with '='; a line under
    the table says what '=' and a kernel with no '<' mean, when the table has either."""
    lines = [f"{'kernel':<28} {'level':<6} {'bytes':>10} {'I (FLOP/B)':>11} {'roof GFLOP/s':>13} "
             f"{'of roof':>8}"]
    for pl in placements:
        for p in pl.points:
            frac = "" if p.fraction_of_roof is None else f"{100 * p.fraction_of_roof:.0f}%"
            mark = " <" if p.level == pl.binding else " =" if p.level in pl.close else ""
            lines.append(f"{pl.name[:28]:<28} {p.level:<6} {format_bytes(p.n_bytes):>10} "
                         f"{p.intensity:>11.3g} {p.roof_gflops:>13,.0f} {frac:>8}{mark}")
    notes = []
    if any(not pl.binding_is_memory for pl in placements):
        notes.append("no '<': compute binds")
    if any(p.level in pl.close for pl in placements for p in pl.points):
        notes.append(f"'=': its bytes take within {TIE_TOLERANCE:.0%} of the binding time, so both are close")
    if notes:
        lines.append("; ".join(notes))
    return "\n".join(lines)


#: Levels whose roof comes from Lab 1 when the compute machine measured them.  The L2 ceiling's
#: kernel (many short blocks) lets the L2's slices serve what the best public L2 benchmark gets
#: from them; the working-set sweep's resident blocks, which must cycle over their own chunks
#: to find the capacity, read some 7% less on the H200.  The sweep still finds where the level
#: ends.  DRAM takes Lab 1's ``dram`` ceiling too, so that one DRAM figure serves every chart of
#: the course (notebook 07 and ``roofline profile`` use the same); the sweep's plateau reads only,
#: and its source line keeps it beside Lab 1's figure.
LEVELS_FROM_LAB1 = ("l2", "dram")


def level_ceiling(level, compute_machine: Machine) -> Ceiling:
    """The roof of one detected level: Lab 1's ceiling of the same name where
    :data:`LEVELS_FROM_LAB1` says so and ``compute_machine`` measured one, else the plateau.
    Either way the source names both numbers."""
    if (level.name in LEVELS_FROM_LAB1 and compute_machine.kind == "measured"
            and compute_machine.has(level.name) and compute_machine.ceiling(level.name).kind == "memory"):
        lab1 = compute_machine.ceiling(level.name)
        # lab1.label names what the roof holds for: the L2's footprint, DRAM's access mix
        return Ceiling(level.name, "memory", lab1.value,
                       f"Lab 1's {level.name} ceiling, {lab1.label} ({lab1.source}); the working-set sweep's "
                       f"plateau is {level.gbps:,.0f} GB/s and its step gives the capacity", f"{level.title} (notebook 03)")
    return level.ceiling()


def hierarchical_machine(levels, compute_machine: Machine, compute=("fp32",), name: str = None,
                         extra=()) -> Machine:
    """A machine with one memory ceiling per detected level (:func:`level_ceiling`) plus
    ``compute_machine``'s ``compute`` ceilings (and any ``extra`` ceilings, e.g. a measured
    ``shared``)."""
    ceilings = [level_ceiling(lv, compute_machine) for lv in levels]
    for c in compute:
        ceilings.append(compute_machine.ceiling(c))
    ceilings.extend(extra)
    return Machine(name=name or f"{compute_machine.name} (hierarchy)", ceilings=tuple(ceilings),
                   source="working-set sweep + " + (compute_machine.source or compute_machine.name),
                   date=compute_machine.date, kind="measured",
                   provenance=dict(compute_machine.provenance))


def with_read_roof(machine: Machine, dram_mixes: dict) -> Machine:
    """``machine`` with its DRAM roof at the read mix of ``dram_mixes`` (``{mix: GB/s}``, as
    ``store.results.dram_mixes`` gives): the roof of a kernel that only reads, as the
    working-set kernel does.  The course scores a memory-bound kernel against its own access
    mix; the ``dram`` ceiling is the fastest mix (writing, on the H200), which a read stream
    cannot reach."""
    return with_mix_roof(machine, dram_mixes, "read")


#: The words of each DRAM access mix in a roof's title.
MIX_WORDS = {"read": "reading", "write": "writing", "copy": "reading and writing (a copy)"}


def access_mix(counts: dict) -> str:
    """The DRAM access mix of a kernel whose hand counts ``counts`` give ``dram_read_bytes`` and
    ``dram_write_bytes`` (one may be absent: none of it): ``read`` or ``write`` when it only does
    one, else ``copy`` (Lab 1's copy reads and writes equal amounts; the nearest measured mix
    for any kernel that does both)."""
    read, write = (counts.get(key, 0) if isinstance(counts, dict) else None
                   for key in ("dram_read_bytes", "dram_write_bytes"))
    for key, value in (("dram_read_bytes", read), ("dram_write_bytes", write)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise HierarchyError(f"{key}: must be a number of bytes (0 or more), got {value!r}")
    if not read > 0 and not write > 0:
        raise HierarchyError("dram_read_bytes, dram_write_bytes: a kernel with DRAM traffic reads or writes something")
    return "read" if not write > 0 else "write" if not read > 0 else "copy"


def with_mix_roof(machine: Machine, dram_mixes: dict, mix: str) -> Machine:
    """``machine`` with its DRAM roof at the access mix ``mix`` of ``dram_mixes`` (``read``,
    ``write`` or ``copy``, see :func:`access_mix`): the roof a kernel with that mix is scored
    against (notebook 05 places each profiled kernel on its own)."""
    if mix not in MIX_WORDS:
        raise HierarchyError(f"mix: must be one of {', '.join(MIX_WORDS)}, got {mix!r}")
    if mix not in dram_mixes:
        raise HierarchyError(f"dram_mixes: no {mix} mix measured, so a kernel with that access mix "
                             "has no DRAM roof of its own")
    old = machine.ceiling("dram")
    return machine.with_ceilings(Ceiling(
        "dram", "memory", dram_mixes[mix],
        f"Lab 1's DRAM {mix} mix (the machine's dram roof, {old.value:,.0f} GB/s, is its fastest mix)",
        f"main memory (DRAM/HBM), {MIX_WORDS[mix]} (notebook 03)"))


# ---------------------------------------------------------------------------------------------
# the working-set model: what a kernel that re-reads W bytes moves at each level

#: Levels each SM (or core) has a copy of: a working set that fits one is fetched into it once
#: per reader.  The L1's capacity is per SM (its 256 KiB SRAM is per SM; docs/h200-facts.md).
PRIVATE_LEVELS = ("l1",)


def working_set_traffic(ws_bytes: float, reads: float, levels, readers: int = 1,
                        private=PRIVATE_LEVELS) -> dict:
    """Bytes at each level for a kernel in which each of ``readers`` SMs (or cores) reads the
    same working set of ``ws_bytes`` ``reads`` times over (``readers * reads * ws_bytes`` bytes
    requested), under the simplest cache model.

    Every request reaches the innermost level.  A level further out sees only the misses of
    the level inside it.  When the working set fits the inner level's capacity, those misses
    are its first touch: once per reader for a level each SM has a copy of (``private``: the L1,
    whose capacity is per SM), so the L2 sees W once per SM that reads it; once in all for a
    shared level (the L2), so DRAM sees W once.  When it does not fit, every request the inner
    level saw misses (a cyclic sweep larger than an LRU cache misses on every access; readers
    whose requests for one line happen to coincide could share a fetch, which the model leaves out).
    """
    if not (ws_bytes > 0 and reads >= 1):
        raise HierarchyError(f"working set: need ws_bytes > 0 and reads >= 1, got {ws_bytes!r}, {reads!r}")
    if isinstance(readers, bool) or not isinstance(readers, int) or readers < 1:
        raise HierarchyError(f"readers: must be a whole number of SMs or cores, at least 1, got {readers!r}")
    if not levels:
        raise HierarchyError("levels: the sweep gave no level")
    traffic = {levels[0].name: readers * reads * ws_bytes}
    for inner, outer in zip(levels, levels[1:]):
        fits = inner.capacity_bytes is not None and ws_bytes <= inner.capacity_bytes
        if fits:
            traffic[outer.name] = readers * ws_bytes if inner.name in private else ws_bytes
        else:
            traffic[outer.name] = traffic[inner.name]
    return traffic


def sm_readers(result: dict) -> int:
    """How many readers the working-set model gives a result's machine: a GPU's SM count (the
    model lets every SM read the whole set, as the sweep's 'spread' series does while the set fits
    one block's window, :func:`.workingset_files.spread_reading`), 1 on a CPU."""
    device = result.get("device", {})
    count = device.get("sm_count") if device.get("kind") == "gpu" else None
    return count if isinstance(count, int) and not isinstance(count, bool) and count >= 1 else 1


@dataclass(frozen=True)
class WorkingSetState:
    """The kernel of the working-set widget at one working-set size."""

    ws_bytes: float
    reads: float
    flops_per_byte: float
    kernel: HierarchicalKernel
    placement: HierarchicalPlacement
    predicted_gbps: float  # requested bytes / predicted time
    measured_gbps: Optional[float]  # the sweep's bandwidth at the nearest size on the same level
    measured_bytes: Optional[float]
    level: str = ""  # the level whose range holds the working set (see level_holding)
    readers: int = 1  # SMs (or cores) that each read the whole working set

    def text(self) -> str:
        pl = self.placement
        by = f" by each of {self.readers} SMs" if self.readers > 1 else ""
        lines = [f"working set {format_bytes(self.ws_bytes)}, read {self.reads:g} times{by}, "
                 f"{self.flops_per_byte:g} FLOP per byte loaded: bound by "
                 f"{LEVEL_TITLES.get(pl.binding, pl.binding)} ({pl.binding})."]
        line = f"model: {self.predicted_gbps:,.0f} GB/s of reads"
        if self.measured_gbps is not None:
            line += (f"; the sweep measured {self.measured_gbps:,.0f} GB/s at "
                     f"{format_bytes(self.measured_bytes)}")
            if self.measured_bytes and abs(math.log2(self.measured_bytes / self.ws_bytes)) > 0.5:
                line += f", the nearest working set it measured in the {self.level} range"
        lines.append(line + ".")
        return "\n".join(lines)


def working_set_state(levels, machine: Machine, ws_bytes: float, reads: float = 64,
                      flops_per_byte: float = 0.25, compute: str = "fp32", sweep=None,
                      readers: int = 1) -> WorkingSetState:
    """The widget's kernel at working set ``ws_bytes``, read ``reads`` times by each of
    ``readers`` SMs (:func:`sm_readers`): traffic per level, placement, and the sweep's measured
    bandwidth at the nearest size (``sweep`` = (sizes, gbps), optional)."""
    for field_name, value in (("ws_bytes", ws_bytes), ("reads", reads), ("flops_per_byte", flops_per_byte)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise HierarchyError(f"{field_name}: must be a positive number, got {value!r}")
    traffic = working_set_traffic(ws_bytes, reads, levels, readers)
    requested = readers * reads * ws_bytes
    kernel = HierarchicalKernel("working-set model", flops_per_byte * requested, traffic)  # a prediction
    placement = place_levels(kernel, machine, compute)
    predicted = requested / (kernel.n_flops / (placement.roof_gflops * 1e9)) / 1e9
    measured = measured_at = None
    home = level_holding(levels, ws_bytes)
    if sweep is not None:
        sizes, gbps = sweep
        # Only a size the same level holds is quoted: the sweep leaves gaps (on the H200 none
        # between the L1's step and the L2-only series' own-data range), and the nearest size
        # across a step would quote another level's bandwidth.
        same = [i for i in range(len(sizes)) if level_holding(levels, sizes[i]) is home]
        if same:
            nearest = min(same, key=lambda i: abs(math.log(sizes[i] / ws_bytes)))
            measured, measured_at = float(gbps[nearest]), float(sizes[nearest])
    return WorkingSetState(ws_bytes, reads, flops_per_byte, kernel, placement, predicted,
                           measured, measured_at, home.name, readers)


def level_holding(levels, size: float):
    """The innermost level whose capacity holds ``size`` bytes (the last level holds all)."""
    return next((lv for lv in levels if lv.capacity_bytes is None or size <= lv.capacity_bytes), levels[-1])


# ---------------------------------------------------------------------------------------------
# levels of a working-set result (the file itself: rooflinelib.hierarchy.workingset_files)


def series_levels(series: Series, ends_in_memory: bool = True, reported=None, **options) -> tuple:
    """:func:`detect_levels` on one :class:`~rooflinelib.hierarchy.workingset_files.Series`."""
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


#: The SRAM each SM splits between its L1 data cache and shared memory, by compute capability:
#: 256 KiB on Hopper (NVIDIA Hopper Tuning Guide; docs/h200-facts.md).  The L1 gets this block
#: minus the shared-memory carve-out the driver picks for the kernel.
L1_SHARED_SRAM_BYTES = {(9, 0): 256 * 1024}


def l1_sram_bytes(result: dict) -> Optional[float]:
    """The unified L1 and shared-memory SRAM per SM of the result's GPU (bytes), or None where
    the course has no source for it (another architecture, or a CPU)."""
    try:
        cc = tuple(int(x) for x in str(result["device"].get("compute_capability", "")).split("."))
    except (KeyError, ValueError):
        return None
    size = L1_SHARED_SRAM_BYTES.get(cc)
    return float(size) if size else None


def compare_steps(levels, reported: dict, sram_bytes: Optional[float] = None) -> list:
    """Each detected capacity against the reported size of the cache of the same name.  Given
    ``sram_bytes`` (:func:`l1_sram_bytes`), the GPU's L1 step is also set against the SRAM it
    shares with shared memory, which bounds it from above: the largest shared-memory size would
    be the wrong yardstick, since the L1 is what the carve-out leaves."""
    checks = []
    for lv in levels:
        if lv.capacity_bytes is None:
            continue
        if lv.name in reported:
            checks.append(StepCheck(lv.name, lv.capacity_bytes, reported[lv.name]))
        if lv.name == "l1" and sram_bytes:
            checks.append(StepCheck("l1 vs l1+shared", lv.capacity_bytes, sram_bytes))
    return checks


def _levels(result, series):
    return series_levels(series, ends_in_memory(result, series), reported_sizes(result))


def hierarchy_series(result: dict) -> tuple:
    """The series a result's levels are taken from, innermost first.

    On a GPU: the L1 from the series whose blocks each read a window of the set from their own
    start (global loads, 'spread'; at the L1's sizes the window holds the whole set, so every SM
    reads all of it), since the L1 is per SM; the L2 and DRAM from the series in which each
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


@dataclass(frozen=True)
class StepBracket:
    """Where a level's plateau ends, as the sweep resolves it: the last sample on the plateau
    (``below``) and the next sample (``above``), with their rates.  The detected capacity
    (``Level.capacity_bytes``) is interpolated between them (review 26c): no working set was
    run there, so the data puts the edge only inside [below, above]."""

    level: str
    below_bytes: float
    below_gbps: float
    above_bytes: float
    above_gbps: float
    interpolated_bytes: float


def step_brackets(result: dict, levels=None) -> list:
    """One :class:`StepBracket` per level that has a capacity, from the series the level came
    from (:func:`hierarchy_series`: the L1 from the first, the rest from the last)."""
    levels = hierarchy_levels(result) if levels is None else levels
    chosen = hierarchy_series(result)
    out = []
    for lv in levels:
        if not lv.capacity_bytes:
            continue
        s = chosen[0] if (lv.name == "l1" and len(chosen) > 1) or len(chosen) == 1 else chosen[-1]
        pairs = list(zip(s.sizes, s.gbps))
        i = max(k for k, (x, _) in enumerate(pairs) if x <= lv.capacity_bytes)
        (x0, g0), (x1, g1) = pairs[i], pairs[min(i + 1, len(pairs) - 1)]
        out.append(StepBracket(lv.name, x0, g0, x1, g1, lv.capacity_bytes))
    return out


def hit_share(gbps: float, inner_gbps: float, outer_gbps: float) -> float:
    """The share of reads that hit the inner level, if each byte takes the inner level's time
    when it hits and the outer level's when it misses: ``gbps`` as a time-weighted blend."""
    return (1 / outer_gbps - 1 / gbps) / (1 / outer_gbps - 1 / inner_gbps)


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


def kernel_curve(result: dict) -> tuple:
    """(sizes, gbps): the measured series nearest the working-set model's kernel (global loads,
    'spread'); the one series on a CPU.  It is the model's setting, every SM reading the whole
    set, only up to one block's window (:func:`.workingset_files.spread_reading`: 10.1 MB on the
    recorded H200); past it each line is read by about grid x window / W blocks.  Not where the
    L2 and DRAM levels came from (:func:`reference_curve`): past the L1's step the next level out
    serves its SMs faster than its roof (many blocks read the same lines) and the L1 still serves
    part of the reads, both of which the model leaves out."""
    series = series_by_access(result, "global", "spread")
    if series is None:
        series = hierarchy_series(result)[0]
    return series.sizes, series.gbps


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
