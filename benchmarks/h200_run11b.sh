#!/usr/bin/env bash
# Run 11b: Lab 1 + Lab 2 through the CLI, cold and warm, now that Lab 1 also measures the
# host <-> device ceilings (the same method as measure_h200.py's "lab timings" section), then the
# link ceilings against torch and CuPy again at Lab 1's 64 MiB.
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
R=$OUT/run11b; mkdir -p $R
export NUMBA_CACHE_DIR=/tmp/labcache CUPY_CACHE_DIR=/tmp/labcache/cupy
rm -rf /tmp/labcache
for label in cold warm; do
  t0=$(date +%s.%N)
  python3 -m rooflinelib measure --backend numba --quiet --json > $R/measure_$label.json 2> $R/measure_$label.err; echo "measure $label rc $?"
  t1=$(date +%s.%N)
  python3 -m rooflinelib sweep --backend numba --quiet --json > $R/sweep_$label.json 2> $R/sweep_$label.err; echo "sweep $label rc $?"
  t2=$(date +%s.%N)
  python3 -c "print('$label measure', round($t1-$t0,1), 's, sweep', round($t2-$t1,1), 's, total', round($t2-$t0,1), 's')" | tee -a $R/timings.txt
done
python3 -c "
import json; r=json.load(open('$R/measure_warm.json')); print([(c['name'], round(c['value'])) for c in r['ceilings']])"
timeout 150 python3 benchmarks/pcie_vs_references.py $R > $R/pcie.log 2>&1; echo "pcie rc $?"; tail -4 $R/pcie.log
( cd $OUT && tar czf run11b.tgz run11b )
