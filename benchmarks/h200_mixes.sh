#!/usr/bin/env bash
# The access-mix run (2026-12-01, late): DRAM by access mix (Lab 1's three mixes beside torch and CuPy,
# benchmarks/dram_mixes.py), Lab 1 re-recorded on both backends with the mixes (the shipped
# rooflinelib/data/h200_ceilings_*.json), and the L2 kernel by footprint.
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/mixes; mkdir -p $R
timeout 240 python3 benchmarks/dram_mixes.py --out $R/dram_mixes_h200.json > $R/dram_mixes.log 2>&1; echo "mixes rc $?"; tail -4 $R/dram_mixes.log
timeout 120 python3 -m rooflinelib measure --backend numba --no-links --out $R/h200_ceilings_numba.json > $R/lab1_numba.log 2>&1; echo "lab1 numba rc $?"
timeout 120 python3 -m rooflinelib measure --backend cupy --no-links --out $R/h200_ceilings_cupy.json > $R/lab1_cupy.log 2>&1; echo "lab1 cupy rc $?"
grep -E "^  dram|^  l2 " $R/lab1_numba.log $R/lab1_cupy.log
timeout 150 python3 benchmarks/l2_by_footprint.py --out $R/l2_by_footprint_h200.json > $R/l2.log 2>&1; echo "l2 rc $?"; tail -3 $R/l2.log
