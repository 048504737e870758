"""The numbers notebook 05 and its appendix write into their prose about the recorded H200 runs:
each must be the one computed from the data, and the claims made about them must hold.

The notebook states its interpretations in markdown (issue 24: no sentences assembled in a
readings module), so these tests read the figure from the data and look for it in the text."""
import pytest

from rooflinelib.hierarchy import (ncu, level_placement as h, level_readings as hr,
                                   workingset_files as wsr)
from rooflinelib.store.fileio import read_json, read_text
from rooflinelib.store import results
from rooflinelib.store.results import recorded_h200

from test_lessons_05 import ROOT, _markdown


@pytest.fixture(scope="module")
def recorded():
    return wsr.recorded("h200", "numba")


@pytest.fixture(scope="module")
def prose():
    return " ".join(" ".join(_markdown("05")).split())  # line breaks are layout, not text


@pytest.fixture(scope="module")
def appendix():
    return " ".join(read_text(ROOT / "docs" / "appendix-05-hierarchy.md", ValueError, 1_000_000).split())


def tb(gbps):
    return f"{gbps / 1e3:.3g} TB/s"


def test_the_sweeps_levels_as_the_prose_quotes_them(recorded, prose, appendix):
    l1, l2, dram = h.hierarchy_levels(recorded)
    peak, clock = hr.shared_peak_gbps(recorded)
    assert peak == pytest.approx(132 * 128 * clock / 1e3)
    # review 8, T5-5: the sweep and Lab 1 are two runs; the notebook prints each one's date and clock
    from test_lessons_05 import _printed
    lab1 = results.recorded("ceilings")
    printed = _printed("05")
    # review 10c C05-5: the dates moved to the appendix; fix 15 (item 2): the clocks and the L1's
    # share of the load path too (method); the lesson keeps a link beside the roofs
    lab1_mhz = {d["name"]: d["sm_clock_mhz_during"] for d in lab1["details"]}
    clocks = ", ".join(f"{lab1_mhz[name]:,.0f}" for name in ("l2", "dram-copy", "fp32"))
    assert clocks == "1,980, 1,980, 1,980" and f"{clock:,.0f}" == "1,980"
    assert (f"The sweep ran at an SM clock of {clock:,.0f} MHz, and so did Lab 1's `l2`, `dram-copy` and `fp32` "
            "kernels (1,980, 1,980 and 1,980 MHz)") in appendix
    # review 51: one printed line, under ncu's peaks, gives both clocks (why fp64 passes its peak); still none in prose
    assert printed.count("SM clock") == 1 and "132 SMs x 128 bytes" not in printed
    assert "SM clock: ncu's peaks at 1,972 MHz (the profiled launch's), the measured rows at 1,980 MHz" in printed
    # review 15c (cell 5): the clocks are linked once, from section 5's peaks, not beside the roofs
    assert "both runs' clocks: [appendix](../docs/appendix-05-hierarchy.md#how-the-sweep-finds-the-levels)" not in prose
    # review 16c: ncu's clocks are the appendix's; section 5 keeps one link to the section that gives them
    assert "The clocks of both runs" not in prose and "1,972" not in prose
    assert "(../docs/appendix-05-hierarchy.md#measured-roofs-against-ncus-peaks)" in prose.split("## 5.")[1]
    assert recorded["created"][:10] != lab1["created"][:10]
    assert recorded["created"][:10] not in prose and lab1["created"][:10] not in prose
    assert f"{recorded['created'][:10]}, SM clock 1980 MHz" in appendix and f"| {lab1['created'][:10]} |" in appendix
    assert f"at the sweep's {clock:,.0f} MHz" in appendix and "Lab 1 and the sweep ran at the same SM clock, 1,980 MHz" in appendix
    # review 26c E1: the 232 kB step is interpolated between the swept 213 and 246 kB, not a size that was run
    # review 32c: the bracket and the interpolation are the table's and the appendix's; the prose keeps the roof
    assert f"**L1**: {tb(l1.gbps)}, the chart's L1 roof. It ends below the SRAM's 262 kB" in prose
    assert "The step lies between 0.81 and 0.94 of the 262 kB" in appendix and "the next sample, 246 kB" in appendix
    assert "a step at 232 kB" not in prose and round(l1.capacity_bytes / 1e3) == 232
    assert f"notebook 05's L1 roof: {l1.gbps / peak:.2f} of what 132 SMs" in appendix
    assert f"**L2**: {tb(l2.gbps)}" in prose and f"its fall starts at about {l2.capacity_bytes / 1e6:.1f} MB, {l2.capacity_bytes / 62914560:.2f} of the 62.9 MB" in prose
    assert f"**DRAM**: {tb(dram.gbps)} reading, 1% above notebook 03's (4.51)" in prose
    # the L1 step against the 256 KiB block it shares with shared memory, in the appendix
    # review 26c: the bracket of swept sizes, not the interpolated 232 kB, against the SRAM
    assert "The step lies between 0.81 and 0.94 of the 262 kB (256 KiB) of SRAM" in appendix
    assert f"{l1.capacity_bytes / 262144:.2f} of the 262 kB" not in appendix


def test_the_roofs_and_ridges_the_prose_quotes(recorded, prose):
    # review 8, C5-1: the opening chart labelled the copy's ridge (15.4) while the text quoted the
    # write roof's (14.0); the roofs printed and quoted are now the chart's, DRAM at the copy mix
    from test_lessons_05 import _printed
    m = h.with_mix_roof(h.machine_from_result(recorded, recorded_h200()),
                        results.dram_mixes(results.recorded("ceilings")), "copy")
    # review 20d: the roofs' sentence was cut; the table keeps the copy roof, section 2 the L2's
    # review 44c: the mixes are the roofs' printed line; the prose says there is one per mix
    assert f"copy {m.ceiling('dram').value:,.0f} GB/s" in _printed("05") and tb(m.ceiling("l2").value) in prose
    assert "Each DRAM row uses notebook 03's roof for the kernel's own mix of reads and writes" in prose
    ridges = [format(m.ridge("fp32", level), digits) for level, digits in (("dram", ".1f"), ("l2", ".2f"), ("l1", ".2f"))]  # review 26c: 6.75
    assert f"so the ridge moves left: {', '.join(ridges)}." in prose  # review 33: trimmed, same ridges
    assert f"ridge against DRAM (a copy): {ridges[0]} FLOP/byte" in _printed("05")
    write_ridge = h.machine_from_result(recorded, recorded_h200()).ridge("fp32", "dram")
    assert f"{write_ridge:.1f}" != ridges[0] and f"{write_ridge:.1f}" not in prose + _printed("05")


def test_the_ws_read_placement_the_prose_describes(recorded, prose):
    # review 5: each kernel is placed against the DRAM roof of its own access mix (ws_read reads,
    # the sweeps read and write as a copy does), not the fastest mix's (writing)
    m = h.machine_from_result(recorded, recorded_h200())
    mixes = results.dram_mixes(results.recorded("ceilings"))
    kernels = ncu.load_csv(ncu.recorded_csv())
    analytic = ncu.load_analytic(ncu.recorded_csv("h200_ncu_lab4_analytic.json"))
    assert [h.access_mix(a) for a in analytic] == ["copy"] * 5 + ["read"]
    # fix 15 (item 3): the L2 points use the bytes the SMs asked the L2 for (the by-source run's
    # lts__t_sectors_srcunit_tex), the bytes Lab 1's L2 roof is a rate of
    from rooflinelib.hierarchy import lesson as hl05
    asked = hl05.requested_l2_bytes(analytic)
    placements = {a["name"]: hl05.place(k, a, r, m, mixes) for k, a, r in zip(kernels, analytic, asked)}
    assert [p.name for p in placements.values()] == [p.name for p in hl05.load().placements]
    ws = next(p for name, p in placements.items() if name.startswith("ws_read"))
    dram, l2 = ws.point("dram"), ws.point("l2")
    assert dram.ceiling_gbps == mixes["read"]
    assert ws.binding == "l2" and dram.intensity < m.ridge("fp32", "dram")
    assert f"{dram.intensity:.2f} FLOP per byte" in prose
    assert f"at {ws.achieved_gflops / dram.roof_gflops:.0%} of its HBM roof" in prose
    assert f"{l2.fraction_of_roof:.0%} of notebook 03's L2 roof" in prose and f"{l2.fraction_of_roof:.0%}" == "89%"
    assert l2.n_bytes == asked[-1] < kernels[-1].level_bytes("l2")
    assert "92% of Lab 1's L2 roof" not in prose
    assert f"The L2 moves {l2.n_bytes / dram.n_bytes:.0f} times its DRAM bytes" in prose
    sweep = placements["sweep K=8, 1024 MiB"]
    assert sweep.point("dram").ceiling_gbps == mixes["copy"]
    assert sweep.binding == "dram" and f"reach the copy roof ({sweep.point('dram').fraction_of_roof:.0%})." in prose
    # the old reading, 91% of the write roof, scored a copy-like kernel against a mix it does not run
    assert "bind at DRAM at 91% of the roof" not in prose


def test_the_counter_gaps_the_prose_quotes():
    kernels = ncu.load_csv(ncu.recorded_csv())
    rows = ncu.compare(kernels, ncu.load_analytic(ncu.recorded_csv("h200_ncu_lab4_analytic.json")))
    assert all(a.gap == 0 for a in rows if a.quantity == "FLOPs")
    big = [a.gap for a in rows if a.quantity == "DRAM bytes" and "1024 MiB" in a.kernel]
    assert all(-0.012 < g < 0 for g in big)  # "1% short on the 1 GiB buffers"
    small = [a.gap for a in rows if a.quantity == "DRAM bytes" and "64 MiB" in a.kernel]
    assert [round(100 * g) for g in small] == [-18]
    l2 = [a.gap for a in rows if a.quantity == "L2 bytes" and a.kernel.startswith("sweep")]
    assert round(100 * min(l2)) == 51 and round(100 * max(l2)) == 55


def test_blocks_that_share_chunks_merge_their_requests(appendix):
    path = ncu.recorded_csv("h200_ncu_l2_sharing.csv")
    kernels, records = ncu.load_csv(path), read_json(path.with_name("h200_ncu_l2_sharing.json"), ValueError, "")
    rows = hr.sharing_rows(kernels, records)
    assert [r["ws_bytes"] // 2 ** 20 for r in rows] == [1, 2, 16, 32]
    for row in rows:
        peak = row["ncu_l2_peak_gbps"]
        if row["blocks_per_chunk"] > 1:  # shared chunks: the SMs read above the slices' peak
            assert row["slices_share"] < 0.6 and row["sm_gbps"] > peak
        else:  # chunks of their own: the slices serve every byte, well under their peak
            assert 0.95 < row["slices_share"] < 1.05 and row["slices_gbps"] < 0.7 * peak
        assert f"| {row['slices_share']:.0%} |" in appendix


def test_the_l2s_surplus_is_the_fabrics_bytes_about_the_dram_reads(appendix):
    record = hr.recorded_lts_by_source()
    assert "2026-12-01" in record["what"] and "H200" in record["what"]
    sweeps = [r for r in record["rows"] if r["kernel"].startswith("sweep") and r["l1tex_bytes"] >= 2 ** 31]
    assert len(sweeps) == 4
    for r in sweeps:
        assert r["lts_from_sm_bytes"] == pytest.approx(r["l1tex_bytes"], rel=0.005)
        assert 1.0 < r["lts_from_fabric_bytes"] / r["dram_read_bytes"] < 1.03
    ratios = [r["lts_from_fabric_bytes"] / r["dram_read_bytes"] for r in sweeps]
    # review 51c item 4: equal to the reads only because the sweeps read and write equal amounts
    assert f"so, here only, {min(ratios):.2f} to {max(ratios):.2f} times the DRAM reads" in appendix


def test_the_l2_roofs_footprint_as_the_prose_quotes_it(prose):
    from rooflinelib.store import results
    assert f"9.76 TB/s ({results.l2_footprint(results.recorded('ceilings', 'numba')) / 1e6:.1f} MB set)" in prose


def test_05_review_11c_the_shared_memory_line_is_not_read_as_the_l1s_size():
    # C11c-6: the device's shared-memory size (233 kB) sat in the legend beside the L1 step
    # (232 kB) as "shared reported by the device", which invites reading it as the L1's capacity
    pytest.importorskip("plotly")
    from rooflinelib.hierarchy import plot as hp
    from rooflinelib.views.plotting import find_trace
    recorded = wsr.recorded("h200", "numba")
    shared = find_trace(hp.sweep_figure(recorded), "reported:shared")
    assert shared.name == "most shared memory per SM, reported by the device: 233 kB (not an L1 size)"
    assert find_trace(hp.sweep_figure(recorded), "reported:l2").name == "l2 reported by the device: 62.9 MB"
    # review 12c C05-1: the aside moved to the appendix, beside the L1 step it is mistaken for
    prose = " ".join(" ".join(_markdown("05")).split())
    page = " ".join(read_text(ROOT / "docs" / "appendix-05-hierarchy.md", ValueError, 1_000_000).split())
    assert "233 kB" not in prose and "[appendix](../docs/appendix-05-hierarchy.md#how-the-sweep-finds-the-levels)" in prose
    # review 25c E5: "a coincidence, not the reason" claimed more than the unrecorded carve-out allows
    assert ("the largest shared-memory size the device reports (233 kB, left out of notebook 05's figures, where it "
            "hid the L1's 232 kB line; the device reports no L1 size); nothing recorded says whether the two are "
            "linked") in page and "is a coincidence" not in page


def test_05_review_11c_about_a_third_states_both_of_its_assumptions():
    # T11c-2: 1 - 20.8 / 30.2 also assumes the L1 hits overlap with the L2 reads; if they cost
    # time of their own, more reads must hit, so the appendix's "at least" needs no such assumption
    # fix 15 (item 4): the model's check against the sweep, this sentence with it, is the appendix's
    page = " ".join(read_text(ROOT / "docs" / "appendix-05-hierarchy.md", ValueError, 1_000_000).split())
    assert ("about a third of its reads still hit the L1 (if the L2 serves both series alike and the L1 hits "
            "overlap with the L2 reads)") in page
    assert ("at least 1 - 20.8 / 30.2 = 31% of the kernel's reads hit the L1: exactly that if the hits overlap "
            "fully with the L2 reads (\"about a third\" above assumes so), more if hits cost time of their own") in page


# --- review 12c: notebook 05 read as long and dense; cut, terms defined, caveats placed -------------

def _cells05():
    from test_lessons_05 import _cells
    return _cells("05")


def test_05_review_12c_terms_are_defined_at_first_use_and_cluster_material_is_the_appendixs(prose, appendix):
    # C05-2: "slices" was used (counter table, ncu's L2 peak) and never defined; "cluster",
    # "portable cluster" and "TMA" were used undefined in section 4: they moved to the appendix
    # review 16c: slices, partitions and the fabric are used only by the appendix, which defines them first
    assert "**slices**" not in prose and "The L2's slices count" not in prose
    assert appendix.index("built of **slices** that each serve part of the address space") < appendix.index("## The recorded runs")
    for term in ("TMA", "cluster"):
        assert term not in prose
        assert term in appendix
    assert "*thread-block cluster* (a group of blocks" in appendix and "TMA multicast (the Tensor Memory Accelerator" in appendix
    assert "([why; ways to cut that traffic](" in prose  # review 44c: with why the L2 roof applies
    # T05-1: the fabric is named, not a mechanism of how a line crosses it
    assert "far partition" not in prose and "attached to half of the SMs" not in prose
    assert "two **partitions** joined by a link, the L2 **fabric**" in appendix and "fabric" not in prose
    # review 15c: the fabric is one sentence in the lesson; that the counters show no mechanism is the appendix's
    assert "why, the counters do not show" not in prose
    # review 51c item 4: "match the DRAM reads" held only for the sweeps; the counters show sizes, not why
    assert "The counters show that the fabric's bytes match the DRAM reads, not why" not in appendix
    assert "the counters show the sizes, not why, and the course claims no mechanism" in appendix


def test_05_review_12c_the_models_caveat_comes_with_the_model():
    # C05-5: "usually underestimates the kernel's rate" sat at the end of section 6's last cell
    cells = ["".join(c["source"]) for c in _cells05()]
    intro = next(i for i, c in enumerate(cells) if c.startswith("## 6."))
    explorer = next(i for i, c in enumerate(cells) if "working_set_explorer" in c)
    # review 36c: said after the student has seen the model (the explorer), where its failure is measured
    after = next(i for i, c in enumerate(cells) if c.startswith("Blue beats the model most"))  # review 51: the measured series
    assert intro < explorer < after and "usually underestimates the kernel's rate" in " ".join(cells[after].split())
    assert sum("usually underestimates the kernel" in " ".join(c.split()) for c in cells) == 1


def test_05_review_12c_section_4_is_three_led_paragraphs_without_the_tables_numbers(prose):
    # C05-1: cell 16 carried ws_read, the 64 MiB artefact and the K = 64 corner in two paragraphs,
    # repeating the table's bytes and time; C05-4: the 64 MiB printout indexed kernels[4]
    # review 16c: section 4 keeps the placements; the 64 MiB launch's counting artefact is the appendix's
    for lead in ("**`ws_read` is L2-bound.**", "**The 1 GiB sweeps**"):
        assert lead in prose
    assert "**The 64 MiB sweep" not in prose
    section4 = prose.split("## 4.")[1].split("## 5.")[0]  # review 22a E3: section 6 now cites ws_read's slice rate
    # review 34c: section 4 now answers why the L2 roof binds ws_read with its sent bytes over its 94.6 µs
    assert "**`ws_read` is L2-bound.**" in section4 and "847 MB" not in section4 and "94.6 µs" not in prose.split("## 6.")[1]
    code = "\n".join("".join(c["source"]) for c in _cells05() if c["cell_type"] == "code")
    assert "kernels[4]" not in code and "analytic[4]" not in code
    assert sum(len(text.split()) for text in _markdown("05")) <= 1800  # fix 15: was 2,210


def test_05_review_12c_the_l2_roof_choice_is_said_where_the_roof_is(prose, appendix):
    # C05-3: the chart's L2 roof is Lab 1's 9.76, the sweep's plateau 8.88; the reason was only the appendix's
    # review 18c: the reason is one sentence in place, linked to the readings behind it
    # review 19c: said in section 2, where the plateau appears, not beside the roofs
    assert "The sweep's L2 plateau is about 10% lower" not in prose
    sweep_l2 = h.hierarchy_levels(wsr.recorded("h200", "numba"))[1].gbps
    lab1_l2 = next(c["value"] for c in results.recorded("ceilings")["ceilings"] if c["name"] == "l2")
    assert f"{1 - sweep_l2 / lab1_l2:.0%}" == "9%"  # the "9% under" the page quotes
    section2 = " ".join(next(t for t in _markdown("05") if t.startswith("The recorded H200's three plateaus")).split())
    # review 20d: said plainly (two L2 figures; the chart uses Lab 1's; the sweep's plateau gives the capacity)
    # review 25c: the two L2 figures and their difference said plainly where both appear
    # review 32c: cut to the plateau and the one reason the chart's L2 roof is Lab 1's
    # review 37c: the best rate the L2 served the SMs (loads that share fetches beat it: section 4)
    # review 39c E1: 9.76 TB/s is the L2's best for requests not shared; sharing fetches (defined in section 2) beats it
    # review 46c: the two L2 numbers are said plainly; review 51: under the sweep's L2 plateau, once the sweep is defined
    assert ("**L2**: 8.88 TB/s; its fall starts at about 56.6 MB, 0.90 of the 62.9 MB the device reports. The chart's L2 roof "
            "is notebook 03's 9.76 TB/s (15.7 MB set)") in prose
    assert "not shared" not in section2
    assert f"{lab1_l2 / 1e3:.2f} TB/s" == "9.76 TB/s"
    assert "so the gap between the two is the kernel, not the footprint" in appendix
    assert "the sweep's L2 plateau sits about 9% under Lab 1's L2 roof at the same footprints" in appendix


def test_05_review_12c_the_appendix_labels_the_uncounted_writes_a_hypothesis(appendix):
    # T05-2: the notebook calls it a hypothesis; the appendix stated it as fact
    assert "reach DRAM after the kernel, uncounted" not in appendix
    assert ("Our hypothesis (the counters cannot show it): ncu flushes the caches before each launch, the kernel "
            "ends while the L2 still holds lines it wrote, and those lines reach DRAM after ncu stops counting.") in appendix


# --- notebook 05, appendix and exercise 5 after review 13c -----------------------------------------

def test_05_review_13c_technical_items(prose, appendix):
    # T05-1: one block's shared memory cannot hold a byte 25 blocks read; a cluster's TMA multicast can
    assert "registers or shared memory, which serve one block, cannot capture it" not in prose
    # review 20d: the reason is the appendix's; the lesson keeps the link
    # review 44c: the link lands on why the L2 roof applies, which the ways to cut follow at once
    assert "([why; ways to cut that traffic](../docs/appendix-05-hierarchy.md#is-the-l2-roof-the-right-one-for-ws_read)" in prose
    assert "so registers or a shared-memory tile (each serves one block) cannot capture the reuse" in appendix
    assert "TMA multicast" in appendix and "holds at most 8 blocks, not 25" in appendix
    # T05-3: the L2 rows scored slice traffic, surplus included, against a roof of requested bytes;
    # fix 15 (item 3): they now place requested bytes against it, and the appendix gives both figures
    assert "L2 rows count slice traffic (fabric surplus included) against a requested-bytes roof." not in prose
    # review 22a E2: the count is the bytes sent to the L2; "requested" is kept for what the loads asked for
    # review 25c: the "to L2" count is defined in section 3, and the appendix says why Lab 1's roof fits it
    # review 34c: the Notes paragraph is cut to the legend and the scoring sentence; the load-rate caveat is the appendix's
    assert '"to L2", the bytes moved between the SMs and the L2' in prose and "`<` marks the binding level." in prose
    assert "Notes:" not in prose
    assert "The L1 and L2 roofs are load rates" in appendix and "The L1 and L2 roofs are load rates" not in prose
    assert "so the roof and the sent bytes count the same traffic" in appendix
    # T05-4: the write roof is up to ~1% high if written lines drain after the timed launch
    assert round(4.69 * (1 - 24e6 / 2 ** 31), 2) == 4.64 and round(4.69 * (1 - 24e6 / 2 ** 31) / 4.81, 2) == 0.96
    assert "the 4.69 TB/s write roof is up to about 1% high (24 MB of 2.15 GB: 4.64 TB/s, 0.96 of ncu's peak" in appendix
    assert "is at most a few percent" not in appendix and "barely larger than the L2" not in appendix


def test_05_review_13c_every_appendix_mention_is_a_link():
    import re
    text = " ".join("".join(c["source"]) for c in _cells05() if c["cell_type"] == "markdown")
    bare = re.sub(r"\[[^\]]*\]\([^)]*\)", "", text)  # the links' own text and targets removed
    assert "appendix" not in bare.lower(), bare[max(0, bare.lower().find("appendix") - 80):][:160]
    page = read_text(ROOT / "docs" / "appendix-05-hierarchy.md", ValueError, 1_000_000)
    slugs = {re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
             for line in page.splitlines() if line.startswith("#")}
    anchors = re.findall(r"appendix-05-hierarchy\.md#([\w\-]+)", text)
    # review 39c: fewer links (about 14 read like a lab report): those a student needs, one per section at most
    assert 5 <= len(anchors) <= 7 and set(anchors) <= slugs, set(anchors) - slugs


def test_ex5_review_13c_drill_8_ratio_and_drill_6_hypothetical():
    from rooflinelib.core.machines import H200
    from rooflinelib.exercises import ex05_drills
    roof = {c.name: c.value for c in H200.ceilings}
    assert round(roof["bf16-tensor"] / roof["fp32"]) == 15 and round(roof["tf32-tensor"] / roof["fp32"]) == 7
    answer = " ".join(ex05_drills.MODEL_ANSWERS[8][0].split())
    assert "ten times faster" not in answer
    # the H200's own ratios (15 and 7 rounded, or 14.8 and 7.4: the exercise key computes them
    # from the datasheet ceilings), never a round "ten times"
    bf16, tf32 = roof["bf16-tensor"] / roof["fp32"], roof["tf32-tensor"] / roof["fp32"]
    # review 26k2: the like-for-like tf32 ratio comes first, bf16 second (it also changes the precision)
    # review 35k2: "up to about", the ratio of peaks; review 36k2: tf32 changes the precision too
    assert any(f"the tensor cores could run up to about {t} times faster in tf32 on an H200 ({b} in bf16, which "
               "changes the precision more: tf32 rounds the inputs to a 10-bit mantissa" in answer
               for b, t in ((f"{bf16:.0f}", f"{tf32:.0f}"), (f"{bf16:.1f}", f"{tf32:.1f}")))
    import nbformat
    for path in ("solutions/05_conceptual_drills.ipynb", "exercises/05_conceptual_drills.ipynb"):
        nb = " ".join(" ".join(c.source for c in nbformat.read(str(ROOT / path), as_version=4).cells).split())
        assert "Across a few generations, peak matrix throughput grew about 20x" not in nb
        assert "Suppose that across a few generations peak matrix throughput grew about 20x while HBM" in nb
        assert "illustrative figures, not one real product line" in nb


def test_05_review_19c_the_lesson_figure_leaves_out_the_shared_memory_line():
    # the grey 233 kB shared-memory line sat on the green dotted 232 kB L1-capacity line and hid it
    pytest.importorskip("plotly")
    from rooflinelib.hierarchy import plot as hp
    from rooflinelib.views.plotting import find_trace
    recorded = wsr.recorded("h200", "numba")
    ids = lambda fig: {t.meta for t in fig.data}
    assert "reported:shared" in ids(hp.sweep_figure(recorded))  # the default is unchanged
    lesson = hp.sweep_figure(recorded, skip_reported=("shared",))
    assert "reported:shared" not in ids(lesson) and {"reported:l2", "capacity:l1"} <= ids(lesson)
    code = next("".join(c["source"]) for c in _cells05() if "hierarchy_plot.sweep_figure(lesson.recorded" in "".join(c["source"]))
    assert 'skip_reported=("shared",)' in code


def test_05_review_26c_capacities_are_brackets_not_measured_sizes(prose, appendix):
    """Review 26c E1: no working set was run at 232 kB or 56.6 MB; the detector interpolates the start
    of the fall between two samples.  The lesson gives the bracket, printed from the library, and no
    "usable L2 = 90% of nominal"."""
    from rooflinelib.hierarchy import lesson as hl, plot as hplot
    from test_lessons_05 import _printed
    lesson = hl.load()
    b = {x.level: x for x in h.step_brackets(lesson.recorded, lesson.levels)}
    assert (round(b["l1"].below_bytes / 1e3), round(b["l1"].above_bytes / 1e3)) == (213, 246)
    assert (round(b["l2"].below_bytes / 1e5) / 10, round(b["l2"].above_bytes / 1e5) / 10) == (56.4, 61.5)
    for x in b.values():
        assert x.below_bytes < x.interpolated_bytes < x.above_bytes
    size = 62914560
    assert f"{b['l2'].below_bytes / size:.2f}" == "0.90" and f"{b['l2'].above_bytes / size:.2f}" == "0.98"
    assert f"{h.hit_share(b['l2'].above_gbps, lesson.levels[1].gbps, lesson.levels[2].gbps):.0%}" == "69%"
    # review 36: the brackets straight from the recorded rows: the swept sizes on either side of each
    # detected capacity (the L1 from the series every SM reads through the L1, the L2 from the .cg slices)
    rows = {(s["access"], s["pattern"]): sorted((r["bytes"], r["gbps"]) for r in s["rows"])
            for s in lesson.recorded["series"]}
    cap = {lv.name: lv.capacity_bytes for lv in lesson.levels}
    rate = {lv.name: lv.gbps for lv in lesson.levels}

    def bracket(key, capacity):
        pairs = rows[key]
        i = max(k for k, (x, _) in enumerate(pairs) if x <= capacity)
        return pairs[i], pairs[i + 1]

    (l1_lo, _), (l1_hi, _) = bracket(("global", "spread"), cap["l1"])
    (l2_lo, _), (l2_hi, l2_hi_gbps) = bracket(("global-cg", "slices"), cap["l2"])
    assert (l1_lo, l1_hi, l2_lo, l2_hi) == (b["l1"].below_bytes, b["l1"].above_bytes, b["l2"].below_bytes, b["l2"].above_bytes)
    reported = lesson.recorded["device"]["reported_cache_bytes"]["l2"]
    assert reported == size
    share = (1 / rate["dram"] - 1 / l2_hi_gbps) / (1 / rate["dram"] - 1 / rate["l2"])
    assert f"between {l2_lo / reported:.2f} and {l2_hi / reported:.2f} of the {reported / 1e6:.1f} MB the device reports" in appendix
    assert f"as if {share:.0%} of its reads hit the L2" in appendix and f"the next, {l2_hi / 1e6:.1f} MB" in appendix
    assert f"the detector interpolates at {cap['l1'] / 1e3:.0f} kB (no working set was run there)" in appendix
    assert not hasattr(hl, "capacity_text")  # used by no lesson: the appendix holds the brackets
    printed = _printed("05")
    # review 32c: the brackets, the interpolation and the hit share are the appendix's, not printed twice
    assert "fall starts" in printed.split("level   plateau GB/s")[1].splitlines()[0]
    assert f"between {l1_lo / 1e3:.0f} kB and {l1_hi / 1e3:.0f} kB" not in printed and f"{share:.0%}" not in printed
    assert f"between {l2_lo / 1e6:.1f} MB and {l2_hi / 1e6:.1f} MB" not in printed
    assert "as if 69% of its reads hit the L2" in appendix and "the next, 61.5 MB" in appendix
    assert "~56.6 MB" in printed and "~232 kB" in printed
    fig = hplot.sweep_figure(lesson.recorded, levels=lesson.levels, series=lesson.level_series,
                             skip_reported=("shared",))
    names = [t.name for t in fig.data if str(t.meta).startswith("capacity:")]
    assert names == ["l1: fall starts ~232 kB", "l2: fall starts ~56.6 MB"]
    # review 36c: the prose names where the fall starts (as the figure does), not where data leaves the L2
    assert "its fall starts at about 56.6 MB, 0.90 of the 62.9 MB the device reports" in prose
    assert "leaves the L2 at 56.6 MB" not in prose and "0.90 to 0.98" not in prose
    assert "between 0.90 and 0.98 of the 62.9 MB the device reports" in appendix and "0.90 times the" not in appendix
    assert "the detector interpolates at 232 kB (no working set was run there)" in appendix
