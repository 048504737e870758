"""The Numba GPU backend's host side (launch shapes, poisoning, checks, result assembly) run
end to end in the CUDA simulator on a pretend 1-SM GPU, through the registry and the
verified-run protocol as Lab 1 and Lab 3 use them.  The simulator gives no timing, so a fixed
fake timing stands in for the device events; only the plumbing is under test here.
Prints one JSON line: the ceilings and sweep results.  Run by tests/measure/test_measure_sim.py.
"""
import json
import os

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"

import numpy as np  # noqa: E402

from rooflinelib.measure import gpu_backends, registry  # noqa: E402
from rooflinelib.measure.accounting import CHUNK_BYTES  # noqa: E402
from rooflinelib.measure.provenance import NoClock  # noqa: E402
from rooflinelib.measure.sweep import sweep_point  # noqa: E402
from rooflinelib.measure.timing import Timing  # noqa: E402

gpu_backends.COPY_CONFIGS = ((1, 32), (2, 32))
gpu_backends.READ_CONFIGS = ((2, 32), (4, 32))
gpu_backends.WRITE_CONFIGS = ((1, 32), (2, 32))
gpu_backends.FP32_CONFIGS = ((4, 2),)
gpu_backends.FP32_ITER = gpu_backends.FP64_ITER = 2
gpu_backends.FP64_CONFIGS = ((4, 2),)
gpu_backends.BLOCK = 32


class TinyGpu(gpu_backends.NumbaGpu):
    def __init__(self):  # the simulator's device has no attributes to read
        from numba import cuda
        from rooflinelib.measure import kernels_numba
        self.cuda, self.kn = cuda, kernels_numba
        self.sm_count, self.max_threads_per_sm, self.cc = 1, 64, (9, 0)
        self.device_name = "simulated GPU"
        self.l2_bytes = None

    def device_facts(self):
        return {"name": self.device_name, "kind": "gpu", "sm_count": 1,
                "compute_capability": "9.0"}

    def poison(self, x):
        x.copy_to_device(np.full(x.shape, np.nan, x.dtype))

    def time(self, launch, repeats=None):
        launch()
        return Timing((1e-3, 1e-3, 1.1e-3))

    def clock_sampler(self):
        return NoClock()

    def shared_runs(self, unroll=4, n_pass=2):
        return super().shared_runs(unroll=unroll, n_pass=n_pass)

    def l2_runs(self, working_sets=None):  # two working sets of 1 and 2 groups of 2 chunks
        return super().l2_runs(working_sets=(2 * CHUNK_BYTES, 4 * CHUNK_BYTES), iters=2,
                               bytes_per_launch=8 * CHUNK_BYTES)

    def sfu_runs(self, chains=4, unroll=2, n_iter=2):
        return super().sfu_runs(chains=chains, unroll=unroll, n_iter=n_iter)

    def link_runs(self, direction):  # 16 KiB pinned, 4 KiB pageable, the same buffers both ways
        return super().link_runs(direction, size_bytes=16 * 1024, pageable_bytes=4 * 1024)


gpu = TinyGpu()
lines = []
options = registry.Options(1024 * 16 * 2, progress=lines.append)
m = {name: registry.get(name).measure(gpu, options)
     for name in ("dram-read", "dram-write", "dram-copy", "dram", "fp32", "fp64", "l2", "shared", "sfu",
                  "pcie-h2d", "pcie-d2h")}
buffers = gpu.sweep_buffers(64 * 16)
rows = [sweep_point(gpu, k, buffers, vectors_per_thread=v).ceiling_row()
        for k in (0, 1, 70) for v in (1, 4)]
# the default: every configuration of engine.SWEEP_VECTOR_CONFIGS at each K, the fastest kept
chosen = {k: sweep_point(gpu, k, buffers).detail() for k in (0, 70)}
link_buffers = len(gpu._link_cache)
print(json.dumps({"link_buffers": link_buffers, "ceilings": {k: v.ceiling_row() for k, v in m.items()},
                  "details": {k: v.detail() for k, v in m.items()},
                  "sweep": rows, "sweep_chosen": chosen, "progress": lines, "notes": options.notes}))
