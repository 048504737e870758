"""Reviews 37a (notebooks 00 and 01) and 37b (notebook 03): the items left after earlier rounds.

Each test fails on the text before the fix: 00 made its "one chef with one skill" point on the
MI300X with the course's unpacked fp32 roof (half AMD's data-sheet fp32 vector figure), 01 said
"both roofs bind" at the ridge and used "true peaks" before defining them, and 03's summary and
its table's lead-in were hard to parse."""
import nbformat

from test_lessons_00_02 import ROOT, cells, markdown, words


def _section(name, heading):
    """The markdown from ``heading`` to the next heading of the same or a higher level."""
    text = "\n".join(c.source for c in cells(name) if c.cell_type == "markdown")  # line breaks kept
    start = text.index(heading)
    level = heading.split(" ")[0]
    rest = text[start + len(heading):]
    ends = [i for i in (rest.find("\n" + "#" * n + " ") for n in range(1, len(level) + 1)) if i >= 0]
    return words(heading + rest[:min(ends)] if ends else heading + rest)


def _printed(name, marker):
    cell = next(c for c in cells(name) if c.cell_type == "code" and marker in c.source)
    return "".join(o.get("text", "") for o in cell.get("outputs", []))


def _markdown_words(name):
    notebook = nbformat.read(str(ROOT / "notebooks" / name), as_version=4)
    return sum(len(c.source.split()) for c in notebook.cells if c.cell_type == "markdown")


def test_00_makes_the_one_skill_point_on_the_h200_in_prose_and_print():
    from rooflinelib.core.machines import H200
    from rooflinelib.lessons import analogy
    skills = analogy.break_figures()["skills"]
    # the figures are the H200's datasheet rows, dense fp8 tensor over fp32 vector
    assert (skills["machine"], skills["fast"], skills["slow"]) == ("H200", "fp8 tensor", "fp32 vector")
    assert (skills["fast_gflops"], skills["slow_gflops"]) == (H200.ceiling("fp8-tensor").value, H200.ceiling("fp32").value)
    assert round(skills["ratio"]) == 30
    section = _section("00_start_here.ipynb", "## Where the picture breaks")
    # the MI300X's unpacked fp32 roof is the course's, not AMD's data-sheet figure: off the first page
    assert "MI300X" not in section and "unpacked" not in section
    # review 40a: 30x is a ratio of peak rates, not a speed-up a kernel sees
    # review 44a: the ratio is 29.6, so "about 30 times"
    assert ("On the H200, 8-bit floats (fp8) on the tensor cores, its units for matrix products, peak about 30 "
            "times higher than fp32 on its vector units (the FP32 CUDA cores)") in section  # review 46a
    printed = _printed("00_start_here.ipynb", "break_figures")
    assert "(unpacked fp32 and fp64 vector)" not in printed and "MI300X" not in printed
    assert "2. H200, two compute roofs: 1,978.9 TFLOP/s (fp8 tensor, dense) against 66.9 (fp32 vector): 30x" in printed


def test_00_links_an_appendix_section_that_reconciles_dense_fp8_with_the_datasheet():
    section = _section("00_start_here.ipynb", "## Where the picture breaks")
    anchor = "#the-h200s-datasheet-figures-notebooks-00-and-01"
    assert f"appendix-00-02.md{anchor})" in section and "#the-mi300xs-fp32-figures" not in section
    page = (ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8")
    assert "## The H200's datasheet figures (notebooks 00 and 01)" in page
    text = words(page)
    # a reader who checks the datasheet finds 3,958 for fp8: the appendix says why the page prints half
    assert "fp8 on the tensor cores, 1,978.9 TFLOP/s dense (the datasheet's 3,958 again assumes sparsity)" in text
    assert "Notebook 00 quotes the 32× span" not in text


def test_01_at_the_ridge_one_roof_binds_and_overlap_decides_how_near_it_the_kernel_gets():
    step4 = _section("01_derivation.ipynb", "## Step 4: the ridge point")
    assert "both roofs bind" not in step4
    # review 41a: overlap does not choose the roof; review 42a: the band is the gap between the
    # roofs one may take, not a ceiling's run-to-run spread; review 44a: overlap in plain words, the
    # no-overlap loss is largest there (step 2's sum is twice the max at the ridge)
    assert ("**at the ridge**: there, which roof you take (datasheet or measured, read or copy) can "
            "decide the side; it is also where a kernel that never overlaps loads with math loses the "
            "most, about half its roof (step 2).") in step4


def test_01_says_why_datasheet_peaks_give_valid_floors_before_using_them():
    step1 = _section("01_derivation.ipynb", "## Step 1: two floors under the run time")
    assert "true peaks" not in markdown("01_derivation.ipynb")
    # review 44a: a datasheet row is a bound at the clock it assumes (bf16 tensor 1.83 GHz, fp32 1.98)
    assert ("both are hard limits, each peak at the clock it assumes (the H200's low-precision tensor peaks assume 1.83 GHz, "
            "below its 1.98 GHz boost).") in step1  # review 51a: no "valid lower bounds" at any clock


def test_03_ridge_band_says_what_01_says_one_roof_binds_the_other_is_close():
    # review 37a's point on 01's ridge band holds for 03's too: within it min(P, I x B) is still set
    # by one roof, so "both roofs bind" would contradict notebook 01
    band = _section("03_ceilings.ipynb", "## The ridge band, and the ridge of each mix")
    assert "both roofs bind" not in band
    assert "the course calls a kernel *at the ridge*, where both roofs are close." in band


def test_03_summary_names_the_access_mix_a_kernel_is_judged_against():
    opening = words(cells("03_ceilings.ipynb")[0].source)
    assert "its own kind of work" not in opening
    assert ("Lab 1 measures the ceilings on your machine; a kernel is judged against the roof of its own "
            "mix; Lab 2 places a kernel in five steps.") in opening  # review 46b: the mix is defined a sentence before


def test_03_the_table_lead_in_has_a_verb_and_the_lab_log_line_is_gone():
    section = _section("03_ceilings.ipynb", "## Measured against vendor figures")
    assert ("The table below lists the rows this and later notebooks use, each beside the vendor's figure, "
            "with the spread of its repeats: **IQR / median**") in section
    prose = words(markdown("03_ceilings.ipynb"))
    assert "Later notebooks and exercises reuse a live Lab 1's numbers" not in prose


def test_the_three_notebooks_did_not_grow_in_markdown_words():
    # before review 37's fixes: 1,387, 2,378 and 1,406 words
    assert _markdown_words("00_start_here.ipynb") <= 1382
    assert _markdown_words("01_derivation.ipynb") <= 2377
    assert _markdown_words("03_ceilings.ipynb") <= 1399
