"""Keys 1 to 5 after reviews 46k1 and 46k2.  Each test calls a check with what the review tried,
and fails on the key before this round."""
import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex03_attention as ex03
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED, AnswerError


# --- key 1, item 1: a right roof with the kernel's own rate, or a name/position, in parentheses ---

@pytest.mark.parametrize("answers", [
    ("memory (60 TFLOP/s)", "compute (120 TFLOP/s)", "memory (40 TFLOP/s)", "compute (120 TFLOP/s)"),
    ("memory (dram)", "compute (fp32)", "memory (hbm)", "compute (flat)"),
    ("memory-bound (left of the ridge)", "compute-bound (right of the ridge)",
     "memory bound (sloped)", "compute (right of ridge)"),
])
def test_key1_side_with_agreeing_parenthesis_passes(answers):
    result = ex01.check_active_roofs(*answers)
    assert all(c.passed for c in result.checks), result


@pytest.mark.parametrize("answer", ["memory (90 TFLOP/s)", "memory (right of the ridge)",
                                    "memory (compute)", "memory (120 TFLOP/s)"])
def test_key1_parenthesis_that_contradicts_the_side_is_refused(answer):
    # the 20 FLOP/byte kernel at 3 TB/s is on the memory roof, at 60 TFLOP/s
    check = ex01.check_active_roofs(answer, "compute", "memory", "compute").checks[0]
    assert check.status == "fail", check
    # review 51k1, Ex1-1: the side is right, and the reply says so (only the parentheses are off)
    assert "'memory' is right, but" in check.message and "which roof does it sit under" not in check.message


def test_key1_wrong_side_with_its_own_parenthesis_still_fails():
    check = ex01.check_active_roofs("compute (fp32)", "compute", "memory", "compute").checks[0]
    assert check.status == "fail", check


# --- key 1, item 2: "50% longer" hears the run-time hint, not "unknown unit" ----------------------

def test_key1_percent_longer_hears_the_run_time_hint():
    check = ex01.check_slowdowns("50% longer", 1).checks[0]
    assert check.status == "fail", check
    assert "unknown unit" not in check.message
    assert "how much longer the run takes" in check.message


# --- key 2, item 2: row 6's pass note names the type that was answered --------------------------

@pytest.mark.parametrize("answer", ["int8", "fp8"])
def test_key2_row6_smaller_type_note_fits_the_answer(answer):
    row6 = next(r for r in ex02.ROWS if r.number == 6)
    check = ex02._check_first_step(row6, answer, {})
    assert check.passed, check
    assert "fp8 or int8" in check.message


# --- key 2, item 1: a ridge written as a rate over a bandwidth is read, with no arithmetic eval ----

@pytest.mark.parametrize("answer, value", [("45 TFLOP/s / 3 TB/s", 15), ("120 TFLOP/s/3 TB/s", 40),
                                           ("45 TFLOP/s / 3000 GB/s", 15), ("4e11 FLOP / 2e10 B", 20)])
def test_a_rate_over_a_bandwidth_reads_as_an_intensity(answer, value):
    from rooflinelib.exercises.grading import read_number
    assert read_number(answer, "q", "FLOP/byte") == pytest.approx(value)


def test_key2_ridge_as_rate_over_bandwidth_passes():
    result = ex02.check_ridges("45 TFLOP/s / 3 TB/s", "900 TFLOP/s / 3 TB/s")
    assert all(c.passed for c in result.checks), result


# --- key 3: no hidden option suggested; "increases linearly" reads as linear --------------------

def test_key3_grows_with_s_is_not_pointed_to_a_hidden_option():
    with pytest.raises(AnswerError) as err:
        ex03.GROWTH._read("grows wth s")
    assert "unbounded" not in str(err.value)
    # "grows with s" itself hears "how fast?", the hidden option's own hint
    check = ex03.check_limits("constant", "grows with s", NOT_ANSWERED, NOT_ANSWERED).checks[1]
    assert check.status == "fail" and check.message.endswith(ex03.GROWTH_UNBOUNDED_HINT), check


def test_key3_near_spelling_of_a_hidden_option_suggests_nothing():
    # "unbounde" was told "did you mean 'unbounded'?" (a hidden option); it must not be told
    # the runner-up, 'constant' ("bounded"), either
    with pytest.raises(AnswerError) as err:
        ex03.GROWTH._read("unbounde")
    assert "did you mean" not in str(err.value)


@pytest.mark.parametrize("answer", ["increases linearly", "grows linearly with s",
                                    "increases linearly with s"])
def test_key3_increases_linearly_reads_as_linear(answer):
    assert ex03.GROWTH._read(answer) == "linear"


# --- key 4: the datasheet fp32 peak passes with a note; I x B gets the wrong-bandwidth hint --------

RECORDED = ex04.prepare("recorded", progress=None)


def _fma_roof(answer):
    return ex04.check_placement(RECORDED, *([NOT_ANSWERED] * 7), answer, NOT_ANSWERED,
                                NOT_ANSWERED).checks[7]


def test_key4_datasheet_fp32_peak_passes_with_a_note():
    check = _fma_roof(66_900)
    assert check.passed, check
    assert "datasheet" in check.message and "setup.peak_gflops" in check.message
    key = ex04._keys(RECORDED)["fma"]["roof"]
    plain = _fma_roof(key)
    assert plain.passed and "datasheet" not in plain.message


def test_key4_fma_roof_against_b_names_the_wrong_bandwidth():
    fma = ex04._keys(RECORDED)["fma"]
    check = _fma_roof(fma["intensity"] * RECORDED.peak_gbps)
    assert check.status == "fail", check
    assert "copy ceiling C" in check.message
    assert "cannot exceed the compute roof P" in check.message


# --- key 5, item 1: two phrases of one option; the echo cut at a word boundary --------------------

def test_key5_two_phrases_of_one_option_pass():
    assert ex05.check_drill6("the ridge moves right, to higher intensity", 6.7).checks[0].passed
    assert ex05.check_drill1("max, assuming perfect overlap", 2).checks[0].passed


def test_key5_phrases_naming_two_options_stay_unreadable():
    check = ex05.check_drill1("max, the sum", 2).checks[0]
    assert check.status == "invalid", check


def test_unreadable_echo_is_cut_at_a_word_boundary():
    from rooflinelib.exercises.grading import _echo
    check = ex05.check_drill6("the ridge moves right, to lower intensity", 6.7).checks[0]
    assert check.status == "invalid", check
    assert "'the ridge moves right, to lower...'" in check.message
    assert _echo("the ridge moves right, to higher intensity") == "the ridge moves right, to higher..."


# --- key 5, item 2: drill 3's "ridge" as what bounds the kernel names the misconception -----------

@pytest.mark.parametrize("answer", ["ridge", "at the ridge", "balanced"])
def test_key5_drill3_ridge_as_the_limit_hears_why_not(answer):
    check = ex05.check_drill3(20, 20, 60, 0.2, answer, "profile").checks[4]
    assert check.status == "fail", check
    assert "where it sits, not a limit" in check.message
