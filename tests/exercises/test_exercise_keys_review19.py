"""Keys after reviews 19k1 (exercises 2 and 3) and 19k2 (exercises 4 and 5).  Each test calls a
check with an answer the review tried and fails on the key before this round."""
from dataclasses import replace

import pytest

from rooflinelib.exercises import ex02_classify as ex02, ex03_attention as ex03
from rooflinelib.exercises import ex04_place_kernel as ex04, ex05_drills as ex05
from rooflinelib.exercises.grading import SIDES

#: grading's generic factor-2 hint, which named neither slip where it fired in exercise 2
FMA_OR_COPY = "a copy both reads and writes"

RECORDED = ex04.prepare("recorded", progress=None)


def _row(number, intensity=None, vs_fp32=None, vs_bf16="memory", verdict=None, step=None):
    row = ex02._row(number)
    intensity = row.intensity if intensity is None else intensity
    vs_fp32 = vs_fp32 or ("memory" if row.intensity < 15 else "compute")
    if number == 9:
        vs_bf16 = "compute"
    return ex02.check_row(number, intensity, vs_fp32, vs_bf16, verdict or row.verdict,
                          step or sorted(row.first_steps)[0])


def _check(report, start):
    return next(c for c in report.checks if c.question.startswith(start))


# --- exercise 2 ---------------------------------------------------------------------------

def test_k2_1_row_8_ridge_is_not_told_it_is_its_fp32_verdict():
    check = _check(ex02.check_row(8, 124.1, "compute", "memory", "ridge", "batch"), "verdict")
    assert check.status == "fail"
    assert "fp32 vector roof" not in check.message
    assert "holds against neither ridge" in check.message
    # "compute" is its fp32 verdict, and keeps row 8's own hint
    compute = _check(ex02.check_row(8, 124.1, "compute", "memory", "compute", "batch"), "verdict")
    assert "that is its verdict against the fp32 vector roof" in compute.message


@pytest.mark.parametrize("number, factor", [(1, 4), (2, 4), (3, 4), (9, 2)])
def test_k2_2_elements_not_bytes_has_its_own_hint(number, factor):
    # rows 1-3 (fp32: 4x) and 9 (bf16: 2x); row 1 at 1/3 got only "too high", row 9 at 8272
    # the FMA-or-copy hint
    row = ex02._row(number)
    check = _check(_row(number, intensity=row.intensity * factor), "intensity")
    assert check.status == "fail" and "divided by elements, not bytes" in check.message


def test_k2_2_row_5_one_inputs_rereads_is_named():
    check = _check(_row(5, intensity=8), "intensity")
    assert check.status == "fail" and "re-reads of one input" in check.message


@pytest.mark.parametrize("number", range(1, 10))
@pytest.mark.parametrize("factor", [2, 0.5])
def test_k2_2_no_row_gets_the_fma_or_copy_hint(number, factor):
    check = _check(_row(number, intensity=ex02._row(number).intensity * factor), "intensity")
    assert check.status == "fail" and FMA_OR_COPY not in check.message


def test_k2_2_part_c_factor_two_slips_name_no_copy():
    l2 = ex02.check_cache_resident(163_840, 16_384, 0.25, 1.25, "cache").checks[0]
    assert l2.status == "fail" and FMA_OR_COPY not in l2.message and "only reads" in l2.message
    fraction = ex02.check_launch_length(2e6, 2.13e5, 0.25).checks[2]
    assert fraction.status == "fail" and FMA_OR_COPY not in fraction.message
    for report in (ex02.check_far_below(16, 24, 3.125, 0.13, "unmodelled", "profile"),
                   ex02.check_tiny_launch(49152 * 2, 12.3, 488, "launch", "fuse"),
                   ex02.check_ridges(30, 600)):
        assert all(FMA_OR_COPY not in c.message for c in report.checks)


def test_k2_3_inverted_ratios_get_their_hint():
    ridges = ex02.check_ridges(1 / 15, 1 / 300)
    assert all("B / P" in c.message for c in ridges.checks)
    ratio = ex02.check_tiny_launch(49152, 12.3, 1 / 488, "launch", "fuse").checks[2]
    assert ratio.status == "fail" and "memory time / launch overhead" in ratio.message
    intensity = ex02.check_far_below(0.125, 24, 3.125, 0.13, "unmodelled", "profile").checks[0]
    assert intensity.status == "fail" and "bytes per FLOP" in intensity.message


def test_k2_4_row_9_profile_hint_matches_its_schedule():
    check = _check(_row(9, step="profile"), "first move")
    assert check.status == "fail"
    assert "assume it is on it" not in check.message and "schedule" in check.message


def test_k2_noted_row_7_reading_c_as_well_gets_a_hint():
    check = _check(_row(7, intensity=512), "intensity")
    assert "reads C as well as writing it" in check.message


# --- exercise 3 ---------------------------------------------------------------------------

@pytest.mark.parametrize("c", [4, 6])
def test_k3_1_softmax_off_by_one_flop_per_score_fails(c):
    check = ex03.check_flops(lambda s, d: 4 * s * s * d + c * s * s)
    assert check.status == "fail" and "softmax's FLOPs per score" in check.message
    assert ex03.check_flops(lambda s, d: 4 * s * s * d + 5 * s * s).passed


def test_k3_1_a_one_flop_softmax_is_not_told_it_left_the_softmax_out():
    check = ex03.check_flops(lambda s, d: 4 * s * s * d + s * s)
    assert "left out the softmax" not in check.message
    assert "softmax's FLOPs per score" in check.message


def test_k3_2_causal_at_half_the_key_names_no_copy():
    causal = ex03.ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype="bf16", causal=True)
    check = ex03.check_stretch(causal.intensity / 2, 1.01, "memory", 8.07).checks[0]
    assert check.status == "fail" and FMA_OR_COPY not in check.message
    assert "2 FLOPs" in check.message


def test_k3_3_fused_bytes_hints_name_both_causes():
    elements = ex03.check_fused_bytes(lambda s, d: 4 * s * d)
    assert "count elements" in elements.message and "O is written" in elements.message
    fp32 = ex03.check_fused_bytes(lambda s, d: 16 * s * d)
    assert fp32.status == "fail" and "2 bytes per element, not 4" in fp32.message


def test_k3_3_unfused_limit_at_half_names_the_element_size_too():
    limit = ex03.ops.attention_intensity_limit(ex03.HEAD_DIM, fused=False, dtype="bf16")
    check = ex03.check_limits("constant", "linear", limit / 2, 0.505).checks[2]
    assert "2 FLOPs" in check.message and "2 bytes, not 4" in check.message


def test_k3_4_o1_reads_as_constant():
    assert ex03.check_limits("O(1)", "linear", 64.6, 0.505).checks[0].passed


# --- exercise 4 ---------------------------------------------------------------------------

def _placement(**answers):
    k = ex04._keys(RECORDED)
    red, fma = k["reduction"], k["fma"]
    args = dict(reduction_intensity=red["intensity"], reduction_gflops=red["achieved"],
                reduction_roof=red["roof"], reduction_side=red["side"],
                reduction_fraction_of_dram=red["gbps"] / RECORDED.read_gbps,
                fma_intensity=fma["intensity"], fma_gflops=fma["achieved"], fma_roof=fma["roof"],
                fma_side=fma["side"], fma_fraction_of_roof=fma["fraction"])
    args.update(answers)
    return ex04.check_placement(RECORDED, **args)


def test_k4_1_the_reduction_is_not_memory_bound_on_any_machine():
    text = str(ex04.model_verdict(RECORDED, "the verdict depends on the machine's ridge, not the kernel"))
    assert "memory-bound on any machine" not in text
    assert "1/64-rate fp64" in text and "its ridge: 7.42 FLOP/byte" in text


def test_k4_2_reduction_intensity_with_8_byte_elements_names_the_accumulator():
    red = ex04._keys(RECORDED)["reduction"]
    check = _placement(reduction_intensity=red["intensity"] / 2).checks[0]
    assert check.status == "fail" and "accumulator" in check.message
    assert FMA_OR_COPY not in check.message


def test_k4_3_the_cpu_branch_quotes_the_fma_kernels_own_ridge():
    cpu = replace(RECORDED, machine=replace(RECORDED.machine, provenance={"kind": "cpu"}))
    fma = ex04._keys(cpu)["fma"]
    text = str(ex04.model_verdict(cpu, "the verdict depends on the machine's ridge, not the kernel"))
    assert f"the FMA kernel's ridge is {fma['ridge']:.3g} FLOP/byte" in text
    assert f"its ridge is {cpu.ridge:.3g}" not in text


def test_k4_4_setup_table_names_each_kernels_ridge():
    rows = dict(RECORDED.describe().rows)
    assert "ridge" not in rows
    assert rows["FMA kernel ridge"].startswith("15.4 FLOP/byte (P / C")
    assert rows["reduction ridge"].startswith("7.42 FLOP/byte (P64 / R")
    assert "not used" in rows["ridge P / B"]


@pytest.mark.parametrize("answer", [SIDES.options["ridge"][0], "both roofs bind"])
def test_k4_5_the_menus_own_words_for_the_ridge_pass(answer):
    assert _placement(fma_side=answer).checks[8].passed


@pytest.mark.parametrize("answer", ["memory", "compute"])
def test_k4_6_the_band_hint_does_not_state_the_verdict(answer):
    check = _placement(fma_side=answer).checks[8]
    assert check.status == "fail" and "within 10%" not in check.message
    assert "P / C = 15.4" in check.message and "band" in check.message


def test_k4_8_bytes_in_bits_get_a_hint():
    report = ex04.check_accounting(lambda n: n, lambda n: 32 * n + 32, lambda n: 130 * n,
                                   lambda n: 64 * n)
    assert "bits" in report.checks[1].message and "bits" in report.checks[3].message


def test_k4_clarity_the_direct_answer_leads_the_asides():
    # the main answer keeps the two key points first (review 5a C16, K04-4); the question's
    # direct answer, datasheet against the loaded ceilings, was the fourth aside
    shown = ex04.model_verdict(RECORDED, "the verdict depends on the machine's ridge, not the kernel")
    # review 35k2: the datasheet ridge's figures moved into this aside (stated once)
    # review 51: it now opens the model answer itself
    first = shown.model_answer.split(". Two points")[0]
    assert first.startswith("No, a different verdict: against the H200's datasheet ridge, 13.9 FLOP/byte (")
    assert "the FMA kernel is compute-bound" in first
    assert "at the ridge" in first


# --- exercise 5 ---------------------------------------------------------------------------

def test_k5_2_unbounded_is_not_steered_to_constant():
    check = ex05.check_drill7(64.6, "unbounded").checks[1]
    assert check.status == "fail" and "constant" not in check.message
    assert "how fast" in check.message
    assert not ex03.check_limits("constant", "without bound", 64.6, 0.505).checks[1].passed
    # review 15: "grows with s" does not pass; review 46k1: it hears "how fast?"
    assert ex05.check_drill7(64.6, "grows with s").checks[1].status == "fail"


def test_k5_3_drill_5_says_a_transcendental_convention_can_do_more():
    assert "exp or a divide" in ex05.MODEL_ANSWERS[5][0]


def test_k5_4_hints_do_not_state_the_side():
    side = ex05.check_drill4(0.1, 0.5, "compute", 5).checks[2]
    assert "how many times smaller" not in side.message
    attainable = ex05.check_drill2(300, "memory", 900, 0.133).checks[2]
    assert "I x B is lower" not in attainable.message


def test_k5_5_drill_1_ratio_hint_says_sum_over_max():
    assert "divide the sum by the max" in ex05.check_drill1("max", 0.5).checks[1].message


def test_k5_6_drill_3_first_step_drops_long_enough():
    assert "long enough" not in ex05.MODEL_ANSWERS[3][0]


def test_k4_7_hints_name_r_and_do_not_run_together():
    red = ex04._keys(RECORDED)["reduction"]
    side = _placement(reduction_side="compute").checks[3]
    assert side.status == "fail" and "I x R" in side.message and "I x B" not in side.message
    # a live setup where I x B equals P64 / 2 (the adds' peak): one hint, not two run together
    fake = replace(RECORDED, machine=replace(RECORDED.machine, ceilings=tuple(
        replace(c, value=red["adds_peak"] / red["intensity"]) if c.name == "dram" else c
        for c in RECORDED.machine.ceilings)))
    fred = ex04._keys(fake)["reduction"]
    roof = ex04.check_placement(fake, fred["intensity"], fred["achieved"], fred["adds_peak"],
                                fred["side"], 1.0, 16, 1, 1, "ridge", 0.8).checks[2]
    assert roof.status == "fail" and "that is I x B" not in roof.message


def test_k4_7_the_fraction_against_i_c_names_gb_s_over_c():
    fma = ex04._keys(RECORDED)["fma"]
    check = _placement(fma_fraction_of_roof=fma["gbps"] / RECORDED.copy_gbps).checks[9]
    assert check.status == "fail" and "GB/s over C" in check.message


def test_k4_clarity_the_reduction_note_is_two_asides():
    also = ex04.model_verdict(RECORDED, "the verdict depends on the machine's ridge, not the kernel").also
    assert "P64 = 33,423" in also[-2] and "F2F" not in also[-2]
    assert also[-1].startswith("P64 is an upper bound")


def test_k5_7_the_tolerance_edge_passes_and_the_article_fits():
    from rooflinelib.exercises.grading import check_number, reveal
    assert check_number(2.04, 2, "ratio").passed and check_number(1.96, 2, "ratio").passed
    assert not check_number(2.05, 2, "ratio").passed
    assert "not an int" in str(reveal(3, "model", "q"))
