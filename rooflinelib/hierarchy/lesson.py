"""Everything notebook 05 draws and prints, loaded in one call (:func:`load`).

The notebook's setup cell is ``lesson = load()``; its other cells read the fields of the
returned :class:`Lesson` and call the table functions below.  Each number comes from the H200
runs shipped with the course (``docs/appendix-05-hierarchy.md`` lists them):

- the working-set sweep, whose plateaus give the levels and the L1 roof;
- Lab 1's ceilings: the L2, DRAM (one roof per access mix) and FMA roofs;
- Lab 4: Nsight Compute's counters of six launches, with their hand counts, and a second run of
  the same kernels that split the L2's bytes by the unit that sent them.

**The L2 bytes of a placement are requested bytes.**  ``lts__t_bytes`` counts every transaction
through the L2's slices, including the traffic over the fabric between the L2's two partitions,
which on these kernels is about as large as their DRAM reads.  Lab 1's L2 roof is a rate of the
bytes the SMs asked for.  To compare like with like, :func:`load` places each launch with the
bytes moved between the SMs and the L2 (``lts__t_sectors_srcunit_tex`` x 32 B, :data:`REQUESTED_L2_FIELD`
of the by-source run) at the L2, and :func:`slice_fractions` gives the slice-byte reading
beside it, which is no fraction of that roof.
"""
from __future__ import annotations

from dataclasses import dataclass

from rooflinelib.hierarchy import level_placement, ncu
from rooflinelib.hierarchy import workingset_files
from rooflinelib.hierarchy.level_readings import recorded_lts_by_source
from rooflinelib.hierarchy.levels import format_bytes

#: The field of the by-source record (``h200_ncu_lab4_lts_by_source.json``) with the bytes the
#: SMs and the L2 moved between them (requests from the SMs): ncu's ``lts__t_sectors_srcunit_tex`` x 32 B.
REQUESTED_L2_FIELD = "lts_from_sm_bytes"
#: The counter behind it, as ncu names it.
REQUESTED_L2_METRIC = "lts__t_sectors_srcunit_tex.sum"
#: The short kernel names of Lab 4's profiled launches in the by-source run (which also holds
#: the target's fill and check kernels).
_PROFILED = ("sweep", "ws_read_global")
#: Lab 4's launches the lesson's tables leave out: the 64 MiB sweep moves so few bytes that the
#: DRAM writes ncu misses are 18% of them, so its DRAM share is a counting artefact (the appendix
#: prints it, under "The 64 MiB sweep's 82% is a counting artefact").
SIDE_LAUNCHES = ("sweep K=8, 64 MiB",)


@dataclass(frozen=True)
class Lesson:
    """What notebook 05 uses.

    ``recorded``: the working-set sweep; ``levels``: its L1, L2 and DRAM levels; ``machine``: one
    roof per level (DRAM at Lab 1's fastest mix); ``mixes``: Lab 1's DRAM roof of each access mix;
    ``copying`` and ``reading``: ``machine`` with the copy's and the read's DRAM roof; ``kernels``:
    ncu's launches; ``analytic``: their hand counts; ``requested_l2``: the bytes each launch's SMs
    sent the L2; ``placements``: each launch placed against every level, with the requested L2
    bytes and its own DRAM mix."""

    mode: object
    recorded: dict
    levels: tuple
    machine: object
    mixes: dict
    copying: object
    reading: object
    kernels: list
    analytic: list
    requested_l2: list
    placements: list

    @property
    def level_series(self) -> list:
        """The names of the sweep's two series the levels come from (the sweep figure draws these)."""
        return [s.name for s in level_placement.hierarchy_series(self.recorded)]

    def placement(self, name_start: str):
        """The placement whose kernel name starts with ``name_start`` (``"ws_read"``)."""
        for pl in self.placements:
            if pl.name.startswith(name_start):
                return pl
        raise KeyError(f"name_start: no placed kernel starts with {name_start!r}")

    @property
    def taught(self) -> list:
        """The placements the lesson's tables show: all but :data:`SIDE_LAUNCHES`."""
        return [pl for pl in self.placements if pl.name not in SIDE_LAUNCHES]


def requested_l2_bytes(analytic, record=None) -> list:
    """Per launch of Lab 4 (in the order of ``analytic``, its hand counts), the bytes its SMs sent
    the L2, from the by-source run of the same kernels (:func:`recorded_lts_by_source`).

    The two runs are matched launch by launch: the by-source run's profiled kernels (``sweep``,
    ``ws_read_global``), in order, must have the L1 bytes of the hand counts (the launches are the
    same kernels on the same buffers), else :class:`rooflinelib.hierarchy.ncu.NcuError`."""
    record = recorded_lts_by_source() if record is None else record
    rows = [r for r in record["rows"] if r["kernel"].split("[")[0] in _PROFILED]
    if len(rows) != len(analytic):
        raise ncu.NcuError(f"by-source run: {len(rows)} profiled launches, the hand counts have {len(analytic)}")
    out = []
    for row, counts in zip(rows, analytic):
        if row["l1tex_bytes"] != counts["l1_bytes"]:
            raise ncu.NcuError(f"by-source run: launch {row['kernel'][:30]} moved {row['l1tex_bytes']:,.0f} "
                               f"L1 bytes, {counts['name']} {counts['l1_bytes']:,.0f}: not the same launch")
        out.append(row[REQUESTED_L2_FIELD])
    return out


def place(kernel, counts, requested_l2: float, machine, mixes):
    """One launch placed against every level: ncu's L1 and DRAM bytes, the requested L2 bytes,
    and the DRAM roof of its own access mix (from its hand counts)."""
    timed = kernel.hierarchical(counts["name"])
    bytes_by_level = dict(timed.bytes_by_level, l2=requested_l2)
    requested = level_placement.HierarchicalKernel(timed.name, timed.n_flops, bytes_by_level,
                                                   timed.achieved_gflops)
    own = level_placement.with_mix_roof(machine, mixes, level_placement.access_mix(counts))
    return level_placement.place_levels(requested, own)


def load() -> Lesson:
    """Notebook 05's data, from the recorded H200 runs (in every mode)."""
    from rooflinelib.modes import detect_mode
    from rooflinelib.store import results
    recorded = workingset_files.recorded("h200", "numba")
    machine = level_placement.machine_from_result(recorded, results.recorded_h200())
    mixes = results.dram_mixes(results.recorded("ceilings"))
    kernels = ncu.load_csv(ncu.recorded_csv())
    analytic = ncu.load_analytic(ncu.recorded_csv("h200_ncu_lab4_analytic.json"))
    requested = requested_l2_bytes(analytic)
    placements = [place(k, a, r, machine, mixes) for k, a, r in zip(kernels, analytic, requested)]
    return Lesson(detect_mode(), recorded, level_placement.hierarchy_levels(recorded), machine, mixes,
                  level_placement.with_mix_roof(machine, mixes, "copy"),
                  level_placement.with_read_roof(machine, mixes), kernels, analytic, requested, placements)


def slice_fractions(lesson: Lesson) -> list:
    """Per launch, ``(name, requested bytes / time as a share of the L2 roof's bandwidth, the
    slices' bytes / time over the same roof)``: the second divides ``lts__t_bytes`` (fabric traffic
    included) by the same time and roof, so it is no fraction of that roof; it reads about 1.5x
    high on the sweeps.  (A compute-bound launch's "of roof" in the placement table is against
    its FMA roof instead.)"""
    roof = lesson.machine.ceiling("l2").value
    rows = []
    for kernel, placed in zip(lesson.kernels, lesson.placements):
        point = placed.point("l2")
        slices = kernel.level_bytes("l2") / kernel.seconds / 1e9 / roof
        rows.append((placed.name, point.n_bytes / kernel.seconds / 1e9 / roof, slices))
    return rows


def roofs_text(lesson: Lesson) -> str:
    """The chart's roofs (DRAM at the copy mix), the ridge against each level, and Lab 1's DRAM mixes."""
    m = lesson.copying
    lines = [f"  {c.name:8s} {c.value:>9,.0f} {c.unit:8s} {c.title}" for c in m.ceilings if c.name != "shared"]
    lines.append(f"ridge against DRAM (a copy): {m.ridge('fp32', 'dram'):.1f} FLOP/byte, "
                 f"against the L2: {m.ridge('fp32', 'l2'):.2f}, against the L1: {m.ridge('fp32', 'l1'):.2f}")
    lines.append("notebook 03's DRAM mixes: " + ", ".join(f"{mix} {gbps:,.0f} GB/s" for mix, gbps in lesson.mixes.items()))
    return "\n".join(lines)


def bytes_table(lesson: Lesson, taught_only: bool = False) -> str:
    """One line per launch: time, GFLOP/s and the bytes placed at each level (L1 and DRAM from
    ncu, the L2 the bytes the SMs sent it: "to L2"). The slices' count, which adds the fabric's traffic,
    is the appendix's (``slice_fractions``), not a column here.  ``taught_only``: leave out
    :data:`SIDE_LAUNCHES` (the lesson's table)."""
    lines = [f"{'kernel':<24} {'time us':>8} {'GFLOP/s':>8} {'L1':>9} {'to L2':>9} {'DRAM':>9}"]
    for kernel, placed in zip(lesson.kernels, lesson.placements):
        if taught_only and placed.name in SIDE_LAUNCHES:
            continue
        b = {p.level: p.n_bytes for p in placed.points}
        lines.append(f"{placed.name[:24]:<24} {kernel.seconds * 1e6:>8,.1f} {placed.achieved_gflops:>8,.0f} "
                     f"{format_bytes(b['l1']):>9} {format_bytes(b['l2']):>9} {format_bytes(b['dram']):>9}")
    return "\n".join(lines)


def peaks_table(lesson: Lesson) -> str:
    """Nsight Compute's derived peaks (at the profiled launch's clocks) against the measured roofs.

    DRAM has three rows, each set against the one ncu peak: the read mix (the roof ``ws_read`` and
    the explorer's kernel are scored against), Lab 1's ``dram`` ceiling, its fastest mix (writing),
    and the copy, the chart's DRAM roof (``lesson.copying``).  The unit column
    says which rows are bandwidths (GB/s) and which compute rates (GFLOP/s) (review 32c)."""
    peaks = lesson.kernels[0].peaks()
    lines = [f"{'ceiling':10s} {'unit':>7s} {'ncu peak':>10s} {'measured':>10s} {'measured / ncu':>15s}"]
    for unit, items in (("GB/s", peaks.gbps.items()), ("GFLOP/s", peaks.gflops.items())):
        for name, value in items:
            rows = [(name, lesson.machine.ceiling(name).value)]
            if name == "dram":
                rows = [("dram read", lesson.mixes["read"]), ("dram write", lesson.mixes["write"]),
                        ("dram copy", lesson.copying.ceiling("dram").value)]
            for label, measured in rows:
                lines.append(f"{label:10s} {unit:>7s} {value:>10,.0f} {measured:>10,.0f} {measured / value:>15.2f}")
    return "\n".join(lines)


def clocks_text(lesson: Lesson) -> str:
    """The SM clocks behind :func:`peaks_table`: ncu's peaks are at the profiled launch's clock,
    the measured roofs at the recorded runs' (so a measured roof can pass its ncu peak)."""
    lab, ncu_mhz = measured_clocks_mhz(), lesson.kernels[0].peaks().sm_clock_mhz
    if not (lab and ncu_mhz):
        return "SM clocks: not recorded"
    return (f"SM clock: ncu's peaks at {ncu_mhz:,.0f} MHz (the profiled launch's), "
            f"the measured rows at {', '.join(f'{c:,.0f}' for c in lab)} MHz")


def measured_clocks_mhz(names=("l2", "dram-read", "dram-write", "dram-copy", "fp32", "fp64")) -> list:
    """The distinct SM clocks (MHz) the recorded ceilings of ``names`` ran at, from the recorded
    run's own samples (``provenance['sm_clock_mhz_during']``); empty where none was sampled."""
    from rooflinelib.store import results
    during = (results.recorded_h200().provenance or {}).get("sm_clock_mhz_during", {})
    return sorted({float(during[n]) for n in names if n in during})


def live_sweep(mode) -> str:
    """Run the working-set sweep on this machine (the full sweep on a GPU, 4 KiB to 8 MiB on a
    CPU): ``(result, text)``, the text its level table; ``(None, why)`` where nothing runs."""
    from rooflinelib.hierarchy.levels import level_table
    if mode.mode == "gpu":
        from rooflinelib.hierarchy.workingset import measure_gpu
        live = measure_gpu()
    elif mode.mode == "cpu":
        from rooflinelib.hierarchy.workingset import measure_cpu, working_set_sizes
        live = measure_cpu(sizes=working_set_sizes(4096, 8 * 2 ** 20, 4, 1024))
    else:
        return None, "Nothing to measure here: the recorded H200 sweep above stands in."
    reported = workingset_files.reported_sizes(live)
    text = (f"Measured just now on {live['device']['name']}; caches it reports: "
            + ", ".join(f"{k} {format_bytes(v)}" for k, v in reported.items()))
    try:
        text += "\n" + level_table(level_placement.hierarchy_levels(live), reported)
    except workingset_files.HierarchyError as error:
        text += f"\nNo plateau stood out from the noise: {error}"
    return live, text
