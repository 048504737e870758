#!/usr/bin/env python3
"""The matrix ceilings on both GPU backends, in alternating rounds on the same operands.

    python3 benchmarks/matrix_backends.py OUTDIR

Both backends reach cuBLAS through CuPy, so a matrix ceiling is the same call on either; only
the timer (Numba's or CuPy's device events) differs.  Measured one Lab 1 run after the other,
they can differ by several percent because the card sits at its 700 W cap during GEMMs and its
SM clock moves with what ran before.  Here each round measures one backend and then the other
(the order alternating), with the same MatrixGemm, so each pair sees the same clock; the
ratio per round and the median of the ratios go to ``matrix_backends.json``.
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROUNDS = 16
REPEATS = 20  # timed launches per measurement: 15 ms of tf32 GEMMs sat inside one swing of the power-capped clock


def main(out: Path) -> dict:
    from rooflinelib.measure.gpu_backends import CupyGpu, NumbaGpu
    from rooflinelib.measure.matrix import MATRIX_CEILINGS, MatrixGemm, measure_matrix
    backends = {"numba": NumbaGpu(), "cupy": CupyGpu()}
    report = {"rounds": ROUNDS, "repeats": REPEATS, "n": 8192, "ceilings": {}}
    for name in MATRIX_CEILINGS:
        gemm = MatrixGemm(name, 8192)
        rates = {"numba": [], "cupy": []}
        clocks = {"numba": [], "cupy": []}
        for rnd in range(ROUNDS):
            for b in (("numba", "cupy") if rnd % 2 == 0 else ("cupy", "numba")):
                m = measure_matrix(backends[b], name, n=8192, repeats=REPEATS, gemm=gemm)
                rates[b].append(m.value)
                clocks[b].append(m.extra.get("sm_clock_mhz_during"))
        ratios = [a / c for a, c in zip(rates["numba"], rates["cupy"])]
        report["ceilings"][name] = {"numba_gflops": rates["numba"], "cupy_gflops": rates["cupy"],
                                    "sm_clock_mhz": clocks, "ratio_per_round": ratios,
                                    "ratio_median": statistics.median(ratios),
                                    "gap": abs(statistics.median(ratios) - 1)}
        print(f"{name}: numba/cupy median of {ROUNDS} paired rounds {statistics.median(ratios):.4f} "
              f"[{min(ratios):.3f} .. {max(ratios):.3f}]", flush=True)
        gemm.release()
    (out / "matrix_backends.json").write_text(json.dumps(report, indent=1) + "\n")
    return report


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    main(out)
