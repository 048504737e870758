"""Notebooks 00 and 01 after review 15a: 00 puts the concept right after its verdicts and the
course logistics after the concept, its breaks say what fails (counting the algorithm's bytes
against the HBM roof, not caches as such) in sentences read once; 01's step 2 is three sections
of one idea each, overlap reaches the bound only at both peaks, and the library's units, pitfall
numbers and a provenance hedge leave the argument.

Review 15e: 00's kitchen opens with a sentence, its learning-path row follows the page, the launch
break says the bound and the launch in two clauses, and packed fp32 leaves the first hour; 01's
step 2 states the maximum and the sum before the warp primer, a scheduler's slot idles when that
scheduler's warps wait, the status bands sit after the verdicts, and the stride item says which
figure is general (the L2's 8x) and which is the H200's (further still against its HBM)."""
import re

from test_lessons_00_02 import ROOT, cells, markdown, says, words


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


def test_00_no_packed_instructions_and_the_launch_sentence_reads_once():
    # review 15a: one reading of the launch; review 15e: the bound, then the launch, in two clauses,
    # and what packed fp32 is (two FMAs per thread in each instruction) is the appendix's; review 25a:
    # the page names the data sheet's packed figure (16x), so that the data sheet does not contradict it
    text = markdown("00_start_here.ipynb")
    # review 32a: the packed / unpacked qualifier leaves the page (the appendix reconciles the data sheet)
    assert "two FMAs" not in text and "unpacked fp32 (16 times its data sheet's packed figure)" not in text
    assert "each instruction does two fp32 FMAs, not one" not in text
    assert "prepared once and replayed" not in text and "costs the GPU itself" not in text
    assert "the shortest possible time to move" not in text
    # review 44a: the GPU's own cost of a launch, not "the cheapest launch" (CUDA graphs come later)
    # review 46a: the bound, the GPU's cost and the host's, one sentence each
    # review 51a: the 0.64 us is a per-kernel cost of back-to-back launches, not one isolated launch's latency
    assert ("HBM moves a 4,096-element add's bytes in 10 ns at best. Launched back to back, kernels cost the GPU "
            "some 60 times that each.") in text


def test_00_the_opening_bullet_gives_its_verdict_before_any_parenthesis():
    opening = words(cells("00_start_here.ipynb")[0].source)
    assert "(several time steps per pass over memory)" not in opening
    assert "(several time steps per pass over memory)" in markdown("01_derivation.ipynb")


def test_00_the_launch_figures_print_on_two_short_lines():
    cell = next(c for c in cells("00_start_here.ipynb") if "break_figures" in c.source)
    lines = printed(cell).splitlines()
    assert lines[0].startswith("1. 4,096-element fp32 add: 49,152 bytes, at least 10.2 ns")
    assert len(lines[0]) <= 90 and "µs" not in lines[0]
    # review 32a: the 0.64 µs says how it was measured (the cheapest launch: a CUDA graph replay)
    assert "launches replayed from a CUDA graph cost the GPU 0.64 µs each" in lines[1] and len(lines[1]) <= 110  # review 51a
    assert lines[2].strip().startswith("(recorded on NVIDIA H200")
    assert all(len(line) <= 110 for line in lines), lines


def test_00_and_01_did_not_grow():
    for name, before in (("00_start_here.ipynb", 1392), ("01_derivation.ipynb", 2388)):
        assert len(markdown(name).split()) <= before, name


# --- notebook 01 ----------------------------------------------------------------------------------

def test_01_step_2_is_three_sections_of_one_idea_each():
    # review 15e: the heading promises the maximum and the sum, so they come first, then why
    # neither bound is a prediction; the warp primer (how a GPU overlaps) now precedes the step
    nb = cells("01_derivation.ipynb")
    step2 = first(nb, lambda c: c.source.startswith("## Step 2"))
    assert "### Primer" not in nb[step2].source
    assert "\\max" in nb[step2].source and "\\frac{F}{P} + \\frac{M}{B}" in nb[step2].source
    # review 32a: the formula is followed by the cell computing it; review 40a: the primer comes
    # before step 2, so the max, the sum and why neither is a prediction read as one argument
    assert nb[step2 + 1].cell_type == "code" and "bounds.overlapped_s" in nb[step2 + 1].source
    primer = step2 - 1
    assert nb[primer].source.startswith("## Primer: warps, schedulers and issue slots")
    floor = step2 + 2
    assert "\\max" not in nb[primer].source
    # review 25a: the heading says what the cell shows, and no longer says the bounds are not
    # predictions (notebook 02 predicts speed-ups from them)
    assert nb[floor].source.startswith("### The max is a floor; the sum is not a ceiling")
    assert "Neither bound is a prediction" not in markdown("01_derivation.ipynb")
    assert "The sum is the cost of one schedule, not an upper bound" in words(nb[floor].source)
    assert "not an upper bound" not in nb[step2].source
    # the serial schedule (blocks on SMs) comes after the primer defines an SM
    assert "SM" not in nb[step2].source and "one block on each SM" in nb[floor].source
    for cell in (nb[step2], nb[primer], nb[floor]):  # short paragraphs
        for paragraph in cell.source.split("\n\n"):
            assert len(paragraph.split()) <= 80, paragraph[:60]


def test_01_overlap_reaches_the_bound_only_at_both_peaks_and_half_only_at_the_ridge():
    says(markdown("01_derivation.ipynb"),
         "Perfect overlap, the slower job at its peak throughout and the other hidden under it, reaches this bound",
         "Perfect overlap, which warp switching makes possible, reaches it with the slower job at its peak",
         "can fall to half its roof, at the ridge, even with no other inefficiency",
         absent=["Perfect overlap reaches this bound", "while being written well for its structure"])


def test_01_nanoseconds_are_step_3s_check_of_units():
    nb = cells("01_derivation.ipynb")
    step1 = next(c.source for c in nb if c.source.startswith("## Step 1"))
    step3 = next(words(c.source) for c in nb if c.source.startswith("## Step 3"))
    assert "nanoseconds" not in step1 and "time_bounds" not in step1
    # review 15e: the nanoseconds are an implementation note, a comment on the time_bounds call
    assert "nanoseconds" not in step3
    code = next(c.source for c in nb if c.cell_type == "code" and "time_bounds(F, M, P, B)" in c.source)
    assert "# with P in GFLOP/s and B in GB/s, F/P and M/B come out in nanoseconds; time_bounds returns seconds" in code


def test_01_no_pitfall_numbers_in_the_bands_and_no_provenance_hedge_in_the_strided_item():
    text = markdown("01_derivation.ipynb")
    assert "which means a count, a unit or the roof is wrong (notebook 06 shows each)" in text
    assert not re.search(r"pitfall \d, memory level", text)
    # review 32a: how the fit is extrapolated past stride 16 stays the appendix's; review 40a: so
    # does the measured range, which was a lab-log aside in the closing list
    assert "up to stride 16" not in text and "(notebook 06, pitfall 6; [appendix]" in words(text)
    assert "extrapolat" not in text
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert "the longest stride the fit explains" in appendix


# --- review 15e -----------------------------------------------------------------------------------

def test_00_review_15e_kitchen_opens_with_a_sentence_and_the_path_row_follows_the_page():
    nb = cells("00_start_here.ipynb")
    kitchen = next(c.source for c in nb if c.source.startswith("## The model in a kitchen"))
    assert "A picture with one unit for each quantity" not in kitchen
    assert "A kitchen has the roofline's three quantities, each in its own unit." in words(kitchen)
    row = next(line for line in "\n".join(c.source for c in nb).splitlines() if line.startswith("| 1 |"))
    assert "the question, the picture, the model as a kitchen, where it breaks, the modes" in row
    # the row's order is the page's order
    order = [first(nb, lambda c, h=h: h in c.source) for h in
             ("**The question", "## The model in a kitchen", "## Where the picture breaks", "## The mode this machine")]
    assert order == sorted(order)


def test_00_review_15e_the_launch_numbers_are_the_recorded_ones():
    from rooflinelib.lessons import analogy
    launch = analogy.break_figures()["launch"]
    assert round(launch["traffic_s"] * 1e9) == 10  # "10 ns at best"
    assert 55 <= launch["device_s"] / launch["traffic_s"] <= 65  # "some 60 times that"
    cell = next(c for c in cells("00_start_here.ipynb") if "break_figures" in c.source)
    # review 25a: the printed label is the library's (notebook 02's table's), and the data sheet's
    # packed figure prints beside it
    assert "ordinary fp32" not in printed(cell)
    # review 32a: the two roofs that tie at the bottom, without the packed qualifier; review 37a:
    # two H200 roofs, so no qualifier at all
    assert "H200, two compute roofs: 1,978.9 TFLOP/s (fp8 tensor, dense) against 66.9 (fp32 vector): 30x" in printed(cell)
    assert "packed" not in printed(cell)


def test_01_review_15e_a_scheduler_idles_when_its_own_warps_wait():
    text = markdown("01_derivation.ipynb")
    assert "When every resident warp is waiting, the slot goes unused." not in text
    assert "When every warp of a scheduler is waiting, that scheduler's slot goes unused." in text


def test_01_review_15e_the_bands_are_a_box_and_review_19d_before_the_verdicts():
    nb = cells("01_derivation.ipynb")
    step5 = first(nb, lambda c: c.source.startswith("## Step 5"))
    verdicts = first(nb, lambda c: c.cell_type == "code" and "({v.status})" in c.source)
    reading = first(nb, lambda c: c.source.startswith("Read the two verdicts"))
    bands = first(nb, lambda c: c.cell_type == "markdown" and "near-roof from 80% of the roof" in words(c.source))
    step6 = first(nb, lambda c: c.source.startswith("## Step 6"))
    assert "band" not in nb[step5].source and "80%" not in nb[step5].source
    # review 19d: the band word is explained before the cell that first prints it
    assert step5 < bands < verdicts < reading < step6
    # ... and printed on the achieved-fraction line, not beside the HBM traffic
    printed = "".join(o.get("text", "") for o in nb[verdicts].outputs)
    assert "of its roof (near-roof), i.e. 2,500 GB/s of HBM traffic" in printed
    assert "of its roof (far-below), i.e. 611 GB/s of HBM traffic" in printed
    assert "HBM traffic (" not in printed
    assert words(nb[bands].source).startswith("**The word in parentheses** after each achieved rate is the course's band")


def test_01_review_15e_the_stride_item_says_which_figure_is_the_h200s():
    text = markdown("01_derivation.ipynb")
    # the L2's 32-byte sectors, hence the 8x, are not an H200 property
    assert "all on the H200" not in text
    assert "Three of them have a size, and the cell puts a number on each; the fourth" in text
    # "further still against HBM" is the H200's (a 64-byte fit, extrapolated at stride 32: appendix)
    assert "and further still against HBM" not in text
    # review 25a: the hypothesis about the 64-byte unit is the appendix's, not a lesson bullet's
    # review 32a: measured up to stride 16, extrapolated past it (the appendix says how; review 40a: only it)
    assert "On the H200 it sits further still against HBM" not in text
    assert ("On the H200, strided reads sit further still against HBM (notebook 06, pitfall 6; "
            "[appendix](../docs/appendix-00-02.md#a-stride-32-read-in-notebook-01)") in words(text)
    assert "appendix-00-02.md#a-stride-32-read-in-notebook-01" in text
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert "## A stride-32 read in notebook 01" in appendix and "extrapolates that fit" in appendix


def test_01_review_15e_the_opening_has_no_datasheet_footnotes_and_try_it_has_one_idea_an_item():
    text = markdown("01_derivation.ipynb")
    opening = words(cells("01_derivation.ipynb")[0].source)
    # review 32a: 66.9 is derived from the published configuration (the datasheet prints 67);
    # review 40a: 989.4 is not derived, it is the dense figure, and the opening says so; review 41a:
    # it is half the datasheet's sparse 1,979
    # review 46a: "sparse" was unexplained there; the appendix says what the datasheet's 1,979 assumes
    assert "fp32 vector units (66.9 TFLOP/s) and its bf16 tensor cores (989.4 TFLOP/s dense)" in opening
    assert "derived from its published configuration" not in opening and "published dense" not in opening
    assert "rounds to 67" not in text and "two zeros in every four" not in text
    step6 = next(c.source for c in cells("01_derivation.ipynb") if c.source.startswith("## Step 6"))
    items = re.findall(r"^\d\. (.+?)(?=^\d\. |\Z)", step6, re.M | re.S)
    assert len(items) == 4
    assert "memory-bound, because that roof's ridge sits far to the right" in words(items[1])
    assert "halve its bytes" not in items[1] and words(items[2]).startswith("Rewriting a real fp32 kernel in bf16")


def test_01_review_19d_overlap_needs_only_the_slower_job_at_its_peak():
    says(markdown("01_derivation.ipynb"),
         "Perfect overlap, the slower job at its peak throughout and the other hidden under it, reaches this bound",
         "Perfect overlap, which warp switching makes possible, reaches it with the slower job at its peak",
         absent=["with both units at their peaks", "Perfect overlap at both peaks"])


def test_01_review_19d_the_64_byte_unit_is_a_hypothesis_about_the_l2_fetch():
    text = markdown("01_derivation.ipynb")
    assert "whose HBM moves larger units" not in text
    # review 25a: the notebook states no cause for the HBM factor, so the hypothesis lives in the appendix
    assert "64-byte" not in text and "hypothesis" not in text.lower()
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert "Hypothesis for the 64-byte unit: it is the L2's fetch from HBM (two 32-byte sectors a miss)" in appendix
    assert "The counter reading that would decide:" in appendix
