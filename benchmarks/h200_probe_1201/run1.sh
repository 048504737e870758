#!/usr/bin/env bash
# First probe of 2026-12-01 on the H200: L2 read shapes under ncu against gpu-benches'
# gpu-l2-cache (built from its public source, carried in .peers/, never committed), the FMA
# chains' SASS and latency, launch costs, and the lts source-unit breakdown of Lab 4's read.
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl && export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
P=benchmarks/h200_probe_1201
NCU="ncu --clock-control none --csv --page raw"
M=lts__t_bytes.sum,l1tex__t_bytes.sum,gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex.sum
date -u +%FT%TZ > $OUT/started.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv > $OUT/smi.csv
( cd .peers/gpu-benches/gpu-l2-cache && sed -i 's/-arch=sm_70/-arch=sm_90/' Makefile && make -s > $OUT/peer_build.log 2>&1 ); echo "peer build rc $?"
# blockRun 16..50 (8-25 MB): skip the 13 smaller sets (11 launches each), profile the next 16
( cd .peers/gpu-benches/gpu-l2-cache && timeout 200 $NCU --metrics $M -k regex:sumKernel --launch-skip 143 --launch-count 176 --log-file $OUT/peer_ncu.csv ./cuda-l2-cache > $OUT/peer_stdout.txt 2>&1 ); echo "peer ncu rc $?"
timeout 120 python3 $P/l2_variants.py events $OUT/l2_variants_events.json 2> $OUT/l2_variants_events.log; echo "variants events rc $?"
timeout 150 $NCU --metrics $M -k regex:l2probe --log-file $OUT/l2_variants_ncu.csv python3 $P/l2_variants.py ncu > $OUT/l2_variants_ncu.log 2>&1; echo "variants ncu rc $?"
timeout 150 python3 $P/latency_probe.py $OUT > $OUT/latency_probe.log 2>&1; echo "latency rc $?"
ncu --query-metrics --chip gh100 2>/dev/null | grep -E '^lts__t_(sectors|requests)_src' > $OUT/lts_src_metrics.txt
SRC=$(awk '{print $1".sum"}' $OUT/lts_src_metrics.txt | grep sectors | tr '\n' ',' | sed 's/,$//')
timeout 150 $NCU --metrics lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_bytes.sum,gpu__time_duration.sum,$SRC -k regex:ws_read --log-file $OUT/lab4_ws_srcunit.csv python3 labs/lab4_target.py --analytic $OUT/lab4_analytic.json --ks 1 --small-mib 0 > $OUT/lab4_srcunit.log 2>&1; echo "srcunit rc $?"
date -u +%FT%TZ > $OUT/finished.txt
# the device returns few files: one archive
( cd $OUT && tar czf probe1.tgz --remove-files $(ls | grep -v probe1.tgz) )
