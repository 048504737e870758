"""Notebooks 00 and 01 after review 15a: 00 puts the concept right after its verdicts and the
course logistics after the concept, its breaks say what fails (counting the algorithm's bytes
against the HBM roof, not caches as such) in sentences read once; 01's step 2 is three sections
of one idea each, overlap reaches the bound only at both peaks, and the library's units, pitfall
numbers and a provenance hedge leave the argument."""
import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]


def cells(name):
    return nbformat.read(str(ROOT / "notebooks" / name), as_version=4).cells


def words(text):
    return " ".join(text.split())


def markdown(name):
    return words("\n".join(c.source for c in cells(name) if c.cell_type == "markdown"))


def printed(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", []))


def first(nb, test):
    return next(i for i, c in enumerate(nb) if test(c))


# --- notebook 00 ----------------------------------------------------------------------------------

def test_00_the_concept_follows_the_verdicts_and_the_logistics_follow_the_concept():
    nb = cells("00_start_here.ipynb")
    verdicts = first(nb, lambda c: c.cell_type == "code" and "roofline.classify(" in c.source)
    kitchen = first(nb, lambda c: c.source.startswith("## The model in a kitchen"))
    breaks = first(nb, lambda c: "## Where the picture breaks" in c.source)
    path = first(nb, lambda c: c.source.startswith("## The learning path"))
    modes = first(nb, lambda c: "## The mode this machine runs in" in c.source)
    detect = first(nb, lambda c: c.cell_type == "code" and "detect_mode" in c.source)
    assert kitchen == verdicts + 1
    assert verdicts < kitchen < breaks < path <= modes < detect
    # the page still ends by sending the reader to notebook 01
    last = [c for c in nb if c.cell_type == "markdown"][-1].source
    assert "**Next: [01 derivation](01_derivation.ipynb)**" in last


def test_00_the_third_break_is_the_byte_count_not_the_caches():
    text = markdown("00_start_here.ipynb")
    assert "It assumes no pantry" not in text
    assert "**It counts every crate as coming off the van.**" in text
    assert "Count the bytes that cross HBM, and the HBM roof holds." in text
    assert "crosses that cache 5 times and HBM once" in text


def test_00_the_packed_figure_is_two_fmas_per_thread_and_the_launch_sentence_reads_once():
    text = markdown("00_start_here.ipynb")
    assert "two FMAs per thread in each instruction" in text
    assert "each instruction does two fp32 FMAs, not one" not in text
    assert "prepared once and replayed" not in text and "costs the GPU itself" not in text
    assert ("Even the cheapest launch costs the GPU some 60 times the shortest possible time to move a "
            "4,096-element add's bytes.") in text


def test_00_the_opening_bullet_gives_its_verdict_before_any_parenthesis():
    opening = words(cells("00_start_here.ipynb")[0].source)
    assert "(several time steps per pass over memory)" not in opening
    assert "(several time steps per pass over memory)" in markdown("01_derivation.ipynb")


def test_00_the_launch_figures_print_on_two_short_lines():
    cell = next(c for c in cells("00_start_here.ipynb") if "break_figures" in c.source)
    lines = printed(cell).splitlines()
    assert lines[0].startswith("1. 4,096-element fp32 add: 49,152 bytes, at least 10.2 ns")
    assert len(lines[0]) <= 90 and "µs" not in lines[0]
    assert "one launch costs the GPU 0.64 µs" in lines[1] and len(lines[1]) <= 110
    assert all(len(line) <= 110 for line in lines), lines


def test_00_and_01_did_not_grow():
    for name, before in (("00_start_here.ipynb", 1410), ("01_derivation.ipynb", 2490)):
        assert len(markdown(name).split()) <= before, name


# --- notebook 01 ----------------------------------------------------------------------------------

def test_01_step_2_is_three_sections_of_one_idea_each():
    nb = cells("01_derivation.ipynb")
    step2 = first(nb, lambda c: c.source.startswith("## Step 2"))
    assert "### Primer: warps, schedulers and issue slots" in nb[step2].source
    assert "\\max" not in nb[step2].source and "\\frac{F}{P} + \\frac{M}{B}" not in nb[step2].source
    assert nb[step2 + 1].source.startswith("### Overlap: the maximum and the sum")
    assert nb[step2 + 2].source.startswith("### Neither bound is a prediction")
    assert "The sum is the cost of one schedule, not an upper bound" in words(nb[step2 + 2].source)
    assert "not an upper bound" not in nb[step2 + 1].source
    for cell in nb[step2:step2 + 3]:  # short paragraphs
        for paragraph in cell.source.split("\n\n"):
            assert len(paragraph.split()) <= 80, paragraph[:60]


def test_01_overlap_reaches_the_bound_only_at_both_peaks_and_half_only_at_the_ridge():
    text = markdown("01_derivation.ipynb")
    assert "Perfect overlap reaches this bound" not in text
    assert "Perfect overlap, with both units at their peaks, reaches this bound" in text
    assert "Perfect overlap at both peaks, which warp switching makes possible, reaches it" in text
    assert "while being written well for its structure" not in text
    assert "can fall to half its roof, at the ridge, even with no other inefficiency" in text


def test_01_nanoseconds_are_step_3s_check_of_units():
    nb = cells("01_derivation.ipynb")
    step1 = next(c.source for c in nb if c.source.startswith("## Step 1"))
    step3 = next(words(c.source) for c in nb if c.source.startswith("## Step 3"))
    assert "nanoseconds" not in step1 and "time_bounds" not in step1
    assert "F/P and M/B come out in nanoseconds, which `time_bounds` converts to seconds" in step3


def test_01_no_pitfall_numbers_in_the_bands_and_no_provenance_hedge_in_the_strided_item():
    text = markdown("01_derivation.ipynb")
    assert "which means a count, a unit or the roof is wrong (notebook 06 shows each)" in text
    assert not re.search(r"pitfall \d, memory level", text)
    assert "up to stride 16" not in text and "extrapolation" not in text
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert "the longest stride the fit explains" in appendix
