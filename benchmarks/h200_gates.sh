#!/usr/bin/env bash
# Issue 27 on the H200 (one device call): Lab 1 stored once, then benchmarks/gate_targets.py
# (20 gates of the CuPy copy at 0.9 and of a copy slowed to about 60% at 0.7, on the stored
# Lab 1 and on its copy mix; the recorded gates for notebook 06), then the GPU gate tests.
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
export ROOFLINE_RESULTS_DIR=$OUT/results
mkdir -p $ROOFLINE_RESULTS_DIR
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu_before.txt 2>&1
timeout 110 python3 -m rooflinelib measure --backend numba --quiet > $OUT/lab1.log 2>&1; echo "lab1 rc $?"
CEIL=""; test -f $ROOFLINE_RESULTS_DIR/ceilings_numba.json && CEIL="--ceilings $ROOFLINE_RESULTS_DIR/ceilings_numba.json"
timeout 120 python3 benchmarks/gate_targets.py --backend cupy $CEIL --out $OUT/gate_targets_h200.json \
    --record $OUT/h200_gates_cupy.json > $OUT/gates.log 2>&1; echo "gates rc $?"
grep -vE "^    " $OUT/gates.log | tail -8
timeout 50 python3 -m pytest -q -m gpu tests/test_gates_gpu.py -p rooflinelib.pytest_plugin -p no:cacheprovider --noconftest -rA \
    > $OUT/gpu_tests.log 2>&1; echo "gpu tests rc $?"; tail -n 14 $OUT/gpu_tests.log
