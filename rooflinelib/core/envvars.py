"""The environment variables that change how the course installs and measures, each with its
one check.

``course.py`` checks every one of them before it creates or installs anything (a bad value
there would otherwise surface later, in every kernel numpy or a measurement starts), and the
library reads them through the same functions.  A value that fails is one line naming the
variable and what it must be, as :class:`EnvError`.

Standard library only, and imports nothing from the package: ``course.py`` runs before the
package's dependencies exist and loads this file by its path.
"""
from __future__ import annotations

import os

#: The least time Lab 1 and Lab 3 on the CPU sample each rate over, in seconds, in place of
#: their own window (``rooflinelib.measure.cpu``).  A shorter window is quicker and more exposed
#: to a neighbour's burst; every result measured with it says so in its notes.
#: ``course.py test`` sets 0.1 s: the tests check that measurements run and verify, while
#: ``benchmarks/cpu_lane.py`` judges how good the rates are.
WINDOW_ENV = "ROOFLINE_CPU_WINDOW_S"
MAX_WINDOW_S = 600.0
#: The timed trials per rate for Lab 1 and Lab 3 on the CPU, in place of their default (the
#: window may still add more).  ``course.py test`` sets 3: a sweep point at K = 1024 on 64 MiB
#: takes 0.25 s a trial on a 2-core Xeon, so 10 of them are most of a notebook's run.
REPEATS_ENV = "ROOFLINE_CPU_REPEATS"
MAX_REPEATS = 1000
#: numpy's switch for transparent huge pages.  numpy reads it with int() when it is imported,
#: and any other text stops every import of numpy, so every kernel and lab.
HUGEPAGE_ENV = "NUMPY_MADVISE_HUGEPAGE"
#: Which tool installs the course into .venv (course.py).
INSTALLER_ENV = "ROOFLINE_INSTALLER"
INSTALLERS = ("uv", "pip")


class EnvError(ValueError):
    """An environment variable whose value cannot be used; one line naming it."""


def _given(name: str, environ) -> str:
    return (os.environ if environ is None else environ).get(name, "").strip()


def _shown(text: str) -> str:
    return repr(text[:40]) + ("..." if len(text) > 40 else "")


def number_from_env(name: str, unit: str, low: float, high: float, whole: bool = False,
                    environ=None):
    """The number ``$name`` holds (None when unset or blank), or :class:`EnvError` naming the
    variable and what it must be."""
    given = _given(name, environ)
    if not given:
        return None
    kind = f"a whole number of {unit}" if whole else f"a number of {unit}"
    try:
        value = int(given) if whole else float(given)
    except ValueError:
        raise EnvError(f"{name}: must be {kind}, got {_shown(given)}") from None
    if not low <= value <= high:  # also refuses nan and inf
        raise EnvError(f"{name}: must be from {low:g} to {high:g} {unit}, got {_shown(given)}")
    return value


def window_s(environ=None):
    """The seconds ``$ROOFLINE_CPU_WINDOW_S`` asks for (None when unset)."""
    return number_from_env(WINDOW_ENV, "seconds", 0, MAX_WINDOW_S, environ=environ)


def repeats(environ=None):
    """The trials ``$ROOFLINE_CPU_REPEATS`` asks for (None when unset)."""
    return number_from_env(REPEATS_ENV, "trials", 1, MAX_REPEATS, whole=True, environ=environ)


def hugepage(environ=None):
    """``$NUMPY_MADVISE_HUGEPAGE`` as numpy reads it (None when unset)."""
    given = _given(HUGEPAGE_ENV, environ)
    if not given:
        return None
    try:
        return int(given)
    except ValueError:
        raise EnvError(f"{HUGEPAGE_ENV}: must be an integer (0 or 1), got {_shown(given)}") from None


def installer(environ=None) -> str:
    """The installer ``$ROOFLINE_INSTALLER`` names: uv (the default) or pip."""
    given = _given(INSTALLER_ENV, environ).lower() or INSTALLERS[0]
    if given not in INSTALLERS:
        raise EnvError(f"{INSTALLER_ENV}: must be {' or '.join(INSTALLERS)}, got {_shown(given)}")
    return given


#: Every check above, in the order course.py runs them.
CHECKS = (installer, hugepage, window_s, repeats)


def check_all(environ=None) -> None:
    """Every variable above checked; the first bad one is :class:`EnvError`."""
    for check in CHECKS:
        check(environ)
