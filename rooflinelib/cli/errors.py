"""How the ``roofline`` command fails: its error type, its parser and its exit statuses.

A module of its own so that every command module can raise :class:`UsageError` without
importing the package that lists the commands (that import would be a cycle).
"""
from __future__ import annotations

import argparse
import math

EXIT_OK = 0
EXIT_FAILED = 1  # the measurement ran and failed (verification, device)
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the user.  The message is one line and starts with the field's name."""


def option_error(option: str) -> type:
    """A :class:`UsageError` class whose messages start with ``option``: the error class to
    give :mod:`rooflinelib.store.fileio` for the file an option names (``--out: x.json: file: ...``)."""
    class OptionError(UsageError):
        def __init__(self, message):
            super().__init__(f"{option}: {message}")
    return OptionError


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error becomes :class:`UsageError` instead of usage text + exit."""

    def error(self, message):
        raise UsageError(message)


def _shown(text) -> str:
    text = str(text)
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


def number_option(text, option: str, *, integer: bool = False, minimum=None, maximum=None):
    """The value of the numeric command-line option ``option`` (None when it was not given),
    or one :class:`UsageError` naming it: a number (a whole one with ``integer``), finite,
    from ``minimum`` to ``maximum`` when ``minimum`` is given, else above 0 and at most
    ``maximum``.  Every numeric option of ``roofline`` and of the lab scripts goes through it."""
    if text is None:
        return None
    try:
        value = int(text) if integer else float(text)
    except (ValueError, TypeError):
        raise UsageError(f"{option}: must be a {'whole ' if integer else ''}number, got {_shown(text)}") from None
    if minimum is not None:
        if minimum <= value <= maximum:  # also refuses nan
            return value
        raise UsageError(f"{option}: must be from {minimum} to {maximum}, got {_shown(text)}")
    if value > 0 and math.isfinite(value) and (maximum is None or value <= maximum):
        return value
    if maximum is None:
        raise UsageError(f"{option}: must be a positive finite number, got {_shown(text)}")
    raise UsageError(f"{option}: must be in (0, {maximum}], got {_shown(text)}")
