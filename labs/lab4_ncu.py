#!/usr/bin/env python3
"""Lab 4: Nsight Compute's counters, placed on the hierarchical roofline.

    python3 labs/lab4_ncu.py profile                      # ncu on labs/lab4_target.py (our kernels)
    python3 labs/lab4_ncu.py profile -- python3 my_prog.py --size 4096
    python3 labs/lab4_ncu.py show results/lab4_ncu.csv --analytic results/lab4_analytic.json

``profile`` runs ``ncu --clock-control none --csv --page raw`` with the metrics for L1, L2 and
DRAM bytes, FP32/FP64 FMA, add and mul instructions, the kernel time and ncu's own peaks; it
stores the CSV and then does what ``show`` does.  ``show`` imports a CSV and prints, for every
profiled launch: its bytes and intensity at each level; its place against our measured
ceilings (the working-set sweep's levels and Lab 1's fp32 peak) and against ncu's peaks, with
the level that binds; and, given the program's analytic counts, how far the counters are from
them.  Needs ``ncu`` only to profile; ``show`` works anywhere, e.g. on the recorded H200 CSV:

    python3 labs/lab4_ncu.py show rooflinelib/data/h200_ncu_lab4.csv \\
        --analytic rooflinelib/data/h200_ncu_lab4_analytic.json
"""
import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "results"
DEFAULT_REGEX = "sweep|ws_read"
#: --timeout's default and its ceiling: a day is longer than any profile of these kernels, and a
#: larger number would overflow the wait for ncu.
TIMEOUT_S, MAX_TIMEOUT_S = 900, 86400


def _option_error(base, option):
    """``base``, with messages that start with the command-line option they are about."""
    class OptionError(base):
        def __init__(self, message):
            super().__init__(f"{option}: {message}")
    return OptionError


def find_ncu(given=None):
    """The ncu to run: ``given`` (and nothing else when it is given), else $NCU, the PATH, or
    the CUDA toolkit's default place."""
    candidates = (given,) if given else (os.environ.get("NCU"), shutil.which("ncu"), "/usr/local/cuda/bin/ncu")
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return str(candidate)
    return None


def _check_targets(out, log) -> None:
    """--out and --log (when given) can be written (fileio.check_target: a folder, a device, a
    missing folder or /proc refused), and are not one file: the CSV would be written, then
    replaced by ncu's messages."""
    from rooflinelib.store.fileio import check_target
    from rooflinelib.hierarchy.ncu import NcuError
    csv = check_target(out, _option_error(NcuError, "--out"))
    if log:
        messages = check_target(log, _option_error(NcuError, "--log"))
        if os.path.realpath(messages) == os.path.realpath(csv):
            raise NcuError(f"--log: {log}: is the same file as --out; give another")


def profile(args) -> int:
    from rooflinelib.cli.errors import number_option
    from rooflinelib.store.fileio import write_atomic
    from rooflinelib.hierarchy.ncu import NcuError, command, printable
    timeout = number_option(args.timeout, "--timeout", maximum=MAX_TIMEOUT_S)
    ncu = find_ncu(args.ncu)
    if ncu is None:
        where = f"{args.ncu} does not exist" if args.ncu else "not found (give --ncu PATH or set NCU)"
        raise NcuError(f"ncu: {where}; Nsight Compute ships with the CUDA toolkit, and `show` works "
                       "without it on a recorded CSV")
    out = Path(args.out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise NcuError(f"--out: {out.parent}: cannot create the folder ({exc.strerror or exc})") from None
    # Checked before a profile of minutes: a folder or a device is never a CSV to write.
    _check_targets(out, args.log)
    program = list(args.program)
    if program and program[0] == "--":
        program = program[1:]
    analytic = args.analytic
    if not program:
        analytic = analytic or str(out.with_name(out.stem + "_analytic.json"))
        program = [sys.executable, str(ROOT / "labs" / "lab4_target.py"), "--analytic", analytic]
    cmd = command(program, args.kernel_regex, peaks=not args.no_peaks, ncu=ncu)
    print("running: " + " ".join(cmd), file=sys.stderr, flush=True)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise NcuError(f"ncu: did not finish within {timeout:g} s (--timeout)") from None
    if done.returncode != 0:
        # No CSV: a failed run's output over the last good one would be read as a profile.  Its
        # messages are what --log is for, so they are kept.
        last = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()][-1:] or [""]
        kept = ""
        if args.log:
            write_atomic(args.log, done.stderr, _option_error(NcuError, "--log"))
            kept = f"; its messages are in {args.log}"
        raise NcuError(f"ncu: exited with status {done.returncode}: {printable(last[0])[:300]}; "
                       f"{out} was not written{kept}")
    # Both checked again before either is written (the run took minutes): an --out that cannot
    # be written must not leave --log replaced and the command failed.
    _check_targets(out, args.log)
    write_atomic(out, done.stdout, _option_error(NcuError, "--out"))
    print(f"ncu CSV written to {out}", file=sys.stderr)
    if args.log:
        write_atomic(args.log, done.stderr, _option_error(NcuError, "--log"))
    return show(argparse.Namespace(csv=str(out), analytic=analytic, ceilings=args.ceilings,
                                   workingset=args.workingset))


def _machine(ceilings_path, workingset_path):
    """Our measured ceilings: the working-set levels and Lab 1's compute peaks."""
    from rooflinelib.hierarchy import level_placement, workingset_files
    from rooflinelib.modes import load_ceilings
    loaded = load_ceilings(ceilings_path)
    ws = workingset_files.load(workingset_path) if workingset_path else workingset_files.recorded()
    return level_placement.machine_from_result(ws, loaded.machine), loaded.message


def show(args) -> int:
    from rooflinelib.hierarchy import ncu, level_placement
    from rooflinelib.hierarchy.workingset_files import HierarchyError
    kernels = ncu.load_csv(args.csv)
    print(f"{len(kernels)} profiled launch(es) in {args.csv}\n")
    print(ncu.kernel_table(kernels))
    if args.analytic:
        records = ncu.load_analytic(args.analytic)
        print("\nncu counters against the counts made by hand (gap = ncu / analytic - 1):")
        print(ncu.agreement_table(ncu.compare(kernels, records, args.analytic)))
    try:
        machine, message = _machine(args.ceilings, args.workingset)
    except HierarchyError as exc:  # no sweep to take levels from: the counters still print
        machine = None
        print(f"\nNo hierarchical placement: {' '.join(str(exc).split())}")
    if machine is not None:
        print(f"\nOur ceilings: {machine.name}. {message}")
        placements = []
        for k in kernels:
            try:
                placements.append(level_placement.place_levels(k.hierarchical(), machine))
            except ncu.NcuError as exc:
                print(f"  (skipped: {exc})")
        print(level_placement.placement_table(placements))
        for pl in placements:
            print("  " + pl.verdict())
    peaks = next((k.peaks() for k in kernels if k.peaks()), None)
    if peaks is not None:
        print(f"\nncu's own peaks (peak per cycle x the clock of that run, SM at "
              f"{peaks.sm_clock_mhz or 0:,.0f} MHz): theoretical, not measured.")
        print(f"{'ceiling':<8} {'ncu peak':>12} {'measured':>12} {'measured/ncu':>13}")
        for name, value in list(peaks.gbps.items()) + list(peaks.gflops.items()):
            ours = machine.ceiling(name).value if machine is not None and machine.has(name) else None
            ratio = f"{ours / value:>13.2f}" if ours else f"{'-':>13}"
            shown = f"{ours:>12,.0f}" if ours else f"{'-':>12}"
            print(f"{name:<8} {value:>12,.0f} {shown} {ratio}")
    return 0


def main(argv=None) -> int:
    from rooflinelib.cli.errors import ArgumentParser, UsageError
    # the roofline command's parser: a bad option is one line naming it, as a bad value is
    parser = ArgumentParser(prog="lab4_ncu.py", description="Lab 4: import Nsight "
                            "Compute counters into the hierarchical roofline.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("profile", help="run ncu on a program, store the CSV, show it")
    p.add_argument("--out", default=str(RESULTS / "lab4_ncu.csv"), help="CSV to write")
    p.add_argument("--analytic", help="the program's analytic counts (JSON), for the comparison")
    p.add_argument("--kernel-regex", default=DEFAULT_REGEX, help="profile only these kernels")
    p.add_argument("--no-peaks", action="store_true", help="do not collect ncu's peak metrics")
    p.add_argument("--ncu", help="path of the ncu executable")
    p.add_argument("--timeout", metavar="S", default=str(TIMEOUT_S),
                   help=f"seconds before giving up on ncu (default {TIMEOUT_S}, at most {MAX_TIMEOUT_S})")
    p.add_argument("--log", help="also store ncu's messages (stderr) here, also when ncu fails")
    p.add_argument("--ceilings", help="a Lab 1 ceilings file (default: the recorded H200 run)")
    p.add_argument("--workingset", help="a working-set sweep file (default: the recorded H200 sweep)")
    p.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS (default: lab4_target.py)")
    s = sub.add_parser("show", help="import an ncu CSV and place its kernels")
    s.add_argument("csv")
    s.add_argument("--analytic", help="analytic counts (JSON list, one record per launch)")
    s.add_argument("--ceilings", help="a Lab 1 ceilings file (default: the recorded H200 run)")
    s.add_argument("--workingset", help="a working-set sweep file (default: the recorded H200 sweep)")
    from rooflinelib.hierarchy.ncu import NcuError
    from rooflinelib.hierarchy.workingset_files import HierarchyError
    try:
        args = parser.parse_args(argv)
        return profile(args) if args.command == "profile" else show(args)
    except (NcuError, HierarchyError, UsageError) as exc:
        print(f"lab4: {' '.join(str(exc).split())[:400]}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file touched outside the one read and write path
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"lab4: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    from labs._lab_common import use_course_env
    use_course_env(__file__, sys.argv[1:], needs=("numpy", "jsonschema"))
    sys.exit(main())
