#!/usr/bin/env python3
"""Lab 1, for a terminal or a batch job: measure this machine's ceilings and store them.

    python3 labs/lab1_ceilings.py                      # GPU if there is one, else the CPU
    python3 labs/lab1_ceilings.py --backend cupy --out results/ceilings.json

Prints the ceilings table of notebook 03 (progress on stderr) and writes a result file that the notebooks
load (rooflinelib.results.load) and that ``roofline plot --ceilings FILE`` draws.  The same
options as ``roofline measure``; the default --out is results/lab1_ceilings_<backend>.json.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from labs._lab_common import run_lab  # noqa: E402

if __name__ == "__main__":
    sys.exit(run_lab("measure", "lab1_ceilings", sys.argv[1:]))
