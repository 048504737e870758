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
import os
import shutil
import subprocess
import sys
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
        return fn
    return wrap


def save_json(name, data):
    (OUT / name).write_text(json.dumps(data, indent=1) + "\n")


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


@section("numba ceilings")
def _numba_ceilings():
    from rooflinelib import results
    from rooflinelib.measure import measure_ceilings
    r = measure_ceilings("numba", progress=progress)
    results.save(r, OUT / "h200_ceilings_numba.json")
    RESULTS["numba_ceilings"] = r
    return {c["name"]: c["value"] for c in r["ceilings"]}


@section("cupy ceilings")
def _cupy_ceilings():
    from rooflinelib import results
    from rooflinelib.measure import measure_ceilings
    r = measure_ceilings("cupy", progress=progress)
    results.save(r, OUT / "h200_ceilings_cupy.json")
    RESULTS["cupy_ceilings"] = r
    return {c["name"]: c["value"] for c in r["ceilings"]}


@section("numba sweep")
def _numba_sweep():
    from rooflinelib import results
    from rooflinelib.measure import run_sweep
    r = run_sweep("numba", progress=progress)
    results.save(r, OUT / "h200_sweep_numba.json")
    RESULTS["numba_sweep"] = r
    return {"ridge": r["ridge"], "knee": r["knee"], "peak_gflops": r["peak_gflops"],
            "peak_gbps": r["peak_gbps"]}


@section("cupy sweep")
def _cupy_sweep():
    from rooflinelib import results
    from rooflinelib.measure import run_sweep
    r = run_sweep("cupy", progress=progress)
    results.save(r, OUT / "h200_sweep_cupy.json")
    RESULTS["cupy_sweep"] = r
    return {"ridge": r["ridge"], "knee": r["knee"], "peak_gflops": r["peak_gflops"],
            "peak_gbps": r["peak_gbps"]}


# --- references: the same buffers, the same timing method -------------------------------------

def _time_cupy(launch, repeats=20, warmup=3):
    import cupy as cp
    from rooflinelib.measure.timing import time_with_events
    return time_with_events(launch, cp.cuda.Event, cp.cuda.get_elapsed_time, repeats, warmup,
                            prime=launch)


def _time_torch(launch, repeats=20, warmup=3):
    import torch
    from rooflinelib.measure.timing import time_with_events
    return time_with_events(launch, lambda: torch.cuda.Event(enable_timing=True),
                            lambda s, e: s.elapsed_time(e), repeats, warmup, prime=launch)


@section("copy references")
def _copy_refs():
    import cupy as cp
    import torch
    from rooflinelib.measure.engine import CupyGpu
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


@section("matmul references")
def _matmul_refs():
    """For each dtype: our cuBLAS-through-CuPy ceiling and torch.matmul back to back, twice,
    so that clock and temperature drift hit both alike."""
    import torch
    from rooflinelib.measure.matrix import measure_matrix
    n = 8192
    out = {}
    for name, dtype, tf32 in (("fp64-matrix", torch.float64, False), ("fp32-matrix", torch.float32, False),
                              ("tf32-tensor", torch.float32, True), ("fp16-tensor", torch.float16, False),
                              ("bf16-tensor", torch.bfloat16, False)):
        for rep in range(2):
            ours = measure_matrix(name, n=n)
            out[f"{name} ours_{rep}"] = ours.value
            out[f"{name} ours_{rep} call"] = ours.kernel
            torch.backends.cuda.matmul.allow_tf32 = tf32
            g = torch.Generator(device="cuda").manual_seed(1)
            a = torch.randn(n, n, device="cuda", dtype=torch.float32, generator=g).to(dtype)
            b = torch.randn(n, n, device="cuda", dtype=torch.float32, generator=g).to(dtype)
            c = torch.empty(n, n, device="cuda", dtype=dtype)
            t = _time_torch(lambda: torch.matmul(a, b, out=c), repeats=10, warmup=2)
            out[f"{name} torch_{rep}"] = 2 * n ** 3 / t.median_s / 1e9
            del a, b, c
            torch.cuda.empty_cache()
        torch.backends.cuda.matmul.allow_tf32 = False
    return out


SWEEP_VARIANTS = {}


@section("sweep variants: vectors per thread")
def _sweep_variants():
    """The sweep with one vector per thread (1) and pipelined over 4 to 64 vectors, beside the
    default (engine.SWEEP_VECTORS_PER_THREAD) measured above; full results kept."""
    from rooflinelib.measure import run_sweep
    out = {}
    for backend in ("numba", "cupy"):
        for vpt in (1, 4, 8, 32, 64):
            r = run_sweep(backend, vectors_per_thread=vpt)
            SWEEP_VARIANTS[(backend, vpt)] = r
            out[f"{backend} vpt={vpt}"] = r
    return out


@section("cuBLAS libraries loaded")
def _libraries():
    maps = Path("/proc/self/maps").read_text().splitlines()
    return sorted({line.split()[-1] for line in maps if "libcublas" in line})


@section("l2 working sets (numba, exploration)")
def _l2_sets():
    from rooflinelib.measure import engine
    b = engine.NumbaGpu()
    out = {}
    saved = engine.L2_WORKING_SET_BYTES
    try:
        for mib in (8, 16, 32):
            engine.L2_WORKING_SET_BYTES = mib * 2 ** 20
            m = b.l2()
            out[f"{mib} MiB"] = {"best": m.value, "tried": m.extra.get("configs_tried")}
    finally:
        engine.L2_WORKING_SET_BYTES = saved
    return out


@section("sass histograms")
def _sass():
    from rooflinelib.measure import kernels_numba as kn
    from rooflinelib.measure.sass import kernel_histograms
    return kernel_histograms((kn.fma_peak_kernel("fp32", 8, 32, 4096), kn.sweep_kernel(1024), kn.sweep_kernel(64),
                              kn.copy_kernel(1), kn.l2_read_kernel(4), kn.shared_read_kernel(4),
                              kn.sfu_kernel(8, 8, 512)))


@section("lab timings")
def _labs():
    """Lab 1 + Lab 2 through the CLI in fresh processes: cold (empty compile cache) and warm."""
    out = {}
    cache = Path("/tmp/rooflinelib-labcache")
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
    from rooflinelib.measure.engine import SWEEP_VECTORS_PER_THREAD
    from rooflinelib.measure.sweep import nearest_k, steps_between
    for (backend, vpt), sw in sorted(SWEEP_VARIANTS.items()):
        res = nc if backend == "numba" else cc
        copy, theo = _ceiling(res, "dram"), _detail(res, "fp32").get("theoretical_gflops")
        rows = sw["rows"]
        steps = steps_between(rows, sw["knee"]["k"], nearest_k(rows, sw["ridge"])) if sw.get("knee") else None
        t[f"variant {backend} vpt={vpt} (default {SWEEP_VECTORS_PER_THREAD})"] = {
            "value": {"k0_over_copy": rows[0]["gbps"] / copy if copy else None,
                      "plateau_over_theoretical": sw["peak_gflops"] / theo if theo else None,
                      "knee_steps_from_ridge": steps},
            "goal": ">= 0.95, >= 0.93, <= 1",
            "met": bool(copy and theo and steps is not None and rows[0]["gbps"] / copy >= 0.95
                        and sw["peak_gflops"] / theo >= 0.93 and steps <= 1),
            "note": f"knee {sw.get('knee')}, ridge {sw['ridge']:.2f}"}
    add("l2 GB/s", _ceiling(nc, "l2"), 12000.0)
    d = _detail(nc, "shared")
    add("shared / (SMs x 128 B x clock)", d.get("fraction_of_theoretical"), 0.90,
        f"clock {d.get('sm_clock_mhz_during')} MHz")
    for name in ("fp64-matrix", "fp32-matrix", "tf32-tensor", "fp16-tensor", "bf16-tensor"):
        ours = max([v for k, v in mm.items() if k.startswith(f"{name} ours_") and not k.endswith("call")] or [0])
        ref = max([v for k, v in mm.items() if k.startswith(f"{name} torch_")] or [0])
        add(f"{name} cuBLAS via CuPy / torch.matmul (best of 2 each)", ours / ref if ours and ref else None,
            0.97, f"ours {ours:,.0f}, torch {ref:,.0f} GFLOP/s")
    for name in ("dram", "fp32", "fp64"):
        a, b = _ceiling(nc, name), _ceiling(cc, name)
        if a and b:
            gap = abs(a - b) / max(a, b)
            t[f"numba vs cupy {name} within 3%"] = {"value": gap, "goal": "<= 0.03", "met": gap <= 0.03,
                                                    "note": f"numba {a:,.0f}, cupy {b:,.0f}"}
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
