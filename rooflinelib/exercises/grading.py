"""Self-grading for the exercises: read an answer, compare it with a key, explain what is off.

Every check returns a :class:`Check` with one of four statuses:

- ``"pass"``: the answer matches the key (numbers within a stated tolerance, choices by meaning);
- ``"fail"``: a readable answer that is wrong, with a hint that teaches without giving the key;
- ``"unanswered"``: the answer is still :data:`NOT_ANSWERED` (the exercise stub) or ``...``;
- ``"invalid"``: the input cannot be read (None, NaN, a list, an unknown word); the message says
  what is wrong with the input.

Checks never raise on a student's input and never print the expected value.  Answer keys are
computed by the exercise modules (:mod:`rooflinelib.exercises`) from the rest of the library.

Numeric answers may be numbers or short formulas (``"120/3"``, ``"4.0e11 / 2.0e10"``), read by
:func:`rooflinelib.core.expr.evaluate` and never run as code, optionally followed by a unit
(``"120 TFLOP/s"``, ``"49152 B"``, ``"13%"``) that is converted to the unit the question asks for.
"""
from __future__ import annotations

import decimal
import difflib
import html
import math
import numbers
import re
import sys
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Optional, Sequence

from rooflinelib.core import sanity
from rooflinelib.core.expr import ExpressionError, evaluate, incomplete_number
from rooflinelib.core.model import RIDGE_TOLERANCE, side_of_ridge

#: Default relative tolerance for numeric answers: wide enough for rounding to three
#: significant figures (0.0833 for 1/12), narrow enough to catch a wrong count.
DEFAULT_RTOL = 0.02

#: Fractions are usually given as whole percentages ("13%" for 0.133), so they also pass within
#: half a percentage point.
FRACTION_ATOL = 0.005

#: A miss within 5% may be a rounding (12 for 12.288): its hint says so when a rounding can
#: explain it (see _rounding_explains).
NEAR_MISS_RTOL = 0.05

#: Prose attempts shorter than this are not an attempt yet.
MIN_ATTEMPT_WORDS = 8

# --- the unanswered sentinel -----------------------------------------------------------------


class NotAnsweredError(NotImplementedError):
    """Raised when an unanswered stub is used in arithmetic, a comparison or a conversion."""

    def __init__(self, message: str = ""):
        super().__init__(message or "not answered yet: replace NOT_ANSWERED with your answer "
                                    "before using it")


class _NotAnswered:
    """The value of every exercise stub.  Checks report it as "not answered yet".

    Any other use (arithmetic, comparison, ``float()``, ``if``) raises :class:`NotAnsweredError`,
    so a cell that builds on an unanswered value stops at once with a clear message instead of
    producing a confusing ``TypeError`` further down.
    """

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "NOT_ANSWERED"

    def __reduce__(self):
        return "NOT_ANSWERED"

    def __eq__(self, other):
        return other is self

    def __ne__(self, other):
        return other is not self

    def __hash__(self):
        return id(self)

    def __format__(self, spec):
        if spec:
            raise NotAnsweredError()
        return repr(self)

    def _refuse(self, *args, **kwargs):
        raise NotAnsweredError()

    __bool__ = __float__ = __int__ = __index__ = __complex__ = _refuse
    __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _refuse
    __mod__ = __rmod__ = __pow__ = __rpow__ = __neg__ = __pos__ = __abs__ = __round__ = _refuse
    __len__ = __iter__ = __getitem__ = __contains__ = __call__ = _refuse


NOT_ANSWERED = _NotAnswered()


def is_unanswered(value) -> bool:
    """True for the exercise stub's value (and for ``...``, which some students type)."""
    return value is NOT_ANSWERED or value is Ellipsis


class AnswerError(ValueError):
    """An answer that cannot be read.  The message is one line and says what is wrong."""


# --- running the student's code --------------------------------------------------------------

#: Seconds that reading one answer may take: a student object's ``__float__``, ``__repr__`` or
#: ``__getattr__``, or one call of a student's function.  Far above any honest answer's
#: microseconds; a slow or endless one is reported instead of waited for.
STUDENT_TIME_LIMIT_S = 2.0


class _TimeUp(BaseException):
    """Raised into student code that runs past the limit.  A BaseException, so that the
    student's own ``except Exception`` does not swallow it."""


_guard = threading.local()


def _raise_in(thread: threading.Thread, exc_type: type) -> None:
    """Ask ``thread`` to raise ``exc_type`` at its next bytecode (CPython only)."""
    try:
        import ctypes
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(exc_type))
    except (AttributeError, ImportError, OSError):  # not CPython: the thread is left to end itself
        pass


def _exception_text(exc: BaseException) -> str:
    try:
        detail = " ".join(str(exc).split())
    except BaseException:  # the student's exception class may be as broken as the rest
        detail = ""
    name = type(exc).__name__
    return f"{name}: {detail[:80]}" if detail else name


#: What each thread running student code is doing now (thread id -> the innermost ``what``),
#: so that a time-out names the call that was running, not only the check around it.
_RUNNING = {}


def _caught(call: Callable, what: str):
    ident = threading.get_ident()
    outer = _RUNNING.get(ident)
    _RUNNING[ident] = what
    try:
        return call()
    except (NotAnsweredError, AnswerError):
        raise
    except _TimeUp:
        raise AnswerError(f"{what} took longer than {STUDENT_TIME_LIMIT_S:g} s; is there an "
                          "endless loop in it?") from None
    except RecursionError:
        raise AnswerError(f"{what} recursed without end") from None
    except BaseException as exc:  # the student's code: report it, never crash the check
        raise AnswerError(f"{what} raised {_exception_text(exc)}") from None
    finally:
        if outer is None:
            _RUNNING.pop(ident, None)
        else:
            _RUNNING[ident] = outer


def run_student(call: Callable, what: str = "reading your answer"):
    """``call()``, which runs student code: its value, or :class:`AnswerError` (one line)
    for anything that code raises, SystemExit and KeyboardInterrupt included, and for a run
    over :data:`STUDENT_TIME_LIMIT_S`.  :class:`NotAnsweredError` passes through.

    The call runs in a thread of its own, so that the checker returns when the time is up
    whatever the student's code does: it is first asked to stop (an exception raised into it),
    and code that catches even that is left running in the background and reported so.
    Nested calls run in the caller's thread and word their own errors."""
    if getattr(_guard, "active", False):
        return _caught(call, what)
    box = {}

    def target():
        _guard.active = True
        try:
            box["value"] = _caught(call, what)
        except BaseException as exc:  # AnswerError, NotAnsweredError or a late _TimeUp
            box["error"] = exc

    worker = threading.Thread(target=target, name="rooflinelib: a student's answer", daemon=True)
    worker.start()
    try:
        worker.join(STUDENT_TIME_LIMIT_S)
    except KeyboardInterrupt:  # the student interrupted the check cell
        _raise_in(worker, _TimeUp)
        raise AnswerError(f"{what} was interrupted") from None
    if worker.is_alive():
        what = _RUNNING.get(worker.ident, what)
        deadline = time.monotonic() + 0.5
        while worker.is_alive() and time.monotonic() < deadline:
            _raise_in(worker, _TimeUp)
            worker.join(0.02)
        still = " and is still running in the background (restart the kernel to stop it)" \
            if worker.is_alive() else "; is there an endless loop in it?"
        raise AnswerError(f"{what} took longer than {STUDENT_TIME_LIMIT_S:g} s{still}")
    error = box.get("error")
    if isinstance(error, (AnswerError, NotAnsweredError)):
        raise error
    if error is not None:  # a stop request that arrived as the call ended
        raise AnswerError(f"{what} took longer than {STUDENT_TIME_LIMIT_S:g} s")
    return box["value"]


# --- results ---------------------------------------------------------------------------------

STATUSES = ("pass", "fail", "unanswered", "invalid")
_MARK = {"pass": "PASS", "fail": "TRY AGAIN", "unanswered": "NOT ANSWERED YET",
         "invalid": "CHECK YOUR INPUT"}
_COLOUR = {"pass": "#15803d", "fail": "#b91c1c", "unanswered": "#6b7280", "invalid": "#b45309"}


@dataclass(frozen=True)
class Check:
    """The result of checking one answer.  It never holds the expected value."""

    question: str
    status: str
    message: str

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status: must be one of {', '.join(STATUSES)}, got {self.status!r}")

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    @property
    def answered(self) -> bool:
        return self.status != "unanswered"

    def __bool__(self) -> bool:  # so that ``assert check`` means "assert it passed"
        return self.passed

    def __str__(self) -> str:
        return f"[{_MARK[self.status]}] {self.question}: {self.message}"

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return (f'<div style="font-family:monospace"><b style="color:{_COLOUR[self.status]}">'
                f'{_MARK[self.status]}</b> {html.escape(self.question)}: '
                f'{html.escape(self.message)}</div>')


@dataclass(frozen=True)
class Report:
    """Several checks shown together, e.g. the five answers of one table row."""

    title: str
    checks: tuple = ()

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def status(self) -> str:
        statuses = {c.status for c in self.checks}
        if statuses == {"pass"}:
            return "pass"
        if statuses == {"unanswered"} or not statuses:
            return "unanswered"
        if "invalid" in statuses:
            return "invalid"
        if "fail" in statuses:
            return "fail"
        return "unanswered"  # some passed, the rest not answered yet

    def __bool__(self) -> bool:
        return self.passed

    def summary(self) -> str:
        counts = [(s, sum(c.status == s for c in self.checks)) for s in STATUSES]
        words = {"pass": "correct", "fail": "to try again", "unanswered": "not answered yet",
                 "invalid": "unreadable"}
        parts = [f"{n} {words[s]}" for s, n in counts if n]
        return f"{self.title}: " + ", ".join(parts) if parts else f"{self.title}: nothing to check"

    def __str__(self) -> str:
        return "\n".join([self.summary()] + ["  " + str(c) for c in self.checks])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        rows = "".join(f"<li>{c._repr_html_()}</li>" for c in self.checks)
        return (f'<div><b style="color:{_COLOUR[self.status]}">{html.escape(self.summary())}</b>'
                f'<ul style="margin:0">{rows}</ul></div>')


def report(title: str, *checks) -> Report:
    """Bundle checks (or other reports, flattened) under one title."""
    flat = []
    for c in checks:
        flat.extend(c.checks if isinstance(c, Report) else [c])
    return Report(title, tuple(flat))


UNANSWERED_MESSAGE = "replace NOT_ANSWERED with your answer, run that cell, then run this check again"


def previous_cell_error() -> str:
    """The error the notebook cell run just before this one stopped with, in one line, or ``""``
    (it ran through, or this is not IPython).  An answer cell that stops at an error never runs
    its later lines, so the answers they set still hold the stub: the check says what stopped
    them instead of "not answered yet".  IPython is found through the running shell, never
    imported."""
    ipython = sys.modules.get("IPython")
    try:
        shell = ipython.get_ipython() if ipython is not None else None
        result = getattr(shell, "last_execution_result", None)
        error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
    except Exception:  # a shell without these attributes: nothing to say
        return ""
    if error is None:
        return ""
    return f"{type(error).__name__}: {' '.join(str(error).split())[:160]}"


def unanswered_check(question: str) -> Check:
    """NOT ANSWERED YET, or, when the cell run before the check stopped at an error, CHECK YOUR
    INPUT naming that error (the answer was typed, but the line setting it never ran)."""
    error = previous_cell_error()
    if error:
        return Check(question, "invalid", f"still NOT_ANSWERED because the cell run before this check stopped "
                                          f"with {error}; the lines after the error never ran: fix that "
                                          f"cell, run it, then this check again")
    return Check(question, "unanswered", UNANSWERED_MESSAGE)


def guarded(question: str, grade: Callable[[], Check]) -> Check:
    """Run a grading function; turn unreadable input into "invalid", the stub into "unanswered".

    ``grade`` runs inside :func:`run_student`, since it touches the student's objects: whatever
    they raise (SystemExit included) or however long they take, the student sees CHECK YOUR
    INPUT, never a traceback.  A fault in a key would show the same way; the hidden tests, in
    which every solution must pass, are what catch those.
    """
    try:
        return run_student(grade, "checking your answer")
    except NotAnsweredError:
        return unanswered_check(question)
    except AnswerError as exc:
        return Check(question, "invalid", str(exc))


def unanswered(question: str) -> Check:
    return unanswered_check(question)


# --- reading numbers -------------------------------------------------------------------------

# Unit families: each spelling maps to (family, factor to the family's base unit).
_FAMILIES = {
    # "FLOPS", "TFLOPS", "flops" and the like: _flop_readings reads them, case and all
    "rate": ("FLOP/s", {"flop/s": 1, "kflop/s": 1e3, "mflop/s": 1e6, "gflop/s": 1e9,
                        "tflop/s": 1e12, "pflop/s": 1e15}),
    "bandwidth": ("B/s", {"b/s": 1, "kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9, "tb/s": 1e12,
                          "kib/s": 2 ** 10, "mib/s": 2 ** 20, "gib/s": 2 ** 30, "tib/s": 2 ** 40}),
    "bytes": ("B", {"b": 1, "byte": 1, "bytes": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
                    "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40}),
    "work": ("FLOP", {"flop": 1, "kflop": 1e3, "mflop": 1e6, "gflop": 1e9, "tflop": 1e12,
                      "pflop": 1e15}),
    "time": ("s", {"s": 1, "sec": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9}),
    "intensity": ("FLOP/byte", {"flop/byte": 1, "flop/b": 1, "flops/byte": 1, "flops/b": 1,
                                "flop per byte": 1}),
    "fraction": ("fraction", {"fraction": 1, "%": 0.01, "percent": 0.01}),
    "ratio": ("x", {"x": 1, "×": 1, "times": 1}),
}
#: Count units: things counted one by one.  Each noun is a family of its own (213,333 elements
#: are not 213,333 tokens), with no prefixes, so no byte-prefix hint (KiB vs KB) is ever given
#: for one: a count 2.4% off is a wrong count, not a binary prefix.
COUNT_NOUNS = ("element", "thread", "block", "warp", "token", "row")
for _noun in COUNT_NOUNS:
    _FAMILIES[f"{_noun}s"] = (f"{_noun}s", {_noun: 1, f"{_noun}s": 1})
_UNIT_INDEX = {spelling: (family, factor)
               for family, (_, spellings) in _FAMILIES.items()
               for spelling, factor in spellings.items()}
_FAMILY_WORDS = {"rate": "a compute rate", "bandwidth": "a bandwidth", "bytes": "a byte count",
                 "work": "a FLOP count", "time": "a time", "intensity": "an intensity",
                 "fraction": "a fraction", "ratio": "a ratio",
                 **{f"{noun}s": f"a count of {noun}s" for noun in COUNT_NOUNS}}
#: The families whose numbers are counts of things (see COUNT_NOUNS).
_COUNT_FAMILIES = tuple(f"{noun}s" for noun in COUNT_NOUNS)
_FLOP_WORD = re.compile(r"^(?P<prefix>[kmgtp]?)(?P<flop>flop)(?P<s>s?)$", re.IGNORECASE)
_FLOP_PREFIXES = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15}
_TRAILING_UNIT = re.compile(r"^(?P<number>.*?[0-9.)])\s*(?P<unit>[A-Za-zµμ%×][A-Za-zµμ%/ ]*)$")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")


def _comma_in_formula(text: str) -> bool:
    """True when a comma in ``text`` sits inside parentheses, or the text names something (a call
    such as ``min(...)``): a formula the string reader cannot take, not a thousands separator."""
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif char == "," and depth:
            return True
    return bool(re.search(r"[A-Za-z_]", re.sub(r"\d[eE][+-]?\d", "", text)))


def _flop_readings(word: str) -> list:
    """The readings of a FLOP word without a slash (``"FLOPs"``, ``"TFLOPS"``, ``"flops"``), by its
    case: the one place where a unit's case matters.

    - no final s (``FLOP``, ``GFLOP``): a FLOP count;
    - a capital final S (``FLOPS``, ``GFLOPS``, ``TFLOPS``): a rate, FLOP per second;
    - ``FLOPs``, capitals and a small s: the plural of FLOP, a count;
    - any other spelling with a small s (``flops``, ``Flops``, ``GFLOPs``, ``TFLOPs``): either,
      and the question decides (a rate where a rate is asked, a count where a count is).

    The last rule, because datasheets write "989 TFLOPs" for a rate and papers "6 GFLOPs per
    token" for a count: refusing either reading would refuse a common, correct answer, and the
    number itself shows which was meant (a rate and a count of one kernel differ by its time).
    A bare "FLOPs" has no such rate use worth the confusion, so it is a count only.
    """
    match = _FLOP_WORD.match(word)
    if match is None:
        return []
    factor = _FLOP_PREFIXES[match.group("prefix").lower()]
    if not match.group("s"):
        return [("work", factor)]
    if match.group("s") == "S":
        return [("rate", factor)]
    if match.group("flop") == "FLOP" and not match.group("prefix"):
        return [("work", factor)]
    return [("rate", factor), ("work", factor)]


def _unit_readings(unit: str) -> list:
    """Every (family, factor to base) a unit spelling may mean, most usual first; [] if unknown.
    Case does not matter, except in a FLOP word (see :func:`_flop_readings`)."""
    key = " ".join(unit.split())
    readings = _flop_readings(key)
    if readings:
        return readings
    found = _UNIT_INDEX.get(key.lower())
    return [found] if found else []


def _unit_of(unit: str):
    """(family, factor to base) for a unit spelling such as ``"TFLOP/s"``; None if unknown."""
    readings = _unit_readings(unit)
    return readings[0] if readings else None


#: Words that may be units inside a formula ("120 TFLOP/s / 3 TB/s").
_UNIT_WORD = re.compile(r"[A-Za-zµμ%×][A-Za-zµμ%/]*")


def _formula_with_units(text: str) -> bool:
    """True when ``text`` reads as a formula once the units written inside it are dropped: units
    in arithmetic, which the reader does not convert (it does no dimensional arithmetic)."""
    units = [w for w in _UNIT_WORD.findall(text) if _unit_readings(w.rstrip("/"))]
    if not units:
        return False

    def drop(match):
        word = match.group()
        unit = word.rstrip("/")
        return " " + word[len(unit):] if _unit_readings(unit) else word

    bare = _UNIT_WORD.sub(drop, text)
    try:
        evaluate(bare, "answer")
    except ExpressionError:
        return False
    return True


#: One quantity: a plain number and its unit ("45 TFLOP/s"), read with no arithmetic.
_QUANTITY = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)(?:e([+-]?\d+))?\s*([A-Za-z][A-Za-z/ ]*?)\s*$",
                       re.IGNORECASE)
#: The quotients of two unit families that give an intensity (a ridge P / B, or FLOPs / bytes).
_INTENSITY_QUOTIENTS = {("rate", "bandwidth"), ("work", "bytes")}


def _quotient_of_quantities(text: str, unit: str):
    """An intensity written as one quantity over another, "45 TFLOP/s / 3 TB/s", in ``unit``;
    None when ``text`` is not that or ``unit`` is not an intensity (review 46k1, key 2: a ridge
    written so was refused as "units inside a formula").  Each side is one number with its unit,
    read by regular expressions and the unit table only: no arithmetic is evaluated.  The split
    is at a slash followed by a digit, as a unit's own slash ("TFLOP/s") never is."""
    target = _unit_of(unit) if unit else None
    if target is None or target[0] != "intensity":
        return None
    parts = re.split(r"\s*/\s*(?=\.?\d)", text.strip())
    if len(parts) != 2:
        return None
    quantities = [_QUANTITY.match(part) for part in parts]
    if not all(quantities):
        return None
    values = [float(q.group(1)) * 10 ** int(q.group(2) or 0) for q in quantities]
    for top_family, top_factor in _unit_readings(quantities[0].group(3)):
        for bottom_family, bottom_factor in _unit_readings(quantities[1].group(3)):
            if (top_family, bottom_family) in _INTENSITY_QUOTIENTS and values[1] != 0:
                return values[0] * top_factor / (values[1] * bottom_factor) / target[1]
    return None


def _describe(value) -> str:
    return sanity.show(value)


def read_number(answer, question: str = "answer", unit: str = "") -> float:
    """The answer as a float in ``unit``, or :class:`AnswerError` / :class:`NotAnsweredError`.

    Accepts ints, floats, numpy scalars, fractions and decimals, and strings holding a number or
    a formula with an optional unit.  ``unit`` names the unit the question asks for (``"TFLOP/s"``,
    ``"fraction"``, ``""`` for a plain number); a string answer written in another unit of the
    same family is converted, one of another family is refused (``"FLOPs"`` is a count and
    ``"FLOPS"`` a rate: see :func:`_flop_readings`; a count unit such as ``"elements"`` or
    ``"tokens"``, :data:`COUNT_NOUNS`, takes its own noun only).  The answer is read inside
    :func:`run_student`: whatever its methods raise, and however long they take, the result is
    an AnswerError.
    """
    return run_student(lambda: _read_number(answer, question, unit))


def _read_number(answer, question: str, unit: str) -> float:
    if is_unanswered(answer):
        raise NotAnsweredError()
    if answer is None:
        raise AnswerError("the answer is None: did you forget to assign it, or does a function "
                          "you called have no return?")
    if isinstance(answer, bool):
        raise AnswerError(f"expected a number, got {answer} (a yes/no value)")
    if isinstance(answer, str):
        return _read_text(answer, unit)
    if isinstance(answer, (numbers.Real, decimal.Decimal)):
        if isinstance(answer, numbers.Integral):  # before float(): 10**5000 has no float
            sanity.number(answer, "the answer", error=AnswerError)
        try:
            value = float(answer)
        except (TypeError, ValueError, OverflowError, ArithmeticError):
            raise AnswerError(f"could not read {_describe(answer)} as a number") from None
        return _finite(value)
    if isinstance(answer, numbers.Complex):
        raise AnswerError(f"expected a real number, got the complex number {_describe(answer)}")
    if hasattr(answer, "shape") and getattr(answer, "shape", None) == ():
        try:  # a 0-d numpy array holds one number
            return read_number(answer.item(), question, unit)
        except AttributeError:
            pass
    kind = type(answer).__name__
    if isinstance(answer, (list, tuple, set, dict)) or hasattr(answer, "__len__"):
        raise AnswerError(f"expected one number, got a collection (type {kind})")
    raise AnswerError(f"expected a number, got {_describe(answer)} (type {kind})")


def _finite(value: float) -> float:
    if math.isnan(value):
        raise AnswerError("the answer is NaN (not a number): a 0/0 or a failed conversion "
                          "somewhere upstream")
    if math.isinf(value):
        raise AnswerError("the answer is infinite: a division by zero somewhere upstream?")
    return value


def _read_text(text: str, unit: str) -> float:
    stripped = text.strip()
    if not stripped:
        raise AnswerError("the answer is an empty string")
    if stripped.lower() in ("todo", "tbd", "?", "...", "not answered", "not_answered"):
        raise NotAnsweredError()
    if incomplete_number(stripped):  # "1e": a number cut short, not the unit "e"
        raise AnswerError(f"{incomplete_number(stripped)!r} is an incomplete number: write the exponent's "
                          "digits after the e, as in 1e9 or 2.5e-3")
    number_part, unit_part = stripped, ""
    match = _TRAILING_UNIT.match(stripped)
    if match:
        number_part, unit_part = match.group("number"), match.group("unit").strip()
    if _THOUSANDS.match(number_part.strip()):
        number_part = number_part.replace(",", "")
    elif "," in number_part:
        if _comma_in_formula(number_part):  # review 31k1: "min(120, 20*3)" is no thousands slip
            raise AnswerError(f"{stripped[:40]!r} is a formula with a call or a comma inside "
                              "parentheses: the string reader takes plain arithmetic only (numbers, "
                              "+ - * / ** and parentheses). Type the expression without quotes, or "
                              "write one number")
        raise AnswerError(f"{stripped[:40]!r} has a comma: write one number (for thousands use "
                          "120000 or 120_000)")
    try:
        value = evaluate(number_part, "answer")
    except ExpressionError as exc:
        quotient = _quotient_of_quantities(stripped, unit)
        if quotient is not None:
            return _finite(quotient)
        if _formula_with_units(stripped):
            raise AnswerError(f"{stripped[:40]!r} has units inside a formula: write the formula "
                              "without units (120/3), or one number with its unit") from None
        raise AnswerError(f"could not read {stripped[:40]!r} as a number or formula "
                          f"({str(exc).split(': ', 1)[-1]})") from None
    value = _finite(value)
    if unit_part:
        value = _convert(value, unit_part, unit)
    return value


def _convert(value: float, written: str, wanted: str) -> float:
    readings = _unit_readings(written)
    if not readings:
        raise AnswerError(f"unknown unit {written!r}; write the number alone, or use units like "
                          "TFLOP/s, GB/s, FLOP/byte, B, ms, %")
    family, factor = readings[0]
    if not wanted:
        if family in ("fraction",):
            return value * factor
        raise AnswerError(f"this answer is a plain number; drop the unit {written!r}")
    target = _unit_of(wanted)
    if target is None:  # the question's own unit is free text: accept the number as written
        return value
    wanted_family, wanted_factor = target
    for family, factor in readings:
        if family == wanted_family:
            return value * factor / wanted_factor
    families = [f for f, _ in readings]
    words = " or ".join(_FAMILY_WORDS[f] for f in families)
    advice = ""
    # FLOPs and FLOPS differ by the case of one letter: say which one is which
    if wanted_family == "work" and families == ["rate"]:
        advice = "; for a count write FLOP or FLOPs"
    elif wanted_family == "rate" and families == ["work"]:
        advice = "; for a rate write FLOP/s or FLOPS"
    # review 51k2 (key 5, item 4): no "in fraction" after "a fraction": the unit's name is the family's
    where = "" if wanted_family in _COUNT_FAMILIES or wanted.strip().lower() == wanted_family else f" in {wanted}"
    raise AnswerError(f"{written!r} is {words}, but this asks for "
                      f"{_FAMILY_WORDS[wanted_family]}{where}{advice}")


# --- numeric checks --------------------------------------------------------------------------

def _article(noun: str) -> str:
    """'an int', 'a float': the article for a type's name in a message."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _close(value: float, target: float, rtol: float, atol: float) -> bool:
    # Review 19k2 (K5-7): an answer exactly at the stated edge (2.04 for 2 at ±2%) passes; the
    # 1e-9 relative slack only absorbs float rounding (2.04 - 2 is 0.04000000000000002)
    return abs(value - target) <= max(atol, rtol * abs(target)) * (1 + 1e-9)


def _tolerance_text(rtol: float, atol: float, unit: str) -> str:
    if unit == "fraction" and atol:
        absolute = f"±{atol * 100:g} percentage points"
    else:
        absolute = f"±{atol:g}{' ' + unit if unit else ''}"
    if atol and not rtol:
        return f"within {absolute}"
    if atol:
        return f"within ±{rtol * 100:g}% or {absolute}"
    return f"within ±{rtol * 100:g}%"


# Factors a wrong answer is often off by, and what each usually means.
_BYTE_FAMILIES = ("bytes", "bandwidth", "")  # "": a plain number, often a byte count

# Each entry: (factor, unit families it applies to (None: any), hint).
_FACTOR_HINTS = (
    (1e3, None, "off by a factor of 1,000: check the unit prefixes (G vs T, ms vs µs, KB vs MB)"),
    (1e6, None, "off by a factor of a million: check the unit prefixes (G vs P, s vs µs)"),
    (1e9, None, "off by a factor of 10^9: did you mix GFLOP/s with FLOP/s, or GB with bytes?"),
    (1e12, None, "off by a factor of 10^12: did you mix TFLOP/s with FLOP/s?"),
    (8.0, None, "off by a factor of 8: bits and bytes mixed up? (one byte is 8 bits)"),
    (2 ** 30 / 1e9, _BYTE_FAMILIES, "off by about 7%: binary (GiB) and decimal (GB) prefixes mixed up? This "
                    "course uses decimal GB and TB"),
    (2 ** 20 / 1e6, _BYTE_FAMILIES, "off by about 5%: binary (MiB, 2^20 bytes) and decimal (MB, 10^6 bytes) "
                    "prefixes mixed up?"),
    (1.024, _BYTE_FAMILIES, "off by 2.4%: binary (KiB, 1024 bytes) and decimal (KB, 1000 bytes) prefixes "
            "mixed up?"),
    (2.0, None, "off by a factor of 2: recount; one fused multiply-add is 2 FLOPs, and a copy both "
          "reads and writes"),
)


def _rounded(value: float, digits: int) -> float:
    return float(f"{value:.{digits - 1}e}")


def _roundings(value: float, digits: int) -> set:
    """``value`` to ``digits`` significant figures, rounded half-even (Python's format: 0.125 ->
    0.12) and half-up as students round (0.125 -> 0.13; review 51k2, key 5 item 2)."""
    from decimal import ROUND_HALF_UP, Decimal
    exact = Decimal(repr(value))
    if exact == 0:
        return {0.0}
    quantum = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    return {_rounded(value, digits), float(exact.quantize(quantum, rounding=ROUND_HALF_UP))}


def _rounding_explains(value: float, expected: float, unit: str) -> bool:
    """Whether a near miss can be a rounding (review 11b K4-1: 0.793 for 0.821, the fraction
    against the wrong roof, heard "if you rounded"): within 1% of the key (a tolerance tighter
    than that), or the key rounded to two significant figures (12 for 12.288), or to one (500 for
    488) except for a fraction, whose tolerance already takes whole percentages (1.0 for 0.967
    is a claim, not a rounding)."""
    if abs(value - expected) > NEAR_MISS_RTOL * abs(expected):
        return False
    if abs(value - expected) <= 0.01 * abs(expected):
        return True
    digits = (2,) if unit == "fraction" else (1, 2)
    return any(abs(value - rounded) <= 1e-3 * abs(expected)
               for n in digits for rounded in _roundings(expected, n))


def check_number(answer, expected: float, question: str, *, unit: str = "",
                 rtol: float = DEFAULT_RTOL, atol: float = 0.0,
                 mistakes: Iterable = (), percent_ok: bool = True, factor_hints: bool = True,
                 at_most: Optional[tuple] = None) -> Check:
    """Pass when ``answer`` is within ``rtol`` (relative) or ``atol`` (absolute) of ``expected``.

    ``mistakes`` lists ``(wrong_value, hint)`` pairs for the usual slips, computed the same way
    as the key but with the slip in it; an answer close to one gets that hint.  A triple
    ``(wrong_value, hint, rtol)`` matches that slip within its own ``rtol`` (a slip near the key).  Otherwise a
    generic hint names a telling factor (1000, 8, 2, GiB vs GB) or just the direction;
    ``factor_hints=False`` leaves only the direction, for a ratio no unit or FMA slip can explain.
    ``at_most=(bound, hint)`` gives ``hint`` to any answer above ``bound`` that no mistake
    explains (a roof above the compute peak: review 10b K4-2).
    For ``unit="fraction"`` a bare number 100 times the key is read as a percentage.
    """
    expected = float(expected)
    mistakes = list(mistakes)
    if unit == "fraction" and not atol:
        atol = FRACTION_ATOL

    def grade() -> Check:
        value = read_number(answer, question, unit)
        tolerance = _tolerance_text(rtol, atol, unit)
        if _close(value, expected, rtol, atol):
            return Check(question, "pass", f"correct ({tolerance})")
        if unit == "fraction" and percent_ok and _close(value, 100 * expected, rtol, 100 * atol):
            return Check(question, "pass", f"correct, read as a percentage ({tolerance})")
        hints = []
        for wrong, hint, *own_rtol in mistakes:
            # a third item, where given, is that mistake's own (tighter) relative tolerance
            if _close(value, float(wrong), own_rtol[0] if own_rtol else rtol, atol) and hint not in hints:
                hints.append(hint)
        if hints:
            return Check(question, "fail", " ".join(hints))
        if at_most is not None and value > float(at_most[0]) and not _close(value, float(at_most[0]), rtol, atol):
            return Check(question, "fail", at_most[1])
        if value <= 0 < expected:
            return Check(question, "fail", "must be positive: rates, bytes, intensities and "
                                           "times are never zero or negative here")
        if factor_hints and expected != 0 and value != 0:
            ratio = value / expected
            family = (_unit_of(unit) or ("",))[0] if unit else ""
            for factor, families, hint in _FACTOR_HINTS:
                if families is not None and family not in families:
                    continue
                if family in _COUNT_FAMILIES and factor == 8.0:  # nothing counted has bits
                    continue
                # Prefix slips (1.024, 1.074) sit close to 1: match them tightly, or every
                # answer a few percent off would be blamed on KiB.
                tight = min(rtol, 0.003) if factor < 1.1 else rtol
                for candidate in (factor, 1 / factor):
                    if _close(ratio, candidate, tight, 0.0):
                        return Check(question, "fail", hint)
        direction = "too high" if value > expected else "too low"
        # Review 9b K2-1: "12 ns" for 12.288 is a rounding, not a wrong count: say the precision.
        if expected != 0 and _rounding_explains(value, expected, unit):
            return Check(question, "fail", f"close, but not {tolerance} of the key: your value is "
                                           f"{direction}; if you rounded, keep three significant figures")
        return Check(question, "fail", f"not {tolerance} of the key: your value is {direction}")

    return guarded(question, grade)


# --- choices ---------------------------------------------------------------------------------

_FILLER_WORDS = {"the", "a", "an", "it", "is", "its", "kernel", "bound", "limited", "roof",
                 "side", "by"}


#: Words and prefixes that deny what follows them, in a normalized answer.
_NEGATED = re.compile(r"\b(not|no|non|never|neither|nor)\b|\b(non|sub)[a-z]")


#: What continues a spelling with a power of what came before it: "^2", "**2", " squared", "²".
_POWER_AFTER = re.compile(r"^\s*(?:\^|\*\*|²|³|squared\b|cubed\b)")


def _echo(text: str, limit: int = 40) -> str:
    """An answer quoted back in a message: up to ``limit`` characters, cut at a word boundary
    (review 46k2: "higher intensi" read as a typo of the student's), with "..." when cut."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit + 1].rsplit(None, 1)[0] if " " in text[:limit + 1] else text[:limit]
    return cut.rstrip(" ,;:") + "..."


def _normalize(text: str) -> str:
    text = text.lower().replace("_", " ").replace("-", " ")
    text = re.sub(r"[.!;:,'\"()]", " ", text)
    words = [w for w in text.split() if w not in _FILLER_WORDS]
    return " ".join(words)


@dataclass(frozen=True)
class Choices:
    """A closed set of answers, each with its accepted spellings.

    ``options`` maps a canonical name to ``(description, synonyms)``.  Spellings are compared
    after lower-casing, turning ``-``/``_`` into spaces and dropping filler words such as
    "bound", "limited" and "the", so ``"Memory-bound"``, ``"memory"`` and ``"bandwidth-limited"``
    can all name one option.

    ``hidden`` names options that are read (to give their own hint) but not offered: the menu,
    its table and the "is not one of" listing leave them out; :meth:`names` keeps them.
    """

    options: dict
    hidden: tuple = ()
    #: what an option is ("roof", "side"): an answer made only of filler words ("the roof")
    #: hears that it does not say which one, not that it is empty (review 44k1)
    what: str = "one"

    def __post_init__(self):
        index = {}
        for name, (_, synonyms) in self.options.items():
            for spelling in (name, *synonyms):
                key = _normalize(spelling)
                if index.get(key, name) != name:
                    raise ValueError(f"choices: {spelling!r} names both {index[key]!r} and {name!r}")
                index[key] = name
        object.__setattr__(self, "_index", index)

    def names(self) -> list:
        return list(self.options)

    def _offered(self) -> dict:
        return {n: v for n, v in self.options.items() if n not in self.hidden}

    def menu(self) -> str:
        return "; ".join(f"{name!r} ({desc})" for name, (desc, _) in self._offered().items())

    def read(self, answer) -> str:
        """The canonical option an answer names, or :class:`AnswerError` saying why not
        (read inside :func:`run_student`, as numbers are)."""
        return run_student(lambda: self._read(answer))

    def _read(self, answer) -> str:
        if is_unanswered(answer):
            raise NotAnsweredError()
        if answer is None:
            raise AnswerError("the answer is None: did you forget to assign it?")
        side = getattr(answer, "side", None)  # a rooflinelib Verdict names its side
        if isinstance(side, str):
            answer = side
        if not isinstance(answer, str):
            raise AnswerError(f"expected one of {self._listing()} as text, got "
                              f"{_describe(answer)} (type {type(answer).__name__})")
        key = _normalize(answer)
        if not key and answer.strip():
            raise AnswerError(f"{_echo(answer)!r} does not say which {self.what}: expected one "
                              f"of {self._listing()}")
        if not key:
            raise AnswerError(f"the answer is empty; expected one of {self._listing()}")
        if key in self._index:
            return self._index[key]
        close = difflib.get_close_matches(key, list(self._index), n=1, cutoff=0.75)
        # a hidden option is never suggested: the page does not offer it (review 46k1, key 3:
        # "grows with s" was pointed to 'unbounded', which only exists to carry its own hint).
        # Nor is the next-closest offered one: "unbounde" is nearest 'unbounded', and the
        # runner-up, "bounded", would point the wrong way.
        if close and self._index[close[0]] in self.hidden:
            close = []
        # a negated answer ("not memory bound", "sublinear") sits close to the option it denies:
        # offering that option would point the wrong way (review 39k1)
        if _NEGATED.search(key):
            close = []
        # an answer that is a spelling cut short before a power ("grows like s" of "grows like
        # s squared") names the lower power, not the option the full spelling names
        if close and close[0].startswith(key) and _POWER_AFTER.match(close[0][len(key):]):
            close = []
        suggestion = f" (did you mean {self._index[close[0]]!r}?)" if close else ""
        raise AnswerError(f"{_echo(answer)!r} is not one of {self._listing()}{suggestion}")

    def table(self, title: str = "") -> "Table":
        """The menu as a table of answers and what each means, for a notebook to show."""
        return Table(("answer", "meaning"), tuple((n, d) for n, (d, _) in self._offered().items()),
                     title=title)

    def _listing(self) -> str:
        names = [repr(n) for n in self._offered()]
        return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


#: Which side of the ridge a kernel is on (the vocabulary of :class:`rooflinelib.core.model.Verdict`).
SIDES = Choices({
    "memory": ("memory-bound, left of the ridge",
               ("memory bound", "bandwidth", "bandwidth bound", "memory limited", "hbm",
                "hbm bandwidth", "dram", "dram bound", "bw", "left", "left of ridge", "slope", "sloped",
                # the course's own names for the roof (review 11a, K-01-2): "the slanted roof"
                "slanted", "slant", "dram bandwidth", "memory bandwidth", "memory ceiling",
                "bandwidth ceiling",
                # review 51k2: the intensity below (above) the ridge point
                "below the ridge", "below ridge")),
    "compute": ("compute-bound, right of the ridge",
                ("compute bound", "compute limited", "flop", "flops", "arithmetic", "math",
                 "alu", "right", "right of ridge", "flat", "compute ceiling", "above the ridge",
                 "above ridge")),
    "ridge": ("at the ridge, both roofs are close",
              ("at ridge", "on ridge", "ridge point", "both", "balanced",
               # the side's own description, and the course's older wording of it
               "at the ridge, both roofs are close", "both roofs are close",
               "at the ridge, both roofs bind", "both roofs bind", "both roofs", "borderline")),
})

#: What a bare "both" hears where a side is asked: it names no side (see :func:`without_bare_both`).
BOTH_HINT = ("'both' names no side of the ridge: answer 'memory', 'compute' or 'ridge' (the band where "
             "both roofs are close)")


def without_bare_both(options: dict) -> dict:
    """:data:`SIDES`' ``options`` (or an exercise's own) with "both" alone taken off the ridge's spellings
    and read instead as an option 'both' of its own, to be hidden (``hidden=("both",)``) and given
    :data:`BOTH_HINT`: "both" names no side, while "both roofs are close" and "both roofs bind" still
    read as the ridge."""
    return {**{name: (desc, tuple(s for s in synonyms if s != "both")) for name, (desc, synonyms) in options.items()},
            "both": ("names no side", ("both sides",))}


YES_NO = Choices({
    "yes": ("yes", ("y", "true", "correct", "right")),
    "no": ("no", ("n", "false", "wrong", "incorrect")),
})


def check_choice(answer, accepted, question: str, choices: Choices, *,
                 hints: Optional[dict] = None, notes: Optional[dict] = None) -> Check:
    """Pass when ``answer`` names an option in ``accepted`` (one name or a set of names).

    ``hints`` maps a wrong option to what to reconsider; a wrong option without a hint gets a
    generic nudge.  Neither says which option is right.  ``notes`` maps an accepted option to
    what its pass says instead of a bare "correct" (why that right answer is right too).
    """
    accepted = {accepted} if isinstance(accepted, str) else set(accepted)
    unknown = accepted - set(choices.options)
    if unknown:
        raise ValueError(f"accepted: {sorted(unknown)} are not options")
    hints = hints or {}
    notes = notes or {}
    if set(notes) - accepted:
        raise ValueError(f"notes: {sorted(set(notes) - accepted)} are not accepted options")

    def grade() -> Check:
        chosen = choices.read(answer)
        if chosen in accepted:
            return Check(question, "pass", notes.get(chosen, "correct"))
        return Check(question, "fail", hints.get(chosen, f"{chosen!r} is not it: reread the "
                                                         "question and try another option"))

    return guarded(question, grade)


def check_side(answer, intensity: float, ridge: float, question: str, *,
               hints: Optional[dict] = None, spread: float = 0.0, choices: Choices = SIDES) -> Check:
    """Check a memory/compute/ridge verdict against the side of ``ridge`` ``intensity`` is on.

    ``spread``: the ridge's relative uncertainty (the measured ceilings' spreads).  Every side
    the intensity takes for a ridge within it is accepted, and a pass says so: near the edge of
    the "at the ridge" band, a ridge measured again can move the verdict across it.
    ``choices``: :data:`SIDES` with an exercise's own names for its roofs added ("fp32" where
    that is the compute roof).
    """

    if not 0 <= spread < 1:
        raise ValueError(f"spread: must lie in [0, 1), got {spread!r}")
    low, high = ridge / (1 + spread), ridge * (1 + spread)
    accepted = {side_of_ridge(intensity, r) for r in (low, ridge, high)}
    if accepted >= {"memory", "compute"}:
        accepted.add("ridge")
    default = {
        "memory": "compare the intensity with the ridge again: the memory side is where "
                  "I x B is below the compute roof",
        "compute": "compare the intensity with the ridge again: the compute side is where "
                   "I x B exceeds the compute roof",
        # review 7b G-1: the band is ridge / 1.1 to 1.1 x ridge (log-symmetric), so 9.5% left of
        # the ridge is outside it: the hint states the band exactly
        "ridge": f"'at the ridge' is for intensities from ridge / {1 + RIDGE_TOLERANCE:g} to "
                 f"{1 + RIDGE_TOLERANCE:g} x ridge",
    }
    merged = {**default, **(hints or {})}
    check = check_choice(answer, accepted, question, choices, hints=merged)
    if check.status == "pass" and len(accepted) > 1:
        names = " and ".join(repr(a) for a in sorted(accepted))
        return Check(question, "pass", f"correct: I = {intensity:.3g} sits at the edge of the "
                                       f"{RIDGE_TOLERANCE:.0%} band around the ridge, and the ridge is "
                                       f"only known to {spread:.1%} (its ceilings' measured spread: "
                                       f"{low:.3g} to {high:.3g}), so {names} are {'both' if len(accepted) == 2 else 'all'} accepted")
    return check


# --- functions of parameters -----------------------------------------------------------------

def check_function(function, reference: Callable, samples: Sequence[dict], question: str, *,
                   rtol: float = DEFAULT_RTOL, mistakes: Iterable = ()) -> Check:
    """Check a student's formula, written as a Python function, at several parameter points.

    ``reference(**point)`` gives the key at each point; ``mistakes`` lists ``(wrong_function,
    hint)`` pairs: an answer that agrees with a wrong function everywhere gets its hint.
    """
    mistakes = list(mistakes)

    def grade() -> Check:
        if is_unanswered(function):
            raise NotAnsweredError()
        if function is None:
            raise AnswerError("the answer is None: define a function with def")
        if not callable(function):
            raise AnswerError(f"expected a function of {', '.join(samples[0])}, got "
                              f"{_article(type(function).__name__)}")
        values = []
        for point in samples:
            where = ", ".join(f"{k}={v}" for k, v in point.items())

            def call():
                try:
                    result = function(**point)
                except TypeError as exc:
                    raise AnswerError(f"calling it with {where} failed: {_exception_text(exc)}") from None
                if is_unanswered(result):
                    raise NotAnsweredError()
                try:
                    return _read_number(result, question, "")
                except AnswerError as exc:
                    raise AnswerError(f"at {where} it returned something unusable: {exc}") from None

            values.append(run_student(call, f"your function at {where}"))
        wrong = [(point, value) for point, value in zip(samples, values)
                 if not _close(value, float(reference(**point)), rtol, 0.0)]
        if not wrong:
            return Check(question, "pass", f"correct at all {len(samples)} test points "
                                           f"(within ±{rtol * 100:g}%)")
        for mistaken, hint in mistakes:
            if all(_close(v, float(mistaken(**p)), rtol, 0.0) for p, v in zip(samples, values)):
                return Check(question, "fail", hint)
        point, value = wrong[0]
        where = ", ".join(f"{k}={v}" for k, v in point.items())
        direction = "too high" if value > reference(**point) else "too low"
        return Check(question, "fail", f"wrong at {len(wrong)} of {len(samples)} test points; "
                                       f"at {where} it is {direction}")

    return guarded(question, grade)


# --- prose: the model answer, after an attempt -----------------------------------------------

@dataclass(frozen=True)
class Reveal:
    """A model answer, shown only once the student has written an attempt of their own."""

    question: str
    status: str  # "revealed", "unanswered" or "invalid"
    message: str
    model_answer: str = ""
    key_points: tuple = ()
    also: tuple = ()  # asides, listed after the model answer so they do not bury it

    @property
    def revealed(self) -> bool:
        return self.status == "revealed"

    def __bool__(self) -> bool:
        return self.revealed

    def __str__(self) -> str:
        if not self.revealed:
            mark = "NOT ANSWERED YET" if self.status == "unanswered" else "CHECK YOUR INPUT"
            return f"[{mark}] {self.question}: {self.message}"
        lines = [f"[MODEL ANSWER] {self.question}", self.model_answer]
        if self.also:
            lines.append("Also:")
            lines += [f"  - {aside}" for aside in self.also]
        if self.key_points:
            lines.append("Does your attempt make these points?")
            lines += [f"  - {point}" for point in self.key_points]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        if not self.revealed:
            colour = _COLOUR["unanswered" if self.status == "unanswered" else "invalid"]
            return f'<div style="color:{colour}">{html.escape(str(self))}</div>'
        points = "".join(f"<li>{html.escape(p)}</li>" for p in self.key_points)
        extra = f"<p>Does your attempt make these points?</p><ul>{points}</ul>" if points else ""
        asides = "".join(f"<li>{html.escape(a)}</li>" for a in self.also)
        also = f"<p>Also:</p><ul>{asides}</ul>" if asides else ""
        return (f"<div><b>Model answer: {html.escape(self.question)}</b>"
                f"{_answer_html(self.model_answer)}{also}{extra}</div>")


def _answer_html(text: str) -> str:
    """A model answer as HTML: its lines that start with "- " as a list, the rest as paragraphs."""
    parts, items = [], []
    for line in text.split("\n"):
        if line.startswith("- "):
            items.append(f"<li>{html.escape(line[2:])}</li>")
            continue
        if items:
            parts.append(f"<ul>{''.join(items)}</ul>")
            items = []
        if line.strip():
            parts.append(f"<p>{html.escape(line)}</p>")
    if items:
        parts.append(f"<ul>{''.join(items)}</ul>")
    return "".join(parts)


def reveal(attempt, model_answer: str, question: str, *, key_points: Sequence[str] = (),
           min_words: int = MIN_ATTEMPT_WORDS, also: Sequence[str] = ()) -> Reveal:
    """The model answer, if ``attempt`` is a real attempt (text of at least ``min_words`` words).

    ``also``: asides that are true but not the answer, shown as a list after it."""
    try:
        revealed = run_student(lambda: _reveal(attempt, model_answer, question, key_points, min_words),
                               "reading your attempt")
        return replace(revealed, also=tuple(also)) if revealed.revealed else revealed
    except AnswerError as exc:
        return Reveal(question, "invalid", str(exc))


def _reveal(attempt, model_answer, question, key_points, min_words) -> Reveal:
    if is_unanswered(attempt):
        error = previous_cell_error()
        if error:
            return Reveal(question, "invalid", f"still NOT_ANSWERED because the cell run before this one "
                                               f"stopped with {error}: fix that cell, run it, then this one again")
        return Reveal(question, "unanswered", "write your own answer first, then run this cell "
                                              "to compare it with the model answer")
    if attempt is None:
        return Reveal(question, "invalid", "the attempt is None: assign your answer as a string")
    if not isinstance(attempt, str):
        return Reveal(question, "invalid", f"write your attempt as text (a string in quotes), "
                                           f"not {_article(type(attempt).__name__)}")
    n_words = len(re.findall(r"\w+", attempt))
    if n_words < min_words:
        return Reveal(question, "invalid", f"write at least {min_words} words of your own before "
                                           f"the model answer is shown (you wrote {n_words})")
    return Reveal(question, "revealed", "", model_answer, tuple(key_points))


# --- tables ----------------------------------------------------------------------------------

def _cell_text(value, limit: int = 200) -> str:
    if is_unanswered(value):
        return "—"
    try:  # a student's value: its __str__ may raise or never return
        return run_student(lambda: f"{value:.4g}" if isinstance(value, float) else str(value)[:limit],
                           "showing a value")
    except AnswerError:
        return "?"


@dataclass(frozen=True)
class Table:
    """A small table that prints as aligned text and renders as HTML in a notebook.

    Unanswered values print as a dash, so a table of a student's answers never raises.
    """

    headers: tuple
    rows: tuple
    title: str = ""
    #: A cell's text is cut at this many characters (a student's value may print for ever); a
    #: table of given data raises it so that nothing it gives is cut (review 7b K2-3).
    cell_chars: int = 200
    #: A line printed under the rows, for what would make one cell too wide (review 12b CK2-1).
    note: str = ""

    def _text_rows(self) -> list:
        return [[str(h) for h in self.headers]] + [[_cell_text(v, self.cell_chars) for v in row]
                                                   for row in self.rows]

    def __str__(self) -> str:
        rows = self._text_rows()
        widths = [max(len(r[i]) for r in rows) for i in range(len(self.headers))]
        lines = [self.title] if self.title else []
        for index, row in enumerate(rows):
            lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
            if index == 0:
                lines.append("  ".join("-" * width for width in widths))
        return "\n".join(lines + ([self.note] if self.note else []))

    __repr__ = __str__

    def _repr_html_(self) -> str:
        rows = self._text_rows()
        head = "".join(f"<th>{html.escape(h)}</th>" for h in rows[0])
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                       for row in rows[1:])
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        note = f"<p>{html.escape(self.note)}</p>" if self.note else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"
