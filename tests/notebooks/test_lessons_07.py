"""Notebook 07 as a lesson: its structure, and the figures its prose quotes.

Fix round 15 (review: clarity 3.5): one idea per sentence, the shared-memory cap explained where
its verdict is given, an exp priced by the SFU pipe's throughput, lab-log material in the appendix.
Each test here fails on the notebook as it was before that round."""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "07_place_your_kernel.ipynb"
APPENDIX = ROOT / "docs" / "appendix-07.md"


def _cells():
    return nbformat.read(str(NOTEBOOK), as_version=4).cells


def _markdown() -> list:
    return [c.source for c in _cells() if c.cell_type == "markdown"]


def _prose() -> str:
    return " ".join(" ".join(_markdown()).split())


def _code() -> str:
    return "\n".join(c.source for c in _cells() if c.cell_type == "code")


def _printed() -> str:
    return "\n".join(o.get("text", "") for c in _cells() if c.cell_type == "code" for o in c.get("outputs", []))


def _page() -> str:
    return " ".join(APPENDIX.read_text().split())


def _sentences(source: str) -> list:
    text = re.sub(r"\]\([^)]*\)", "]", " ".join(source.split()))  # a link's target is no words
    return [s for s in re.split(r"(?<=[.?!])\s+|\s+- ", text) if s.strip()]


def _slug(heading: str) -> str:
    """GitHub's anchor for a markdown heading."""
    text = heading.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def test_07_has_fewer_words_and_shorter_sentences():
    # the reader: overloaded sentences, one idea per sentence; target <= 2,100-ish words (was 2,431)
    words = sum(len(s.split()) for s in _markdown())
    assert words <= 2200, words
    lengths = [len(s.split()) for cell in _markdown() for s in _sentences(cell)]
    assert sum(lengths) / len(lengths) < 18, sum(lengths) / len(lengths)  # was 22.0
    assert sum(1 for n in lengths if n > 40) <= 2, sorted(lengths)[-6:]  # was 15 (one pinned elsewhere is 48)


def test_the_shared_memory_cap_is_explained_where_its_verdict_is_given():
    # the reader: "shared-memory passes per multiply-add bound the rate" was the appendix's, yet
    # the verdict (3.0% under a 5.0% cap, 11.6% under 16.6%) rests on it
    from rooflinelib.profiling import capstone, gemm_targets
    recorded, _ = capstone.recorded_pair()
    fp32, shared, _ = gemm_targets.recorded_roofs(recorded)
    counters = gemm_targets.recorded_counters()
    passes, ffmas, mhz = gemm_targets.per_sm_clock(counters, shared, fp32)
    assert (f"{passes:.2f}", f"{ffmas:.2f}", mhz) == ("0.98", "3.94", 1980)
    caps = next(c.source for c in _cells() if c.cell_type == "markdown"
                and c.source.startswith("### The tiled pair: shared-memory passes cap the rate"))
    caps = " ".join(caps.split())
    assert "A pass moves at most 128 bytes, one word from each bank." in caps
    assert f"an SM gets {passes:.2f} passes per clock" in caps
    assert f"At the fp32 roof it starts {ffmas:.2f} warp-wide FFMAs per clock" in caps
    rows = gemm_targets.recorded_rows(counters)
    for name, count, share in (("tiled, threadIdx.x -> row", "5", "5.0%"), ("tiled, threadIdx.x -> column", "1.5", "16.6%")):
        p = rows[name]["shared_passes_per_ffma"]
        assert f"{p:.3g}" == count and f"{gemm_targets.shared_cap(p, shared, fp32):.1%}" == share
        assert passes / p / ffmas == pytest.approx(gemm_targets.shared_cap(p, shared, fp32))
        assert share in caps
    assert f"{passes:.2f} / 5 / {ffmas:.2f} = 5.0% of the fp32 roof" in caps
    # the two rates are printed by the cell under it, from the library
    assert f"per SM per clock at {mhz} MHz: {passes:.2f} shared-memory passes; the fp32 roof needs {ffmas:.2f} warp-wide FFMAs" in _printed()
    # the detail stays in the appendix, with its figures
    page = _page()
    assert "## The shared-memory cap, in detail" in page
    assert f"{shared / 128:,.0f} G passes a second" in page and f"{fp32 / 64:,.0f} G warp-wide FFMAs" in page
    tiled = [rows[n]["gflops"] / fp32 / gemm_targets.shared_cap(rows[n]["shared_passes_per_ffma"], shared, fp32)
             for n in ("tiled, threadIdx.x -> row", "tiled, threadIdx.x -> column")]
    assert f"{tiled[0]:.0%} and {tiled[1]:.0%} of their caps" in page
    # the measured roof's share of the banks' 128 bytes per SM per clock: the caps are bounds on it
    assert f"The measured roof is itself {passes:.0%} of the 128 bytes per SM per clock the banks allow" in page


def test_the_caps_cell_calls_the_library_and_prints_what_it_printed_before():
    # house standard: thin code cells; the L1 cap was computed inline in the notebook
    from rooflinelib.profiling import capstone, gemm_targets
    cell = next(c.source for c in _cells() if c.cell_type == "code" and "per_sm_clock" in c.source)
    assert "gemm_targets.caps_text(" in cell and "l1_bytes" not in cell and "for name, row" not in cell
    assert "l1=False" in cell  # review 18a: the L1 cap binds nowhere; it is the appendix's
    fp32, shared, _ = gemm_targets.recorded_roofs(capstone.recorded_pair()[0])
    counters = gemm_targets.recorded_counters()
    roof_ffmas = gemm_targets.per_sm_clock(counters, shared, fp32)[1]
    old = []  # the notebook's former inline loop, line for line
    for name, row in gemm_targets.recorded_rows(counters).items():
        passes = row["shared_passes_per_ffma"]
        sh = f"{gemm_targets.shared_cap(passes, shared, fp32):6.1%}" if passes else "  none"
        l1 = 2 * gemm_targets.N ** 3 / (row["l1_bytes"] / shared) / fp32  # review 17c: not clipped at the roof
        issue = gemm_targets.issue_cap(row["instructions_per_ffma"], roof_ffmas)  # review 19b T3: measured roof
        old.append(f"{gemm_targets.label(name):30s} caps: shared-memory passes {sh}, L1 bytes {l1:6.1%}, "
                   f"instruction issue {issue:6.1%}; measured {row['gflops'] / fp32:5.1%}")
    assert gemm_targets.caps_text(counters, shared, fp32) == "\n".join(old)
    assert "\n".join(old) in APPENDIX.read_text()  # review 18a: all three caps in the appendix
    without_l1 = [re.sub(r"L1 bytes +[0-9.]+%, ", "", line) for line in old]
    assert gemm_targets.caps_text(counters, shared, fp32, l1=False) == "\n".join(without_l1)
    assert "\n".join(without_l1) in _printed()


def test_an_exp_is_priced_by_the_sfu_pipes_throughput_beside_the_fma_pipes():
    # the reader: "MUFU issue" is the wrong word; an exp's cost is the SFU pipe's throughput
    from rooflinelib.core import machines
    text = _prose()
    assert "MUFU instruction alone" not in text and "MUFU issue" not in text
    assert ("An `exp` is one instruction on the special-function pipe (SFU), plus a few "
            "FMAs.") in " ".join(text.split())  # review 19b T7; review 26e: the paragraph was dense
    # review 27e T2: 128 / 16 is 8; the 16x holds only with an FMA as 2 FLOPs, said now
    assert "16 times fewer FLOPs than the 128 FP32 FMA lanes." not in " ".join(text.split())
    # review 33e item 2: results are not FLOPs; exps against FMAs, then the FLOP price
    assert "16 results per clock per SM, 16 times fewer than the 256 FLOPs" not in " ".join(text.split())
    # review 44e: the SFU's price said out loud (16 FLOPs an exp, 20 an element)
    assert ("On Hopper an SM does 16 exps per clock against 128 FMAs (256 FLOPs). Priced at the SFU's rate "
            "([pitfall 5]") in " ".join(text.split())
    h200 = machines.H200
    lanes = h200.ceiling("fp32").value / (132 * 1.98 * 2)  # the datasheet fp32 roof at 1.98 GHz, 2 FLOPs an FMA
    assert machines.NVIDIA_SFU_PER_SM == 16 and lanes == pytest.approx(128, rel=0.02)
    assert 128 / machines.NVIDIA_SFU_PER_SM == 8 and 2 * 128 / machines.NVIDIA_SFU_PER_SM == 16


def test_lab_log_material_is_the_appendixs():
    # the reader: run provenance, counter lists and tool plumbing in the lesson
    from rooflinelib.profiling import gemm_targets
    text, code = _prose(), _code()
    for residue in ("recorded 2026-12-01", "the first call timed apart", "filled with NaN", "413 µs",
                    "its first pass only reads", "the opcode counts, and a hypothesis"):
        assert residue not in text, residue
    for metric in (gemm_targets.SECTORS, gemm_targets.SHARED_PASSES, gemm_targets.CONFLICTS):
        assert metric not in code
    page = _page()
    assert "## How section 4 profiles" in page and "the first call timed apart" in page and "filled with NaN" in page
    assert "413 µs for the three passes summed and 140 µs for the fused kernel" in page
    assert "its first pass only reads" in page
    assert "## The GEMM counters' metrics" in page
    for metric in (gemm_targets.SECTORS, gemm_targets.REQUESTS, gemm_targets.SHARED_PASSES, gemm_targets.CONFLICTS,
                   gemm_targets.FFMA_THREADS, gemm_targets.INSTRUCTIONS):
        assert f"`{metric}`" in page
    assert "## The tiled kernels' shared loads" in page


def test_every_link_into_the_appendix_lands_on_a_heading():
    headings = {_slug(line) for line in APPENDIX.read_text().splitlines() if line.startswith("#")}
    anchors = re.findall(r"\(\.\./docs/appendix-07\.md#([^)]+)\)", "\n".join(_markdown()))
    assert len(set(anchors)) >= 5, anchors
    assert not [a for a in anchors if a not in headings], sorted(headings)
    inner = re.findall(r"\]\(#([^)]+)\)", APPENDIX.read_text())
    assert inner and all(a in headings for a in inner)


# --- review 15d (read 15): notebook 07 ------------------------------------------------------------

def test_07_calls_exp_as_one_flop_the_courses_convention():
    # E2: the roofline has no such convention; counting exp as one FLOP is the course's choice
    text = _prose()
    assert "the roofline's convention" not in text
    assert "each `exp` counted as one FLOP, this course's convention" in text


def test_07_sizes_the_shared_row_in_kib():
    # E3: 4,096 float32 are 16,384 bytes: 16 KiB (16.4 kB), not "16 KB"
    code = _code()
    assert "MAX_COLS = 4096" in code and 4096 * 4 == 16 * 2 ** 10
    assert "16 KiB of float32" in code and "16 KB" not in code


def test_07_prints_one_line_for_the_mode_before_its_main_section():
    # C: two cells printed mode boilerplate in recorded mode; one cell, one line now
    cells = _cells()
    assert not any("not profiled here" in c.source for c in cells if c.cell_type == "code")
    cell = next(c for c in cells if c.cell_type == "code" and "capstone.profile_pair(" in c.source)
    assert "capstone.cpu_sources()" in cell.source
    printed = "".join(o.get("text", "") for o in cell.get("outputs", []))
    assert len(printed.strip().splitlines()) == 1 and printed.startswith("Recorded mode: nothing is profiled")


def test_07_names_the_recorded_pairs_one_roof_and_which_roof_each_ridge_is():
    # C: three roofs from two Lab 1 runs stalled a first reading; the point's one roof is named once
    from rooflinelib.profiling import capstone, gemm_targets
    cell = next(c.source for c in _cells() if c.cell_type == "markdown"
                and c.source.startswith("A kernel that reads and writes"))
    flat = " ".join(cell.split())
    assert flat.count("4,256 GB/s") == 1
    # review 16d: 14 (section 3) and 15.5 (the figure) are two ridges; review 17c: that provenance is
    # the appendix's (below); the cell keeps one sentence naming the pair's own roof and links it
    assert "write-mix roof" not in flat and "timed in its own session" not in flat
    # review 18a: one sentence of provenance, and both figure roofs the recorded session's own;
    # review 26e: the warning sits before the profiled pair's output (section 4's first cell)
    warn = next(c.source for c in _cells() if c.cell_type == "markdown" and c.source.startswith("## 4. Measure"))
    # review 36e clarity 3: the stand-in sentence shortened, same facts
    # review 37e clarity: what the pair is, is said in cell 0; section 4 keeps the stand-in and its link
    assert ("Without a live profile, the course's pair stands in "
            "([which pair](../docs/appendix-07.md#which-lab-1-each-section-uses)).") in " ".join(warn.split())
    # review 19b T2: the ridges differ by the mix (copy against write), not by the session
    assert "its own session's, not section 3's" not in flat
    # review 26e: "the mix, not the session" said plainly (no undefined "mix", no "session")
    assert "The mix, not the session" not in flat and "session" not in flat
    # review 27e: one sentence; why not 14 (the write roof's ridge) is the appendix's
    # review 32e: and the one sentence that the recorded profiles sit on their own run's Lab 1 (0.1% apart)
    # review 33e: one sentence on the roof; the run bookkeeping (its Lab 1, its ridge) is the appendix's
    # review 35e: one sentence, the copy roof of the run that recorded them; the two Lab 1s are the appendix's
    # review 39e: one sentence (a kernel that reads and writes: the copy roof); the ridges are the appendix's
    # review 44e: the copy is the nearest measured mix, not a rule; which run's Lab 1 is section 3's sentence
    assert ("A kernel that reads and writes is scored on the nearest measured mix, the copy (read+write 1:1), "
            "4,256 GB/s.") in flat
    assert "65,979" not in flat and "65,979" in _page()
    assert "ridge is 15.5 FLOP/byte (65,979 / 4,256), not" in _page() and "the copy ridge is 15.4" in _page()
    assert f"{capstone.RECORDED_PROFILES_COPY_GBPS:,.0f}" == "4,256"
    fp32, _, _ = gemm_targets.recorded_roofs(capstone.recorded_pair()[0])
    assert f"{fp32 / capstone.RECORDED_PROFILES_COPY_GBPS:.1f}" == "15.5"
    assert (f"On that copy roof the recorded pair's ridge is 15.5 FLOP/byte ({fp32:,.0f} / 4,256), not the ridge "
            "of 14 that section 3 predicts with") in _page()
    # review 44e: section 3 names the profiles' own Lab 1 and its copy ridge in one sentence
    # review 51: which ridge is which: the printed 14 is the fastest DRAM roof's, 15.5 the copy roof's
    # review 51e: sections 4-5 use the copy roof, section 6 the fp32 and shared-memory roofs
    assert ("The ridge below is on its fastest DRAM roof. Sections 4-5 grade the recorded profiles on their "
            "run's **copy roof**, a copy's DRAM rate (ridge 15.5); section 6 uses that run's fp32 and "
            "shared-memory roofs. Each is within 0.6% of the shipped Lab 1's.") \
        in " ".join(_prose().split())
    assert "section 3's ridge of 14" not in _prose()
    from rooflinelib.store.results import dram_mixes, recorded, recorded_h200
    shipped = recorded_h200()
    mixes = dram_mixes(recorded("ceilings"))
    assert max(mixes, key=mixes.get) == "write"  # "the fastest"
    assert f"{shipped.ceiling('fp32').value / mixes['copy']:.1f}" == "15.4"  # the shipped session's copy ridge: 15.4, not 14
    assert "(fp32 65,894.9 GFLOP/s over DRAM (write) 4,692.6 GB/s" in _printed()
    from rooflinelib.store.results import dram_mixes, recorded
    assert round(dram_mixes(recorded("ceilings"))["write"]) == 4693  # section 3's 14 = 65,895 / 4,693


def test_07_gives_the_ramp_up_hypothesis_its_estimated_size():
    # E1: the only hypothesis offered, unsized; two extra kernels' ramp-up and tail are ~10 of 60.6 µs
    from rooflinelib.profiling import capstone
    pair = capstone.recorded_softmax(capstone.recorded_pair()[0])
    gap = capstone.gap_breakdown(pair["3-pass"], pair["fused"])
    inside = gap["inside_kernels_s"] * 1e6
    assert f"{inside:.1f}" == "60.6"
    per_pass = gap["kernel_s"] / 3 * 1e6  # about 140 µs
    waves = 16_384 / (132 * 8)  # one-row blocks over 8 resident blocks of 256 threads per SM
    half_wave = per_pass / waves / 2
    assert 4 <= half_wave <= 6 and 8 <= 2 * half_wave <= 12  # "about 5 µs each, some 10"
    text = _prose()
    assert "three kernels ramp up and drain against the fused kernel's one" not in text
    # review 17c: the split (352 expected, 12 outside, 60.6 inside, from a second ncu run) is the
    # appendix's; the notebook says the question is open and links the split and the estimate
    flat = " ".join(text.split())
    # review 33e: the appendix's estimate in one clause
    # review 34e item 1: the 73 µs lost is what the page lets a reader work out
    # review 35e item 1: the ~12 µs outside the kernels is said; the ramp-up estimate is the appendix's
    # review 36e clarity 3: "the counters recorded here do not say which pass is slow" was a lab-log aside
    # review 44e: what is open said plainly, the launch overheads' share of the 73 µs beside it
    # review 46e: the 12 µs is time outside the kernels, within the two runs' noise, not measured launch overhead
    assert ("about 12 of the 73 µs fall outside the kernels ([within noise](../docs/appendix-07.md#why-the-passes-run-slower-an-estimate)).") in flat
    assert f"{gap['outside_kernels_s'] * 1e6:.0f}" == "12" and f"{gap['shortfall_s'] * 1e6:.0f}" == "73"
    assert f"{inside:.0f}" == "61" and "some 10 µs of the 60.6 µs inside the kernels" in _page()
    assert "10 of the 61 µs lost" not in flat
    assert "60.6" not in text and "60.6" not in _printed() and "where the time went" not in _printed()
    page = _page()
    assert f"inside its kernels (slow passes) {inside:.1f} us" in page and "some 10 µs of the 60.6 µs" in page
    assert capstone.gap_text(pair["3-pass"], pair["fused"]) in APPENDIX.read_text()
    assert "about 5 µs each" not in text and "some 5 µs" in _page()
    # review 19b: one sentence per open point; the counters that would decide are the appendix's
    assert "ncu's duration and DRAM throughput for each pass would say which pass is slow" not in text
    assert "Nsight Compute's duration and DRAM throughput for each pass would say which pass is slow." in _page()
    assert "## Why the passes run slower: an estimate" in APPENDIX.read_text()
    assert "This is an estimate, not a measurement." in _page()


def test_07_section_5_prints_the_counters_not_the_profiles_bookkeeping():
    # C: provenance, first-call times and repeat counts were lab log; the DRAM bytes and ratio stay
    cell = next(c for c in _cells() if c.cell_type == "code" and "softmax_counters_text(recorded)" in c.source)
    printed = "".join(o.get("text", "") for o in cell.get("outputs", []))
    assert "first call" not in printed and "Recorded profiles shipped with the course" not in printed
    assert "median of 608" not in printed and "DRAM bytes, 3-pass over fused: 2.54 (the model's byte ratio: 2.50)" in printed
    assert "(0.973x the analytic 1,342,177,280)" in printed


def test_07_says_what_the_16_bytes_a_row_are():
    # C: a maximum and a sum a row, 4 bytes each, each written once and read once
    assert 2 * 4 * 2 == 16
    # review 18a: the main point (20 against 8) first, the per-row bytes in a sentence of their own
    assert ("20 per element for the 3-pass version against exactly 8 fused. The printed 20.1 and 20 add "
            "16 bytes a row (a maximum and a sum, each written and read once): 0.06 per element at 256 "
            "columns, 0.02 at 1,024.") in _prose()
    assert f"{16 / 256:.2f}" == "0.06" and f"{16 / 1024:.2f}" == "0.02"


def test_07_does_not_grow_in_review_15d():
    assert sum(len(s.split()) for s in _markdown()) <= 2154


def test_07s_gemm_table_has_seven_columns_and_the_appendix_the_other_two():
    # C: the nine-column GEMM table; the spreads and the bank conflicts go to the appendix
    from rooflinelib.profiling import gemm_targets
    recorded = gemm_targets.recorded_counters()
    printed = _printed()
    header = next(line for line in printed.splitlines() if line.strip().startswith("kernel") and "instr/FFMA" in line)
    assert "spread" not in header and "conflicts/FFMA" not in header
    assert "shared passes/FFMA" in header and "sectors/load" in header and "DRAM MB" in header
    page = APPENDIX.read_text()
    for line in gemm_targets.spread_and_conflicts_text(recorded).splitlines():
        assert f"- {line}" in page
    rows = gemm_targets.recorded_rows(recorded)
    assert "tiled, warp down a column: spread 1.0%, bank conflicts 3.00 per FFMA" in page
    assert max(r["spread"] for r in rows.values()) == pytest.approx(0.054, abs=0.001)


def test_07_does_not_grow_in_review_16d():
    assert sum(len(s.split()) for s in _markdown()) <= 2119


def test_07_opening_uses_no_term_before_section_6_defines_it():
    # review 16d: "passes" and "cap" (and "5 passes per multiply-add", per warp-wide FFMA in
    # section 6) came before section 6 defines them; the opening points at the collision instead
    opening = " ".join(_cells()[0].source.split())
    assert "passes" not in opening.replace("three passes", "") and "cap" not in opening
    # review 32e: the cause first; "colliding" before section 6 names bank conflicts
    assert "4x more global-load traffic" not in opening  # review 34e: section 6 names it, not the opening
    assert "bank" not in opening
    assert "](#6." not in opening  # review 19b: Jupyter's anchor form does not resolve on GitHub


def test_07_distinct_bytes_are_the_dram_bytes_only_with_nothing_kept_between_launches():
    # review 16d: "the least DRAM must move" holds only under section 2's no-cache assumption
    text = _prose()
    assert "is the least DRAM must move" not in text
    assert "is what DRAM must move when nothing survives between launches" in text


def test_07_section_5_leaves_the_l1_and_l2_rows_to_the_appendix():
    # review 16d: only the DRAM row matters to this lesson; the other rows' caveats are linked
    # review 17c: the rows were printed and then called irrelevant; now only the DRAM row is printed
    from rooflinelib.profiling import capstone
    cell = next(c.source for c in _cells() if c.cell_type == "markdown"
                and c.source.startswith("Placed on\n[notebook 05's hierarchical roofline]"))
    flat = " ".join(cell.split())
    assert "not like-for-like" not in flat and "that row matters" not in flat
    assert "[the L2 and L1 rows](../docs/appendix-07.md#the-softmaxes-level-by-level)" in flat
    printed = _printed()
    assert "  dram      1,306,195,456 bytes" in printed and "  dram        513,661,440 bytes" in printed
    assert "\n  l2 " not in printed and "\n  l1 " not in printed and "lts__t_bytes" not in printed
    page = APPENDIX.read_text()
    assert "## The softmaxes level by level" in page
    recorded = capstone.recorded_pair()[0]
    for name in capstone.LEVEL_TABLE_NAMES:
        assert capstone.levels_text(recorded[name]) in page
    assert capstone.L1_NOTE in page and capstone.L2_NOTE in page


# --- review 17c (i18_0607) ----------------------------------------------------------------------

def test_07_section_6_states_its_answer_first_and_names_the_dram_roofline():
    text = " ".join(_prose().split())
    section = text.split("## 6. Far below a compute roof")[1]
    top = section.split("Five terms")[0]  # review 19b: the question and the answer, a cell of their own
    # review 33e: the question is the tiled swap's 3.9x; both kernels introduced in one sentence first
    assert ("**The question.** Swapping the indices made the tiled GEMM 3.9x slower, with the same FLOPs and "
            "DRAM bytes. Why? **The answer.** The swap puts a warp down a column of C, not along a row; there, "
            "mainly, its shared-memory loads collide: 5.0 *passes* (rounds of shared-memory service)") in top
    # review 46e: a pass said before the answer uses it; review 51e: and which way the swap turns a warp
    # review 40e: the direct evidence (ncu's MIO-queue stalls) before the cap
    # review 44e: the 5 passes per multiply-add set the cap, conflict-free ones included
    assert "Its 5 passes alone hold it to at most 5% of the fp32 roof; it reached 3%." in top
    assert top.index("Four variants ran: a *naive* GEMM") < top.index("**The question.**")
    # review 35e item 4: the issue count caps them; it does not say why they sit where they do
    assert "**A second finding.** Both naive variants are capped at 3% by Numba's code" in top
    assert "now a kernel far below its compute roof" not in top  # review 34e: words paid for the new sentences
    assert "issue roof" not in text  # review 19b: the term was used before section 6 defined it
    assert "The roofline cannot say why" not in text
    # the numbers the answer quotes
    from rooflinelib.profiling import capstone, gemm_targets
    fp32, shared, _ = gemm_targets.recorded_roofs(capstone.recorded_pair()[0])
    rows = gemm_targets.recorded_rows(gemm_targets.recorded_counters())
    slow, fixed = (next(r for n, r in rows.items() if gemm_targets.label(n) == f"tiled, warp {w}")
                   for w in ("down a column", "along a row"))
    assert f"{fixed['gflops'] / slow['gflops']:.1f}" == "3.9"
    assert f"{gemm_targets.shared_cap(slow['shared_passes_per_ffma'], shared, fp32):.0%}" == "5%"
    assert f"{slow['gflops'] / fp32:.0%}" == "3%"


def test_07_prints_an_l1_cap_above_the_roof_as_it_is():
    # review 17c: "L1 bytes 100.0%" was a cap of about 198% clipped to the roof
    from rooflinelib.profiling import capstone, gemm_targets
    fp32, shared, _ = gemm_targets.recorded_roofs(capstone.recorded_pair()[0])
    counters = gemm_targets.recorded_counters()
    row = next(r for n, r in gemm_targets.recorded_rows(counters).items()
               if gemm_targets.label(n) == "tiled, warp along a row")
    cap = gemm_targets.l1_cap(row["l1_bytes"], shared, fp32, clip=False)
    assert cap > 1.5 and gemm_targets.l1_cap(row["l1_bytes"], shared, fp32) == 1.0
    # review 18a: the L1 cap binds nowhere; the appendix prints it, unclipped
    page = APPENDIX.read_text()
    assert f"L1 bytes {cap:6.1%}" in page and "L1 bytes 100.0%" not in page
    assert "L1 bytes" not in _printed()


# --- review 18a (k19_07) ------------------------------------------------------------------------

def _sass_of(name: str) -> dict:
    from rooflinelib.profiling import gemm_targets
    return gemm_targets.recorded_counters()["variants"][name]["sass"]


def test_07_cites_the_naive_kernels_recorded_opcode_mix():
    # minor: "mostly index arithmetic and loop bookkeeping" was stated with no opcode evidence
    from rooflinelib.profiling import gemm_targets
    text = _prose()
    assert "mostly index arithmetic and loop bookkeeping" not in text
    assert ("The naive kernels issue 34 instructions per FFMA, as Numba compiles them: 64-bit index arithmetic, "
            "negative-index wrapping, loop counting") in text  # review 25e: the 34 are Numba's (test below)
    # review 33e item 1: a static count of opcodes, not the code that ran
    # review 34e: the opcode line is the appendix's; the page states the cap
    assert "so they cap this code, not every naive GEMM, at 4 / 34 / 3.94 = 3.0%." in " ".join(text.split())
    assert "static opcode counts" not in text
    assert "Its machine code (SASS), printed last" not in text
    recorded = gemm_targets.recorded_counters()
    line = gemm_targets.naive_opcode_text(recorded)
    assert line not in _printed() and line in APPENDIX.read_text()
    for name in ("naive, threadIdx.x -> row", "naive, threadIdx.x -> column"):
        mix = gemm_targets.opcode_mix(_sass_of(name))
        integer = mix["integer add or multiply-add (IADD3, IMAD)"] + mix["compare (ISETP)"]
        assert integer / mix["total"] > 0.8 and mix["other"] == 0  # "mostly": 139 of 161
        assert (mix["FFMA"], mix["global load"], mix["total"]) == (5, 10, 161)
    assert "## The naive kernels' machine code" in APPENDIX.read_text()


def test_07_closes_the_uncounted_writes_hypothesis_with_ncus_flush():
    # minor: the hypothesis sat beside "ncu flushed the L2 before each kernel" without meeting it
    text = _prose()
    assert "reach DRAM after it, uncounted" not in text
    # review 25e: the hypothesis fits the 3-pass shortfall only loosely; the appendix says so, the lesson calls it open
    assert "Hypothesis for the small shortfall" not in text
    # review 33e: the hypothesis named in a clause, the question still open
    # review 34e: the hypothesis is the appendix's; the page links it
    # review 36e item 1: ncu's flush enforces the no-reuse rule, so the check is per launch
    # review 39e: "open" was lab jargon for unexplained
    # review 42e: the shortfall is located (all in the writes), its cause left to the appendix
    assert ("the reads are complete; the whole "
            "[2.7-4.3% shortfall](../docs/appendix-07.md#the-small-dram-shortfall) is in the writes.") in " ".join(text.split())
    readings = next(c.source for c in _cells() if c.source.startswith("Three readings"))
    assert "writes left in the L2" not in text and "open" not in readings
    assert ("Hypothesis: writes still in the L2 when a kernel ends reach DRAM at ncu's flush before the next "
            "kernel, outside the count. It fits only loosely") in _page()
    # review 19b: the printed note was lab log; the hypothesis names the flush, the appendix says how ncu ran
    assert "ncu flushed the L2 before each kernel" not in _printed()
    assert "with the caches flushed before each kernel" in _page()
    assert "--cache-control all" in APPENDIX.read_text()


def test_07_figures_roofs_are_both_the_recorded_sessions():
    # trivial: section 3 prints a ridge of 14, the figure one of 15.5: both its roofs are run 17's
    import json
    from rooflinelib.profiling import capstone
    from rooflinelib.store.results import recorded_h200
    lab1 = json.loads((ROOT / "docs" / "measurements" / "h200_run17" / "lab1.json").read_text())
    values = [c["value"] for c in lab1["ceilings"]]
    graded = capstone.recorded_softmax(capstone.recorded_pair()[0])  # what recorded mode draws
    assert set(graded) == {"3-pass", "fused"}
    for profile in graded.values():
        assert profile.peak_gflops in values and profile.peak_gbps in values
        assert profile.peak_gbps == capstone.RECORDED_PROFILES_COPY_GBPS
    shipped = recorded_h200()
    assert f"{shipped.ceiling('fp32').value:,.0f}" != f"{next(iter(graded.values())).peak_gflops:,.0f}"
    # review 26e: no undefined "mix"; review 32e: the recorded profiles sit on their own run's Lab 1
    # review 33e: that bookkeeping is the appendix's; the notebook names the copy roof in one sentence
    # review 34e: the page now says in one sentence which Lab 1 judges the recorded profiles (pinned below)
    # review 35e: "of the run that recorded them" in place of "their own run's Lab 1"
    # review 44e: section 3 says which Lab 1 judges the recorded profiles, and how far it is from the shipped one
    assert "grade the recorded profiles on their run's **copy roof**" in " ".join(_prose().split())
    assert "the two runs' fp32 and copy roofs differ" not in _prose()
    assert "(fp32 65,979 GFLOP/s, shared memory 32,814 GB/s)" in _page()
    assert "the two runs' fp32 and copy roofs differ by 0.1% and 0.6%" in _page()
    own = next(iter(graded.values())).peak_gflops
    assert f"{own:,.0f}" == "65,979" and f"{own / shipped.ceiling('fp32').value - 1:.1%}" == "0.1%"
    assert "both roofs of the section 4 figure, copy and fp32, are run 17's" in _page()


def test_07_section_4_keeps_one_sentence_of_provenance():
    # clarity: three cells on which session, which pair and which roof; the rest is the appendix's
    text = _prose()
    section = text.split("## 4. Measure")[1].split("## 5.")[0]
    for moved in ("The copy roof is the nearest measured one", "Each output is checked against a float64 softmax",
                  "`rooflinelib.profiling.softmax_targets`", "It is placed on its own session's copy roof",
                  "A live run compares its own profiles", "with `rooflinelib.profile`"):
        assert moved not in section, moved
    # review 39e: links once for which pair stands in, once for the copy roof's ridge
    assert section.count("appendix-07.md#which-lab-1-each-section-uses") == 2
    assert section.count("stands in") == 1  # one sentence says whose pair it is
    page = _page()
    assert ("the course's own (`rooflinelib.profiling.softmax_targets`), with the same bytes; its fused kernel "
            "keeps the row in registers, not in shared memory.") in page
    assert "The copy roof is the nearest measured mix, not exactly each softmax's own." in page
    assert "afterwards it is checked against a float64 softmax" in page


def test_07_section_6_opens_with_a_three_step_roadmap():
    # clarity: section 6 is a second notebook; a roadmap (count -> measure -> bound) at its top
    # review 51e: the three-step list repeated the three headings below word for word; the headings
    # carry the roadmap (count in the simulator, measure on the H200, bound by each count)
    headings = [c.source.splitlines()[0] for c in _cells() if c.cell_type == "markdown" and c.source.startswith("### ")]
    assert headings == ["### The slip, counted in the simulator", "### The same kernels on the H200",
                        "### The tiled pair: shared-memory passes cap the rate",
                        "### The naive pair: instruction issue and stalls"]


def test_07_leaves_the_l1_cap_to_the_appendix():
    # clarity: the L1 cap rested on an assumption and bound nothing
    text = _prose()
    assert "The L1 bytes set a cap" not in text and "5.8% and 24.8%" not in text and "L1 bytes cap" not in text
    page = _page()
    assert "## The L1 cap, which binds none of the four" in APPENDIX.read_text()
    assert "Every kernel has a tighter cap than its L1 cap: the L1 cap binds nowhere." in page
    from rooflinelib.profiling import capstone, gemm_targets
    fp32, shared, _ = gemm_targets.recorded_roofs(capstone.recorded_pair()[0])
    for row in gemm_targets.recorded_rows(gemm_targets.recorded_counters()).values():
        l1 = gemm_targets.l1_cap(row["l1_bytes"], shared, fp32, clip=False)
        passes = row["shared_passes_per_ffma"]
        other = min(gemm_targets.issue_cap(row["instructions_per_ffma"]),
                    gemm_targets.shared_cap(passes, shared, fp32) if passes else 1.0)
        assert other < l1  # binds nowhere


def test_07_says_why_merged_shared_loads_lower_the_passes():
    # clarity: "merged some shared loads into 16-byte ones" did not say why the passes fall
    from rooflinelib.profiling import gemm_targets
    text = _prose()
    # review 27e T4: the opcode counts are recorded; that the LDS.128 read sa is inferred from the source
    # review 32e: the provenance bracket ("inferred from the source") is the appendix's
    # review 33e: two sentences; the phases and the four k values are the appendix's
    # review 34e: SASS defined at first use; LDS.128 said in a few words
    # review 35e item 2: what the SASS shows (4 LDS.128 per 16 FFMAs) apart from what is inferred (that they are sa's)
    # review 36e item 3 and clarity 2: the 4-byte rule said; the contiguity inference is the appendix's
    # review 37e clarity: the LDS.128 side-trip is the appendix's; the page keeps one clause and what it means
    # review 44e: how they merged (four into one 16-byte load: 20 per 16 FFMAs, not 32), from the recorded SASS
    # review 46e: only sa's loads merged (sb's 16 stay 4-byte), and the passes of a 16-byte load are counted
    assert ("Its shared passes per FFMA, 5.0 and 1.5, are fewer than the simulator's 9 and 2: the compiler "
            "merged `sa`'s loads four into one 16-byte load; `sb`'s 16 stay 4-byte.") in " ".join(text.split())
    assert "LDS.128" not in text
    assert "only `sa`'s are" in _page() and "4 `LDS.128`" in _page()
    # review 46e: the passes of the merged loads are counted, so the recorded 5.0 and 1.5 can be reproduced
    # review 51e: "served in phases, twice the passes" read as a general rule; the factor is this kernel's
    assert "served in phases" not in text and "quarter-warps" not in text and "serves four k values" not in text
    assert "inferred from the source" not in text
    assert "Which array the `LDS.128` read follows from the source" in _page()
    rows = gemm_targets.recorded_rows(gemm_targets.recorded_counters())
    simulated = gemm_targets.shared_passes_per_ffma(gemm_targets.access_counts())
    for name in ("tiled, threadIdx.x -> row", "tiled, threadIdx.x -> column"):
        sass = _sass_of(name)
        assert sass["LDS.128"] * 4 == sass["FFMA"] == sass["LDS"]  # four k of sa a load; sb's 16 stay scalar
        ffma = sass["FFMA"]
        lds128_passes_at_most = rows[name]["shared_passes_per_ffma"] * ffma - sass["LDS"]  # sb: >= 1 pass each
        sa_scalar_passes = (simulated[name] - 1) * ffma  # the code as written: sb 1 pass a load
        assert lds128_passes_at_most < sa_scalar_passes
    assert "So one `LDS.128` serves four k values of `sa`" in _page()


def test_07_does_not_grow_in_review_18a():
    assert sum(len(s.split()) for s in _markdown()) <= 2131


# --- fix round 20 (review 19b) ------------------------------------------------------------------

def test_figure_text_positions_default_keeps_every_label_side():
    # review 19b: the 3-pass label printed on the copy roof; a parameter places it, its default
    # (None) leaves every other caller's figure as it was
    from rooflinelib.core.machines import get_machine
    from rooflinelib.core.placement import KernelPoint
    from rooflinelib.views.plotting import roofline_figure
    machine = get_machine("H200")
    points = [KernelPoint("a", 5e8, 2e9), KernelPoint("b", 5e8, 8e8)]
    sides = lambda fig: {t.name: t.textposition for t in fig.data if t.mode == "markers+text"}
    default = sides(roofline_figure(machine, points))
    assert default == sides(roofline_figure(machine, points, text_positions=None))
    moved = sides(roofline_figure(machine, points, text_positions={"a": "bottom right"}))
    assert moved == {**default, "a": "bottom right"} and default["a"] != "bottom right"


def test_07_names_the_tiled_slips_uncoalesced_tile_loads():
    # review 19b T1: the slip also uncoalesced the tile loads (16 sectors per load against 4)
    from rooflinelib.profiling import gemm_targets
    rows = {gemm_targets.label(n): r for n, r in gemm_targets.recorded_rows(gemm_targets.recorded_counters()).items()}
    assert (f"{rows['tiled, warp down a column']['sectors_per_request']:.0f}",
            f"{rows['tiled, warp along a row']['sectors_per_request']:.0f}") == ("16", "4")
    # review 25e: the appendix labels the 3.5% an untested hypothesis; the lesson no longer calls it an estimate
    assert "estimates that this tightens the cap" not in _prose()
    # review 26e: the lesson's cap sentence is now the stores'; the 3.5% and its hypothesis are the appendix's
    assert "would be about 3.5%" not in _prose() and "Down a column its tile loads were also uncoalesced" not in _prose()
    assert "the tiled kernels' global-load sectors (2 and 0.5 per FFMA)" in " ".join(_page().split())
    assert "**A hypothesis, not tested.**" in _page()
    assert "would tighten their caps as well, from 5.0% to 3.5%" in _page()


def test_07_the_issue_cap_shares_the_measured_roof_with_its_neighbours():
    # review 19b T3: 1 / instructions is a share of the theoretical peak (4 FFMAs per SM per clock);
    # the shared cap and the measured share beside it are of the measured roof (3.94)
    from rooflinelib.profiling import capstone, gemm_targets
    assert gemm_targets.issue_cap(34.3) == pytest.approx(1 / 34.3)  # the default: unchanged
    fp32, shared, _ = gemm_targets.recorded_roofs(capstone.recorded_pair()[0])
    counters = gemm_targets.recorded_counters()
    ffmas = gemm_targets.per_sm_clock(counters, shared, fp32)[1]
    assert f"{ffmas:.2f}" == "3.94"
    text = gemm_targets.caps_text(counters, shared, fp32, l1=False)
    assert text.count("instruction issue   3.0%") == 2 and text.count("instruction issue  19.4%") == 2
    assert "2.9%" not in text and text in _printed()
    assert f"{4 / 34 / 3.94:.1%}" == "3.0%" and "4 / 34 / 3.94 = 3.0%" in _prose()
    assert "2.9%" not in _prose() and "(at the recorded clock)" not in _prose()  # T6: dropped
    assert "instruction issue   2.9%" not in APPENDIX.read_text()


def test_07_ncus_flop_metric_and_the_exps_fma_instructions():
    # review 19b T4, T5
    text = _prose()
    assert "the instructions the fp32 pipes executed" not in text
    # review 33e: section 5 does not use ncu's FLOPs; the paragraph is the appendix's
    assert "ncu counts FADD" not in text and "fp32 FLOPs counted" not in _printed()
    assert ("ncu counts FADD and FMUL as one FLOP and FFMA, the fused multiply-add, as two, the arithmetic around "
            "the `exp` included; the max and the SFU's `exp` instruction are not counted.") in _page()
    assert "The printed 20.1 and 20.0" not in text
    assert "summed (20 per element)" in _printed()


def test_07_prints_the_kernels_differing_lines_before_the_access_table():
    # review 19b: the GEMM kernels were never shown; their differing lines come from the library
    from rooflinelib.profiling import gemm_targets
    code = [c for c in _cells() if c.cell_type == "code"]
    diff = next(i for i, c in enumerate(code) if c.source.strip() == "print(gemm_targets.kernel_diff_text())")
    table = next(i for i, c in enumerate(code) if "gemm_targets.access_table(" in c.source)
    assert diff < table and "nbval-check-output" in code[diff].metadata.get("tags", [])
    printed = "".join(o.get("text", "") for o in code[diff].outputs)
    assert printed.strip() == gemm_targets.kernel_diff_text().strip()
    for fixed, slip in (("col, row = cuda.grid(2)", "row, col = cuda.grid(2)"),
                        ("acc += sa[ty, k] * sb[k, tx]", "acc += sa[tx, k] * sb[k, ty]")):
        assert any(fixed in line and slip in line for line in printed.splitlines())
    assert "def " not in "".join(c.source for c in code[diff:])  # no helper defined in the notebook


def test_07_section_6_question_and_answer_apart_from_its_terms():
    # review 19b: cell 25 did five jobs; "issue roof" came before its definition
    md = [c.source for c in _cells() if c.cell_type == "markdown"]
    six = next(i for i, s in enumerate(md) if s.startswith("## 6."))
    assert "Five terms" not in md[six] and md[six + 1].startswith("Five terms")
    assert "Why?" in md[six] and "**The answer.** The swap puts a warp down a column" in md[six]
    assert "issue roof" not in _prose() and "hierarchical roofline plus" not in _prose()


def test_07_states_its_kernel_rules_as_a_list():
    # review 19b: cell 3's "rules above" pointed at no rules
    md = [c.source for c in _cells() if c.cell_type == "markdown"]
    one = next(s for s in md if s.startswith("## 1. The kernels"))
    rules = [line for line in one.splitlines() if line.startswith("- ")]
    assert rules == ["- One block of threads per row.",
                     "- Loops stride by `cuda.blockDim.x`, not `THREADS`: the simulator runs 32 threads a block.",
                     "- A row has at most `MAX_COLS` columns.",
                     "- Only the arrays passed in (`x`, `maxima`, `e`, `sums`, `y`) are global memory."]
    assert "within the rules above" in _code()
    from rooflinelib.profiling import capstone
    assert capstone.SIM_THREADS == 32


def test_07_run_report_sentences_left_to_the_appendix():
    # review 19b: one sentence per open point in the lesson; the CPU paragraph is the appendix's
    text = _prose()
    for gone in ("On a CPU, fusion can gain *less*", "section 5's hypothesis", "which one binds is the hypothesis",
                 "its own session's", "](#6."):
        assert gone not in text, gone
    assert "[why](../docs/appendix-07.md#on-a-cpu)" in text
    assert "## On a CPU" in APPENDIX.read_text()
    assert "Each `exp` is a software sequence of a dozen or more vector instructions" in _page()


def test_07_figure_title_and_three_pass_label():
    # review 19b: a redundant title; the 3-pass label printed on the copy roof
    cell = next(c for c in _cells() if c.cell_type == "code" and "first.figure(" in c.source)
    assert '"Recorded H200 softmaxes on the copy roof"' in cell.source
    assert 'text_positions={"softmax 3-pass": "bottom right"}' in cell.source
    assert "The softmaxes of" not in cell.source


def test_07_does_not_grow_in_review_19b():
    assert sum(len(s.split()) for s in _markdown()) <= 2124


def test_07_appendix_says_the_ridge_gap_is_the_mix():
    # review 19b T2: 15.5 against 14 is the copy mix against the write mix; the sessions differ by < 1%
    from rooflinelib.profiling import capstone, gemm_targets
    from rooflinelib.store.results import dram_mixes, recorded, recorded_h200
    fp32_shipped = recorded_h200().ceiling("fp32").value
    copy_shipped = dram_mixes(recorded("ceilings"))["copy"]
    fp32_run, _, _ = gemm_targets.recorded_roofs(capstone.recorded_pair()[0])
    assert f"{fp32_shipped / copy_shipped:.1f}" == "15.4"
    assert f"{fp32_run / fp32_shipped - 1:.1%}" == "0.1%"
    assert f"{1 - capstone.RECORDED_PROFILES_COPY_GBPS / copy_shipped:.1%}" == "0.6%"
    assert ("The gap between 15.5 and 14 is the mix, not the session: on the shipped Lab 1 the copy ridge is 15.4 "
            "(65,895 / 4,280), and the two runs' fp32 and copy roofs differ by 0.1% and 0.6%.") in _page()


# --- review 25e (t25_07) ------------------------------------------------------------------------

def test_07_says_the_naive_kernels_34_instructions_are_numbas():
    # minor: "34 instructions per FFMA ... cap at 3.0%" read as true of any naive GEMM; it is Numba's
    # code: 64-bit indices, negative-index wrapping, the range iterator.  Compiled here as the course
    # launches it (C-contiguous float32 arrays, cc 9.0): 21 PTX instructions between two FMAs of the
    # unrolled loop, with the wrap (shr.s64 by 63) in each.
    from numba import cuda
    from numba.types import float32 as f32
    from rooflinelib.profiling import gemm_targets
    text = _prose()
    assert "a CUDA C version needs far fewer](../docs/appendix-07.md#why-so-many-numbas-code)" in text
    assert "they cap the naive kernels at" not in text
    page = _page()
    assert "### Why so many: Numba's code" in APPENDIX.read_text()
    assert "takes 21 PTX instructions per `fma.rn.f32`" in page
    assert "22 PTX instructions for the 4 FMAs of its unrolled loop, about 5.5 per FMA" in page
    assert "the 3.0% issue cap is this code's, not every naive GEMM's" in page
    sig = (f32[:, ::1], f32[:, ::1], f32[:, ::1])
    for name, kernel in gemm_targets.kernels().items():
        if "naive" not in name:
            continue
        ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(9, 0))
        body = [line.strip() for line in ptx.splitlines()
                if line.strip() and not line.strip().startswith(("//", ".", "{", "}", "$"))]
        fmas = [i for i, line in enumerate(body) if line.startswith("fma.rn.f32")]
        assert len(fmas) == 5, name  # 4 in the unrolled loop, 1 in the remainder
        between = body[fmas[0] + 1:fmas[1] + 1]
        assert len(between) == 21, name
        assert sum(line.startswith("shr.s64") and line.endswith(", 63;") for line in between) == 1, name
        assert sum(".s64" in line or ".b64" in line or ".u64" in line for line in between) >= 17, name


def test_07_names_the_swapped_thread_indices_not_one_index_slip():
    # trivial: the tiled pair differs in five lines, tx and ty swapped consistently; one index alone is a wrong result
    text = _prose()
    assert "One index slip" not in text and "The slip changed" not in text
    assert "Swapping the thread indices x and y made a tiled GEMM 3.9x slower" in text
    assert "The swap changed how the SMs fetch, not what crosses DRAM." in text


def test_07_links_pitfall_5_and_splits_the_rate_from_its_share_in_the_gemm_table():
    from rooflinelib.profiling import gemm_targets
    assert "([pitfall 5](06_pitfalls.ipynb#Pitfall-5,-costly-FLOPs)), an `exp` costs 16 FLOPs" in " ".join(_prose().split())
    pitfalls = nbformat.read(str(NOTEBOOK.parent / "06_pitfalls.ipynb"), as_version=4).cells
    assert any(line == "## Pitfall 5, costly FLOPs" for c in pitfalls if c.cell_type == "markdown"
               for line in c.source.splitlines())  # the heading Jupyter anchors as #Pitfall-5,-costly-FLOPs
    header = gemm_targets.recorded_table(gemm_targets.recorded_counters(), 65_979).splitlines()[1]
    assert "TFLOP/s % of fp32" in header and "TFLOP/s  of fp32" not in header
    assert "TFLOP/s % of fp32" in _printed()


# --- review 26e (x26_07) ------------------------------------------------------------------------

def _md(start: str) -> str:
    return " ".join(next(c.source for c in _cells() if c.cell_type == "markdown" and c.source.startswith(start)).split())


def test_07_says_the_caps_count_loads_and_the_stores_tighten_them():
    # review 26e E1: the swapped kernel's tile stores are 8-way conflicted too; the caps count loads only
    from rooflinelib.profiling import capstone, gemm_targets
    counts = gemm_targets.access_counts()
    ffma = gemm_targets.ffma_instructions()
    slow, fixed = counts["tiled, threadIdx.x -> row"], counts["tiled, threadIdx.x -> column"]
    assert (slow["shared_store"]["wavefronts"], slow["shared_store"]["bank_conflicts"]) == (128, 112)
    assert slow["shared_store"]["wavefronts"] / ffma == 1 and fixed["shared_store"]["wavefronts"] / ffma == 0.125
    fp32, shared, _ = gemm_targets.recorded_roofs(capstone.recorded_pair()[0])
    rows = {gemm_targets.label(n): r for n, r in gemm_targets.recorded_rows(gemm_targets.recorded_counters()).items()}
    down, along = rows["tiled, warp down a column"], rows["tiled, warp along a row"]
    tight = [gemm_targets.shared_cap(round(r["shared_passes_per_ffma"], 1) + s / ffma, shared, fp32)
             for r, s in ((down, 128), (along, 16))]
    assert [f"{c:.1%}" for c in tight] == ["4.1%", "15.3%"]
    text = " ".join(_prose().split())
    assert "shared-memory reads hit bank conflicts" not in text
    # review 32e: "(1 and 0.125 per FFMA, simulated)" is the appendix's provenance
    # review 33e item 3: the store passes are the simulator's
    # review 34e: the tightening is the appendix's; the page says the caps are upper bounds and links it
    # review 41e: upper bounds in any case; leaving out the stores makes them looser ones
    assert ("The caps count shared loads only, so they are looser upper bounds "
            "([the tile stores](../docs/appendix-07.md#the-tile-stores)).") in text
    assert "4.1%" not in text and "15.3%" not in text
    assert "0.98 / 6 / 3.94 = 4.1% and 15.3%" in page_flat_of_appendix()
    assert "so the 1 and 0.125 passes per FFMA are the simulator's" in _page()
    page = " ".join(_page().split())
    assert "## The tile stores" in _page() and "112 bank conflicts" in page
    # the H200 recorded the stores' conflicts (not their passes): 0.88 per FFMA against the simulator's 0.875
    ncu = gemm_targets.recorded_counters()["ncu"]["core"]
    st = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
    per = ncu["gemm_tiled_rows_kernel"][st] / (gemm_targets.N ** 3 / 32)
    assert f"{per:.2f}" == "0.88" and "0.88 per warp-wide FFMA at n = 2048, against the simulator's 0.875" in page
    assert f"{ncu['gemm_tiled_kernel'][st] / (gemm_targets.N ** 3 / 32):.3f}" == "0.008"
    # related to, and not claimed to confirm, the untested global-sector hypothesis
    both = [gemm_targets.shared_cap(p, shared, fp32) for p in (8, 2.125)]
    assert [f"{c:.1%}" for c in both] == ["3.1%", "11.7%"]
    assert "would be 3.1% and 11.7%" in page and "That closeness does not test the hypothesis" in page


def test_07_the_pass_rule_is_for_4_byte_words():
    # review 26e E2: LDS.128 is served in phases; the one-pass-per-bank-word rule is for 4-byte accesses
    terms = _md("Five terms")
    # review 32e: the 16-byte remark meant nothing before LDS.128; it stands where the merged loads are read
    assert "16-byte" not in terms and "The extra passes are *bank conflicts*." in terms
    assert "a 16-byte load is split into phases" not in _md("The hardware's sectors")  # review 33e: the appendix's
    assert "A warp's 16-byte load can ask for up to 512 distinct bytes" in _page()
    assert "applies the bank rule to the 16-byte chunks within each half" in _page()
    # review 26e E4: 4 sectors only when the floats are aligned
    # review 33e item 5: 4 sectors only from a 128-byte boundary
    assert "A warp reading 32 neighbouring floats from a 128-byte boundary touches 4 sectors" in " ".join(terms.split())


def test_07_takeaway_says_rests_on_and_the_warning_comes_before_the_output():
    # review 26e E3: time is bytes / rate, not a product of claims
    assert "a product of separate claims" not in _prose()
    assert "A roofline prediction rests on separate claims: the FLOPs, the bytes" in " ".join(_prose().split())
    # review 26e: the warning precedes the profile_pair cell's output, not after it
    cells = _cells()
    # review 37e clarity: the warning moved to cell 0; review 39e: to section 4, where its numbers are read
    section_4 = " ".join(_prose().split("## 4. Measure")[1].split("## 5.")[0].split())
    assert "the course's fused kernel moved its bytes at 90%" in section_4
    warn = next(i for i, c in enumerate(cells) if "the course's pair stands in" in c.source)
    run = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "capstone.profile_pair(" in c.source)
    assert warn == run - 1



def test_07_does_not_grow_in_review_26e():
    assert sum(len(s.split()) for s in _markdown()) <= 2121


# --- review 27e (d28_07) ------------------------------------------------------------------------

def test_07_the_slips_uncoalesced_global_loads_are_named_and_bounded():
    # review 27e item 1: the swap also made the tiled kernel's global loads ~4x less coalesced
    # (16 sectors a load against 4; 17.2 GB through the L1 against 4.3); the page said banks alone
    from rooflinelib.profiling import capstone, gemm_targets
    cells = _cells()
    opening = " ".join(cells[0].source.split())
    # review 32e: the cause first, and no number the course cannot back for the global loads
    # review 34e: "at most 5%" (the cap is 4.97%); the global loads' looser limit is section 6's alone
    assert "Its shared-memory reads collide, holding it to at most 5% of the fp32 roof (section 6)." in opening
    assert "under 5%" not in opening
    six = " ".join(next(c.source for c in cells if c.source.startswith("## 6.")).split())
    # review 29e: 4x is against the fixed variant's L1 bytes
    # review 32e: the ~50% rests on an assumption (the L1 moves global bytes at the shared rate): no number
    # review 33e: section 6 opens on the question; the looser global-load limit stands by the caps
    caps = " ".join(_md("Each kernel ran under its tightest cap").split())
    # review 36e clarity 7: whose global loads
    assert ("The slipped kernel's global loads (4x the fixed one's L1 bytes) give a looser cap "
            "([why looser](../docs/appendix-07.md#the-l1-cap-which-binds-none-of-the-four)).") in caps
    assert "50%" not in six and "50%" not in opening
    fp32, shared, _ = gemm_targets.recorded_roofs(capstone.recorded_pair()[0])
    rows = gemm_targets.recorded_rows(gemm_targets.recorded_counters())
    slow, fixed = (next(r for n, r in rows.items() if gemm_targets.label(n) == f"tiled, warp {w}")
                   for w in ("down a column", "along a row"))
    assert f"{slow['l1_bytes'] / fixed['l1_bytes']:.0f}" == "4"
    assert f"{slow['sectors_per_request'] / fixed['sectors_per_request']:.0f}" == "4"
    l1 = gemm_targets.l1_cap(slow["l1_bytes"], shared, fp32, clip=False)
    assert f"{l1:.1%}" == "49.5%" and round(l1, 1) == 0.5
    assert l1 > 9 * gemm_targets.shared_cap(slow["shared_passes_per_ffma"], shared, fp32)  # far looser than 5%
    # looser under the appendix's other hypothesis too: one L1 pass per global sector, 2 sectors a FFMA
    per_sector = gemm_targets.shared_cap(slow["sectors_per_request"] / 8, shared, fp32)
    assert f"{per_sector:.1%}" == "12.4%" and per_sector > 2 * gemm_targets.shared_cap(
        slow["shared_passes_per_ffma"], shared, fp32)
    assert "would cap it at 0.98 / 2 / 3.94 = 12.4%, not 49.5%" in _page()
    assert "L1 bytes 49.5%" in _page()


def test_07_a_warp_covers_16_rows_by_2_columns():
    # review 27e T5: with 16 x 16 blocks a warp is 16 rows by 2 columns, not a whole column
    text = " ".join(_prose().split())
    assert "a warp lies" not in text
    assert "so a warp covers 16 rows by 2 columns, *down a column* of C." in text
    assert "so a warp covers 2 rows by 16 columns, *along a row* of C." in text


def test_07_does_not_grow_in_review_27e():
    assert sum(len(s.split()) for s in _markdown()) <= 2119


# --- review 32e (h32_07) ------------------------------------------------------------------------

def test_07_the_161_are_the_counted_opcodes_not_the_whole_kernel():
    # review 32e item 1: sass_mix keeps ten opcode families, so 161 is not the compiled kernel's count,
    # and a static count is not set against the 34.3 executed per FFMA
    import inspect
    import sys
    from rooflinelib.profiling import gemm_targets
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import gemm_counters
    finally:
        sys.path.pop(0)
    kept = re.search(r'in \(("FFMA".*?)\):', inspect.getsource(gemm_counters.sass_mix)).group(1)
    assert [k.strip(' "') for k in kept.split(",")] == gemm_targets.COUNTED_OPCODES.split(", ")
    line = gemm_targets.naive_opcode_text(gemm_targets.recorded_counters())
    assert line.startswith("the naive kernels' SASS (both alike): 161 of the counted opcodes (FFMA, LDS, LDG, STS, "
                           "STG, BAR, IMAD, IADD3, ISETP, BRA): 5 FFMAs")
    assert "instructions in the compiled kernel" not in _printed() and line not in _printed()  # review 34e
    page = _page()
    assert "instructions in the compiled kernel" not in page and "32 per FFMA, near the 34.3 executed" not in page
    assert line in APPENDIX.read_text() and "139 of the 161 counted are integer adds, multiply-adds and compares" in page
    assert "So the compiled kernel holds more than 161 instructions." in page


def test_07_prices_the_exp_by_the_slower_pipe_without_adding():
    # review 32e item 3: the SFU and FMA pipes run at once (pitfall 5: the slower time binds), so
    # "at least 1.0 and 2.5" added what should take the max; the claim left is that both stay left
    from rooflinelib.core import operators
    text = _prose()
    assert "at least 1.0 and 2.5" not in text
    # review 44e: the figures said, as an upper bound (the sum is more than the slower pipe's time)
    assert ("Priced at the SFU's rate ([pitfall 5](06_pitfalls.ipynb#Pitfall-5,-costly-FLOPs)), an `exp` costs 16 "
            "FLOPs, so about 20 FLOPs an element: 1 and 2.5 FLOP per byte, still far left of the ridge.") in " ".join(text.split())
    # review 46e: "at most" is no bound (an exp also needs a few FMAs); "about"
    n = 1 << 20
    for fused in (False, True):
        cost = operators.softmax(n, fused=fused)
        # even the sum of both pipes' work (an upper bound on the slower one) is far left of 14
        assert (cost.n_flops - n + 16 * n) / cost.n_bytes <= 2.5 < 14 / 5


def test_07_labels_the_simulated_conflicts_as_the_loads():
    # review 32e item 4: the simulator's conflict column counts shared loads only
    from rooflinelib.profiling import gemm_targets
    table = gemm_targets.access_table(gemm_targets.access_counts())
    header = table.splitlines()[1]
    # review 51e: per FFMA, the unit of its neighbours (the total, 896, read as one more per-load figure)
    assert header.rstrip().endswith("load conflicts/FFMA") and table in _printed()
    slow = gemm_targets.access_counts()["tiled, threadIdx.x -> row"]["shared_load"]
    assert slow["bank_conflicts"] == 896 and gemm_targets.ffma_instructions(gemm_targets.SIM_N) == 128
    assert table.splitlines()[3].rstrip().endswith(f" {896 / 128:.2f}") and not table.splitlines()[3].rstrip().endswith(" 896")


def test_07_the_fused_kernel_never_rereads_x():
    # review 32e item 5: there is no re-read for the fused kernel to keep within a launch
    text = _prose()
    assert "The fused kernel ensures that" not in text
    # review 44e: the within-launch caveat is the appendix's, and with it that the fused kernel re-reads nothing
    assert "The fused kernel never re-reads x" not in text
    assert "does all three in one kernel, keeping its row in shared memory" in " ".join(text.split())  # review 51
    assert ("The kernels as given re-read nothing from global memory within a launch: the fused kernel keeps its "
            "row on chip") in page_flat_of_appendix()


def test_07_section_6_keeps_results_and_the_appendix_keeps_provenance():
    # review 32e clarity: lab-log asides in section 6 go to the appendix; the hierarchical roof links to 05
    text, code = _prose(), _code()
    assert "hypothesis: C's writes" not in text and "simulated)" not in text
    assert "# the Lab 1 of the run that recorded them" not in code and "# the L1 cap: appendix" not in code
    # review 33e: the appendix's hypothesis in a clause, not "why is open"
    # review 34e: the hypothesis is the appendix's alone
    assert ("under 3n² floats; the shortfall is all in C's writes ([appendix](../docs/appendix-07.md#the-gemms-dram-bytes)).") in " ".join(text.split())
    assert "likely still in the L2" not in text
    assert "### The GEMMs' DRAM bytes" in APPENDIX.read_text()
    assert "Hypothesis: the rest of C was still in the L2 when the kernel ended" in _page()
    assert "hierarchical roof" in _printed()
    assert "[notebook 05's hierarchical roofline](05_hierarchical.ipynb#1.-One-roof-per-memory-level)" in text
    # the appendix's read/write split, from the recorded counters
    from rooflinelib.profiling import gemm_targets
    ncu = gemm_targets.recorded_counters()["ncu"]["core"].values()
    writes = [k["dram__bytes_write.sum"] / 1e6 for k in ncu]
    reads = [k["dram__bytes_read.sum"] / 1e6 for k in ncu]
    assert (f"{min(writes):.1f}", f"{max(writes):.1f}") == ("12.1", "12.7")
    assert (f"{min(reads):.1f}", f"{max(reads):.1f}") == ("33.6", "33.7")


def test_07_does_not_grow_in_review_32e():
    assert sum(len(s.split()) for s in _markdown()) <= 2110


# --- review 33e (h33_07) ------------------------------------------------------------------------

def test_07_section_5_prints_the_dram_bytes_and_ratios_only():
    # review 33e: the L2, L1, FLOP and time figures went unused; "+3.0%" had no stated sign
    from rooflinelib.profiling import capstone, gemm_targets
    printed = gemm_targets.softmax_counters_text(capstone.recorded_pair()[0])
    assert printed in _printed()
    assert "L2 " not in printed and "FLOPs" not in printed and "kernel time" not in printed and "+3.0%" not in printed
    assert printed.splitlines() == [
        "3-pass  ncu: 3 launch(es), DRAM 1,306,195,456 bytes read + written (0.973x the analytic 1,342,177,280)",
        "fused   ncu: 1 launch(es), DRAM 513,661,440 bytes read + written (0.957x the analytic 536,870,912)",
        "DRAM bytes, 3-pass over fused: 2.54 (the model's byte ratio: 2.50); times, 3-pass over fused: 3.02"]
    # what left the notebook is in the appendix, the sign said in words
    page = _page()
    assert "the medians are 3.0% and 0.7% above ncu's times" in page
    assert "fp32 FLOP count: 897,564,672 for each version against the analytic 335,544,320" in page
    whole = capstone.counters_text(capstone.recorded_pair()[0])
    assert "fp32 FLOPs counted 897,564,672 against 335,544,320 analytic" in whole and "(+3.0%;" in whole
    assert "(../docs/appendix-07.md#the-small-dram-shortfall)" in _prose()
    assert "## The small DRAM shortfall" in _page() or "### The small DRAM shortfall" in _page()


def test_07_says_why_the_shares_fall_on_ncus_bytes():
    # review 33e: 74% -> 72% and 90% -> 86% because ncu counts fewer bytes than the model
    from rooflinelib.profiling import capstone
    flat = " ".join(_prose().split())
    # review 34e: its own sentence; review 35e: said as a cause (ncu's byte count), not in brackets
    # review 36e clarity 3: the cause kept, as a parenthesis
    # review 40e: the percentages once, in the readings above (0.973x, 0.957x); the cause kept here
    assert "They sit at 72% and 86% of it, on ncu's bytes." in flat
    assert "are 0.973x and 0.957x the analytic counts" in flat
    pair = capstone.recorded_softmax(capstone.recorded_pair()[0])
    short = [1 - p.measured["dram_over_analytic"] for p in (pair["3-pass"], pair["fused"])]
    assert [f"{x:.1%}" for x in short] == ["2.7%", "4.3%"]


def test_07_says_what_caps_the_conflict_free_tiled_gemm():
    # review 33e: the fixed kernel's 11.6% sits under its own 16.6% cap; register tiling passes it
    flat = " ".join(_prose().split())
    # review 34e item 2: the cap uses the hardware's 1.5 passes per FFMA, not the source's two loads
    assert "two shared loads per FFMA" not in flat
    # review 39e: the figure shows 3.0% under 5.0% and 11.6% under 16.6%; the cell reads it
    assert ("Each kernel ran under its tightest cap: the shared passes for the tiled pair. About these caps: - Even conflict-free, 1.5 shared passes per FFMA cap "
            "this kernel; register tiling (several outputs per thread) is how fast GEMMs pass it.") in flat
    from rooflinelib.profiling import capstone, gemm_targets
    fp32, shared, _ = gemm_targets.recorded_roofs(capstone.recorded_pair()[0])
    rows = gemm_targets.recorded_rows(gemm_targets.recorded_counters())
    along = next(r for n, r in rows.items() if gemm_targets.label(n) == "tiled, warp along a row")
    assert f"{gemm_targets.shared_cap(along['shared_passes_per_ffma'], shared, fp32):.1%}" == "16.6%"


def test_07_does_not_grow_in_review_33e():
    assert sum(len(s.split()) for s in _markdown()) <= 2103


# --- review 34e (i34_07) ------------------------------------------------------------------------

def page_flat_of_appendix() -> str:
    return " ".join(APPENDIX.read_text().split())


def test_07_says_which_lab_1_judges_the_recorded_profiles():
    # review 34e: section 3 prints ridge 14 (the shipped Lab 1, write mix); the figure shows 15.5 (the recorded run's)
    from rooflinelib.profiling import capstone
    flat = " ".join(_prose().split())
    # review 35e: the page names the copy roof and the run in one sentence; the two Lab 1s are the appendix's
    # review 36e clarity 1: the two roof sets and why section 3 uses the write, in one sentence
    # review 39e: the page keeps the copy roof; the two ridges, and why either gives the prediction, are the appendix's
    assert "scored on the nearest measured mix, the copy (read+write 1:1), 4,256 GB/s." in flat
    assert "Section 3's 14 is the write's ridge" not in flat
    assert "The prediction uses only the byte ratio, so either ridge gives it." in page_flat_of_appendix()
    assert ("not the ridge of 14 that section 3 predicts with (the shipped Lab 1's fp32 over its write mix)"
            in page_flat_of_appendix()) and "Both softmaxes sit far left of either ridge" in page_flat_of_appendix()
    from rooflinelib.profiling import gemm_targets
    recorded = capstone.recorded_pair()[0]
    fp32, _, _ = gemm_targets.recorded_roofs(recorded)
    assert f"{fp32:,.0f}" == "65,979" and f"{fp32 / 4256:.1f}" == "15.5"
    printed = _printed()
    assert "4,256 GB/s copy roof" in printed
    assert "65,894.9" in printed and "4,692.6" in printed and f"{65_894.9 / 4_692.6:.0f}" == "14"


def test_07_defines_ffma_and_splits_section_6_by_pair():
    # review 34e: FFMA in the term list before cell 30's output; section 6 split into the tiled and naive pairs
    cells = _cells()
    terms = next(c.source for c in cells if c.source.startswith("Five terms"))
    assert "- **FFMA.** One fused multiply-add in each lane of a warp: one warp-wide instruction." in terms
    flat = " ".join(_prose().split())
    first_output_ffma = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "FFMA" in
                             "".join(o.get("text", "") for o in c.get("outputs", [])))
    assert next(i for i, c in enumerate(cells) if c.source.startswith("Five terms")) < first_output_ffma
    naive = " ".join(next(c.source for c in cells if c.source.startswith("### The naive pair")).split())
    assert "34 instructions per FFMA" in naive and "warp stall reasons" in naive
    tiled = next(c.source for c in cells if c.source.startswith("### The tiled pair"))
    assert "0.98 / 5 / 3.94 = 5.0%" in tiled and "34 instructions" not in tiled


def test_07_prints_no_shared_passes_for_the_naive_kernels():
    # review 34e: "0.00" shared passes read as a measurement; the naive kernels have no shared memory
    rows = [line for line in _printed().splitlines() if line.strip().startswith("naive, warp") and "ms" in line]
    assert len(rows) == 2 and all(" 0.00 " not in r and r.split()[-2] == "-" for r in rows)
