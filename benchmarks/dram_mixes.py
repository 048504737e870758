"""DRAM by access mix: Lab 1's dram-read, dram-write and dram-copy ceilings beside the best
reference kernels of each mix, measured side by side in one run.

    python benchmarks/dram_mixes.py [--size-mib MIB] [--rounds N] [--out FILE]

On a GPU (Numba-CUDA and CuPy, each as Lab 1 measures them): the references are torch.sum and
cupy.sum (read), torch's fill_ and cupy's fill (write), torch's copy_ and cupy.copyto (copy),
each timed with device events around every call behind an untimed call, the median of the
repeats, as Lab 1 times its own kernels (a copy captured in a CUDA graph becomes a memcpy
node and runs slower: not done here).  Targets: each mix at least 0.98 x the best reference of
that mix, and no reference of any mix above 1.01 x Lab 1's dram.

On the CPU: the reference is benchmarks/dram_mixes_ref.c, a STREAM-style sum, fill and copy
compiled here (cc -O3 -march=native -fopenmp) into a temporary folder, run on as many OpenMP
threads as Numba uses, best of a window of trials, as Lab 1 takes its CPU rates.  Target: each
mix at least 0.95 x the reference.  A shared machine slows either side at random, so the two
take turns for ``--rounds`` rounds and each keeps its best round; the medians of the same
trials sit beside the best (``median_gbps``, ``median_ratio_to_reference``), because one
lucky trial can carry a best.  The reference's fill and copy, like Lab 1's, are ordinary vector
stores, so each written line is first read into the cache (write-allocate); the reference also
runs a fill and a copy with streaming stores, which skip that read, and reports them beside the
target as "C write (streaming stores)" and "C copy (streaming stores)"
(``ratio_to_streaming_store_reference``): what memcpy-style code reaches, not the target.

Every rate is GB/s (10^9 bytes) of the bytes the program asks for: a read of N bytes, a write
of N bytes, a copy of N bytes in and N out.  Writes to docs/measurements/dram_mixes_<machine>.json
(machine: h200 on an H200, cpu otherwise) unless --out says where.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rooflinelib.store import fileio  # noqa: E402
from rooflinelib.measure import registry  # noqa: E402
from rooflinelib.measure.timing import cupy_events, time_with_events, torch_events  # noqa: E402

MIXES = ("read", "write", "copy")
GPU_TARGET, GPU_ABOVE_DRAM, CPU_TARGET = 0.98, 1.01, 0.95
REPEATS = 20


def lab1(backend, size_bytes: int) -> dict:
    """The three mixes and dram, through the registry rows Lab 1 plans."""
    options = registry.Options(size_bytes)
    out = {}
    for row in registry.parts_of("dram"):
        m = registry.get(row).measure(backend, options)
        out[registry.MIX_OF[row]] = {
            "gbps": m.value, "kernel": m.kernel, "spread": m.timing.spread, "rule": m.timing.rule,
            "median_gbps": m.work.n_bytes / m.timing.median_s / 1e9,
            "config": m.config, "n_bytes": m.work.n_bytes,
            "configs_tried": [{"kernel": t["kernel"], "gbps": t["gbps"]} for t in m.extra["configs_tried"]]}
    dram = registry.get("dram").measure(backend, options)
    out["dram"] = {"gbps": dram.value, "mix": dram.extra["mix"]}
    return out


def best_of(rounds: list) -> dict:
    """Each entry's best round (the highest rate of its mixes), kept whole."""
    top = {}
    for r in rounds:
        for key, value in r.items():
            if key not in top or value["gbps"] > top[key]["gbps"]:
                top[key] = value
    return top


# ---------------------------------------------------------------------------------------------
# the GPU


def vendor_gpu(size_bytes: int) -> dict:
    """torch and CuPy streams over the buffers Lab 1 uses: the read and the write over two
    buffers' worth, the copy between two buffers of ``size_bytes``."""
    import cupy
    import torch
    n_stream, n_copy = 2 * size_bytes // 4, size_bytes // 4
    out = {}

    def rate(name, mix, launch, events, n_bytes):
        t = time_with_events(launch, events, REPEATS, 2, prime=launch)
        out[name] = {"mix": mix, "gbps": n_bytes / t.seconds / 1e9, "spread": t.spread}

    tev = torch_events()
    x = torch.ones(n_stream, device="cuda", dtype=torch.float32)
    a = torch.ones(n_copy, device="cuda", dtype=torch.float32)
    b = torch.empty_like(a)
    rate("torch.sum", "read", lambda: torch.sum(x), tev, 4.0 * n_stream)
    rate("torch fill_", "write", lambda: x.fill_(1.0), tev, 4.0 * n_stream)
    rate("torch copy_", "copy", lambda: b.copy_(a), tev, 8.0 * n_copy)
    del x, a, b
    torch.cuda.empty_cache()
    cev = cupy_events()
    x = cupy.ones(n_stream, dtype=cupy.float32)
    a = cupy.ones(n_copy, dtype=cupy.float32)
    b = cupy.empty_like(a)
    rate("cupy.sum", "read", lambda: cupy.sum(x), cev, 4.0 * n_stream)
    rate("cupy fill", "write", lambda: x.fill(1.0), cev, 4.0 * n_stream)
    rate("cupy.copyto", "copy", lambda: cupy.copyto(b, a), cev, 8.0 * n_copy)
    del x, a, b
    cupy.get_default_memory_pool().free_all_blocks()
    return out


def run_gpu(size_bytes: int, rounds: int, progress) -> dict:
    from rooflinelib.measure.gpu_backends import CupyGpu, NumbaGpu
    from rooflinelib.measure.provenance import gpu_snapshot
    backends = {"numba": NumbaGpu(), "cupy": CupyGpu()}
    backends["numba"].warm_up(1.0)
    before = gpu_snapshot()
    ours = {name: [] for name in backends}
    theirs = []
    for r in range(rounds):
        for name, b in backends.items():
            progress(f"round {r + 1}: Lab 1 on {name}")
            ours[name].append(lab1(b, size_bytes))
            b.release()
        progress(f"round {r + 1}: torch and CuPy")
        theirs.append(vendor_gpu(size_bytes))
    after = gpu_snapshot()
    ours = {name: best_of(rs) for name, rs in ours.items()}
    theirs = best_of(theirs)
    best_vendor = {mix: max(v["gbps"] for v in theirs.values() if v["mix"] == mix) for mix in MIXES}
    top_vendor = max(theirs.items(), key=lambda kv: kv[1]["gbps"])
    verdicts = {}
    for name, mixes in ours.items():
        ratios = {mix: mixes[mix]["gbps"] / best_vendor[mix] for mix in MIXES}
        dram = mixes["dram"]["gbps"]
        verdicts[name] = {
            "ratio_to_best_vendor": ratios,
            f"every_mix_at_least_{GPU_TARGET}": all(v >= GPU_TARGET for v in ratios.values()),
            "best_vendor_over_dram": top_vendor[1]["gbps"] / dram, "best_vendor": top_vendor[0],
            f"no_vendor_above_{GPU_ABOVE_DRAM}_x_dram": top_vendor[1]["gbps"] <= GPU_ABOVE_DRAM * dram}
    return {"device": backends["numba"].device_facts(), "clocks_before": before, "clocks_after": after,
            "lab1": ours, "vendor": theirs, "best_vendor": best_vendor, "targets": verdicts}


# ---------------------------------------------------------------------------------------------
# the CPU


def build_reference(folder: Path) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise SystemExit("cc: no C compiler on the PATH; the CPU reference needs one")
    exe = folder / "dram_mixes_ref"
    subprocess.run([cc, "-O3", "-march=native", "-fopenmp", "-o", str(exe),
                    str(ROOT / "benchmarks" / "dram_mixes_ref.c")], check=True)
    return exe


def reference_cpu(exe: Path, size_bytes: int, threads: int, window_s: float) -> dict:
    n_stream, n_copy = 2 * size_bytes // 4, size_bytes // 4
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    done = subprocess.run([str(exe), str(n_stream), str(n_copy), str(window_s)], env=env,
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"reference: exit {done.returncode}: {done.stderr.strip()[:200]}")
    got = json.loads(done.stdout)
    if got["verified"] is not True:
        raise SystemExit("reference: its output failed its own check")
    out = {f"C {mix}": {"mix": mix, "stores": "regular", "gbps": got[f"{mix}_gbps"],
                        "median_gbps": got[f"{mix}_median_gbps"], "trials": got["trials"][i]}
           for i, mix in enumerate(MIXES)}
    for i, mix in ((3, "write"), (4, "copy")):
        if got[f"{mix}_nt_gbps"] is not None:  # null where the compiler has no SSE2/AVX
            out[f"C {mix} (streaming stores)"] = {
                "mix": mix, "stores": "streaming", "gbps": got[f"{mix}_nt_gbps"],
                "median_gbps": got[f"{mix}_nt_median_gbps"], "trials": got["trials"][i]}
    return out


def run_cpu(size_bytes: int, rounds: int, window_s: float, progress) -> dict:
    from rooflinelib.measure.cpu import CpuBackend
    backend = CpuBackend(repeats=10, window_s=window_s)
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_reference(Path(tmp))
        ours, theirs = [], []
        for r in range(rounds):
            progress(f"round {r + 1}: the C reference")
            theirs.append(reference_cpu(exe, size_bytes, backend.threads, window_s))
            progress(f"round {r + 1}: Lab 1 on the CPU")
            ours.append(lab1(backend, size_bytes))
    ours, theirs = best_of(ours), best_of(theirs)
    # the target compares like with like: the reference's ordinary stores, as Lab 1's kernels
    reference = {mix: theirs[f"C {mix}"]["gbps"] for mix in MIXES}
    ratios = {mix: ours[mix]["gbps"] / reference[mix] for mix in MIXES}
    medians = {mix: ours[mix]["median_gbps"] / theirs[f"C {mix}"]["median_gbps"] for mix in MIXES}
    streaming = {mix: ours[mix]["gbps"] / theirs[f"C {mix} (streaming stores)"]["gbps"]
                 for mix in ("write", "copy") if f"C {mix} (streaming stores)" in theirs}
    return {"device": backend.provenance(), "lab1": {"cpu": ours}, "vendor": theirs,
            "best_vendor": reference, "reference_stores": "regular (vmovups; write-allocate), as Lab 1's",
            "targets": {"cpu": {"ratio_to_best_vendor": ratios,
                                f"every_mix_at_least_{CPU_TARGET}": all(v >= CPU_TARGET for v in ratios.values()),
                                "median_ratio_to_reference": medians,
                                "ratio_to_streaming_store_reference": streaming}}}


def gpu_present() -> bool:
    from rooflinelib.measure.backend import probe_cupy, probe_numba
    return probe_numba().ok and probe_cupy().ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=float, default=None,
                        help="each copy buffer in MiB (the read and the write stream twice this); "
                             "default Lab 1's: 1024 on a GPU, the CPU's own rule otherwise")
    parser.add_argument("--rounds", type=int, default=None, help="rounds of turns (default 2 GPU, 3 CPU)")
    parser.add_argument("--window-s", type=float, default=3.0, help="CPU: seconds of trials per rate")
    parser.add_argument("--out", default=None, help="the JSON file to write")
    args = parser.parse_args(argv)

    def progress(line):
        print(line, file=sys.stderr, flush=True)

    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_before = os.getloadavg()  # on a shared machine, how busy it was says how far to trust the CPU ratios
    if gpu_present():
        size = int((args.size_mib or 1024) * 2 ** 20)
        report = run_gpu(size, args.rounds or 2, progress)
        machine = "h200" if "H200" in report["device"]["name"] else "gpu"
    else:
        from rooflinelib.measure.cpu import CpuBackend
        size = int(args.size_mib * 2 ** 20) if args.size_mib else CpuBackend(repeats=1).default_buffer_bytes
        report = run_cpu(size, args.rounds or 3, args.window_s, progress)
        machine = "cpu"
    report = {"benchmark": "dram_mixes", "created": started, "machine": machine,
              "copy_buffer_bytes": size, "stream_buffer_bytes": 2 * size,
              "load_average_1_5_15_min": {"before": load_before, "after": os.getloadavg()}, **report}
    out = Path(args.out) if args.out else ROOT / "docs" / "measurements" / f"dram_mixes_{machine}.json"
    fileio.write_atomic(out, json.dumps(report, indent=1, default=str) + "\n", OSError)
    for name, verdict in report["targets"].items():
        ratios = ", ".join(f"{mix} {verdict['ratio_to_best_vendor'][mix]:.3f}" for mix in MIXES)
        print(f"{name}: {ratios} of the best reference of each mix; dram = "
              f"{report['lab1'][name]['dram']['mix']} {report['lab1'][name]['dram']['gbps']:,.0f} GB/s")
        if "median_ratio_to_reference" in verdict:
            medians = ", ".join(f"{mix} {v:.3f}" for mix, v in verdict["median_ratio_to_reference"].items())
            nt = ", ".join(f"{mix} {v:.3f}" for mix, v in verdict["ratio_to_streaming_store_reference"].items())
            print(f"{name}: medians {medians}; against streaming stores {nt}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
