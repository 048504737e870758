"""The one numeric sanity rule, for every number that comes from outside: ``--peak-*``,
result files, ncu values, widget values and exercise answers.

A number is sane when it is a real number (not a bool, not text), an integer of at most
:data:`MAX_INT_DIGITS` digits, finite, positive or non-negative where the quantity must be,
and inside the physical band of its unit (:data:`BANDS`).  A number that is not is refused
with one line naming the field and the reason, in the caller's own error class.

Standard library only, and imports nothing from the package, so that every layer can use it.
"""
from __future__ import annotations

import decimal
import math
import numbers

#: Integers longer than this are refused before any arithmetic: no count the course handles
#: needs more than 20 digits, and ``str()`` of an int over 4300 digits raises.
MAX_INT_DIGITS = 30
#: The same bound in bits, for checking an int without converting it to text.
MAX_INT_BITS = int(MAX_INT_DIGITS * math.log2(10)) + 1

#: Plausible values for one device, by unit.  Outside a rate's band a value is a unit slip
#: (FLOP/s typed as GFLOP/s, or the reverse), and a chart would span absurd decades.  The
#: counts and times are bounds on what one profiled launch or one run can be.
BANDS = {
    "GFLOP/s": (1e-6, 1e12),
    "GB/s": (1e-6, 1e12),
    "bytes": (0.0, 1e21),
    "FLOPs": (0.0, 1e24),
    "count": (0.0, 1e24),
    "s": (1e-12, 1e7),
}


class SanityError(ValueError):
    """A number that fails the sanity rule; the message is one line naming the field."""


def show(value) -> str:
    """A value for an error message: at most 40 characters, never the whole of a huge integer,
    and never an exception from a foreign object's ``repr``."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value).bit_length() > MAX_INT_BITS:
        return f"an integer of about {int(abs(value).bit_length() * math.log10(2)) + 1} digits"
    try:
        text = repr(value)
    except Exception:  # a foreign object's repr is not ours to trust
        text = f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def number(value, field: str, *, error: type = SanityError, unit: str = None,
           positive: bool = False, nonnegative: bool = False, integer: bool = False) -> float:
    """``value`` as a float that passes the rule, or ``error("<field>: <reason>")``.

    ``unit``: a key of :data:`BANDS`; the value must lie in its band.  ``positive`` / ``nonnegative``: the quantity's sign.
    ``integer``: the value must be a whole number (``4.0`` is one).
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        raise error(f"{field}: must be a number, got {show(value)}")
    if isinstance(value, numbers.Integral) and abs(int(value)).bit_length() > MAX_INT_BITS:
        raise error(f"{field}: must be at most {MAX_INT_DIGITS} digits, got {show(int(value))}")
    try:
        x = float(value)
    except (OverflowError, ValueError, TypeError, decimal.InvalidOperation):
        raise error(f"{field}: number out of range, got {show(value)}") from None
    if not math.isfinite(x):
        raise error(f"{field}: must be a finite number, got {x!r}")
    if integer and x != int(x):
        raise error(f"{field}: must be a whole number, got {x!r}")
    if positive and not x > 0:
        raise error(f"{field}: must be a positive number, got {x:g}")
    if nonnegative and x < 0:
        raise error(f"{field}: must not be negative, got {x:g}")
    if unit is not None:
        low, high = BANDS[unit]
        if not low <= x <= high:
            raise error(f"{field}: {x:g} {unit} is outside {low:g}..{high:g} {unit}; check the units")
    return x


def in_band(x: float, unit: str) -> bool:
    """Whether the float ``x`` lies in ``unit``'s band (for callers that word their own error)."""
    low, high = BANDS[unit]
    return math.isfinite(x) and low <= x <= high
