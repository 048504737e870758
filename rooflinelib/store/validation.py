"""One validator for every result format: a JSON Schema shipped with the package, checked with
``jsonschema``, and one-line errors that name the file, the field and the reason.

Each format (Lab 1's ceilings, Lab 3's sweep, the working-set sweep, the experiments) is
declared in ``rooflinelib/store/schemas/<name>.schema.json`` (JSON Schema 2020-12), so that any tool
can check a result file.  The format's own module (:mod:`rooflinelib.store.results`,
:mod:`rooflinelib.hierarchy.workingset_files`, :mod:`rooflinelib.experiments.record`) calls
:func:`check` with the schema, then adds the few checks a schema cannot state (a ridge equal to
P / B, rows in increasing k, ...) through :func:`fail`.

Errors.  Of everything wrong with a document, the first in document order is reported (fields
in the order the schema lists them, list items by index), as
``"<where>: <field path>: <reason>"``, e.g. ``lab1.json: ceilings[3].unit: must be 'GB/s' for
dram, got 'GiB/s'``.  A schema may word a reason itself with the ``errorMessage`` keyword, as
ajv-errors reads it: a string for any failure of that subschema, or an object from keyword to
string (``required`` maps property names); ``{value}`` is replaced by the offending value.
One extension: a ``required`` entry may be ``{"field": "device.name", "reason": "missing"}``,
to report a missing object at the member a reader needs from it.  Other validators ignore the
keyword.

Two type rules are stricter than JSON Schema's, for the Python values a file is loaded into:
a ``number`` must be finite (Python's ``json`` reads ``NaN`` and ``Infinity``, which JSON itself
does not allow), and an ``integer`` is an ``int``, never ``1.0``.
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import NoReturn


def _import_jsonschema():
    """jsonschema, without the "iri" format checker it adds when rfc3987-syntax is installed
    (jupyter-events brings it): that module compiles a grammar when imported, about 1.9 s of
    every ``roofline`` command and of every kernel that loads a result, and no course schema
    checks a "format".  Other importers of rfc3987-syntax are not affected."""
    import sys
    if "rfc3987_syntax" in sys.modules or "jsonschema" in sys.modules:
        import jsonschema
        return jsonschema
    sys.modules["rfc3987_syntax"] = None  # makes jsonschema's optional import fail, as if absent
    try:
        import jsonschema
    finally:
        del sys.modules["rfc3987_syntax"]
    return jsonschema


jsonschema = _import_jsonschema()

from rooflinelib.core import sanity
from rooflinelib.store.fileio import read_text

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"

#: How a reason names each JSON type.
_TYPE_WORDS = {"object": "an object", "array": "a list", "string": "a string",
               "number": "a finite number", "integer": "a whole number", "boolean": "true or false",
               "null": "null"}
#: At one field, a wrong type is reported before a missing or an unknown member of it.
_VALIDATOR_RANK = {"type": 0, "required": 1, "additionalProperties": 2}

def _is_number(_, v) -> bool:
    # sanity's rule: an int of 10**400 (from the API; files read them as floats) is not a
    # number a result can hold, and math.isfinite would raise on it
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    if isinstance(v, int):
        return abs(v).bit_length() <= sanity.MAX_INT_BITS
    return math.isfinite(v)


_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many({
    "number": _is_number,
    "integer": lambda _, v: isinstance(v, int) and not isinstance(v, bool)
    and abs(v).bit_length() <= sanity.MAX_INT_BITS,
})
_Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=_TYPES)


def schema_path(name: str) -> Path:
    """The schema file of format ``name`` (``ceilings``, ``sweep``, ``workingset``, ``experiments``)."""
    return SCHEMA_DIR / f"{name}.schema.json"


@lru_cache(maxsize=None)
def _schema_text(name: str) -> str:
    return read_text(schema_path(name), ValueError, "a JSON Schema", "json")


def schema(name: str) -> dict:
    """A fresh copy of the schema of format ``name`` (callers may extend it)."""
    return json.loads(_schema_text(name))


def validator(document: dict):
    """A validator for a schema ``document``, with this module's stricter number types."""
    _Validator.check_schema(document)
    return _Validator(document)


def fail(error: type, where: str, field: str, reason: str) -> NoReturn:
    """Raise ``error`` with the one-line message ``"<where>: <field>: <reason>"``."""
    raise error(" ".join(f"{where}: {field}: {reason}".split()))


def check(data, checker, where: str, error: type, named=()) -> None:
    """Raise ``error`` (one line) for the first problem ``checker`` (from :func:`validator`)
    finds in ``data``; return None when there is none.

    ``named``: lists whose items are called by their ``"name"`` in a field path instead of
    their index (``softmax.variants[0]`` instead of ``experiments[2].variants[0]``).
    """
    huge = _huge_int(data)
    if huge is not None:  # before the schema: jsonschema's own messages repr the value
        path, value = huge
        fail(error, where, _field(path, data, named),
             f"must be at most {sanity.MAX_INT_DIGITS} digits, got {sanity.show(value)}")
    problems = list(checker.iter_errors(data))
    if not problems:
        return
    root = checker.schema
    first = min(problems, key=lambda e: (_position(root, _path(e)), _VALIDATOR_RANK.get(e.validator, 3)))
    fail(error, where, _field(_path(first), data, named), _reason(first))


def _huge_int(data):
    """``(path, value)`` of the first int (in document order) longer than the sanity rule
    allows, or None.  Iterative: a document from the API may be nested deeper than the stack."""
    stack = [((), data)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack.extend(reversed([(path + (k,), v) for k, v in node.items()]))
        elif isinstance(node, list):
            stack.extend(reversed([(path + (i,), v) for i, v in enumerate(node)]))
        elif isinstance(node, int) and not isinstance(node, bool) \
                and abs(node).bit_length() > sanity.MAX_INT_BITS:
            return list(path), node
    return None


# ---------------------------------------------------------------------------------------------
# from a jsonschema error to a field and a reason


def _properties(node: dict) -> list:
    return list(node.get("properties", {})) if isinstance(node, dict) else []


def _missing(e) -> str:
    """The first member (in the schema's order) that a ``required`` error finds missing."""
    order = _properties(e.schema)
    missing = [p for p in e.validator_value if p not in e.instance]
    return min(missing, key=lambda p: order.index(p) if p in order else len(order))


def _required_message(e):
    message = e.schema.get("errorMessage") if isinstance(e.schema, dict) else None
    if isinstance(message, dict) and isinstance(message.get("required"), dict):
        return message["required"].get(_missing(e))
    return None


def _path(e) -> list:
    """The error's field: its instance path, plus the member that is missing or unknown."""
    path = list(e.absolute_path)
    if e.validator == "required":
        message = _required_message(e)
        if isinstance(message, dict) and isinstance(message.get("field"), str):
            path.extend(message["field"].split("."))
        else:
            path.append(_missing(e))
    elif e.validator == "additionalProperties" and isinstance(e.instance, dict):
        path.append(sorted(set(e.instance) - set(_properties(e.schema)))[0])
    return path


def _resolve(root: dict, node):
    """Follow a local ``$ref`` (``#/$defs/...``); the schemas use no other kind."""
    while isinstance(node, dict) and str(node.get("$ref", "")).startswith("#/"):
        target = root
        for part in node["$ref"][2:].split("/"):
            target = target.get(part, {})
        node = target
    return node


def _position(root: dict, path: list) -> tuple:
    """Where ``path`` sits in document order: each member by its place among the schema's
    ``properties`` (unlisted members after the listed ones), each list item by its index."""
    key, node = [], _resolve(root, root)
    for step in path:
        if isinstance(step, int):
            key.append(step)
            node = _resolve(root, node.get("items", {}) if isinstance(node, dict) else {})
        else:
            order = _properties(node)
            key.append(order.index(step) if step in order else len(order))
            node = _resolve(root, node.get("properties", {}).get(step, {}) if isinstance(node, dict) else {})
    return tuple(key)


def _field(path: list, data, named) -> str:
    if not path:
        return "top level"
    text, node = "", data
    for i, step in enumerate(path):
        if isinstance(step, int):
            name = node[step].get("name") if isinstance(node[step], dict) else None
            if i == 1 and path[0] in named and isinstance(name, str) and name:
                text = name
            else:
                text += f"[{step}]"
        else:
            text += ("." if text else "") + step
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):  # the missing member itself: the path ends here
            node = None
    return text


def _show(value) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return sanity.show(value)


def _reason(e) -> str:
    message = e.schema.get("errorMessage") if isinstance(e.schema, dict) else None
    if e.validator == "required":
        message = _required_message(e)
        if isinstance(message, dict):
            message = message.get("reason")
    elif isinstance(message, dict):
        message = message.get(e.validator)
    if isinstance(message, str):
        return message.replace("{value}", _show(e.instance))
    got = _show(e.instance)
    limit = e.validator_value
    if e.validator == "type":
        wanted = [limit] if isinstance(limit, str) else list(limit)
        return f"must be {' or '.join(_TYPE_WORDS.get(t, t) for t in wanted)}, got {got}"
    if e.validator == "required":
        return "missing"
    if e.validator == "additionalProperties":
        return "unknown field"
    if e.validator == "const":
        return f"must be {limit!r}, got {got}"
    if e.validator == "enum":
        return f"must be one of {', '.join(map(str, limit))}, got {got}"
    words = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
    if e.validator in words:
        return f"must be {words[e.validator]} {limit}, got {got}"
    if e.validator == "minItems":
        return f"must list at least {limit}"
    if e.validator == "minLength":
        return "missing"
    return e.message
