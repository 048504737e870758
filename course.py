#!/usr/bin/env python3
"""Set up and open the course, or run its tests.  Standard library only.

    python3 course.py          # install what is needed, then open the course in JupyterLab
    python3 course.py test     # install what is needed, then run the whole test suite

Options after ``python3 course.py`` (or ``python3 course.py lab``) go to JupyterLab, e.g.
``python3 course.py --no-browser --port 8889``; options after ``test`` go to pytest.

Both create a virtual environment in ``.venv`` beside this file on first use, and reinstall
only when ``pyproject.toml`` changes.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")

EXTRAS = {"lab": "course", "test": "course,test"}

# The notebook folders nbval runs, in course order; those that do not exist yet are skipped.
NOTEBOOK_DIRS = ("notebooks", "solutions", "exercises")


def say(message: str) -> None:
    print(f"[course] {message}", flush=True)


def ensure_env(extras: str) -> None:
    if not PY.exists():
        say(f"creating a virtual environment in {VENV}")
        try:
            venv.EnvBuilder(with_pip=True).create(VENV)
        except Exception as exc:  # Debian's python3 without python3-venv lands here
            sys.exit(f"[course] could not create .venv ({exc}); on Debian: apt-get install python3-venv")
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()
    stamp = VENV / f".installed-{extras.replace(',', '-')}"
    if stamp.exists() and stamp.read_text() == digest:
        return
    say(f"installing the course with extras [{extras}] (first time only)")
    subprocess.run([str(PY), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    subprocess.run([str(PY), "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[{extras}]"], check=True)
    stamp.write_text(digest)


def run_tests(extra_args: list) -> int:
    ensure_env(EXTRAS["test"])
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    args = [str(PY), "-m", "pytest", "tests"]
    notebooks = [d for d in NOTEBOOK_DIRS if any((ROOT / d).glob("*.ipynb"))]
    if notebooks:
        args += ["--nbval-lax", "--nbval-current-env", "--nbval-cell-timeout=600", *notebooks]
    args += extra_args
    say("running: " + " ".join(args[1:]))
    return subprocess.run(args, cwd=ROOT, env=env).returncode


def open_lab(extra_args: list) -> int:
    ensure_env(EXTRAS["lab"])
    # The file browser starts at the repository root, so exercises/ and labs/ are one click away;
    # the first notebook opens by itself.
    start = ROOT / "notebooks" / "00_start_here.ipynb"
    asked_for_a_path = any(a.endswith(".ipynb") or (ROOT / a).exists()
                           for a in extra_args if not a.startswith("-"))
    if start.exists() and not asked_for_a_path:
        extra_args = [str(start.relative_to(ROOT)), *extra_args]
    if not any(a.startswith(("--ServerApp.root_dir", "--notebook-dir", "--ServerApp.notebook_dir"))
               for a in extra_args):
        # Given a notebook alone, Jupyter would serve the notebook's own folder.
        extra_args = [*extra_args, f"--ServerApp.root_dir={ROOT}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in extra_args:
        extra_args = [*extra_args, "--allow-root"]  # containers often run as root
    say(f"opening JupyterLab in {ROOT}")
    return subprocess.run([str(BIN / "jupyter"), "lab", *extra_args], cwd=ROOT).returncode


def main(argv: list) -> int:
    if not argv or argv[0].startswith("-"):  # options alone go to JupyterLab
        argv = ["lab", *argv]
    command = argv[0]
    if command in ("lab", "open"):
        return open_lab(argv[1:])
    if command == "test":
        return run_tests(argv[1:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
