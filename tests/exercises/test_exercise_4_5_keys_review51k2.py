"""Review 51k2: keys 4 and 5 (Part C's opening answers its printed title; named slips; side spellings;
'both' in exercise 5; 0.13 as a rounding of 0.125; the unit message; inverted fractions)."""
import pytest

from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import BOTH_HINT, check_number

from test_exercise_keys_review32b import made_up_setup

RECORDED = ex04.prepare("recorded", progress=None)
ATTEMPT = "the verdict depends on the ridge of the machine, not the kernel"


@pytest.mark.parametrize("setup", [RECORDED, made_up_setup(35_600.0, 900.0, 556.0, 200.0),
                                   made_up_setup(66_000.0, 4_600.0, 4_300.0, 4_200.0)])
def test_part_c_opens_with_the_answer_to_its_printed_title(setup):
    shown = ex04.model_verdict(setup, ATTEMPT)
    # review 58 k45 item 7: the title printed is the question Part C asks first (the same
    # verdict?), and the first word answers it ("Yes, it depends on the hardware" read as "the same")
    datasheet = ex04.side_of_ridge(ex04._keys(setup)["fma"]["intensity"], ex04.H200.ridge("fp32", "dram"))
    same = datasheet == ex04._keys(setup)["fma"]["side"]
    assert str(shown).startswith(f"[MODEL ANSWER] {ex04.PART_C_QUESTION}\n"
                                 + ("Yes, the same verdict: " if same else "No, a different verdict: "))
    first = shown.model_answer.split(". ")[0]
    assert ("the same verdict" in first) == same and ("a different verdict" in first) == (not same)


def test_part_a_names_gib_256n_and_16n():
    shown = str(ex04.check_accounting(lambda n: n, lambda n: 4 * n / 2 ** 30, lambda n: 256 * n,
                                      lambda n: 16 * n))
    assert shown.count("in GiB (2^30 bytes)") == 1
    assert "a multiply-add is 2 FLOPs" in shown and "counts a float32 as 8 bytes" in shown


@pytest.mark.parametrize("text, side", [("below the ridge", "memory"), ("above the ridge", "compute"),
                                        ("borderline", "ridge"), ("both roofs", "ridge")])
def test_side_spellings(text, side):
    assert ex04._SIDES.read(text) == side and ex05._SIDES.read(text) == side


def test_bare_both_hears_the_both_hint_in_exercise_5():
    assert BOTH_HINT in str(ex05.check_drill2(20, "both", 6, 0.2))
    assert "'both'" not in ex05._SIDES.menu()


def test_half_up_rounding_is_a_rounding():
    assert "if you rounded" in check_number("0.13", 0.125, "q").message


def test_fraction_unit_message_is_not_garbled():
    message = check_number("0.133x", 0.1333, "q", unit="fraction").message
    assert "in fraction" not in message and message.endswith("asks for a fraction")


def test_inverted_fractions_are_named():
    assert "divide the attainable rate by the peak" in str(ex05.check_drill2(20, "memory", 6, 7.5))
    assert "divide the achieved rate by the roof" in str(ex05.check_drill3(1, 1, 1, 5, "memory", "profile"))


@pytest.mark.parametrize("text", ["the bigger one", "the greater", "max time"])
def test_drill1_names_of_the_larger_time(text):
    assert ex05.BOUNDS.read(text) == "max"


def test_drill6_larger_and_a_factor_written_as_a_fraction():
    assert ex05.RIDGE_MOVES.read("larger") == "right" and ex05.RIDGE_MOVES.read("up and right") == "right"
    assert ex05.RIDGE_MOVES.read("smaller") == "left"
    assert str(ex05.check_drill6("the ridge moves right, by 20/3", "20/3")).startswith("Drill 6: 2 correct")


def test_about_on_every_numeric_drill_and_linear_without_bound():
    assert str(ex05.check_drill7("about 64", "linearly, without bound")).startswith("Drill 7: 2 correct")
    assert str(ex05.check_drill2("about 300", "memory", "about 120", "about 13%")).startswith("Drill 2: 4 correct")


def test_drill4_it_stays_names_the_side_and_not_compute_stays_refused():
    assert "[PASS] side" in str(ex05.check_drill4(0.125, 0.625, "it stays memory-bound", 5))
    assert "[PASS] side" not in str(ex05.check_drill4(0.125, 0.625, "it stays compute-bound", 5))
    # "not compute-bound" leaves memory and the ridge: still unreadable, never a pass
    assert "[PASS] side" not in str(ex05.check_drill4(0.125, 0.625, "not compute-bound", 5))
