#!/usr/bin/env bash
# Run 11 (2026-12-01): the host <-> device ceilings against torch and CuPy on the same pinned
# buffers, and the GPU test lane with the new ceilings.
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
R=$OUT/run11; mkdir -p $R
date -u +%FT%TZ > $R/started.txt
timeout 240 python3 benchmarks/pcie_vs_references.py $R > $R/pcie.log 2>&1; echo "pcie rc $?"; tail -8 $R/pcie.log
timeout 200 python3 -m pytest -q -m gpu tests/test_measure_gpu.py -p no:cacheprovider > $R/gpu_tests.log 2>&1; echo "gpu tests rc $?"; tail -3 $R/gpu_tests.log
date -u +%FT%TZ > $R/finished.txt
