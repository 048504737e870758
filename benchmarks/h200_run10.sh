#!/usr/bin/env bash
# Benchmark run 10 (2026-12-01), part A: the L2 against gpu-benches under ncu, then every
# engine target side by side (benchmarks/measure_h200.py), in one call on the H200.
# gpu-benches is built here from its public source, carried in .peers/ and never committed.
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/run10
mkdir -p $R
date -u +%FT%TZ > $R/started.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv > $R/smi_before.csv
( cd .peers/gpu-benches/gpu-l2-cache && sed -i 's/-arch=sm_70/-arch=sm_90/' Makefile && make -s > /dev/null 2>&1 ) || echo "peer build failed"
timeout 240 python3 benchmarks/l2_vs_peer.py $R .peers/gpu-benches/gpu-l2-cache/cuda-l2-cache > $R/l2_vs_peer.log 2>&1; echo "l2 vs peer rc $?"; cat $R/l2_vs_peer.log
timeout 420 python3 benchmarks/measure_h200.py $R > $R/measure_h200.log 2>&1; echo "measure rc $?"
sed -n '/== targets/,$p' $R/measure_h200.log
date -u +%FT%TZ > $R/finished.txt
rm -f $R/ncu_*.csv  # large raw logs: the parsed rows are in l2_vs_peer.json
( cd $OUT && tar czf run10a.tgz --remove-files run10 )
