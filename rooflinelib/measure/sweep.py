"""Lab 3: the intensity sweep, and what is read off it (the ridge and the knee).

One kernel, K fused multiply-adds per float32 element, K = 0 .. 1024, so I = K/4 FLOP/byte
walks the whole roofline.  K = 0 is a pure copy: the sweep calibrates its own
bandwidth roof.  The ridge is computed from the sweep's two ends, max GFLOP/s over max GB/s,
never asserted; the knee is located from the shape of the curve alone (:func:`knee`), so the
two can be compared.
"""
from __future__ import annotations

import math

from rooflinelib.store import results
from rooflinelib.measure.accounting import sweep_intensity
from rooflinelib.measure.protocol import best, measure_run
from rooflinelib.measure.backend import buffer_bytes, open_backend

#: Powers of two as in the seed, plus steps of 8 between 16 and 128 where the H100/H200-class
#: knee lies (K ~ 60), so that "the knee within one K step of P/B" is a sharp test.
DEFAULT_KS = (0, 1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128, 160, 192, 256,
              384, 512, 768, 1024)


def knee(rows: list):
    """Where the measured curve turns: the intensity at which the log-log slope of GFLOP/s
    against I falls through 1/2 (1 on the memory roof, 0 on the compute roof; any blend of
    the two bounds that is symmetric about the ridge crosses 1/2 exactly there).

    Returns ``{"intensity": I, "k": nearest swept K}``, or None if the curve never turns
    (all points on one roof).
    """
    pts = [(math.log(r["intensity"]), math.log(r["gflops"])) for r in rows
           if r["k"] > 0 and r["gflops"] > 0]
    slopes = []  # (log-I midpoint, slope)
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        slopes.append(((x0 + x1) / 2, (y1 - y0) / (x1 - x0)))
    for (m0, s0), (m1, s1) in zip(slopes, slopes[1:]):
        if s0 >= 0.5 > s1:
            x = m0 + (s0 - 0.5) / (s0 - s1) * (m1 - m0)
            intensity = math.exp(x)
            return {"intensity": intensity, "k": nearest_k(rows, intensity)}
    return None


def nearest_k(rows: list, intensity: float) -> int:
    """The swept K whose intensity is closest to ``intensity`` on a log scale."""
    swept = [r for r in rows if r["k"] > 0]
    return min(swept, key=lambda r: abs(math.log(r["intensity"] / intensity)))["k"]


def steps_between(rows: list, k_a: int, k_b: int) -> int:
    """How many sweep steps apart two swept K values are."""
    ks = [r["k"] for r in rows]
    return abs(ks.index(k_a) - ks.index(k_b))


def summarize(rows: list) -> dict:
    """peak_gflops, peak_gbps and ridge from the sweep's own ends, plus the knee."""
    peak_gflops = max(r["gflops"] for r in rows)
    peak_gbps = max(r["gbps"] for r in rows)
    return {"peak_gflops": peak_gflops, "peak_gbps": peak_gbps,
            "ridge": peak_gflops / peak_gbps, "knee": knee(rows)}


def sweep_point(backend, k: int, buffers, all_ks=(), vectors_per_thread=None, progress=None):
    """One verified sweep point: every launch configuration the backend offers for ``k``,
    measured by the protocol, the fastest reported (its details keep every variant)."""
    tried = [measure_run(backend, "sweep", "compute", run)
             for run in backend.sweep_runs(k, buffers, all_ks, vectors_per_thread)]
    return best(tried)


def run_sweep(backend="auto", ks=None, size_mib: float = None, repeats: int = None,
              progress=None, vectors_per_thread: int = None) -> dict:
    """Run Lab 3 and return a validated ``sweep`` result (see :mod:`rooflinelib.store.results`).

    ``backend``: 'auto', 'numba', 'cupy', 'cpu' or a backend object.  ``size_mib``: each of
    the two buffers (default: the backend's).
    ``vectors_per_thread``: on a GPU, the launch configurations tried at every K (an int or a
    tuple; 1: one vector per thread, 2 or more: the software-pipelined kernel walking that
    many; default engine.SWEEP_VECTOR_CONFIGS).  Each row reports the fastest; its details
    name the chosen one and keep every variant's rates.
    Every variant is verified bit for bit; a failed one raises VerificationError and nothing
    is returned.
    """
    b = open_backend(backend, progress) if isinstance(backend, str) else backend
    ks = tuple(int(k) for k in (ks if ks is not None else (b.sweep_ks or DEFAULT_KS)))
    if not ks or ks[0] != 0 or any(k1 <= k0 for k0, k1 in zip(ks, ks[1:])):
        raise ValueError("ks: must start at 0 and increase")
    if repeats:
        b.repeats = int(repeats)
    size_bytes = buffer_bytes(size_mib, b.default_buffer_bytes)
    if vectors_per_thread is not None and not isinstance(vectors_per_thread, (int, float)):
        vectors_per_thread = tuple(int(v) for v in vectors_per_thread)
    elif vectors_per_thread is not None:
        vectors_per_thread = int(vectors_per_thread)
    buffers = b.sweep_buffers(size_bytes)
    session = b.start()
    rows, details, jit = [], [], {}
    for i, k in enumerate(ks):
        m = sweep_point(b, k, buffers, ks, vectors_per_thread)
        row = {"k": k, "intensity": sweep_intensity(k), "gbps": m.gbps, "gflops": m.gflops,
               "verified": True}
        rows.append(row)
        details.append(m.detail())
        variants = m.extra["configs_tried"]
        # first calls (compilation included) of every variant, kept out of the rates
        jit[f"k={k}"] = sum(v["first_call_s"] for v in variants)
        if progress:
            chosen = m.config.get("vectors_per_thread")
            note = f"  x{chosen} of {len(variants)}" if len(variants) > 1 else ""
            progress(f"[{i + 1}/{len(ks)}] K={k:5d}  I={row['intensity']:7.2f}  "
                     f"{row['gbps']:10,.0f} GB/s  {row['gflops']:11,.0f} GFLOP/s  verified{note}")
    del buffers
    b.release()
    device = b.finish(session)
    summary = summarize(rows)
    result = {
        "format": results.FORMAT, "version": results.VERSION, "kind": "sweep",
        "backend": b.name, "scope": b.scope, "created": session["started"],
        "device": device, "dtype": "float32", "bytes_per_element": 8,
        "rows": rows, "ridge": summary["ridge"], "peak_gflops": summary["peak_gflops"],
        "peak_gbps": summary["peak_gbps"], "knee": summary["knee"],
        "details": details, "jit_seconds": jit, "notes": b.result_notes(device),
    }
    return results.validate(result)
