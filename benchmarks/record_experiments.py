"""Record the notebooks' experiments on a GPU, for the course to ship as its recorded runs.

    python3 benchmarks/record_experiments.py [--out rooflinelib/data/h200_experiments_numba.json]
                                            [--only softmax,transpose] [--cpu-fallback]

Runs every experiment of :data:`rooflinelib.experiments.CATALOGUE` that the Numba-CUDA backend
has, prints each table as it goes, and writes one ``rooflinelib-experiments`` file.  Notebooks
03, 04 and 06 load that file when nothing can be measured (``experiments.experiment_for``).
An experiment that fails (including a failed verification) is reported and left out; the exit
status is 1 when any failed.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv=None) -> int:
    from rooflinelib import experiments
    from rooflinelib.views import tables
    from rooflinelib.experiments import gpu, record

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=record.recorded_path("numba"))
    parser.add_argument("--only", default="", help="comma-separated experiment names")
    args = parser.parse_args(argv)
    names = [n for n in (args.only.split(",") if args.only else experiments.CATALOGUE) if n]
    unknown = [n for n in names if n not in experiments.CATALOGUE]
    if unknown:
        print(f"--only: unknown experiment(s) {', '.join(unknown)}", file=sys.stderr)
        return 2
    done, failed = [], []
    for name in names:
        if not hasattr(gpu, f"run_{name}"):
            print(f"{name}: no GPU version; the notebooks run it on the CPU", file=sys.stderr)
            continue
        print(f"== {name}", file=sys.stderr)
        try:
            result = experiments.run(name, "numba", progress=lambda t: print(t, file=sys.stderr))
        except Exception as exc:
            failed.append(name)
            print(f"{name}: FAILED {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        done.append(result)
        print(tables.experiment_text(result))
        print()
    if done:
        record.save_experiments(done, args.out)
        print(f"wrote {args.out} ({len(done)} experiments)", file=sys.stderr)
    return 1 if failed or not done else 0


if __name__ == "__main__":
    sys.exit(main())
