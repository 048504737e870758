"""What the terminal labs share: the course's Python, and the ``roofline`` subcommand they run.

The README starts the labs as ``python3 labs/lab1_ceilings.py``, and a system ``python3`` lacks
numba; :func:`use_course_env` then re-runs the script with ``.venv``'s Python (the one
``python3 course.py`` installs), or says exactly what to run when there is none.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Set in the re-run process, so that a .venv lacking a module cannot loop forever.
REEXEC_ENV = "ROOFLINE_LAB_REEXEC"


def _venv_python(root: Path) -> Path:
    return root / ".venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def use_course_env(script, argv, needs=("numpy", "jsonschema", "numba"), root: Path = ROOT) -> None:
    """Return when this Python has ``needs``; else re-run ``script`` with ``.venv``'s Python,
    or exit 2 with one line naming what is missing and what to run."""
    missing = [name for name in needs if importlib.util.find_spec(name) is None]
    if not missing:
        return
    venv_python = _venv_python(root)
    here = Path(sys.executable)
    if venv_python.is_file() and not os.environ.get(REEXEC_ENV) and here != venv_python:
        env = dict(os.environ, **{REEXEC_ENV: "1"})
        os.execve(str(venv_python), [str(venv_python), str(script), *argv], env)
    name = Path(script).name
    if venv_python.is_file():
        fix = f"{venv_python} -m pip install -e '{root}[course]'"
    else:
        fix = f"python3 {root / 'course.py'} install   (creates .venv), then rerun python3 labs/{name}"
    sys.exit(f"{name}: this Python ({sys.executable}) cannot import {', '.join(missing)}; run: {fix}")


def run_lab(command: str, argv: list) -> int:
    """``roofline <command> argv``: it stores its result where the notebooks look, by default."""
    from rooflinelib.cli import main
    return main([command, *argv])
