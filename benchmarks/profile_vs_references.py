"""profile()'s median against cupyx.profiler.benchmark and triton.testing.do_bench on the same
kernels, side by side in one run: a 1 GiB copy, a 1 GiB reduction and a bf16 GEMM.  Rounds
alternate the three timers; each reports the median of its repeats; the ratio is profile's
median over the reference's, per round, then the median over rounds.

    python3 benchmarks/profile_vs_references.py OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ROUNDS = 5
REPEATS = 100


def cases():
    import cupy
    import torch
    n = 1 << 28  # 1 GiB of float32
    src = cupy.arange(n, dtype=cupy.float32)
    dst = cupy.empty_like(src)
    total = cupy.empty((), dtype=cupy.float32)
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16, generator=g)
    c = torch.empty(8192, 8192, device="cuda", dtype=torch.bfloat16)
    return [
        ("copy 1 GiB (cupy.copyto)", lambda: cupy.copyto(dst, src), 0, 8 * n, None),
        ("reduction 1 GiB (cupy.sum)", lambda: cupy.sum(src, out=total), n, 4 * n, None),
        ("bf16 GEMM 8192 (torch.matmul)", lambda: torch.matmul(a, b, out=c), 2 * 8192 ** 3, 3 * 8192 ** 2 * 2, "bf16"),
    ]


def waiting_after_each_call(fn, repeats: int) -> float:
    """The same device events as profile(), but the host waits after every call (as
    cupyx.profiler.benchmark does): the median, in seconds.  Shows what the wait costs."""
    import cupy
    times = []
    for _ in range(repeats):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end) / 1e3)
    return float(statistics.median(times))


def main(out: str) -> int:
    import cupyx.profiler
    from rooflinelib.profiling import profile
    from rooflinelib.store.results import recorded
    try:
        import triton.testing
        do_bench = triton.testing.do_bench
    except Exception as exc:
        do_bench, triton_note = None, f"triton unavailable: {exc}"
    else:
        triton_note = f"triton {triton.__version__}"
    lab1 = recorded("ceilings")
    report = {"rounds": ROUNDS, "repeats": REPEATS, "triton": triton_note, "cases": []}
    for name, fn, n_flops, n_bytes, precision in cases():
        rows = []
        for _ in range(ROUNDS):
            ours = profile(fn, n_flops=n_flops, n_bytes=n_bytes, name=name, ceilings=lab1,
                           precision=precision, repeats=REPEATS).seconds
            cx = cupyx.profiler.benchmark(fn, n_repeat=REPEATS, n_warmup=10)
            cupyx_s = float(statistics.median(cx.gpu_times[0]))
            tri_s = (do_bench(fn, warmup=25, rep=100, return_mode="median") / 1e3) if do_bench else None
            waited = waiting_after_each_call(fn, REPEATS)
            rows.append({"profile_s": ours, "cupyx_s": cupyx_s, "triton_s": tri_s, "events_waiting_s": waited})
        ratio_cupyx = statistics.median(r["profile_s"] / r["cupyx_s"] for r in rows)
        ratio_triton = (statistics.median(r["profile_s"] / r["triton_s"] for r in rows) if do_bench else None)
        ratio_waiting = statistics.median(r["events_waiting_s"] / r["cupyx_s"] for r in rows)
        report["cases"].append({"name": name, "rounds": rows, "profile_over_cupyx": ratio_cupyx,
                                "profile_over_triton": ratio_triton, "waiting_over_cupyx": ratio_waiting})
        print(f"{name}: profile {statistics.median(r['profile_s'] for r in rows) * 1e3:.4f} ms, "
              f"cupyx {statistics.median(r['cupyx_s'] for r in rows) * 1e3:.4f} ms, "
              f"triton {statistics.median(r['triton_s'] for r in rows) * 1e3 if do_bench else float('nan'):.4f} ms; "
              f"ratios {ratio_cupyx:.4f} / {ratio_triton if ratio_triton else float('nan'):.4f}; "
              f"events waiting after each call / cupyx {ratio_waiting:.4f}", flush=True)
    Path(out).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
