"""Rows of numbers that notebook 06 prints beside a measurement's table: each GEMM against both
roofs (pitfall 4), the sustained run's windows (pitfall 8), the race per filter length (pitfall 7).

The notebook states what the numbers mean in its own markdown, with the recorded H200 figures
put in (issue 24: no sentences are assembled here).  :data:`TOLERANCE` is the course's one
agreement rule (a measured ratio within 15% of its prediction agrees with it).
"""
from __future__ import annotations

import math

from rooflinelib.lessons import pitfalls
from rooflinelib.store import results
from rooflinelib.core import vocabulary
from rooflinelib.core.model import Roofline
from rooflinelib.experiments.rows import sweep_curves

TOLERANCE = 0.15  # a measured ratio within 15% of its prediction agrees with it


def wrong_ceiling_rows(experiment, dram_mixes=None) -> list:
    """Each GEMM of a ``wrong_ceiling`` run placed against both compute roofs measured beside it
    (fp32 FMA and bf16 tensor) and the DRAM roof of its own access mix (notebook 03's rule):
    intensity, the roof, the fraction of it reached, the side of the ridge, the verdict's status,
    the mix and its rate.

    A GEMM reads A and B once and writes C once; at 16384 x 16384 x 128 about 98% of its bytes
    are C's writes, so it is judged against the write mix.  ``dram_mixes``: ``{mix: GB/s}``
    (default: Lab 1's recorded H200 run, :func:`rooflinelib.store.results.dram_mixes`); the run's own
    copy stands in for a mix it does not give.  A run that took its mixes from the chain
    (``dram_mixes`` in its extra) is judged against those and the compute roofs it measured; one
    without (the shipped H200 run) against the recorded Lab 1 run's compute roofs as well, so
    that notebook 06 has one fp32 and one bf16 roof, those of its opening chart.  Each row's
    ``peak_gflops`` is the compute roof P."""
    lab1 = None
    if dram_mixes is None and not experiment.extra.get("dram_mixes"):
        lab1 = results.recorded_h200()
    if dram_mixes is None:
        dram_mixes = experiment.extra.get("dram_mixes") or results.dram_mixes(results.recorded("ceilings"))
    roofs = (("fp32 FMA roof", lab1.ceiling("fp32").value if lab1 else experiment.extra["fp32_gflops"]),
             ("bf16 tensor roof", lab1.ceiling(vocabulary.BF16_TENSOR).value if lab1 else experiment.extra["bf16_tensor_gflops"]))
    rows = []
    for v in experiment.variants:
        m, n, k, size = (v.extra.get(key) for key in ("m", "n", "k", "element_bytes"))
        if None in (m, n, k, size):  # no shape recorded: only the run's own copy is known
            mix, gbps, write_share = "copy", experiment.extra["dram_gbps"], None
        else:
            reads, writes = size * (m * k + k * n), size * m * n
            mix, write_share = pitfalls.own_dram_mix(reads, writes), writes / (reads + writes)
            gbps = dram_mixes.get(mix, experiment.extra["dram_gbps"] if mix == "copy" else None)
            if gbps is None:
                raise ValueError(f"dram_mixes: no {mix!r} mix given, and the run measured only the copy")
        for label, peak in roofs:
            verdict = Roofline(peak, gbps).classify(v.intensity, v.gflops)
            rows.append({"kernel": v.name, "dtype": v.extra.get("dtype", "?"), "roof": label,
                         "intensity": v.intensity, "ridge": verdict.ridge, "achieved_gflops": v.gflops,
                         "peak_gflops": peak, "roof_gflops": verdict.roof_gflops, "fraction": verdict.fraction_of_roof,
                         "side": verdict.bound, "status": verdict.status, "dram_mix": mix,
                         "dram_gbps": gbps, "write_share": write_share})
    return rows


def sustained_rows(experiment, every_s: float = 10.0) -> list:
    """The sustained windows about ``every_s`` apart (the first and last always), with the two
    short microbenchmarks around them: label, seconds into the load, TFLOP/s, SM clock, power."""
    shorts = [v for v in experiment.variants if v.extra.get("part") == "microbenchmark"]
    windows = [v for v in experiment.variants if v.extra.get("part") == "sustained"]
    picked, next_at = [], 0.0
    for i, v in enumerate(windows):
        t = v.extra.get("elapsed_s", 0.0)
        if t >= next_at or i == len(windows) - 1:
            picked.append(v)
            next_at = t + every_s
    chosen = shorts[:1] + picked + shorts[1:]

    def row(v):
        return {"label": v.name, "elapsed_s": v.extra.get("elapsed_s"), "tflops": v.gflops / 1e3,
                "sm_clock_mhz": v.extra.get("sm_clock_mhz_median"), "power_w": v.extra.get("power_w_median")}
    return [row(v) for v in chosen]


def algorithm_sizes_rows(experiment) -> list:
    """Per filter length of an ``algorithm_sizes`` run: both times, the FLOP ratio, the winner."""
    by_m = {}
    for v in experiment.variants:
        by_m.setdefault(v.extra.get("m"), []).append(v)
    rows = []
    for m, (direct, fft) in sorted(by_m.items()):
        rows.append({"m": m, "direct_ms": direct.median_s * 1e3, "fft_ms": fft.median_s * 1e3,
                     "flop_ratio": direct.n_flops / fft.n_flops if fft.n_flops else math.inf,
                     "direct_fraction_of_peak": direct.extra.get("fraction_of_fp32_peak"),
                     "winner": "FFT" if fft.median_s < direct.median_s else "direct"})
    return rows


def pipelined_lead_rows(ks=(64,)) -> list:
    """Notebook 04's recorded H200 sweep at each K of ``ks``: one row ``{"k", "sweep_gflops",
    "pipelined_gflops", "lead"}`` per K, the one-vector ``sweep`` kernel against
    ``sweep_pipelined`` (which loads its next vector before computing on the current one),
    ``lead`` being how much faster the pipelined one ran (0.081 for 8.1%)."""
    curves = sweep_curves(results.recorded("sweep"))
    rows = []
    for k in ks:
        at = {name: next((r["gflops"] for r in curves.get(name, ()) if r["k"] == k), None)
              for name in ("sweep", "sweep_pipelined")}
        if None in at.values():
            raise ValueError(f"ks: the recorded sweep has no K = {k} for both kernels")
        rows.append({"k": k, "sweep_gflops": at["sweep"], "pipelined_gflops": at["sweep_pipelined"],
                     "lead": at["sweep_pipelined"] / at["sweep"] - 1})
    return rows
