"""The model's side of the nine pitfalls: what each one predicts, before anything is measured.

Notebook 06 sets each prediction here against a measurement from :mod:`rooflinelib.experiments`
and hands the facts to :mod:`rooflinelib.lessons.triage`.  Every function is arithmetic on the
catalogue (:mod:`rooflinelib.core.operators`) and the machine table, or reads the recorded H200 run
(:func:`recorded_launch_costs`); nothing here measures.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from rooflinelib.core import operators
from rooflinelib.core.vocabulary import compute_ceiling
from rooflinelib.hierarchy.level_readings import l2_footprint_rows, recorded_l2_by_footprint
from rooflinelib.store.results import dram_mixes, mix_roofs, recorded, recorded_h200
from rooflinelib.experiments.record import recorded_experiments
from rooflinelib.core.placement import KernelPoint
from rooflinelib.measure.gpu_backends import theoretical
from rooflinelib.core.model import time_bounds

#: A GPU's L1 and L2 move global memory in 32-byte sectors (Nsight Compute's Kernel Profiling
#: Guide); a CPU moves 64-byte cache lines.
GPU_SECTOR_BYTES = 32
CPU_LINE_BYTES = 64
#: The unit the H200's DRAM traffic behaves as if it moved: pairs of 32-byte sectors.  This is
#: what the recorded strided reads fit (useful bandwidth keeps halving up to stride 16, twice
#: stride 8, from which each float read has a 32-byte sector of its own), not a datasheet
#: figure; docs/h200-facts.md has the data.
GPU_DRAM_ACCESS_BYTES = 64


def recorded_launch_costs() -> dict:
    """What one launch cost on the recorded H200 run (the ``launch`` experiment of
    ``rooflinelib/data/h200_experiments_numba.json``), taken apart.

    Returns ``{"device_s": the device's own cost per kernel inside a CUDA graph, or None,
    "host_dispatch_s": {library: the host's wall-clock dispatch of one empty kernel},
    "source": one line naming the run, "when": its date and time}``.  Raises ``ValueError`` when no such run is shipped.
    """
    try:
        run = recorded_experiments()["launch"]
    except KeyError:
        raise ValueError("launch: the recorded runs have no 'launch' experiment") from None
    device = next((v.median_s for v in run.variants if v.extra.get("part") == "device"), None)
    dispatch = {v.extra.get("library", v.name): v.median_s for v in run.variants
                if v.extra.get("part") == "host dispatch"}
    if device is None and not dispatch:
        raise ValueError("launch: the recorded run does not take the launch apart (no device or "
                         "host-dispatch rows)")
    return {"device_s": device, "host_dispatch_s": dispatch,
            "source": f"recorded on {run.device.get('name', 'the GPU')} on {run.created[:10]}",
            "when": f"{run.created[:10]} {run.created[11:16]} UTC"}


def launch_bound(n: int, machine, launch_s: float, dtype: str = "fp32") -> dict:
    """A vector add of ``n`` elements on ``machine``: its traffic time against a launch that
    costs ``launch_s`` (the device's own cost, or a host's dispatch: see
    :func:`recorded_launch_costs`).

    Returns the bytes, the traffic time at the DRAM roof, the launch time, their ratio, and
    the fraction of the roof the kernel can reach when every launch is paid.
    """
    return launch_bound_at(n, machine.ceiling("dram").value, launch_s, dtype)


def launch_bound_at(n: int, peak_gbps: float, launch_s: float, dtype: str = "fp32") -> dict:
    """:func:`launch_bound` against a bare DRAM rate in GB/s rather than a machine."""
    if not launch_s > 0:
        raise ValueError(f"launch_s: must be a positive number of seconds, got {launch_s!r}")
    if not peak_gbps > 0:
        raise ValueError(f"peak_gbps: must be a positive rate in GB/s, got {peak_gbps!r}")
    op = operators.vector_add(n, dtype)
    traffic_s = op.n_bytes / (peak_gbps * 1e9)
    return {"n": n, "n_bytes": op.n_bytes, "traffic_s": traffic_s, "launch_s": launch_s,
            "launch_over_traffic": launch_s / traffic_s,
            "fraction_of_roof": traffic_s / (traffic_s + launch_s)}


#: The round figures pitfall 1 is usually stated with: a launch of about 4 us against about
#: 4 TB/s of HBM.  They are an assumption to reason with, set beside the recorded H200 below.
TEXTBOOK_LAUNCH_S = 4e-6
TEXTBOOK_DRAM_GBPS = 4000.0


def launch_dominance_elements(peak_gbps: float, launch_s: float, dtype: str = "fp32") -> int:
    """The smallest vector-add length whose traffic at ``peak_gbps`` takes at least as long as a
    launch of ``launch_s``: below it, the launch costs more than the bytes, and the kernel
    cannot reach half of its roof."""
    if not launch_s > 0 or not peak_gbps > 0:
        raise ValueError(f"peak_gbps, launch_s: must be positive, got {peak_gbps!r}, {launch_s!r}")
    per_element = operators.vector_add(1, dtype).n_bytes
    return math.ceil(launch_s * peak_gbps * 1e9 / per_element * (1 - 1e-12))


def recorded_empty_launch() -> dict:
    """The empty-kernel launch of the recorded pitfalls run (the ``launch_empty`` experiment):

    ``{"events_s", "round_trip_s", "dispatch_s": {arguments: seconds} for "one float" and
    "three arrays", "device_s": the device's cost in a CUDA graph or None, "tiny_add_s",
    "tiny_add_spread", "elements", "source"}``.  Raises ``ValueError`` saying it is not
    recorded yet when the run is not shipped."""
    try:
        run = recorded_experiments()["launch_empty"]
    except (KeyError, ValueError):
        raise ValueError("launch_empty: not recorded yet (benchmarks/record_pitfalls.sh records it)") from None
    by_part = {}
    for v in run.variants:
        by_part.setdefault(v.extra.get("part"), {})[v.extra.get("arguments")] = v
    add = next(iter(by_part.get("kernel", {}).values()), None)
    device = next(iter(by_part.get("device", {}).values()), None)
    if add is None or "device events" not in by_part:
        raise ValueError("launch_empty: the recorded run lacks the tiny add or the device-event rows")
    return {part: {args: v.median_s for args, v in by_part.get(name, {}).items()}
            for part, name in (("events_s", "device events"), ("round_trip_s", "round trip"),
                               ("dispatch_s", "host dispatch"))} | {
        "device_s": device.median_s if device else None, "tiny_add_s": add.median_s,
        "tiny_add_spread": add.spread, "elements": int(add.extra.get("elements", 0)),
        "source": f"recorded on {run.device.get('name', 'the GPU')} on {run.created[:10]}"}


#: The compute roofs pitfall 4 spans: vector (plain and packed), then matrix units at falling
#: precision (bf16 before fp16: where the two are equal the span names bf16).
SPAN_CEILINGS = (compute_ceiling("fp32"), "fp32-packed") + tuple(
    compute_ceiling(d, "matrix") for d in ("fp32", "tf32", "bf16", "fp16", "fp8"))


def compute_roof_span(machine, names=SPAN_CEILINGS) -> dict:
    """The lowest and highest of ``machine``'s compute roofs among ``names`` and their ratio:
    how wrong a verdict can be that picks the wrong one."""
    found = [machine.ceiling(n) for n in names if machine.has(n)]
    if len(found) < 2:
        raise ValueError(f"names: {machine.name} has fewer than two of {', '.join(names)}")
    low, high = min(found, key=lambda c: c.value), max(found, key=lambda c: c.value)
    return {"low": low, "high": high, "ratio": high.value / low.value, "ceilings": found}


def roof_ratio(machine, fast: str = compute_ceiling("bf16", "matrix"), slow: str = compute_ceiling("fp32")) -> float:
    """How many times one compute roof of ``machine`` exceeds another (bf16 tensor over fp32
    vector by default): the factor a wrong-ceiling verdict is off by."""
    return machine.ceiling(fast).value / machine.ceiling(slow).value


def recorded_launch_runs() -> list:
    """Every recorded H200 run that took a launch apart, oldest first: the ``launch`` experiment
    (notebook 06 quotes it) and the ``launch_empty`` one (notebook 00 quotes it), each
    ``{"experiment", "when": "YYYY-MM-DD HH:MM UTC", "device_s", "numba_dispatch_s"}``.  The two
    runs disagree by a few per cent on the device's cost and by more on Numba's dispatch, a
    host-side cost that moves with the host; a figure quoted from one names it."""
    runs = recorded_experiments()
    picks = {"launch": lambda v: v.extra.get("library") == "Numba-CUDA",
             "launch_empty": lambda v: v.extra.get("arguments") == "one float"}
    found = []
    for name, is_numba in picks.items():
        run = runs.get(name)
        if run is None:
            continue
        device = next((v.median_s for v in run.variants if v.extra.get("part") == "device"), None)
        numba = next((v.median_s for v in run.variants
                      if v.extra.get("part") == "host dispatch" and is_numba(v)), None)
        found.append({"experiment": name, "when": f"{run.created[:10]} {run.created[11:16]} UTC",
                      "device_s": device, "numba_dispatch_s": numba})
    if not found:
        raise ValueError("launch: the recorded runs take no launch apart")
    return sorted(found, key=lambda r: r["when"])


def recorded_empty_kernel_pair() -> dict:
    """The recorded run that timed the tiny add beside an empty kernel given the add's three
    arrays, both by device events (the ``launch_empty`` experiment): ``{"empty_s", "add_s",
    "when"}``.  Two times this close say the add's time is its launch, not its bytes.  Raises
    ``ValueError`` when that run is not shipped."""
    run = recorded_experiments().get("launch_empty")
    if run is None:
        raise ValueError("launch_empty: the recorded runs have no 'launch_empty' experiment")
    empty = next((v.median_s for v in run.variants
                  if v.extra.get("part") == "device events" and v.extra.get("arguments") == "three arrays"), None)
    add = next((v.median_s for v in run.variants if v.extra.get("part") == "kernel"), None)
    if empty is None or add is None:
        raise ValueError("launch_empty: the recorded run has no three-array empty kernel or no add")
    return {"empty_s": empty, "add_s": add, "when": run.created[:10]}


def roof_shares(points, machine, compute: str = "fp32", memory: str = "dram") -> list:
    """Each :class:`rooflinelib.core.placement.KernelPoint` against ``machine``'s ``compute`` roof
    and a memory roof: the one its ``memory_ceiling`` names (a :class:`MixPoint`: the DRAM roof of
    its own access mix, notebook 03's rule) when ``machine`` has it, else ``memory``.  Each row:
    its intensity, the memory roof used, the roof at that intensity, the fraction of it reached
    and how many decades (powers of ten) under it the point sits (negative: above it)."""
    peak = machine.ceiling(compute).value
    rows = []
    for p in points:
        wanted = getattr(p, "memory_ceiling", memory)
        used = wanted if machine.has(wanted) else memory
        bandwidth = machine.ceiling(used).value
        intensity = p.n_flops / p.n_bytes
        roof = min(peak, intensity * bandwidth)
        rows.append({"name": p.name, "intensity": intensity, "memory": used,
                     "memory_label": machine.ceiling(used).label,
                     "bound": "memory" if intensity * bandwidth < peak else "compute",
                     "gflops": p.achieved_gflops, "roof_gflops": roof,
                     "fraction": p.achieved_gflops / roof,
                     "decades_under": math.log10(roof / p.achieved_gflops)})
    return rows


def recorded_cache_facts() -> dict:
    """Pitfall 3's kernel as measured on the H200: the L2 kernel of the recorded ``cache`` run
    (a 25.2 MB set re-read) against Lab 1's recorded DRAM read roof (``dram-read``, the kernel's
    own mix: it only reads) and the run's own copy, and, from
    the Nsight Compute run of the same kernel at the same footprint, the share of its requested
    bytes that did not come from DRAM (its L2 hit rate, as the DRAM counter bounds it).

    ``{"ws_bytes", "reported_l2_bytes", "l2_gbps", "dram_gbps", "copy_gbps",
    "fraction_of_dram", "over_copy", "hit_rate", "hit_rate_when"}``.  Raises ``ValueError``
    when a piece is not shipped."""
    run = recorded_experiments().get("cache")
    if run is None:
        raise ValueError("cache: the recorded runs have no 'cache' experiment")
    l2 = next((v for v in run.variants if v.extra.get("working_set_bytes")), None)
    copy = next((v for v in run.variants if v.extra.get("buffer_bytes")), None)
    if l2 is None or copy is None:
        raise ValueError("cache: the recorded run lacks its L2 or its DRAM variant")
    ws = l2.extra["working_set_bytes"]
    record = recorded_l2_by_footprint()
    ncu = next((r for r in l2_footprint_rows(record) if r["ws_bytes"] == ws), None)
    if ncu is None:
        raise ValueError(f"cache: no Nsight Compute reading of the L2 kernel at {ws} bytes")
    dram = dram_mixes(recorded("ceilings"))["read"]
    return {"ws_bytes": ws, "reported_l2_bytes": l2.extra.get("reported_l2_bytes", record["reported_l2_bytes"]),
            "l2_gbps": l2.gbps, "dram_gbps": dram, "copy_gbps": copy.gbps,
            "fraction_of_dram": l2.gbps / dram, "over_copy": l2.gbps / copy.gbps,
            "hit_rate": ncu["not_from_dram"],
            "hit_rate_when": f"{record['created'][:10]} {record['created'][11:16]} UTC"}


#: A kernel whose bytes go at least this much one way (all reads or all writes) is judged
#: against that direction's DRAM roof; a mix of the two against the copy (notebook 03's rule:
#: a kernel reaches only the roof of its own access mix).
ONE_WAY_SHARE = 0.9


def own_dram_mix(read_bytes: float, write_bytes: float) -> str:
    """The Lab 1 DRAM mix ('read', 'write' or 'copy') a kernel moving these bytes is judged
    against: the direction that carries at least :data:`ONE_WAY_SHARE` of them, else the copy."""
    if not read_bytes >= 0 or not write_bytes >= 0 or not read_bytes + write_bytes > 0:
        raise ValueError(f"read_bytes, write_bytes: must be non-negative and not both zero, got "
                         f"{read_bytes!r}, {write_bytes!r}")
    share = write_bytes / (read_bytes + write_bytes)
    return "write" if share >= ONE_WAY_SHARE else "read" if share <= 1 - ONE_WAY_SHARE else "copy"


def recorded_launch_bounds(n: int, machine, memory: str = "dram", libraries=None) -> list:
    """``(part, launch_s, bound)`` for each launch cost of the recorded H200 run: the device's
    own cost first, then each library's host dispatch (only ``libraries``' when given);
    ``bound`` is :func:`launch_bound_at` with the traffic timed at ``machine``'s ``memory`` roof
    (``dram-copy`` for a vector add, which reads two arrays and writes one)."""
    costs = recorded_launch_costs()
    parts = ([("device's own cost (CUDA graph)", costs["device_s"])] if costs["device_s"] else [])
    parts += [(f"host dispatch, {library}", s) for library, s in costs["host_dispatch_s"].items()
              if libraries is None or library in libraries]
    bandwidth = machine.ceiling(memory).value
    return [(part, s, launch_bound_at(n, bandwidth, s)) for part, s in parts]


def strided_amplification(stride: int, element_bytes: int = 4,
                          transaction_bytes: int = GPU_SECTOR_BYTES) -> float:
    """Bytes the memory system moves per useful byte when every ``stride``-th element is read.

    One element per transaction once the stride spans a whole transaction; before that, the
    transaction is shared by ``transaction_bytes / (stride * element_bytes)`` useful elements.
    """
    if stride < 1 or element_bytes < 1 or transaction_bytes < element_bytes:
        raise ValueError("stride, element_bytes, transaction_bytes: must be positive, "
                         "with a transaction at least one element wide")
    return min(stride * element_bytes, transaction_bytes) / element_bytes


def fft_correlation_flops(length: int) -> float:
    """FLOPs of correlating through the FFT at transform length L: three real transforms of
    about 2.5 L log2 L each (half the classic 5 L log2 L of a complex one)."""
    return 3 * 2.5 * length * math.log2(length)


def fft_length(n: int, m: int) -> int:
    """The power-of-two transform length that holds a correlation of n outputs and m taps."""
    return 1 << (n + 2 * m).bit_length()


def algorithm_race(n: int, m: int) -> dict:
    """Direct correlation (2nm FLOPs) against the FFT route, in FLOPs."""
    length = fft_length(n, m)
    direct, fft = 2.0 * n * m, fft_correlation_flops(length)
    return {"direct_flops": direct, "fft_flops": fft, "length": length, "flop_ratio": direct / fft}


def plain_cache_names(experiment):
    """The ``cache`` run with its GPU rows named in plain words (the L2-resident re-read and the
    DRAM copy, with their sizes) instead of the engine's kernel names; other rows, and other runs,
    come back unchanged."""
    def plain(v):
        extra = v.extra or {}
        if v.name.startswith("l2:") and extra.get("working_set_bytes"):
            return f"L2-resident re-read ({extra['working_set_bytes'] / 1e6:.1f} MB set)"
        if v.name.startswith("dram:") and extra.get("buffer_bytes"):
            return f"DRAM copy ({extra['buffer_bytes'] / 1e9:.2f} GB buffer)"
        return v.name
    if experiment is None or experiment.name != "cache":
        return experiment
    return dataclasses.replace(experiment, variants=tuple(dataclasses.replace(v, name=plain(v))
                                                          for v in experiment.variants))


def overlap_save_flops_per_output(m: int, block_length: int) -> float:
    """FLOPs per output of blocked FFT correlation (overlap-save), the FFT route for short filters.

    Each block of ``block_length`` L (a power of two above m) yields L - m + 1 outputs for one
    forward and one inverse real transform (about 2.5 L log2 L FLOPs each, as in
    :func:`fft_correlation_flops`) and a pointwise complex product of its L/2 + 1 bins (6 FLOPs
    each); the filter's transform is made once and shared by every block, so it is left out.
    Direct correlation needs 2m per output.  A count, not a time: its traffic is not modelled."""
    if m < 1 or block_length <= m or block_length & (block_length - 1):
        raise ValueError(f"block_length: must be a power of two above m = {m}, got {block_length}")
    per_block = 2 * 2.5 * block_length * math.log2(block_length) + 6 * (block_length // 2 + 1)
    return per_block / (block_length - m + 1)


@dataclass(frozen=True)
class MixPoint(KernelPoint):
    """A measured kernel with the DRAM roof of its own access mix (``dram-read``, ``dram-write``
    or ``dram-copy``, notebook 03's rule), which a chart's hover and :func:`roof_shares` judge
    it against."""

    memory_ceiling: str = "dram"


#: The measured kernels notebook 06 opens with, one per pitfall that has a point on the chart:
#: (experiment, index of its variant, label, the DRAM mix its bytes make).  The mixes follow
#: the kernels' reads and writes: the add reads two arrays and writes one, the sweep and the
#: phased kernels read x and write y, the correlation reads its input and writes as many
#: outputs (all copies); the GEMM's bytes are 98.5% C's writes; the strided kernel only reads.
RECORDED_POINTS = (
    # the second launch run's add, the run whose table the notebook prints (device events, like the
    # first run's noisier one)
    ("launch_empty", 6, "1: 4096-element add (device events)", "copy"),
    ("starved", 0, "1: grid-stride K=64 on 2 blocks", "copy"),
    # the same FLOPs and bytes as one kernel, not the same computation: the arithmetic kernel reads nothing
    ("overlap", 2, "2: same FLOPs and bytes, two kernels", "copy"),
    ("wrong_ceiling", 1, "4: bf16 GEMM (tensor cores)", "write"),
    ("strided", 4, "6: stride-16 reads", "read"),  # the longest stride the 64-byte hypothesis explains
    ("algorithm", 0, "7: direct correlation", "copy"),
)


def recorded_stride_one_share() -> float:
    """Stride 1's useful GB/s in the recorded strided run over Lab 1's recorded read roof: the
    base that turns pitfall 6's shares of stride 1 into shares of the roof."""
    run = recorded_experiments().get("strided")
    if run is None:
        raise ValueError("strided: the recorded runs have no 'strided' experiment")
    return run.variants[0].gbps / dram_mixes(recorded("ceilings"))["read"]


def recorded_mix_roofs() -> tuple:
    """``(machine, memory)``: the recorded H200 Lab 1 run with its DRAM access mixes kept, and
    the memory ceilings the opening chart draws (``dram``, the fastest mix, first)."""
    return mix_roofs(recorded("ceilings"), name="H200 (recorded, numba)")


def recorded_points(experiments=None) -> list:
    """The measured kernels of the recorded H200 pitfalls runs that a one-level fp32/HBM
    roofline misreads, as :class:`MixPoint` (FLOPs and bytes as counted, the measured rate,
    the DRAM mix it is judged against).  ``experiments``: a ``{name: Experiment}`` (default:
    the recorded runs); a missing experiment is left out."""
    runs = recorded_experiments() if experiments is None else experiments
    points = []
    for name, index, label, mix in RECORDED_POINTS:
        run = runs.get(name)
        if run is None or index >= len(run.variants):
            continue
        v = run.variants[index]
        points.append(MixPoint(f"pitfall {label}", v.n_flops, v.n_bytes, v.gflops, f"dram-{mix}"))
    return points


def race_rows(experiment) -> list:
    """Each filter length of a direct-against-FFT run (the ``algorithm`` or ``algorithm_sizes``
    experiment), as the roofline judges it: the direct kernel's measured time and share of its
    fp32 roof, its time at 100% of that roof, and the FFT route's measured time.

    ``fft_beats_roof`` is the verdict pitfall 7 is about: only where the FFT route beats the
    direct kernel *at its roof* does no tuning of the direct kernel close the gap; where it only
    beats the kernel as measured, a better direct kernel would win."""
    peak = experiment.extra.get("fp32_peak_gflops")
    pairs = {}
    for v in experiment.variants:
        m = v.extra.get("m", experiment.extra.get("m"))
        pairs.setdefault(m, {})["fft" if "length" in v.extra or "FFT" in v.name else "direct"] = v
    rows = []
    for m, pair in sorted(pairs.items(), key=lambda kv: kv[0] or 0):
        direct, fft = pair.get("direct"), pair.get("fft")
        if direct is None or fft is None:
            continue
        at_roof = direct.extra.get("seconds_at_100_percent") or (
            direct.n_flops / (peak * 1e9) if peak else None)
        if not at_roof:
            raise ValueError(f"experiment {experiment.title!r}: the direct kernel's time at its roof is "
                             "not recorded and the run has no fp32 peak to compute it from")
        rows.append({"m": m, "direct_s": direct.median_s, "direct_at_roof_s": at_roof,
                     "fraction_of_roof": at_roof / direct.median_s, "fft_s": fft.median_s,
                     "flop_ratio": direct.n_flops / fft.n_flops,
                     "fft_beats_measured": fft.median_s < direct.median_s,
                     "fft_beats_roof": fft.median_s < at_roof})
    return rows


def overlap_hidden(experiment) -> float:
    """Of an ``overlap`` run (memory phase alone, compute phase alone, one after the other,
    overlapped), the share of the shorter phase's time the overlapped kernel hid: the two
    phases' times alone, less the overlapped time, over the shorter phase (1: the roofline's
    perfect overlap, 0: none)."""
    times = [v.median_s for v in experiment.variants]
    if len(times) != 4 or not all(t > 0 for t in times):
        raise ValueError("overlap: the run needs its four variants, each with a positive time")
    memory, compute, _, overlapped = times
    return (memory + compute - overlapped) / min(memory, compute)


def sustained_summary(experiment) -> dict:
    """A sustained-GEMM run (``sustained``) in the figures notebook 06 quotes: the held windows'
    lowest and highest rate (TFLOP/s), the two ten-launch bursts' rates (the cool card's first,
    then the hot card's), the windows' highest median and peak board power (W), the board's
    power limit (W, None when NVML gave none) and the NVML clock-event reason masks the windows
    saw (0 left out); and the first held window's rate (TFLOP/s), the time it ended (s from the
    hold's start, None when not recorded) and its reason masks, which show how soon the loss sets
    in.  Raises ``ValueError`` when the run has no held window or no burst."""
    windows = [v for v in experiment.variants if v.extra.get("part") == "sustained"]
    bursts = [v for v in experiment.variants if v.extra.get("part") == "microbenchmark"]
    if not windows or len(bursts) < 2:
        raise ValueError("sustained: the run needs its held windows and both ten-launch bursts")
    before = (experiment.device or {}).get("before") or {}
    first = windows[0]  # the windows are recorded in the order they ran
    return {"first_tflops": first.gflops / 1e3, "first_s": first.extra.get("elapsed_s"),
            "first_reasons": sorted(set(first.extra.get("clock_event_reasons", ())) - {0}),
            "low_tflops": min(v.gflops for v in windows) / 1e3,
            "high_tflops": max(v.gflops for v in windows) / 1e3,
            "cool_tflops": bursts[0].gflops / 1e3, "hot_tflops": bursts[-1].gflops / 1e3,
            "power_median_w": max(v.extra.get("power_w_median", 0.0) for v in windows),
            "power_peak_w": max(v.extra.get("power_w_max", 0.0) for v in windows),
            "power_limit_w": before.get("power_limit_w"),
            "reasons": sorted({r for v in windows for r in v.extra.get("clock_event_reasons", ())} - {0})}


def mhz_text(low: float, high: float) -> str:
    """A clock read several times: "at 1,980 MHz" when every reading agrees (as printed),
    "between 1,485 and 1,560 MHz" otherwise."""
    a, b = f"{min(low, high):,.0f}", f"{max(low, high):,.0f}"
    return f"at {a} MHz" if a == b else f"between {a} and {b} MHz"


def clocks_seen(experiment) -> list:
    """Every clock reading (MHz) of a ``clocks`` run: the SM clock on a GPU, the CPU's clock
    before and after each measurement on a CPU."""
    return [v.extra[key] for v in experiment.variants
            for key in ("sm_clock_mhz", "cpu_mhz_before", "cpu_mhz_after") if v.extra.get(key)]


def fp32_peak_at_clock(sm_count: int, compute_capability: tuple, clock_mhz: float) -> float:
    """The theoretical fp32 FMA peak in GFLOP/s: SMs x lanes x 2 FLOP x clock."""
    peaks = theoretical(sm_count, tuple(compute_capability), clock_mhz)
    if "fp32_gflops" not in peaks:
        raise ValueError(f"compute_capability: no published lane count for {compute_capability}")
    return peaks["fp32_gflops"]


def serial_over_overlapped(n_flops: float, n_bytes: float, peak_gflops: float, peak_gbps: float) -> float:
    """How much longer a kernel takes with no overlap than with perfect overlap (1 to 2)."""
    t = time_bounds(n_flops, n_bytes, peak_gflops, peak_gbps)
    return t.serial_s / t.overlapped_s


def whole_program_speedup(share: float, kernel_speedup: float) -> float:
    """The whole program's speed-up when a kernel taking ``share`` of its time gets
    ``kernel_speedup`` times faster (Amdahl): why a roofline of a kernel that takes 2% of the
    time is a distraction, however far below its roof the kernel sits."""
    if not 0 <= share <= 1 or not kernel_speedup > 0:
        raise ValueError(f"share, kernel_speedup: need 0 <= share <= 1 and a positive speed-up, got "
                         f"{share!r}, {kernel_speedup!r}")
    return 1.0 / ((1.0 - share) + share / kernel_speedup)
