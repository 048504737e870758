"""Review 40a on notebooks 00, 01 and 02: 02's asides and appendix pointers interrupted the reading
(clarity 3.5), and each notebook had a trivial wording error. Each test fails on the text before
this round."""

import re

import pytest

from rooflinelib.core import operators
from rooflinelib.core.machines import A100, H100_SXM, H200
from test_lessons_00_02 import ROOT, cells, markdown, words

NB00, NB01, NB02 = "00_start_here.ipynb", "01_derivation.ipynb", "02_operator_intensities.ipynb"


def _appendix():
    return words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))


def _markdown_cells(name):
    return [c.source for c in cells(name) if c.cell_type == "markdown"]


def _word_count(name):
    return sum(len(s.split()) for s in _markdown_cells(name))


# --- notebook 02: one topic a cell, the result before the chain ---------------------------------

def test_02_primer_and_the_operator_table_are_two_cells():
    sources = _markdown_cells(NB02)
    primer = next(s for s in sources if s.startswith("## Primer: how bytes and FLOPs reach the hardware"))
    assert "## The operator table" not in primer
    table = next(s for s in sources if s.startswith("## The operator table"))
    assert "counts what its threads load, before coalescing or any cache serves them" in words(table)


def test_02_primer_attaches_the_hbm_evidence_to_the_strided_read_it_measures():
    # the HBM timings are strided reads; "scattered" (random) reads are another pattern
    primer = words(next(s for s in _markdown_cells(NB02) if s.startswith("## Primer: how bytes")))
    assert "scattered" not in primer and "extrapolated" not in primer
    assert "32 floats 128 bytes apart (stride 32) cost 32 sectors: 8 times the bytes used at the L2." in primer
    assert 32 * 4 == 128 and 32 * 32 // (32 * 4) == 8  # 32 sectors of 32 bytes for 128 bytes used


def test_02_softmax_size_aside_is_the_appendixs():
    assert "2²⁶" not in markdown(NB02) and "same intensity" not in markdown(NB02)
    assert "notebook 04 times the same softmax on 2²⁶" in _appendix()


def test_02_ridges_cell_is_one_topic_and_the_wrong_roof_has_one_example():
    sources = _markdown_cells(NB02)
    ridges = next(s for s in sources if "Ivanov et al." in s)
    assert "wrong roof" not in ridges and "appendix" not in ridges and "\n## " not in ridges
    assert any(s.startswith("## Each operator against its own roof") for s in sources)
    wrong = next(s for s in sources if "**The wrong roof.**" in s)
    assert "(exercise 2, row 8)" not in wrong
    # the paragraph closes the own-roof section, before the GEMM section's heading
    assert wrong.index("Vector add would need") < wrong.index("**The wrong roof.**") < wrong.index("## GEMM")
    cap = 90 * H200.ceiling("dram").value / H200.ceiling("bf16-tensor").value
    assert H200.ridge("fp32") < 90 < H200.ridge("bf16-tensor")
    assert (f"A bf16 tensor-core kernel at 90 FLOP/byte looks compute-bound against the fp32 ridge, yet its own "
            f"roof caps it at {cap:.0%} of the bf16 peak") in words(wrong)


def test_02_bf16_tile_is_derived_in_one_clause_and_quotes_the_tiles_of_its_ratio():
    tile = words(next(s for s in _markdown_cells(NB02) if s.startswith("64 × 64 tiles")))
    assert "With 2-byte elements the same formula gives $I \\approx b/2$" in tile
    assert "412" not in tile and "128 × 256" not in tile
    found = re.search(r"b = (\d+) at N = 4096, ([\d.]+) times the fp32 tile of (\d+)", tile)
    big, ratio, small = int(found[1]), float(found[2]), int(found[3])
    assert big == operators.smallest_tile(H200.ridge("bf16-tensor"), 4096, "bf16")["exact"]
    assert small == operators.smallest_tile(H200.ridge("fp32"), 4096)["exact"]
    assert ratio == round(big / small, 1)


def test_02_exp_paragraph_says_the_result_and_leaves_the_chain_to_the_cell():
    exp = words(next(s for s in _markdown_cells(NB02) if "### The exp: a second compute roof" in s))
    assert "1/8 clock" not in exp and "1/16 clock" not in exp and "4d = 512" not in exp
    assert operators.exp_time_over_matrix_time(128, H200) == pytest.approx(0.5)
    assert operators.exp_time_over_matrix_time(128, H100_SXM) == pytest.approx(0.5)
    assert operators.exp_time_over_matrix_time(128, A100) == pytest.approx(0.25)
    assert ("a score's exp takes the MUFU half the time its two GEMMs take the tensor cores of an H100 or "
            "H200 SM, a quarter on an A100") in exp


def test_02_markdown_went_down():
    assert _word_count(NB02) < 2234  # before review 40a's round


# --- notebook 00 ----------------------------------------------------------------------------------

def test_00_fp8_ratio_is_of_peaks_not_a_speed_up():
    from rooflinelib.lessons import analogy
    text = markdown(NB00)
    assert "run 30\n   times faster" not in text and "times faster than fp32" not in words(text)
    assert round(analogy.break_figures()["skills"]["ratio"]) == 30
    assert "peak about 30 times higher than fp32 on its vector units (the FP32 CUDA cores)" in words(text)  # 29.6: review 44a
    assert _word_count(NB00) <= 1382


# --- notebook 01 ----------------------------------------------------------------------------------

def test_01_opening_says_which_roof_is_the_datasheets():
    opening = words(cells(NB01)[0].source)
    assert "derived from its published configuration" not in opening
    assert H200.ceiling("bf16-tensor").value == 989_400
    assert "(989.4 TFLOP/s dense)" in opening  # review 46a: the sparse figure is the appendix's
    assert "The bf16 tensor roof is 989.4 TFLOP/s on dense matrices" in _appendix()


def test_01_trivial_wording():
    text = words(markdown(NB01))
    assert "For the bytes this implementation moves" not in text
    assert "For the bytes an implementation moves, both are hard limits" in text
    assert "A kernel pays the sum when" not in text and "A kernel pays at least the sum when" in text
    assert "The two branches draw the roof that names the model." not in text
    assert "Together, the two branches form the roof that gives the model its name." in text


def test_01_primer_precedes_step_2():
    sources = [c.source for c in cells(NB01)]
    primer = next(i for i, s in enumerate(sources) if "Primer: warps, schedulers and issue slots" in s)
    step2 = next(i for i, s in enumerate(sources) if s.startswith("## Step 2"))
    assert primer == step2 - 1 and sources[step2 + 2].startswith("### The max is a floor")


def test_01_stride_provenance_is_the_appendixs():
    text = markdown(NB01)
    assert "up to stride 16" not in text
    assert "the longest stride the fit explains" in _appendix()
    assert _word_count(NB01) < 2377  # before review 40a's round
