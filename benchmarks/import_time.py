"""How long ``import rooflinelib`` takes in a fresh interpreter: the course's target is 0.1 s.

    .venv/bin/python benchmarks/import_time.py [--runs 21] [--out docs/measurements/import_time.json]

Each run starts a new Python and times the import alone (``time.perf_counter`` around it, the
interpreter's own start-up excluded), and checks that none of numba, cupy, plotly or ipywidgets
came with it.  Reports the median, the 90th percentile and the maximum.
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

TARGET_S = 0.1
HEAVY = ("numba", "cupy", "plotly", "ipywidgets", "numpy")
PROBE = ("import sys, time, json; t = time.perf_counter(); import rooflinelib; "
         "d = time.perf_counter() - t; "
         f"print(json.dumps([d, [m for m in {HEAVY!r} if m in sys.modules]]))")


def run(runs: int) -> dict:
    times, loaded = [], set()
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
        seconds, heavy = json.loads(done.stdout)
        times.append(seconds)
        loaded.update(heavy)
    times.sort()
    return {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": {"platform": platform.platform(), "python": platform.python_version()},
            "runs": runs, "median_s": statistics.median(times),
            "p90_s": times[int(0.9 * (len(times) - 1))], "max_s": times[-1],
            "target_s": TARGET_S, "meets_target": statistics.median(times) <= TARGET_S,
            "heavy_modules_loaded": sorted(loaded)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs" / "measurements" / "import_time.json"))
    args = parser.parse_args(argv)
    result = run(args.runs)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from rooflinelib.store.fileio import write_atomic
    write_atomic(args.out, json.dumps(result, indent=1) + "\n")
    print(f"import rooflinelib: median {result['median_s'] * 1e3:.1f} ms, p90 {result['p90_s'] * 1e3:.1f} ms, "
          f"max {result['max_s'] * 1e3:.1f} ms over {args.runs} runs (target {TARGET_S * 1e3:.0f} ms); "
          f"heavy modules loaded: {result['heavy_modules_loaded'] or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
