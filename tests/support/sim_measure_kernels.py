"""Runs every Numba-CUDA measurement kernel in the CUDA simulator at tiny sizes, counting the
FMAs, exp2s and 16-byte accesses each one really performs, and prints one JSON line per kernel.

Run by tests/measure/test_measure_sim.py in a subprocess, because the simulator must be switched on
before numba is imported (and the PTX tests need it off).
"""
import json
import math
import os
import sys

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

import numpy as np  # noqa: E402

from rooflinelib.measure import accounting as acc  # noqa: E402
from rooflinelib.measure import expected  # noqa: E402
from rooflinelib.measure import gpu_backends  # noqa: E402
from rooflinelib.measure import kernels_numba as kn  # noqa: E402
from rooflinelib.measure import workingset_kernels as wk  # noqa: E402

COUNTS = {"fma": 0, "exp2": 0, "load16": 0, "store16": 0}


def counting(name, fn):
    def wrapper(*args):
        COUNTS[name] += 1
        return fn(*args)
    return wrapper


# The kernels look these names up at call time: cuda.* on the simulator's fake module, the
# rest in their own module's globals and in math.
from numba.cuda.simulator.kernelapi import FakeCUDAModule  # noqa: E402

FakeCUDAModule.fma = counting("fma", FakeCUDAModule.fma)
math.exp2 = counting("exp2", math.exp2)
kn.load4 = counting("load16", kn.load4)
kn.store4 = counting("store16", kn.store4)
kn.load4_cg = counting("load16", kn.load4_cg)
# The working-set kernels capture their loader when first built.
wk.load4_cg = counting("load16", wk.load4_cg)
wk.store4 = counting("store16", wk.store4)


def run(name, fn):
    for key in COUNTS:
        COUNTS[key] = 0
    try:
        record = fn()
    except Exception as exc:  # reported, so the test names the kernel that broke
        record = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    record.update(name=name, counts=dict(COUNTS))
    print(json.dumps(record), flush=True)


GRID, BLOCK = 2, 32
THREADS = GRID * BLOCK


def copy(vpt):
    n_vec = THREADS * vpt
    src = expected.fill_values(np.arange(4 * n_vec)).astype(np.float32)
    dst = np.full_like(src, np.nan)
    kn.copy_kernel(vpt).compile()[GRID, BLOCK](src, dst)
    work = acc.copy_work(n_vec)
    return {"ok": bool(np.array_equal(src, dst)), "n_bytes": work.n_bytes,
            "n_flops": work.n_flops, "counted_bytes": 16 * (COUNTS["load16"] + COUNTS["store16"])}


def dram_read(unroll):
    """Two blocks walk 300 vectors: two whole trips of 2 x 32 x unroll and a ragged tail."""
    n_vec = 300
    x = expected.read_values(np.arange(4 * n_vec)).astype(np.float32)
    out = np.full(4 * GRID, np.nan, np.float32)
    kn.dram_read_kernel(unroll, BLOCK).compile()[GRID, BLOCK](x, out)
    work = acc.dram_read_work(4 * n_vec)
    got = float(out.astype(np.float64).sum())
    return {"ok": got == expected.read_sum(4 * n_vec), "n_bytes": work.n_bytes, "n_flops": work.n_flops,
            "counted_bytes": 16 * (COUNTS["load16"] + COUNTS["store16"] - GRID), "stores": COUNTS["store16"]}


def dram_write(vpt):
    n_vec = THREADS * vpt
    x = np.full(4 * n_vec, np.nan, np.float32)
    kn.dram_write_kernel(vpt).compile()[GRID, BLOCK](x)
    work = acc.dram_write_work(4 * n_vec)
    want = expected.write_values(np.arange(4 * n_vec)).astype(np.float32)
    return {"ok": bool(np.array_equal(x, want)), "n_bytes": work.n_bytes, "n_flops": work.n_flops,
            "counted_bytes": 16 * (COUNTS["load16"] + COUNTS["store16"])}


def fill_read():
    x = np.full(1000, np.nan, np.float32)
    kn.fill_read_kernel().compile()[GRID, BLOCK](x)
    return {"ok": bool(np.array_equal(x, expected.read_values(np.arange(1000)).astype(np.float32)))}


def write_mismatches():
    x = expected.write_values(np.arange(1000)).astype(np.float32)
    x[[3, 500, 999]] += np.float32(1)
    count = np.zeros(1, np.int32)
    kn.write_mismatch_kernel().compile()[GRID, BLOCK](x, count)
    return {"ok": int(count[0]) == 3, "count": int(count[0])}


def fma_peak(dtype):
    chains, unroll, n_iter = 8, 2, 3
    ftype = np.float32 if dtype == "fp32" else np.float64
    out = np.full(THREADS, np.nan, ftype)
    kn.fma_peak_kernel(dtype, chains, unroll, n_iter).compile()[GRID, BLOCK](out, ftype(1), ftype(0))
    want = expected.fma_peak_expected(np.arange(THREADS), chains)
    work = acc.fma_peak_work(THREADS, n_iter, unroll, chains)
    return {"ok": bool(np.array_equal(out, want)), "dtype": str(out.dtype),
            "n_flops": work.n_flops, "counted_flops": 2 * COUNTS["fma"]}


def sweep(k):
    n_vec = THREADS
    x = expected.fill_values(np.arange(4 * n_vec)).astype(np.float32)
    y = np.full_like(x, np.nan)
    kn.sweep_kernel(k).compile()[GRID, BLOCK](x, y, np.float32(1), np.float32(0))
    work = acc.sweep_work(4 * n_vec, k)
    return {"ok": bool(np.array_equal(x.view(np.uint32), y.view(np.uint32))), "k": k,
            "n_flops": work.n_flops, "n_bytes": work.n_bytes, "intensity": work.intensity,
            "counted_flops": 2 * COUNTS["fma"],
            "counted_bytes": 16 * (COUNTS["load16"] + COUNTS["store16"])}


def sweep_pipelined(k):
    n_vec = 140  # two blocks of 32 threads, each walking a chunk of 70 vectors: a ragged last step
    x = expected.fill_values(np.arange(4 * n_vec)).astype(np.float32)
    y = np.full_like(x, np.nan)
    kn.sweep_pipelined_kernel(k).compile()[GRID, BLOCK](x, y, np.float32(1), np.float32(0))
    work = acc.sweep_work(4 * n_vec, k)
    return {"ok": bool(np.array_equal(x.view(np.uint32), y.view(np.uint32))), "k": k,
            "n_flops": work.n_flops, "n_bytes": work.n_bytes, "intensity": work.intensity,
            "counted_flops": 2 * COUNTS["fma"],
            "counted_bytes": 16 * (COUNTS["load16"] + COUNTS["store16"])}


def l2():
    """The L2 ceiling's kernel as the engine launches it (ld.global.cg, short blocks): 2 groups
    of 4 chunks, 6 blocks, so that three blocks read each group, starting at different pairs."""
    groups, iters, grid = 2, 4, 6
    data = expected.gpu_data(groups * iters + 1)  # one chunk more than read: an overrun is caught
    out = np.full(4 * grid, np.nan, np.float32)
    kn.l2_slab_kernel().compile()[grid, acc.WS_BLOCK](data, out, np.int32(groups), np.int32(iters))
    want = expected.l2_slab_expected(groups, iters, grid)
    return {"ok": bool(np.array_equal(out.reshape(grid, 4).astype(np.float64), want)),
            "n_bytes": float(grid * iters * acc.CHUNK_BYTES), "counted_bytes": 16 * COUNTS["load16"],
            "stores": COUNTS["store16"], "grid": grid}


def shared():
    unroll, n_pass = 4, 3
    n_vec = kn.SHARED_FLOATS // 4
    data = (np.arange(kn.SHARED_FLOATS) % 5).astype(np.float32)
    out = np.full(4 * THREADS, np.nan, np.float32)
    kn.shared_read_kernel(unroll).compile()[GRID, BLOCK](data, out, np.int32(n_pass), np.int32(n_vec - 1))
    want = expected.shared_expected(data.reshape(n_vec, 4).astype(np.float64), BLOCK, n_pass, unroll)
    got = out.reshape(GRID, BLOCK, 4)
    work = acc.read_work(THREADS, n_pass * unroll)
    return {"ok": bool(all(np.array_equal(got[b], want) for b in range(GRID))),
            "n_bytes": work.n_bytes, "counted_bytes": 16 * COUNTS["load16"]}


def sfu():
    chains, unroll, n_iter = 4, 2, 3
    out = np.full(THREADS, np.nan, np.float32)
    kn.sfu_kernel(chains, unroll, n_iter).compile()[GRID, BLOCK](out, np.float32(0))
    want = expected.sfu_expected(np.arange(THREADS), chains, n_iter * unroll)
    work = acc.sfu_work(THREADS, n_iter, unroll, chains)
    return {"ok": bool(np.array_equal(out, want)), "n_flops": work.n_flops,
            "counted_flops": COUNTS["exp2"]}


def fill():
    x = np.full(1000, np.nan, np.float32)
    kn.fill_kernel().compile()[GRID, BLOCK](x)
    return {"ok": bool(np.array_equal(x, expected.fill_values(np.arange(1000))))}


def mismatches():
    a = expected.fill_values(np.arange(500)).astype(np.float32)
    b = a.copy()
    b[[3, 100, 499]] += 1
    count = np.zeros(1, np.int32)
    kn.mismatch_kernel().compile()[GRID, BLOCK](a, b, count)
    same = np.zeros(1, np.int32)
    kn.mismatch_kernel().compile()[GRID, BLOCK](a, a.copy(), same)
    return {"ok": int(count[0]) == 3 and int(same[0]) == 0, "count": int(count[0])}


if __name__ == "__main__":
    for v in (1, 2, 4):
        run(f"copy x{v}", lambda v=v: copy(v))
    for u in (2, 4):
        run(f"dram_read x{u}", lambda u=u: dram_read(u))
    for v in (1, 4):
        run(f"dram_write x{v}", lambda v=v: dram_write(v))
    run("fill_read", fill_read)
    run("count_write_mismatches", write_mismatches)
    for d in ("fp32", "fp64"):
        run(f"fma_peak {d}", lambda d=d: fma_peak(d))
    for k in (0, 1, 3, 64, 70, 130):
        run(f"sweep k={k}", lambda k=k: sweep(k))
    for k in (0, 1, 70):
        run(f"sweep_pipelined k={k}", lambda k=k: sweep_pipelined(k))
    run("l2_slab", l2)
    run("shared_read", shared)
    run("sfu", sfu)
    run("fill", fill)
    run("count_mismatches", mismatches)
    sys.exit(0)
