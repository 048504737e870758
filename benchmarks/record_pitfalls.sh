#!/usr/bin/env bash
# The pitfalls run (last recorded 2026-12-01, run 12).  Four experiments of rooflinelib.experiments, each
# verified before any time is kept, recorded into one rooflinelib-experiments file that the
# course ships as rooflinelib/data/h200_pitfalls_numba.json (record.recorded_experiments reads
# it beside the main run):
#   launch_empty     pitfall 1: an empty kernel by device events, by the wall clock around a
#                    launch and its synchronize, and back to back; the tiny add beside it
#   wrong_ceiling    pitfall 4: one GEMM shape (16384 x 16384 x 128) as SGEMM on the CUDA cores
#                    and as bf16 on the tensor cores, with the fp32, DRAM and bf16 roofs
#   algorithm_sizes  pitfall 7: direct correlation against cuFFT at four filter lengths
#   sustained        pitfall 8: a bf16 GEMM held for 120 s, clock and power per window, the
#                    short microbenchmark before and after
#
#   OUT=DIR bash benchmarks/record_pitfalls.sh     # from the repository root, on a GPU
#
# Expected about 4 minutes on the H200, at most 7.5.  Everything lands in one tar file under
# $OUT (default: the current folder); copy its h200_pitfalls_numba.json into rooflinelib/data/.
# Wheels in .whl/ (for a GPU machine without a package index) are installed into .site/ first.
set -u
OUT=${OUT:-.}
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
fi
export PYTHONPATH=$PWD/.site:$PWD
R=$OUT/run12; mkdir -p $R
date -u +%FT%TZ > $R/started.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu \
  --format=csv > $R/smi_before.csv 2>&1
# One process per experiment: a CUDA error poisons its process's context, not the next one's.
for spec in "launch_empty 60" "wrong_ceiling 90" "algorithm_sizes 100" "sustained 190"; do
  set -- $spec
  timeout $2 python3 benchmarks/record_experiments.py --only $1 --out $R/part_$1.json > $R/$1.log 2>&1
  echo "$1 rc $?"; tail -n 12 $R/$1.log
done
timeout 30 python3 - "$R" > $R/merge.log 2>&1 <<'EOF'
import sys
from pathlib import Path
from rooflinelib.views import tables
from rooflinelib.experiments import pitfall_readings as readings, record
R = Path(sys.argv[1])
found = [e for p in sorted(R.glob("part_*.json")) for e in record.load_experiments(p).values()]
if not found:
    sys.exit("no experiment recorded")
record.save_experiments(found, R / "h200_pitfalls_numba.json")
print("wrote h200_pitfalls_numba.json:", ", ".join(e.name for e in found))
for e in found:
    print(f"== {e.name}\n{getattr(readings, e.name)(e)}")
    if e.name == "sustained":
        print("\n".join(str(row) for row in readings.sustained_rows(e)))
EOF
echo "merge rc $?"; cat $R/merge.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu \
  --format=csv > $R/smi_after.csv 2>&1
date -u +%FT%TZ > $R/finished.txt
( cd $OUT && tar czf run12_pitfalls.tgz --remove-files run12 )
