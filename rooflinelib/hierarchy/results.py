"""Working-set result files: the ``rooflinelib-workingset`` format, read, checked and written.

A working-set sweep (:mod:`rooflinelib.hierarchy.sweep`) writes one JSON object::

    {"format": "rooflinelib-workingset", "version": 1, "kind": "workingset",
     "backend": "numba", "scope": "gpu", "created": "2026-11-30T01:25:24+00:00",
     "device": {"name": "NVIDIA H200", ...provenance..., "reported_cache_bytes": {"l2": ...}},
     "series": [{"name": "...", "access": "global", "pattern": "spread", "first_cache": 1,
                 "rows": [{"bytes": 16384, "gbps": 32118.4, "spread": 0.002, "verified": true},
                          ...]},
                ...]}

Loading checks every field a reader relies on before returning anything: a malformed,
truncated or foreign file raises :class:`HierarchyError` with one line naming the file and the
field, and an unverified rate is refused.  Finding the memory levels in the numbers is
:mod:`rooflinelib.hierarchy.levels`' and :mod:`~rooflinelib.hierarchy.placement`'s job; this
module knows only the file.  Standard library only.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..fileio import parse_json, read_text

FORMAT = "rooflinelib-workingset"
VERSION = 1
DATA_DIR = Path(__file__).resolve().parent.parent / "data"

ACCESSES = ("global", "global-cg", "shared", "cpu")
PATTERNS = ("spread", "slices", "tiles")
ROW_KEYS = ("bytes", "gbps", "spread", "verified")


class HierarchyError(ValueError):
    """Bad input to the hierarchy functions or a bad working-set file; the message is one line."""


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


def _fail(where, field_name, reason):
    raise HierarchyError(f"{where}: {field_name}: {reason}")


def _number(where, field_name, value, positive=True):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        _fail(where, field_name, f"must be a finite number, got {value!r:.40}")
    if positive and value <= 0:
        _fail(where, field_name, f"must be > 0, got {value!r}")
    if value < 0:
        _fail(where, field_name, f"must be >= 0, got {value!r}")
    return float(value)


def validate(data, where: str = "working-set result") -> dict:
    """Check a working-set result field by field; returns it or raises HierarchyError (one line)."""
    if not isinstance(data, dict):
        _fail(where, "top level", f"must be a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        _fail(where, "format", f"missing or not {FORMAT!r}: not a working-set result file")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        _fail(where, "version", f"must be a whole number >= 1, got {version!r:.20}")
    if version > VERSION:
        _fail(where, "version", f"{version} is newer than this rooflinelib reads ({VERSION}); upgrade")
    if data.get("scope") not in ("gpu", "cpu"):
        _fail(where, "scope", f"must be 'gpu' or 'cpu', got {data.get('scope')!r:.20}")
    if not isinstance(data.get("created"), str) or not data["created"]:
        _fail(where, "created", "missing: a result needs its timestamp")
    device = data.get("device")
    if not isinstance(device, dict) or not isinstance(device.get("name"), str) or not device["name"]:
        _fail(where, "device.name", "missing: a result needs its provenance")
    series = data.get("series")
    if not isinstance(series, list) or not series:
        _fail(where, "series", "must be a non-empty list")
    seen = set()
    for i, s in enumerate(series):
        f = f"series[{i}]"
        if not isinstance(s, dict):
            _fail(where, f, "must be an object")
        if not isinstance(s.get("name"), str) or not s["name"]:
            _fail(where, f"{f}.name", "missing")
        if s["name"] in seen:
            _fail(where, f"{f}.name", f"{s['name']!r} appears twice")
        seen.add(s["name"])
        if s.get("access") not in ACCESSES:
            _fail(where, f"{f}.access", f"must be one of {', '.join(ACCESSES)}, got {s.get('access')!r:.20}")
        if "pattern" in s and s["pattern"] not in PATTERNS:
            _fail(where, f"{f}.pattern", f"must be one of {', '.join(PATTERNS)}, got {s['pattern']!r:.20}")
        first = s.get("first_cache")
        if isinstance(first, bool) or not isinstance(first, int) or first < 1:
            _fail(where, f"{f}.first_cache", f"must be a whole number >= 1, got {first!r:.20}")
        rows = s.get("rows")
        if not isinstance(rows, list) or len(rows) < 2:
            _fail(where, f"{f}.rows", "must list at least two working sets")
        previous = 0.0
        for j, r in enumerate(rows):
            g = f"{f}.rows[{j}]"
            if not isinstance(r, dict):
                _fail(where, g, "must be an object")
            missing = [k for k in ROW_KEYS if k not in r]
            if missing:
                _fail(where, f"{g}.{missing[0]}", "missing")
            extra = sorted(set(r) - set(ROW_KEYS))
            if extra:
                _fail(where, f"{g}.{extra[0]}", "unknown field")
            size = _number(where, f"{g}.bytes", r["bytes"])
            if size <= previous:
                _fail(where, f"{g}.bytes", f"working sets must increase, got {size:g} after {previous:g}")
            previous = size
            _number(where, f"{g}.gbps", r["gbps"])
            _number(where, f"{g}.spread", r["spread"], positive=False)
            if r["verified"] is not True:
                _fail(where, f"{g}.verified", "must be true: an unverified rate is not a measurement")
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


def loads(text: str, where: str = "working-set result") -> dict:
    return validate(parse_json(text, where, HierarchyError), where)


def load(path) -> dict:
    """Read and validate a working-set result file (one-line HierarchyError on any problem)."""
    return loads(read_text(path, HierarchyError, "a working-set result"), str(Path(path)))


def save(result: dict, path) -> Path:
    validate(result)
    p = Path(path)
    p.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return p


def recorded(device: str = "h200", backend: str = "numba") -> dict:
    """The shipped working-set sweep, ``rooflinelib/data/<device>_workingset_<backend>.json``."""
    path = DATA_DIR / f"{device}_workingset_{backend}.json"
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
