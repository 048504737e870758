"""Review 46a on notebooks 00, 01 and 02: attention's FLOP count took no causal mask and never said
so (a GPT-style prefill read off the table is 2x off), the smallest tile is the one that lifts
the HBM bound (not a "useful" one), 32-byte sectors belong to the L1-L2 traffic, "vector units"
without NVIDIA's name for them, the "at least the sum" schedule's unstated assumption, an
unexplained "sparse 1,979", and two crowded passages in 02 (the table's opening paragraph and
an attention hedge placed before attention). Each test fails on the text before this round."""

import re

import nbformat

from rooflinelib.core import operators
from rooflinelib.core.machines import H200
from rooflinelib.lessons import analogy
from test_lessons_00_02 import ROOT, cells, markdown, words

NB00, NB01, NB02 = "00_start_here.ipynb", "01_derivation.ipynb", "02_operator_intensities.ipynb"
APPENDIX = ROOT / "docs" / "appendix-00-02.md"
#: markdown words before this round: no fix may grow a notebook
WORDS_BEFORE = {NB00: 1380, NB01: 2370, NB02: 2195}


def _cell(name, starts):
    return words(next(c.source for c in cells(name) if c.cell_type == "markdown" and c.source.startswith(starts)))


def _printed(name, marker):
    cell = next(c for c in cells(name) if c.cell_type == "code" and marker in c.source)
    return "".join(o.get("text", "") for o in cell.outputs)


def _word_count(name):
    nb = nbformat.read(str(ROOT / "notebooks" / name), as_version=4)
    return sum(len(re.findall(r"\S+", c.source)) for c in nb.cells if c.cell_type == "markdown")


# --- notebook 02 ----------------------------------------------------------------------------------

def test_02_a_causal_mask_halves_the_flops_not_the_fused_bytes_and_doubles_the_crossover():
    d, ridge = 128, H200.ridge("bf16-tensor")
    full = operators.attention(8192, d, fused=True)
    causal = operators.attention(8192, d, fused=True, causal=True)
    assert causal.n_bytes == full.n_bytes  # the fused kernel's HBM traffic stays
    assert round(causal.intensity / 8192, 2) == 0.25 and round(full.intensity / 8192, 3) == 0.505
    crossing = next(s for s in range(1, 8192)
                    if operators.attention(s, d, fused=True, causal=True).intensity >= ridge)
    unmasked = operators.attention_fusion_crossover(ridge, d)["fused_s"]
    assert (crossing, unmasked) == (816, 409) and round(crossing / unmasked) == 2
    # one sentence in the prose, its numbers printed by the cell above it from the library
    text = _cell(NB02, "Unfused attention is memory-bound")
    assert ("A causal mask, as in decoder prefill, halves the FLOPs but not the fused bytes: I ≈ 0.25 s, "
            f"and the H200 crossover doubles, to s = {crossing}.") in text
    printed = _printed(NB02, "attention_crossover_rows")
    assert f"causal mask, fused: I = 0.252 s; on the H200 it crosses the ridge at s = {crossing}" in printed
    code = next(c.source for c in cells(NB02) if c.cell_type == "code" and "attention_crossover_rows" in c.source)
    assert "causal=True" in code and "816" not in code  # computed, not typed in


def test_02_the_smallest_tile_is_the_one_whose_hbm_bound_reaches_the_roof():
    text = _cell(NB02, "## Tiles: where GEMM's reuse comes from")
    assert "smallest useful tile" not in text
    assert "gives the smallest tile whose HBM bound reaches the roof, $b \\approx 4I^{*}$" in text
    # the shared-memory bound that keeps such a tile below the roof is said right after the table
    assert "shared-memory bandwidth keeps such a GEMM below them" in _cell(NB02, "64 × 64 tiles lift the HBM bound")


def test_02_sectors_are_the_l1_l2_unit_and_the_caches_come_first():
    primer = _cell(NB02, "## Primer: how bytes and FLOPs reach the hardware")
    assert "The caches move 32-byte" not in primer
    assert "The L1 and the L2 exchange 32-byte **sectors**." in primer
    # the L1 and the L2 are defined before the sentence that names them
    assert primer.index("Each SM has an L1 cache; all SMs share one L2") < primer.index("The L1 and the L2 exchange")
    # HBM's own unit is left to pitfall 6, where the strided reads are timed
    assert "At HBM such a read is slower still (notebook 06, pitfall 6)." in primer
    facts = words((ROOT / "docs" / "h200-facts.md").read_text(encoding="utf-8"))
    assert "32-byte sectors, 128-byte lines" in facts and "behaves as 64 bytes (two sectors)" in facts


def test_02_the_table_opening_is_two_paragraphs_and_names_the_one_row_not_counted_at_hbm():
    nb = cells(NB02)
    table = next(i for i, c in enumerate(nb) if "operator_rows()" in c.source)
    paragraphs = [words(p) for p in nb[table - 1].source.split("\n\n")]
    assert len(paragraphs) == 3 and paragraphs[0] == "## The operator table"
    assert paragraphs[2].startswith("The naive GEMM's row alone is not counted at HBM (the `counted at` column): "
                                    "its 0.25 FLOP/byte counts what its threads load")
    assert "8192 × 8192 weight matrix" not in paragraphs[1]  # the decode rows' sizes are the decode cell's
    assert ("The two decode rows, generating one token at a time (the last section), are a matrix-vector product "
            "and one query's attention.") in paragraphs[1]
    decode = next(c.source for c in nb if c.cell_type == "code" and "decode_matvec" in c.source)
    assert "decode_matvec(8192, 8192" in decode and "operators.attention(8192, 128" in decode


def test_02_the_unfused_softmax_share_is_said_in_the_attention_section_not_before_it():
    text = words(markdown(NB02))
    assert "Unfused attention's one point combines three kernels" not in text
    unfused = operators.attention(8192, 128, fused=False)
    share = operators.SOFTMAX_FLOPS_PER_ELEMENT * 8192 ** 2 / unfused.n_flops
    assert f"{share:.0%}" == "1%"
    assert ("the two GEMMs sit near d = 128 FLOP/byte, the softmax, 1% of the FLOPs and not on tensor cores, "
            "at 5/4)") in _cell(NB02, "Unfused attention is memory-bound")


# --- notebooks 00 and 01 --------------------------------------------------------------------------

def test_00_vector_units_are_named_as_nvidia_names_them_and_the_launch_break_is_three_sentences():
    text = words(markdown(NB00))
    assert "on its ordinary vector units" not in text
    assert "peak about 30 times higher than fp32 on its vector units (the FP32 CUDA cores)" in text
    assert analogy.break_figures()["skills"]["slow"] == "fp32 vector"  # the printed label it maps onto
    assert "; even the GPU's own cost of a launch is some 60 times that;" not in text
    assert ("A tiny kernel's time is its launch and the memory's latency: HBM moves a 4,096-element add's bytes in 10 ns "
            "at best. Launched back to back, kernels cost the GPU some 60 times that each. A launch from Python adds the host's work") in text  # review 51a


def test_01_the_sum_schedule_states_that_no_bytes_move_while_the_gpu_computes():
    text = _cell(NB01, "### The max is a floor; the sum is not a ceiling")
    assert "so that no other block's work fills the gaps" not in text
    assert ("with only one block on each SM and the SMs in step, so that the whole GPU moves no bytes while it "
            "computes.") in text


def test_01_the_opening_drops_the_unexplained_sparse_figure_which_the_appendix_explains():
    opening = words(cells(NB01)[0].source)
    assert "sparse" not in opening and "1,979" not in opening
    assert "(989.4 TFLOP/s dense)" in opening
    appendix = APPENDIX.read_text(encoding="utf-8")
    assert "## The H200's datasheet figures (notebooks 00 and 01)" in appendix
    assert "the datasheet's 1,979 assumes 2:4 structured sparsity" in words(appendix)


def test_no_notebook_grew():
    for name, before in WORDS_BEFORE.items():
        assert _word_count(name) <= before, name
