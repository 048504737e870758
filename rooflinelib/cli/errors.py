"""How the ``roofline`` command fails: its error type, its parser and its exit statuses.

A module of its own so that every command module can raise :class:`UsageError` without
importing the package that lists the commands (that import would be a cycle).
"""
from __future__ import annotations

import argparse

EXIT_OK = 0
EXIT_FAILED = 1  # the measurement ran and failed (verification, device)
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the user.  The message is one line and starts with the field's name."""


def option_error(option: str) -> type:
    """A :class:`UsageError` class whose messages start with ``option``: the error class to
    give :mod:`rooflinelib.fileio` for the file an option names (``--out: x.json: file: ...``)."""
    class OptionError(UsageError):
        def __init__(self, message):
            super().__init__(f"{option}: {message}")
    return OptionError


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error becomes :class:`UsageError` instead of usage text + exit."""

    def error(self, message):
        raise UsageError(message)
