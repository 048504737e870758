"""Notebook 07, fix round 45: review 44e's minor errors and clarity points.

Each test fails on the notebook as it was before this round and passes now; the numbers the new
sentences quote are recomputed here from the recorded data."""
from __future__ import annotations

import json

from test_lessons_07 import ROOT, _cells, _page, _prose  # noqa: F401  (one home)

#: Markdown words before this round: the page may not grow.
WORDS_BEFORE = 2085


def _flat(text: str) -> str:
    return " ".join(text.split())


def _md(start: str) -> str:
    return _flat(next(c.source for c in _cells() if c.cell_type == "markdown" and c.source.startswith(start)))


def _ceilings(path) -> dict:
    return {c["name"]: c["value"] for c in json.loads(path.read_text())["ceilings"]}


def _shipped() -> dict:
    return _ceilings(ROOT / "rooflinelib" / "data" / "h200_ceilings_numba.json")


def _run17() -> dict:
    return _ceilings(ROOT / "docs" / "measurements" / "h200_run17" / "lab1.json")


def test_the_markdown_does_not_grow():
    assert sum(len(c.source.split()) for c in _cells() if c.cell_type == "markdown") <= WORDS_BEFORE


def test_the_copy_roof_is_the_nearest_measured_mix_and_generous_to_the_three_passes():
    # error 1: "scored on the copy roof" read as a rule; only the fused kernel reads and writes 1:1
    roof = _md("A kernel that reads and writes")
    assert "scored on the copy roof" not in roof
    assert roof.startswith("A kernel that reads and writes is scored on the nearest measured mix, the copy "
                           "(read+write 1:1), 4,256 GB/s.")
    assert ("The 3-pass version, 3:2 with a read-only first pass, would stream a little faster, so its 74% is if "
            "anything generous") in roof
    # 3 reads (x twice, e once) for 2 writes (e, y); its pass 1 only reads, and reads streamed faster than copies
    run = _run17()
    assert run["dram-read"] > run["dram-copy"] and f"{run['dram-copy']:,.0f}" == "4,256"
    assert f"{1_342_177_280 / 425.0e-6 / 1e9 / run['dram-copy']:.0%}" == "74%"


def test_the_flush_is_the_counter_runs_and_the_eviction_caveat_the_appendixs():
    # error 2: "Nsight Compute's cache flush enforces the rule" did not say the timed runs are not flushed
    rule = _md("## 2. Count the bytes")
    assert "Nsight Compute's cache flush enforces the rule" not in rule
    assert ("Nsight Compute's counter run flushes the caches before each kernel, so it enforces the rule there "
            "rather than testing it; the timed runs do not.") in rule
    # clarity: the core argument stays (4x the L2, each launch from row 0); the hedges moved
    assert "the matrix, 4x the L2" in rule and "starts again at row 0" in rule
    from rooflinelib.profiling import softmax_targets
    assert round(4 * softmax_targets.ROWS * softmax_targets.COLS / (60 * 2 ** 20)) == 4  # 256 MiB, 60 MiB L2
    assert "re-read" not in rule  # review 46e: "assumed: Hopper's policy is undocumented" is back, in a few words
    page = _flat(_page())
    assert "## What section 2's rule assumes" in _page()
    assert "Hopper's eviction policy is undocumented" in page and "The timed runs are not flushed" in page
    assert "A re-read within one launch is counted once, as if cached" in page
    # the flush is said once on the page: section 5 no longer repeats it
    assert "flushed the caches" not in _md("Three readings") and "cache flush" not in _md("The prediction is two")


def test_the_five_percent_cap_is_the_passes_not_the_collisions_alone():
    # error 3: the 5% comes from all 5 passes per multiply-add, the conflict-free ones included
    six = _md("## 6. Far below")
    assert "The collisions alone" not in six
    assert "Its 5 passes alone hold it to at most 5% of the fp32 roof; it reached 3%." in six
    assert f"{0.98 / 5 / 3.94:.1%}" == "5.0%"
    # FFMA is defined in the next cell; the answer still says multiply-add
    assert "FFMA" not in six


def test_section_3_says_which_lab_1_judges_the_recorded_profiles_and_how_close_it_is():
    # error 4 / clarity: three Lab 1 runs met on the page with one line on them, in section 4
    shipped, run = _shipped(), _run17()
    apart = max(abs(run[k] / shipped[k] - 1) for k in ("fp32", "dram", "dram-copy", "shared"))
    assert f"{apart:.1%}" == "0.6%"  # the copy mix is the farthest apart; the fp32 roof 0.1%
    three = _md("## 3. Predict")
    # review 46e: which roofs are close is the appendix's; the page keeps the figure
    # review 51: the copy roof is defined here, where the page first uses it
    # review 51e: which roofs each section uses; the 0.6% holds for those four, not for every roof
    assert (f"Sections 4-5 grade the recorded profiles on their run's **copy roof**, a copy's DRAM rate (ridge "
            f"{run['fp32'] / run['dram-copy']:.1f}); section 6 uses that run's fp32 and shared-memory roofs. "
            f"Each is within {apart:.1%} of the shipped Lab 1's.") in three
    assert f"{shipped['fp32'] / shipped['dram']:.0f}" == "14"  # the ridge section 3 prints: the write roof's
    # section 4 no longer carries the two ridges
    assert "ridge" not in _md("A kernel that reads and writes")


def test_section_4_names_the_courses_kernels_and_says_plainly_what_is_open():
    # clarity: "Its loops ... its fused kernel" had no clear referent; "not established" read as a lab note
    read = _md("The prediction is two claims")
    assert "Its loops" not in read and "not established" not in read
    assert ("The course's kernels are not yours: they loop a fixed count, which lets the compiler keep their fused "
            "kernel's row in registers (yours, shared memory), so their rates need not be yours.") in read
    from rooflinelib.profiling import capstone
    pair = capstone.recorded_softmax(capstone.recorded_pair()[0])
    gap = capstone.gap_breakdown(pair["3-pass"], pair["fused"])
    outside, lost = gap["outside_kernels_s"] * 1e6, gap["shortfall_s"] * 1e6
    assert (f"Why the three passes ran at 74% is open; about {outside:.0f} of the {lost:.0f} µs fall outside "
            f"the kernels") in read  # review 46e
    assert "outside its kernels (launches, gaps) about 12 us" in _page()


def test_the_exps_sfu_price_is_said_with_its_figures():
    # clarity: "(16 FLOPs, pitfall 5)" left the arithmetic to the reader
    text = _md("Both versions do 5 FLOPs per element")
    assert "(16 FLOPs," not in text
    assert ("an `exp` costs 16 FLOPs, so about 20 FLOPs an element: 1 and 2.5 FLOP per byte, still far left of "
            "the ridge.") in text  # review 46e: "about", not "at most"
    from rooflinelib.core import machines
    price = 2 * 128 / machines.NVIDIA_SFU_PER_SM  # 256 FMA-pipe FLOPs per clock over 16 exps
    flops = 4 + price  # max, subtract, sum, multiply at 1 each; the exp at the SFU's price
    assert price == 16 and flops == 20
    assert flops / 20 == 1 and flops / 8 == 2.5 and flops / 8 < 14  # 3-pass 20 B, fused 8 B an element; ridge 14


def test_the_compiler_merge_is_said_from_the_recorded_machine_code():
    # clarity: "merged some shared loads" gave no hint of how
    from rooflinelib.profiling import gemm_targets
    text = _md("The hardware's sectors per request")
    assert "merged some shared loads" not in text
    assert "the compiler merged `sa`'s loads four into one 16-byte load; `sb`'s 16 stay 4-byte." in text  # review 46e
    for name in ("tiled, threadIdx.x -> row", "tiled, threadIdx.x -> column"):
        sass = gemm_targets.recorded_counters()["variants"][name]["sass"]
        assert sass["FFMA"] == 16 and sass["LDS"] + sass["LDS.128"] == 20  # per 16 FFMAs of the unrolled loop
        assert sass["LDS"] + 4 * sass["LDS.128"] == 32  # the source's two loads per FFMA
    assert "LDS.128" not in _prose()  # the opcode names stay the appendix's


def test_the_slip_names_tx_without_the_cuda_grid_aside():
    # clarity: "tx is threadIdx.x" does in the tiled context
    slip = _md("The slow variants have a deliberate slip")
    assert "`threadIdx.x` (`tx`) on the row index" in slip and "cuda.grid" not in slip
