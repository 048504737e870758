"""Where Lab 1 and Lab 3 store their results by default, and results as CSV.

Default place.  ``roofline measure`` and ``roofline sweep`` store each result under
:func:`results_dir`, as ``ceilings_<backend>.json`` or ``sweep_<backend>.json``; the notebooks'
loaders (:func:`rooflinelib.modes.load_ceilings`, :func:`~rooflinelib.modes.load_sweep`) look
there before they fall back to the recorded H200 runs.  The folder is ``$ROOFLINE_RESULTS_DIR``
when set, else ``results/`` of the course checkout the package runs from, else
``$XDG_DATA_HOME/rooflinelib/store/results`` (``~/.local/share/...``) for an installed package.

CSV.  ``--csv FILE`` writes any result as one table: a ceilings result as the columns
:data:`CEILING_COLUMNS`, a sweep as :data:`SWEEP_COLUMNS`.  :func:`machine_from_csv` reads
either back (``roofline plot --ceilings FILE.csv``), checking every cell: a bad one is a
:class:`~rooflinelib.store.results.ResultError` naming the file, the row and the column.  A CSV keeps
the numbers only; the JSON result keeps the device, the clocks and the notes.
"""
from __future__ import annotations

import contextlib
import csv
import io
import os
from pathlib import Path

from rooflinelib.core import sanity
from rooflinelib.store.fileio import read_lines, write_atomic
from rooflinelib.measure import registry
from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.store.results import ResultError, validate

RESULTS_DIR_ENV = "ROOFLINE_RESULTS_DIR"
CEILING_COLUMNS = ("name", "kind", "value", "unit", "verified", "spread")
SWEEP_COLUMNS = ("k", "intensity", "gbps", "gflops", "verified")

_CHECKOUT = Path(__file__).resolve().parents[2]


def results_dir() -> Path:
    """The folder results are stored in by default (see the module's docstring)."""
    given = os.environ.get(RESULTS_DIR_ENV, "").strip()
    if given:
        return Path(given).expanduser()
    if (_CHECKOUT / "course.py").is_file() and (_CHECKOUT / "pyproject.toml").is_file():
        return _CHECKOUT / "results"
    base = os.environ.get("XDG_DATA_HOME", "").strip() or str(Path.home() / ".local" / "share")
    return Path(base) / "rooflinelib" / "store" / "results"


def default_path(kind: str, backend: str) -> Path:
    """Where a ``kind`` ('ceilings' or 'sweep') result of ``backend`` is stored by default."""
    if kind not in ("ceilings", "sweep"):
        raise ResultError(f"kind: must be ceilings or sweep, got {kind!r}")
    if backend not in registry.BACKENDS:
        raise ResultError(f"backend: must be one of {', '.join(registry.BACKENDS)}, got {backend!r}")
    return results_dir() / f"{kind}_{backend}.json"


def stored_path(kind: str, backend: str):
    """The default path of a ``kind`` result of ``backend`` if a file is there, else None."""
    path = default_path(kind, backend)
    return path if path.is_file() else None


# --- CSV ---------------------------------------------------------------------------------


def _cell(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def to_csv(result: dict) -> str:
    """A validated result as CSV text (header row first)."""
    validate(result)
    return _csv_text(result)


def _csv_text(result: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if result["kind"] == "sweep":
        columns, rows = SWEEP_COLUMNS, result["rows"]
    else:
        columns, rows = CEILING_COLUMNS, result["ceilings"]
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row[c]) for c in columns])
    return out.getvalue()


def write_csv(result: dict, path, checked: bool = False) -> Path:
    """Write ``result`` as CSV to ``path`` (atomically, like every result file).  ``checked``:
    the caller validated ``result`` on its way out already (``roofline measure`` writes the
    JSON beside it first), so it is not validated a second time."""
    return write_atomic(Path(path), _csv_text(result) if checked else to_csv(result), ResultError)


#: The longest line of a result CSV: its rows are under 200 characters.  A longer one (a
#: cell with an unclosed quote, a file with no line ends) is refused as it is read.
MAX_CSV_LINE_CHARS = 4096
#: The most rows a result CSV has: one per registered ceiling, or one per K of a sweep (K is
#: at most 4096).  A longer file is refused at the row over this, not held whole.
MAX_CSV_ROWS = 10_000


def _number(text: str, where: str, column: str, integer: bool = False, unit: str = None,
            positive: bool = False) -> float:
    """A cell as a number, under the rule every number from outside meets
    (:func:`rooflinelib.core.sanity.number`), worded as the JSON result's checks word it."""
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        kind = "a whole number" if integer else "a number"
        raise ResultError(f"{where}: {column}: must be {kind}, got {sanity.show(text)}") from None
    if value <= 0 if positive else value < 0:  # the schema's own words for the JSON file
        raise ResultError(f"{where}: {column}: must be {'>' if positive else '>='} 0, got {sanity.show(value)}")
    return sanity.number(value, f"{where}: {column}", error=ResultError, positive=positive,
                         nonnegative=not positive, unit=unit if unit in sanity.BANDS else None)


def _flag(text: str, where: str, column: str) -> bool:
    lowered = text.strip().lower()
    if lowered not in ("true", "false"):
        raise ResultError(f"{where}: {column}: must be true or false, got {sanity.show(text)}")
    return lowered == "true"


def _records(p: Path, lines):
    """``(row number, cells)`` of each non-blank record of ``lines``; the row is the line it
    starts on, as a spreadsheet numbers it.  csv's own complaints name the row too."""
    reader = csv.reader(lines)
    while True:
        row = reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ResultError(f"{p}: row {row}: not CSV ({' '.join(str(exc).split())[:80]})") from None
        if any(cell.strip() for cell in cells):
            yield row, cells


def read_csv(path) -> tuple:
    """``(kind, rows)`` of a result CSV: kind 'ceilings' or 'sweep', rows as typed dicts.

    Read as a stream (:func:`rooflinelib.store.fileio.read_lines`), each row checked as it comes:
    the first bad row stops the reading, so a large file of repeated rows costs one chunk."""
    p = Path(path)
    lines = read_lines(p, ResultError, "a result CSV", "result", max_line=MAX_CSV_LINE_CHARS,
                       what="row")
    with contextlib.closing(lines):
        records = _records(p, lines)
        first = next(records, None)
        if first is None:
            raise ResultError(f"{p}: file: empty, expected a header row")
        header = tuple(cell.strip() for cell in first[1])
        if header == CEILING_COLUMNS:
            kind = "ceilings"
        elif header == SWEEP_COLUMNS:
            kind = "sweep"
        else:
            raise ResultError(f"{p}: header: expected {','.join(CEILING_COLUMNS)} (ceilings) or "
                              f"{','.join(SWEEP_COLUMNS)} (a sweep), got {sanity.show(','.join(header))}")
        rows, seen = [], {}
        for number, line in records:
            where = f"{p}: row {number}"
            if len(rows) == MAX_CSV_ROWS:
                raise ResultError(f"{where}: more than {MAX_CSV_ROWS:,} rows; no result has that many")
            if len(line) != len(header):
                raise ResultError(f"{where}: has {len(line)} cells, expected {len(header)}")
            cells = dict(zip(header, (cell.strip() for cell in line)))
            if kind == "ceilings":
                row = _ceiling_row(cells, where)
                if row["name"] in seen:
                    raise ResultError(f"{where}: name: {row['name']} appears twice (row "
                                      f"{seen[row['name']]} and this one)")
                seen[row["name"]] = number
            else:
                row = _sweep_row(cells, where, rows[-1]["k"] if rows else None)
            rows.append(row)
    if not rows:
        raise ResultError(f"{p}: rows: the file has a header and no rows")
    if kind == "sweep" and (max(r["gbps"] for r in rows) <= 0 or max(r["gflops"] for r in rows) <= 0):
        raise ResultError(f"{p}: rows: a sweep needs a row with gbps > 0 and one with gflops > 0")
    return kind, rows


def _ceiling_row(cells: dict, where: str) -> dict:
    name = cells["name"]
    spec_kind = registry.kind_of(name)
    if spec_kind is None:
        raise ResultError(f"{where}: name: unknown ceiling {sanity.show(name)}; known: "
                          f"{', '.join(registry.names())}")
    if cells["kind"] != spec_kind:
        raise ResultError(f"{where}: kind: {name} is a {spec_kind} ceiling, got {sanity.show(cells['kind'])}")
    unit = registry.get(name).unit
    if cells["unit"] != unit:
        raise ResultError(f"{where}: unit: must be {unit!r} for {name}, got {sanity.show(cells['unit'])}")
    # the band of --peak-* and of the JSON result: a 1e300 GB/s roof is a unit slip or a forgery
    value = _number(cells["value"], where, "value", unit=unit, positive=True)
    return {"name": name, "kind": spec_kind, "value": value, "unit": unit,
            "verified": _flag(cells["verified"], where, "verified"),
            "spread": _number(cells["spread"], where, "spread")}


def _sweep_row(cells: dict, where: str, previous) -> dict:
    """A sweep row, checked as the JSON sweep's rows are (:func:`rooflinelib.store.results.validate`)."""
    k = int(_number(cells["k"], where, "k", integer=True))
    if previous is not None and k <= previous:
        raise ResultError(f"{where}: k: rows must be in increasing k, got {k} after {previous}")
    intensity = _number(cells["intensity"], where, "intensity")
    if abs(intensity - k / 4) > 1e-9 * max(1, k):
        raise ResultError(f"{where}: intensity: must be k/4 = {k / 4}, got {intensity}")
    gbps = _number(cells["gbps"], where, "gbps", unit="GB/s", positive=True)
    gflops = _number(cells["gflops"], where, "gflops")
    if k > 0 and gflops <= 0:
        raise ResultError(f"{where}: gflops: must be > 0 for k = {k}")
    if gflops:
        _number(cells["gflops"], where, "gflops", unit="GFLOP/s", positive=True)
    return {"k": k, "intensity": intensity, "gbps": gbps, "gflops": gflops,
            "verified": _flag(cells["verified"], where, "verified")}


def machine_from_csv(path, name: str = None) -> Machine:
    """A Machine (kind 'measured') from a result CSV: every ceiling of a ceilings CSV, or, from
    a sweep, ``dram`` and ``fp32`` at the sweep's best GB/s and best GFLOP/s."""
    p = Path(path)
    kind, rows = read_csv(p)
    where = f"from {p.name} (CSV)"
    if kind == "ceilings":
        ceilings = tuple(
            Ceiling(r["name"], r["kind"], r["value"],
                    f"{where}, spread {100 * r['spread']:.1f}%"
                    + ("" if r["verified"] else ", NOT verified"), registry.label_of(r["name"]))
            for r in rows if registry.get(r["name"]).part_of is None)  # as results.to_machine
    else:
        ceilings = (
            Ceiling("dram", "memory", max(r["gbps"] for r in rows),
                    f"{where}, sweep's best GB/s", "DRAM (sweep)"),
            Ceiling("fp32", "compute", max(r["gflops"] for r in rows),
                    f"{where}, sweep's best GFLOP/s", "fp32 FMA (sweep)"),
        )
    return Machine(name=name or f"{p.stem} (CSV)", ceilings=ceilings, source=where,
                   kind="measured", notes=f"{kind} CSV",
                   provenance={"name": p.stem, "result_kind": kind, "source": "csv"})
