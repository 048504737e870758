#!/usr/bin/env bash
# Run 12 (links): Lab 1 + Lab 2 through the CLI, cold and warm, now that a GPU Lab 1 measures
# the host <-> device ceilings by default (buffers shared by both directions, pageable copies
# at 64 MiB); a warm Lab 1 with --no-links beside it; then the link ceilings against torch and
# CuPy on the same pinned buffers.
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
R=$OUT/run12links; mkdir -p $R
export NUMBA_CACHE_DIR=/tmp/labcache CUPY_CACHE_DIR=/tmp/labcache/cupy
rm -rf /tmp/labcache
for label in cold warm warm2; do
  t0=$(date +%s.%N)
  python3 -m rooflinelib measure --backend numba --quiet --json > $R/measure_$label.json 2> $R/measure_$label.err; echo "measure $label rc $?"
  t1=$(date +%s.%N)
  python3 -m rooflinelib sweep --backend numba --quiet --json > $R/sweep_$label.json 2> $R/sweep_$label.err; echo "sweep $label rc $?"
  t2=$(date +%s.%N)
  python3 -c "print('$label measure', round($t1-$t0,1), 's, sweep', round($t2-$t1,1), 's, total', round($t2-$t0,1), 's')" | tee -a $R/timings.txt
done
t0=$(date +%s.%N)
python3 -m rooflinelib measure --backend numba --quiet --json --no-links > $R/measure_nolinks.json 2> $R/measure_nolinks.err; echo "measure no-links rc $?"
t1=$(date +%s.%N)
python3 -c "print('warm measure --no-links', round($t1-$t0,1), 's')" | tee -a $R/timings.txt
python3 -c "
import json; r=json.load(open('$R/measure_warm.json')); print([(c['name'], round(c['value'],1)) for c in r['ceilings']])"
timeout 150 python3 benchmarks/pcie_vs_references.py $R > $R/pcie.log 2>&1; echo "pcie rc $?"; tail -4 $R/pcie.log
( cd $OUT && tar czf run12links.tgz run12links )
