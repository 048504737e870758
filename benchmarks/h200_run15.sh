#!/usr/bin/env bash
# Run 15 (2026-12-01): the GPU test lanes at the end of the session (measurement engine,
# profiler, all-reduce workers on one rank, CuPy's NCCL included), and notebook 07's live GPU
# path, its code cells run in order without Jupyter (benchmarks/run_notebook_cells.py).
set -u
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD/.site:$PWD
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/run15; mkdir -p $R
date -u +%FT%TZ > $R/started.txt
timeout 300 python3 -m pytest -q -m gpu tests/test_measure_gpu.py tests/test_profiling_gpu.py tests/test_allreduce_gpu.py -p no:cacheprovider -rs > $R/gpu_tests.log 2>&1; echo "gpu tests rc $?"; tail -n 12 $R/gpu_tests.log
timeout 240 python3 benchmarks/run_notebook_cells.py notebooks/07_place_your_kernel.ipynb > $R/notebook07_gpu.log 2>&1; echo "notebook 07 rc $?"; grep -E "^Mode|Profiled|predicted|PASS|TRY|WRONG|failed|Error" $R/notebook07_gpu.log | head -30
date -u +%FT%TZ > $R/finished.txt
( cd $OUT && tar czf run15.tgz run15 )
