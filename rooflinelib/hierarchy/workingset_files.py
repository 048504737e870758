"""Working-set result files: the ``rooflinelib-workingset`` format, read, checked and written.

A working-set sweep (:mod:`rooflinelib.hierarchy.workingset`) writes one JSON object::

    {"format": "rooflinelib-workingset", "version": 1, "kind": "workingset",
     "backend": "numba", "scope": "gpu", "created": "2026-11-30T01:25:24+00:00",
     "device": {"name": "NVIDIA H200", ...provenance..., "reported_cache_bytes": {"l2": ...}},
     "series": [{"name": "...", "access": "global", "pattern": "spread", "first_cache": 1,
                 "rows": [{"bytes": 16384, "gbps": 32118.4, "spread": 0.002, "verified": true},
                          ...]},
                ...]}

Loading checks every field a reader relies on before returning anything: a malformed,
truncated or foreign file raises :class:`HierarchyError` with one line naming the file and the
field, and an unverified rate is refused.  The format is declared as a JSON Schema,
``rooflinelib/store/schemas/workingset.schema.json`` (the accesses and patterns a series may name
are listed there), checked by :mod:`rooflinelib.store.validation`.  Finding the memory levels in the
numbers is :mod:`rooflinelib.hierarchy.levels`' and :mod:`~rooflinelib.hierarchy.level_placement`'s
job; this module knows only the file.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

from rooflinelib.store import validation
from rooflinelib.core import sanity
from rooflinelib.store.fileio import parse_json, read_text, write_atomic
from rooflinelib.store.recorded import recorded_file

FORMAT = "rooflinelib-workingset"
VERSION = 1


class HierarchyError(ValueError):
    """Bad input to the hierarchy functions or a bad working-set file; the message is one line."""


#: What a GPU series' blocks read, by (access, pattern): the name a sweep stores and the legend
#: label of any stored series (a file recorded under older names keeps them as its keys).
#: 'spread': each block reads a window of consecutive chunks from its own start, cycling over the
#: whole set (:func:`spread_reading`); 'slices': each block cycles over chunks of its own.
SERIES_LABELS = {("global", "spread"): "global loads (L1 + L2), overlapping windows",
                 ("global-cg", "slices"): "global loads .cg (L2 only), a slice per block",
                 ("global-cg", "spread"): "global loads .cg (L2 only), overlapping windows",
                 ("global", "slices"): "global loads (L1 + L2), a slice per block",
                 ("shared", "tiles"): "shared-memory tiles"}


@dataclass(frozen=True)
class Series:
    """One measured curve of a working-set result (its levels: ``placement.series_levels``)."""

    name: str
    access: str  # how the reads were made: "global" (L1 + L2), "global-cg" (L2 only), "shared", "cpu"
    first_cache: int
    sizes: tuple
    gbps: tuple
    spread: tuple
    pattern: str = ""  # which blocks read what: "spread", "slices", "tiles" (GPU), "" (CPU)
    #: 'slices' only: below this working set (blocks x chunk bytes) there are fewer chunks than
    #: blocks, so blocks share chunks and their requests for one line can merge on the way to
    #: the L2.  0 when every point gives each block chunks of its own.
    shared_below: float = 0.0

    @property
    def label(self) -> str:
        """The name a legend shows: :data:`SERIES_LABELS` for a GPU series, else the stored name."""
        return SERIES_LABELS.get((self.access, self.pattern), self.name)

    def own_data(self) -> "Series":
        """The points at which no two blocks read the same data (all of them, but for a
        'slices' series below ``shared_below``)."""
        return self._points(lambda size: size >= self.shared_below)

    def shared_data(self) -> "Series":
        """The points below ``shared_below``, where blocks share chunks (none for most series)."""
        return self._points(lambda size: size < self.shared_below)

    def _points(self, wanted) -> "Series":
        keep = [i for i, size in enumerate(self.sizes) if wanted(size)]
        return Series(self.name, self.access, self.first_cache, tuple(self.sizes[i] for i in keep),
                      tuple(self.gbps[i] for i in keep), tuple(self.spread[i] for i in keep), self.pattern)


@lru_cache(maxsize=None)
def _checker():
    return validation.validator(validation.schema("workingset"))


def validate(data, where: str = "working-set result") -> dict:
    """Check a working-set result field by field; returns it or raises HierarchyError (one line).

    The format is ``rooflinelib/store/schemas/workingset.schema.json``; what it cannot say is checked
    here: series names are unique and each series' working sets increase."""
    validation.check(data, _checker(), where, HierarchyError)
    seen = set()
    for i, s in enumerate(data["series"]):
        if s["name"] in seen:
            validation.fail(HierarchyError, where, f"series[{i}].name", f"{s['name']!r} appears twice")
        seen.add(s["name"])
        previous = 0.0
        for j, r in enumerate(s["rows"]):
            if r["bytes"] <= previous:
                validation.fail(HierarchyError, where, f"series[{i}].rows[{j}].bytes",
                                f"working sets must increase, got {r['bytes']:g} after {previous:g}")
            previous = r["bytes"]
            field = f"{where}: series[{i}].rows[{j}]"
            sanity.number(r["bytes"], f"{field}.bytes", error=HierarchyError, positive=True, unit="bytes")
            sanity.number(r["gbps"], f"{field}.gbps", error=HierarchyError, positive=True, unit="GB/s")
    return data


def series_of(result: dict, name: str = None) -> Series:
    """The series called ``name`` (default: the first) of a validated result."""
    for s in result["series"]:
        if name is None or s["name"] == name:
            rows = s["rows"]
            shared_below = 0.0
            grid, chunk = s.get("grid"), result.get("config", {}).get("chunk_bytes")
            if s.get("pattern") == "slices" and isinstance(grid, int) and isinstance(chunk, int):
                shared_below = float(grid * chunk)
            return Series(s["name"], s["access"], s["first_cache"],
                          tuple(float(r["bytes"]) for r in rows), tuple(float(r["gbps"]) for r in rows),
                          tuple(float(r["spread"]) for r in rows), s.get("pattern", ""), shared_below)
    names = ", ".join(s["name"] for s in result["series"])
    raise HierarchyError(f"series: no series {name!r}; this result has: {names}")


@dataclass(frozen=True)
class SpreadReading:
    """What the blocks of a 'spread' series read at one working set (:func:`spread_reading`)."""

    ws_bytes: float
    grid: int  # blocks in the launch, all resident at once
    window_bytes: float  # what each block reads in one launch: n_pass chunks from its own start
    blocks_per_line: float  # how many blocks read each line, on average (all of them while W <= window)


def spread_reading(result: dict, ws_bytes: float, access: str = "global") -> SpreadReading:
    """Which blocks read each line in the 'spread' series of ``access`` at ``ws_bytes``.

    Block b starts at chunk b * n_chunks // grid and reads n_pass consecutive chunks, wrapping at
    the end of the set, with n_pass from :func:`rooflinelib.measure.expected.passes_for` (the
    result's bytes per launch).  Up to the window (n_pass chunks) every block reads the whole set,
    once or more; past it each block reads a window of the set, and each line is read by about
    grid x window / W blocks, not by all of them."""
    from rooflinelib.measure.expected import passes_for
    if isinstance(ws_bytes, bool) or not isinstance(ws_bytes, (int, float)) or not ws_bytes > 0:
        raise HierarchyError(f"ws_bytes: must be a positive number of bytes, got {ws_bytes!r}")
    series = next((s for s in result["series"] if s["access"] == access and s.get("pattern") == "spread"), None)
    config = result.get("config", {})
    chunk, per_launch = config.get("chunk_bytes"), config.get("bytes_per_launch")
    if series is None or not isinstance(series.get("grid"), int) or not chunk or not per_launch:
        raise HierarchyError(f"series: this result has no {access!r} 'spread' series with its grid and launch size")
    grid = series["grid"]
    n_chunks = max(1, int(ws_bytes) // chunk)
    window = passes_for(per_launch, grid, n_chunks) * chunk
    return SpreadReading(float(ws_bytes), grid, float(window), min(float(grid), grid * window / (n_chunks * chunk)))


def loads(text: str, where: str = "working-set result") -> dict:
    return validate(parse_json(text, where, HierarchyError), where)


def load(path) -> dict:
    """Read and validate a working-set result file (one-line HierarchyError on any problem)."""
    return loads(read_text(path, HierarchyError, "a working-set result", "result"), str(Path(path)))


def save(result: dict, path) -> Path:
    """Validate, then write through :func:`rooflinelib.store.fileio.write_atomic` (HierarchyError,
    one line, when it cannot be written; the old file is then unchanged)."""
    validate(result)
    return write_atomic(path, json.dumps(result, indent=1, allow_nan=False) + "\n", HierarchyError)


def recorded(device: str = "h200", backend: str = "numba") -> dict:
    """The shipped working-set sweep, ``rooflinelib/data/<device>_workingset_<backend>.json``."""
    path = recorded_file(f"{device}_workingset_{backend}.json")
    if not path.exists():
        raise HierarchyError(f"{path.name}: file: no recorded working-set sweep for {device} with {backend}")
    return load(path)


def reported_sizes(result: dict) -> dict:
    """Cache sizes the device itself reports (bytes), as stored in the result: e.g.
    ``{"l1": ..., "shared": ..., "l2": ...}``.  Only for comparison with the detected steps."""
    sizes = result["device"].get("reported_cache_bytes", {})
    return {k: float(v) for k, v in sizes.items() if isinstance(v, (int, float)) and v > 0}


def series_by_access(result: dict, access: str, pattern: str = None) -> Optional[Series]:
    """The first series of ``result`` read with ``access`` ('global', 'global-cg', 'shared',
    'cpu') and, if given, ``pattern``; None if there is none."""
    for s in result["series"]:
        if s["access"] == access and (pattern is None or s.get("pattern", "") == pattern):
            return series_of(result, s["name"])
    return None
