"""The ``roofline`` command.

    roofline plot --peak-gflops 78500 --peak-gbps 4650 --demo-kernels
    roofline plot --peak-gflops 78500 --peak-gbps 4650 --kernel "my_softmax, 5*2**24, 8*2**24, 410"
    roofline plot --machine H200 --precision bf16-tensor --demo-kernels --html roofline.html
    roofline measure          (Lab 1)
    roofline sweep            (Lab 3)
    roofline profile kernels.py:softmax            (place your own kernel)
    roofline check kernels.py:softmax --at-least 0.7   (a regression gate: exit 0, 1 below, 3 ambiguous)

Each subcommand has an ``add_<name>_command(subparsers)`` that declares its options and sets
``handler``; :func:`build_parser` calls them in turn.  The modules: :mod:`.plot` (with
:mod:`.ceilings_file`, a stored result as the roofline), :mod:`.measure` (``measure`` and
``sweep``, with :mod:`.store`, where their results go), :mod:`.profile`, :mod:`.check`, and
:mod:`.errors` (the one-line usage errors).  Adding a subcommand means writing one such
function and its handler in a module of this package, and listing it in :data:`COMMANDS`.
Commands raise :class:`~rooflinelib.cli.errors.UsageError`, which lives in
:mod:`rooflinelib.cli.errors` so that no command module imports this one.

Bad input never produces a traceback: the user gets one line on stderr that names the field,
and exit status 2.
"""
from __future__ import annotations

import os
import sys

from rooflinelib.cli.check import add_check_command
from rooflinelib.cli.errors import EXIT_OK, EXIT_USAGE, ArgumentParser, UsageError
from rooflinelib.cli.measure import add_measure_command, add_sweep_command
from rooflinelib.cli.plot import add_plot_command
from rooflinelib.cli.profile import add_profile_command

__all__ = ["main", "build_parser", "COMMANDS", "MAX_ERROR_CHARS"]

#: One function per subcommand; each adds its parser and sets ``handler``.
COMMANDS = (add_plot_command, add_measure_command, add_sweep_command, add_profile_command, add_check_command)


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="roofline",
        description="The roofline model from the command line. Numeric fields accept formulas "
                    "(5*2**24, 1.2e9). Units: GFLOP/s, GB/s (decimal), FLOP/byte.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                       parser_class=ArgumentParser)
    for add_command in COMMANDS:
        add_command(subparsers)
    return parser


#: An error line is cut here: a value the user pasted (a 100 KB machine name) is not echoed whole.
MAX_ERROR_CHARS = 400


def _one_line(message: str) -> str:
    text = " ".join(str(message).split())
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS - 3] + "..."


def main(argv=None) -> int:
    """Run ``roofline``; return the exit status (0 ok, 1 a measurement failed or a gate is
    below, 2 bad input, 3 a gate is ambiguous)."""
    if hasattr(sys.stdout, "reconfigure"):
        # A kernel name in a script's locale must not crash the printing of the table.
        sys.stdout.reconfigure(errors="backslashreplace")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        status = args.handler(args)
        # Inside the try: a reader that left (`| head`) is seen here, not at interpreter exit.
        sys.stdout.flush()
        return status
    except UsageError as exc:
        print(f"roofline: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as exc:  # ExpressionError included: its message names the field
        print(f"roofline: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # `roofline plot ... | head`: the reader left; stop quietly, as other tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:  # a file the command touched outside the one read and write path
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"roofline: error: {_one_line(where + (exc.strerror or str(exc)))}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        print("roofline: interrupted", file=sys.stderr)
        return 130
