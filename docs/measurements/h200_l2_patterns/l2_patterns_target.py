"""One verified launch of the working-set read per (access, pattern, working set), to run under
ncu (2026-11-30, output in ncu_l2_patterns.csv, read in docs/measurements/history.md):

    ncu --clock-control none --cache-control all --csv --page raw --print-units base \
        -k regex:ws_read --metrics gpu__time_duration.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,\
        l1tex__m_xbar2l1tex_read_bytes.sum,l1tex__t_sector_hit_rate.pct,\
        lts__t_sector_op_read_hit_rate.pct,dram__bytes_read.sum \
        python3 benchmarks/h200_l2_probe/l2_patterns_target.py
"""
import math, os, sys
sys.path.insert(0, os.getcwd())
import numpy as np
from rooflinelib.hierarchy import workingset as ws
from rooflinelib.measure.expected import expected_gpu_sums, gpu_data
from rooflinelib.measure.workingset_kernels import read_kernel, BLOCK, CHUNK_BYTES
gpu, _ = ws._gpu()
MIB = 2 ** 20
cases = [("global-cg", "spread", 16), ("global-cg", "spread", 31), ("global", "spread", 16), ("global", "spread", 31),
         ("global-cg", "slices", 16), ("global", "slices", 16)]
data = gpu.upload(gpu_data(31 * MIB // CHUNK_BYTES))
for access, pattern, mib in cases:
    k = read_kernel(access, pattern).compile()
    grid = gpu.sm_count * gpu.resident_blocks_per_sm(k, BLOCK)
    n = mib * MIB // CHUNK_BYTES
    n_pass = max(int(math.ceil(2e9 / (grid * CHUNK_BYTES))), int(math.ceil(n / grid)))
    out = gpu.empty(4 * grid * BLOCK, "fp32")
    k[grid, BLOCK](data, out, np.int32(n), np.int32(n_pass)); gpu.synchronize()
    got = gpu.host(out).astype(np.float64).reshape(grid * BLOCK, 4)
    assert np.array_equal(got, expected_gpu_sums(n, n_pass, grid, pattern))
    print(access, pattern, mib, grid, n_pass, grid * n_pass * CHUNK_BYTES, file=sys.stderr, flush=True)
