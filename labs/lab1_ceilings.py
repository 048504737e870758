#!/usr/bin/env python3
"""Lab 1, for a terminal or a batch job: measure this machine's ceilings and store them.

    python3 labs/lab1_ceilings.py                      # GPU if there is one, else the CPU
    python3 labs/lab1_ceilings.py --backend cupy --out results/ceilings.json

Prints the ceilings table of notebook 03 (progress on stderr) and stores a validated result
file where the notebooks load it (results/ceilings_<backend>.json, path printed) and that
``roofline plot --ceilings FILE`` draws.  The same options as ``roofline measure`` (--out,
--no-save, --csv).  Started with a Python that lacks numba, it re-runs itself with .venv's.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from labs._lab_common import run_lab, use_course_env  # noqa: E402

if __name__ == "__main__":
    use_course_env(__file__, sys.argv[1:])
    sys.exit(run_lab("measure", sys.argv[1:]))
