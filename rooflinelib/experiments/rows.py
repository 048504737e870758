"""The numbers notebooks 03 and 04 read off their experiments, as table rows.

The notebooks interpret these numbers in their own prose, written for the recorded H200 run;
a live run prints its own numbers through the same functions, and the notebook says that its
prose may not fit them.  Each ``*_rows`` function returns a list of dicts; each ``*_table``
renders them with :func:`rooflinelib.views.tables.render`.  Nothing here assembles a sentence.
"""
from __future__ import annotations

import math

from rooflinelib.lessons import pitfalls
from rooflinelib.core.machines import A100, H100_SXM, H200, MI300X
from rooflinelib.measure.sweep import knee, nearest_k
from rooflinelib.views.tables import Column, number, render, sig
from rooflinelib.experiments.traps import PAIRS, issue_bound


#: What a live cell prints under its numbers: the prose around it quotes the recorded H200 run.
LIVE_NOTE = ("Measured live on this machine: the text of this notebook quotes the recorded H200 run, "
             "so these numbers can differ from it, and on a busy machine they can be far lower.")


def _fraction(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def _percent(value) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _us(seconds) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:,.1f}"


# --- notebook 03: independent chains ---------------------------------------------------------

def sm_clock_mhz(experiment):
    """The SM clock (MHz) the run recorded before it started, or None (a CPU run)."""
    before = experiment.device.get("before") or {}
    clock = before.get("sm_clock_mhz") if isinstance(before, dict) else None
    return float(clock) if isinstance(clock, (int, float)) and math.isfinite(clock) and clock > 0 else None


def fp32_peak_gflops(experiment):
    """The theoretical fp32 FMA peak at the recorded SM clock, or None without a clock."""
    clock, device = sm_clock_mhz(experiment), experiment.device
    try:
        cc = tuple(int(x) for x in str(device.get("compute_capability", "")).split("."))
        return pitfalls.fp32_peak_at_clock(int(device["sm_count"]), cc, clock) if clock else None
    except (KeyError, TypeError, ValueError):
        return None


def cycles_per_step(variant, clock_mhz):
    """SM cycles between two dependent FMAs of one chain in one warp: run time x clock over
    the chain's steps.  The warp's other chains issue their FMAs in it, and with W warps on a
    scheduler so do the other W - 1 warps, so it is the FMA's latency only for one chain at
    one warp per scheduler."""
    steps = variant.extra.get("dependent_steps")
    if not clock_mhz or not steps:
        return None
    return variant.median_s * clock_mhz * 1e6 / steps


def cycles_per_issue(variant, clock_mhz):
    """SM cycles per FMA instruction each scheduler issued: run time x clock over the FMAs
    one scheduler issued (steps x chains x warps per scheduler).  1.0 is the FMA peak."""
    warps = variant.extra.get("warps_per_scheduler")
    per_step = cycles_per_step(variant, clock_mhz)
    chains = variant.extra.get("chains")
    if per_step is None or not warps or not chains:
        return None
    return per_step / (chains * warps)


def issued_per_ffma(sass):
    """Instructions issued per FFMA in a kernel's hot loop: the FFMAs and every opcode that
    comes about once per unrolled step (between half and twice as many as the FFMAs), over the
    FFMAs.  A loop unrolled completely has no such opcode, only a few per trip of hundreds of
    FFMAs, so it gives 1.0 (to the one decimal the table prints).  None when the SASS has no
    FFMA."""
    sass = sass or {}
    ffma = sass.get("FFMA", 0)
    if not ffma:
        return None
    per_step = sum(n for op, n in sass.items() if op != "FFMA" and ffma / 2 <= n <= 2 * ffma)
    return (ffma + per_step) / ffma


def stall_model(chains: int, latency_cycles: int) -> float:
    """A fit, not a documented policy: the fraction of the issue rate if a scheduler loses one
    cycle each time the warp it issued from has no independent FMA left."""
    return 1.0 if chains >= latency_cycles else chains / (chains + 1)


def variant_label(variant) -> str:
    """The row's name: a clean variant's own; the code-generation trap's says what it is, the
    same one chain written as a ``range`` loop of ``unroll`` steps, kept as a slow variant."""
    extra = variant.extra
    if not extra.get("trap") or not extra.get("unroll") or not extra.get("setting"):
        return variant.name
    return f"1 chain, {extra['unroll']}-step range loop (slow variant), {extra['setting']}"


def chains_rows(experiment) -> list:
    """One row per variant of a ``chains`` run: rate, fraction of the fp32 peak at the run's
    clock (of the best rate on a CPU), cycles per dependent step of one warp, cycles per FMA
    issued by one scheduler, the stall model's fraction (full occupancy; its latency is the
    one-warp, one-chain step), and from each kernel's SASS its FFMA count and instructions
    issued per FFMA (the evidence that the FMAs ran, and that the loop around them is clean)."""
    clock = sm_clock_mhz(experiment)
    clean = [v for v in experiment.variants if not v.extra.get("trap")]
    scale = fp32_peak_gflops(experiment) or max(v.gflops for v in experiment.variants)
    alone = next((v for v in clean if v.extra.get("warps_per_scheduler") == 1 and v.extra.get("chains") == 1), None)
    latency = cycles_per_step(alone, clock) if alone is not None else None
    rows = []
    for v in experiment.variants:
        warps = v.extra.get("warps_per_scheduler")
        model = (stall_model(v.extra["chains"], round(latency))
                 if latency and warps and warps > 1 and not v.extra.get("trap") else None)
        rows.append({"variant": variant_label(v), "chains": v.extra.get("chains"), "warps": warps,
                     "gflops": v.gflops, "fraction": v.gflops / scale,
                     "cycles_per_step": cycles_per_step(v, clock), "cycles_per_issue": cycles_per_issue(v, clock),
                     "model": model, "ffma_in_sass": (v.extra.get("sass") or {}).get("FFMA") or None,
                     "issued_per_ffma": issued_per_ffma(v.extra.get("sass"))})
    return rows


CHAINS_COLUMNS = (
    Column("variant", "variant", align="<"),
    Column("gflops", "GFLOP/s", number),
    Column("fraction", "of peak", _fraction),
    Column("cycles_per_step", "cycles/step (1 warp)", sig(3)),
    Column("cycles_per_issue", "cycles/FMA (scheduler)", sig(3)),
    Column("model", "stall model", _fraction),
    Column("ffma_in_sass", "FFMA in SASS", lambda n: "-" if n is None else f"{n:,}"),
    Column("issued_per_ffma", "instr./FFMA", lambda n: "-" if n is None else f"{n:.1f}"),
)


def chains_table(experiment) -> str:
    """The rows under :data:`CHAINS_COLUMNS`; without a clock (a CPU) the fraction is of the
    best rate measured, and its header says so."""
    columns = CHAINS_COLUMNS if fp32_peak_gflops(experiment) else tuple(
        Column(c.key, "of best", c.fmt, c.align) if c.key == "fraction" else c for c in CHAINS_COLUMNS)
    return render(chains_rows(experiment), columns)


# --- notebook 03: the two traps ---------------------------------------------------------------

def _datasheet_ratio(device_name: str, fast: str, slow: str):
    for machine in (H200, H100_SXM, A100, MI300X):
        if machine.name.split()[0] in device_name and machine.has(fast) and machine.has(slow):
            return machine.ceiling(fast).value / machine.ceiling(slow).value
    return None


def trap_rows(experiment) -> list:
    """Each trap's rate over its fix's, against its prediction: the datasheet's fp64 : fp32
    ratio (float64 promotion) or the issue slots of the two SASS hot loops (range)."""
    names = {v.name for v in experiment.variants}
    rows = []
    for pair, (trap_name, fix_name) in PAIRS.items():
        if not {trap_name, fix_name} <= names:
            continue
        trap, fix = experiment.variant(trap_name), experiment.variant(fix_name)
        if pair == "float64 promotion":
            predicted = _datasheet_ratio(experiment.device.get("name", ""), "fp64", "fp32")
            basis = "datasheet fp64 : fp32"
        else:
            loops = trap.extra.get("sass_loop"), fix.extra.get("sass_loop")
            predicted = issue_bound(loops[0]) / issue_bound(loops[1]) if all(loops) else None
            basis = "SASS issue slots"
        rows.append({"pair": pair, "trap": trap_name, "fix": fix_name, "trap_gflops": trap.gflops,
                     "fix_gflops": fix.gflops, "measured": trap.gflops / fix.gflops,
                     "predicted": predicted, "basis": basis if predicted else "-"})
    return rows


TRAP_COLUMNS = (
    Column("pair", "trap", align="<"),
    Column("trap_gflops", "trap GFLOP/s", number),
    Column("fix_gflops", "fix GFLOP/s", number),
    Column("measured", "trap / fix", _fraction),
    Column("predicted", "predicted", _fraction),
    Column("basis", "predicted from", align="<"),
)


def trap_table(experiment) -> str:
    return render(trap_rows(experiment), TRAP_COLUMNS)


# --- notebook 04: the sweep, one kernel per curve ----------------------------------------------

def _family(kernel: str) -> str:
    """'sweep_pipelined<64>' -> 'sweep_pipelined'; a name without a template stays."""
    return kernel.split("<", 1)[0]


def sweep_curves(result) -> dict:
    """``{kernel: rows}``: every kernel a sweep result timed, as its own curve (rows with
    ``k``, ``intensity``, ``gbps``, ``gflops``), read from the details' ``configs_tried``.
    The result's own ``rows`` keep, at each K, the fastest of these."""
    curves = {}
    for row, detail in zip(result["rows"], result.get("details") or ()):
        tried = detail.get("configs_tried") or [dict(detail, gbps=row["gbps"], gflops=row["gflops"])]
        for config in tried:
            curves.setdefault(_family(str(config.get("kernel", detail.get("kernel", "sweep")))), []).append(
                {"k": row["k"], "intensity": row["intensity"], "gbps": config["gbps"], "gflops": config["gflops"]})
    return curves


def kept_kernels(result) -> list:
    """``[(k, kernel)]``: which kernel's time each row of the sweep result kept."""
    return [(row["k"], _family(str(detail.get("kernel", "?"))))
            for row, detail in zip(result["rows"], result.get("details") or ())]


def curve_summary(rows) -> dict:
    """A curve's own roofs (top GB/s, top GFLOP/s, ridge P/B), its knee, and the point nearest
    the ridge with the fraction of min(P, I x B) it reached."""
    top_gflops = max(r["gflops"] for r in rows)
    top_gbps = max(r["gbps"] for r in rows)
    ridge = top_gflops / top_gbps
    found = knee(rows)
    at = next(r for r in rows if r["k"] == nearest_k(rows, ridge))
    roof = min(top_gflops, at["intensity"] * top_gbps)
    return {"peak_gbps": top_gbps, "peak_gflops": top_gflops, "ridge": ridge,
            "knee": None if found is None else found["intensity"],
            "knee_k": None if found is None else found["k"],
            "ridge_k": at["k"], "at_ridge": at["gflops"] / roof}


def sweep_summary_rows(result) -> list:
    """The envelope the result reports (the faster kernel at each K) and each kernel's own
    curve, each summarised by :func:`curve_summary`."""
    curves = sweep_curves(result)
    named = [("envelope" if len(curves) > 1 else "the sweep", result["rows"])]
    if len(curves) > 1:
        named += list(curves.items())
    return [dict(curve_summary(rows), curve=name) for name, rows in named]


SWEEP_SUMMARY_COLUMNS = (
    Column("curve", "curve", align="<"),
    Column("peak_gbps", "B (GB/s)", number),
    Column("peak_gflops", "P (GFLOP/s)", number),
    Column("ridge", "ridge P/B", sig(4)),
    Column("knee", "knee I", sig(4)),
    Column("knee_k", "knee K", lambda v: "-" if v is None else str(v)),
    Column("ridge_k", "K at ridge", str),
    Column("at_ridge", "of roof there", _percent),
)


def sweep_summary_table(result) -> str:
    return render(sweep_summary_rows(result), SWEEP_SUMMARY_COLUMNS)


# --- notebook 04: softmax and the transpose --------------------------------------------------------

def softmax_rows(experiment) -> list:
    """Per variant: its measured time; its bytes at the copy bandwidth (``copy_gbps``: Lab 1's
    copy mix from the chain, or in a run from before it, a copy timed in the same run); its
    exps at the measured exp rate (None if not recorded); the larger of the two as its bound;
    the fraction of that bound it reached and the fraction of the copy bandwidth it moved."""
    copy_gbps = experiment.extra["copy_gbps"]
    exp_per_s, exps = experiment.extra.get("exp_per_s"), experiment.extra.get("exps")
    exp_s = exps / exp_per_s if exp_per_s and exps else None
    rows = []
    for v in experiment.variants:
        bytes_s = v.n_bytes / (copy_gbps * 1e9)
        bound = max(bytes_s, exp_s or 0.0)
        rows.append({"variant": v.name, "measured_s": v.median_s, "bytes_s": bytes_s, "exp_s": exp_s,
                     "bound_s": bound, "of_bound": bound / v.median_s, "of_copy": v.gbps / copy_gbps})
    return rows


SOFTMAX_COLUMNS = (
    Column("variant", "variant", align="<"),
    Column("measured_s", "measured (us)", _us),
    Column("bytes_s", "bytes at copy speed (us)", _us),
    Column("exp_s", "exps at exp rate (us)", _us),
    Column("bound_s", "bound (us)", _us),
    Column("of_bound", "of bound", _percent),
)


def softmax_ratios(experiment) -> dict:
    """The 3-pass time over the fused one: predicted from bytes, refined with the exp roof,
    and measured."""
    rows = {r["variant"]: r for r in softmax_rows(experiment)}
    return {"predicted": experiment.extra["predicted_speedup"],
            "refined": rows["3-pass"]["bound_s"] / rows["fused"]["bound_s"],
            "measured": experiment.ratio("3-pass", "fused")}


def copy_roof_label(experiment) -> str:
    """What the copy bandwidth an experiment is scored on is: 'Lab 1 copy' (with its date, and
    NOISY when that Lab 1 ceiling judged itself noisy) when the run took it from the chain
    (``dram_roof``), else 'copy' (a run from before the chain, which timed its own)."""
    roof = experiment.extra.get("dram_roof")
    if not isinstance(roof, dict):
        return "copy"
    created = f" of {str(roof['created'])[:10]}" if roof.get("created") else ""
    return f"Lab 1 copy{created}" + (", NOISY" if roof.get("noisy") else "")


def softmax_table(experiment) -> str:
    ratios = softmax_ratios(experiment)
    text = (render(softmax_rows(experiment), SOFTMAX_COLUMNS)
            + f"\n3-pass / fused: predicted {ratios['predicted']:.2f}x from bytes, "
              f"{ratios['refined']:.2f}x with the exp roof, measured {ratios['measured']:.2f}x")
    # The copy speed is printed in every run, so a share of it in the prose is one the reader
    # can check (review 9c C9c-3).
    source = (copy_roof_label(experiment) if isinstance(experiment.extra.get("dram_roof"), dict)
              else "a copy timed in the same run")
    return text + f"\ncopy speed: {number(experiment.extra['copy_gbps'])} GB/s, {source}"


def time_split(profile) -> dict:
    """Where a profiled multi-kernel function's time went: its median by device events, the
    sum of its kernels' own durations (Nsight Compute), the time between them, and the DRAM
    bytes the kernels moved (against the count) and at what rate."""
    measured = profile.measured or {}
    kernel_s = measured.get("kernel_seconds")
    dram = (measured.get("dram_read_bytes") or 0.0) + (measured.get("dram_write_bytes") or 0.0)
    return {"name": profile.name, "kernels": measured.get("kernels"), "median_s": profile.seconds,
            "kernel_s": kernel_s, "between_s": None if kernel_s is None else profile.seconds - kernel_s,
            "counted_bytes": profile.n_bytes, "dram_bytes": dram or None,
            "kernel_gbps": dram / kernel_s / 1e9 if dram and kernel_s else None}


def transpose_rows(experiment) -> list:
    """Each transpose variant's bandwidth and its fraction of the copy: Lab 1's copy mix from
    the chain (``copy_gbps``, shown as the first row), or in a run from before it, the copy
    measured beside the transposes (its ``copy`` variant)."""
    if "copy_gbps" in experiment.extra:
        copy = float(experiment.extra["copy_gbps"])
        first = [{"variant": copy_roof_label(experiment), "gbps": copy, "of_copy": 1.0}]
    else:
        copy, first = experiment.variant("copy").gbps, []
    return first + [{"variant": v.name, "gbps": v.gbps, "of_copy": v.gbps / copy} for v in experiment.variants]


def time_split_table(profile) -> str:
    """:func:`time_split` as a two-column table."""
    s = time_split(profile)
    rows = [("median by device events (us)", _us(s["median_s"])),
            (f"its {s['kernels']} kernels' own durations, summed (us)", _us(s["kernel_s"])),
            ("outside the kernels: event-timed run less ncu's kernel time (us)", _us(s["between_s"])),
            ("DRAM bytes, Nsight Compute / counted", sig(3)(s["dram_bytes"] / s["counted_bytes"])
             if s["dram_bytes"] else "-"),
            ("the kernels' DRAM rate (GB/s)", number(s["kernel_gbps"]))]
    return render([{"what": w, "value": v} for w, v in rows],
                  (Column("what", s["name"], align="<"), Column("value", "")))


TRANSPOSE_COLUMNS = (
    Column("variant", "variant", align="<"),
    Column("gbps", "GB/s", number),
    Column("of_copy", "of copy", _percent),
)


def transpose_table(experiment) -> str:
    return render(transpose_rows(experiment), TRANSPOSE_COLUMNS)
