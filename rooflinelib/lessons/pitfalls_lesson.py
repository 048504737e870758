"""Notebook 06's plumbing: which run each table comes from, said once, and the printouts its cells make.

:class:`Lesson` measures an experiment live where the notebook's mode allows and loads the recorded
H200 run otherwise (:func:`rooflinelib.experiments.experiment_for`), as every cell of the notebook
did through a helper defined in its first cell.  The provenance is said once, by :meth:`Lesson.header`
at the top of the notebook: a table then starts with its result.  A table says where it came from
only when that differs from what the header said (on a live machine, an experiment that needs a GPU
loads the recorded run, and the note under its table says so).

The table printer is :func:`rooflinelib.views.tables.experiment_text`, shared by every notebook,
whose heading names the device and backend; :func:`table_text` keeps its rows and its noise lines
and heads the table with the experiment's title alone, the header having named the device.
The printouts that used to be loops in the notebook's cells (the opening's shares of roof, the
launch pair, the price of an exp, the strided reads' buffer) are functions here.
"""
from __future__ import annotations

from rooflinelib import experiments
from rooflinelib.experiments.record import recorded_experiments
from rooflinelib.lessons import pitfalls
from rooflinelib.measure.provenance import FMA_LANES_PER_SM, SFU_PER_CLOCK_PER_SM
from rooflinelib.views import tables


def table_text(experiment) -> str:
    """``experiment``'s table as :func:`tables.experiment_text` prints it, headed by its title
    alone (no device, no backend: :meth:`Lesson.header` names them once)."""
    text = tables.experiment_text(experiment)
    return experiment.title + "\n" + text.split("\n", 1)[1]


def recorded_run_dates() -> list:
    """The dates (YYYY-MM-DD) of the recorded H200 runs notebook 06 loads, sorted, once each:
    the timed experiments and the Nsight Compute run whose hit rate pitfall 3 quotes."""
    from rooflinelib.hierarchy.level_readings import recorded_l2_by_footprint
    dates = {run.created[:10] for run in recorded_experiments().values()}
    return sorted(dates | {recorded_l2_by_footprint()["created"][:10]})


class Lesson:
    """Notebook 06's experiments in the notebook's run mode, with one provenance line."""

    def __init__(self, mode):
        self.mode = mode
        #: the origin every table has unless its cell says otherwise
        self.expected = "live" if mode.live else "recorded"

    def header(self) -> str:
        """One line (two on a live machine) for the top of the notebook: the mode and the runs."""
        if not self.mode.live:
            dates = " and ".join(recorded_run_dates())
            return (f"Mode: recorded H200 data. Every table below is a recorded H200 run (NVIDIA H200, "
                    f"{dates}), shipped with the course; nothing is measured now.")
        return (self.mode.describe() + "\nThe tables are this machine's numbers; the text quotes the "
                "recorded H200 runs. A table loaded from those runs says so under it.")

    def outcome(self, name: str, cpu=None, gpu=None):
        """The :class:`rooflinelib.experiments.Outcome` of ``name``: live or recorded."""
        return experiments.experiment_for(self.mode, name, cpu=cpu or {}, gpu=gpu or {})

    def note(self, outcome) -> str:
        """What a cell prints under its table about where the table came from: nothing when it
        came from where :meth:`header` said (a live run: only what its roof sources said, if
        anything), else the outcome's own message."""
        if outcome.origin != self.expected:
            return outcome.message
        if outcome.origin == "live" and outcome.experiment is not None:
            return " ".join(outcome.experiment.said)
        return ""

    def say_live(self, message: str) -> None:
        """Print ``message`` on a live machine, where a cell's source may differ from the
        header's; in recorded mode the header has said it."""
        if self.mode.live and message:
            print(message)

    def show(self, name: str, cpu=None, gpu=None, text=None):
        """Measure or load ``name``, print its table (or ``text(experiment)``), then a note only
        where the run is not the kind the header announced.  Returns the experiment (None when
        nothing could be measured or loaded)."""
        outcome = self.outcome(name, cpu=cpu, gpu=gpu)
        experiment = pitfalls.plain_cache_names(outcome.experiment)  # its rows in plain words
        if experiment is not None:
            print((text or TEXTS.get(name, table_text))(experiment))
        note = self.note(outcome)
        if note:
            print(note)
        return experiment


# --- the printouts ---------------------------------------------------------------------------

def shares_text(machine, memory, shares) -> str:
    """The opening chart's table: each kernel's share of the roof of its own access mix
    (``shares``: :func:`pitfalls.roof_shares`).  ``machine`` and ``memory`` are kept for the
    callers; which mix each kernel is scored on is the appendix's (the opening chart)."""
    lines = []
    for row in shares:
        f = row["fraction"]
        where = f"{1 / f:,.{0 if f < 0.1 else 1}f}x under it" if f < 1 else "above it"
        roof = row["memory"] if row["bound"] == "memory" else "fp32"
        lines.append(f"{row['name']:46s} {f:8.2%} of the {roof} roof, {where}")
    return "\n".join(lines)


def launch_pair(experiment) -> dict:
    """Of a ``launch_empty`` run: the tiny add and an empty kernel given the same three arrays,
    both timed by device events (seconds), and the add's element count."""
    def pick(part, arguments=None):
        return next((v for v in experiment.variants if v.extra.get("part") == part
                     and (arguments is None or v.extra.get("arguments") == arguments)), None)
    add, empty = pick("kernel"), pick("device events", "three arrays")
    if add is None or empty is None:
        raise ValueError("launch_empty: the run has no tiny add or no three-array empty kernel")
    dispatch = pick("host dispatch", "three arrays")
    return {"add_s": add.median_s, "empty_s": empty.median_s,
            "dispatch_s": dispatch.median_s if dispatch else None,
            "elements": int(add.extra.get("elements", 0)), "n_bytes": add.n_bytes}


def launch_text(experiment, machine=None) -> str:
    """Pitfall 1's one figure: the tiny add's traffic at Lab 1's copy roof, then the add and an
    empty kernel given its three arrays, timed alike: the two take as long, so the time is the
    launch; then that empty kernel's host dispatch alone (launched back to back, where the run has
    it) and how far it falls short of the time between events (a part the run does not take apart)."""
    pair = launch_pair(experiment)
    machine = machine or pitfalls.recorded_mix_roofs()[0]
    copy = machine.ceiling("dram-copy").value
    bound = pitfalls.launch_bound_at(pair["elements"], copy, pair["add_s"])
    return (f"{pair['elements']}-element add: {bound['n_bytes']:,.0f} bytes, {bound['traffic_s'] * 1e9:.1f} ns of "
            f"traffic at Lab 1's copy roof, {copy:,.0f} GB/s\n"
            f"between device events: the add {pair['add_s'] * 1e6:.1f} us, an empty kernel given the "
            f"same three arrays {pair['empty_s'] * 1e6:.1f} us"
            + ("" if pair["dispatch_s"] is None else
               f"\nthe host's dispatch of that empty kernel, launched back to back: {pair['dispatch_s'] * 1e6:.1f} us"))


def starved_text(experiment) -> str:
    """Pitfall 1's starved grid: the table (a GPU run's titled "Grid-stride kernel", its kernel), then (for an H200 run, against the recorded H200's fp32
    roof and copy roof) the full grid's own share of its roof and the two blocks' share of the full
    grid's rate: the two factors of the opening chart's gap."""
    text = table_text(experiment)
    if experiment.title.startswith("Sweep kernel") and "blocks" in experiment.title:
        # the GPU run's kernel is a grid-stride loop, not notebook 04's `sweep` (review 32d)
        text = "Grid-stride kernel" + text[len("Sweep kernel"):]
    if "H200" not in (experiment.device or {}).get("name", "") or len(experiment.variants) < 2:
        return text
    machine = pitfalls.recorded_mix_roofs()[0]
    starved, full = experiment.variants[0], experiment.variants[-1]
    rows = pitfalls.roof_shares([pitfalls.MixPoint(v.name, v.n_flops, v.n_bytes, v.gflops, "dram-copy")
                                 for v in (starved, full)], machine)
    roof = "fp32" if rows[1]["bound"] == "compute" else rows[1]["memory"]
    return text + (f"\n{full.name}: {rows[1]['fraction']:.0%} of the {roof} roof "
                   f"({rows[1]['roof_gflops']:,.0f} GFLOP/s); {starved.name}: "
                   f"{starved.gflops / full.gflops:.2%} of the full grid, {rows[0]['fraction']:.2%} of the roof")


def mufu_price(compute_capability=(9, 0)) -> dict:
    """The price of an exp on an NVIDIA SM of ``compute_capability``, per clock and SM: MUFU
    (SFU) results against FP32 FMA lanes, the ratio of the two (8 on sm_90), and the ratio in
    FLOPs (an FMA counted as 2 FLOPs, an exp as 1: 16 on sm_90)."""
    cc = tuple(compute_capability)
    if cc not in SFU_PER_CLOCK_PER_SM or cc not in FMA_LANES_PER_SM:
        raise ValueError(f"compute_capability: no published MUFU or FMA rate for {cc}")
    mufu, lanes = SFU_PER_CLOCK_PER_SM[cc], FMA_LANES_PER_SM[cc][0]
    return {"mufu_per_clock": mufu, "fma_lanes": lanes, "fmas_per_exp": lanes / mufu,
            "flops_per_exp": 2 * lanes / mufu}


def mufu_text(machine, compute_capability=(9, 0)) -> str:
    """Pitfall 5's model: the per-clock rates, then ``machine``'s derived roofs."""
    price = mufu_price(compute_capability)
    sfu, fp32 = machine.ceiling("sfu").value, machine.ceiling("fp32").value
    return (f"per SM and clock: {price['mufu_per_clock']} MUFU results, {price['fma_lanes']} FP32 FMAs: "
            f"{price['fmas_per_exp']:.0f}x fewer exps, {price['flops_per_exp']:.0f}x in FLOPs (an FMA is 2)\n"
            f"{machine.name}, derived (SMs x per-SM rate x boost clock): fp32 FMA {fp32 / 1e3:.1f} TFLOP/s, "
            f"MUFU {sfu / 1e3:.2f} T results/s: {fp32 / sfu:.0f}x apart")


def stride_table_text(strides=(1, 2, 4, 8, 16, 32)) -> str:
    """Pitfall 6's prediction: bytes moved per useful byte at each stride, with 32-B sectors and
    with 64-B fetches.  Each value is right-aligned under its own header, so no row reads as one
    column's value under the other's header."""
    headers = ("stride", "32-B sectors", "64-B fetch")
    lines = ["bytes moved per useful byte",
             "  ".join(headers)]
    for stride in strides:
        values = (stride, pitfalls.strided_amplification(stride),
                  pitfalls.strided_amplification(stride, transaction_bytes=pitfalls.GPU_DRAM_ACCESS_BYTES))
        lines.append("  ".join(f"{value:>{len(header)}g}" for value, header in zip(values, headers)))
    return "\n".join(lines)


def strided_buffer_bytes(experiment) -> int:
    """The one buffer a ``strided`` run reads at every stride: each row reads every stride-th
    float of it, so stride x its useful bytes is the buffer.  Raises ``ValueError`` when the rows
    disagree."""
    sizes = {round(v.extra["stride"] * v.n_bytes) for v in experiment.variants}
    if len(sizes) != 1:
        raise ValueError(f"strided: the rows read different buffers ({sorted(sizes)})")
    return sizes.pop()


def _noise(experiment) -> str:
    """The noise lines :func:`tables.experiment_text` adds under a table ('' when no row is noisy)."""
    text = tables.experiment_text(experiment)
    return text[text.index("\nNOISY:"):] if "\nNOISY:" in text else ""


def strided_text(experiment) -> str:
    """Pitfall 6's reading: the one buffer every stride reads across, then each stride's share of
    stride 1's useful bandwidth and its time."""
    base = experiment.variants[0]
    lines = [f"{experiment.title}, every stride across one {strided_buffer_bytes(experiment) / 1e9:.2f} GB "
             f"buffer; stride 1: {base.gbps:,.0f} useful GB/s"]
    lines += [f"{v.name:10s} {v.gbps / base.gbps:6.1%} of the stride-1 useful bandwidth, {v.median_s * 1e6:,.0f} us"
              for v in experiment.variants]
    return "\n".join(lines) + _noise(experiment)


def overlap_text(experiment) -> str:
    """Pitfall 2's table, the share of the shorter phase the overlapped kernel hid, and notebook
    04's prefetching sweep against the plain one (recorded H200, K = 64)."""
    from rooflinelib.experiments import pitfall_readings
    lead = pitfall_readings.pipelined_lead_rows((64,))[0]
    return (table_text(experiment)
            + f"\noverlapped: {pitfalls.overlap_hidden(experiment):.0%} of the shorter phase hidden behind the longer"
            + f"\nnotebook 04's recorded H200 sweep at K = {lead['k']}: sweep_pipelined {lead['pipelined_gflops']:,.0f} "
              f"GFLOP/s, sweep {lead['sweep_gflops']:,.0f}: {lead['lead']:.1%} faster")


def wrong_ceiling_text(experiment) -> str:
    """Pitfall 4's GEMMs: the run's table, then each against the roof of each instruction class
    (an fp32 GEMM cannot run on bf16 tensor cores: that pairing is left out), with the term of
    ``min(P, I x B)`` that sets the attainable rate."""
    import math
    from rooflinelib.experiments import pitfall_readings
    rows = [row for row in pitfall_readings.wrong_ceiling_rows(experiment)
            if not (row["dtype"] == "fp32" and row["roof"] == "bf16 tensor roof")]
    lines = [table_text(experiment),
             f"memory roof B: Lab 1's {rows[0]['dram_mix']} mix, {rows[0]['dram_gbps']:,.0f} GB/s "
             f"({rows[0]['write_share']:.1%} of each GEMM's bytes are writes); attainable at I = min(P, I x B)",
             f"  {'GEMM':5s} {'compute roof P, TFLOP/s':24s} {'I':>6s} {'ridge':>6s}  "
             f"{'attainable at I, TFLOP/s':30s} achieved TFLOP/s"]
    for row in rows:
        term = "I x B" if math.isclose(row["roof_gflops"], row["intensity"] * row["dram_gbps"]) else "P"
        peak = f"{row['roof'].removesuffix(' roof')} {row['peak_gflops'] / 1e3:,.1f}"
        attainable = f"{row['roof_gflops'] / 1e3:7,.1f} = {term}, {row['side']}"
        lines.append(f"  {row['dtype']:5s} {peak:24s} {row['intensity']:6.1f} {row['ridge']:6.1f}  "
                     f"{attainable:30s} {row['achieved_gflops'] / 1e3:7,.1f} ({row['fraction']:.0%})")
    return "\n".join(lines)


def race_text(experiment) -> str:
    """Pitfall 7's race per filter length: the direct kernel measured and at 100% of its fp32
    roof, the whole-signal FFT measured, each timing's spread (its own column, the term defined
    under the table), their FLOP ratio and what the FFT beats; then, as a small table of its own,
    FLOPs per output of the direct kernel, the whole-signal FFT and overlap-save on blocks of 8m
    (counted, not raced) at the two shortest filters."""
    race = pitfalls.race_rows(experiment)
    title = experiment.title
    spreads = {}
    for v in experiment.variants:
        spreads.setdefault(v.extra.get("m"), {})["fft" if "length" in v.extra or "FFT" in v.name else "direct"] = v.spread

    def spread(m, kind):
        value = spreads.get(m, {}).get(kind)
        return "-" if value is None else f"{value:.1%}"
    lines = [title,
             f"{'m':>7s}  {'direct':>9s}  {'direct at roof':>14s}  {'FFT':>7s}  {'spread, direct':>14s}  "
             f"{'spread, FFT':>11s}  {'FLOP ratio':>10s}  FFT faster"]
    for r in race:
        lines.append(f"{r['m']:7,d}  {r['direct_s'] * 1e6:6,.0f} us  {r['direct_at_roof_s'] * 1e6:11,.0f} us  "
                     f"{r['fft_s'] * 1e6:4,.0f} us  {spread(r['m'], 'direct'):>14s}  {spread(r['m'], 'fft'):>11s}  "
                     f"{r['flop_ratio']:9.1f}x  "
                     + ("even against direct at its roof" if r["fft_beats_roof"] else "only as measured"))
    lines += ["spread: (max - min) / median of the repeats; FLOP ratio: direct FLOPs / FFT FLOPs",
              "",
              "FLOPs per output, counted (overlap-save was not raced)",
              "  whole-signal FFT: three transforms of the whole signal",
              "  overlap-save: blocks of 8m, two transforms and the products each (the filter's transform made once)",
              f"{'m':>7s}  {'direct':>6s}  {'whole-signal FFT':>16s}  {'overlap-save':>12s}"]
    lines += [f"{r['m']:7,d}  {2 * r['m']:6,d}  {2 * r['m'] / r['flop_ratio']:16.0f}  "
              f"{pitfalls.overlap_save_flops_per_output(r['m'], 8 * r['m']):12.0f}" for r in race[:2]]
    return "\n".join(lines) + _noise(experiment)


TRANSCENDENTAL_COLUMNS = (
    tables.Column("name", "variant", align="<"),
    tables.Column("median_s", "median time", tables._time),
    tables.Column("rate", "rate", align="<"),
    tables.Column("spread", "spread", lambda v: f"{100 * v:.0f}%"),
)


#: The first row of pitfall 5's table: the SFU ceiling's kernel is compiled with fast math, so
#: each exp2 is one MUFU.EX2 (kernels_numba.sfu_kernel), not a full-precision exp's sequence.
EXP2_ROW = "exp2, fast math (one MUFU.EX2)"


def transcendental_text(experiment) -> str:
    """Pitfall 5's table, each row's rate in its own unit: the exp2 row's in results (G results/s,
    not FLOPs), the FMA row's in GFLOP/s.  The exp2 row is named for what ran (:data:`EXP2_ROW`)."""
    rows = [{"name": EXP2_ROW if i == 0 else v.name, "median_s": v.median_s, "spread": v.spread,
             "rate": f"{v.gflops:,.0f} " + ("G results/s" if i == 0 else "GFLOP/s")}
            for i, v in enumerate(experiment.variants)]
    return experiment.title + "\n" + tables.render(rows, TRANSCENDENTAL_COLUMNS) + _noise(experiment)


def clocks_text(experiment) -> str:
    """Pitfall 8's repeated ceiling in one line: how many runs, their range, how far apart, and
    the clock read beside them."""
    rates = [v.gflops for v in experiment.variants]
    seen = pitfalls.clocks_seen(experiment)
    return (f"{experiment.title}: {len(rates)} runs, {min(rates):,.0f} to {max(rates):,.0f} GFLOP/s, "
            f"{max(rates) / min(rates) - 1:.1%} apart"
            + (f", the clock read {pitfalls.mhz_text(min(seen), max(seen))}" if seen else ", no clock recorded")
            + _noise(experiment))


def gate_lines(demo) -> list:
    """The regression gates' verdicts, one line each (recorded dicts or live outcomes): the kernel's
    achieved rate (its share times its roof), then that share of the roof, each labelled."""
    lines = []
    for g in demo.outcomes:
        get = g.get if isinstance(g, dict) else g.__getattribute__
        unit, roof, share = get('roof_unit'), get('roof'), get('share')
        lines.append(f"- {get('name')}: {get('verdict')}, {share * roof:,.0f} {unit}, {share:.1%} of its "
                     f"{roof:,.0f} {unit} roof; threshold {get('at_least'):.0%}")
    return lines


def sustained_text(experiment) -> str:
    """Pitfall 8's evidence: the GEMM's shape (M x N x K, from the run's ``n``), the cool card's ten-launch burst against the held
    windows (rate and SM clock) and against the first of them (how soon the loss sets in), the
    hot card's burst after the hold, then the board's power against its limit and the reason NVML
    gave for the lower clock.  Every window is in the appendix."""
    from rooflinelib import testing
    held = pitfalls.sustained_summary(experiment)
    clocks = [v.extra["sm_clock_mhz_median"] for v in experiment.variants
              if v.extra.get("part") == "sustained" and v.extra.get("sm_clock_mhz_median")]
    clock = f", SM clock {pitfalls.mhz_text(min(clocks), max(clocks))}" if clocks else ""
    held_s = max((v.extra.get("elapsed_s") or 0.0) for v in experiment.variants if v.extra.get("part") == "sustained")
    n = (experiment.extra or {}).get("n")
    shape = f"the GEMM: bf16 on the tensor cores, {n} x {n} x {n}\n" if n else ""
    ended = f", to {held['first_s']:.1f} s" if held["first_s"] else ""
    return (shape + f"ten launches, cool card: {held['cool_tflops']:.0f} TFLOP/s; "
            f"after the hold, hot card: {held['hot_tflops']:.0f} TFLOP/s "
            f"({1 - held['hot_tflops'] / held['cool_tflops']:.0%} lower)\n"
            f"held {held_s:.0f} s: {held['low_tflops']:.0f} to {held['high_tflops']:.0f} TFLOP/s{clock}\n"
            f"the first window{ended}: {held['first_tflops']:.0f} TFLOP/s, "
            f"{held['first_tflops'] / held['cool_tflops']:.0%} of the cool card's burst\n"
            f"board power up to {held['power_median_w']:.0f} W (window medians), limit "
            + (f"{held['power_limit_w']:.0f} W" if held["power_limit_w"] else "not read")
            + f"; NVML's reason for the lower clock: {', '.join(testing.throttle_names(held['reasons'])) or 'none'}")


def link_text(name: str = "pcie5-x16") -> str:
    """A datasheet link's rate, exactly: the raw signalling rate per direction, what 128b/130b
    encoding leaves (PCIe Gen3 on), and the both-directions figure data sheets print."""
    from rooflinelib.core.interconnect import LINKS
    link = LINKS[name]
    raw = link.gbps_per_direction
    encoded = f", {raw * 128 / 130:.1f} after 128b/130b encoding" if name.startswith("pcie") else ""
    return (f"{link.label}: {raw:.0f} GB/s per direction is the raw rate{encoded}; "
            f"data sheets print {link.gbps_both_directions:.0f} GB/s, both directions")


#: How :meth:`Lesson.show` prints each experiment that has more to say than its table.
TEXTS = {"launch_empty": launch_text, "starved": starved_text, "overlap": overlap_text, "strided": strided_text,
         "wrong_ceiling": wrong_ceiling_text, "transcendental": transcendental_text, "algorithm_sizes": race_text, "clocks": clocks_text,
         "sustained": sustained_text}
