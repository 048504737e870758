#!/usr/bin/env python3
"""How long the ncu importer takes on a large profile: 20,000 launches of the raw page.

The CSV is built from the recorded H200 profile that ships with the course
(``rooflinelib/data/h200_ncu_lab4.csv``: ncu's raw page, its ~340 columns of metrics and
device attributes, its units line), its launches repeated with fresh IDs up to ``--launches``.
Each run times :func:`rooflinelib.hierarchy.ncu.load_csv` on that file, read and parse both
(the one read path included), then asks every launch for its time, FLOPs and bytes per level,
which is what ``lab4_ncu.py show`` does first.  Prints each run and the median, and, with
``--out FILE``, writes them as JSON.

    python3 benchmarks/ncu_parse.py                     # 20,000 launches, 5 runs
    python3 benchmarks/ncu_parse.py --launches 2000 --runs 3
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rooflinelib.store.fileio import write_atomic  # noqa: E402
from rooflinelib.hierarchy import ncu  # noqa: E402


def big_csv(launches: int) -> str:
    """The recorded raw-page CSV with its launches repeated to ``launches`` rows."""
    lines = ncu.recorded_csv().read_text(encoding="utf-8").splitlines()
    header_at = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    head, units, rows = lines[:header_at + 1], lines[header_at + 1], lines[header_at + 2:]
    rows = [next(csv.reader([r])) for r in rows if r.startswith('"')]
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    out.write("\n".join(head + [units]) + "\n")
    for i in range(launches):
        cells = list(rows[i % len(rows)])
        cells[0] = str(i)
        writer.writerow(cells)
    return out.getvalue()


def one_run(path: Path) -> dict:
    started = time.perf_counter()
    kernels = ncu.load_csv(path)
    parsed = time.perf_counter()
    for k in kernels:
        k.seconds, k.n_flops, k.bytes_by_level
    done = time.perf_counter()
    return {"launches": len(kernels), "load_s": parsed - started, "total_s": done - started}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", help="write the runs and the median as JSON here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.csv"
        write_atomic(path, big_csv(args.launches))
        size_mb = path.stat().st_size / 1e6
        runs = []
        for i in range(args.runs):
            run = one_run(path)
            runs.append(run)
            print(f"run {i + 1}: {run['launches']} launches, load {run['load_s']:.2f} s, "
                  f"with time/FLOPs/bytes {run['total_s']:.2f} s", flush=True)
    median = statistics.median(r["total_s"] for r in runs)
    print(f"{args.launches} launches ({size_mb:.1f} MB): median {median:.2f} s over {len(runs)} runs "
          f"(load alone {statistics.median(r['load_s'] for r in runs):.2f} s)")
    if args.out:
        write_atomic(args.out, json.dumps({
            "launches": args.launches, "size_mb": round(size_mb, 1), "runs": runs,
            "median_total_s": median, "cpus": os.cpu_count(), "python": platform.python_version(),
            "machine": platform.processor() or platform.machine()}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
