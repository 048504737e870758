"""Reading user-supplied files with one-line errors, and writing result files atomically:
shared by result, working-set, experiment and ncu files.

Every read failure becomes ``error(f"{path}: file: <reason>")`` in the caller's own error
class, so a student sees one sentence that names the file and what is wrong with it, never a
traceback.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def read_text(path, error: type, kind: str = "a text file") -> str:
    """The UTF-8 text of ``path``, or ``error`` with a one-line reason."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{p}: file: not found") from None
    except IsADirectoryError:
        raise error(f"{p}: file: is a directory") from None
    except UnicodeDecodeError:
        raise error(f"{p}: file: not UTF-8 text, so not {kind}") from None
    except OSError as exc:
        raise error(f"{p}: file: cannot be read ({exc.strerror})") from None


def parse_json(text: str, where: str, error: type):
    """``json.loads`` whose failure is ``error`` naming ``where``, the line and the column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: not valid JSON (truncated or corrupted?): {exc.msg} at line "
                    f"{exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise error(f"{where}: JSON nested too deeply") from None


def write_atomic(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same folder and a
    rename, so that a crash or a full disk never leaves a half-written result behind."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}-", suffix=".tmp", dir=str(p.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, p)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return p
