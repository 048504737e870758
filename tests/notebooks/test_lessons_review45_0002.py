"""Review 44a on notebooks 00, 01 and 02: one omission (a 64 x 64 tile's shared-memory bound),
wording that said more than is true (the fast exp as the exp, traffic "exactly" like the FLOPs,
"real" fp8 GEMMs always writing bf16, one monolithic L2, datasheet peaks at any clock, 30 for
29.6), two unclear phrases ("at any one clock", the ridge band's overlap clause), a term used
before it is met ("the cheapest launch") and a printed duplicate. Each test fails on the text
before this round."""

import pytest

from rooflinelib.core import operators
from rooflinelib.core.machines import (A100, H200, NVIDIA_BF16_TENSOR_FLOP_PER_CLOCK_PER_SM,
                                       NVIDIA_SFU_PER_SM)
from rooflinelib.lessons import analogy
from test_lessons_00_02 import ROOT, cells, markdown, words

NB00, NB01, NB02 = "00_start_here.ipynb", "01_derivation.ipynb", "02_operator_intensities.ipynb"
APPENDIX = ROOT / "docs" / "appendix-00-02.md"


def _cell(name, starts):
    return words(next(c.source for c in cells(name) if c.cell_type == "markdown" and starts in c.source))


def _printed(name, marker):
    cell = next(c for c in cells(name) if c.cell_type == "code" and marker in c.source)
    return "".join(o.get("text", "") for o in cell.outputs)


# --- notebook 02 ----------------------------------------------------------------------------------

def test_02_a_64_tile_lifts_the_hbm_bound_only_shared_memory_still_caps_the_gemm():
    text = _cell(NB02, "64 × 64 tiles lift the HBM bound")
    # the clause follows the claim it limits, in the notebook, not only in the appendix
    assert ("64 × 64 tiles lift the HBM bound to the A100's and the H200's fp32 roofs, though, without reuse "
            "from registers, shared-memory bandwidth keeps such a GEMM below them.") in text
    # the number behind it: an FMA reading both fp32 operands from shared memory moves 8 bytes for
    # 2 FLOPs, so shared memory caps it at a quarter of its bandwidth, far under the fp32 roof
    for machine in (A100, H200):
        cap = machine.ceiling("shared").value * 2 / 8
        assert cap < machine.ceiling("fp32").value / 2, machine.name
    assert "It does not make an SGEMM run at the roof" in words(APPENDIX.read_text(encoding="utf-8"))


def test_02_the_exp_is_the_fast_form_and_its_unit_has_one_name_and_a_clear_clock():
    text = _cell(NB02, "### The exp: a second compute roof")
    assert "**special-function unit (MUFU, multi-function unit)** as one `ex2` instruction" not in text
    assert ("**special-function unit (MUFU; `sfu` in code)**: in the fast form, one `ex2` instruction plus an "
            "FP32 multiply that changes the base (an accurate `expf` adds a few FMAs)") in text
    # `sfu` is the name the code uses for the same unit
    code = next(c.source for c in cells(NB02) if c.cell_type == "code" and "exp_time_over_matrix_time" in c.source)
    assert "NVIDIA_SFU_PER_SM" in code and H200.ceiling("sfu").label == "transcendental (SFU)"
    # "at any one clock" said it cryptically; the share is a ratio of clock cycles of one SM
    assert "at any one clock" not in text
    assert "At d = 128, counted in one SM's clock cycles, a score's exp takes the MUFU half the time" in text
    per_clock = NVIDIA_BF16_TENSOR_FLOP_PER_CLOCK_PER_SM["H200"]
    assert (1 / NVIDIA_SFU_PER_SM) / (4 * 128 / per_clock) == 0.5
    appendix = words(APPENDIX.read_text(encoding="utf-8"))
    assert "The fast path (CUDA's `__expf`) adds only the multiply by log2 e" in appendix
    assert "a full-accuracy exp adds a range reduction" in appendix


def test_02_unfused_traffic_grows_as_s_squared_in_its_leading_term_only():
    text = _cell(NB02, "## Attention: fusion decides everything")
    assert "exactly like the FLOPs" not in text
    assert "Both counts' leading terms grow as $s^2$, so the intensity levels off at $(4d+5)/8 \\approx d/2$" in text
    # the 8sd term keeps the intensity under its limit at every s: the growth is not exactly alike
    limit = (4 * 128 + 5) / 8
    intensities = [operators.attention(s, 128, fused=False, dtype="bf16").intensity for s in (512, 8192, 2**17)]
    assert intensities == sorted(intensities) and intensities[-1] < limit
    assert intensities[0] < 0.9 * limit and intensities[-1] == pytest.approx(limit, rel=1e-2)


def test_02_fp8_gemms_usually_write_bf16_and_what_fp8_buys_is_the_appendixs():
    text = words(markdown(NB02))
    assert "Real fp8 GEMMs write C in bf16" not in text
    assert "fp8 GEMMs usually write C in bf16 (N = 825) or fp32" in text
    n = next(n for n in range(1, 4096) if n / 2 >= H200.ridge("fp8-tensor"))  # I = 2N³ / (N²(1 + 1 + 2))
    assert n == 825
    assert "What fp8 buys" not in text
    assert "What fp8 buys: a compute-bound GEMM gains 2×" in words(APPENDIX.read_text(encoding="utf-8"))


def test_02_the_l2_is_one_cache_in_two_linked_halves():
    primer = _cell(NB02, "## Primer: how bytes and FLOPs reach the hardware")
    assert "all SMs share one L2 (60 MiB on the recorded H200)" not in primer
    assert "all SMs share one L2 (60 MiB in two linked halves on the recorded H200)" in primer
    # the halves' traffic is notebook 05's, measured: the fabric between the two L2 partitions
    facts = (ROOT / "docs" / "h200-facts.md").read_text(encoding="utf-8")
    assert "the fabric between the two L2 partitions" in facts
    assert "60 MiB" in H200.notes


# --- notebook 01 ----------------------------------------------------------------------------------

def test_01_datasheet_peaks_are_bounds_at_the_clock_each_assumes():
    step1 = _cell(NB01, "## Step 1: two floors under the run time")
    assert "datasheet peaks are upper bounds, so" not in step1
    # review 51a: the bf16 peak assumes 1.83 GHz, below the boost, so the floor holds at that clock, not always
    assert "each peak at the clock it assumes (the H200's low-precision tensor peaks assume 1.83 GHz, below its 1.98 GHz boost)" in step1
    assert "valid lower bounds" not in step1
    # the H200's rows assume two clocks: bf16 tensor 1.83 GHz, fp32 vector 1.98 GHz (128 FMAs a clock)
    bf16_ghz = H200.ceiling("bf16-tensor").value / (132 * NVIDIA_BF16_TENSOR_FLOP_PER_CLOCK_PER_SM["H200"])
    fp32_ghz = H200.ceiling("fp32").value / (132 * 128 * 2)  # GFLOP/s over FLOP a clock: GHz
    assert (round(bf16_ghz, 2), round(fp32_ghz, 2)) == (1.83, 1.98)


def test_01_the_ridge_band_says_plainly_where_no_overlap_costs_most():
    step4 = _cell(NB01, "## Step 4: the ridge point")
    assert "the overlap of loads and math decides how near the roof the kernel gets" not in step4
    assert ("it is also where a kernel that never overlaps loads with math loses the most, about half its "
            "roof (step 2).") in step4
    # max / sum is exactly 1/2 at the ridge and 1 / (1 + 1/1.1) = 0.52 at the band's edge
    for ratio, share in ((1.0, 0.5), (1.1, 0.524)):
        compute, memory = 1.0, 1.0 / ratio
        assert max(compute, memory) / (compute + memory) == pytest.approx(share, abs=1e-3)
    assert "so a kernel that never overlaps can fall to half its roof, at the ridge" in _cell(NB01, "## Step 2")


def test_01_the_unit_slips_print_once():
    printed = _printed(NB01, "chart_reading.unit_slips(")
    for factor in ("(1.074x the right one)", "(0.125x the right one)", "(0.001x the right one)"):
        assert printed.count(factor) == 1, factor
    # the two lines that repeated the table's GiB and Gbit factors are gone
    assert "GiB/s read as GB/s" not in printed and "Gbit/s read as GB/s" not in printed
    units = _cell(NB01, "- **Units.**")
    assert "**Units.** A slip in the machine's figures moves the ridge by the factor in the table" in units


# --- notebook 00 ----------------------------------------------------------------------------------

def test_00_about_30_times_and_no_cheapest_launch_before_cuda_graphs():
    text = words(markdown(NB00))
    ratio = analogy.break_figures()["skills"]["ratio"]
    assert round(ratio, 1) == 29.6
    assert "peak 30 times higher" not in text and "peak about 30 times higher than fp32" in text
    # a CUDA graph is met in the cell's output and in notebook 06, after this sentence
    assert "cheapest launch" not in text
    assert ("Launched back to back, kernels cost the GPU some 60 times that each. A launch from Python adds the "
            "host's work") in text  # review 51a  # review 46a: one sentence each
    launch = _printed(NB00, "break_figures")
    assert "launches replayed from a CUDA graph cost the GPU 0.64 µs each, 63x that bound" in launch  # review 51a


def test_00_01_02_review_44a_did_not_grow():
    for name, before in ((NB00, 1380), (NB01, 2371), (NB02, 2195)):
        assert len(markdown(name).split()) <= before, name
