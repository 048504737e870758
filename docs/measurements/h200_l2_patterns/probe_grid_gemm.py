"""Two probes run on the H200 on 2026-11-30 before the full runs (docs/measurements/history.md):

1. occupancy of the working-set kernels, and the L2-only read ('slices') from 24 to 160 MB
   with grids of 2, 4, 6 (resident) and 8 blocks per SM -> grid_probe.json;
2. with SKIP_L2=1, cuBLAS (gemmEx through CuPy) against torch.matmul on the same operands in
   16 short paired rounds per dtype -> gemm_paired_probe.json.

    python3 benchmarks/h200_l2_probe/probe_grid_gemm.py            # writes $OUT/probe.json
"""
import json, math, os, sys, time
sys.path.insert(0, os.getcwd())
import numpy as np
OUT = os.environ.get("OUT", ".")
res = {}
from rooflinelib.hierarchy import workingset as ws
from rooflinelib.measure.expected import gpu_data
from rooflinelib.measure.workingset_kernels import (read_kernel, shared_read_kernel, BLOCK,
                                                    CHUNK_BYTES, SHARED_TILE_CHUNKS)
gpu, reported = ws._gpu()
sm = gpu.sm_count
occ = {}
for acc in ("global", "global-cg"):
    for pat in ("spread", "slices"):
        k = read_kernel(acc, pat).compile()
        sig = k.signatures[0] if hasattr(k, "signatures") and k.signatures else None
        try:
            regs = k.get_regs_per_thread()
        except Exception as e:
            regs = repr(e)
        occ[f"{acc} {pat}"] = {"regs": regs, "resident_blocks": next(iter(k.overloads.values())).max_cooperative_grid_blocks(BLOCK)}
for t in SHARED_TILE_CHUNKS:
    k = shared_read_kernel(t).compile()
    occ[f"shared {t}"] = {"regs": k.get_regs_per_thread(), "resident_blocks": next(iter(k.overloads.values())).max_cooperative_grid_blocks(BLOCK)}
print(json.dumps(occ, indent=1), flush=True)
res["occupancy"] = occ
res["sm_count"] = sm
res["reported"] = reported
# L2 step near capacity: cg slices, 24..160 MB at 16/octave, for grid 8/SM and resident grid
sizes = ws.working_set_sizes(24e6, 160e6, 16, CHUNK_BYTES)
chunks = [s // CHUNK_BYTES for s in sizes]
grids = [] if os.environ.get("SKIP_L2") else sorted({sm * 8, occ["global-cg slices"]["resident_blocks"], sm * 4, sm * 2})
data = gpu.upload(gpu_data(max(chunks) if grids else 1))
k = read_kernel("global-cg", "slices").compile()
rows = {}
for g in grids:
    rows[g] = []
    for n in chunks:
        n_pass = max(int(math.ceil(8e9 / (g * CHUNK_BYTES))), int(math.ceil(n / g)))
        m = ws._gpu_point(gpu, k, data, n, n_pass, g, "global-cg", 7, "slices")
        rows[g].append((n * CHUNK_BYTES, m.value))
    print("grid", g, " ".join(f"{b/1e6:.1f}:{v/1e3:.2f}" for b, v in rows[g]), flush=True)
res["l2_rows"] = {str(g): r for g, r in rows.items()}
del data
# GEMM paired rounds
try:
    import cupy as cp, torch
    from rooflinelib.measure import matrix as mx
    n = 8192
    gem = {}
    for name, tdt, tf32 in (("tf32-tensor", torch.float32, True), ("bf16-tensor", torch.bfloat16, False),
                            ("fp16-tensor", torch.float16, False), ("fp64-matrix", torch.float64, False)):
        short = mx.MATRIX_CEILINGS[name][0]
        dtype, data_type, compute_type, eb, tol = mx.MATRIX_CEILINGS[name]
        a, b, _ = mx.operands(cp, n, short, seed=12345)
        c = cp.empty((n, n), dtype=a.dtype)
        alpha = np.array(1.0, np.float64 if short == "fp64" else np.float32); beta = np.array(0.0, alpha.dtype)
        from cupy.cuda import cublas
        h = cp.cuda.device.get_cublas_handle()
        cublas.setPointerMode(h, 0); cublas.setMathMode(h, 0); mx._give_workspace(cp, cublas, h)
        ours = lambda: cublas.gemmEx(h, 0, 0, n, n, n, alpha.ctypes.data, b.data.ptr, data_type, n, a.data.ptr, data_type, n,
                                     beta.ctypes.data, c.data.ptr, data_type, n, compute_type, -1)
        ta, tb = torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda")
        if short == "bf16":
            ta, tb = ta.view(torch.bfloat16), tb.view(torch.bfloat16)
        tc = torch.empty(n, n, device="cuda", dtype=tdt)
        torch.backends.cuda.matmul.allow_tf32 = tf32
        theirs = lambda: torch.matmul(ta, tb, out=tc)
        def block(fn, reps=3):
            fn(); ts = []
            for _ in range(reps):
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                e0.record(); fn(); e1.record(); e1.synchronize()
                ts.append(cp.cuda.get_elapsed_time(e0, e1) / 1e3)
            return float(np.median(ts))
        for _ in range(3): ours(); theirs()
        cp.cuda.Device().synchronize()
        ratios, o, t = [], [], []
        for r in range(16):
            if r % 2 == 0:
                to = block(ours); tt = block(theirs)
            else:
                tt = block(theirs); to = block(ours)
            o.append(2 * n**3 / to / 1e9); t.append(2 * n**3 / tt / 1e9); ratios.append(o[-1] / t[-1])
        gem[name] = {"ours": o, "torch": t, "ratios": ratios, "median_ratio": float(np.median(ratios)),
                     "pooled": float(np.median(o) / np.median(t))}
        print(name, "median paired", round(float(np.median(ratios)), 4), "pooled", round(gem[name]["pooled"], 4),
              "range", round(min(ratios), 3), round(max(ratios), 3), flush=True)
        torch.backends.cuda.matmul.allow_tf32 = False
        del a, b, c, ta, tb, tc
        cp.get_default_memory_pool().free_all_blocks(); torch.cuda.empty_cache()
    res["gemm"] = gem
except Exception as e:
    import traceback; traceback.print_exc()
json.dump(res, open(os.path.join(OUT, "probe.json"), "w"), indent=1)
