"""What a measurement says: the sentences the notebooks print after each experiment.

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
LEVEL = 0.95  # a rate within 5% of the best one counts as level with it


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


# --- notebook 03 -----------------------------------------------------------------------------

def _level_off(rows, label=lambda v: v.name, why: bool = True) -> str:
    """Where the rate of ``rows`` (sorted by chains) stops climbing, as a clause."""
    best = max(v.gflops for v in rows)
    level = next(v for v in rows if v.gflops >= LEVEL * best)
    first, widest = rows[0], rows[-1]
    if level is first:
        return ("more chains did not help: one chain already kept the FMA units busy here, so this "
                "machine hid the FMA latency some other way (several threads per core, or a compiler "
                "that interleaved the loop)")
    if level is widest and len(rows) > 1 and rows[-2].gflops < LEVEL * best:
        return (f"still climbing at the widest tried ({label(widest)}): more independent chains might "
                "add more, and the ceiling may be higher than measured")
    return (f"the rate levels off from {label(level)} on (within {1 - LEVEL:.0%} of the best)"
            + (": that many FMAs in flight cover the latency, and more chains add nothing" if why else ""))


def _sm_clock_mhz(experiment):
    before = experiment.device.get("before") or {}
    clock = before.get("sm_clock_mhz") if isinstance(before, dict) else None
    return float(clock) if isinstance(clock, (int, float)) and clock > 0 else None


def _fp32_peak(experiment):
    """The theoretical fp32 FMA peak (GFLOP/s) at the SM clock the run recorded, or None."""
    clock, device = _sm_clock_mhz(experiment), experiment.device
    try:
        cc = tuple(int(x) for x in str(device.get("compute_capability", "")).split("."))
        return pitfalls.fp32_peak_at_clock(int(device["sm_count"]), cc, clock) if clock else None
    except (KeyError, TypeError, ValueError):
        return None


def _chain_label(variant) -> str:
    chains = variant.extra.get("chains")
    return f"{chains} chain{'s' if chains != 1 else ''}"


def _cycles_per_step(variant, clock_mhz) -> float:
    """SM cycles between two dependent steps of one chain: the run time over its steps."""
    return variant.median_s * clock_mhz * 1e6 / variant.extra["dependent_steps"]


def _stall_model(chains: int, latency_cycles: int) -> float:
    """The fraction of the issue rate if a scheduler loses one cycle each time the warp it
    issued from has no independent FMA left: a warp issues its chains' FMAs back to back and
    stalls unless they cover the latency."""
    return 1.0 if chains >= latency_cycles else chains / (chains + 1)


def chains(experiment) -> str:
    """Where the FMA rate stops climbing as independent chains are added; on a GPU run with
    two occupancies, what one chain costs at each, and the code-generation trap beside them."""
    clean = [v for v in experiment.variants if not v.extra.get("trap")]
    settings = list(dict.fromkeys(v.extra.get("setting") for v in clean))
    if settings == [None]:  # one setting (the CPU's): the rate against the chain count
        rows = sorted(clean, key=lambda v: v.extra.get("chains", 0))
        first, widest = rows[0], rows[-1]
        clause = _level_off(rows)
        return (f"{first.name}: {first.gflops:,.0f} GFLOP/s; {widest.name}: {widest.gflops:,.0f} GFLOP/s "
                f"({widest.gflops / first.gflops:.1f}x). {clause[0].upper()}{clause[1:]}.")
    peak, clock = _fp32_peak(experiment), _sm_clock_mhz(experiment)
    scale = peak or max(v.gflops for v in clean)
    basis = (f"of the {peak:,.0f} GFLOP/s fp32 peak at {clock:,.0f} MHz" if peak
             else "of the best rate measured")
    lines, groups = [], {}
    for setting in settings:
        rows = sorted((v for v in clean if v.extra.get("setting") == setting),
                      key=lambda v: v.extra.get("chains", 0))
        groups[setting] = rows
        warps = rows[0].extra.get("warps_per_scheduler")
        rates = ", ".join(f"{_chain_label(v)} {v.gflops:,.0f} ({v.gflops / scale:.2f})" for v in rows)
        named = f" ({warps} warps per scheduler)" if warps and "warp" not in setting else ""
        lines.append(f"{setting[0].upper()}{setting[1:]}{named}, GFLOP/s and fraction {basis}: {rates}; "
                     f"{_level_off(rows, _chain_label, why=False)}.")
    low = next((rows for rows in groups.values() if rows[0].extra.get("warps_per_scheduler") == 1), None)
    latency = None
    if low and clock and "dependent_steps" in low[0].extra:
        one = low[0]
        cycles = _cycles_per_step(one, clock)
        latency = round(cycles)
        best = max(v.gflops for v in low)
        level = next(v for v in low if v.gflops >= LEVEL * best)
        lines.append(f"With one warp per scheduler, {_chain_label(one)} issued a dependent FFMA every "
                     f"{cycles:.1f} cycles ({one.gflops / scale:.3f} of the peak): no other warp can issue "
                     "while the chain waits, so this rate measures the FFMA's latency"
                     + (f"; the rate levels off at {_chain_label(level)}, about as many FMAs in flight as "
                        "cycles of latency." if abs(level.extra.get("chains", 0) - cycles) <= 1 else "."))
    full = next((rows for rows in groups.values() if (rows[0].extra.get("warps_per_scheduler") or 0) > 1), None)
    if full and latency and full[0].gflops < LEVEL * scale:
        fits = [(v, _stall_model(v.extra["chains"], latency)) for v in full]
        model = ", ".join(f"{p:.2f}" for _, p in fits)
        counts = ", ".join(str(v.extra["chains"]) for v, _ in fits)
        measured = ", ".join(f"{v.gflops / scale:.2f}" for v, _ in fits)
        worst = max(abs((v.gflops / scale) / p - 1) for v, p in fits)
        warps = full[0].extra.get("warps_per_scheduler")
        lines.append(f"With {warps} warps per scheduler, enough to cover a {latency}-cycle latency many times "
                     f"over, one chain still reached only {full[0].gflops / scale:.2f} of the peak. A model in "
                     "which a scheduler loses one cycle whenever the warp it issued from must wait gives "
                     f"{model} for {counts} chains (measured {measured}): "
                     + (f"it fits, to {worst:.0%}; NVIDIA does not document the scheduling policy, so this "
                        "is a fit to the data, not an explanation of it." if worst <= TOLERANCE else
                        "it does not fit this run, and NVIDIA documents no other policy to test."))
    for trap in (v for v in experiment.variants if v.extra.get("trap")):
        sass = trap.extra.get("sass") or {}
        twin = next((v for v in clean if v.extra.get("chains") == trap.extra.get("chains")
                     and v.extra.get("setting") == trap.extra.get("setting")), None)
        text = f"'{trap.name}': {trap.gflops:,.0f} GFLOP/s"
        if twin:
            text += f", {trap.gflops / twin.gflops:.2f} of the fully unrolled kernel at the same occupancy"
        ffma = sass.get("FFMA", 0)
        # the bookkeeping that comes once per unrolled step: opcodes about as many as the FFMAs
        per_step = {op: n for op, n in sass.items() if op != "FFMA" and ffma / 2 <= n <= 2 * ffma}
        if ffma and per_step:
            issued = (ffma + sum(per_step.values())) / ffma
            text += (f". Its SASS has {ffma} FFMA, each beside one {', '.join(per_step)} "
                     f"({', '.join(str(n) for n in per_step.values())} of them): {issued:.1f} instructions "
                     "issued per FFMA, because NVVM unrolled only part of the loop and kept its 64-bit "
                     f"counter beside every step. Issue slots alone cap it at {1 / issued:.2f} of the peak "
                     f"(measured {trap.gflops / scale:.2f}"
                     + (", below even that)" if trap.gflops / scale < (1 - TOLERANCE) / issued else ")"))
            if clock and "dependent_steps" in trap.extra:
                text += (f"; one dependent step took {_cycles_per_step(trap, clock):.0f} cycles, against the "
                         f"{latency or 'few'} of the FFMA's latency: code generation, not latency")
        lines.append(text + ".")
    return "\n".join(lines)


def _datasheet_ratio(device_name: str, fast: str, slow: str):
    """The datasheet ratio of two ceilings for the device, or None for an unknown device."""
    from ..machines import A100, H100_SXM, H200, MI300X
    for machine in (H200, H100_SXM, A100, MI300X):
        if machine.name.split()[0] in device_name and machine.has(fast) and machine.has(slow):
            return machine.name, machine.ceiling(fast).value / machine.ceiling(slow).value
    return None


def traps(experiment) -> str:
    """Each trap's rate against its fix's, with the prediction from the datasheet (float64
    promotion) or from the SASS of the hot loop (range bookkeeping)."""
    from . import traps as trap_kernels
    lines = []
    names = {v.name for v in experiment.variants}
    for pair, (trap_name, fix_name) in trap_kernels.PAIRS.items():
        if not {trap_name, fix_name} <= names:
            lines.append(f"{pair}: not in this run.")
            continue
        trap, fix = experiment.variant(trap_name), experiment.variant(fix_name)
        fraction = trap.gflops / fix.gflops
        head = (f"{pair}: '{trap_name}' ran at {trap.gflops:,.0f} GFLOP/s, {fraction:.2f} of "
                f"'{fix_name}' ({fix.gflops:,.0f} GFLOP/s).")
        if pair == "float64 promotion":
            datasheet = _datasheet_ratio(experiment.device.get("name", ""), "fp64", "fp32")
            predicted = datasheet[1] if datasheet else None
            basis = f"the {datasheet[0]} datasheet's fp64 : fp32 ratio" if datasheet else None
            why_not = ("its float64 FMAs ran no slower than float32 ones here, so the literal "
                       "cost nothing on this GPU")
        else:
            trap_loop, fix_loop = trap.extra.get("sass_loop"), fix.extra.get("sass_loop")
            if trap_loop and fix_loop:
                predicted = trap_kernels.issue_bound(trap_loop) / trap_kernels.issue_bound(fix_loop)
                extra = trap_loop["all"] - trap_loop["FFMA"] - trap_loop["DFMA"]
                basis = (f"the issue slots of its SASS hot loop ({extra} other instructions beside "
                         f"{trap_loop['FFMA'] + trap_loop['DFMA']} FMAs, against "
                         f"{fix_loop['all'] - fix_loop['FFMA'] - fix_loop['DFMA']} in the fix's)")
            else:
                predicted, basis = None, None
            why_not = ("the compiler kept the range bookkeeping out of the hot loop, or the FMA "
                       "pipe was not what limited the loop")
        if predicted is None or not math.isfinite(predicted):
            missing = ("its hot loop's SASS was not recorded" if pair != "float64 promotion"
                       else "its datasheet is not in the catalogue")
            shown = ("the trap did not show in this run" if fraction >= LEVEL
                     else "the trap showed, by how much the model cannot say")
            lines.append(head + f" No prediction ({missing}); {shown}.")
            continue
        verdict = _agrees(fraction, predicted)
        gap = fraction / predicted - 1
        lines.append(head + f" Predicted {predicted:.2f} from {basis}: " + {
            "agrees": (f"the trap cost what the model says, to {abs(gap):.0%}." if abs(gap) < 0.05
                       else f"within {TOLERANCE:.0%} of the prediction, but {abs(gap):.0%} "
                            + ("below" if gap < 0 else "above") + " it: the model explains most of "
                            "the cost, not all of it"
                            + (" (the extra integer instructions are dependent, and their latency "
                               "adds to their issue slots)." if gap < 0 else ".")),
            "below": ("the trap cost even more than predicted (dependent integer instructions add "
                      "latency that issue slots alone do not count)." if pair != "float64 promotion"
                      else "the trap cost even more than the datasheet ratio: the float64 chains "
                           "also paid for conversions."),
            "above": f"the trap cost less than predicted: {why_not}.",
        }[verdict])
    return "\n".join(lines)


# --- notebook 04 -----------------------------------------------------------------------------

def knee(found, ridge: float, ridge_k: int, steps: int) -> str:
    """The knee of the measured sweep against the ridge of its two ends."""
    if found is None:
        return ("The measured curve never turns: every point sits on one roof, so this run cannot "
                "locate the ridge; sweep a wider range of K.")
    where = f"The knee (I = {found['intensity']:.2f}) is {steps} sweep step(s) from P/B = {ridge:.2f}"
    if steps <= 1:
        return where + (": on this run the measured turn is consistent with the ridge, to the "
                        "resolution of the sweep's grid (a check of the data, not a prediction "
                        "the model makes).")
    return where + (": they part on this run, so the curve is ragged (a busy machine or a wandering "
                    "clock) or the kernel turns gradually; trust the ridge only to within those steps.")


def at_the_ridge(rows, ridge: float) -> str:
    """The sweep's point nearest the ridge against the two bounds of notebook 01.

    At the ridge F/P = M/B, so perfect overlap (the roofline's max) reaches 100% of the roof and
    no overlap (the sum) reaches 50%.  ``rows`` are the sweep's rows (``k``, ``intensity``,
    ``gflops``); the roof is min(P, I x B) with the sweep's own ends.
    """
    points = [r for r in rows if r["k"] > 0]
    if not points:
        return "No point with arithmetic in this sweep."
    compute = max(r["gflops"] for r in points)
    bandwidth = compute / ridge
    nearest = min(points, key=lambda r: abs(math.log(r["intensity"] / ridge)))
    roof = min(compute, nearest["intensity"] * bandwidth)
    reached = nearest["gflops"] / roof
    text = (f"At K = {nearest['k']} (I = {nearest['intensity']:g}, the point nearest the ridge) the "
            f"kernel reached {reached:.0%} of its roof.")
    if 0.5 <= reached <= 0.95:
        text += (" Between the sum's 50% and the maximum's 100%: at the ridge the load time and "
                 "the FMA time are equal, so whatever part of them fails to overlap shows most "
                 "(notebook 01's max against sum).")
    return text


def _softmax_times(experiment) -> dict:
    """{variant: (bytes at copy speed s, exps at the exp rate s or None, measured s)}."""
    copy_bps = experiment.extra["copy_gbps"] * 1e9
    exp_per_s, exps = experiment.extra.get("exp_per_s"), experiment.extra.get("exps")
    exp_s = exps / exp_per_s if exp_per_s and exps else None
    return {v.name: (v.n_bytes / copy_bps, exp_s, v.median_s) for v in experiment.variants}


def softmax(experiment) -> str:
    """The measured 3-pass / fused ratio against the byte-count prediction, and why they part."""
    predicted = experiment.extra["predicted_speedup"]
    measured = experiment.ratio("3-pass", "fused")
    copy = experiment.extra["copy_gbps"]
    share = {v.name: v.gbps / copy for v in experiment.variants}
    head = (f"Predicted {predicted:.2f}x, measured {measured:.2f}x; the 3-pass kernels moved their bytes "
            f"at {share['3-pass']:.0%} of the copy bandwidth, the fused one at {share['fused']:.0%}.")
    verdict = _agrees(measured, predicted)
    if verdict == "agrees":
        return head + f" Within {TOLERANCE:.0%}: both ran near the memory roof, as the model assumed."
    times = _softmax_times(experiment)
    fused_bytes_s, exp_s, _ = times["fused"]
    if verdict == "above":
        return head + (" Fusion gained more than the bytes predict, because the passes were not "
                       "equally efficient: the 3-pass version moves its bytes further below the copy "
                       "rate (extra launches, and passes that end in a reduction move less than a "
                       "streaming copy does). The byte count was right; the equal-bandwidth "
                       "assumption was not.")
    if exp_s is not None and exp_s > fused_bytes_s:
        return head + (f" Fusion gained less than the bytes predict: at the measured exp rate the "
                       f"exps take {_ms(exp_s)}, longer than the fused kernel's bytes "
                       f"({_ms(fused_bytes_s)}), so the softmax is bound by its exps here, and "
                       "fusion deletes bytes, not exps.")
    return head + (" Fusion gained less than the bytes predict, and not because of its exps: the "
                   "fused kernel itself ran well below the copy bandwidth (too little parallelism "
                   "per row, or a row that does not stay on chip).")


def softmax_refined(experiment) -> str:
    """Each variant's byte time and exp time, the larger as the refined bound, and the ratio."""
    lines = []
    bound = {}
    for name, (bytes_s, exp_s, measured_s) in _softmax_times(experiment).items():
        bound[name] = max(bytes_s, exp_s or 0.0)
        exp_text = _ms(exp_s) if exp_s is not None else "not recorded"
        lines.append(f"{name:7s} bytes at copy speed {_ms(bytes_s):>10s}, exps at the measured exp rate "
                     f"{exp_text:>12s} -> bound {_ms(bound[name]):>10s}; measured {_ms(measured_s):>10s}")
    refined = bound["3-pass"] / bound["fused"]
    measured = experiment.ratio("3-pass", "fused")
    reached = {v.name: bound[v.name] / v.median_s for v in experiment.variants}
    if _agrees(measured, refined) == "agrees":
        verdict = "agrees."
    else:
        further = min(reached, key=reached.get)
        verdict = (f"still apart. The 3-pass version ran at {reached['3-pass']:.0%} of its bound and the "
                   f"fused one at {reached['fused']:.0%}: '{further}' came further from its roof, so the "
                   "gap lies in how well each version uses its roof, not in a roof the model left out.")
    lines.append(f"refined prediction {refined:.2f}x, measured {measured:.2f}x: {verdict}")
    if _softmax_times(experiment)["fused"][1] is None:
        lines.append("(This run did not record an exp rate, so the exp roof is missing from the bound.)")
    return "\n".join(lines)


def transpose(experiment) -> str:
    """The ladder as fractions of the copy, and whether each step climbed."""
    copy = experiment.variant("copy").gbps
    ladder = [v for v in experiment.variants if v.name != "copy"]
    shares = ", ".join(f"{v.name} {v.gbps / copy:.0%}" for v in ladder)
    text = f"Fractions of the copy bandwidth: {shares}."
    falls = [(a.name, b.name) for a, b in zip(ladder, ladder[1:]) if b.gbps < a.gbps * (1 + TOLERANCE / 3)]
    if falls:
        text += (" The ladder did not climb at " + ", ".join(f"{a} -> {b}" for a, b in falls) + ": that "
                 "step removed no waste this machine pays for (a CPU's caches and prefetchers already "
                 "absorb part of what tiling and padding fix on a GPU).")
    else:
        text += " Each step climbed, as predicted."
    naive = ladder[0].gbps / copy
    if naive < 0.5:
        text += (f" The naive kernel moved its bytes at {naive:.0%} of copy speed with no arithmetic "
                 "at all: the lost time is in the access pattern.")
    return text


# --- notebook 06 -----------------------------------------------------------------------------

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


def trap_ptx() -> str:
    """What the PTX of the four trap kernels shows, compiled here (no GPU needed)."""
    from . import traps as trap_kernels
    lines = []
    for pair, (trap_name, fix_name) in trap_kernels.PAIRS.items():
        trap, fix = trap_kernels.ptx_summary(trap_name), trap_kernels.ptx_summary(fix_name)
        if pair == "float64 promotion":
            shown = trap["fma.rn.f64"] > 0 and fix["fma.rn.f64"] == 0
            lines.append(f"{pair}: the hot loop of '{trap_name}' has {trap['fma.rn.f64']} fma.rn.f64 and "
                         f"{trap['fma.rn.f32']} fma.rn.f32; '{fix_name}' has {fix['fma.rn.f32']} fma.rn.f32: "
                         + ("the trap is visible in PTX." if shown else "no float64 in PTX with this compiler."))
            continue
        fmas = trap["fma.rn.f32"] + trap["fma.rn.f64"]
        book = trap["compare (setp)"] + trap["select (selp)"] + trap["integer add"]
        fix_book = fix["compare (setp)"] + fix["select (selp)"] + fix["integer add"]
        lines.append(f"{pair}: the hot loop of '{trap_name}' has {book} integer compare/select/add "
                     f"instructions ({trap['64-bit integer']} of them 64-bit) beside {fmas} FMAs; "
                     f"'{fix_name}' has {fix_book} beside {fix['fma.rn.f32']}: "
                     + ("the range bookkeeping is visible in PTX, one step of it per unrolled copy of the body."
                        if book > 4 * max(fix_book, 1) else
                        "this compiler kept the bookkeeping out of the loop, so the trap may not show."))
    return "\n".join(lines)


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
