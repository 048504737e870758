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


# --- key 5 -----------------------------------------------------------------------------------------

def test_key5_drill5_no_unsupported_ranking():
    text, _ = ex05.MODEL_ANSWERS[5]
    assert "commonest" not in text
    assert "different sizes, shapes or data types, a common cause" in text
