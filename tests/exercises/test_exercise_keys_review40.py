"""Keys 1-5 after reviews 39k1 and 39k2.  Each test calls a check (or reads a model answer or a key's
text) with what the review tried, and fails on the key before this round."""
from pathlib import Path

import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex03_attention as ex03
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED

ROOT = Path(__file__).resolve().parents[2]
N = NOT_ANSWERED
RECORDED = ex04.prepare("recorded", progress=None)


# --- key 1: 'ridge' as an active roof compares with the page's ridge, not an undefined band ------

@pytest.mark.parametrize("slot, answer, words", [
    (0, "ridge", "20 FLOP/byte is below this GPU's ridge of 40 at 3 TB/s"),
    (0, "balanced", "20 FLOP/byte is below this GPU's ridge of 40 at 3 TB/s"),
    (1, "at the ridge", "80 FLOP/byte is above this GPU's ridge of 40 at 3 TB/s"),
    (2, "ridge", "20 FLOP/byte is below this GPU's ridge of 60 at 2 TB/s"),
    (3, "both", "80 FLOP/byte is above this GPU's ridge of 60 at 2 TB/s"),
])
def test_key1_ridge_as_active_roof_hears_the_pages_ridge(slot, answer, words):
    answers = ["memory", "compute", "memory", "compute"]
    answers[slot] = answer
    check = ex01.check_active_roofs(*answers).checks[slot]
    assert check.status == "fail"
    assert check.message.startswith(words) and "which roof does it sit under?" in check.message, check
    # the page never defines grading's ±10% band, so the hint does not quote it
    assert "ridge / 1.1" not in check.message and "1.1 x ridge" not in check.message


# --- key 2, C3: intensities per element hear 'elements, not bytes' ---------------------------------

def test_key2_c3_intensities_per_element_are_named():
    checks = ex02.check_cache_resident(81_920, 16_384, 1, 5, "cache").checks
    for check in checks[2:4]:
        assert check.status == "fail"
        assert check.message == ("that is FLOPs per element, not per byte: an fp32 element is 4 bytes"), check
    assert all(c.passed for c in ex02.check_cache_resident(81_920, 16_384, 0.25, 1.25, "cache").checks)


# --- key 3 -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("machine, slot", [(ex03.MI300X, 0), (ex03.H200, 3)])
def test_key3_a_doubled_ridge_hears_a_neutral_factor_of_2(machine, slot):
    answers = [N] * 5
    answers[slot] = 2 * machine.ridge(ex03.BF16_TENSOR)
    check = ex03.check_crossover(*answers).checks[slot]
    assert check.status == "fail"
    # given_machines() shows only the dense peak: no sparsity figure to blame
    assert "sparsity" not in check.message
    assert check.message == "off by a factor of 2: the ridge is P / B, from the table's two numbers"
    assert "sparsity" not in str(ex03.given_machines())


@pytest.mark.parametrize("answer", [4136, "4136", 4100])
def test_key3_the_undivided_intensity_as_per_token_hears_divide_by_s(answer):
    check = ex03.check_limits(N, N, N, answer).checks[3]
    assert check.status == "fail"
    assert check.message == "that is the intensity itself (at s = 8192): divide by s", check


@pytest.mark.parametrize("answer", ["never", "Never.", "no, never"])
def test_key3_never_reads_as_no(answer):
    check = ex03.check_crossover(N, N, answer, N, N).checks[2]
    assert check.passed, check
    # and 'yes' is still refused with its hint
    assert ex03.check_crossover(N, N, "yes", N, N).checks[2].status == "fail"


# --- key 4 -----------------------------------------------------------------------------------------

def _placement(index, answer, setup=RECORDED):
    args = [N] * 10
    args[index] = answer
    return ex04.check_placement(setup, *args).checks[index]


_GIB = "did you convert with GiB (2^30 bytes)?"


@pytest.mark.parametrize("answer", [0.909, "90.9%"])
def test_key4_a_datasheet_fraction_hears_the_divisor_first(answer):
    red = ex04._keys(RECORDED)["reduction"]
    assert round(red["gbps"] / ex04.H200.ceiling("dram").value, 3) == 0.909  # the datasheet's 4,800 GB/s
    check = _placement(4, answer)
    assert check.status == "fail"
    assert check.message.startswith("that is against B"), check.message
    assert "Or did you convert with GiB (2^30 bytes)?" in check.message


@pytest.mark.parametrize("answer", [0.901, 0.9])
def test_key4_a_gib_fraction_still_hears_gib_first(answer):
    check = _placement(4, answer)
    assert check.message.startswith(_GIB), check.message


def test_key4_p64_as_the_reduction_roof_is_called_the_fp64_roof():
    check = _placement(2, RECORDED.fp64_gflops)
    assert check.status == "fail"
    assert check.message.startswith("that is the fp64 roof (an FMA peak; adds alone reach half)"), check
    # P64 / 2 is the adds' own roof, and keeps its hint
    half = _placement(2, RECORDED.fp64_gflops / 2)
    assert half.message.startswith("that is the compute roof of its float64 adds"), half


def test_key4_hbm_ridges_span_10_to_30():
    # H100 PCIe (about 26) and MI300X (about 31, fp32 vector) lie above 20
    points = " ".join(ex04.model_verdict(RECORDED, "the ridge moves between machines, not the kernel").key_points)
    assert "(about 10-30 FLOP/byte)" in points and "10-20" not in points
    assert "(about 10-30 FLOP/byte)" in ex04.__doc__ and "10-20" not in ex04.__doc__


# --- key 5 -----------------------------------------------------------------------------------------

def test_key5_drill5_no_unsupported_ranking():
    text, _ = ex05.MODEL_ANSWERS[5]
    assert "commonest" not in text
    assert "different sizes, shapes or data types, a common cause" in text


def test_key4_model_answer_is_cut_by_a_fifth_and_keeps_its_checked_facts():
    # review 39k2 (clarity, cell 15): it ran to 557 words; every number and claim the review checked stays
    shown = str(ex04.model_verdict(RECORDED, "the ridge moves between machines, not the kernel"))
    assert len(shown.split()) <= 450, len(shown.split())
    for fact in ("P / C = 15.4 FLOP/byte", "82% of its roof", "97% of 4,507 GB/s", "its ridge: 7.42 FLOP/byte",
                 "No, a different verdict: against the H200's datasheet ridge, 13.9 FLOP/byte", "the ridge would be 14.1",
                 "no counter here measured the overlap", "ROOFLINE_MODE=cpu", "P64 = 33,423 GFLOP/s",
                 "an add is 1", "P64 / R = 7.42 FLOP/byte (3.71 for adds alone)", "I x R = 1,127 GFLOP/s",
                 "memory-bound on a GPU with full- or half-rate fp64", "1/64-rate fp64",
                 "one F2F instruction", "may bind lower",
                 "the run reached 1,090 GFLOP/s, 97% of I x R", "(about 10-30 FLOP/byte)", "GDDR"):
        assert fact in shown, fact
    # the fourth key point repeated the second (the reduction against the read)
    points = ex04.model_verdict(RECORDED, "the ridge moves between machines, not the kernel").key_points
    assert len(points) == 3 and "the reduction against the read" in points[1]
