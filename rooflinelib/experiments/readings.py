"""What a measurement says: the sentences notebook 06 prints after each experiment.

A notebook's markdown is written before anything runs, so it can state a prediction but never
an outcome.  Every sentence here is computed from the experiment it reads: it sets the
prediction against the measured outcome, within :data:`TOLERANCE`, and when the two part it
names the likely cause.  The same functions read a live run, a CPU run or the recorded H200
run, and each returns plain text (one or a few lines).
"""
from __future__ import annotations

import math

from .. import pitfalls

TOLERANCE = 0.15  # a measured ratio within 15% of its prediction agrees with it


def _agrees(measured: float, predicted: float, tolerance: float = TOLERANCE) -> str:
    """'agrees', 'above' or 'below': the measured ratio against the predicted one."""
    if abs(measured / predicted - 1) <= tolerance:
        return "agrees"
    return "above" if measured > predicted else "below"


def _share(fraction: float) -> str:
    """A fraction as a percentage with two significant digits, however small."""
    return f"{fraction:.0%}" if fraction >= 0.1 else f"{100 * fraction:.2g}%"


def _ms(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:,.2f} ms"
    return f"{seconds * 1e6:,.1f} us" if seconds >= 1e-5 else f"{seconds * 1e6:.2f} us"


# --- notebook 06 (notebooks 03 and 04 print numbers, from :mod:`.rows`) ---------------------

def launch(experiment) -> str:
    """The small vector add against the large one (same intensity, same roof), and, where the
    run took the launch apart, the host's dispatch per library against the device's own cost."""
    kernels = [v for v in experiment.variants if v.extra.get("part", "kernel") == "kernel"]
    small, large = kernels[0], kernels[-1]
    share = small.gbps / large.gbps
    spread = f" (its repeats spread by {small.spread:.0%})" if small.spread > 0.25 else ""
    text = (f"The small add took {_ms(small.median_s)}{spread} and moved bytes at {_share(share)} of the "
            "large one's rate, at the same intensity and under the same roof.")
    if share < 0.1:
        text += " Its time is a fixed start-up cost, not bytes: it is latency-bound."
    elif share < 0.5:
        text += " The fixed start-up cost is a large part of its time."
    else:
        text += " The start-up cost is small on this machine, so the pitfall barely shows at this size."
    dispatch = [v for v in experiment.variants if v.extra.get("part") == "host dispatch"]
    device = next((v for v in experiment.variants if v.extra.get("part") == "device"), None)
    if not dispatch and device is None:
        return text
    lines = [text]
    if dispatch:
        lines.append("Host dispatch of an empty kernel, per launch (wall clock over launches back to back): "
                     + ", ".join(f"{v.extra.get('library', v.name)} {_ms(v.median_s)}" for v in dispatch) + ".")
    if device is not None:
        lines.append(f"The device's own cost of a launch (empty kernels inside a CUDA graph, no host work "
                     f"between them): {_ms(device.median_s)} per kernel.")
    numba = next((v for v in dispatch if "numba" in v.extra.get("library", "").lower()), None)
    if device is not None and small.median_s > 10 * device.median_s:
        lines.append(f"The small add's device-event time is {small.median_s / device.median_s:,.0f}x the device's "
                     "cost of a launch"
                     + (f" and {small.median_s / numba.median_s:.1f}x Numba's dispatch of an empty kernel"
                        if numba else "")
                     + ": device events around one tiny launch include the host's dispatch whenever the "
                     "launch before it finished first, so most of this time is the host's side of the "
                     "launch, not the GPU's.")
    return "\n".join(lines)


def starved(experiment) -> str:
    """Too little parallelism: the same kernel on a starved grid against a full one."""
    few, full = experiment.variants[0], experiment.variants[-1]
    share = few.gflops / full.gflops
    text = f"{few.name}: {_share(share)} of the rate of {full.name}, at the same intensity."
    if share < 0.5:
        return text + " The roofline gives both one roof; most of the machine sat idle in the first."
    return text + (" Little was lost: this machine has few parallel units, so one task already uses "
                   "much of it. On a GPU with thousands of lanes the same mistake costs far more.")


def overlap(experiment) -> str:
    """How much of the shorter phase the overlapped kernel hid behind the longer one."""
    memory, compute, serial, fused = (v.median_s for v in experiment.variants[:4])
    total, longer = memory + compute, max(memory, compute)
    hidden = (total - fused) / (total - longer) if total > longer else float("nan")
    text = (f"Phases alone: {_ms(memory)} and {_ms(compute)} (sum {_ms(total)}); one after the other "
            f"{_ms(serial)}; overlapped {_ms(fused)}.")
    if not math.isfinite(hidden):
        return text
    text += (f" The overlapped kernel hid {hidden:.0%} of the shorter phase behind the longer one "
             "(100% is the roofline's max(F/P, M/B), 0% the serial sum).")
    if longer > 2 * min(memory, compute):
        text += " The phases were far from balanced, so even no overlap costs less than the worst case 2x."
    return text


def cache(experiment) -> str:
    """The cache-resident working set against the DRAM-sized one."""
    resident, streamed = experiment.variants[0], experiment.variants[-1]
    ratio = resident.gbps / streamed.gbps
    text = (f"The cache-resident working set moved bytes at {ratio:.1f}x the rate of the "
            f"DRAM-sized one ('{resident.name}' against '{streamed.name}').")
    if ratio > 1 + TOLERANCE:
        return text + (" A read alone beats a copy from DRAM by far less than that (notebook 05), "
                       "so most of the gain is the cache: counted against the DRAM roof, this "
                       "kernel would sit above it.")
    return text + " No gain here: this cache was not much faster than DRAM for this access pattern."


def transcendental(experiment) -> str:
    """The FMA rate against the exp rate, with the H200 datasheet's gap beside it."""
    from ..machines import H200
    exp = experiment.variants[0]
    fma = experiment.variant("FMA")
    gap = fma.gflops / exp.gflops
    sheet = H200.ceiling("fp32").value / H200.ceiling("sfu").value
    text = f"Measured: the FMA rate is {gap:,.0f}x the exp rate (the H200 datasheet: {sheet:.0f}x)."
    if gap > sheet * (1 + TOLERANCE):
        text += (" The gap is wider here than on the H200, so a kernel with one exp per element is "
                 "far more likely to be bound by its exps on this machine.")
    return text


def strided(experiment) -> str:
    """Useful bandwidth against stride, set against one transaction per element."""
    transaction = (pitfalls.CPU_LINE_BYTES if experiment.backend == "cpu"
                   else pitfalls.GPU_DRAM_ACCESS_BYTES)
    base = experiment.variants[0]
    widest = experiment.variants[-1]
    stride = widest.extra.get("stride", 1)
    moved = base.gbps / widest.gbps  # bytes moved per useful byte, if the raw rate held
    predicted = pitfalls.strided_amplification(stride, transaction_bytes=transaction)
    text = (f"At stride {stride} the useful bandwidth is 1/{moved:.1f} of stride 1's: about "
            f"{4 * moved:.0f} bytes moved per useful 4-byte float, against {4 * predicted:.0f} for "
            f"one {transaction}-byte unit per element.")
    verdict = _agrees(moved, predicted, 0.25)
    if verdict == "agrees":
        return text + " The transaction model holds (within 25%)."
    if verdict == "above":
        return text + (" More than the model: the memory system fetched more than one transaction "
                       "per element (DRAM and caches move data in units larger than the smallest "
                       "transaction), or the raw bandwidth fell at wide strides.")
    return text + (" Less than the model: caches or the hardware prefetcher served part of the "
                   "strided reads.")


def algorithm(experiment) -> str:
    """Who won the race, the kernel's distance from its roof, and whether reaching the roof
    would have changed the winner."""
    direct, fft = experiment.variants[0], experiment.variants[-1]
    fraction = direct.extra.get("fraction_of_fp32_peak")
    at = f" at {fraction:.0%} of its roof" if fraction else ""
    at_roof = direct.extra.get("seconds_at_100_percent")
    flops = (f" with {direct.n_flops / fft.n_flops:,.0f}x fewer FLOPs"
             if fft.n_flops and direct.n_flops > fft.n_flops else "")
    if fft.median_s < direct.median_s:
        text = (f"The FFT route{flops} finished {direct.median_s / fft.median_s:.1f}x sooner than the direct "
                f"kernel{at}.")
        if at_roof and at_roof < fft.median_s:
            return text + (f" At 100% of its roof the direct kernel would need {_ms(at_roof)}, less than "
                           f"the FFT's {_ms(fft.median_s)}: at these sizes the FFT won through the direct "
                           "kernel's shortfall, not through the algorithm alone; grow n and m and the "
                           "FLOP ratio takes over.")
        text += (" It would win even against the direct kernel at 100% of its roof"
                 + (f" ({_ms(at_roof)}, {at_roof / fft.median_s:.2f}x the FFT's {_ms(fft.median_s)})"
                    if at_roof else "") + ": no tuning of the direct kernel closes the gap; the algorithm does.")
        if fraction and fraction < 0.5:
            text += (f" This run's direct kernel was far from its roof, so it shows the bound, not an "
                     f"efficient kernel losing: tuning could buy at most {1 / fraction:.0f}x, and that is "
                     "not enough.")
        return text
    return (f"The direct kernel{at} finished {fft.median_s / direct.median_s:.1f}x sooner than the FFT "
            "route at these sizes: the FLOP count favours the FFT, but its constant factors and memory "
            "traffic won here; grow n and m and the order flips.")


def clocks(experiment) -> str:
    """How far the same ceiling moved across repeated measurements, and the clocks seen."""
    rates = [v.gflops for v in experiment.variants]
    spread = (max(rates) - min(rates)) / max(rates)
    seen = [v.extra.get(key) for v in experiment.variants
            for key in ("sm_clock_mhz", "cpu_mhz_before", "cpu_mhz_after")]
    seen = [c for c in seen if isinstance(c, (int, float)) and math.isfinite(c)]
    clock = f", with the clock read between {min(seen):,.0f} and {max(seen):,.0f} MHz" if seen else ""
    text = f"The same ceiling, {len(rates)} times: {spread:.1%} apart{clock}."
    if spread < 0.02:
        return text + (" It held still in this run; it moves when power, temperature or neighbours "
                       "move the clock, so record the clock with every ceiling.")
    return text + (" It moved: a kernel compared with a ceiling measured at another moment can look "
                   "better or worse than it is.")


# --- the pitfalls run (benchmarks/h200_run12_pitfalls.sh) --------------------------------------

def _parts(experiment) -> dict:
    """{(part, arguments): variant} of a launch_empty run."""
    return {(v.extra.get("part"), v.extra.get("arguments")): v for v in experiment.variants}


def launch_empty(experiment) -> str:
    """The empty kernel's launch, three ways, and the tiny add set against the one that matches
    how it was timed: device events around a launch with the same three arrays."""
    parts = _parts(experiment)
    lines = []
    for args in ("one float", "three arrays"):
        row = [parts.get((p, args)) for p in ("device events", "round trip", "host dispatch")]
        if all(r is None for r in row):
            continue
        said = [f"{what} {_ms(r.median_s)}" for what, r in zip(
            ("device events", "launch + synchronize", "dispatch back to back"), row) if r is not None]
        lines.append(f"Empty kernel, {args}: " + ", ".join(said) + ".")
    device = next((v for v in experiment.variants if v.extra.get("part") == "device"), None)
    if device is not None:
        lines.append(f"The device's own cost of a launch (a CUDA graph of empty kernels): {_ms(device.median_s)}.")
    add = next((v for v in experiment.variants if v.extra.get("part") == "kernel"), None)
    same = parts.get(("device events", "three arrays"))
    if add is not None and same is not None:
        ratio = add.median_s / same.median_s
        verdict = ("so the tiny add's time is the launch of a kernel with its arguments: its bytes add next "
                   "to nothing" if abs(ratio - 1) <= TOLERANCE else
                   "so the launch explains part of it, not all" if ratio > 1 else
                   "the empty kernel took longer than the add, which says both times are the host's, "
                   "and vary from launch to launch")
        lines.append(f"The vector add of {add.extra.get('elements', '?')} elements took {_ms(add.median_s)} by "
                     f"the same device events (its repeats spread by {add.spread:.0%}), {ratio:.2f}x the empty "
                     f"kernel with the same three arrays: {verdict}.")
    return "\n".join(lines) if lines else "This run has no empty-kernel rows."


def wrong_ceiling_rows(experiment) -> list:
    """Each GEMM of a ``wrong_ceiling`` run placed against both roofs measured beside it (fp32
    FMA and bf16 tensor, each with the measured DRAM copy): intensity, the roof, the fraction
    of it reached, the side of the ridge and the verdict's status."""
    from ..model import Roofline
    dram = experiment.extra["dram_gbps"]
    roofs = (("fp32 FMA roof", experiment.extra["fp32_gflops"]),
             ("bf16 tensor roof", experiment.extra["bf16_tensor_gflops"]))
    rows = []
    for v in experiment.variants:
        for label, peak in roofs:
            verdict = Roofline(peak, dram).classify(v.intensity, v.gflops)
            rows.append({"kernel": v.name, "dtype": v.extra.get("dtype", "?"), "roof": label,
                         "intensity": v.intensity, "ridge": verdict.ridge, "achieved_gflops": v.gflops,
                         "roof_gflops": verdict.roof_gflops, "fraction": verdict.fraction_of_roof,
                         "side": verdict.bound, "status": verdict.status})
    return rows


def wrong_ceiling(experiment) -> str:
    """Whether the verdict on the tensor-core GEMM flips with the roof it is compared with."""
    rows = wrong_ceiling_rows(experiment)
    tensor = [r for r in rows if r["dtype"] == "bf16"]
    vector = [r for r in rows if r["dtype"] == "fp32"]
    lines = []
    if len(tensor) == 2:
        wrong, right = tensor
        lines.append(f"The bf16 GEMM at {wrong['intensity']:.0f} FLOP/byte reached {wrong['achieved_gflops'] / 1e3:,.0f} "
                     f"TFLOP/s: {wrong['fraction']:.0%} of the fp32 roof, where it counts as {wrong['side']}, and "
                     f"{right['fraction']:.0%} of its own tensor roof, where it is {right['side']}.")
        if wrong["side"] != right["side"]:
            lines.append("Same kernel, same measurement, opposite verdicts: only the ceiling changed.")
        if wrong["fraction"] > 1:
            lines.append("More than 100% of a roof is impossible: the fp32 roof is not this kernel's roof.")
    if len(vector) == 2:
        own = vector[0]
        lines.append(f"The fp32 GEMM of the same shape, at {own['intensity']:.0f} FLOP/byte, reached "
                     f"{own['achieved_gflops'] / 1e3:,.1f} TFLOP/s, {own['fraction']:.0%} of the fp32 roof "
                     f"it runs under ({own['side']}).")
    return "\n".join(lines)


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


def sustained(experiment) -> str:
    """How far the held GEMM's rate fell below the short microbenchmark, and what the clock and
    the power did meanwhile."""
    shorts = [v for v in experiment.variants if v.extra.get("part") == "microbenchmark"]
    windows = [v for v in experiment.variants if v.extra.get("part") == "sustained"]
    if not shorts or not windows:
        return "This run has no microbenchmark or no sustained windows."
    short, last = shorts[0], windows[-1]
    low = min(windows, key=lambda v: v.gflops)
    clocks = [v.extra.get("sm_clock_mhz_median") for v in windows if v.extra.get("sm_clock_mhz_median")]
    power = [v.extra.get("power_w_median") for v in windows if v.extra.get("power_w_median")]
    text = (f"The short microbenchmark: {short.gflops / 1e3:,.0f} TFLOP/s. Held for "
            f"{last.extra.get('elapsed_s', 0):.0f} s: {windows[0].gflops / 1e3:,.0f} TFLOP/s in the first window, "
            f"{last.gflops / 1e3:,.0f} in the last, {low.gflops / 1e3:,.0f} at the lowest "
            f"({low.gflops / short.gflops:.0%} of the microbenchmark).")
    if clocks:
        text += f" The SM clock read {min(clocks):,.0f} to {max(clocks):,.0f} MHz"
        limit = (experiment.device.get("before") or {}).get("power_limit_w")
        text += (f" and the board drew {min(power):,.0f} to {max(power):,.0f} W"
                 + (f" against a power limit of {limit:,.0f} W." if isinstance(limit, (int, float)) else ".")
                 if power else ".")
    if len(shorts) > 1:
        text += f" The microbenchmark again on the hot card: {shorts[-1].gflops / 1e3:,.0f} TFLOP/s."
    if low.gflops < (1 - 0.02) * short.gflops:
        text += (" The roof a short benchmark measures is higher than the one a long job runs under: "
                 "score a sustained kernel against a ceiling measured in the same state.")
    else:
        text += " The roof held within 2% in this run; record the clock and the power with every ceiling anyway."
    return text


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


def algorithm_sizes(experiment) -> str:
    """The race at each filter length, one line each, and whether the winner changed with m."""
    rows = algorithm_sizes_rows(experiment)
    lines = []
    for r in rows:
        at = r["direct_fraction_of_peak"]
        lines.append(f"m = {r['m']:>6,}: direct {r['direct_ms']:8.3f} ms"
                     + (f" ({at:.0%} of the fp32 roof)" if at else "")
                     + f", FFT {r['fft_ms']:8.3f} ms, {r['flop_ratio']:,.0f}x fewer FLOPs by FFT: {r['winner']} wins")
    winners = [r["winner"] for r in rows]
    if len(set(winners)) > 1:
        flip = next(r["m"] for r, w in zip(rows, winners) if w != winners[0])
        lines.append(f"The winner changed between the filter lengths, at m = {flip:,}: below it the direct kernel's "
                     "efficiency wins, above it the FFT's fewer FLOPs do.")
    elif rows:
        lines.append(f"The {winners[0]} route won at every filter length tried here.")
    return "\n".join(lines)
