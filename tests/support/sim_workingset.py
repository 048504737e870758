"""Runs the working-set kernels in the CUDA simulator at tiny sizes, counting their 16-byte
loads, and prints one JSON line per case.

Run by tests/hierarchy/test_hierarchy.py in a subprocess: the simulator must be switched on before
numba is imported (and the PTX tests need it off).
"""
import json
import os
import sys

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

import numpy as np  # noqa: E402

from rooflinelib.hierarchy import workingset as ws  # noqa: E402
from rooflinelib.measure import workingset_kernels as wk  # noqa: E402
from rooflinelib.measure.accounting import chunk_read_work  # noqa: E402
from rooflinelib.measure.expected import expected_gpu_sums, gpu_data  # noqa: E402

LOADS = {"n": 0}


def counting(fn):
    def wrapper(*args):
        LOADS["n"] += 1
        return fn(*args)
    return wrapper


# read_kernel() captures its loader when it is first built, the shared kernel looks load4 up
# in the module at run time: replacing both names before any kernel is built covers both.
wk.load4 = counting(wk.load4)
wk.load4_cg = counting(wk.load4_cg)


def case(name, kernel, n_chunks, n_pass, grid, pattern="spread"):
    LOADS["n"] = 0
    data = gpu_data(n_chunks + 1)  # one chunk more than read: a kernel overrunning it is caught
    out = np.full(4 * grid * wk.BLOCK, np.nan, np.float32)
    kernel.compile()[grid, wk.BLOCK](data, out, np.int32(n_chunks), np.int32(n_pass))
    want = expected_gpu_sums(n_chunks, n_pass, grid, pattern)
    got = out.reshape(grid * wk.BLOCK, 4).astype(np.float64)
    print(json.dumps({"name": name, "ok": bool(np.array_equal(got, want)),
                      "wrong": int(np.count_nonzero(got != want)),
                      "loaded_bytes": 16 * LOADS["n"],
                      "accounted_bytes": chunk_read_work(grid, n_pass, wk.CHUNK_BYTES).n_bytes}), flush=True)


def tiny_gpu():
    """A pretend one-SM GPU for the engine's host code.  The simulator has no timing, so a
    fixed fake timing stands in for the device events."""
    from rooflinelib.measure import gpu_backends
    from rooflinelib.measure.timing import Timing

    class TinyGpu(gpu_backends.NumbaGpu):
        def __init__(self):  # the simulator's device has no attributes to read
            from numba import cuda
            from rooflinelib.measure import kernels_numba
            self.kn = kernels_numba
            self.cuda, self.sm_count, self.max_threads_per_sm, self.cc = cuda, 1, wk.BLOCK, (9, 0)
            self.device_name = "simulated GPU"

        def device_facts(self):
            return {"name": self.device_name, "kind": "gpu", "sm_count": 1}

        def warm_up(self, seconds=0.0):
            pass

        def poison(self, x):
            x.copy_to_device(np.full(x.shape, np.nan, x.dtype))

        def time(self, launch, repeats=None):
            launch()
            return Timing((1e-3, 1e-3, 1.1e-3))

    return TinyGpu()


def plumbing():
    """measure_gpu end to end on the pretend GPU: launch shapes, checks, the result file."""
    ws._gpu = lambda: (tiny_gpu(), {"l2": 2 * wk.CHUNK_BYTES, "shared": 64 * 1024})
    result = ws.measure_gpu(sizes=[wk.CHUNK_BYTES, 2 * wk.CHUNK_BYTES, 3 * wk.CHUNK_BYTES],
                            series=(("global", "spread", None), ("global-cg", "slices", 2 * wk.CHUNK_BYTES),
                                    ("shared", "tiles", None)),
                            bytes_per_launch=2 * wk.CHUNK_BYTES, repeats=3)
    print(json.dumps({"name": "plumbing", "ok": True, "result": result}), flush=True)


def lab4_target():
    """Lab 4's target program, its launches and analytic records, on the pretend GPU."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "labs"))
    import lab4_target as target
    gpu, records = tiny_gpu(), []
    target.sweep_launch(gpu, 3, 256 * 16, records)
    target.workingset_launch(gpu, 2, 3, records)
    target.sharing_launch(gpu, 2, records, bytes_per_launch=3 * wk.CHUNK_BYTES)
    print(json.dumps({"name": "lab4 target", "ok": True, "records": records}), flush=True)


if __name__ == "__main__":
    # 3 chunks read by 2 blocks for 4 passes: block 1 starts mid-buffer and wraps round.
    case("global 3 chunks", wk.read_kernel("global"), 3, 4, 2)
    case("global-cg 2 chunks", wk.read_kernel("global-cg"), 2, 3, 3)
    case("global 1 chunk", wk.read_kernel("global"), 1, 2, 1)
    # slices: 5 chunks over 3 blocks own 1, 2 and 2 chunks; 2 chunks over 3 blocks: one is shared
    case("global-cg slices 5 chunks", wk.read_kernel("global-cg", "slices"), 5, 5, 3, "slices")
    case("global slices 2 chunks", wk.read_kernel("global", "slices"), 2, 3, 3, "slices")
    case("shared 2 chunks", wk.shared_read_kernel(2), 2, 3, 2)
    plumbing()
    lab4_target()
    sys.exit(0)
