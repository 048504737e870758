"""Safe arithmetic for numeric fields: ``5*2**24``, ``8*2**24``, ``1.2e9``.

The text is parsed with :mod:`ast` and walked by hand; nothing is evaluated as code.  Only
number literals, ``+ - * / **``, unary signs and parentheses are accepted.  The length of the
text, the number of nodes and the size of every intermediate result are bounded, so no input
can hang the parser or exhaust memory (``9**9**9**9`` is refused, not computed).
"""
from __future__ import annotations

import ast
import math
import numbers
import operator
import re
import warnings

MAX_CHARS = 200
MAX_NODES = 100
MAX_ABS = 1e300  # any intermediate beyond this is refused as out of range
MAX_EXPONENT = 1024

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


#: A number that ends in its exponent's ``e`` (``1e``, ``2.5E+``): a number cut short, not a
#: name or a unit.
INCOMPLETE_EXPONENT = re.compile(r"(?:^|[^A-Za-z0-9_.])(?:\d+\.?\d*|\.\d+)[eE](?![+-]?\d)[+-]?(?![0-9A-Za-z_])")


def incomplete_number(text: str) -> str:
    """The first number in ``text`` that stops at its exponent (``"1e"``), or ``""``."""
    match = INCOMPLETE_EXPONENT.search(text)
    return match.group(0).lstrip(" (+-*/") if match else ""


class ExpressionError(ValueError):
    """A numeric field that is not a safe, positive, finite number.  The message is one line."""


def _number(value, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # numpy's numbers too
        raise ExpressionError(f"{field}: only numbers are allowed")
    try:
        number = float(value)
    except OverflowError:  # an int beyond float range, passed in as a number
        raise ExpressionError(f"{field}: number out of range") from None
    if not math.isfinite(number) or abs(number) > MAX_ABS:
        raise ExpressionError(f"{field}: number out of range")
    return number


def _power(base: float, exponent: float, field: str) -> float:
    if abs(exponent) > MAX_EXPONENT:
        raise ExpressionError(f"{field}: exponent {exponent:g} is larger than {MAX_EXPONENT}")
    if base == 0 and exponent < 0:
        raise ExpressionError(f"{field}: zero to a negative power")
    if base < 0 and exponent != int(exponent):
        raise ExpressionError(f"{field}: fractional power of a negative number")
    # Work in logs first so that a huge result is refused without being computed.
    if base != 0 and exponent * math.log10(abs(base)) > math.log10(MAX_ABS):
        raise ExpressionError(f"{field}: number out of range")
    try:
        return _number(math.pow(base, exponent), field)
    except (OverflowError, ValueError):
        raise ExpressionError(f"{field}: number out of range") from None


def _walk(node, field: str) -> float:
    if isinstance(node, ast.Constant):
        return _number(node.value, field)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        value = _walk(node.operand, field)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        left = _walk(node.left, field)
        right = _walk(node.right, field)
        if isinstance(node.op, ast.Pow):
            return _power(left, right, field)
        op = _BINARY.get(type(node.op))
        if op is None:
            raise ExpressionError(f"{field}: only + - * / ** and parentheses are allowed")
        if isinstance(node.op, ast.Div) and right == 0:
            raise ExpressionError(f"{field}: division by zero")
        try:
            return _number(op(left, right), field)
        except OverflowError:
            raise ExpressionError(f"{field}: number out of range") from None
    if isinstance(node, (ast.Name, ast.Call, ast.Attribute, ast.Subscript)):
        raise ExpressionError(f"{field}: names and calls are not allowed, only numbers")
    raise ExpressionError(f"{field}: only numbers, + - * / ** and parentheses are allowed")


def evaluate(text, field: str = "value") -> float:
    """The value of an arithmetic expression, as a float, or :class:`ExpressionError`.

    Numbers pass through unchanged, so the function also validates values that are already
    numeric.  Any sign is accepted here; :func:`parse_positive` adds the domain check.
    """
    if isinstance(text, bool):
        raise ExpressionError(f"{field}: expected a number, got a boolean")
    if isinstance(text, numbers.Real):
        return _number(text, field)
    if text is None:
        raise ExpressionError(f"{field}: missing value")
    if not isinstance(text, str):
        raise ExpressionError(f"{field}: expected a number or a formula, got {type(text).__name__}")
    stripped = text.strip()
    if not stripped:
        raise ExpressionError(f"{field}: empty value")
    if len(stripped) > MAX_CHARS:
        raise ExpressionError(f"{field}: formula longer than {MAX_CHARS} characters")
    if any(not (ch.isascii() and ch.isprintable()) for ch in stripped):
        raise ExpressionError(f"{field}: formula has characters other than printable ASCII")
    try:
        # "1if 1 else 2" makes the parser warn on stderr; the refusal below is the only message
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(stripped, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        cut = incomplete_number(stripped)
        if cut:
            raise ExpressionError(f"{field}: {cut!r} is an incomplete number: write the exponent's digits "
                                  f"after the e, as in 1e9 or 2.5e-3") from None
        raise ExpressionError(f"{field}: {stripped[:40]!r} is not a number or formula") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise ExpressionError(f"{field}: formula has more than {MAX_NODES} parts")
    return _walk(tree.body, field)


def parse_positive(text, field: str = "value") -> float:
    """Like :func:`evaluate`, and the result must be a positive finite number."""
    value = evaluate(text, field)
    if not value > 0:
        raise ExpressionError(f"{field}: must be positive, got {value:g}")
    return value


def parse_non_negative(text, field: str = "value") -> float:
    value = evaluate(text, field)
    if value < 0:
        raise ExpressionError(f"{field}: must not be negative, got {value:g}")
    return value
