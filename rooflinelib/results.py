"""Measurement results on disk: a versioned JSON format, save/load, and strict validation.

Two kinds of result, both written by ``roofline measure`` / ``roofline sweep`` and the labs:

``ceilings`` (Lab 1)::

    {"format": "rooflinelib-result", "version": 1, "kind": "ceilings",
     "backend": "numba", "created": "2026-11-30T12:00:00+00:00", "scope": "gpu",
     "device": {"name": "NVIDIA H200", "kind": "gpu", ...provenance...},
     "ceilings": [{"name": "dram", "kind": "memory", "value": 4213.0, "unit": "GB/s",
                   "verified": true, "spread": 0.004}, ...],
     "details": [...], "jit_seconds": {...}, "notes": [...]}

``sweep`` (Lab 2)::

    {..., "kind": "sweep",
     "rows": [{"k": 0, "intensity": 0.0, "gbps": 4150.0, "gflops": 0.0, "verified": true}, ...],
     "ridge": 15.6, "peak_gflops": 64800.0, "peak_gbps": 4150.0,
     "knee": {"intensity": 16.1, "k": 64}, ...}

Loading validates everything that a reader relies on before returning anything: a malformed,
truncated or foreign file raises :class:`ResultError` with a one-line message naming the file
and the field, and nothing half-loaded is ever returned.  Unknown extra top-level keys are
allowed (newer writers may add detail), unknown keys inside a ceiling or a row are not.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

from .fileio import parse_json, read_text
from .measure import registry

FORMAT = "rooflinelib-result"
VERSION = 1
KINDS = ("ceilings", "sweep")
BACKENDS = registry.BACKENDS
CEILING_KEYS = ("name", "kind", "value", "unit", "verified", "spread")
ROW_KEYS = ("k", "intensity", "gbps", "gflops", "verified")

DATA_DIR = Path(__file__).resolve().parent / "data"


class ResultError(ValueError):
    """A result file or object that cannot be used; the message is one line."""


# ---------------------------------------------------------------------------------------------
# validation


def _fail(where: str, field: str, reason: str):
    raise ResultError(f"{where}: {field}: {reason}")


def _number(where, field, value, minimum=None, strictly=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(where, field, f"must be a number, got {value!r:.40}")
    if not math.isfinite(value):
        _fail(where, field, f"must be finite, got {value!r}")
    if minimum is not None and (value <= minimum if strictly else value < minimum):
        _fail(where, field, f"must be {'>' if strictly else '>='} {minimum}, got {value!r}")
    return float(value)


def _exact_fields(where, field, obj, keys):
    """``obj`` must be an object with exactly the fields ``keys``."""
    if not isinstance(obj, dict):
        _fail(where, field, f"must be an object, got {type(obj).__name__}")
    missing = [k for k in keys if k not in obj]
    if missing:
        _fail(where, f"{field}.{missing[0]}", "missing")
    extra = sorted(set(obj) - set(keys))
    if extra:
        _fail(where, f"{field}.{extra[0]}", "unknown field")


def _check_ceiling(where, i, c):
    f = f"ceilings[{i}]"
    _exact_fields(where, f, c, CEILING_KEYS)
    name = c["name"]
    expected_kind = registry.kind_of(name) if isinstance(name, str) else None
    if expected_kind is None:
        _fail(where, f"{f}.name", f"unknown ceiling {name!r:.40}; known: " + ", ".join(registry.names()))
    if c["kind"] != expected_kind:
        _fail(where, f"{f}.kind", f"{name} is a {expected_kind} ceiling, got {c['kind']!r:.20}")
    unit = "GB/s" if expected_kind == "memory" else "GFLOP/s"
    if c["unit"] != unit:
        _fail(where, f"{f}.unit", f"must be {unit!r} for {name}, got {c['unit']!r:.20}")
    _number(where, f"{f}.value", c["value"], 0, strictly=True)
    if c["verified"] is not True:
        _fail(where, f"{f}.verified", "must be true: an unverified rate is not a measurement")
    _number(where, f"{f}.spread", c["spread"], 0)


def _check_row(where, i, r, previous_k):
    f = f"rows[{i}]"
    _exact_fields(where, f, r, ROW_KEYS)
    k = r["k"]
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        _fail(where, f"{f}.k", f"must be a whole number >= 0, got {k!r:.20}")
    if previous_k is not None and k <= previous_k:
        _fail(where, f"{f}.k", f"rows must be in increasing k, got {k} after {previous_k}")
    intensity = _number(where, f"{f}.intensity", r["intensity"], 0)
    if abs(intensity - k / 4) > 1e-9 * max(1, k):
        _fail(where, f"{f}.intensity", f"must be k/4 = {k / 4}, got {intensity}")
    _number(where, f"{f}.gbps", r["gbps"], 0, strictly=True)
    gflops = _number(where, f"{f}.gflops", r["gflops"], 0)
    if k > 0 and gflops <= 0:
        _fail(where, f"{f}.gflops", f"must be > 0 for k = {k}")
    if r["verified"] is not True:
        _fail(where, f"{f}.verified", "must be true: an unverified rate is not a measurement")
    return k


def validate(data, where: str = "result") -> dict:
    """Check a result object field by field; returns it unchanged or raises ResultError."""
    if not isinstance(data, dict):
        _fail(where, "top level", f"must be a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        _fail(where, "format", f"missing or not {FORMAT!r}: not a rooflinelib result file")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        _fail(where, "version", f"must be a whole number, got {version!r:.20}")
    if version > VERSION:
        _fail(where, "version", f"{version} is newer than this rooflinelib reads ({VERSION}); upgrade")
    if version < 1:
        _fail(where, "version", f"must be >= 1, got {version}")
    kind = data.get("kind")
    if kind not in KINDS:
        _fail(where, "kind", f"must be one of {', '.join(KINDS)}, got {kind!r:.20}")
    if data.get("backend") not in BACKENDS:
        _fail(where, "backend", f"must be one of {', '.join(BACKENDS)}, got {data.get('backend')!r:.20}")
    if data.get("scope") not in ("gpu", "cpu"):
        _fail(where, "scope", f"must be 'gpu' or 'cpu', got {data.get('scope')!r:.20}")
    if not isinstance(data.get("created"), str) or not data["created"]:
        _fail(where, "created", "missing: a result needs its timestamp")
    device = data.get("device")
    if not isinstance(device, dict):
        _fail(where, "device", "missing: a result needs its provenance")
    if not isinstance(device.get("name"), str) or not device["name"]:
        _fail(where, "device.name", "missing")
    if kind == "ceilings":
        ceilings = data.get("ceilings")
        if not isinstance(ceilings, list) or not ceilings:
            _fail(where, "ceilings", "must be a non-empty list")
        seen = set()
        for i, c in enumerate(ceilings):
            _check_ceiling(where, i, c)
            if c["name"] in seen:
                _fail(where, f"ceilings[{i}].name", f"{c['name']} appears twice")
            seen.add(c["name"])
    else:
        rows = data.get("rows")
        if not isinstance(rows, list) or len(rows) < 2:
            _fail(where, "rows", "must be a list of at least two sweep points")
        previous = None
        for i, r in enumerate(rows):
            previous = _check_row(where, i, r, previous)
        if rows[0]["k"] != 0:
            _fail(where, "rows[0].k", "a sweep starts at k = 0 (its bandwidth calibration)")
        peak_gflops = _number(where, "peak_gflops", data.get("peak_gflops"), 0, strictly=True)
        peak_gbps = _number(where, "peak_gbps", data.get("peak_gbps"), 0, strictly=True)
        ridge = _number(where, "ridge", data.get("ridge"), 0, strictly=True)
        if abs(ridge - peak_gflops / peak_gbps) > 1e-6 * ridge:
            _fail(where, "ridge", f"must equal peak_gflops / peak_gbps = {peak_gflops / peak_gbps:.6g}")
        if peak_gflops < max(r["gflops"] for r in rows) * (1 - 1e-9):
            _fail(where, "peak_gflops", "is below a row's gflops; it must be the sweep's maximum")
        if peak_gbps < max(r["gbps"] for r in rows) * (1 - 1e-9):
            _fail(where, "peak_gbps", "is below a row's gbps; it must be the sweep's maximum")
    return data


# ---------------------------------------------------------------------------------------------
# files


def loads(text: str, where: str = "result") -> dict:
    return validate(parse_json(text, where, ResultError), where)


def load(path) -> dict:
    """Read and validate a result file; raises ResultError (one line) on any problem."""
    return loads(read_text(path, ResultError, "a result file"), str(Path(path)))


def dumps(result: dict) -> str:
    validate(result)
    return json.dumps(result, indent=1, sort_keys=False) + "\n"


def save(result: dict, path) -> Path:
    """Validate, then write atomically (a crash never leaves a half-written file)."""
    text = dumps(result)
    p = Path(path)
    if p.parent and not p.parent.exists():
        raise ResultError(f"{p}: out: folder {p.parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=".result-", suffix=".json", dir=str(p.parent or "."))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, p)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return p


# ---------------------------------------------------------------------------------------------
# results as machines


def _as_result(result_or_path) -> dict:
    if isinstance(result_or_path, dict):
        return validate(result_or_path)
    return load(result_or_path)


def machine_name(result: dict) -> str:
    device = result["device"]["name"]
    return f"{device} (measured, {result['backend']})"


def to_machine(result_or_path, name: str = None):
    """A :class:`rooflinelib.Machine` (kind 'measured') holding the result's ceilings.

    A ceilings result gives every ceiling it holds; a sweep gives ``dram`` and ``fp32`` from
    the two ends of the sweep.  The machine's ``provenance`` is the result's ``device`` block
    plus the backend, kind and timestamp.
    """
    from .model import Ceiling, Machine

    result = _as_result(result_or_path)
    date = result["created"][:10]
    where = f"measured {date}, {result['backend']} backend"
    if result["kind"] == "ceilings":
        ceilings = tuple(
            Ceiling(c["name"], c["kind"], float(c["value"]),
                    f"{where}, spread {100 * c['spread']:.1f}%", registry.label_of(c["name"]))
            for c in result["ceilings"])
    else:
        ceilings = (
            Ceiling("dram", "memory", float(result["peak_gbps"]),
                    f"{where}, sweep's best GB/s", "DRAM (sweep)"),
            Ceiling("fp32", "compute", float(result["peak_gflops"]),
                    f"{where}, sweep's best GFLOP/s", "fp32 FMA (sweep)"),
        )
    scope = "CPU roofline" if result["scope"] == "cpu" else "GPU roofline"
    provenance = dict(result["device"], backend=result["backend"], result_kind=result["kind"],
                      created=result["created"], scope=result["scope"])
    return Machine(name=name or machine_name(result), ceilings=ceilings, source=where,
                   date=date, kind="measured", notes=scope, provenance=provenance)


# ---------------------------------------------------------------------------------------------
# the recorded H200 runs shipped with the package


def recorded_names() -> list:
    """File names of the recorded results in ``rooflinelib/data`` (``<device>_<kind>_<backend>.json``
    for the kinds above; the folder also holds data other modules read, such as working-set
    sweeps and ncu counters)."""
    return sorted(p.name for p in DATA_DIR.glob("*.json") if any(f"_{k}_" in p.name for k in KINDS))


def recorded(kind: str = "ceilings", backend: str = "numba", device: str = "h200") -> dict:
    """A shipped recorded result, e.g. ``recorded("sweep", "cupy")``."""
    if kind not in KINDS:
        raise ResultError(f"kind: must be one of {', '.join(KINDS)}, got {kind!r}")
    if backend not in BACKENDS:
        raise ResultError(f"backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    path = DATA_DIR / f"{device}_{kind}_{backend}.json"
    if not path.exists():
        raise ResultError(f"{path.name}: file: no recorded {kind} for {device} with {backend}; "
                          f"shipped: {', '.join(recorded_names()) or 'none'}")
    return load(path)


def recorded_h200(backend: str = "numba"):
    """The H200's measured ceilings, as shipped: the default when no GPU is present."""
    return to_machine(recorded("ceilings", backend), name=f"H200 (recorded, {backend})")


def recorded_h200_sweep(backend: str = "numba") -> dict:
    """The H200's recorded intensity sweep (a validated result dict)."""
    return recorded("sweep", backend)
