#!/usr/bin/env bash
# The access-mix run, part b (2026-12-02): the GPU tests of Lab 1 with the three DRAM mixes
# (each verified; a launch that does no work refused), and exercise 3's recording measured
# again in one session against the new dram (python -m rooflinelib.exercises.ex03_place_kernel).
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/mixes_b; mkdir -p $R
timeout 240 python3 -m pytest -q -m gpu tests/test_measure_gpu.py -k "ceilings_on or no_work" -p no:cacheprovider -rs > $R/gpu_tests.log 2>&1; echo "gpu tests rc $?"; tail -n 6 $R/gpu_tests.log
timeout 150 python3 -m rooflinelib.exercises.ex03_place_kernel > $R/ex03_recording.json 2> $R/ex03_record.log; echo "ex03 rc $?"; grep -A3 '"ceilings"' $R/ex03_recording.json
