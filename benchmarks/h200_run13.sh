#!/usr/bin/env bash
# Run 13 (2026-12-01): the profiler on the H200.
#   1. Lab 1 (with its link ceilings), stored as the run's ceilings;
#   2. the profiles notebook 07 ships (softmax 3-pass and fused, naive and tiled GEMM), ncu counters;
#   3. profile() against cupyx.profiler.benchmark and triton.testing.do_bench, side by side;
#   4. the GPU test lanes of the profiler and of the measurement engine;
#   5. notebook 06's live path: the step roofs measured on this GPU.
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/run13; mkdir -p $R
date -u +%FT%TZ > $R/started.txt
ncu --query-metrics 2>/dev/null | grep -i -E "pipe_tensor|inst_executed_pipe" | head -20 > $R/ncu_tensor_metrics.txt
timeout 90 python3 -m rooflinelib measure --backend numba --quiet --out $R/lab1.json > $R/lab1.log 2>&1; echo "lab1 rc $?"
timeout 240 python3 benchmarks/record_profiles.py $R/lab1.json $R/h200_profiles_numba.json > $R/profiles.log 2>&1; echo "profiles rc $?"; tail -n 30 $R/profiles.log
timeout 150 python3 benchmarks/profile_vs_references.py $R/timing.json > $R/timing.log 2>&1; echo "timing rc $?"; tail -n 8 $R/timing.log
timeout 200 python3 -m pytest -q -m gpu tests/test_profiling_gpu.py tests/test_measure_gpu.py -p no:cacheprovider > $R/gpu_tests.log 2>&1; echo "gpu tests rc $?"; tail -n 15 $R/gpu_tests.log
timeout 60 python3 - > $R/step_roofs_live.log 2>&1 <<'PY'
from rooflinelib import step_roofs, tables, widget_state
from rooflinelib.modes import detect_mode
mode = detect_mode()
print(mode.describe())
roofs = step_roofs.step_roofs_for(mode)
print(roofs.origin, roofs.message)
print(tables.step_roofs_text(roofs))
print(widget_state.link_step_state(roofs, n_params=10**6, tokens=4096, bytes_per_token=768).text())
PY
echo "step roofs rc $?"; tail -n 12 $R/step_roofs_live.log
date -u +%FT%TZ > $R/finished.txt
( cd $OUT && tar czf run13.tgz run13 )
