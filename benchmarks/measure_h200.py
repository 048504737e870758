#!/usr/bin/env python3
"""Every performance target of the measurement engine, measured side by side in ONE run.

    python3 benchmarks/measure_h200.py OUTDIR

Writes to OUTDIR:
- ``bench.json``: the references (torch, cupy.copyto, torch.matmul), the ratios against each
  target, SASS instruction histograms, and lab timings;
- ``h200_ceilings_numba.json``, ``h200_ceilings_cupy.json``, ``h200_sweep_numba.json``,
  ``h200_sweep_cupy.json``: the result files shipped in rooflinelib/data.

Every section runs inside its own try block, so one failure leaves the others' numbers.
References are timed exactly like our kernels (an untimed launch ahead of each timed one,
device events, median of N).  Nothing here changes a clock or any other setting of the card.
"""
from __future__ import annotations

import json
import statistics
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", "."))
OUT.mkdir(parents=True, exist_ok=True)
REPORT: dict = {"sections": {}, "errors": {}, "targets": {}}


def log(msg):
    print(msg, flush=True)


def section(name):
    def wrap(fn):
        t0 = time.perf_counter()
        log(f"== {name}")
        try:
            REPORT["sections"][name] = fn()
        except Exception as exc:  # keep going: the other sections still measure
            REPORT["errors"][name] = "".join(traceback.format_exception(exc))[-4000:]
            log(f"!! {name} failed: {exc}")
        log(f"   ({time.perf_counter() - t0:.1f} s)")
        save_json("bench.json", REPORT)  # so that a run cut short keeps what it measured
        return fn
    return wrap


def save_json(name, data):
    (OUT / name).write_text(json.dumps(data, indent=1, default=str) + "\n")


# ---------------------------------------------------------------------------------------------

@section("environment")
def _env():
    from rooflinelib.measure.provenance import gpu_snapshot, library_versions
    smi = ""
    if shutil.which("nvidia-smi"):
        smi = subprocess.run(["nvidia-smi", "-q", "-d", "CLOCK,POWER,TEMPERATURE,PERFORMANCE"],
                             capture_output=True, text=True).stdout
    return {"snapshot": gpu_snapshot(), "libraries": library_versions(), "nvidia_smi_q": smi[-6000:]}


RESULTS = {}


def progress(line):
    log("   " + line)


# --- references are timed exactly like our kernels -----------------------------------------------

def _time_cupy(launch, repeats=20, warmup=3):
    from rooflinelib.measure.timing import cupy_events, time_with_events
    return time_with_events(launch, cupy_events(), repeats, warmup, prime=launch)


def _time_torch(launch, repeats=20, warmup=3):
    from rooflinelib.measure.timing import time_with_events, torch_events
    return time_with_events(launch, torch_events(), repeats, warmup, prime=launch)


@section("numba ceilings")
def _numba_ceilings():
    from rooflinelib.store import results
    from rooflinelib.measure import measure_ceilings
    r = measure_ceilings("numba", progress=progress)
    results.save(r, OUT / "h200_ceilings_numba.json")
    RESULTS["numba_ceilings"] = r
    return {c["name"]: c["value"] for c in r["ceilings"]}


def PowerSampler():
    """SM clock, board power and clock-event reasons, sampled every 10 ms while a block runs."""
    from rooflinelib.measure.provenance import ClockSampler
    return ClockSampler(interval_s=0.01, power=True)


@section("fp64 GEMM: ours against torch, call path and operands")
def _fp64_gemm():
    """What separates cuBLAS-through-CuPy from torch.matmul at fp64, 8192^3.  Two operand sets:
    ours (full 53-bit mantissas, as the ceiling uses) and the torch reference's (float32 randn
    widened to float64: the low 29 mantissa bits are zero).  Four call paths: cublasGemmEx and
    cublasDgemm through CuPy, torch.matmul with torch's cuBLAS and with cuBLASLt.  Each
    variant is verified (4 rows against a float64 product), timed like the references (15
    launches after a warm-up, each behind an untimed one), with the SM clock and the power
    sampled; two rounds in rotated order so that drift hits every variant alike."""
    import cupy as cp
    import numpy as np
    import torch
    from cupy.cuda import cublas
    from rooflinelib.measure import matrix as mx
    n = 8192
    out = {"torch_preferred_blas": str(torch.backends.cuda.preferred_blas_library())}
    full_a, full_b, _ = mx.operands(cp, n, "fp64", seed=12345)
    g = torch.Generator(device="cuda").manual_seed(1)
    ta = torch.randn(n, n, device="cuda", dtype=torch.float32, generator=g).to(torch.float64)
    tb = torch.randn(n, n, device="cuda", dtype=torch.float32, generator=g).to(torch.float64)
    data = {"full": (full_a, full_b), "fp32-widened": (cp.asarray(ta), cp.asarray(tb))}
    low_bits = cp.uint64(2 ** 29 - 1)
    for label, (a, b) in data.items():
        out[f"{label} share of elements with zero low 29 mantissa bits"] = float(
            ((a.view(cp.uint64) & low_bits) == 0).mean())
    c = cp.empty((n, n), cp.float64)
    tc = torch.as_tensor(c, device="cuda")
    handle = cp.cuda.device.get_cublas_handle()
    cublas.setPointerMode(handle, mx.CUBLAS_POINTER_MODE_HOST)  # alpha and beta live on the host
    alpha, beta = np.array(1.0, np.float64), np.array(0.0, np.float64)
    rows = cp.asarray([0, n // 3, 2 * n // 3, n - 1])

    def gemm_ex(a, b):
        cublas.gemmEx(handle, 0, 0, n, n, n, alpha.ctypes.data, b.data.ptr, mx.CUDA_R_64F, n,
                      a.data.ptr, mx.CUDA_R_64F, n, beta.ctypes.data, c.data.ptr, mx.CUDA_R_64F, n,
                      mx.CUBLAS_COMPUTE_64F, mx.CUBLAS_GEMM_DEFAULT)

    def dgemm(a, b):
        cublas.dgemm(handle, 0, 0, n, n, n, alpha.ctypes.data, b.data.ptr, n, a.data.ptr, n,
                     beta.ctypes.data, c.data.ptr, n)

    def torch_mm(a, b):  # torch tensors on the very same device memory
        ta_, tb_ = torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda")
        return lambda: torch.matmul(ta_, tb_, out=tc)

    variants = []  # (name, launch, torch BLAS backend or None, operand set)
    for label, (a, b) in data.items():
        variants.append((f"{label} cublasGemmEx (CuPy)", lambda a=a, b=b: gemm_ex(a, b), None, label))
        variants.append((f"{label} cublasDgemm (CuPy)", lambda a=a, b=b: dgemm(a, b), None, label))
        for backend in ("cublas", "cublaslt"):
            variants.append((f"{label} torch.matmul ({backend})", torch_mm(a, b), backend, label))
    references = {label: (a[rows] @ b) for label, (a, b) in data.items()}
    default_blas = torch.backends.cuda.preferred_blas_library()
    for rnd in range(2):
        order = variants[rnd * 3:] + variants[:rnd * 3]
        if rnd:
            order = order[::-1]
        for name, launch, backend, label in order:
            key = f"{name} round {rnd}"
            try:
                if backend:
                    torch.backends.cuda.preferred_blas_library(backend)
                c.fill(0)
                launch()
                cp.cuda.Device().synchronize()
                ref = references[label]
                error = float(cp.linalg.norm(c[rows] - ref) / cp.linalg.norm(ref))
                if not np.isfinite(error) or error > 1e-12:
                    out[key] = {"error": f"verification: relative error {error:.2e}"}
                    continue
                timer = _time_torch if backend else _time_cupy
                with PowerSampler() as sampler:
                    t = timer(launch, repeats=15, warmup=2)  # ~0.6 s: long enough for NVML's power average
                out[key] = {"gflops": 2 * n ** 3 / t.median_s / 1e9, "spread": t.spread,
                            "relative_error": error, **sampler.summary()}
                log(f"   {key}: {out[key]['gflops']:,.0f} GFLOP/s, SM {out[key]['sm_clock_mhz_median']} MHz, "
                    f"{out[key]['power_w_median']} W")
            except Exception as exc:  # one failing path must not hide the others
                out[key] = {"error": " ".join(str(exc).split())[:300]}
                log(f"   {key}: failed ({exc})")
            finally:
                torch.backends.cuda.preferred_blas_library(default_blas)
    del full_a, full_b, ta, tb, data, c, tc, references
    cp.get_default_memory_pool().free_all_blocks()
    torch.cuda.empty_cache()
    return out


@section("cupy ceilings")
def _cupy_ceilings():
    from rooflinelib.store import results
    from rooflinelib.measure import measure_ceilings
    r = measure_ceilings("cupy", progress=progress)
    results.save(r, OUT / "h200_ceilings_cupy.json")
    RESULTS["cupy_ceilings"] = r
    return {c["name"]: c["value"] for c in r["ceilings"]}


@section("numba sweep")
def _numba_sweep():
    from rooflinelib.store import results
    from rooflinelib.measure import run_sweep
    r = run_sweep("numba", progress=progress)
    results.save(r, OUT / "h200_sweep_numba.json")
    RESULTS["numba_sweep"] = r
    return {"ridge": r["ridge"], "knee": r["knee"], "peak_gflops": r["peak_gflops"],
            "peak_gbps": r["peak_gbps"]}


@section("cupy sweep")
def _cupy_sweep():
    from rooflinelib.store import results
    from rooflinelib.measure import run_sweep
    r = run_sweep("cupy", progress=progress)
    results.save(r, OUT / "h200_sweep_cupy.json")
    RESULTS["cupy_sweep"] = r
    return {"ridge": r["ridge"], "knee": r["knee"], "peak_gflops": r["peak_gflops"],
            "peak_gbps": r["peak_gbps"]}


# --- references: the same buffers, the same timing method -------------------------------------

@section("copy references")
def _copy_refs():
    import cupy as cp
    import torch
    from rooflinelib.measure.gpu_backends import CupyGpu
    n = 2 ** 28  # 1 GiB of float32 per buffer, as our copy
    src = cp.empty(n, cp.float32)
    dst = cp.empty(n, cp.float32)
    CupyGpu().fill(src)
    out = {}
    t = _time_cupy(lambda: cp.copyto(dst, src))
    assert bool((dst == src).all())
    out["cupy.copyto_gbps"] = 2 * 4 * n / t.median_s / 1e9
    ts, td = torch.as_tensor(src, device="cuda"), torch.as_tensor(dst, device="cuda")
    td.fill_(-1)
    t = _time_torch(lambda: td.copy_(ts))
    assert bool(torch.equal(td, ts))
    out["torch.copy__gbps"] = 2 * 4 * n / t.median_s / 1e9
    # our copies on these very buffers, interleaved with the references
    from numba import cuda
    from rooflinelib.measure import kernels_cupy as kc
    from rooflinelib.measure import kernels_numba as kn
    fn = kc.kernel(kc.copy_name(1))
    nb = kn.copy_kernel(1).compile()
    nsrc, ndst = cuda.as_cuda_array(src), cuda.as_cuda_array(dst)
    for rep in range(2):
        dst.fill(-1)
        t = _time_cupy(lambda: fn((n // 4 // 256,), (256,), (src, dst)))
        assert bool((dst == src).all())
        out[f"ours_cupy_copy16_same_buffers_gbps_{rep}"] = 2 * 4 * n / t.median_s / 1e9
        dst.fill(-1)
        t = _time_cupy(lambda: nb[n // 4 // 256, 256](nsrc, ndst))
        assert bool((dst == src).all())
        out[f"ours_numba_copy16_same_buffers_gbps_{rep}"] = 2 * 4 * n / t.median_s / 1e9
        t = _time_cupy(lambda: cp.copyto(dst, src))
        out[f"cupy.copyto_gbps_{rep}"] = 2 * 4 * n / t.median_s / 1e9
        t = _time_torch(lambda: td.copy_(ts))
        out[f"torch.copy__gbps_{rep}"] = 2 * 4 * n / t.median_s / 1e9
    del src, dst, ts, td
    cp.get_default_memory_pool().free_all_blocks()
    torch.cuda.empty_cache()
    return out


MATMUL_ROUNDS = 16  # paired rounds per dtype
MATMUL_BLOCK = 3  # timed launches of each side per round


@section("matmul references")
def _matmul_refs():
    """For each dtype: the matrix ceiling as Lab 1 measures it (``measure_matrix``), then the
    very cuBLAS call it chose and ``torch.matmul`` on the same operands (the same device
    memory) in MATMUL_ROUNDS short paired rounds.  A round times MATMUL_BLOCK launches of one
    side and then MATMUL_BLOCK of the other (ours first in even rounds), each side behind one
    untimed launch, so a pair spans 20-150 ms.  At the 700 W cap the clock sinks by up to 15%
    over a few seconds of GEMMs; within one pair it does not move, so the per-round ratio
    compares the two libraries at one clock.  The target is the median of those ratios (the
    first runs compared the best of four long rounds per side, which swung by 6-11% from run
    to run).  The clock and power are sampled over the whole paired phase; torch.matmul on its
    own randn data (float32 randn cast to the dtype) is timed twice after it."""
    import cupy as cp
    import torch
    from rooflinelib.measure.gpu_backends import NumbaGpu
    from rooflinelib.measure.matrix import MatrixGemm, measure_matrix
    backend = NumbaGpu()  # Lab 1's GEMM ceilings come from the numba backend's run
    n = 8192
    out = {"rounds": MATMUL_ROUNDS, "launches_per_side_per_round": MATMUL_BLOCK}
    for name, dtype, tf32 in (("fp64-matrix", torch.float64, False), ("fp32-matrix", torch.float32, False),
                              ("tf32-tensor", torch.float32, True), ("fp16-tensor", torch.float16, False),
                              ("bf16-tensor", torch.bfloat16, False)):
        gemm = MatrixGemm(name, n)
        ceiling = measure_matrix(backend, name, n=n, gemm=gemm)
        out[f"{name} ceiling"] = ceiling.value
        out[f"{name} ceiling call"] = ceiling.kernel
        out[f"{name} ceiling sm_clock_mhz"] = ceiling.extra.get("sm_clock_mhz_during")
        ours = gemm.calls[ceiling.kernel]
        a, b = torch.as_tensor(gemm.a, device="cuda"), torch.as_tensor(gemm.b, device="cuda")
        if gemm.dtype == "bf16":  # ours keeps bfloat16 bits in uint16
            a, b = a.view(torch.bfloat16), b.view(torch.bfloat16)
        c = torch.empty(n, n, device="cuda", dtype=dtype)
        torch.backends.cuda.matmul.allow_tf32 = tf32
        try:
            theirs = lambda: torch.matmul(a, b, out=c)  # noqa: E731
            rates = {"ours": [], "torch": []}
            with PowerSampler() as sampler:
                for rnd in range(MATMUL_ROUNDS):
                    for side in (("ours", "torch") if rnd % 2 == 0 else ("torch", "ours")):
                        t = (_time_cupy(ours, repeats=MATMUL_BLOCK, warmup=0) if side == "ours" else
                             _time_torch(theirs, repeats=MATMUL_BLOCK, warmup=0))
                        rates[side].append(gemm.n_flops / t.median_s / 1e9)
            ratios = [o / r for o, r in zip(rates["ours"], rates["torch"])]
            out[f"{name} ours per round"] = rates["ours"]
            out[f"{name} torch per round"] = rates["torch"]
            out[f"{name} ratio per round"] = ratios
            out[f"{name} ratio median"] = statistics.median(ratios)
            out[f"{name} paired sampled"] = sampler.summary()
            log(f"   {name}: ceiling {ceiling.value:,.0f} ({ceiling.kernel}); paired rounds: ours "
                f"{statistics.median(rates['ours']):,.0f}, torch {statistics.median(rates['torch']):,.0f} "
                f"GFLOP/s (medians), ratio median {statistics.median(ratios):.4f} "
                f"[{min(ratios):.3f} .. {max(ratios):.3f}], SM {sampler.summary()['sm_clock_mhz_median']} MHz")
            gemm.release()
            del a, b
            g = torch.Generator(device="cuda").manual_seed(1)
            a = torch.randn(n, n, device="cuda", dtype=torch.float32, generator=g).to(dtype)
            b = torch.randn(n, n, device="cuda", dtype=torch.float32, generator=g).to(dtype)
            for rnd in range(2):
                t = _time_torch(lambda: torch.matmul(a, b, out=c), repeats=10, warmup=2)
                out[f"{name} torch_own_data_{rnd}"] = 2 * n ** 3 / t.median_s / 1e9
        finally:
            torch.backends.cuda.matmul.allow_tf32 = False
        del a, b, c
        cp.get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()
    return out


@section("cuBLAS libraries loaded")
def _libraries():
    maps = Path("/proc/self/maps").read_text().splitlines()
    return sorted({line.split()[-1] for line in maps if "libcublas" in line})


@section("sass histograms")
def _sass():
    from rooflinelib.measure import kernels_numba as kn
    from rooflinelib.measure.sass import kernel_histograms
    return kernel_histograms((kn.fma_peak_kernel("fp32", 8, 32, 4096), kn.sweep_kernel(1024), kn.sweep_kernel(64),
                              kn.copy_kernel(1), kn.l2_slab_kernel(), kn.shared_read_kernel(4),
                              kn.sfu_kernel(8, 8, 512)))


@section("lab timings")
def _labs():
    """Lab 1 + Lab 3 through the CLI in fresh processes: cold (empty compile cache) and warm."""
    out = {}
    cache = Path(tempfile.gettempdir()) / "rooflinelib-labcache"
    shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), CUPY_CACHE_DIR=str(cache / "cupy"))
    for label in ("cold", "warm"):
        total = 0.0
        for cmd in (["measure", "--backend", "numba"], ["sweep", "--backend", "numba"]):
            t0 = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "rooflinelib", *cmd, "--quiet", "--json"],
                                  env=env, capture_output=True, text=True, cwd=ROOT)
            dt = time.perf_counter() - t0
            total += dt
            out[f"{label} {cmd[0]}_s"] = dt
            if done.returncode != 0:
                out[f"{label} {cmd[0]}_error"] = done.stderr[-1500:]
        out[f"{label} total_s"] = total
        log(f"   {label}: {total:.1f} s")
    return out


# --- the targets ---------------------------------------------------------------------------------

def _ceiling(result, name):
    for c in (result or {}).get("ceilings", []):
        if c["name"] == name:
            return c["value"]
    return None


def _detail(result, name):
    for d in (result or {}).get("details", []):
        if d["name"] == name:
            return d
    return {}


def targets():
    t = REPORT["targets"]
    nc, cc = RESULTS.get("numba_ceilings"), RESULTS.get("cupy_ceilings")
    ns, cs = RESULTS.get("numba_sweep"), RESULTS.get("cupy_sweep")
    refs = REPORT["sections"].get("copy references") or {}
    mm = REPORT["sections"].get("matmul references") or {}

    def add(name, value, goal, note=""):
        if value is None:
            t[name] = {"value": None, "goal": goal, "met": None, "note": note or "not measured"}
        else:
            t[name] = {"value": value, "goal": goal, "met": bool(value >= goal), "note": note}

    best_ref = max([v for k, v in refs.items() if k.startswith(("cupy.copyto_gbps", "torch.copy__gbps"))] or [0]) or None
    for backend, res in (("numba", nc), ("cupy", cc)):
        same = max([v for k, v in refs.items() if k.startswith(f"ours_{backend}_copy16_same_buffers")] or [0])
        add(f"copy {backend} / best(copyto, torch), same buffers", same / best_ref if same and best_ref else None,
            0.98, f"ours {same:,.0f} GB/s, best reference {best_ref or 0:,.0f} GB/s")
        dram = _ceiling(res, "dram")
        add(f"copy {backend} ceiling (Lab 1) / best reference", dram / best_ref if dram and best_ref else None, 0.98)
        d = _detail(res, "fp32")
        add(f"fma_peak fp32 {backend} / theoretical at run clock", d.get("fraction_of_theoretical"), 0.95,
            f"clock {d.get('sm_clock_mhz_during')} MHz")
    for backend, sw, res in (("numba", ns, nc), ("cupy", cs, cc)):
        if not sw:
            continue
        rows = sw["rows"]
        copy = _ceiling(res, "dram")
        add(f"sweep {backend} K=0 / copy ceiling", rows[0]["gbps"] / copy if copy else None, 0.95)
        d = _detail(res, "fp32")
        theo = d.get("theoretical_gflops")
        add(f"sweep {backend} plateau / theoretical", sw["peak_gflops"] / theo if theo else None, 0.93)
        add(f"sweep {backend} every row verified", 1.0 if all(r["verified"] for r in rows) else 0.0, 1.0)
        from rooflinelib.measure.sweep import nearest_k, steps_between
        if sw.get("knee"):
            steps = steps_between(rows, sw["knee"]["k"], nearest_k(rows, sw["ridge"]))
            t[f"sweep {backend} knee within one K step of P/B"] = {
                "value": steps, "goal": "<= 1", "met": steps <= 1,
                "note": f"knee I={sw['knee']['intensity']:.2f} (K={sw['knee']['k']}), ridge {sw['ridge']:.2f}"}
    # each launch configuration of the sweep on its own, from the rates every row keeps of
    # every variant: what the best-per-K choice gains over either alone
    from rooflinelib.measure.sweep import nearest_k, steps_between, summarize
    for backend, sw, res in (("numba", ns, nc), ("cupy", cs, cc)):
        if not sw:
            continue
        copy, theo = _ceiling(res, "dram"), _detail(res, "fp32").get("theoretical_gflops")
        rows = sw["rows"]
        t[f"sweep {backend} chosen vectors per thread by K"] = {
            "value": {str(r["k"]): d["config"]["vectors_per_thread"] for r, d in zip(rows, sw["details"])},
            "goal": "-", "met": None, "note": "the fastest verified variant at each K"}
        by_vpt = {}
        for r, d in zip(rows, sw["details"]):
            for v in d.get("configs_tried", []):
                by_vpt.setdefault(v["vectors_per_thread"], []).append(
                    {"k": r["k"], "intensity": r["intensity"], "gbps": v["gbps"], "gflops": v["gflops"]})
        for vpt, vrows in sorted(by_vpt.items()):
            if len(vrows) != len(rows):
                continue
            summary = summarize(vrows)
            kn = summary["knee"]
            steps = steps_between(vrows, kn["k"], nearest_k(vrows, summary["ridge"])) if kn else None
            t[f"variant {backend} vpt={vpt} alone"] = {
                "value": {"k0_over_copy": vrows[0]["gbps"] / copy if copy else None,
                          "plateau_over_theoretical": summary["peak_gflops"] / theo if theo else None,
                          "knee_steps_from_ridge": steps},
                "goal": ">= 0.95, >= 0.93, <= 1", "met": None,
                "note": f"knee {kn}, ridge {summary['ridge']:.2f} (same run, same buffers, "
                        "measured beside the other variant at every K)"}
    peer = {}
    if (OUT / "l2_vs_peer.json").exists():  # written by benchmarks/l2_vs_peer.py in the same run
        peer = json.loads((OUT / "l2_vs_peer.json").read_text())
    for backend in ("numba", "cupy"):
        p = peer.get(backend) or {}
        add(f"l2 {backend}: slices' rate under ncu / gpu-benches' best (served >= 0.95)",
            p.get("ratio_to_peer") if p.get("served_fraction_at_best", 0) >= 0.95 else None, 0.97,
            f"ours {p.get('best_gbps', 0):,.0f} GB/s at {p.get('best_working_set_bytes', 0) / 1e6:.1f} MB, served "
            f"{p.get('served_fraction_at_best', 0):.3f}; peer {peer.get('peer_best_gbps', 0):,.0f} GB/s")
        res = nc if backend == "numba" else cc
        l2 = _ceiling(res, "l2")
        add(f"l2 {backend}: Lab 1 ceiling (events) / gpu-benches' best under ncu",
            l2 / peer["peer_best_gbps"] if l2 and peer.get("peer_best_gbps") else None, 0.97,
            f"Lab 1 {l2 or 0:,.0f} GB/s")
    d = _detail(nc, "shared")
    add("shared / (SMs x 128 B x clock)", d.get("fraction_of_theoretical"), 0.90,
        f"clock {d.get('sm_clock_mhz_during')} MHz")
    for name in ("fp64-matrix", "fp32-matrix", "tf32-tensor", "fp16-tensor", "bf16-tensor"):
        ratios = mm.get(f"{name} ratio per round") or []
        ours, ref = mm.get(f"{name} ours per round") or [], mm.get(f"{name} torch per round") or []
        own = max([mm.get(f"{name} torch_own_data_{r}") or 0 for r in range(2)])
        ceiling = mm.get(f"{name} ceiling")
        sampled = mm.get(f"{name} paired sampled") or {}
        add(f"{name} cuBLAS via CuPy / torch.matmul on the same operands (median of "
            f"{len(ratios)} paired rounds)",
            statistics.median(ratios) if ratios else None, 0.97,
            f"round ratios {min(ratios, default=0):.3f} .. {max(ratios, default=0):.3f}; ours "
            f"{statistics.median(ours) if ours else 0:,.0f}, torch {statistics.median(ref) if ref else 0:,.0f} "
            f"GFLOP/s (medians over rounds), SM {sampled.get('sm_clock_mhz_min')}-"
            f"{sampled.get('sm_clock_mhz_median')} MHz (min-median), {sampled.get('power_w_median')} W; "
            f"Lab 1 ceiling {ceiling or 0:,.0f} ({mm.get(f'{name} ceiling call')}); torch on its own "
            f"randn data {own:,.0f}")
    for name in [c["name"] for c in (nc or {}).get("ceilings", [])]:
        a, b = _ceiling(nc, name), _ceiling(cc, name)
        if a and b:
            gap = abs(a - b) / max(a, b)
            t[f"numba vs cupy {name} within 3%"] = {"value": gap, "goal": "<= 0.03", "met": gap <= 0.03,
                                                    "note": f"numba {a:,.0f}, cupy {b:,.0f}"}
    pairs = {}
    if (OUT / "matrix_backends.json").exists():  # benchmarks/matrix_backends.py, alternating rounds
        pairs = json.loads((OUT / "matrix_backends.json").read_text()).get("ceilings", {})
    for name, p in pairs.items():
        t[f"numba vs cupy {name} within 3% (median of paired rounds)"] = {
            "value": p["gap"], "goal": "<= 0.03", "met": p["gap"] <= 0.03,
            "note": f"round ratios {min(p['ratio_per_round']):.3f} .. {max(p['ratio_per_round']):.3f}"}
    if ns and cs:
        gap = abs(ns["peak_gflops"] - cs["peak_gflops"]) / max(ns["peak_gflops"], cs["peak_gflops"])
        t["numba vs cupy sweep plateau within 3%"] = {"value": gap, "goal": "<= 0.03", "met": gap <= 0.03}
    labs = REPORT["sections"].get("lab timings") or {}
    for label, goal in (("cold", 60), ("warm", 15)):
        if f"{label} total_s" in labs:
            failed = any(k.startswith(label) and k.endswith("_error") for k in labs)
            value = labs[f"{label} total_s"]
            t[f"lab1+lab2 {label} (s)"] = {"value": value, "goal": f"<= {goal}",
                                           "met": (not failed) and value <= goal,
                                           "note": "a lab failed: see bench.json" if failed else ""}


if __name__ == "__main__":
    targets()
    from rooflinelib.measure.provenance import now_iso
    REPORT["finished"] = now_iso()
    save_json("bench.json", REPORT)
    log("\n== targets")
    for name, v in REPORT["targets"].items():
        val = v["value"]
        shown = f"{val:,.4g}" if isinstance(val, (int, float)) else str(val)
        if isinstance(val, dict):
            shown = ", ".join(f"{k} {x:.3f}" if isinstance(x, float) else f"{k} {x}" for k, x in val.items())
        log(f"  {'MET ' if v['met'] else 'MISS' if v['met'] is False else '----'} {name}: {shown} "
            f"(goal {v['goal']}) {v.get('note', '')}")
    if REPORT["errors"]:
        log("\n== errors in: " + ", ".join(REPORT["errors"]))
