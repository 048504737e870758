"""``roofline measure`` (Lab 1) and ``roofline sweep`` (Lab 3).

Both print progress on stderr and the tables of notebooks 03 and 04 on stdout (or, with
``--json``, the result itself), and store the validated result where the notebooks load it
from, or at ``--out FILE`` (:mod:`rooflinelib.cli.store`); ``roofline plot --ceilings FILE``
draws it.  Registered in :mod:`rooflinelib.cli`; the tables they
print are :func:`rooflinelib.views.tables.ceilings_table` and :func:`rooflinelib.views.tables.sweep_tables`.
"""
from __future__ import annotations

import argparse

import json
import os
import sys
from pathlib import Path

from rooflinelib.store.fileio import check_target
from rooflinelib.measure.backend import BACKEND_CHOICES, MAX_BUFFER_MIB, MIN_BUFFER_MIB
from rooflinelib.measure.ceilings import measure_ceilings
from rooflinelib.measure.errors import BackendUnavailable, VerificationError
from rooflinelib.measure.sweep import run_sweep
from rooflinelib.measure.timing import TimingUnavailable
from rooflinelib.modes import keeps_clean
from rooflinelib.store.lab_files import RESULTS_DIR_ENV, results_dir
from rooflinelib.store.results import ResultError, save
from rooflinelib.views.tables import ceilings_table, sweep_tables
from rooflinelib.cli.errors import EXIT_FAILED, EXIT_OK, UsageError, number_option, option_error
from rooflinelib.cli.store import (add_store_options, check_store_options, default_out,
                                   write_csv_option)


def _add_common(parser):
    parser.add_argument("--backend", choices=BACKEND_CHOICES, default="auto",
                        help="numba or cupy on a CUDA GPU, cpu for this machine's cores; auto "
                             "takes the first that works and says so (default auto)")
    add_store_options(parser)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--size-mib", metavar="MIB",
                        help="each DRAM buffer in MiB (default 1024 on a GPU, 256 on the CPU)")
    parser.add_argument("--repeats", metavar="N", help="timed repeats per kernel (median taken)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


def add_measure_command(subparsers):
    parser = subparsers.add_parser(
        "measure", help="measure this machine's ceilings (Lab 1)",
        description="Lab 1: measure the memory and compute ceilings of this GPU (or CPU) with "
                    "verified microbenchmarks, and print them with their provenance.")
    _add_common(parser)
    parser.add_argument("--no-matrix", action="store_true",
                        help="skip the cuBLAS matrix ceilings")
    parser.add_argument("--no-links", action="store_true",
                        help="skip the host <-> device ceilings (pcie-h2d, pcie-d2h), which a GPU "
                             "run measures by default")
    # --links asked for them before they were the default; kept so that old scripts still run
    parser.add_argument("--links", action="store_true", help=argparse.SUPPRESS)
    parser.set_defaults(handler=run_measure)
    return parser


def add_sweep_command(subparsers):
    parser = subparsers.add_parser(
        "sweep", help="walk one kernel across the roofline (Lab 3)",
        description="Lab 3: one kernel with K FMAs per float32 element, I = K/4 FLOP/byte, swept "
                    "from K=0 (a copy) to K=1024; the ridge is read off the sweep's own ends.")
    _add_common(parser)
    parser.add_argument("--ks", metavar="LIST",
                        help="comma-separated K values, starting at 0 (default: 0..1024, "
                             "densest around the expected knee)")
    parser.set_defaults(handler=run_sweep_command)
    return parser


# ---------------------------------------------------------------------------------------------
# option parsing (one-line errors that name the option)


def parse_ks(text):
    if text is None:
        return None
    try:
        ks = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"--ks: must be whole numbers separated by commas, got {text!r}") from None
    if len(ks) < 2 or ks[0] != 0:
        raise UsageError("--ks: needs at least two values, starting with 0 (the copy)")
    if any(b <= a for a, b in zip(ks, ks[1:])):
        raise UsageError("--ks: values must increase")
    if ks[-1] > 4096:
        raise UsageError(f"--ks: {ks[-1]} is above the largest supported K, 4096")
    return tuple(ks)


_OutError = option_error("--out")


def _check_out(path):
    """Refuse a target that cannot be written before a run of minutes, not after it."""
    if path is None:
        return None
    check_target(path, _OutError)
    return Path(path)


def _check_default_folder(args, kind: str) -> None:
    """Where the result goes when no --out is given, checked before a run of minutes: the
    folder made, and a file creatable in it.  $ROOFLINE_RESULTS_DIR, when it chose the folder,
    is what the error names."""
    if args.out is not None or args.no_save:
        return
    folder = results_dir()
    option = RESULTS_DIR_ENV if os.environ.get(RESULTS_DIR_ENV, "").strip() else "--out"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{option}: {folder}: cannot create the folder ({exc.strerror or exc}); "
                         "give --out FILE or --no-save") from None
    check_target(folder / f"{kind}.json", option_error(option))


def _progress(args):
    if args.quiet:
        return None
    return lambda line: print(line, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# handlers


def _finish(result, args, table):
    if args.out is None and not args.no_save:
        args.out = default_out(result)  # where the notebooks look, named by the real backend
        kept = keeps_clean(result, args.out)  # a noisy run never replaces a clean stored one
        if kept:
            print(f"not stored: {kept}; re-run when no other program is busy", file=sys.stderr)
            args.out = None
    # both targets checked again before either is written: a --csv that cannot be written
    # must not leave --out replaced and the command failed
    out = _check_out(args.out)
    check_store_options(args)
    # The result was validated when it was made (in) and is validated once more before it is
    # written (out): by save when it is stored, else by the CSV writer.
    if out is not None:
        try:
            save(result, out)
        except ResultError as exc:  # a full disk or a vanished folder: the old file is intact
            raise _OutError(" ".join(str(exc).split())) from None
        if not args.quiet:
            print(f"wrote {out}", file=sys.stderr)
    write_csv_option(result, args, checked=out is not None)
    if args.json:
        print(json.dumps(result, indent=1, allow_nan=False))
    else:
        print(table(result))
    return EXIT_OK


def _guarded(run):
    try:
        return run()
    except (VerificationError, TimingUnavailable) as exc:
        print(f"roofline: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_FAILED
    except (BackendUnavailable, ResultError) as exc:
        raise UsageError(" ".join(str(exc).split())) from None


def run_measure(args) -> int:
    size = number_option(args.size_mib, "--size-mib", maximum=MAX_BUFFER_MIB,
                         minimum=MIN_BUFFER_MIB)
    repeats = number_option(args.repeats, "--repeats", integer=True, maximum=1000)
    check_store_options(args)
    _check_out(args.out)
    _check_default_folder(args, "ceilings")
    return _guarded(lambda: _finish(
        measure_ceilings(args.backend, size_mib=size, repeats=repeats,
                         matrix=not args.no_matrix, links=not args.no_links, progress=_progress(args)),
        args, ceilings_table))


def run_sweep_command(args) -> int:
    size = number_option(args.size_mib, "--size-mib", maximum=MAX_BUFFER_MIB,
                         minimum=MIN_BUFFER_MIB)
    repeats = number_option(args.repeats, "--repeats", integer=True, maximum=1000)
    check_store_options(args)
    ks = parse_ks(args.ks)
    _check_out(args.out)
    _check_default_folder(args, "sweep")
    return _guarded(lambda: _finish(
        run_sweep(args.backend, ks=ks, size_mib=size, repeats=repeats, progress=_progress(args)),
        args, sweep_tables))
