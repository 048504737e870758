#!/usr/bin/env python3
"""Host <-> device bandwidth: Lab 1's pcie-h2d and pcie-d2h ceilings, and the same copies on the
same pinned buffers through torch and CuPy, side by side in one run.

    python3 benchmarks/pcie_vs_references.py OUTDIR

Writes ``pcie.json`` (every rate, the ratios) and ``h200_interconnect_{numba,cupy}.json`` (Lab 1
result files holding the two link ceilings, pinned, with the pageable runs in their details).
One pinned host buffer and one device buffer of 256 MiB serve every side of the comparison:
torch's ``copy_(non_blocking=True)``, CuPy's ``set``/``get``, and the two backends' own copies,
in alternating rounds, each timed with device events behind an untimed copy (median of 10).
Every copy is checked bit for bit before it is timed.
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROUNDS = 6
REPEATS = 10


def _events_cupy(launch, repeats=REPEATS):
    import cupy as cp
    launch()
    samples = []
    for _ in range(repeats):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        launch()
        start.record()
        launch()
        end.record()
        end.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    return statistics.median(samples)


def _events_torch(launch, repeats=REPEATS):
    import torch
    launch()
    samples = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        launch()
        start.record()
        launch()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1e3)
    return statistics.median(samples)


def main(out: Path) -> dict:
    import cupy as cp
    import numpy as np
    import torch
    from numba import cuda

    from rooflinelib.store import results
    from rooflinelib.measure import registry
    from rooflinelib.measure.expected import fill_values
    from rooflinelib.measure.gpu_backends import LINK_BYTES, CupyGpu, NumbaGpu
    from rooflinelib.measure.provenance import now_iso

    report = {"created": now_iso(), "bytes": LINK_BYTES, "rounds": ROUNDS, "repeats": REPEATS}
    # 1. Lab 1's ceilings, as Lab 1 measures them, and their result files
    for name, backend in (("numba", NumbaGpu()), ("cupy", CupyGpu())):
        options = registry.Options(LINK_BYTES)
        session = backend.start()
        done = [registry.get(c).measure(backend, options) for c in ("pcie-h2d", "pcie-d2h")]
        result = {"format": results.FORMAT, "version": results.VERSION, "kind": "ceilings", "backend": name,
                  "scope": "gpu", "created": session["started"], "device": backend.finish(session),
                  "ceilings": [m.ceiling_row() for m in done], "details": [m.detail() for m in done],
                  "jit_seconds": {m.name: m.first_call_s for m in done},
                  "notes": ["Host <-> device ceilings only (benchmarks/pcie_vs_references.py): pinned host "
                            "memory; the pageable copies are in each ceiling's configs_tried."]}
        results.save(result, out / f"h200_interconnect_{name}.json")
        report[f"lab1_{name}"] = {m.name: {"gbps": m.value, "tried": m.extra["configs_tried"]} for m in done}
        print(name, {m.name: round(m.value, 2) for m in done}, flush=True)
    # 2. the same copies on one pinned buffer and one device buffer, every library in turn
    n = LINK_BYTES // 4
    want = fill_values(np.arange(n, dtype=np.int64)).astype(np.float32)
    host = np.frombuffer(cp.cuda.alloc_pinned_memory(4 * n), np.float32, n)
    dev = cp.empty(n, cp.float32)
    th, td = torch.from_numpy(host), torch.as_tensor(dev, device="cuda")
    nd = cuda.as_cuda_array(dev)
    report["torch_sees_pinned"] = bool(th.is_pinned())
    sides = {
        "h2d": {"torch": lambda: td.copy_(th, non_blocking=True), "cupy": lambda: dev.set(host),
                "ours_numba": lambda: nd.copy_to_device(host), "ours_cupy": CupyGpu().to_device_launcher(host, dev)},
        "d2h": {"torch": lambda: th.copy_(td, non_blocking=True), "cupy": lambda: dev.get(out=host),
                "ours_numba": lambda: nd.copy_to_host(host), "ours_cupy": CupyGpu().to_host_launcher(dev, host)},
    }
    for direction, launches in sides.items():
        rates = {k: [] for k in launches}
        for rnd in range(ROUNDS):
            order = list(launches) if rnd % 2 == 0 else list(reversed(launches))
            for side in order:
                if direction == "h2d":
                    host[:] = want
                    dev.fill(np.nan)
                    launches[side]()
                    cp.cuda.Device().synchronize()
                    ok = bool((dev == cp.asarray(want)).all())
                else:
                    dev.set(want)
                    host.fill(np.nan)
                    launches[side]()
                    cp.cuda.Device().synchronize()
                    ok = bool(np.array_equal(host, want))
                if not ok:
                    raise RuntimeError(f"{direction} {side}: the copy differs")
                timer = _events_torch if side == "torch" else _events_cupy
                rates[side].append(4.0 * n / timer(launches[side]) / 1e9)
        med = {k: statistics.median(v) for k, v in rates.items()}
        best_ref = max(med["torch"], med["cupy"])
        lab1 = {b: report[f"lab1_{b}"][f"pcie-{direction}"]["gbps"] for b in ("numba", "cupy")}
        report[direction] = {"gbps_per_round": rates, "median_gbps": med, "best_reference_gbps": best_ref,
                             "ours_same_buffers_over_best_reference": {k: med[k] / best_ref for k in ("ours_numba", "ours_cupy")},
                             "lab1_ceiling_over_best_reference": {b: lab1[b] / best_ref for b in lab1}}
        print(direction, {k: round(v, 2) for k, v in med.items()},
              {k: round(v, 4) for k, v in report[direction]["lab1_ceiling_over_best_reference"].items()}, flush=True)
    (out / "pcie.json").write_text(json.dumps(report, indent=1) + "\n")
    return report


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    main(out)
