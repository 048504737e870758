"""The folder of recorded data shipped with the package: measurements made on an H200 (and its
counters), read on machines without one.  Every module that reads a recorded file finds the
folder here, through :func:`recorded_file`, :func:`recorded_files` or :func:`is_recorded`: no
other module builds a path to it (``tests/store/test_recorded_home.py`` checks), so a test that
points :data:`DATA_DIR` elsewhere moves every loader at once."""
from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "data"


def recorded_file(name: str) -> Path:
    """The shipped file ``name`` (a file name, no folder), whether or not it exists."""
    if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\\" in name:
        raise ValueError(f"recorded file: {name!r} is not a file name")
    return DATA_DIR / name


def recorded_files(pattern: str = "*") -> list:
    """The shipped files whose names match ``pattern`` (a glob of names), sorted."""
    return sorted(p for p in DATA_DIR.glob(pattern) if p.is_file())


def is_recorded(path) -> bool:
    """True when ``path`` lies in the folder of shipped recordings (links resolved)."""
    return DATA_DIR.resolve() in Path(path).resolve().parents
