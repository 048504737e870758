"""Review 51d, notebook 06: imprecisions and clarity items. An exp's issue slots were said to be one
(the MUFU instruction's alone); the timed exp2 was the fast-math one and not labelled so; the remedy
for an already-overlapped step was to overlap; the 60 MiB L2 read as usable capacity; the cache point's
fraction was taken on the write roof while the prose used the read roof; the step's HBM term used the
write roof for mostly-read traffic; Numba's launch path was 'checking and packing the arguments'; the
header dated every table to one day though the hit rate came from the next day's Nsight Compute run.
Clarity: `dram` as the write mix, pitfall 8's lead-in and its 2%, 236's unit, stride 16's bases, the
widget's two intensities. Each test fails on the text or code before the fix; the markdown did not grow."""
from __future__ import annotations

import re

import nbformat

from test_lessons_05 import ROOT, _cells, _printed  # one home
from test_notebooks import markdown_words
from test_lessons_review47_06 import _flat, _section, _text  # one home for 06's flattened text


def test_51d_06_did_not_grow():
    nb = nbformat.read(ROOT / "notebooks" / "06_pitfalls.ipynb", as_version=4)
    assert markdown_words(nb) <= 2121  # before this round


def test_51d_06_an_exp_costs_the_mufu_slot_and_its_helpers():
    section = _section("## Pitfall 5", "## Pitfall 6")
    assert "an exp costs 1 issue slot like any other instruction" not in section
    assert ("Below that ratio, the MUFU instruction costs one issue slot like any other; a full-precision "
            "`exp` adds its FFMAs' and FMULs' slots.") in section


def test_51d_06_the_timed_exp2_is_named_fast_math_one_mufu_per_result():
    from rooflinelib.lessons import pitfalls_lesson
    from rooflinelib.measure import kernels_numba
    # what ran: fast math, one ex2.approx per exp2 (8 chains x 8 unrolled steps in the loop body)
    kernel = kernels_numba.sfu_kernel()
    assert kernel.options.get("fastmath") is True
    ptx = kernel.ptx()
    assert len(re.findall(r"\bex2\.approx\.ftz\.f32\b", ptx)) == 8 * 8
    assert pitfalls_lesson.EXP2_ROW == "exp2, fast math (one MUFU.EX2)"
    assert "\nexp2, fast math (one MUFU.EX2)      2.14 ms  4,140 G results/s" in _printed("06")
    assert "exp2 (SFU)" not in _printed("06")
    # a live run labels its row the same way
    assert 'Variant("exp2, fast math (one MUFU.EX2)"' in (ROOT / "rooflinelib" / "experiments" / "gpu.py").read_text()


def test_51d_06_an_overlapped_step_is_not_told_to_overlap():
    section = _section("## Pitfall 9", "## The triage tool")
    assert "the copy overlapped with the computation" in section  # the step as set up
    assert "Overlap communication with computation; raise FLOPs per byte sent." not in section
    assert ("**Remedy.** The copy already overlaps; send fewer bytes per FLOP: keep data in HBM, decode "
            "compressed inputs on the GPU, or use more parameters per input byte.") in section
    printed = _printed("06")
    assert "overlap communication with compute before tuning any kernel" not in printed
    assert "Overlap communication with compute; if the link still binds, send fewer bytes per FLOP." in printed


def test_51d_06_the_l2_is_not_all_usable_capacity():
    from rooflinelib.hierarchy.level_readings import l2_footprint_rows, recorded_l2_by_footprint
    record = recorded_l2_by_footprint()
    row = next(r for r in l2_footprint_rows(record) if r["ws_bytes"] == 38 * 2 ** 20)
    assert row["ws_bytes"] < record["reported_l2_bytes"] == 60 * 2 ** 20
    section = _section("## Pitfall 3", "## Pitfall 4")
    assert "The set fits the 60 MiB L2." not in section
    assert (f"A 38 MiB set, under the L2's 60 MiB, already drew {1 - row['not_from_dram']:.1%} from DRAM."
            in section)


def test_51d_06_the_cache_point_has_one_roof_the_read_mix():
    from rooflinelib.lessons import pitfalls
    from rooflinelib.store.results import dram_mixes, recorded
    facts = pitfalls.recorded_cache_facts()
    read = dram_mixes(recorded("ceilings"))["read"]
    assert facts["dram_gbps"] == read and round(facts["fraction_of_dram"], 2) == 2.10
    assert f"moved {facts['l2_gbps'] / 1e3:.2f} TB/s: {facts['fraction_of_dram']:.1f} times Lab 1's read roof" in _text()
    page = _flat((ROOT / "docs" / "appendix-06-pitfalls.md").read_text())
    assert "0.3% of 202%" not in page
    assert f"here they are {1 - facts['hit_rate']:.1%} of {facts['fraction_of_dram']:.0%}" in page


def test_51d_06_the_steps_hbm_term_is_on_its_own_mix():
    from rooflinelib.core.interconnect import WEIGHT_PASSES
    from rooflinelib.lessons import pitfalls, step_roofs
    from rooflinelib.store.results import dram_mixes, recorded
    # weights read twice and gradients written once (WEIGHT_PASSES), the batch read: under 90% one way
    assert WEIGHT_PASSES == 3
    params, element, batch = 10 ** 6, 2, 4096 * 768
    reads, writes = 2 * params * element + batch, params * element
    assert pitfalls.own_dram_mix(reads, writes) == "copy" and round(reads / (reads + writes), 2) == 0.78
    roofs = step_roofs.recorded_step_roofs()
    assert roofs.hbm_name == "dram-copy" and roofs.hbm_gbps == dram_mixes(recorded("ceilings"))["copy"]
    printed = _printed("06")
    assert "HBM (dram)" not in printed and "\nHBM, copy mix (dram-copy)                               4,280" in printed
    assert f"HBM {(reads + writes) / roofs.hbm_gbps / 1e3:.2f} us" in printed
    page = _flat((ROOT / "docs" / "appendix-06-pitfalls.md").read_text())
    assert "(78% reads at the notebook's step), so the HBM term is timed at Lab 1's copy roof (`dram-copy`, 4,280 GB/s)" in page


def test_51d_06_numbas_launch_path_is_the_whole_path():
    section = _section("## Pitfall 1", "### A starved grid")
    assert "checking and packing the arguments" not in section
    assert "(Numba's whole launch path, 48.6 µs)" in section


def test_51d_06_the_header_dates_the_nsight_compute_run_too():
    from rooflinelib.lessons import pitfalls
    when = pitfalls.recorded_cache_facts()["hit_rate_when"][:10]
    first = next(c for c in _cells("06") if c["cell_type"] == "code")
    header = "".join("".join(o.get("text", "")) for o in first["outputs"])
    assert when == "2026-12-02" and f"(NVIDIA H200, 2026-12-01 and {when})" in header


def test_51d_06_clarity_items():
    text = _text()
    # dram is the write mix, said once where the mixes are named
    assert "(`dram-copy`, `dram-read`, and `dram` for writes, the fastest;" in text
    # pitfall 8: a lead-in before the two outputs; the 13% after them; the hot card's 2% printed
    section = _section("## Pitfall 8", "## Pitfall 9")
    assert "The fp32 roof at three clocks, then one ceiling measured in repeated bursts:" in section
    assert section.index("Held, the GEMM lost 13% within a second") > section.index("The recorded run held")
    assert "larger bf16 GEMM" not in section
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.lessons import pitfalls
    held = pitfalls.sustained_summary(recorded_experiments()["sustained"])
    assert (f"after the hold, hot card: {held['hot_tflops']:.0f} TFLOP/s "
            f"({1 - held['hot_tflops'] / held['cool_tflops']:.0%} lower)") in _printed("06")
    # 236 has its unit
    assert "the whole-signal route needs 236 FLOPs per output." in text
    # stride 16: the share of the roof and the share of stride 1 tied by stride 1's own share
    one = pitfalls.recorded_stride_one_share()
    assert f"(stride 1 ran at {one:.0%} of it)" in _printed("06") and round(one, 2) == 0.91
    strided = recorded_experiments()["strided"].variants
    stride16 = next(r for r in pitfalls.roof_shares(pitfalls.recorded_points(), pitfalls.recorded_mix_roofs()[0])
                    if r["name"] == "pitfall 6: stride-16 reads")
    assert abs(stride16["fraction"] / one - strided[4].gbps / strided[0].gbps) < 1e-9


def test_51d_06_the_widgets_points_say_which_roofs_read_them():
    from rooflinelib.views import widgets
    assert "HBM intensity" in widgets.DEVICE_POINT and "HBM and compute roofs" in widgets.DEVICE_POINT
    assert "per byte sent" in widgets.STEP_POINT and "link roof" in widgets.STEP_POINT
