"""Tables that notebook 04 prints beside its prose (used by notebook 04 only).

* :func:`roof_table`: the envelope against its own roofs, at the K values the lesson argues
  from (``ks=None``: every K).
* :func:`softmax_split_brief`: what the lesson reads off the softmax's profile (two times, their difference, a rate).
* :func:`kernel_table`: the sweep's two kernels at the K values the appendix quotes, so a claim
  about one kernel (a tie, a lead, a dip) is read off printed numbers, not off the envelope.
* :func:`softmax_split_table`: the three-pass softmax in one table: its kernels' own time, the
  time outside them, and its streaming rate set against the copy's, both as counted bytes over
  measured time (like with like), with the profiler's DRAM bytes against the count.
* :func:`naive_transpose_l2_estimate`: the naive transpose's L2 sector traffic at Lab 1's L2 roof,
  against its measured time (the appendix's "about a quarter").
"""
from __future__ import annotations

from rooflinelib.core.model import side_of_ridge
from rooflinelib.experiments import rows as experiment_rows
from rooflinelib.views.tables import Column, number, render

#: The K values notebook 04's prose quotes for one kernel or the other.
QUOTED_KS = (32, 40, 48, 64, 96, 112, 128, 160, 192, 256, 1024)


def kernel_rows(result, ks=QUOTED_KS) -> list:
    """``[{"k", "sweep", "sweep_pipelined", "lead", "kept"}]``: both kernels' GFLOP/s at each K of
    ``ks`` that the result has, the pipelined kernel's lead over ``sweep`` (0.081 for 8.1%), and
    the kernel the envelope kept.  Empty for a sweep with one kernel (a CPU run)."""
    curves = experiment_rows.sweep_curves(result)
    if not {"sweep", "sweep_pipelined"} <= set(curves):
        return []
    kept = dict(experiment_rows.kept_kernels(result))
    at = {name: {r["k"]: r["gflops"] for r in curve} for name, curve in curves.items()}
    out = []
    for k in ks:
        one, pipelined = at["sweep"].get(k), at["sweep_pipelined"].get(k)
        if one is None or pipelined is None:
            continue
        out.append({"k": k, "sweep": one, "sweep_pipelined": pipelined,
                    "lead": pipelined / one - 1, "kept": kept.get(k, "?")})
    return out


KERNEL_COLUMNS = (
    Column("k", "K", str),
    Column("sweep", "sweep (GFLOP/s)", number),
    Column("sweep_pipelined", "sweep_pipelined (GFLOP/s)", number),
    Column("lead", "pipelined lead", lambda v: f"{100 * v:+.1f}%"),
    Column("kept", "envelope keeps", align="<"),
)


def kernel_table(result, ks=QUOTED_KS) -> str:
    """:func:`kernel_rows` as a table; a one-line note for a sweep with one kernel."""
    found = kernel_rows(result, ks)
    return render(found, KERNEL_COLUMNS) if found else "This sweep timed one kernel: no per-kernel table."


def softmax_rates(profile, experiment) -> dict:
    """The three-pass softmax's streaming rate and the copy's, both counted bytes over measured
    time: ``counted_gbps`` (its counted bytes over Nsight Compute's summed kernel durations),
    ``copy_gbps`` (the copy timed beside the softmax, its counted bytes over its time), their
    ratio ``of_copy``, and ``dram_over_counted`` (the profiler's DRAM bytes over the count)."""
    split = experiment_rows.time_split(profile)
    counted = split["counted_bytes"] / split["kernel_s"] / 1e9
    copy = float(experiment.extra["copy_gbps"])
    return {"counted_gbps": counted, "copy_gbps": copy, "of_copy": counted / copy,
            "dram_over_counted": split["dram_bytes"] / split["counted_bytes"] if split["dram_bytes"] else None}


def softmax_split_table(profile, experiment) -> str:
    """The three-pass softmax's one table: the profiling run's event-timed median, Nsight Compute's
    summed kernel time, the time outside
    the kernels (an event-timed run less that), the counted-byte rate against the copy's, and
    the profiler's DRAM bytes over the count."""
    split, r = experiment_rows.time_split(profile), softmax_rates(profile, experiment)
    # review 16c: the run the time outside is taken from, printed, so 425.0 - 412.8 = 12.3 adds up
    lines = [("profiling run: the 3-pass softmax, event-timed (us)", f"{split['median_s'] * 1e6:.1f}"),
             (f"its {split['kernels']} kernels' own durations, summed (us)", f"{split['kernel_s'] * 1e6:.1f}"),
             ("outside the kernels: event-timed run less ncu's kernel time (us)", f"{split['between_s'] * 1e6:.1f}"),
             ("3-pass kernels: counted bytes / ncu's kernel time (GB/s)", number(r["counted_gbps"])),
             ("copy beside the softmax: counted bytes / its time (GB/s)", number(r["copy_gbps"])),
             ("3-pass rate / copy rate", f"{r['of_copy']:.0%}"),
             ("DRAM bytes, Nsight Compute / counted",
              "-" if r["dram_over_counted"] is None else f"{r['dram_over_counted']:.3f}")]
    return render([{"what": w, "value": v} for w, v in lines],
                  (Column("what", "the 3-pass softmax, profiled", align="<"), Column("value", "")))


#: The K values notebook 04's roof table prints by default: the sloped roof, the corner and the
#: climb to 96.6% of P (review 19c: not all 24 rows), and K = 1024, where P is (review 25b).
ROOF_TABLE_KS = (16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128, 160, 192, 256, 1024)


def roof_table(result, ks=ROOF_TABLE_KS, width: int = 30) -> str:
    """The sweep against its own roofs, one row per K of ``ks`` (``ks=None``: every K): K, I,
    GB/s, GFLOP/s, the roof min(P, I x B), the share of it reached, the side of the ridge (``ridge`` within notebook 03's
    10% band) and a bar; above, P, B and the ridge; below, the knee.  The K = 0 row (no FLOPs) is scored by its
    GB/s against B.  ``views.tables.sweep_tables`` prints every K's rates and this, in full."""
    P, B, ridge = result["peak_gflops"], result["peak_gbps"], result["ridge"]
    lines = [f"Against the sweep's own roofs: P = {number(P)} GFLOP/s, B = {number(B)} GB/s, "
             f"ridge = P/B = {ridge:.2f} FLOP/byte", "",
             f"{'K':>5} {'I':>7} {'GB/s':>6} {'GFLOP/s':>8} {'roof':>7}  {'of roof':>7}  {'side':<8} bar"]
    for r in result["rows"]:
        if ks is not None and r["k"] not in ks:
            continue
        roof = min(P, r["intensity"] * B)
        # the side as notebook 03 reads it: within 10% of the ridge (its band) is "ridge"
        frac, side = (r["gflops"] / roof, side_of_ridge(r["intensity"], ridge)) if roof > 0 \
            else (r["gbps"] / B, "copy")
        lines.append(f"{r['k']:>5} {r['intensity']:>7.2f} {r['gbps']:>6,.0f} {r['gflops']:>8,.0f} "
                     f"{f'{roof:,.0f}' if roof > 0 else 'B':>7}  {100 * frac:6.1f}%  {side:<8} "
                     f"{'#' * max(0, min(width, round(frac * width)))}")
    knee = result.get("knee")
    if knee:
        lines += ["", f"knee (where the curve turns): I = {knee['intensity']:.2f} FLOP/byte, "
                      f"nearest K = {knee['k']}; the ridge P/B = {ridge:.2f}"]
    return "\n".join(lines)


#: Cell 21 prints the recorded H200 profile in every mode (no live profile is taken; cell 0 says so
#: once): its header names the run.
BRIEF_HEADER = "the 3-pass softmax, profiled: the recorded H200 run"


def softmax_split_brief(profile, experiment) -> str:
    """What notebook 04 reads off the three-pass softmax's profile: the two times it subtracts (a
    second event-timed run of the function and Nsight Compute's summed kernel time, both from the
    profile), their difference (the time outside the kernels: an estimate, not a bound, since ncu
    flushes the L2 the event-timed run may reuse; appendix-04) and its kernels' streaming rate
    against the copy's.  :func:`softmax_split_table` has all seven rows (appendix-04)."""
    split, r = experiment_rows.time_split(profile), softmax_rates(profile, experiment)
    lines = [("a second event-timed run (us)", f"{split['median_s'] * 1e6:.1f}"),
             (f"less Nsight Compute's {split['kernels']} kernels, summed (us)", f"{split['kernel_s'] * 1e6:.1f}"),
             ("= time outside the kernels, an estimate (us)", f"{split['between_s'] * 1e6:.1f}"),
             ("the kernels' streaming rate / the copy's", f"{r['of_copy']:.0%}")]
    return render([{"what": w, "value": v} for w, v in lines],
                  (Column("what", BRIEF_HEADER, align="<"), Column("value", "")))


def naive_transpose_l2_estimate(experiment, l2_gbps: float) -> dict:
    """What the naive transpose's L2 sector traffic alone would cost (appendix-04, review 20a).

    Its reads are whole 32-byte sectors (the problem's read bytes); each 4-byte write down a
    column is a sector of its own (32 bytes).  At the L2 roof ``l2_gbps`` (Lab 1's) that traffic
    takes ``l2_s``; ``share`` is that time over the naive kernel's measured time."""
    naive = next(v for v in experiment.variants if v.name == "naive")
    copy = next(v for v in experiment.variants if v.name == "copy")
    elements = naive.n_bytes / 8                 # 4 bytes read and 4 written per element
    sector_bytes = elements * 4 + elements * 32  # full read sectors + one sector per write
    l2_s = sector_bytes / (l2_gbps * 1e9)
    return {"sector_bytes": sector_bytes, "l2_s": l2_s, "naive_s": naive.median_s,
            "copy_s": copy.median_s, "share": l2_s / naive.median_s}
