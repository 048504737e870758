"""Review 51k1: the answer keys of exercises 1, 2 and 3 (hints that misled, spellings that could
not be read, page text).  No wrong answer may pass; each new hint fires only on its slip."""
import json
from pathlib import Path

import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex03_attention as ex03
from rooflinelib.exercises.grading import BOTH_HINT, NOT_ANSWERED as N

ROOT = Path(__file__).resolve().parents[2]


def _markdown(name: str, folder: str) -> str:
    cells = json.loads((ROOT / folder / name).read_text())["cells"]
    return " ".join(" ".join("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")


# --- Ex2-1: C3's row is 16 KiB (16,384 bytes), not "16 KB" -------------------------------------

@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_ex2_c3_page_writes_the_row_in_kib(folder):
    text = _markdown("02_classify_kernels.ipynb", folder)
    assert "its own 16 KiB row" in text and "16 KB" not in text
    assert 4096 * 4 == 16 * 1024  # 4096 fp32 elements are 16 KiB
    assert "re-reads of 16 KB would" not in Path(ex02.__file__).read_text()  # the comment at ROW_ELEMENTS


def test_ex2_c3_kb_byte_counts_hear_which_prefix_the_row_is_in_and_do_not_pass():
    check = ex02.check_cache_resident("80 KB", "16 KB", "20480 / 80000", "20480 / 16000", "cache")
    for c in check.checks[:4]:
        assert c.status == "fail", c
        assert "16,384 bytes" in c.message and "16 KiB" in c.message, c
        assert "mixed up" not in c.message, c  # the hint says which prefix, not that the student mixed them
    assert ex02.check_cache_resident("80 KiB", "16 KiB", 0.25, 1.25, "cache").passed
    assert ex02.check_cache_resident(81920, 16384, "20480/81920", "20480/16384", "cache").passed
    # the hint is for the KB slip only: another wrong count hears something else
    other = ex02.check_cache_resident("70 KB", "12 KB", N, N, N)
    assert all("16 KiB" not in c.message for c in other.checks[:2])


# --- Ex2-3: a bare "both" as a side names no side ------------------------------------------------

@pytest.mark.parametrize("number", [1, 7, 8, 9])
def test_ex2_bare_both_as_a_side_hears_both_hint_not_the_band(number):
    row = ex02._row(number)
    report = ex02.check_row(number, row.intensity, "both", "both", "both", N)
    for c in report.checks[1:4]:
        assert c.status == "fail" and c.message == BOTH_HINT, c
    # carried forward from a wrong intensity, it still does not pass and names the slip
    carried = ex02.check_row(number, row.intensity * 3, "both", N, "both", N)
    assert carried.checks[1].status == "fail" and BOTH_HINT in carried.checks[1].message
    # the ridge's own spellings still read as the ridge
    assert ex02._ROW_SIDES.read("both roofs are close") == "ridge"
    assert "'both'" not in ex02._ROW_SIDES.menu()


# --- Ex1-1: a right side with a wrong rate in parentheses ------------------------------------------

def test_ex1_right_side_wrong_rate_says_the_side_is_right():
    check = ex01.check_active_roofs("memory (40 TFLOP/s)", "compute (60 TFLOP/s)", "memory (60 TFLOP/s)",
                                    "compute (1 TFLOP/s)")
    assert not any(c.passed for c in check.checks)
    a, b, c, d = (c.message for c in check.checks)
    assert "'memory' is right" in a and "40 TFLOP/s is this kernel's rate at 2 TB/s, not at 3 TB/s" in a
    assert "'compute' is right" in b and "the compute roof is 120 TFLOP/s, not 60" in b
    assert "'memory' is right" in c and "at 3 TB/s, not at 2 TB/s" in c
    assert "'compute' is right" in d
    for message in (a, b, c, d):
        assert "which roof does it sit under" not in message
    # a rate that is no case's: the side is right, and the rate asked elsewhere is not given away
    own = ex01.check_active_roofs("memory (120 TFLOP/s)", N, N, N).checks[0]
    assert own.status == "fail" and "'memory' is right" in own.message and "60" not in own.message
    # a wrong side with parentheses still hears the ridge hint, never "is right"
    wrong = ex01.check_active_roofs("compute (60 TFLOP/s)", "memory (40 TFLOP/s)", N, N)
    assert all(c.status == "fail" and "is right" not in c.message for c in wrong.checks[:2])
    assert ex01.check_active_roofs("memory (60 TFLOP/s)", "compute (120 TFLOP/s)", "memory (40 TFLOP/s)",
                                   "compute").passed


# --- Ex1-2: the loss in everyday words ------------------------------------------------------------

@pytest.mark.parametrize("loss", ["33% lower", "33% less", "33% drop", "33% loss", "33 percent lower"])
@pytest.mark.parametrize("none", ["none", "no change", "unchanged", "1"])
def test_ex1_everyday_wordings_of_the_loss_are_read(loss, none):
    assert ex01.check_slowdowns(loss, none).passed


def test_ex1_everyday_wordings_do_not_pass_wrong_answers():
    check = ex01.check_slowdowns("none", "33% lower")
    assert [c.status for c in check.checks] == ["fail", "fail"]
    assert ex01.check_slowdowns("10% less", 1).checks[0].status == "fail"


# --- Ex1-4, Ex2-6, Ex3-2: binary-prefix slips on ridges and rates ----------------------------------

def test_ex1_tib_slip_on_ridges_and_memory_rates_is_named():
    ridges = ex01.check_ridges("120e12/(3*2**40)", "120e12/(2*2**40)")
    assert all(c.status == "fail" and "TiB" in c.message for c in ridges.checks)
    rates = ex01.check_predictions("20*3e12/2**40", N, "20*2e12/2**40", N)
    assert rates.checks[0].status == "fail" and "TiB" in rates.checks[0].message
    assert rates.checks[2].status == "fail" and "TiB" in rates.checks[2].message
    # no bandwidth in a compute-capped rate: no TiB hint there
    capped = ex01.check_predictions(N, "120e12/2**40", N, N)
    assert capped.checks[1].status == "fail" and "TiB" not in capped.checks[1].message


def test_ex2_tib_slip_on_the_ridges_is_named():
    check = ex02.check_ridges("45e12/(3*2**40)", "900e12/(3*2**40)")
    assert all(c.status == "fail" and "TiB" in c.message for c in check.checks)
    assert ex02.check_ridges(15, 300).passed


def test_ex3_kib_and_tib_slips_on_the_ridges_are_named():
    check = ex03.check_crossover("1307.4/5.3/1.024", N, N, "989.4e12/(4.8*2**40)", N)
    assert check.checks[0].status == "fail" and "1,024" in check.checks[0].message
    assert check.checks[3].status == "fail" and "TiB" in check.checks[3].message


# --- Ex2-2: the two reads without the write, in C1 and C4 -----------------------------------------

def test_ex2_c1_and_c4_name_the_reads_only_slip():
    c1 = ex02.check_tiny_launch(32768, N, N, N, N).checks[0]
    assert c1.status == "fail" and "two reads but not the write of C" in c1.message
    c4 = ex02.check_launch_length("6e-6*4e12/8", "0.64e-6*4e12/8", N)
    assert all(c.status == "fail" and "two reads but not the write of C" in c.message for c in c4.checks[:2])
    assert ex02.check_tiny_launch(49152, N, N, N, N).checks[0].passed


# --- Ex2-4: AMD's "video memory" --------------------------------------------------------------------

@pytest.mark.parametrize("answer", ["video memory", "VRAM", "Video-Memory"])
def test_ex2_c5_video_memory_is_read_and_hinted_not_passed(answer):
    level = ex02.check_counters(N, N, answer).checks[2]
    assert level.status == "fail" and "AMD's name" in level.message and "Infinity Cache" in level.message
    assert "video" not in ex02.LEVELS.menu()


# --- Ex2-5: first-move spellings --------------------------------------------------------------------

@pytest.mark.parametrize("answer", ["use fp8", "int8 weights", "quantize to int8", "use fp8 weights",
                                    "use int8"])
def test_ex2_8_bit_moves_read_as_a_smaller_type(answer):
    assert ex02.FIRST_STEPS.read(answer) == "smaller-dtype"
    for number in (6, 8):
        assert ex02.check_row(number, N, N, N, N, answer).checks[4].passed
    # row 7's route onto the matrix cores needs a listed roof; row 9 is compute-bound
    assert not ex02.check_row(7, N, N, N, N, answer).checks[4].passed
    assert not ex02.check_row(9, N, N, N, N, answer).checks[4].passed


def test_ex2_row_9_overlap_in_its_own_words():
    assert ex02.FIRST_STEPS.read("overlap exps with MMAs") == "overlap"
    assert ex02.check_row(9, N, N, N, N, "overlap exps with MMAs").checks[4].passed
    assert not ex02.check_row(1, N, N, N, N, "overlap exps with MMAs").checks[4].passed


# --- Ex3-1: a wrong ridge carried into s ------------------------------------------------------------

def test_ex3_s_from_a_doubled_ridge_is_sent_to_the_ridge_not_the_count():
    check = ex03.check_crossover("493.4", 978, N, "412.25", 818)
    for c in (check.checks[1], check.checks[4]):
        assert c.status == "fail" and "consistent with your ridge" in c.message, c
        assert "multiply-add" not in c.message
    # with the ridge right, the doubled s still hears the recount hint
    right = ex03.check_crossover("1307.4/5.3", 978, N, N, N).checks[1]
    assert right.status == "fail" and "multiply-add" in right.message
    assert ex03.check_crossover("1307.4/5.3", 489, "no", "989.4/4.8", 409).passed


# --- Ex3-3: "constant (d/2)" -------------------------------------------------------------------------

@pytest.mark.parametrize("answer", ["constant (d/2)", "approaches d/2", "tends to d/2", "constant d/2"])
def test_ex3_constant_named_by_its_limit_is_read(answer):
    assert ex03.GROWTH.read(answer) == "constant"


# --- Ex1-3 and Ex3-4: page text ------------------------------------------------------------------------

@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_pages_allow_ridge_markers_and_do_not_say_the_l2_serves_k_and_v_on_every_gpu(folder):
    one = _markdown("01_place_two_kernels.ipynb", folder)
    assert "four points (ridge markers optional)" in one and "nothing more" not in one
    three = _markdown("03_attention_intensity.ipynb", folder)
    assert "the model assumes a cache serves those re-reads" in three
    assert "assumes the L2 serves" not in three
