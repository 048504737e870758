#!/usr/bin/env bash
# Run 17 (2026-12-02): notebook 07's GEMMs with threadIdx.x on the column, recorded again with the
# softmax pair on a Lab 1 measured first (benchmarks/record_profiles.py), then the four GEMM
# variants (row- and column-mapped) side by side with their access counters
# (benchmarks/gemm_counters.py: sectors per request, shared passes and bank conflicts).
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/run17; mkdir -p $R
timeout 110 python3 -m rooflinelib measure --backend numba --quiet --out $R/lab1.json > $R/lab1.log 2>&1; echo "lab1 rc $?"
timeout 120 python3 benchmarks/record_profiles.py $R/lab1.json $R/h200_profiles_numba.json > $R/profiles.log 2>&1; echo "profiles rc $?"; grep -E "^(softmax|gemm)|wrote|ncu:" $R/profiles.log
timeout 150 python3 benchmarks/gemm_counters.py $R/h200_gemm_counters_numba.json > $R/gemm.log 2>&1; echo "gemm rc $?"; cut -c1-600 $R/gemm.log | tail -12
