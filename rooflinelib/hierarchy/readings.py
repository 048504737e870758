"""What a hierarchical run shows, in sentences computed from its own numbers.

Notebook 05 prints these readings instead of typing figures into its prose, so that a new run
(recorded or live) reads true: every figure below comes from the levels detected in a
working-set sweep, from ncu's counters against the counts made by hand, or from a placement.
Pure standard library.
"""
from __future__ import annotations

import statistics
from pathlib import Path

from ..fileio import read_json
# Bytes per clock per SM that the L1 and shared memory deliver to loads (the engine's shared
# ceiling uses the same figure); ncu's own L1 peak counts a wider path.
from ..measure.provenance import SHARED_BYTES_PER_CLOCK_PER_SM
from .levels import format_bytes
from .ncu import NcuError
from .placement import l1_sram_bytes
from .results import reported_sizes, series_by_access


def _tb(gbps: float) -> str:
    return f"{gbps / 1e3:.3g} TB/s"


def _level(levels, name):
    return next((lv for lv in levels if lv.name == name), None)


def shared_peak_gbps(result: dict, series_name: str = None):
    """SMs x 128 B x the SM clock the sweep ran at (GB/s), and that clock (MHz); (None, None)
    for a result without an SM count or clock (a CPU sweep)."""
    device = result.get("device", {})
    clocks = [s.get("sm_clock_mhz") for s in result.get("series", [])
              if s.get("sm_clock_mhz") and (series_name is None or s.get("name") == series_name)]
    sm_count = device.get("sm_count")
    if not sm_count or not clocks:
        return None, None
    clock = statistics.median(clocks)
    return sm_count * SHARED_BYTES_PER_CLOCK_PER_SM * clock / 1e3, clock


def sweep_reading(result: dict, levels, copy_gbps: float = None) -> str:
    """Bullets on the levels of a GPU working-set sweep: each plateau, where its step lies
    against the size the device reports, DRAM against Lab 1's copy, and what blocks that share
    data do to the L2 (the '.cg spread' series, when the run has it)."""
    reported = reported_sizes(result)
    device = result.get("device", {})
    lines = []
    l1 = _level(levels, "l1")
    if l1 is not None:
        text = (f"L1: {_tb(l1.gbps)}, flat from {format_bytes(l1.first_bytes)} to "
                f"{format_bytes(l1.last_bytes)}, with the step at {format_bytes(l1.capacity_bytes)}")
        sram = l1_sram_bytes(result)
        if sram:
            text += (f" ({l1.capacity_bytes / sram:.2f} of the {format_bytes(sram)} of SRAM each SM splits "
                     "between the L1 and shared memory; the L1 gets that block minus the shared-memory "
                     "carve-out the driver chose, which the run did not record)")
        peak, clock = shared_peak_gbps(result)
        if peak:
            text += (f". {device['sm_count']} SMs x {SHARED_BYTES_PER_CLOCK_PER_SM} B per clock x "
                     f"{clock / 1e3:.3g} GHz is {_tb(peak)}: the plateau reaches {l1.gbps / peak:.2f} of it")
        lines.append(text + ".")
    fast, l2 = _level(levels, "l2-fast"), _level(levels, "l2")
    if l2 is not None:
        if fast is not None:
            text = (f"L2, in two ranges: up to {format_bytes(fast.capacity_bytes)} it delivers "
                    f"{_tb(fast.gbps)}; from {format_bytes(l2.first_bytes)} to "
                    f"{format_bytes(l2.capacity_bytes)}, {_tb(l2.gbps)}")
        else:
            text = (f"L2: {_tb(l2.gbps)} from {format_bytes(l2.first_bytes)} to "
                    f"{format_bytes(l2.capacity_bytes)}")
        if reported.get("l2") and l2.capacity_bytes:
            text += (f". The data leaves the L2 at {format_bytes(l2.capacity_bytes)}, "
                     f"{l2.capacity_bytes / reported['l2']:.2f} times the {format_bytes(reported['l2'])} "
                     "the device reports")
        lines.append(text + ".")
    slices = series_by_access(result, "global-cg", "slices")
    if slices is not None and slices.shared_below and l2 is not None:
        below = slices.shared_data().gbps
        if below:
            lines.append(f"Below {format_bytes(slices.shared_below)} (one 16 kB chunk per block) the "
                         f"blocks of the L2-only series share chunks, and it reads up to "
                         f"{_tb(max(below))}, {max(below) / l2.gbps:.1f} times the L2 level: no level "
                         "is taken from there.")
    dram = _level(levels, "dram")
    if dram is not None:
        text = (f"DRAM: {_tb(dram.gbps)}, from {format_bytes(dram.first_bytes)} to "
                f"{format_bytes(dram.last_bytes)}")
        if copy_gbps:
            text += (f". Lab 1's copy kernel, which reads and writes, measured {_tb(copy_gbps)} on the "
                     f"same card: reading alone runs {dram.gbps / copy_gbps:.2f} times as fast")
        lines.append(text + ".")
    shared_series = next((s for s in result.get("series", [])
                          if s.get("access") == "global-cg" and s.get("pattern") == "spread"), None)
    l2_bytes = reported.get("l2") or (l2.capacity_bytes if l2 is not None else None)
    if shared_series and l2_bytes and dram is not None:
        row = min(shared_series["rows"], key=lambda r: abs(r["bytes"] / l2_bytes - 2.0))
        lines.append(f"Blocks that share data: with every SM reading all of the buffer through the "
                     f"L2, a working set of {format_bytes(row['bytes'])} ({row['bytes'] / l2_bytes:.1f} "
                     f"times the L2) still reads at {_tb(row['gbps'])}, {row['gbps'] / dram.gbps:.1f} "
                     "times the DRAM plateau.")
    return "\n".join("- " + line for line in lines)


def ncu_reading(agreement) -> str:
    """Bullets on ncu's counters against the counts made by hand (a list of
    :class:`rooflinelib.hierarchy.ncu.Agreement`), for the launches of ``labs/lab4_target.py``: the
    1024 MiB and 64 MiB sweeps and the working-set read."""
    rows = list(agreement)

    def pick(quantity, where):
        return [a for a in rows if a.quantity == quantity and where in a.kernel]

    def span(found):
        gaps = [100 * a.gap for a in found]
        low, high = min(gaps), max(gaps)
        return f"{low:+.2f}%" if abs(high - low) < 0.005 else f"{low:+.2f}% to {high:+.2f}%"

    lines = []
    flops = pick("FLOPs", "")
    if flops:
        worst = max(abs(a.gap) for a in flops)
        lines.append(f"FLOPs: {len(flops)} launches, " + ("every count exact." if worst == 0 else
                     f"at most {100 * worst:.2f}% apart."))
    big, big_writes = pick("DRAM bytes", "1024 MiB"), pick("DRAM write bytes", "1024 MiB")
    if big:
        text = f"DRAM bytes on 1 GiB buffers: {span(big)}"
        if big_writes:
            missing = statistics.mean(a.analytic - a.measured for a in big_writes)
            text += (f"; the writes alone {span(big_writes)}, on average {format_bytes(missing)} "
                     "fewer than written")
        lines.append(text + ".")
    small, small_writes = pick("DRAM bytes", "64 MiB"), pick("DRAM write bytes", "64 MiB")
    if small:
        text = f"DRAM bytes on 64 MiB buffers: {span(small)}"
        if small_writes:
            text += f"; the writes alone {span(small_writes)}"
        lines.append(text + ".")
    l2_big = pick("L2 bytes", "1024 MiB")
    reads = pick("DRAM read bytes", "1024 MiB")
    if l2_big:
        text = f"L2 bytes of the 1 GiB sweeps: {span(l2_big)} against the SMs' requests"
        if reads:
            surplus = statistics.mean(a.measured - a.analytic for a in l2_big)
            dram_reads = statistics.mean(a.measured for a in reads)
            text += (f"; the surplus, {format_bytes(surplus)} a launch, is "
                     f"{surplus / dram_reads:.2f} times the launch's DRAM reads")
        lines.append(text + ".")
    ws = pick("L2 bytes", "ws_read")
    if ws:
        lines.append(f"L2 bytes of the working-set read: {span(ws)}.")
    return "\n".join("- " + line for line in lines)


def _span_bytes(values) -> str:
    low, high = min(values), max(values)
    return format_bytes(low) if format_bytes(low) == format_bytes(high) else \
        f"{format_bytes(low)} to {format_bytes(high)}"


def lts_by_source_reading(record: dict) -> str:
    """The L2 slices' bytes (``lts__t_bytes``) of Lab 4's 1 GiB sweeps and of its working-set
    read, split by the unit that sent them (ncu's ``lts__t_sectors_srcunit_*``): the SMs
    (``tex``), the fabric between the L2's two partitions (``ltcfabric``) and the rest; each
    set against the kernel's DRAM reads.  ``record`` is the shipped
    ``h200_ncu_lab4_lts_by_source.json`` (or one of its shape)."""
    rows = record["rows"]
    groups = (("1 GiB sweeps", [r for r in rows if r["kernel"].startswith("sweep")
                                and r["l1tex_bytes"] >= 2 ** 31]),
              ("working-set read", [r for r in rows if r["kernel"].startswith("ws_read")]))
    lines = []
    for title, group in groups:
        if not group:
            continue
        sm = [r["lts_from_sm_bytes"] for r in group]
        fabric = [r["lts_from_fabric_bytes"] for r in group]
        rest = [r["lts_bytes"] - a - b for r, a, b in zip(group, sm, fabric)]
        reads = [r["dram_read_bytes"] for r in group]
        ratio = [f / d for f, d in zip(fabric, reads) if d]
        same = all(abs(r["lts_from_sm_bytes"] - r["l1tex_bytes"]) <= 0.005 * r["l1tex_bytes"] for r in group)
        text = (f"- {title} ({len(group)} launch{'es' if len(group) != 1 else ''}): lts__t_bytes "
                f"{_span_bytes([r['lts_bytes'] for r in group])} = {_span_bytes(sm)} from the SMs"
                + (" (as much as l1tex__t_bytes)" if same else "")
                + f" + {_span_bytes(fabric)} from the fabric between the two L2 partitions"
                + (f" + {_span_bytes(rest)} from other units" if min(rest) > 0 else
                   f"; the parts add up to the total within {format_bytes(max(abs(x) for x in rest))}")
                + f". DRAM reads {_span_bytes(reads)}")
        if ratio:
            low, high = min(ratio), max(ratio)
            text += (f": the fabric's bytes are {low:.2f} times the DRAM reads" if f"{low:.2f}" == f"{high:.2f}"
                     else f": the fabric's bytes are {low:.2f} to {high:.2f} times the DRAM reads")
        lines.append(text + ".")
    return "\n".join(lines)


def recorded_lts_by_source() -> dict:
    """The L2 bytes by source unit of Lab 4's kernels, recorded on the H200 (run of 2026-12-01)."""
    path = Path(__file__).resolve().parent.parent / "data" / "h200_ncu_lab4_lts_by_source.json"
    return read_json(path, NcuError, "a recorded ncu reading")


def looks_memory_bound_reading(placement, machine, compute: str = "fp32") -> str:
    """The single-level view of a kernel against its hierarchical one: its DRAM intensity
    against the DRAM ridge and its share of the HBM roof, then its binding level."""
    dram = placement.point("dram")
    ridge = machine.ridge(compute, "dram")
    side = "left" if dram.intensity < ridge else "right"
    lines = [f"{placement.name}, against DRAM alone: I = {dram.intensity:.3g} FLOP/byte, {side} of "
             f"the ridge ({ridge:.3g})"]
    if placement.achieved_gflops is not None:
        lines[-1] += (f", at {placement.achieved_gflops / dram.roof_gflops:.0%} of the HBM roof "
                      f"({placement.achieved_gflops:,.0f} of {dram.roof_gflops:,.0f} GFLOP/s)")
    lines[-1] += "."
    if placement.binding_is_memory and placement.binding != "dram":
        bind = placement.point(placement.binding)
        lines.append(f"Against every level: {bind.n_bytes / dram.n_bytes:.0f} times as many bytes at "
                     f"{placement.binding} as from DRAM; bound by {placement.binding}"
                     + (f", at {bind.fraction_of_roof:.0%} of its roof ({bind.ceiling_gbps:,.0f} GB/s)"
                        if bind.fraction_of_roof is not None else "") + ".")
    else:
        lines.append(f"Against every level: bound by {placement.binding}.")
    return "\n".join(lines)


def sharing_rows(kernels, records) -> list:
    """Lab 4's ``--l2-sharing`` run (ncu kernels and the target's records, in launch order),
    one dict per launch: what the SMs asked of the L2 (``l1tex__t_bytes``) against what its
    slices served (``lts__t_bytes``), as rates (GB/s) and as a share, with ncu's L2 peak."""
    rows = []
    for kernel, record in zip(kernels, records):
        seconds, asked, served = kernel.seconds, kernel.level_bytes("l1"), kernel.level_bytes("l2")
        peaks = kernel.peaks()
        rows.append({"name": record["name"], "ws_bytes": record["ws_bytes"],
                     "blocks_per_chunk": record["blocks_per_chunk"], "sm_gbps": asked / seconds / 1e9,
                     "slices_gbps": served / seconds / 1e9, "slices_share": served / asked,
                     "ncu_l2_peak_gbps": peaks.gbps.get("l2") if peaks else None})
    return rows


def sharing_reading(kernels, records) -> str:
    """:func:`sharing_rows` in sentences, and ncu's theoretical peak for the L2's slices."""
    rows = sharing_rows(kernels, records)
    lines = [f"{format_bytes(r['ws_bytes']):>8}, {r['blocks_per_chunk']:5.2f} blocks per chunk: the SMs "
             f"read {_tb(r['sm_gbps'])}; the slices served {r['slices_share']:.0%} of those bytes, at "
             f"{_tb(r['slices_gbps'])}" for r in rows]
    peak = next((r["ncu_l2_peak_gbps"] for r in rows if r["ncu_l2_peak_gbps"]), None)
    if peak:
        lines.append(f"ncu's theoretical peak of the L2's slices at that clock: {_tb(peak)}")
    return "\n".join(lines)
