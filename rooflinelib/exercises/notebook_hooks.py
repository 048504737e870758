"""What an exercise notebook does when a check cell runs before its answer cell.

The check cell names the answers (``check = ex.check_ridges(ridge_fp32, ridge_bf16)``), so run
before the answer cell above it, Python stops at the first name with a ``NameError`` traceback
before any check can speak.  :func:`install` (called when :mod:`rooflinelib.exercises` is
imported inside IPython) turns that traceback, in a cell that calls a check, into the same
line a ``NOT_ANSWERED`` stub gives: ``[NOT ANSWERED YET] ...``, naming the answer and what to
run.  A ``NameError`` anywhere else keeps its ordinary traceback.

Standard library only: IPython is found through the running shell, never imported here.
"""
from __future__ import annotations

import re

_NAME = re.compile(r"name '([^']+)' is not defined")


def not_answered_text(name: str) -> str:
    return (f"[NOT ANSWERED YET] {name}: it has no value yet. Run the answer cell above this "
            f"check first (the one that sets {name} = ...), then this one again.")


def _is_check_cell(source: str) -> bool:
    return "check" in source


def _handler(shell, etype, value, tb, tb_offset=None):
    history = shell.user_ns.get("_ih") or [""]
    source = history[-1] if history else ""
    match = _NAME.search(str(value))
    if match and _is_check_cell(source) and re.search(rf"\b{re.escape(match.group(1))}\b", source):
        print(not_answered_text(match.group(1)))
        return None
    return shell.showtraceback((etype, value, tb), tb_offset=tb_offset)


def install(shell=None) -> bool:
    """Install the handler in ``shell`` (default: the running IPython, if any); True if it did."""
    if shell is None:
        try:
            shell = get_ipython()  # noqa: F821 - a builtin inside IPython only
        except NameError:
            return False
    if shell is None or not hasattr(shell, "set_custom_exc"):
        return False
    shell.set_custom_exc((NameError,), _handler)
    return True
