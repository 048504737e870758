"""``roofline plot`` (Lab 2): place kernels on a roofline, and the options that name one.

    roofline plot --peak-gflops 78500 --peak-gbps 4650 --demo-kernels
    roofline plot --machine H200 --precision bf16-tensor --demo-kernels --html roofline.html
    roofline plot --ceilings lab1.json --kernel "my_softmax, 5*2**24, 8*2**24, 410"
"""
from __future__ import annotations

import argparse
import json
import sys

from rooflinelib.core import sanity
from rooflinelib.views.ascii_plot import MAX_HEIGHT, MAX_WIDTH, MIN_HEIGHT, MIN_WIDTH, render
from rooflinelib.core.expr import parse_positive
from rooflinelib.store.fileio import check_target
from rooflinelib.core.machines import get_machine, machine_names
from rooflinelib.core.model import Machine, Roofline
from rooflinelib.core.operators import demo_kernels
from rooflinelib.core.placement import KernelPoint, parse_kernel_spec, place
from rooflinelib.views.plotting import (machine_from_peaks, roofline_figure, select_ceilings,
                                        write_html)
from rooflinelib.modes import mode_label, student_ceilings
from rooflinelib.cli.ceilings_file import machine_from_ceilings_file
from rooflinelib.cli.errors import EXIT_OK, UsageError, option_error


# --- options shared by commands that need a roofline -----------------------------------------

def add_machine_options(parser: argparse.ArgumentParser) -> None:
    """The ways to name a roofline: two peaks, or a datasheet machine and a precision."""
    group = parser.add_argument_group("roofline (both peaks, --machine or --ceilings; default: "
                                      "your stored Lab 1 result)")
    group.add_argument("--peak-gflops", metavar="P",
                       help="compute ceiling in GFLOP/s, e.g. the fp32 peak Lab 1 measured; "
                            "formulas such as 66.9e3 or 132*128*2*1.98 are accepted")
    group.add_argument("--peak-gbps", metavar="B",
                       help="memory ceiling in GB/s (decimal), e.g. Lab 1's copy bandwidth")
    group.add_argument("--machine", metavar="NAME",
                       help="use a datasheet machine instead of peaks: A100, H100, H200, MI300X")
    group.add_argument("--ceilings", metavar="FILE",
                       help="take the ceilings from a result file of roofline measure/sweep "
                            "(measured or recorded); --precision picks the compute one")
    group.add_argument("--precision", metavar="CEILING",
                       help="with --machine: the compute ceiling to place kernels against "
                            "(fp32, fp64, tf32-tensor, bf16-tensor, fp16-tensor, fp8-tensor, ...); "
                            "default fp32")


def _peak(text: str, field: str, unit: str) -> float:
    # The same band as every roof read from a file (rooflinelib.core.sanity.BANDS)
    return sanity.number(parse_positive(text, field), field, error=UsageError, positive=True,
                         unit=unit)


def resolve_machine(args) -> tuple:
    """``(machine, compute_name, memory_name)`` from the options of :func:`add_machine_options`;
    with none of them, the stored Lab 1 result (:func:`stored_machine`)."""
    peaks_given = args.peak_gflops is not None or args.peak_gbps is not None
    if getattr(args, "ceilings", None) is not None:
        if peaks_given or args.machine is not None:
            raise UsageError("--ceilings: give either --ceilings, --machine or the two peaks")
        return machine_from_ceilings_file(args.ceilings, args.precision)
    if args.machine is not None:
        if peaks_given:
            raise UsageError("--machine: give either --machine or --peak-gflops/--peak-gbps, not both")
        try:
            machine = get_machine(args.machine)
        except KeyError:
            shown = repr(args.machine) if len(args.machine) <= 40 else repr(args.machine[:37]) + "..."
            raise UsageError(f"--machine: unknown {shown}; known: "
                             f"{', '.join(machine_names())}") from None
        precision = args.precision or "fp32"
        if not machine.has(precision):
            names = ", ".join(c.name for c in machine.compute_ceilings)
            raise UsageError(f"--precision: {machine.name} has no ceiling {precision!r}; "
                             f"it has: {names}")
        if machine.ceiling(precision).kind != "compute":
            raise UsageError(f"--precision: {precision!r} is a memory ceiling; name a compute one")
        if not machine.has("dram") or machine.ceiling("dram").kind != "memory":
            raise UsageError(f"--machine: {machine.name} has no dram ceiling to place kernels against")
        return machine, precision, "dram"
    if not peaks_given:
        return stored_machine(args.precision)
    if args.precision is not None:
        raise UsageError("--precision: only meaningful with --machine; with peaks, "
                         "--peak-gflops is the ceiling")
    if args.peak_gflops is None:
        raise UsageError("--peak-gflops: missing; give --peak-gflops and --peak-gbps, "
                         "or --machine NAME")
    if args.peak_gbps is None:
        raise UsageError("--peak-gbps: missing; give --peak-gflops and --peak-gbps, "
                         "or --machine NAME")
    peak_gflops = _peak(args.peak_gflops, "--peak-gflops", "GFLOP/s")
    peak_gbps = _peak(args.peak_gbps, "--peak-gbps", "GB/s")
    machine = machine_from_peaks(peak_gflops, peak_gbps, name="given peaks",
                                 source="--peak-gflops and --peak-gbps")
    return machine, machine.compute_ceilings[0].name, machine.memory_ceilings[0].name


#: The stored Lab 1 results ``roofline plot`` looks for when no roofline is named, GPU first.
STORED_BACKENDS = ("numba", "cupy", "cpu")


def stored_machine(precision) -> tuple:
    """The student's stored Lab 1 result, through the one chain of ceilings
    (:func:`rooflinelib.modes.student_ceilings`): the ceilings ``roofline profile``, the
    notebooks and the exercises use, so that every tool shows the same ridge."""
    loaded = student_ceilings(None, backend=STORED_BACKENDS, measure="never", recorded=False)
    if loaded.origin != "file":
        raise UsageError("--ceilings: none given and no stored Lab 1 result; run `roofline measure` "
                         "(it stores one), or give --ceilings FILE, --machine NAME or --peak-gflops "
                         "and --peak-gbps")
    return machine_from_ceilings_file(loaded.path, precision)


# --- roofline plot ---------------------------------------------------------------------------

def add_plot_command(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "plot", help="place kernels on a roofline (Lab 2)",
        description="Draw a log-log roofline in the terminal and place kernels on it: their "
                    "intensity, their roof, the fraction of it they reach and the next step.")
    add_machine_options(parser)
    kernels = parser.add_argument_group("kernels")
    kernels.add_argument("--kernel", action="append", default=[], metavar="SPEC",
                         help='"name, flops, bytes[, achieved_gflops]"; numeric fields accept '
                              'formulas such as 5*2**24; repeat for more kernels')
    kernels.add_argument("--demo-kernels", action="store_true",
                         help="add the six operators of the course's intensity table")
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true",
                        help="print the placements as JSON instead of the chart and table")
    output.add_argument("--html", metavar="FILE",
                        help="also write an interactive chart that works offline (plotly.js inline)")
    output.add_argument("--width", type=int, default=64, help="chart columns (default 64)")
    output.add_argument("--height", type=int, default=18, help="chart rows (default 18)")
    parser.set_defaults(handler=run_plot)
    return parser


def collect_kernels(args) -> list:
    """The kernels named by ``--demo-kernels`` and ``--kernel``, in that order, as KernelPoints."""
    points = [KernelPoint.from_op(op) for op in demo_kernels()] if args.demo_kernels else []
    names = {p.name for p in points}
    for spec in args.kernel:
        try:
            point = parse_kernel_spec(spec, "--kernel")
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        # A chart's traces and a table's rows are told apart by name.
        if point.name in names:
            raise UsageError(f"--kernel: the name {point.name[:40]!r} is given twice; "
                             "give each kernel a name of its own")
        names.add(point.name)
        points.append(point)
    return points


def plot_record(roofline: Roofline, kernels) -> dict:
    """What ``roofline plot --json`` prints."""
    return {
        "machine": {"peak_gflops": roofline.peak_gflops, "peak_gbps": roofline.peak_gbps,
                    "ridge": roofline.ridge},
        "kernels": [place(k, roofline) for k in kernels],
    }


def _check_size(args) -> None:
    if not MIN_WIDTH <= args.width <= MAX_WIDTH:
        raise UsageError(f"--width: must be from {MIN_WIDTH} to {MAX_WIDTH}, got {args.width}")
    if not MIN_HEIGHT <= args.height <= MAX_HEIGHT:
        raise UsageError(f"--height: must be from {MIN_HEIGHT} to {MAX_HEIGHT}, got {args.height}")


_HtmlError = option_error("--html")


def _write_html(machine: Machine, compute: str, memory: str, kernels, path: str) -> None:
    if not path.strip():
        raise UsageError("--html: empty file name")
    # Refused before the chart is built: a device or a folder is never replaced.
    check_target(path, _HtmlError)
    # Every ceiling the machine has, with the one the verdicts use first.
    computes = [compute] + [c.name for c in select_ceilings(machine, "compute") if c.name != compute]
    memories = [memory] + [m.name for m in select_ceilings(machine, "memory") if m.name != memory]
    figure = roofline_figure(machine, kernels, compute=computes, memory=memories)
    write_html(figure, path, _HtmlError)


def run_plot(args) -> int:
    _check_size(args)
    machine, compute, memory = resolve_machine(args)
    roofline = machine.roofline(compute, memory)
    kernels = collect_kernels(args)
    if args.html is not None:
        _write_html(machine, compute, memory, kernels, args.html)
    if args.json:
        print(json.dumps(plot_record(roofline, kernels), indent=2, allow_nan=False))
    else:
        source = f"{machine.name} [{mode_label(machine, getattr(args, 'ceilings', None))}]"
        print(render(roofline, kernels, width=args.width, height=args.height, source=source))
    if args.html is not None:
        # stderr, so that --json output on stdout stays parseable.
        print(f"wrote {args.html}", file=sys.stderr)
    return EXIT_OK
