#!/usr/bin/env python3
"""Lab 2, for a terminal or a batch job: sweep one kernel across the roofline and store it.

    python3 labs/lab2_sweep.py                          # K = 0..1024 on the GPU, else the CPU
    python3 labs/lab2_sweep.py --backend numba --ks 0,1,2,4,8,16,32,64,128,256,512

Prints the two tables of notebook 04 (Lab 2) (raw rates, then each point against the sweep's
own roofs) and writes results/lab2_sweep_<backend>.json unless --out says otherwise.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from labs._lab_common import run_lab  # noqa: E402

if __name__ == "__main__":
    sys.exit(run_lab("sweep", "lab2_sweep", sys.argv[1:]))
