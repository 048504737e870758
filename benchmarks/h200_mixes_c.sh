#!/usr/bin/env bash
# The access-mix run, part c (2026-12-02): the L2 kernel by footprint again, with the numba
# footprints profiled under ncu (the slices' own rate and the share of the requested bytes they
# served: benchmarks/l2_by_footprint.py --ncu).
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/mixes_c; mkdir -p $R
timeout 420 python3 benchmarks/l2_by_footprint.py --out $R/l2_by_footprint_ncu_h200.json --ncu $R/ncu > $R/l2_ncu.log 2>&1; echo "l2 ncu rc $?"; grep "^ncu" $R/l2_ncu.log; tail -2 $R/l2_ncu.log
