"""Measurement results on disk: a versioned JSON format, save/load, and strict validation.

Two kinds of result, both written by ``roofline measure`` / ``roofline sweep`` and the labs:

``ceilings`` (Lab 1)::

    {"format": "rooflinelib-result", "version": 1, "kind": "ceilings",
     "backend": "numba", "created": "2026-11-30T12:00:00+00:00", "scope": "gpu",
     "device": {"name": "NVIDIA H200", "kind": "gpu", ...provenance...},
     "ceilings": [{"name": "dram", "kind": "memory", "value": 4213.0, "unit": "GB/s",
                   "verified": true, "spread": 0.004}, ...],
     "details": [...], "jit_seconds": {...}, "notes": [...]}

``sweep`` (Lab 3)::

    {..., "kind": "sweep",
     "rows": [{"k": 0, "intensity": 0.0, "gbps": 4150.0, "gflops": 0.0, "verified": true}, ...],
     "ridge": 15.6, "peak_gflops": 64800.0, "peak_gbps": 4150.0,
     "knee": {"intensity": 16.1, "k": 64}, ...}

Loading validates everything that a reader relies on before returning anything: a malformed,
truncated or foreign file raises :class:`ResultError` with a one-line message naming the file
and the field, and nothing half-loaded is ever returned.  Unknown extra top-level keys are
allowed (newer writers may add detail), unknown keys inside a ceiling or a row are not.

The formats are declared as JSON Schema files, ``rooflinelib/store/schemas/ceilings.schema.json``
and ``sweep.schema.json``, which other tools can check files against; :func:`validate` checks
them with :mod:`rooflinelib.store.validation`, the ceiling names against the ceiling registry, and
what a schema cannot say (a ridge equal to P / B, rows in increasing k).
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from rooflinelib.core import sanity
from rooflinelib.store import validation
from rooflinelib.store.fileio import parse_json, read_text, write_atomic
from rooflinelib.measure import registry
from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.store.recorded import recorded_file, recorded_files

FORMAT = "rooflinelib-result"
VERSION = 1
KINDS = ("ceilings", "sweep")
BACKENDS = registry.BACKENDS



class ResultError(ValueError):
    """A result file or object that cannot be used; the message is one line."""


# ---------------------------------------------------------------------------------------------
# validation: the schemas rooflinelib/store/schemas/{ceilings,sweep}.schema.json, then what they
# cannot say


@lru_cache(maxsize=None)
def _ceilings_checker(rows: tuple):
    """The ceilings schema with the registry's rows filled in: each name must be registered,
    with its kind and its unit.  Built when a result is validated, since the registry may gain
    rows at run time; ``rows`` is ``((name, kind, unit), ...)``."""
    document = validation.schema("ceilings")
    ceiling = document["$defs"]["ceiling"]
    known = ", ".join(name for name, _, _ in rows)
    ceiling["properties"]["name"] = {
        "type": "string", "enum": [name for name, _, _ in rows],
        "errorMessage": {"enum": f"unknown ceiling {{value}}; known: {known}"}}
    # Each name's own kind and unit, ahead of the schema's kind -> unit rule, so that a wrong
    # unit is reported against the ceiling's name.
    ceiling["allOf"] = [
        {"if": {"properties": {"name": {"const": name}}, "required": ["name"]},
         "then": {"properties": {
             "kind": {"const": kind, "errorMessage": f"{name} is a {kind} ceiling, got {{value}}"},
             "unit": {"const": unit, "errorMessage": f"must be {unit!r} for {name}, got {{value}}"}}}}
        for name, kind, unit in rows] + ceiling.get("allOf", [])
    return validation.validator(document)


@lru_cache(maxsize=None)
def _sweep_checker():
    return validation.validator(validation.schema("sweep"))


def _sane(where, field, value, unit):
    """A rate inside the physical band of ``--peak-*``: a verified 1e300 GFLOP/s is a forged
    or corrupted file, and would be drawn as a roof."""
    sanity.number(value, f"{where}: {field}", error=ResultError, positive=True, unit=unit)


def _check_sweep(where, data):
    """What the sweep schema cannot say: the rows' order, their intensities, and the roofs."""
    rows = data["rows"]
    previous = None
    for i, r in enumerate(rows):
        k = r["k"]
        if previous is not None and k <= previous:
            validation.fail(ResultError, where, f"rows[{i}].k", f"rows must be in increasing k, got {k} after {previous}")
        previous = k
        if abs(r["intensity"] - k / 4) > 1e-9 * max(1, k):
            validation.fail(ResultError, where, f"rows[{i}].intensity", f"must be k/4 = {k / 4}, got {r['intensity']}")
        if k > 0 and r["gflops"] <= 0:
            validation.fail(ResultError, where, f"rows[{i}].gflops", f"must be > 0 for k = {k}")
    for i, r in enumerate(rows):
        _sane(where, f"rows[{i}].gbps", r["gbps"], "GB/s")
        if r["gflops"]:
            _sane(where, f"rows[{i}].gflops", r["gflops"], "GFLOP/s")
    _sane(where, "peak_gflops", data["peak_gflops"], "GFLOP/s")
    _sane(where, "peak_gbps", data["peak_gbps"], "GB/s")
    peak_gflops, peak_gbps, ridge = data["peak_gflops"], data["peak_gbps"], data["ridge"]
    if abs(ridge - peak_gflops / peak_gbps) > 1e-6 * ridge:
        validation.fail(ResultError, where, "ridge", f"must equal peak_gflops / peak_gbps = {peak_gflops / peak_gbps:.6g}")
    if peak_gflops < max(r["gflops"] for r in rows) * (1 - 1e-9):
        validation.fail(ResultError, where, "peak_gflops", "is below a row's gflops; it must be the sweep's maximum")
    if peak_gbps < max(r["gbps"] for r in rows) * (1 - 1e-9):
        validation.fail(ResultError, where, "peak_gbps", "is below a row's gbps; it must be the sweep's maximum")


def validate(data, where: str = "result") -> dict:
    """Check a result object field by field; returns it unchanged or raises ResultError."""
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind == "sweep":
        validation.check(data, _sweep_checker(), where, ResultError)
        _check_sweep(where, data)
    else:  # a ceilings result, or no result at all: the ceilings schema says which field is wrong
        rows = tuple((spec.name, spec.kind, spec.unit) for spec in registry.specs())
        validation.check(data, _ceilings_checker(rows), where, ResultError)
        seen = set()
        for i, c in enumerate(data["ceilings"]):
            if c["name"] in seen:
                validation.fail(ResultError, where, f"ceilings[{i}].name", f"{c['name']} appears twice")
            seen.add(c["name"])
            if c["unit"] in sanity.BANDS:
                _sane(where, f"ceilings[{i}].value", c["value"], c["unit"])
    return data


# ---------------------------------------------------------------------------------------------
# files


def loads(text: str, where: str = "result") -> dict:
    return validate(parse_json(text, where, ResultError), where)


def load(path) -> dict:
    """Read and validate a result file; raises ResultError (one line) on any problem."""
    return loads(read_text(path, ResultError, "a result file", "result"), str(Path(path)))


def dumps(result: dict) -> str:
    validate(result)
    return json.dumps(result, indent=1, sort_keys=False) + "\n"


def save(result: dict, path) -> Path:
    """Validate, then write through :func:`rooflinelib.store.fileio.write_atomic` (ResultError,
    one line, when it cannot be written; the old file is then unchanged)."""
    return write_atomic(path, dumps(result), ResultError)


# ---------------------------------------------------------------------------------------------
# results as machines


def _as_result(result_or_path) -> dict:
    if isinstance(result_or_path, dict):
        return validate(result_or_path)
    return load(result_or_path)


def machine_name(result: dict) -> str:
    device = result["device"]["name"]
    return f"{device} (measured, {result['backend']})"


def dram_mix(result: dict) -> str:
    """The access mix a ceilings result's ``dram`` came from: 'read', 'write' or 'copy' (a
    result from before the mixes were measured held only the copy)."""
    for d in result.get("details", []):
        if isinstance(d, dict) and d.get("name") == "dram":
            return str(d.get("mix", "copy"))
    return "copy"


def dram_mixes(result_or_path) -> dict:
    """``{mix: GB/s}`` of a ceilings result's DRAM access mixes ('read', 'write', 'copy'; only
    those it measured)."""
    result = _as_result(result_or_path)
    rates = {c["name"]: float(c["value"]) for c in result.get("ceilings", ())}
    return {registry.MIX_OF[row]: rates[row] for row in registry.parts_of("dram") if row in rates}


def mix_roofs(result_or_path, name: str = None) -> tuple:
    """``(machine, memory)``: the machine of a ceilings result with DRAM's access mixes kept,
    and the memory ceilings a chart draws for it: ``dram`` first (the fastest mix, which the
    ridge uses), then every other mix the result measured, so that a student sees the roof a
    kernel of each mix is judged against.  A result without mixes gives ``["dram"]``."""
    result = _as_result(result_or_path)
    best = dram_mix(result)
    others = [f"dram-{mix}" for mix in dram_mixes(result) if mix != best]
    return to_machine(result, name=name, mixes=True), ["dram"] + others


def l2_footprint(result: dict):
    """The working set (bytes) a ceilings result's ``l2`` was read from, or None."""
    for d in result.get("details", []):
        if isinstance(d, dict) and d.get("name") == "l2":
            value = d.get("footprint_bytes", (d.get("config") or {}).get("working_set_bytes"))
            return value if isinstance(value, (int, float)) and value > 0 else None
    return None


def _label(result: dict, name: str) -> str:
    if name == "dram":
        return f"DRAM ({dram_mix(result)})"
    if name == "l2" and l2_footprint(result):
        return f"L2 (read, {registry.footprint_text(l2_footprint(result))} set)"
    return registry.label_of(name)


def _spread_words(ceiling: dict) -> str:
    """'spread 2.1% (IQR)' where the row keeps the IQR over the median (else max - min over the
    median, as older results do), and ', NOISY' when the measurement judged itself noisy."""
    if "iqr" in ceiling:
        text = f"spread {100 * ceiling['iqr']:.1f}% (IQR)"
    else:
        text = f"spread {100 * ceiling['spread']:.1f}%"
    return text + (", NOISY" if ceiling.get("noisy") else "")


def to_machine(result_or_path, name: str = None, mixes: bool = False):
    """A :class:`rooflinelib.Machine` (kind 'measured') holding the result's ceilings.

    A ceilings result gives every ceiling it holds, except the parts of another (DRAM's
    access mixes, ``dram-read`` and so on) unless ``mixes``: ``dram`` is their best, labelled
    with its mix ("DRAM (write)").  A sweep gives ``dram`` and ``fp32`` from the two ends of
    the sweep.  The machine's ``provenance`` is the result's ``device`` block plus the backend,
    kind and timestamp.
    """
    result = _as_result(result_or_path)
    date = result["created"][:10]
    where = f"measured {date}, {result['backend']} backend"
    if result["kind"] == "ceilings":
        ceilings = tuple(
            Ceiling(c["name"], c["kind"], float(c["value"]),
                    f"{where}, {_spread_words(c)}", _label(result, c["name"]))
            for c in result["ceilings"]
            if mixes or registry.get(c["name"]).part_of is None)
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
    if result["kind"] == "ceilings":  # the SM clock each ceiling ran at, where it was sampled
        clocks = {d["name"]: d["sm_clock_mhz_during"] for d in result.get("details", ())
                  if isinstance(d, dict) and isinstance(d.get("name"), str)
                  and isinstance(d.get("sm_clock_mhz_during"), (int, float))
                  and not isinstance(d.get("sm_clock_mhz_during"), bool)}
        if clocks:
            provenance["sm_clock_mhz_during"] = clocks
    return Machine(name=name or machine_name(result), ceilings=ceilings, source=where,
                   date=date, kind="measured", notes=scope, provenance=provenance)


# ---------------------------------------------------------------------------------------------
# the recorded H200 runs shipped with the package


def recorded_names() -> list:
    """File names of the recorded results in ``rooflinelib/data`` (``<device>_<kind>_<backend>.json``
    for the kinds above; the folder also holds data other modules read, such as working-set
    sweeps and ncu counters)."""
    return sorted(p.name for p in recorded_files("*.json") if any(f"_{k}_" in p.name for k in KINDS))


def recorded(kind: str = "ceilings", backend: str = "numba", device: str = "h200") -> dict:
    """A shipped recorded result, e.g. ``recorded("sweep", "cupy")``."""
    if kind not in KINDS:
        raise ResultError(f"kind: must be one of {', '.join(KINDS)}, got {kind!r}")
    if backend not in BACKENDS:
        raise ResultError(f"backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    path = recorded_file(f"{device}_{kind}_{backend}.json")
    if not path.exists():
        raise ResultError(f"{path.name}: file: no recorded {kind} for {device} with {backend}; "
                          f"shipped: {', '.join(recorded_names()) or 'none'}")
    return load(path)


def recorded_links(backend: str = "numba", device: str = "h200") -> dict:
    """The shipped host <-> device ceilings (``pcie-h2d``, ``pcie-d2h``), a ``ceilings`` result
    of their own: the recorded Lab 1 run predates them."""
    if backend not in BACKENDS:
        raise ResultError(f"backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    path = recorded_file(f"{device}_interconnect_{backend}.json")
    if not path.exists():
        raise ResultError(f"{path.name}: file: no recorded link ceilings for {device} with {backend}")
    return load(path)


def recorded_h200(backend: str = "numba"):
    """The H200's measured ceilings, as shipped: the default when no GPU is present."""
    return to_machine(recorded("ceilings", backend), name=f"H200 (recorded, {backend})")


def recorded_h200_sweep(backend: str = "numba") -> dict:
    """The H200's recorded intensity sweep (a validated result dict)."""
    return recorded("sweep", backend)
