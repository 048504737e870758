"""Notebook 06, fix round 45: the trivial slips and clarity points of a fresh expert read.

Each test fails on the notebook as it was before this round and passes now."""
from __future__ import annotations

from rooflinelib.store.results import recorded
from test_lessons_05 import ROOT, _cells, _markdown, _printed  # one home
from test_notebooks import markdown_words

#: The markdown words before this round; the round must not grow them.
WORDS_BEFORE = 2122


def _flat(text: str) -> str:
    return " ".join(text.split())


def _text() -> str:
    return _flat(" ".join(_markdown("06")))


def _page() -> str:
    return _flat((ROOT / "docs" / "appendix-06-pitfalls.md").read_text())


def _section(start: str, end: str) -> str:
    return _text().split(start)[1].split(end)[0]


def test_the_round_did_not_grow_the_markdown():
    import nbformat
    nb = nbformat.read(ROOT / "notebooks" / "06_pitfalls.ipynb", as_version=4)
    assert markdown_words(nb) <= WORDS_BEFORE


def test_a_ten_launch_burst_sees_a_little_of_the_loss_not_none():
    # item 1: the hot card's ten-launch burst ran 2% under the cool card's; "never sees it" was wrong
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.lessons import pitfalls
    held = pitfalls.sustained_summary(recorded_experiments()["sustained"])
    assert f"{1 - held['hot_tflops'] / held['cool_tflops']:.0%}" == "2%"
    section = _section("## Pitfall 8", "## Pitfall 9")
    assert "never sees it" not in section
    assert "after the hold, hot card: 781 TFLOP/s (2% lower)" in _printed("06")  # now printed by the cell


def test_pitfall_5_names_the_four_schedulers_and_the_issue_bound():
    # items 2, 3 and clarity 6: an SM has four schedulers sharing 16 MUFU results a clock (4 each,
    # not "4 MUFU lanes"); the remedy lists the issue bound the cause explains, beside the two roofs
    from rooflinelib.lessons import pitfalls_lesson
    price = pitfalls_lesson.mufu_price()
    per_scheduler = price["mufu_per_clock"] // 4
    assert per_scheduler == 4 and 32 // per_scheduler == price["fmas_per_exp"] == 8
    section = _section("## Pitfall 5", "## Pitfall 6")
    assert "MUFU lanes" not in section
    assert (f"An SM has four schedulers. Each issues one warp-instruction a clock (one **issue slot**) and gets "
            f"{per_scheduler} of the SM's {price['mufu_per_clock']} MUFU results a clock") in section
    remedy = section.split("**Remedy.**")[1]
    assert "the slower of the two times" not in remedy
    assert ("The slowest time bounds the kernel: bytes at the memory roof, FLOPs at the FMA roof, exps at "
            "the MUFU roof, instructions at one slot each.") in remedy  # round 47 added the memory time


def test_the_hit_rate_is_a_separate_ncu_run_and_the_kernel_meets_its_read_roof():
    # item 4: the 99.7% is a separate Nsight Compute run's, not the timed run's ("its" overstated it);
    # clarity 4: the read-only kernel is compared with Lab 1's read roof directly
    from rooflinelib.lessons import pitfalls
    from rooflinelib.store.results import dram_mixes
    facts = pitfalls.recorded_cache_facts()
    read = dram_mixes(recorded("ceilings"))["read"]
    section = _section("## Pitfall 3", "## Pitfall 4")
    assert "Under Nsight Compute" not in section and "1.05x" not in section and "times the copy" not in section
    assert "In a separate Nsight Compute run at this footprint, DRAM served 0.3%" in section
    assert f"moved {facts['l2_gbps'] / 1e3:.2f} TB/s: {facts['l2_gbps'] / read:.1f} times Lab 1's read roof" in section
    printed = _printed("06")
    assert "under Nsight Compute, 99.7% of its requested bytes" not in printed
    assert (f"separate Nsight Compute run, same kernel and footprint: {facts['hit_rate']:.1%} of its requested "
            "bytes did not come from DRAM") in printed
    assert f"Lab 1's read roof: {read:,.0f} GB/s, so the kernel ran {facts['l2_gbps'] / read:.1f}x it" in printed
    assert "The notebook's 99.7% is Nsight Compute's reading of the same L2 kernel" in _page()


def test_the_two_fft_counts_are_said_to_stand_on_different_bases():
    # item 5: the whole-signal 345 counts three transforms and no products; overlap-save's counts two
    # transforms and the products. On overlap-save's basis the whole-signal route needs about 236.
    from math import log2
    n, length = 2 ** 22, 2 ** 23
    like_basis = (2 * 2.5 * length * log2(length) + 6 * (length / 2 + 1)) / n
    assert round(like_basis) == 236
    assert "the whole-signal route needs about 236 FLOPs per output" in _page()
    section = _section("## Pitfall 7", "## Pitfall 8")
    assert "Counted overlap-save's way, the whole-signal route needs 236 FLOPs per output." in section
    assert "two transforms and the products each" in _printed("06")  # how overlap-save counts, on the page


def test_the_opening_defines_the_tables_terms_before_the_table():
    # clarity 1: cell 3's table says dram-copy, dram-read and K=64, and cell 8's "spread", before any definition
    opening = _flat("".join(_cells("06")[0]["source"]))
    printed_first = "".join("".join(o.get("text", "")) for o in _cells("06")[3].get("outputs", []))
    assert "dram-copy" in printed_first and "K=64" in printed_first
    assert "(`dram-copy`, `dram-read`, and `dram` for writes, the fastest; the chart's three HBM lines, within 10%)" in opening
    assert "Each point is scored on its own mix's roof." in opening
    assert "**K**: a kernel's FMAs per float." in opening
    assert "A run's **spread**: (max − min) / median of its repeats." in opening


def test_the_starved_grid_is_one_product_of_like_factors():
    # clarity 3: "174x = 66x x 2.6x", not four ratios carried in the head
    from rooflinelib.experiments.record import recorded_experiments
    starved, full = recorded_experiments()["starved"].variants
    slower = full.gflops / starved.gflops
    assert round(slower) == 174 and f"{slower / (132 / 2):.1f}" == "2.6"
    text = _text()
    assert "is 174x (starved) times 2.8x (full grid)" not in text and "separate question" not in text
    assert "174x = 66x (130 of 132 SMs idle) × 2.6x (hypothesis: 8 warps per SM cannot hide latency)." in text


def test_the_bursts_clock_is_said_plainly():
    # clarity 8: "the burst's 1,980 MHz was read before its load" was a lab note
    section = _section("## Pitfall 8", "## Pitfall 9")
    assert "1,980 MHz was read before its load" not in section
    assert "NVML sampled no clock during the burst: compare rates, not clocks." in section  # round 47


def test_the_packed_fp32_note_is_the_appendixs():
    # clarity 5: the MI300X packed remark leaves pitfall 4's opening; the printed list still shows both rows
    section = _section("## Pitfall 4", "## Pitfall 5")
    assert "counts *packed* instructions" not in section
    assert ("The MI300X's data sheet FP32 vector figure, 163.4 TFLOP/s, counts *packed* instructions (two fp32 "
            "FMAs per lane); unpacked code gets at most 81.7.") in _page()
    printed = _printed("06")
    assert "fp32 vector, unpacked" in printed and "fp32 vector, packed (data sheet)" in printed
