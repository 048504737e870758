"""``roofline measure`` (Lab 1) and ``roofline sweep`` (Lab 2).

Both print progress on stderr and the seed's tables on stdout (or, with ``--json``, the
result itself), and with ``--out FILE`` store the result for the notebooks and for
``roofline plot --ceilings FILE``.  Registered in :mod:`rooflinelib.cli`.
"""
from __future__ import annotations

import json
import sys

from .backend import BACKEND_CHOICES

EXIT_FAILED = 1  # the measurement ran and failed (verification, device)


def _add_common(parser):
    parser.add_argument("--backend", choices=BACKEND_CHOICES, default="auto",
                        help="numba or cupy on a CUDA GPU, cpu for this machine's cores; auto "
                             "takes the first that works and says so (default auto)")
    parser.add_argument("--out", metavar="FILE",
                        help="store the result as JSON (load it with rooflinelib.results.load)")
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
    parser.set_defaults(handler=run_measure)
    return parser


def add_sweep_command(subparsers):
    parser = subparsers.add_parser(
        "sweep", help="walk one kernel across the roofline (Lab 2)",
        description="Lab 2: one kernel with K FMAs per float32 element, I = K/4 FLOP/byte, swept "
                    "from K=0 (a copy) to K=1024; the ridge is read off the sweep's own ends.")
    _add_common(parser)
    parser.add_argument("--ks", metavar="LIST",
                        help="comma-separated K values, starting at 0 (default: 0..1024, "
                             "densest around the expected knee)")
    parser.set_defaults(handler=run_sweep_command)
    return parser


# ---------------------------------------------------------------------------------------------
# option parsing (one-line errors that name the option)


def _usage(message):
    from ..cli import UsageError
    return UsageError(message)


def _positive_number(text, option, integer=False, maximum=None):
    if text is None:
        return None
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        raise _usage(f"{option}: must be a {'whole ' if integer else ''}number, got {text!r}") from None
    if not value > 0 or (maximum is not None and value > maximum):
        raise _usage(f"{option}: must be in (0, {maximum}], got {text!r}")
    return value


def parse_ks(text):
    if text is None:
        return None
    try:
        ks = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise _usage(f"--ks: must be whole numbers separated by commas, got {text!r}") from None
    if len(ks) < 2 or ks[0] != 0:
        raise _usage("--ks: needs at least two values, starting with 0 (the copy)")
    if any(b <= a for a, b in zip(ks, ks[1:])):
        raise _usage("--ks: values must increase")
    if ks[-1] > 4096:
        raise _usage(f"--ks: {ks[-1]} is above the largest supported K, 4096")
    return tuple(ks)


def _check_out(path):
    if path is None:
        return None
    from pathlib import Path
    p = Path(path)
    if not path.strip() or p.is_dir():
        raise _usage(f"--out: {path!r} is not a file name")
    if not p.resolve().parent.is_dir():
        raise _usage(f"--out: folder {str(p.parent)!r} does not exist")
    return p


def _progress(args):
    if args.quiet:
        return None
    return lambda line: print(line, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# tables


def _fmt(value):
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"


def ceilings_table(result) -> str:
    dev = result["device"]
    scope = "CPU roofline" if result["scope"] == "cpu" else "GPU roofline"
    lines = [f"Ceilings of {dev['name']}  [{scope}, {result['backend']} backend, {result['created']}]"]
    if result["scope"] == "gpu":
        before, after = dev.get("before", {}), dev.get("after", {})
        lines.append(f"  driver {dev.get('cuda_driver', before.get('driver', '?'))}, "
                     f"SM clock {before.get('sm_clock_mhz', '?')} -> {after.get('sm_clock_mhz', '?')} MHz, "
                     f"memory clock {after.get('mem_clock_mhz', '?')} MHz, "
                     f"{after.get('temperature_c', '?')} C, {after.get('power_w', '?')} W")
    lines.append("")
    lines.append(f"  {'ceiling':<13}{'kind':<9}{'value':>14}  {'unit':<8}{'spread':>8}  verified  first call")
    for c in result["ceilings"]:
        jit = result.get("jit_seconds", {}).get(c["name"])
        jit_text = f"{jit:8.2f} s" if isinstance(jit, (int, float)) else ""
        lines.append(f"  {c['name']:<13}{c['kind']:<9}{_fmt(c['value']):>14}  {c['unit']:<8}"
                     f"{100 * c['spread']:7.1f}%  {'yes' if c['verified'] else 'NO':<8}  {jit_text}")
    names = {c["name"]: c["value"] for c in result["ceilings"]}
    if "fp32" in names and "dram" in names:
        lines.append("")
        lines.append(f"  ridge point I = P / B = fp32 / dram = {names['fp32'] / names['dram']:.2f} FLOP/byte")
    for d in result.get("details", []):
        if "fraction_of_theoretical" in d:
            lines.append(f"  {d['name']}: {100 * d['fraction_of_theoretical']:.1f}% of the "
                         f"theoretical {_fmt(d['theoretical_gflops'] if 'theoretical_gflops' in d else d['theoretical_gbps'])} "
                         f"at the {d['sm_clock_mhz_during']:.0f} MHz read during the run")
    for note in result.get("notes", []):
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def sweep_tables(result, width: int = 40) -> str:
    dev = result["device"]
    scope = "CPU roofline" if result["scope"] == "cpu" else "GPU roofline"
    rows = result["rows"]
    lines = [f"Intensity sweep on {dev['name']}  [{scope}, {result['backend']} backend, {result['created']}]",
             "", f"  {'K':>5} {'I (FLOP/B)':>11} {'GB/s':>12} {'GFLOP/s':>13}  verified"]
    for r in rows:
        lines.append(f"  {r['k']:>5} {r['intensity']:>11.2f} {r['gbps']:>12,.0f} {r['gflops']:>13,.0f}"
                     f"  {'yes' if r['verified'] else 'NO'}")
    peak_gflops, peak_gbps, ridge = result["peak_gflops"], result["peak_gbps"], result["ridge"]
    lines += ["", f"  Against the sweep's own roofs: P = {_fmt(peak_gflops)} GFLOP/s, "
                  f"B = {_fmt(peak_gbps)} GB/s, ridge = P/B = {ridge:.2f} FLOP/byte", "",
              f"  {'K':>5} {'I':>8}  {'roof':>10}  {'of roof':>7}  {'side':<8} bar"]
    for r in rows:
        roof = min(peak_gflops, r["intensity"] * peak_gbps)
        if roof > 0:
            frac = r["gflops"] / roof
            side = "memory" if r["intensity"] < ridge else "compute"
        else:  # K = 0: no FLOPs, score the bandwidth instead
            frac = r["gbps"] / peak_gbps
            side = "copy"
        bar = "#" * max(0, min(width, round(frac * width)))
        lines.append(f"  {r['k']:>5} {r['intensity']:>8.2f}  {_fmt(roof):>10}  {100 * frac:6.1f}%  {side:<8} {bar}")
    k = result.get("knee")
    if k:
        lines.append("")
        lines.append(f"  knee (where the curve turns): I = {k['intensity']:.2f} FLOP/byte, "
                     f"nearest K = {k['k']}; the ridge P/B = {ridge:.2f}")
    for note in result.get("notes", []):
        lines.append(f"  note: {note}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# handlers


def _finish(result, args, table):
    from ..results import save
    out = _check_out(args.out)
    if out is not None:
        save(result, out)
        if not args.quiet:
            print(f"wrote {out}", file=sys.stderr)
    if args.json:
        print(json.dumps(result, indent=1, allow_nan=False))
    else:
        print(table(result))
    return 0


def _guarded(run):
    from ..results import ResultError
    from .errors import BackendUnavailable, VerificationError
    from .timing import TimingUnavailable
    try:
        return run()
    except (VerificationError, TimingUnavailable) as exc:
        print(f"roofline: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_FAILED
    except (BackendUnavailable, ResultError) as exc:
        raise _usage(" ".join(str(exc).split())) from None


def run_measure(args) -> int:
    from . import measure_ceilings
    size = _positive_number(args.size_mib, "--size-mib", maximum=65536)
    repeats = _positive_number(args.repeats, "--repeats", integer=True, maximum=1000)
    _check_out(args.out)
    return _guarded(lambda: _finish(
        measure_ceilings(args.backend, size_mib=size, repeats=repeats,
                         matrix=not args.no_matrix, progress=_progress(args)),
        args, ceilings_table))


def run_sweep_command(args) -> int:
    from . import run_sweep
    size = _positive_number(args.size_mib, "--size-mib", maximum=65536)
    repeats = _positive_number(args.repeats, "--repeats", integer=True, maximum=1000)
    ks = parse_ks(args.ks)
    _check_out(args.out)
    return _guarded(lambda: _finish(
        run_sweep(args.backend, ks=ks, size_mib=size, repeats=repeats, progress=_progress(args)),
        args, sweep_tables))


COMMANDS = (add_measure_command, add_sweep_command)
