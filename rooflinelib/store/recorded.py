"""The folder of recorded data shipped with the package: measurements made on an H200 (and its
counters), read on machines without one.  Every module that reads a recorded file finds the
folder here."""
from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
