"""``roofline profile FILE.py:FUNCTION``: place your own kernel on your own ceilings.

FILE.py defines FUNCTION, which does the work once.  It may also define ``setup()``, returning
the argument tuple, and ``N_FLOPS`` and ``N_BYTES`` (numbers or formula strings), which the
``--n-flops`` and ``--n-bytes`` options override.
"""
from __future__ import annotations

import json

from rooflinelib.profiling.function_timing import DEFAULT_TIMEOUT_S, TimingError, run_bounded
from rooflinelib.core.sanity import BANDS
from rooflinelib.cli.errors import EXIT_OK, UsageError, number_option, option_error
from rooflinelib.profiling import ProfileError
from rooflinelib.profiling.counters import load_function, setup_args
from rooflinelib.profiling.core import memory_roof
from rooflinelib.store.fileio import check_target


def add_profile_command(subparsers):
    parser = subparsers.add_parser(
        "profile", help="time your own kernel and place it on your ceilings",
        description="Time FUNCTION of FILE.py (device events on a GPU, after a warm-up; the median "
                    "of the repeats), place it on your Lab 1 ceilings (the stored result, or a "
                    "live Lab 1 if there is none) and print the verdict and the next step.")
    add_target_options(parser)
    parser.add_argument("--counters", action="store_true", help="also collect Nsight Compute counters (GPU, ncu)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--out", metavar="FILE", help="also save the result as JSON")
    parser.set_defaults(handler=run_profile)
    return parser


def add_target_options(parser) -> None:
    """FILE.py:FUNCTION and the options that say how to time and place it: ``roofline
    profile`` and ``roofline check`` read a file the same way."""
    parser.add_argument("target", metavar="FILE.py:FUNCTION", help="the file and the function in it")
    parser.add_argument("--n-flops", metavar="F", help="FLOPs of one call (a number or formula); default: the file's N_FLOPS")
    parser.add_argument("--n-bytes", metavar="B", help="bytes of one call (a number or formula); default: the file's N_BYTES")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--ceilings", metavar="FILE", help="a Lab 1 result file (default: your stored one)")
    source.add_argument("--machine", metavar="NAME", help="a datasheet machine instead of measured ceilings")
    parser.add_argument("--precision", metavar="P", help="the compute roof: fp32 (default), fp64, bf16, fp16, tf32, ...")
    parser.add_argument("--memory", metavar="M",
                        help="the memory roof: dram (default: the best of Lab 1's access mixes), or the "
                             "kernel's own mix: read, write, copy (dram-read, dram-write, dram-copy)")
    parser.add_argument("--repeats", metavar="N", type=int, help="timed calls (default: about 0.3 s of them)")
    parser.add_argument("--timeout", metavar="S", default=None,
                        help=f"seconds that importing FILE.py, setup() and the timing may each take "
                             f"(default {DEFAULT_TIMEOUT_S:g})")


def read_target(args):
    """``(fn, call_args, n_flops, n_bytes, function, timeout_s)`` from the options of
    :func:`add_target_options`: FILE.py imported and its ``setup()`` called, each under the
    time bound, ``N_FLOPS`` and ``N_BYTES`` read unless the options give them."""
    memory_option(args)
    timeout_s = number_option(args.timeout, "--timeout", maximum=int(BANDS["s"][1])) or DEFAULT_TIMEOUT_S
    path, function = _split(args.target)
    try:
        fn, module = run_bounded(lambda: load_function(path, function), timeout_s, f"importing {path}")
        call_args = run_bounded(lambda: setup_args(module, path), timeout_s, f"{path}: setup()")
    except TimingError as exc:
        raise UsageError(str(exc)) from None
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    n_flops = args.n_flops if args.n_flops is not None else getattr(module, "N_FLOPS", None)
    n_bytes = args.n_bytes if args.n_bytes is not None else getattr(module, "N_BYTES", None)
    if n_flops is None:
        raise UsageError(f"--n-flops: not given, and {path} defines no N_FLOPS")
    if n_bytes is None:
        raise UsageError(f"--n-bytes: not given, and {path} defines no N_BYTES")
    return fn, call_args, n_flops, n_bytes, function, timeout_s


def memory_option(args):
    """``--memory`` checked before anything is imported or timed: the ceiling it names."""
    try:
        return memory_roof(args.memory)
    except ProfileError as exc:
        raise UsageError(f"--{exc}") from None


def _split(target: str) -> tuple:
    path, sep, function = target.rpartition(":")
    if not sep or not path or not function:
        raise UsageError(f"FILE.py:FUNCTION: expected a file and a function, e.g. kernels.py:softmax, got {target[:80]!r}")
    return path, function


def run_profile(args) -> int:
    from rooflinelib.profiling import ProfileError, profile
    _split(args.target)
    if args.out:
        check_target(args.out, option_error("--out"))
    try:
        fn, call_args, n_flops, n_bytes, function, timeout_s = read_target(args)
        result = profile(fn, *call_args, n_flops=n_flops, n_bytes=n_bytes, name=function,
                         ceilings=args.ceilings or args.machine, precision=args.precision,
                         repeats=args.repeats, counters=args.counters, timeout=timeout_s, memory=args.memory)
        if args.out:
            try:
                result.save(args.out)
            except ProfileError as exc:  # a full disk, say: the old file is left as it was
                raise option_error("--out")(str(exc)) from None
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, allow_nan=False))
    else:
        print(result.text())
    return EXIT_OK
