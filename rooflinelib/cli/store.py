"""Where ``roofline measure`` and ``roofline sweep`` store what they measured.

By default the validated result goes to the place the notebooks load from
(:func:`rooflinelib.store.lab_files.default_path`, named after the result's own backend, never
``auto``), and the path is printed; ``--out FILE`` picks another place, ``--no-save`` stores
nothing, and ``--csv FILE`` also writes the result as CSV.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from rooflinelib.store.fileio import check_target
from rooflinelib.store.lab_files import default_path, write_csv
from rooflinelib.store.results import ResultError
from rooflinelib.cli.errors import UsageError, option_error


def add_store_options(parser) -> None:
    store = parser.add_mutually_exclusive_group()
    store.add_argument("--out", metavar="FILE",
                       help="store the result as JSON here instead of the default place, "
                            "results/<kind>_<backend>.json, where the notebooks look for it")
    store.add_argument("--no-save", action="store_true",
                       help="store no result file (the tables are still printed)")
    parser.add_argument("--csv", metavar="FILE",
                        help="also write the result as CSV (ceilings: name, kind, value, unit, "
                             "verified, spread; a sweep: k, intensity, gbps, gflops, verified)")


def _csv_target(text: str) -> Path:
    p = Path(text)
    if not text.strip() or p.is_dir():
        raise UsageError(f"--csv: {text!r:.60} is not a file name")
    # a link's own folder is there: check_target names the folder it points into
    if not os.path.islink(p) and not p.resolve().parent.is_dir():
        raise UsageError(f"--csv: folder {str(p.parent)!r:.60} does not exist")
    check_target(p, option_error("--csv"))  # a device, a pipe or /proc, before a run of minutes
    return p


def check_store_options(args) -> None:
    """Refuse a bad --csv before a measurement of minutes, not after it."""
    if args.csv is not None:
        _csv_target(args.csv)


def default_out(result: dict) -> str:
    """The default place for ``result``; its folder is created when missing."""
    path = default_path(result["kind"], result["backend"])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out: cannot create {path.parent} ({exc.strerror}); "
                         "give --out FILE or --no-save") from None
    return str(path)


def write_csv_option(result: dict, args, checked: bool = False) -> None:
    """--csv: ``checked`` when ``result`` was validated on its way out (saved as JSON) already."""
    if args.csv is None:
        return
    try:
        written = write_csv(result, _csv_target(args.csv), checked=checked)
    except (ResultError, OSError) as exc:
        raise UsageError(f"--csv: {' '.join(str(exc).split())}") from None
    if not args.quiet:
        print(f"wrote {written}", file=sys.stderr)
