#!/usr/bin/env python3
"""Lab 3, for a terminal or a batch job: sweep one kernel across the roofline and store it.

    python3 labs/lab3_sweep.py                          # K = 0..1024 on the GPU, else the CPU
    python3 labs/lab3_sweep.py --backend numba --ks 0,1,2,4,8,16,32,64,128,256,512

Prints the two tables of notebook 04 (Lab 3) (raw rates, then each point against the sweep's
own roofs) and stores results/sweep_<backend>.json (path printed) unless --out or --no-save
says otherwise.  Started with a Python that lacks numba, it re-runs itself with .venv's.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from labs._lab_common import run_lab, use_course_env  # noqa: E402

if __name__ == "__main__":
    use_course_env(__file__, sys.argv[1:])
    sys.exit(run_lab("sweep", sys.argv[1:]))
