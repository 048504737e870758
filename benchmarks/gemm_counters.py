"""The four GEMM variants of rooflinelib/profiling/gemm_targets.py on the GPU, side by side: each
timed with device events (the median of 20 calls after a warm-up, its result checked bit for bit),
its hot loop's SASS counted, and its memory-access counters read with Nsight Compute: sectors per
global load request, shared-memory passes and bank conflicts, and the bytes at each level.

    python3 benchmarks/gemm_counters.py OUT.json

Writes JSON (the figures, the date, the card and the clock).  Three ncu runs, each over the four
kernels of one call of ``--child``: the counters notebook 07 teaches with, then extras, then warp
stall reasons, so that a metric this ncu does not know costs only its own run.
"""
import csv
import io
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rooflinelib.store.fileio import write_atomic  # noqa: E402
from rooflinelib.measure.provenance import gpu_snapshot, now_iso  # noqa: E402
from rooflinelib.profiling import gemm_targets as g  # noqa: E402

METRIC_RUNS = {
    "core": ["gpu__time_duration.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
             "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
             "l1tex__t_bytes.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
             "lts__t_bytes.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"],
    "extra": ["smsp__inst_executed_op_shared_ld.sum", "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",
              "l1tex__t_sector_hit_rate.pct", "sm__warps_active.avg.pct_of_peak_sustained_active",
              "smsp__inst_executed.sum", "sm__cycles_elapsed.avg.per_second"],
    "stalls": [f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio"
               for r in ("mio_throttle", "short_scoreboard", "lg_throttle", "long_scoreboard", "barrier",
                         "math_pipe_throttle", "not_selected", "selected")],
}
LAUNCHERS = [launcher for _, launcher in g.VARIANTS]


def child() -> int:
    from numba import cuda
    a, b, c = g.setup()
    for name in LAUNCHERS:
        for _ in range(2):  # compile and warm up outside the profiled range
            getattr(g, name)(a, b, c)
    cuda.synchronize()
    cuda.profile_start()
    for name in LAUNCHERS:
        getattr(g, name)(a, b, c)
    cuda.synchronize()
    cuda.profile_stop()
    return 0


def run_ncu(metrics: list) -> dict:
    """``{kernel name: {metric: value}}`` from one ncu run, or ``{"error": text}``."""
    cmd = ["ncu", "--clock-control", "none", "--cache-control", "all", "--profile-from-start", "off",
           "--csv", "--print-units", "base", "--metrics", ",".join(metrics),
           sys.executable, str(Path(__file__).resolve()), "--child"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=150, stdin=subprocess.DEVNULL)
    except (subprocess.TimeoutExpired, OSError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    out = done.stdout
    start = out.find('"ID"')
    if start < 0:
        return {"error": " ".join((done.stderr + out).split())[-600:]}
    found = {}
    for row in csv.DictReader(io.StringIO(out[start:])):
        m = re.search(r"gemm_(?:naive|tiled)(?:_rows)?_kernel", row.get("Kernel Name", ""))
        name = m.group(0) if m else row.get("ID", "?")
        value = row.get("Metric Value", "").replace(",", "")
        try:
            found.setdefault(name, {})[row["Metric Name"]] = float(value)
        except ValueError:
            found.setdefault(name, {})[row["Metric Name"]] = value
    return found


def sass_mix(kernel) -> dict:
    """Static counts of ten opcode families in the kernel's SASS (FFMA, LDS, LDG, STS, STG, BAR,
    IMAD, IADD3, ISETP, BRA), by opcode with its width suffix; every other opcode is left out,
    so the counts are part of the compiled kernel, not all of it."""
    try:
        listing = "\n".join(kernel.inspect_sass().values())
    except Exception as exc:  # no nvdisasm: say so, keep the rest
        return {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"}
    ops = {}
    for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", listing):
        op = m.group(1)
        if op.split(".")[0] in ("FFMA", "LDS", "LDG", "STS", "STG", "BAR", "IMAD", "IADD3", "ISETP", "BRA"):
            ops[op] = ops.get(op, 0) + 1
    return ops


def main(out: str) -> int:
    import numpy as np
    from numba import cuda
    started = time.perf_counter()
    a, b, c = g.setup()
    want = a.copy_to_host() @ b.copy_to_host()
    before = gpu_snapshot()
    result = {"date": now_iso(), "n": g.N, "tile": g.TILE, "n_flops": g.N_FLOPS, "variants": {}}
    for name, launcher in g.VARIANTS:
        fn = getattr(g, launcher)
        fn(a, b, c)
        cuda.synchronize()
        c.copy_to_device(np.full((g.N, g.N), np.nan, np.float32))
        fn(a, b, c)
        exact = bool(np.array_equal(c.copy_to_host(), want))
        times = []
        for _ in range(20):
            e0, e1 = cuda.event(), cuda.event()
            e0.record()
            fn(a, b, c)
            e1.record()
            e1.synchronize()
            times.append(cuda.event_elapsed_time(e0, e1) / 1e3)
        times.sort()
        median = times[len(times) // 2]
        result["variants"][name] = {"launcher": launcher, "kernel": g.kernels()[launcher].py_func.__name__, "exact": exact,
                                    "median_s": median, "spread": (times[-1] - times[0]) / median,
                                    "gflops": g.N_FLOPS / median / 1e9, "sass": sass_mix(g.kernels()[launcher])}
        print(f"{name}: {median * 1e3:.3f} ms, {g.N_FLOPS / median / 1e12:.2f} TFLOP/s, exact {exact}", flush=True)
    result["gpu_before"], result["gpu_after"] = before, gpu_snapshot()
    for run, metrics in METRIC_RUNS.items():
        got = run_ncu(metrics)
        result.setdefault("ncu", {})[run] = got
        print(f"ncu {run}: {json.dumps(got)[:1500]}", flush=True)
    result["ncu_command"] = "ncu --clock-control none --cache-control all --profile-from-start off --csv --print-units base"
    result["took_s"] = time.perf_counter() - started
    write_atomic(out, json.dumps(result, indent=1) + "\n", RuntimeError)
    print(f"wrote {out} in {result['took_s']:.0f} s")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        sys.exit(child())
    sys.exit(main(sys.argv[1]))
