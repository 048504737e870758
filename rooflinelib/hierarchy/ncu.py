"""Nsight Compute (``ncu``) counters as hierarchical roofline points (Lab 4).

``ncu`` counts, for each kernel launch, the bytes that crossed each memory level and the
floating-point instructions executed.  With those, a kernel becomes one point per level:

- L1: ``l1tex__t_bytes.sum``; L2: ``lts__t_bytes.sum``;
  DRAM: ``dram__bytes_read.sum + dram__bytes_write.sum``;
- FLOPs: ``2 x FFMA + FADD + FMUL`` thread instructions (``sm__sass_thread_inst_executed_op_
  {ffma,fadd,fmul}_pred_on.sum``), and the same for fp64 (DFMA, DADD, DMUL).  That is every
  FLOP of a kernel that runs on the fp32 and fp64 CUDA-core pipes, and nothing else: tensor-core
  instructions (HMMA, HGMMA), packed half precision (HFMA2, HADD2, HMUL2) and the
  transcendental unit (MUFU) are not in it, so a bf16 GEMM would count about 0 FLOPs.  The
  :data:`GUARD_METRICS` count those instructions; when a CSV has them and they are not zero,
  :meth:`NcuKernel.flops` refuses with a message instead of returning an undercount;
- time: ``gpu__time_duration.sum``.

ncu also knows the hardware's peak per clock (``<metric>.peak_sustained``) and the clock each
unit ran at (``<unit>__cycles_elapsed.avg.per_second``).  Their product is ncu's peak for that
counter: *theoretical* at the clock of that run, not measured.  (ncu's roofline chart draws its
L1 and L2 roofs from other counters: the L1's writeback to the registers, the bytes the L2 sends
to the SMs.)  Our working-set sweep measures what the
levels actually deliver, which is lower.

This module parses the CSV that ``ncu --csv`` prints (``--page raw``: one row per launch, one
column per metric; or the default details page: one row per launch and metric) and builds the
command that produces it.  A file that is not such a CSV, or lacks a column or a metric the
points need, raises :class:`NcuError` with one line naming the line, the column or the metric.
Standard library only.
"""
from __future__ import annotations

import csv
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from typing import Optional

from rooflinelib.core import sanity
from rooflinelib.store.fileio import read_json, read_text
from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.hierarchy.level_placement import HierarchicalKernel
from rooflinelib.store.recorded import recorded_file

#: Bytes at each memory level, by level name (the names of :mod:`rooflinelib.hierarchy.levels`).
LEVEL_METRICS = {
    "l1": ("l1tex__t_bytes.sum",),
    "l2": ("lts__t_bytes.sum",),
    "dram": ("dram__bytes_read.sum", "dram__bytes_write.sum"),
}
_INST = "sm__sass_thread_inst_executed_op_{}_pred_on.sum"
#: FLOPs per executed thread instruction, by precision: an FMA is two.
FLOP_METRICS = {
    "fp32": {_INST.format("ffma"): 2, _INST.format("fadd"): 1, _INST.format("fmul"): 1},
    "fp64": {_INST.format("dfma"): 2, _INST.format("dadd"): 1, _INST.format("dmul"): 1},
}
#: Instructions that carry FLOPs the count above does not include, with what they are.  A kernel
#: that executed any of them gets no FLOP count from this module (see NcuKernel.flops).
GUARD_METRICS = {
    "sm__inst_executed_pipe_tensor.sum": "tensor-core (HMMA/HGMMA/IMMA/DMMA) warp instructions",
    _INST.format("hfma"): "half-precision FMA (HFMA2) thread instructions",
    _INST.format("hadd"): "half-precision add (HADD2) thread instructions",
    _INST.format("hmul"): "half-precision multiply (HMUL2) thread instructions",
    "sm__inst_executed_pipe_xu.sum": "transcendental-unit (MUFU, on the XU pipe) warp instructions",
}
TIME_METRIC = "gpu__time_duration.sum"
METRICS = (tuple(m for names in LEVEL_METRICS.values() for m in names)
           + tuple(m for table in FLOP_METRICS.values() for m in table) + (TIME_METRIC,))

#: ncu's own peaks: bytes (or instructions) per cycle at peak, and the clock of the unit.
PEAK_METRICS = {
    "l1": ("l1tex__t_bytes.sum.peak_sustained", "l1tex__cycles_elapsed.avg.per_second", 1),
    "l2": ("lts__t_bytes.sum.peak_sustained", "lts__cycles_elapsed.avg.per_second", 1),
    "dram": ("dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second", 1),
    "fp32": (_INST.format("ffma") + ".peak_sustained", "sm__cycles_elapsed.avg.per_second", 2),
    "fp64": (_INST.format("dfma") + ".peak_sustained", "sm__cycles_elapsed.avg.per_second", 2),
}
PEAK_METRIC_NAMES = tuple(dict.fromkeys(m for a, b, _ in PEAK_METRICS.values() for m in (a, b)))
_BYTE_METRICS = frozenset(m for names in LEVEL_METRICS.values() for m in names)
_COUNT_METRICS = frozenset([m for table in FLOP_METRICS.values() for m in table] + list(GUARD_METRICS))
#: The metrics this module reads: each is checked strictly (a number, in a unit of the right
#: dimension, not negative); the rest of a raw page is converted only when asked for.
_NEEDED = frozenset(METRICS + PEAK_METRIC_NAMES + tuple(GUARD_METRICS))

NCU_DEFAULT = "/usr/local/cuda/bin/ncu"

REQUIRED_COLUMNS = ("ID", "Kernel Name")
DETAILS_COLUMNS = ("Metric Name", "Metric Unit", "Metric Value")


class NcuError(ValueError):
    """An ncu CSV that cannot be used; the message is one line naming what is wrong."""


# ---------------------------------------------------------------------------------------------
# the command


def command(program, kernel_regex: Optional[str] = None, peaks: bool = True,
            ncu: str = NCU_DEFAULT, launch_count: Optional[int] = None,
            guards: bool = False) -> list:
    """The ncu command line that profiles ``program`` (a list: executable and arguments).

    ``--clock-control none`` leaves the clocks as the card runs them (ncu would otherwise lock
    them to base clock, and the kernel would be timed at a clock nobody runs at).
    ``--cache-control all`` (ncu's default, stated) flushes the caches before each launch, so
    DRAM bytes are those of a cold start.  ``-k regex:`` keeps only the kernels asked for.
    ``guards=True`` also collects :data:`GUARD_METRICS`, so that the import refuses to count
    the FLOPs of a kernel that runs instructions the FMA counters do not see.  (Off by default
    until their names are checked against ``ncu --query-metrics`` on the course's GPUs.)
    """
    if isinstance(program, str) or not program:
        raise NcuError("program: give the program to profile as a list, e.g. ['python3', 'prog.py']")
    metrics = (list(METRICS) + (list(PEAK_METRIC_NAMES) if peaks else [])
               + (list(GUARD_METRICS) if guards else []))
    cmd = [ncu, "--clock-control", "none", "--cache-control", "all", "--target-processes", "all",
           "--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base", "function",
           "--metrics", ",".join(metrics)]
    if kernel_regex:
        cmd += ["--kernel-name-base", "function", "-k", f"regex:{kernel_regex}"]
    if launch_count:
        cmd += ["-c", str(int(launch_count))]
    return cmd + [str(p) for p in program]


# ---------------------------------------------------------------------------------------------
# values and units

_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
           "m": 1e-3, "u": 1e-6, "n": 1e-9, "p": 1e-12}
#: What each base unit measures: a metric's unit must have the dimension of its quantity, so a
#: time in bytes is refused instead of converted.
_DIMENSION = {"byte": "bytes", "second": "time", "cycle": "cycles", "hz": "frequency",
              "inst": "count", "warp": "count", "sector": "count", "request": "count",
              "thread": "count", "block": "count", "wavefront": "count", "op": "count",
              "flop": "count"}
_BASES = tuple(_DIMENSION)
_UNIT = re.compile(r"^([KMGTPmunp]?)(byte|second|cycle|inst|hz|warp|sector|request|thread|block|"
                   r"wavefront|op|flop)s?$", re.IGNORECASE)
_SHORT_TIMES = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
#: Longer unit strings are not ncu's; refusing them bounds the work spent on one.
_MAX_UNIT_CHARS = 40


def _simple_unit(unit: str):
    """(factor, dimension) of a unit without '/', or None."""
    if unit in ("", "(!)"):
        return 1.0, None  # ncu's "no unit": no dimension to check
    if unit == "%":
        return 1.0, "percent"
    if unit.lower() in _SHORT_TIMES:
        return _SHORT_TIMES[unit.lower()], "time"
    m = _UNIT.match(unit)
    if not m:
        return None
    prefix, base = m.group(1), m.group(2).lower()
    if base == "hz" and prefix == "m":  # "mhz" is how some versions spell MHz
        prefix = "M"
    return _PREFIX[prefix], _DIMENSION[base]


def unit_dimension(unit: str):
    """``(factor, dimension)`` for a unit ncu prints: the factor to base units and what it
    measures (``bytes``, ``time``, ``count``, ``cycles``, ``frequency``, ``bytes/cycles``,
    ``count/cycles``, ``percent``; None for a unit-less value), or None for a unit this module
    does not know.  ``cycle/second`` is a ``frequency``, as ``hz`` is."""
    unit = (unit or "").strip()
    if len(unit) > _MAX_UNIT_CHARS:
        return None
    parts = unit.split("/")
    if len(parts) > 2:
        return None
    if len(parts) == 1:
        return _simple_unit(unit)
    top, bottom = (_simple_unit(part.strip()) for part in parts)
    if top is None or bottom is None or bottom[0] == 0 or top[1] is None or bottom[1] is None:
        return None
    dimension = "frequency" if (top[1], bottom[1]) == ("cycles", "time") else f"{top[1]}/{bottom[1]}"
    return top[0] / bottom[0], dimension


def unit_factor(unit: str) -> Optional[float]:
    """The factor that turns a value in ``unit`` into base units (bytes, seconds, cycles,
    instructions, Hz), or None for a unit this module does not know.  ``Mbyte`` -> 1e6,
    ``usecond`` -> 1e-6, ``byte/cycle`` -> 1, ``cycle/nsecond`` -> 1e9, ``""`` -> 1."""
    found = unit_dimension(unit)
    return None if found is None else found[0]


def _expected_dimension(metric: str) -> Optional[str]:
    """The dimension a metric this module reads must have; None for any other metric."""
    if metric == TIME_METRIC:
        return "time"
    if metric.endswith(".per_second"):
        return "frequency"
    if metric.endswith(".peak_sustained"):
        base = metric[:-len(".peak_sustained")]
        return ("bytes" if "bytes" in base else "count") + "/cycles"
    if metric in _BYTE_METRICS:
        return "bytes"
    if metric in _COUNT_METRICS:
        return "count"
    return None


_NUMBER = re.compile(r"[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?([eE][+-]?\d+)?")
#: A value longer than this is not one ncu prints (its longest are about 25 characters).
_MAX_NUMBER_CHARS = 64


def parse_number(text: str) -> Optional[float]:
    """A value as ncu prints it: ``1,234,567.5`` -> 1234567.5; ``n/a`` or empty -> None;
    anything else that is not a plain number raises ValueError."""
    t = (text or "").strip()
    if t.isdigit() and t.isascii() and len(t) <= _MAX_NUMBER_CHARS:  # most counters: no float() surprises
        return float(t)
    if t.lower() in ("", "n/a", "nan", "-"):
        return None
    if len(t) > _MAX_NUMBER_CHARS or not _NUMBER.fullmatch(t):
        raise ValueError(t)
    value = float(t.replace(",", ""))
    if not math.isfinite(value):
        raise ValueError(t)
    return value


#: Control characters (and other unprintable ones, such as bidirectional overrides) in a name
#: would reach the terminal raw: a CSV could move the cursor or recolour the screen.
_UNPRINTABLE = re.compile(r"[^\S ]|[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def printable(text: str) -> str:
    """``text`` with control and other unprintable characters removed (spaces kept)."""
    text = _UNPRINTABLE.sub("", text)
    if not text.isprintable():
        text = "".join(ch for ch in text if ch.isprintable())
    return text


# ---------------------------------------------------------------------------------------------
# one profiled launch


@dataclass(frozen=True)
class NcuKernel:
    """One profiled kernel launch: its identity and its metrics in base units."""

    id: str
    name: str  # as ncu printed it
    metrics: dict  # metric name -> value in base units (bytes, seconds, instructions, Hz)
    block: str = ""
    grid: str = ""
    device: str = ""
    where: str = "ncu CSV"
    line: int = 0

    @property
    def short_name(self) -> str:
        """The function name without namespace, arguments, ABI tag or Numba's numeric suffix:
        ``cudapy::pkg::f::<locals>::sweep$241(Array<...>)`` -> ``sweep``."""
        return short_kernel_name(self.name)

    def value(self, metric: str) -> float:
        """A metric's value; NcuError naming the metric when the CSV lacks it."""
        v = self.metrics.get(metric)
        if v is None:
            reason = "missing" if metric not in self.metrics else "has no value (n/a)"
            raise NcuError(f"{self.where}: kernel {self.id} ({self.short_name}): metric {metric}: "
                           f"{reason}; profile with --metrics {metric}")
        return v

    @property
    def seconds(self) -> float:
        return self.value(TIME_METRIC)

    def uncounted(self) -> dict:
        """The guard metrics this launch executed (non-zero), metric -> count."""
        return {m: self.metrics[m] for m in GUARD_METRICS if self.metrics.get(m)}

    def flops(self, precision: Optional[str] = None) -> float:
        """FLOPs counted from the instruction counters: one precision, or all present.

        Refuses (:class:`NcuError`) when the CSV shows instructions this count leaves out
        (:data:`GUARD_METRICS`): an undercount would put the kernel far below its real rate.
        """
        extra = self.uncounted()
        if extra:
            shown = "; ".join(f"{GUARD_METRICS[m]}: {v:,.0f}" for m, v in extra.items())
            raise NcuError(f"{self.where}: kernel {self.id} ({self.short_name}): it executed "
                           f"instructions whose FLOPs 2 x FFMA + FADD + FMUL (and fp64) does not "
                           f"count ({shown}); its FLOPs would be undercounted. Count them by hand "
                           "(the analytic count) and place the kernel with those.")
        tables = [FLOP_METRICS[precision]] if precision else list(FLOP_METRICS.values())
        total, seen = 0.0, False
        for table in tables:
            for metric, weight in table.items():
                if self.metrics.get(metric) is not None:
                    total += weight * self.metrics[metric]
                    seen = True
        if not seen:
            wanted = ", ".join(m for t in tables for m in t)
            raise NcuError(f"{self.where}: kernel {self.id} ({self.short_name}): FLOP counters: "
                           f"none present; profile with --metrics {wanted}")
        return total

    @property
    def n_flops(self) -> float:
        return self.flops()

    def level_bytes(self, level: str) -> float:
        if level not in LEVEL_METRICS:
            raise NcuError(f"level: must be one of {', '.join(LEVEL_METRICS)}, got {level!r}")
        return sum(self.value(m) for m in LEVEL_METRICS[level])

    @property
    def bytes_by_level(self) -> dict:
        return {level: self.level_bytes(level) for level in LEVEL_METRICS}

    @property
    def achieved_gflops(self) -> float:
        return self.n_flops / self.seconds / 1e9

    def hierarchical(self, name: Optional[str] = None, levels: Optional[dict] = None):
        """This launch as a :class:`rooflinelib.hierarchy.level_placement.HierarchicalKernel`, timed.

        ``levels`` renames levels for the machine it will be placed on, e.g.
        ``{"l2": "l2-fast"}`` to hold the L2 bytes against the L2's fast range (a working set of
        a few megabytes on the H200) rather than its full-capacity range.
        """
        flops = self.n_flops
        if flops <= 0:
            raise NcuError(f"{self.where}: kernel {self.id} ({self.short_name}): executed no "
                           "FFMA, FADD, FMUL, DFMA, DADD or DMUL, so this count gives it no point "
                           "on a FLOP/s roofline; if it runs tensor-core, half-precision or MUFU "
                           "instructions, count its FLOPs by hand (profile with "
                           "command(..., guards=True) to see them)")
        rename = levels or {}
        levels = {rename.get(k, k): v for k, v in self.bytes_by_level.items() if v > 0}
        label = name or f"{self.short_name} #{self.id}"
        return HierarchicalKernel(label[:60], flops, levels, flops / self.seconds / 1e9)

    def peaks(self) -> Optional["NcuPeaks"]:
        """ncu's theoretical peaks at this launch's clocks, or None if not collected."""
        values = {}
        for key, (per_cycle, clock, weight) in PEAK_METRICS.items():
            a, b = self.metrics.get(per_cycle), self.metrics.get(clock)
            # a zero rate or clock is a counter that did not run, not a roof of zero
            unit = "GB/s" if key in LEVEL_METRICS else "GFLOP/s"
            if a and b and sanity.in_band(weight * a * b / 1e9, unit):
                values[key] = weight * a * b / 1e9
        if not values:
            return None
        sm_hz = self.metrics.get("sm__cycles_elapsed.avg.per_second")
        return NcuPeaks(self.device or "GPU", sm_hz / 1e6 if sm_hz else None,
                        {k: v for k, v in values.items() if k in LEVEL_METRICS},
                        {k: v for k, v in values.items() if k in FLOP_METRICS})


@dataclass(frozen=True)
class NcuPeaks:
    """ncu's ceilings for one launch: peak per cycle x the clock measured during it."""

    device: str
    sm_clock_mhz: Optional[float]
    gbps: dict  # level -> GB/s
    gflops: dict  # precision -> GFLOP/s

    def machine(self, name: Optional[str] = None):
        """A :class:`rooflinelib.Machine` holding these peaks (kind 'theoretical')."""
        clock = f" at {self.sm_clock_mhz:,.0f} MHz" if self.sm_clock_mhz else ""
        source = f"ncu peak_sustained x cycles_elapsed.per_second{clock}: theoretical, not measured"
        ceilings = [Ceiling(k, "memory", v, source, f"{k} (ncu peak)") for k, v in self.gbps.items()]
        ceilings += [Ceiling(k, "compute", v, source, f"{k} FMA (ncu peak)") for k, v in self.gflops.items()]
        return Machine(name or f"{self.device} (ncu peaks{clock})", tuple(ceilings), source,
                       kind="theoretical")


def short_kernel_name(name: str) -> str:
    text = name.strip()
    depth, cut = 0, len(text)
    for i, ch in enumerate(text):  # drop the argument list: the first '(' at template depth 0
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0 and i > 0:
            cut = i
            break
    text = text[:cut]
    text = re.sub(r"\[abi:[^\]]*\]", "", text)
    text = text.split("::")[-1].strip()
    text = re.sub(r"\$\d+$", "", text)
    return text or name.strip()


# ---------------------------------------------------------------------------------------------
# parsing


class _Metrics(Mapping):
    """A launch's metrics, metric -> value in base units (None for ``n/a``).

    The metrics this module reads are converted, and checked, when the CSV is parsed; the raw
    page's other columns (hundreds of device attributes, many of them text) only when asked
    for, so that a CSV of many launches parses in time linear in its size and fast."""

    __slots__ = ("_values", "_cells", "_columns")

    def __init__(self, values: dict, cells=(), columns=None):
        self._values = values
        self._cells = cells
        self._columns = columns or {}  # metric -> (index in cells, factor or None), not yet read

    def _load(self, key) -> None:
        if key in self._values or key not in self._columns:
            return
        index, factor = self._columns[key]
        try:
            value = parse_number(self._cells[index])
        except ValueError:  # a device attribute that is text: not a metric value
            value = _ABSENT
        if value is not None and value is not _ABSENT:
            value = value * factor if factor is not None else _ABSENT
        self._values[key] = value

    def _load_all(self) -> None:
        for key in self._columns:
            self._load(key)

    def __getitem__(self, key):
        self._load(key)
        value = self._values[key]
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def __contains__(self, key) -> bool:
        self._load(key)
        return key in self._values and self._values[key] is not _ABSENT

    def __iter__(self):
        self._load_all()
        return (k for k, v in self._values.items() if v is not _ABSENT)

    def __len__(self) -> int:
        self._load_all()
        return sum(v is not _ABSENT for v in self._values.values())

    def __repr__(self) -> str:
        return repr(dict(self))


_ABSENT = object()


def _header_index(lines):
    for index, line in enumerate(lines):
        if not line.startswith('"'):
            continue
        try:
            cells = next(csv.reader([line]))
        except (csv.Error, StopIteration):
            continue
        if cells and cells[0] == "ID" and "Kernel Name" in cells:
            return index, cells
    return None, None


def parse_csv(text: str, where: str = "ncu CSV") -> list:
    """The kernel launches of an ``ncu --csv`` output (raw or details page), in launch order.

    Lines before the header (``==PROF==`` messages, the program's own output) and lines that
    do not start with a quote after it are skipped.  Raises NcuError (one line) for anything
    that is not an ncu CSV, a missing column, a row with the wrong number of fields, a value
    that is not a number, a unit this module cannot convert or of the wrong dimension (a time
    in bytes), a negative count or a zero kernel time.  Kernel names lose their control
    characters (:func:`printable`), so that a CSV cannot write escape sequences to a terminal.
    """
    if not isinstance(text, str):
        raise NcuError(f"{where}: expected text, got {type(text).__name__}")
    if not text.strip():
        raise NcuError(f"{where}: file: empty")
    # Lines end at \n only: splitlines() would also split a quoted kernel name at \x1e or \u2028.
    lines = text.replace("\r\n", "\n").split("\n")
    start, header = _header_index(lines)
    if header is None:
        raise NcuError(f"{where}: header: no line starting \"ID\",... with a \"Kernel Name\" column; "
                       "not the output of ncu --csv (was the program profiled, and did ncu print errors?)")
    for column in REQUIRED_COLUMNS:
        if column not in header:
            raise NcuError(f"{where}: column {column!r}: missing from the header")
    details = "Metric Name" in header or "Metric Value" in header
    if details:
        for column in DETAILS_COLUMNS:
            if column not in header:
                raise NcuError(f"{where}: column {column!r}: missing (a details-page CSV needs "
                               f"{', '.join(DETAILS_COLUMNS)})")
    width = len(header)
    rows = []
    for number, line in enumerate(lines[start + 1:], start=start + 2):
        if not line.startswith('"'):
            continue  # ncu messages and program output
        try:
            cells = next(csv.reader((line,)))
        except csv.Error as exc:
            raise NcuError(f"{where}: line {number}: not valid CSV ({exc})") from None
        if len(cells) != width:
            raise NcuError(f"{where}: line {number}: has {len(cells)} fields, the header has {width}")
        rows.append((number, cells))
    columns = {name: index for index, name in reversed(list(enumerate(header)))}
    kernels = _details(rows, columns, where) if details else _raw(rows, header, columns, where)
    if not kernels:
        raise NcuError(f"{where}: rows: the CSV has a header but no kernel; did the -k filter "
                       "match nothing, or did the program launch no kernel?")
    return kernels


#: A metric column of the raw page: ncu's metric names are ``unit__counter.rollup[.suffix]``.
_METRIC_NAME = re.compile(r"^[a-z][a-z0-9_]*__[A-Za-z0-9_.]+$")

#: The range each dimension's values must lie in (base units), from the sanity rule's bands:
#: a count or a size is never negative, and a launch always takes time.
_RANGES = {"bytes": sanity.BANDS["bytes"], "count": sanity.BANDS["count"], "time": sanity.BANDS["s"]}


def _unit_rule(metric: str, unit: str):
    """(factor, (low, high), problem) for a column of values in ``unit``: ``problem`` is why
    a value in it cannot be used (None when it can), reported at the first value."""
    found = unit_dimension(unit)
    if found is None:
        return None, None, (f"metric {metric}: unit {unit!r:.20} is not one this importer "
                            "converts (profile with --print-units base)")
    factor, dimension = found
    wanted = _expected_dimension(metric)
    if wanted is not None and dimension is not None and dimension != wanted:
        return None, None, (f"metric {metric}: unit {unit!r:.20} measures {dimension}, but this "
                            f"metric is {wanted}")
    if wanted is None:
        return factor, None, None
    return factor, _RANGES.get(wanted, (0.0, math.inf)), None


def _strict(where, line, metric, raw, rule):
    """A value of a metric this module reads: a number, in a unit of its dimension, in range."""
    factor, limits, problem = rule
    try:
        value = parse_number(raw)
    except ValueError:
        raise NcuError(f"{where}: line {line}: metric {metric}: value {printable(raw)!r:.30} "
                       "is not a number") from None
    if value is None:
        return None
    if problem is not None:
        raise NcuError(f"{where}: line {line}: {problem}")
    value *= factor
    if limits is not None and not limits[0] <= value <= limits[1]:
        if value < 0:
            reason = f"must not be negative, got {value:g}"
        elif value == 0:
            reason = "must be positive: a launch takes time, got 0"
        else:
            reason = f"{value:g} is outside {limits[0]:g}..{limits[1]:g} (base units)"
        raise NcuError(f"{where}: line {line}: metric {metric}: {reason}")
    return value


def _kernel(where, number, cells, columns, metrics, seen):
    ident = printable(cells[columns["ID"]].strip())
    if not ident:
        raise NcuError(f"{where}: line {number}: column 'ID': empty")
    name = printable(cells[columns["Kernel Name"]].strip())
    if not name:
        raise NcuError(f"{where}: line {number}: column 'Kernel Name': empty")
    if ident in seen:
        raise NcuError(f"{where}: line {number}: column 'ID': launch {ident[:20]!r} appears twice "
                       f"(first at line {seen[ident]})")
    seen[ident] = number

    def cell(column):
        index = columns.get(column)
        return printable(cells[index]) if index is not None else ""

    device = cell("Device Name") or cell("Device")
    return NcuKernel(ident, name, metrics, cell("Block Size"), cell("Grid Size"), device, where, number)


def _raw(rows, header, columns, where):
    metric_columns = [(i, c) for i, c in enumerate(header) if _METRIC_NAME.match(c)]
    if not metric_columns:
        raise NcuError(f"{where}: header: no metric columns (was ncu run with --metrics?)")
    units = None
    id_index = columns["ID"]
    if rows and not rows[0][1][id_index].strip():  # the raw page's second line: the units
        units = rows[0][1]
        rows = rows[1:]
    strict, lazy = [], {}
    for i, c in metric_columns:
        rule = _unit_rule(c, units[i] if units else "")
        if c in _NEEDED:
            strict.append((i, c, rule))
        elif c not in lazy:
            lazy[c] = (i, rule[0])
    kernels, seen = [], {}
    for number, cells in rows:
        values = {c: _strict(where, number, c, cells[i], rule) for i, c, rule in strict}
        kernels.append(_kernel(where, number, cells, columns, _Metrics(values, cells, lazy), seen))
    return kernels


def _details(rows, columns, where):
    id_i, name_i = columns["ID"], columns["Metric Name"]
    unit_i, value_i = columns["Metric Unit"], columns["Metric Value"]
    order, found, rules = [], {}, {}
    for number, cells in rows:
        ident = cells[id_i].strip()
        metric = cells[name_i].strip()
        if not metric:
            raise NcuError(f"{where}: line {number}: column 'Metric Name': empty")
        unit = cells[unit_i]
        rule = rules.get((metric, unit))
        if rule is None:
            if len(rules) > 100_000:  # a CSV of made-up metric names: keep the cache bounded
                rules.clear()
            rule = rules[(metric, unit)] = _unit_rule(printable(metric), unit)
        value = _strict(where, number, printable(metric), cells[value_i], rule)
        if ident not in found:
            order.append(ident)
            found[ident] = (number, cells, {})
        metrics = found[ident][2]
        if metric in metrics and metrics[metric] != value:
            raise NcuError(f"{where}: line {number}: metric {printable(metric)}: given twice for "
                           f"kernel {printable(ident)[:20]} with different values")
        metrics[metric] = value
    seen = {}
    return [_kernel(where, number, cells, columns, _Metrics(metrics), seen)
            for number, cells, metrics in (found[i] for i in order)]


def load_analytic(path) -> list:
    """Read an analytic-counts JSON file for :func:`compare` (NcuError, one line, on any problem:
    not a regular file, too large, not UTF-8, not JSON, nested too deeply)."""
    return read_json(path, NcuError, "an analytic-counts JSON file", "json")


def load_csv(path) -> list:
    """Read and parse an ncu CSV file (NcuError, one line, on any problem)."""
    return parse_csv(read_text(path, NcuError, "an ncu CSV", "ncu-csv"), str(Path(path)))


# ---------------------------------------------------------------------------------------------
# counters against analytic counts


@dataclass(frozen=True)
class Agreement:
    """One quantity counted two ways: by ncu and by hand."""

    kernel: str
    quantity: str  # "FLOPs", "DRAM bytes", ...
    measured: float
    analytic: float

    @property
    def ratio(self) -> float:
        return self.measured / self.analytic if self.analytic else float("inf")

    @property
    def gap(self) -> float:
        """(measured - analytic) / analytic: -0.02 is 2% fewer bytes than counted."""
        return self.ratio - 1.0

    def within(self, fraction: float) -> bool:
        return abs(self.gap) <= fraction


ANALYTIC_KEYS = {"n_flops": "FLOPs", "dram_bytes": "DRAM bytes", "l2_bytes": "L2 bytes",
                 "l1_bytes": "L1 bytes", "dram_read_bytes": "DRAM read bytes",
                 "dram_write_bytes": "DRAM write bytes"}


def _measured(kernel: NcuKernel, key: str) -> float:
    if key == "n_flops":
        return kernel.n_flops
    if key == "dram_read_bytes":
        return kernel.value("dram__bytes_read.sum")
    if key == "dram_write_bytes":
        return kernel.value("dram__bytes_write.sum")
    return kernel.level_bytes(key[:-len("_bytes")])


def compare(kernels, analytic, where: str = "analytic counts") -> list:
    """Match ``kernels`` (from the CSV, in launch order) with ``analytic`` records (a list of
    dicts, one per profiled launch, in the same order, each with a ``name`` and any of
    ``n_flops``, ``dram_bytes``, ``l2_bytes``, ``l1_bytes``, ``dram_read_bytes``,
    ``dram_write_bytes``) and return one :class:`Agreement` per quantity."""
    if not isinstance(analytic, list) or not all(isinstance(a, dict) for a in analytic):
        raise NcuError(f"{where}: must be a list of objects, one per profiled launch")
    if len(analytic) != len(kernels):
        raise NcuError(f"{where}: {len(analytic)} records for {len(kernels)} profiled launches; "
                       "profile exactly the launches the program describes (check -k)")
    out = []
    for i, (kernel, record) in enumerate(zip(kernels, analytic)):
        name = record.get("name")
        if not isinstance(name, str) or not printable(name).strip():
            raise NcuError(f"{where}: [{i}].name: missing")
        name = printable(name)
        for key, label in ANALYTIC_KEYS.items():
            if key not in record:
                continue
            value = sanity.number(record[key], f"{where}: [{i}].{key}", error=NcuError, positive=True,
                                  unit="FLOPs" if key == "n_flops" else "bytes")
            out.append(Agreement(name, label, _measured(kernel, key), value))
    return out


def agreement_table(rows) -> str:
    lines = [f"{'kernel':<34} {'quantity':<17} {'ncu':>16} {'analytic':>16} {'gap':>8}"]
    for a in rows:
        lines.append(f"{a.kernel[:34]:<34} {a.quantity:<17} {a.measured:>16,.0f} {a.analytic:>16,.0f} "
                     f"{100 * a.gap:>+7.2f}%")
    return "\n".join(lines)


def kernel_table(kernels, names=None) -> str:
    """One line per launch: time, GFLOP/s, and bytes and intensity at each level.  ``names``:
    one label per launch (e.g. the analytic counts' ``name``, "sweep K=8, 64 MiB") in place of
    the launch id and the kernel's short name, so that the rows read like the placement table's."""
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(kernels):
            raise NcuError(f"names: one per launch, got {len(names)} for {len(kernels)} launches")
    width = max([18] + [len(n) for n in names or ()])
    lines = [f"{'#':>3} {'kernel':<{width}} {'time us':>9} {'GFLOP/s':>10} "
             + " ".join(f"{lv + ' MB':>10} {'I_' + lv:>8}" for lv in LEVEL_METRICS)]
    refused = []
    for index, k in enumerate(kernels):
        counted = any(k.metrics.get(m) is not None for t in FLOP_METRICS.values() for m in t)
        flops = k.flops() if counted and not k.uncounted() else (None if counted else 0.0)
        cells = []
        for lv in LEVEL_METRICS:
            b = k.level_bytes(lv)
            intensity = "-" if flops is None else f"{(flops / b if b else float('inf')):.3g}"
            cells.append(f"{b / 1e6:>10,.2f} {intensity:>8}")
        rate = "-" if flops is None else f"{flops / k.seconds / 1e9:,.0f}"
        label = names[index] if names is not None else k.short_name[:18]
        lines.append(f"{k.id:>3} {label:<{width}} {k.seconds * 1e6:>9,.1f} "
                     f"{rate:>10} " + " ".join(cells))
        if flops is None:
            refused.append(k.id)
    if refused:
        lines.append(f"(no FLOPs for {', '.join(refused)}: they ran instructions the FMA counters "
                     "do not see; see NcuKernel.flops)")
    return "\n".join(lines)


def recorded_csv(name: str = "h200_ncu_lab4.csv") -> Path:
    """Path of an ncu CSV recorded on the H200 and shipped in ``rooflinelib/data``."""
    path = recorded_file(name)
    if not path.exists():
        raise NcuError(f"{name}: file: no such recorded ncu CSV in rooflinelib/data")
    return path
