"""``roofline check FILE.py:FUNCTION --at-least F``: a regression gate from the command line.

FILE.py is read as ``roofline profile`` reads it (FUNCTION, ``setup()``, ``N_FLOPS``,
``N_BYTES``, each under ``--timeout``); the gate is :func:`rooflinelib.testing.gate`.  The exit
status is the verdict, for a CI step: 0 the kernel reaches ``--at-least`` of its roof, 1 it is
below, 3 noise could not decide (the interval holds the threshold after re-measuring), 2 bad
input (one line on stderr naming the option).
"""
from __future__ import annotations

import json

from rooflinelib.cli.errors import EXIT_OK, UsageError, number_option
from rooflinelib.cli.profile import add_target_options, read_target
from rooflinelib.profiling import ProfileError
from rooflinelib.testing import gate

EXIT_BELOW = 1
EXIT_AMBIGUOUS = 3


def add_check_command(subparsers):
    parser = subparsers.add_parser(
        "check", help="a regression gate: does FUNCTION reach a share of its roof?",
        description="Time FUNCTION of FILE.py as `roofline profile` does, place it on your Lab 1 ceilings "
                    "and check that it reaches at least the share --at-least of its roof. Exit status: 0 "
                    "pass, 1 below, 3 ambiguous (within noise of the threshold after re-measuring), 2 bad input.")
    add_target_options(parser)
    parser.add_argument("--at-least", metavar="F", required=True,
                        help="the share of the roof the kernel must reach, in (0, 1]: 0.7 means 70%%")
    parser.add_argument("--json", action="store_true", help="print the gate's outcome as JSON")
    parser.set_defaults(handler=run_check)
    return parser


def _at_least(text: str) -> float:
    # the command's one check for a numeric option; the share's own range, (0, 1], as the API's
    return number_option(text, "--at-least", maximum=1)


def run_check(args) -> int:
    at_least = _at_least(args.at_least)
    try:
        fn, call_args, n_flops, n_bytes, function, timeout_s = read_target(args)
        outcome = gate(fn, *call_args, n_flops=n_flops, n_bytes=n_bytes, at_least=at_least, name=function,
                       ceilings=args.ceilings or args.machine, precision=args.precision,
                       repeats=args.repeats, timeout=timeout_s, memory=args.memory)
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(outcome.to_dict(), indent=2, allow_nan=False))
    else:
        print(outcome.message)
    return {"pass": EXIT_OK, "below": EXIT_BELOW, "ambiguous": EXIT_AMBIGUOUS}[outcome.verdict]
