#!/usr/bin/env bash
# Run 16 (2026-12-01): the profiles notebook 07 ships, recorded again now that profile() makes
# one untimed call before its first start event (run 14's first intervals held a dispatch:
# spreads of 41% and 140% around medians that matched ncu), Lab 1 measured first.
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/run16; mkdir -p $R
timeout 90 python3 -m rooflinelib measure --backend numba --quiet --out $R/lab1.json > $R/lab1.log 2>&1; echo "lab1 rc $?"
timeout 240 python3 benchmarks/record_profiles.py $R/lab1.json $R/h200_profiles_numba.json > $R/profiles.log 2>&1; echo "profiles rc $?"; grep -E "^(softmax|gemm)|wrote|ncu:" $R/profiles.log
( cd $OUT && tar czf run16.tgz run16 )
