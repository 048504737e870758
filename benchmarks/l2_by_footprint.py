"""The L2 ceiling's kernel at every footprint from 0.5 to 50 MB, on both GPU backends, verified.

    python3 benchmarks/l2_by_footprint.py [--out FILE] [--ncu DIR]

Lab 1's ``l2`` reads working sets of 1/4 to 2/5 of the L2 the device reports (16-25 MB on the
H200) and keeps the best.  This sweep runs the same kernel (``l2_slab``: many short blocks,
16-byte ``ld.global.cg`` loads, every block's sums checked) at the footprints gpu-benches'
gpu-l2-cache reports for the same card, so that the two curves can be set side by side
(benchmarks/REPORT.md).  Rates are the bytes the SMs requested per second (GB/s, 10^9); where
requests merge before the L2's slices (small footprints, many blocks on one chunk), the slices
serve fewer: ncu's lts__t_bytes says how many (benchmarks/l2_vs_peer.py).

Writes docs/measurements/l2_by_footprint_<machine>.json unless --out says where.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rooflinelib.store import fileio  # noqa: E402

FOOTPRINTS_MB = (0.5, 1, 2, 4, 6, 8, 10, 12, 16, 20, 25, 30, 35, 40, 50)
#: The footprints profiled under ncu (``--ncu``): fewer, each launched twice.
NCU_FOOTPRINTS_MB = (0.5, 1, 2, 4, 8, 16, 25, 40, 50)


def _sizes(footprints_mb) -> list:
    from rooflinelib.measure import accounting as acc
    from rooflinelib.measure.gpu_backends import L2_ITERS
    group = L2_ITERS * acc.CHUNK_BYTES
    return sorted({max(1, round(mb * 1e6 / group)) * group for mb in footprints_mb})


def launch(backend_name: str) -> None:
    """What ncu profiles: each NCU footprint's run verified once, then launched once more (the
    warm launch); the runs' footprints and requested bytes go to stdout as JSON."""
    from rooflinelib.measure.backend import open_backend
    from rooflinelib.measure.protocol import launch_verified
    b = open_backend(backend_name)
    rows = []
    for run in b.l2_runs(working_sets=_sizes(NCU_FOOTPRINTS_MB)):
        launch_verified(b, "l2", run)
        run.launch()
        b.synchronize()
        rows.append({"working_set_bytes": run.config["working_set_bytes"], "requested_bytes": run.work.n_bytes,
                     "grid": run.config["grid"]})
    print(json.dumps(rows))


def profile(out: Path) -> dict:
    """The L2's slices' own rate at each footprint (lts__t_bytes / gpu__time_duration) and the
    share of the requested bytes they served, under ncu (numba backend)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from l2_vs_peer import _profile, _rate
    out.mkdir(parents=True, exist_ok=True)
    kernels, stdout = _profile(out, "footprint_numba", [sys.executable, str(Path(__file__).resolve()),
                                                        "--launch", "numba"], "l2_slab")
    runs = json.loads(stdout.strip().splitlines()[-1])
    rows = []
    for i, k in enumerate(kernels):  # two profiled launches per footprint, in order
        r = _rate(k)
        run = runs[i // 2]
        r.update(working_set_bytes=run["working_set_bytes"], requested_bytes=run["requested_bytes"],
                 served_fraction=r["lts_bytes"] / run["requested_bytes"],
                 sm_gbps=run["requested_bytes"] / r["seconds"] / 1e9, launch=i % 2)
        rows.append(r)
    return {"metric": "slices: lts__t_bytes.sum / gpu__time_duration.sum; SMs: requested bytes / the same time",
            "rows": rows}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None)
    parser.add_argument("--launch", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--ncu", default=None, metavar="DIR",
                        help="also profile the footprints under ncu, writing its CSV and the rates into DIR")
    args = parser.parse_args(argv)
    if args.launch:
        launch(args.launch)
        return 0
    from rooflinelib.measure.backend import open_backend
    from rooflinelib.measure.gpu_backends import l2_working_sets
    from rooflinelib.measure.protocol import measure_run
    sizes = _sizes(FOOTPRINTS_MB)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    report = {"benchmark": "l2_by_footprint", "created": started, "backends": {}}
    for name in ("numba", "cupy"):
        b = open_backend(name)
        b.warm_up(0.5)
        lab1_sets = l2_working_sets(getattr(b, "l2_bytes", None))
        rows = []
        for run in b.l2_runs(working_sets=sizes):
            m = measure_run(b, "l2", "memory", run)
            rows.append({"working_set_bytes": run.config["working_set_bytes"], "gbps": m.value,
                         "spread": m.timing.spread, "grid": run.config["grid"],
                         "lab1_footprint": run.config["working_set_bytes"] in lab1_sets})
            print(f"{name} {rows[-1]['working_set_bytes'] / 1e6:6.1f} MB {m.value:10,.0f} GB/s", file=sys.stderr)
        b.release()
        report["backends"][name] = {"rows": rows, "lab1_working_sets": list(lab1_sets),
                                    "reported_l2_bytes": getattr(b, "l2_bytes", None)}
        report["device"] = b.device_facts()
    if args.ncu:
        report["ncu"] = profile(Path(args.ncu))
        for r in report["ncu"]["rows"]:
            if r["launch"] == 1:
                print(f"ncu {r['working_set_bytes'] / 1e6:6.1f} MB: SMs {r['sm_gbps']:,.0f} GB/s, slices "
                      f"{r['slices_gbps']:,.0f} GB/s, served {r['served_fraction']:.3f}", file=sys.stderr)
    machine = "h200" if "H200" in report["device"]["name"] else "gpu"
    out = Path(args.out) if args.out else ROOT / "docs" / "measurements" / f"l2_by_footprint_{machine}.json"
    fileio.write_atomic(out, json.dumps(report, indent=1) + "\n", OSError)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
