"""The Numba GPU engine's host side (launch shapes, poisoning, checks, result assembly) run
end to end in the CUDA simulator on a pretend 1-SM GPU.  The simulator gives no timing, so a
fixed fake timing stands in for the device events; only the plumbing is under test here.
Prints one JSON line: the ceilings and sweep results.  Run by tests/test_measure_sim.py.
"""
import json
import os

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"

import numpy as np  # noqa: E402

from rooflinelib.measure import engine  # noqa: E402
from rooflinelib.measure.timing import Timing  # noqa: E402

engine.COPY_CONFIGS = ((1, 32), (2, 32))
engine.FP32_CONFIGS = ((4, 2),)
engine.BLOCK = 32


class TinyGpu(engine.NumbaGpu):
    def __init__(self):  # the simulator's device has no attributes to read
        from numba import cuda
        from rooflinelib.measure import kernels_numba
        self.cuda, self.kn = cuda, kernels_numba
        self.sm_count, self.max_threads_per_sm, self.cc = 1, 64, (9, 0)
        self.device_name = "simulated GPU"

    def device_facts(self):
        return {"name": self.device_name, "kind": "gpu", "sm_count": 1,
                "compute_capability": "9.0"}

    def poison(self, x):
        x.copy_to_device(np.full(x.shape, np.nan, x.dtype))

    def time(self, launch, repeats=None):
        launch()
        return Timing((1e-3, 1e-3, 1.1e-3))

    def shared(self, progress=None, unroll=4, n_pass=2):
        return super().shared(progress, unroll=unroll, n_pass=n_pass)

    def l2(self, progress=None):  # two working sets: 2 and 3 chunks, a few passes each
        from rooflinelib.workingset_kernels import CHUNK_BYTES
        return super().l2(progress, working_sets=(2 * CHUNK_BYTES, 3 * CHUNK_BYTES),
                          bytes_per_launch=2 * CHUNK_BYTES)

    def sfu(self, progress=None, chains=4, unroll=2, n_iter=2):
        return super().sfu(progress, chains=chains, unroll=unroll, n_iter=n_iter)


gpu = TinyGpu()
gpu.kn.SHARED_FLOATS = gpu.kn.SHARED_FLOATS  # kept: 4096 floats, 1024 vectors
lines = []
m = {
    "dram": gpu.dram(1024 * 16 * 2, lines.append),
    "fp32": gpu.fma_peak("fp32", engine.FP32_CONFIGS, 2, lines.append),
    "fp64": gpu.fma_peak("fp64", ((4, 2),), 2, lines.append),
    "l2": gpu.l2(lines.append),
    "shared": gpu.shared(lines.append),
    "sfu": gpu.sfu(lines.append),
}
n, x, y = gpu.sweep_buffers(64 * 16)
rows = [gpu.sweep_point(k, n, x, y, vectors_per_thread=v).ceiling_row()
        for k in (0, 1, 70) for v in (1, 4)]
# the default: every configuration of engine.SWEEP_VECTOR_CONFIGS at each K, the fastest kept
chosen = {k: gpu.sweep_point(k, n, x, y).detail() for k in (0, 70)}
print(json.dumps({"ceilings": {k: v.ceiling_row() for k, v in m.items()},
                  "details": {k: v.detail() for k, v in m.items()},
                  "sweep": rows, "sweep_chosen": chosen, "progress": lines}))
