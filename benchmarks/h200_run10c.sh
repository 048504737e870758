#!/usr/bin/env bash
# Run 10, part C: the matrix ceilings on both backends again, 16 alternating rounds of 20 timed
# launches (part B's 8 rounds of 5 left tf32 at 1.030, round ratios 0.977-1.096, at the power cap).
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
R=$OUT/run10c; mkdir -p $R
date -u +%FT%TZ > $R/started.txt
timeout 300 python3 benchmarks/matrix_backends.py $R > $R/matrix_backends.log 2>&1; echo "rc $?"; cat $R/matrix_backends.log
date -u +%FT%TZ > $R/finished.txt
