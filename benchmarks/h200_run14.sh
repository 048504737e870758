#!/usr/bin/env bash
# Run 14 (2026-12-01): the profiles notebook 07 ships, recorded again with profile()'s queued
# timing (Lab 1 measured first, in the same run), and the all-reduce workers on one rank
# (torch and CuPy NCCL, and the data-parallel step): what one GPU allows of the two-GPU issue.
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/run14; mkdir -p $R
date -u +%FT%TZ > $R/started.txt
timeout 90 python3 -m rooflinelib measure --backend numba --quiet --out $R/lab1.json > $R/lab1.log 2>&1; echo "lab1 rc $?"
timeout 240 python3 benchmarks/record_profiles.py $R/lab1.json $R/h200_profiles_numba.json > $R/profiles.log 2>&1; echo "profiles rc $?"; grep -E "^(softmax|gemm)|wrote" $R/profiles.log
timeout 240 python3 -m pytest -q -m gpu tests/test_allreduce_gpu.py -p no:cacheprovider -rs > $R/allreduce_tests.log 2>&1; echo "allreduce tests rc $?"; tail -n 8 $R/allreduce_tests.log
timeout 120 python3 -m rooflinelib.measure.allreduce --gpus 1 --repeats 5 > $R/allreduce_one_rank.log 2>&1; echo "one rank rc $?"; tail -n 12 $R/allreduce_one_rank.log
date -u +%FT%TZ > $R/finished.txt
( cd $OUT && tar czf run14.tgz run14 )
