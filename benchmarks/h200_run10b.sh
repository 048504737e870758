#!/usr/bin/env bash
# Benchmark run 10 (2026-12-01), part B: the experiments recorded for the notebooks, Lab 4's
# kernels under ncu with the L2's sectors by source unit, and the GPU test lane.
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/run10b
mkdir -p $R
date -u +%FT%TZ > $R/started.txt
timeout 200 python3 benchmarks/matrix_backends.py $R > $R/matrix_backends.log 2>&1; echo "matrix backends rc $?"; cat $R/matrix_backends.log
timeout 300 python3 benchmarks/record_experiments.py --out $R/h200_experiments_numba.json > $R/experiments.log 2>&1; echo "experiments rc $?"
grep -E "^== |FAILED|GFLOP/s|us per|ms," $R/experiments.log | head -60
M=lts__t_bytes.sum,l1tex__t_bytes.sum,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_gcc.sum,lts__t_sectors_srcnode_gpc.sum
timeout 200 ncu --clock-control none --csv --page raw --metrics $M --log-file $R/lab4_srcunit.csv python3 labs/lab4_target.py --analytic $R/lab4_analytic.json > $R/lab4.log 2>&1; echo "lab4 srcunit rc $?"
timeout 200 python3 -m pytest -q -m gpu tests/test_measure_gpu.py -p no:cacheprovider > $R/gpu_tests.log 2>&1; echo "gpu tests rc $?"; tail -3 $R/gpu_tests.log
date -u +%FT%TZ > $R/finished.txt
( cd $OUT && tar czf run10b.tgz --remove-files run10b )
