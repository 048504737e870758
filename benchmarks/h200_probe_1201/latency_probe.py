#!/usr/bin/env python3
"""Probe (H200, 2026-12-01): where latency binds and what a launch costs.

1. The FMA-peak kernel with 1, 2, 4 and 8 chains: its SASS (opcode histogram of the whole
   kernel, and the 1-chain kernel's text), and its rate at full occupancy (2048 threads per SM)
   and at one warp per scheduler (128 threads per SM), each verified.
2. Launch cost: an empty kernel launched back to back, timed by the host's clock (the host's
   dispatch) and by device events; the same launches captured in a CUDA graph (the device's
   own per-launch cost); for Numba, CuPy and torch.

    python3 latency_probe.py OUT_DIR
"""
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.getcwd())

import numpy as np


def chains_part(out_dir):
    from numba import cuda
    from rooflinelib.measure import kernels_numba as kn
    from rooflinelib.measure.checks import fma_peak_expected
    from rooflinelib.measure.sass import kernel_histograms, nvdisasm_available

    dev = cuda.get_current_device()
    sm = int(dev.MULTIPROCESSOR_COUNT)
    configs = ((1, 256), (2, 128), (4, 64), (8, 32))
    n_iter = 2048
    rows, sass = [], {}
    for chains, unroll in configs:
        src = kn.fma_peak_kernel("fp32", chains, unroll, n_iter)
        kernel = src.compile()
        if nvdisasm_available():
            text = kernel.inspect_sass()
            text = "\n".join(text.values()) if isinstance(text, dict) else text
            sass[src.name] = kernel_histograms([src])[src.name]
            if chains == 1:
                with open(os.path.join(out_dir, "fma_peak_1chain.sass"), "w") as f:
                    f.write(text)
        try:
            regs = next(iter(kernel.overloads.values())).regs_per_thread
        except Exception:
            regs = None
        for label, grid, block in (("full occupancy", sm * 8, 256), ("one warp per scheduler", sm, 128)):
            threads = grid * block
            out = cuda.device_array(threads, np.float32)
            one, zero = np.float32(1), np.float32(0)
            launch = lambda: kernel[grid, block](out, one, zero)  # noqa: E731
            launch()
            cuda.synchronize()
            got = out.copy_to_host().astype(np.float64)
            want = fma_peak_expected(np.arange(threads), chains).astype(np.float64)
            ok = bool(np.array_equal(got, want))
            samples = []
            for _ in range(2):
                launch()
            for _ in range(10):
                s, e = cuda.event(timing=True), cuda.event(timing=True)
                launch()
                s.record()
                launch()
                e.record()
                e.synchronize()
                samples.append(s.elapsed_time(e) / 1e3)
            med = statistics.median(samples)
            fmas_per_thread = n_iter * unroll * chains
            gflops = 2.0 * threads * fmas_per_thread / med / 1e9
            steps = n_iter * unroll  # dependent steps of each chain
            rows.append(dict(chains=chains, unroll=unroll, n_iter=n_iter, setting=label, grid=grid,
                             block=block, threads=threads, verified=ok, median_s=med,
                             spread=(max(samples) - min(samples)) / med, gflops=gflops,
                             regs_per_thread=regs, ns_per_dependent_step=med / steps * 1e9))
            print(f"chains {chains} {label}: {gflops:,.0f} GFLOP/s, {med / steps * 1e9:.2f} ns per step,"
                  f" verified {ok}", file=sys.stderr)
    return {"rows": rows, "sass_histograms": sass}


def _host_and_events(launch, sync, event, elapsed_ms, n=2000):
    for _ in range(50):
        launch()
    sync()
    t0 = time.perf_counter()
    for _ in range(n):
        launch()
    t_host = (time.perf_counter() - t0) / n  # enqueue rate: the host's dispatch
    sync()
    s, e = event(), event()
    s.record()
    for _ in range(n):
        launch()
    e.record()
    e.synchronize()
    return t_host, elapsed_ms(s, e) / 1e3 / n


def launch_part():
    res = {}
    # Numba
    from numba import cuda

    @cuda.jit("void(float32[::1])")
    def empty_numba(x):
        pass

    x = cuda.device_array(1, np.float32)
    host, ev = _host_and_events(lambda: empty_numba[1, 32](x), cuda.synchronize,
                                lambda: cuda.event(timing=True), lambda s, e: s.elapsed_time(e))
    res["numba"] = {"host_dispatch_s": host, "events_back_to_back_s": ev}
    # CuPy
    import cupy as cp
    k = cp.RawKernel(r'extern "C" __global__ void empty_cupy(float* x) {}', "empty_cupy")
    y = cp.zeros(1, cp.float32)
    host, ev = _host_and_events(lambda: k((1,), (32,), (y,)), cp.cuda.Device().synchronize,
                                cp.cuda.Event, cp.cuda.get_elapsed_time)
    stream = cp.cuda.Stream(non_blocking=True)
    n = 1000
    with stream:
        stream.begin_capture()
        for _ in range(n):
            k((1,), (32,), (y,))
        graph = stream.end_capture()
        graph.launch(stream)
        stream.synchronize()
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(stream)
        graph.launch(stream)
        e.record(stream)
        e.synchronize()
    res["cupy"] = {"host_dispatch_s": host, "events_back_to_back_s": ev,
                   "graph_per_kernel_s": cp.cuda.get_elapsed_time(s, e) / 1e3 / n}
    # torch: torch.cuda._sleep(0) is a near-empty kernel
    try:
        import torch
        host, ev = _host_and_events(lambda: torch.cuda._sleep(0), torch.cuda.synchronize,
                                    lambda: torch.cuda.Event(enable_timing=True),
                                    lambda s, e: s.elapsed_time(e))
        g = torch.cuda.CUDAGraph()
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            with torch.cuda.graph(g):
                for _ in range(n):
                    torch.cuda._sleep(0)
        torch.cuda.synchronize()
        g.replay()
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        res["torch"] = {"host_dispatch_s": host, "events_back_to_back_s": ev,
                        "graph_per_kernel_s": s.elapsed_time(e) / 1e3 / n}
    except Exception as exc:  # a torch without CUDA graphs: say so
        res["torch"] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
    for lib, r in res.items():
        print(lib, {k: (f"{v * 1e6:.2f} us" if isinstance(v, float) else v) for k, v in r.items()},
              file=sys.stderr)
    return res


def main():
    out_dir = sys.argv[1]
    data = {"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    data["chains"] = chains_part(out_dir)
    data["launch"] = launch_part()
    with open(os.path.join(out_dir, "latency_probe.json"), "w") as f:
        json.dump(data, f, indent=1)


if __name__ == "__main__":
    main()
