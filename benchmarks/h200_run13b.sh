#!/usr/bin/env bash
# Run 13b: profile()'s timing again, now queueing its timed calls back to back, beside
# cupyx.profiler.benchmark, triton.testing.do_bench and the same events waiting after each
# call; then the profiler's GPU lane (the torch GEMM now with ncu counters).
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/run13b; mkdir -p $R
date -u +%FT%TZ > $R/started.txt
timeout 200 python3 benchmarks/profile_vs_references.py $R/timing.json > $R/timing.log 2>&1; echo "timing rc $?"; tail -n 8 $R/timing.log
timeout 200 python3 -m pytest -q -m gpu tests/test_profiling_gpu.py -p no:cacheprovider > $R/gpu_tests.log 2>&1; echo "gpu tests rc $?"; tail -n 15 $R/gpu_tests.log
date -u +%FT%TZ > $R/finished.txt
( cd $OUT && tar czf run13b.tgz run13b )
