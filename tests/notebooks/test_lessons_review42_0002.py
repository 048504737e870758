"""Review 41a on notebooks 01 and 02: four wording errors (the ridge band's reason, the dense bf16
figure, the GEMM row's perfect reuse, what a cache saves) and two undefined terms (GEMM, warp
group). Each test fails on the text before this round."""

from pathlib import Path

from rooflinelib.core import model
from rooflinelib.core.machines import H200
from rooflinelib.views import tables
from rooflinelib.views.widget_state import explorer_state
from test_lessons_00_02 import cells, markdown, words

NB01, NB02 = "01_derivation.ipynb", "02_operator_intensities.ipynb"


def _markdown_cells(name):
    return [c.source for c in cells(name) if c.cell_type == "markdown"]


def _word_count(name):
    return sum(len(s.split()) for s in _markdown_cells(name))


# --- notebook 01 ----------------------------------------------------------------------------------

def test_01_ridge_band_gives_the_measurement_reason_and_overlap_sets_how_near_the_roof():
    # overlap does not choose which roof binds; it decides how near the roof the kernel gets
    step4 = words(next(s for s in _markdown_cells(NB01) if s.startswith("## Step 4: the ridge point")))
    assert "which one it feels" not in step4
    # review 42a: the band's reason is not a ceiling's run-to-run spread (under 1% for most H200
    # ceilings) but the gap between the roofs one may take (datasheet or measured, read or copy)
    # review 44a: overlap said in plain words: the no-overlap loss is largest at the ridge
    assert ("**at the ridge**: there, which roof you take (datasheet or measured, read or copy) can "
            "decide the side; it is also where a kernel that never overlaps loads with math loses the "
            "most, about half its roof (step 2).") in step4
    assert "run-to-run spread" not in step4
    # the reason is the library's own, and the band is the library's 10%
    assert model.RIDGE_TOLERANCE == 0.10
    assert "so closer than that the roof taken decides the side" in " ".join(
        Path(model.__file__).read_text(encoding="utf-8").replace("#:", "").split())
    # the explorer's verdict at the ridge says the same thing about overlap
    at_ridge = explorer_state("H200", "fp32", explorer_state("H200", "fp32", 1).ridge).verdict_text()
    assert "how well loads and math overlap decides how near the roof" in at_ridge


def test_01_opening_says_989_is_half_the_datasheets_sparse_figure():
    opening = words(cells(NB01)[0].source)
    assert "the datasheet's dense figure" not in opening
    assert "(989.4 TFLOP/s dense)" in opening  # review 46a: the appendix says the 1,979 is sparse
    assert f"{round(2 * H200.ceiling('bf16-tensor').value / 1e3):,}" == "1,979"


def test_01_spells_out_gemm_where_it_first_uses_it():
    text = markdown(NB01)
    first = text.index("GEMM")
    assert text[first:].startswith("GEMM (general matrix multiply)")
    assert text.count("general matrix multiply") == 1


def test_01_markdown_did_not_grow():
    assert _word_count(NB01) <= 2375  # before review 41a's round


# --- notebook 02 ----------------------------------------------------------------------------------

def test_02_gemm_row_says_perfect_reuse_before_its_1365_first_prints():
    nb = cells(NB02)
    table = next(i for i, c in enumerate(nb) if "operator_rows()" in c.source)
    lead_in = words(nb[table - 1].source)
    assert "The `GEMM` row assumes perfect reuse: each matrix crosses HBM once." in lead_in
    # the row's bytes are A, B and C once each: 3 N^2 fp32 values at N = 8192
    gemm = next(r for r in tables.operator_rows() if r["operator"] == "GEMM")
    assert gemm["n_bytes"] == 3 * 8192 ** 2 * 4 and round(gemm["intensity"]) == 1365
    printed = "".join(o.get("text", "") for o in nb[table].outputs)
    assert "1365" in printed
    # the tiles section, which says the sizes assume perfect reuse, comes later
    tiles = next(i for i, c in enumerate(nb) if c.source.startswith("## Tiles: where GEMM's reuse comes from"))
    assert table < tiles


def test_02_intensity_grows_with_size_only_under_perfect_reuse():
    text = markdown(NB02)
    assert "as long as they keep their reuse on chip" not in text
    assert ("**GEMM and fused attention** have an intensity that grows with the problem size under perfect "
            "reuse.") in text


def test_02_a_cache_saves_the_re_reads_not_the_first_read():
    primer = words(next(s for s in _markdown_cells(NB02) if s.startswith("## Primer: how bytes")))
    assert "never crosses HBM" not in primer
    assert "A re-read a cache serves does not cross HBM again." in primer


def test_02_says_what_a_warp_group_is_where_it_uses_one():
    # the lesson used "warp group" undefined (only the appendix defined it): now it says four warps
    text = words(markdown(NB02))
    assert "one warp group's softmax" not in text and text.count("warp group") == 1
    assert ("On Hopper, FlashAttention-3 (Shah et al. 2024) overlaps one four-warp group's softmax with "
            "another's GEMMs in one block.") in text


def test_02_markdown_did_not_grow():
    assert _word_count(NB02) <= 2195  # before review 41a's round
