"""The grading primitives: right, wrong, equivalent and malformed answers."""
import math
import pickle
from fractions import Fraction
from decimal import Decimal

import pytest

from rooflinelib.exercises import grading
from rooflinelib.exercises.grading import (NOT_ANSWERED, SIDES, Choices, NotAnsweredError,
                                           check_choice, check_function, check_number, check_side,
                                           read_number, reveal, report)
from rooflinelib.core.model import classify


# --- the sentinel ----------------------------------------------------------------------------

def test_sentinel_is_a_singleton_that_survives_pickling():
    assert grading._NotAnswered() is NOT_ANSWERED
    assert pickle.loads(pickle.dumps(NOT_ANSWERED)) is NOT_ANSWERED
    assert repr(NOT_ANSWERED) == "NOT_ANSWERED"
    assert f"{NOT_ANSWERED}" == "NOT_ANSWERED"


@pytest.mark.parametrize("use", [
    lambda x: x + 1, lambda x: 2 * x, lambda x: x / 12, lambda x: float(x), lambda x: x > 3,
    lambda x: bool(x), lambda x: min(x, 3), lambda x: f"{x:.2f}", lambda x: -x, lambda x: x ** 2,
])
def test_using_the_sentinel_raises_not_answered(use):
    with pytest.raises(NotAnsweredError, match="not answered yet"):
        use(NOT_ANSWERED)


def test_sentinel_equality_is_identity_and_not_an_error():
    assert NOT_ANSWERED == NOT_ANSWERED
    assert NOT_ANSWERED != 0
    assert {NOT_ANSWERED: 1}[NOT_ANSWERED] == 1
    assert grading.is_unanswered(NOT_ANSWERED) and grading.is_unanswered(...)
    assert not grading.is_unanswered(None)


# --- numbers ---------------------------------------------------------------------------------

@pytest.mark.parametrize("answer", [40, 40.0, "40", " 40 ", "120/3", "1.2e2 / 3", "4e1",
                                    Fraction(80, 2), Decimal("40.0"), "40 FLOP/byte", "40flop/B",
                                    "39.5"])
def test_equivalent_forms_of_forty_pass(answer):
    check = check_number(answer, 40, "ridge", unit="FLOP/byte")
    assert check.passed, check


def test_numpy_scalars_pass_and_arrays_are_refused():
    np = pytest.importorskip("numpy")
    assert check_number(np.float32(40), 40, "q").passed
    assert check_number(np.int64(40), 40, "q").passed
    assert check_number(np.array(40.0), 40, "q").passed
    check = check_number(np.array([40.0, 41.0]), 40, "q")
    assert check.status == "invalid" and "one number" in check.message


@pytest.mark.parametrize("answer, unit, key", [
    ("120000 GFLOP/s", "TFLOP/s", 120), ("0.12 PFLOP/s", "TFLOP/s", 120),
    ("3000 GB/s", "TB/s", 3), ("49152 B", "KB", 49.152), ("12.3 ns", "s", 12.3e-9),
    ("12.3 ns", "ns", 12.3), ("13%", "fraction", 0.13), ("2 GiB", "B", 2 ** 31),
    ("120 TFLOPS", "TFLOP/s", 120), ("5x", "x", 5),
])
def test_units_in_the_answer_are_converted(answer, unit, key):
    assert check_number(answer, key, "q", unit=unit).passed


def test_a_unit_of_the_wrong_kind_is_named():
    check = check_number("120 GB/s", 120, "predicted rate", unit="TFLOP/s")
    assert check.status == "invalid"
    assert "bandwidth" in check.message and "compute rate" in check.message


def test_a_unit_on_a_plain_number_and_an_unknown_unit_are_refused():
    assert check_number("5 GB", 5, "ratio").status == "invalid"
    assert "unknown unit" in check_number("5 furlongs", 5, "q", unit="B").message


@pytest.mark.parametrize("answer, says", [
    (None, "None"), (float("nan"), "NaN"), (float("inf"), "infinite"), (True, "yes/no"),
    ("abc", "could not read"), ("", "empty"), ([40], "one number"), ({"a": 1}, "one number"),
    (1 + 2j, "complex"), (object(), "expected a number"), ("1,0", "comma"),
    ("__import__('os').system('true')", "could not read"), ("9**9**9**9", "could not read"),
    ("x" * 500, "could not read"),
])
def test_malformed_answers_say_what_is_wrong_and_never_raise(answer, says):
    check = check_number(answer, 40, "ridge")
    assert check.status == "invalid", check
    assert says in check.message
    assert "\n" not in check.message


@pytest.mark.parametrize("answer", [NOT_ANSWERED, ..., "TODO", "?"])
def test_unanswered_forms_report_not_answered_yet(answer):
    check = check_number(answer, 40, "ridge")
    assert check.status == "unanswered"
    assert "NOT ANSWERED YET" in str(check)
    assert not check and not check.passed and not check.answered


def test_thousands_separators_are_read():
    assert check_number("1,365", 1365, "q").passed
    assert check_number("1,365.3", 1365.3, "q").passed


def test_a_listed_mistake_gets_its_hint():
    check = check_number(1 / 4, 1 / 12, "vector add intensity",
                         mistakes=[(1 / 4, "you counted the bytes of one array only")])
    assert check.status == "fail"
    assert check.message == "you counted the bytes of one array only"


def test_the_key_wins_over_a_mistake_that_is_equally_close():
    assert check_number(0.25, 0.25, "q", mistakes=[(0.25, "slip")]).passed


@pytest.mark.parametrize("answer, says", [
    (40e3, "1,000"), (40e-3, "1,000"), (40e12, "10^12"), (320, "factor of 8"), (80, "factor of 2"),
    (20, "factor of 2"), (40 * 2 ** 30 / 1e9, "GiB"), (41.5, "too high"), (12, "too low"),
    (-40, "positive"), (0, "positive"),
])
def test_generic_hints_name_the_telling_factor(answer, says):
    check = check_number(answer, 40, "ridge")
    assert check.status == "fail"
    assert says in check.message


@pytest.mark.parametrize("key", [1 / 12, 40, 4136.5, 0.13, 1365.33, 3e12])
def test_failure_messages_never_contain_the_key(key):
    for wrong in (key * 1.5, key * 0.3, key * 7, key + 1, -key):
        message = check_number(wrong, key, "q").message
        for form in (f"{key}", f"{key:g}", f"{key:.2f}", f"{key:.3g}", f"{key:.1f}", f"{key:,.0f}"):
            assert form not in message or form in f"{wrong}", (wrong, key, message)


def test_percentages_and_absolute_tolerance():
    assert check_number(13, 0.13, "q", unit="fraction").passed
    assert not check_number(13, 0.13, "q", unit="fraction", percent_ok=False).passed
    assert check_number(491, 490, "s", atol=1, rtol=0).passed
    assert not check_number(492, 490, "s", atol=1, rtol=0).passed
    assert "±1" in check_number(491, 490, "s", atol=1, rtol=0).message


def test_tolerance_is_stated_on_pass():
    assert "±2%" in check_number(40, 40, "q").message
    assert "±5%" in check_number(40, 40, "q", rtol=0.05).message


# --- choices ---------------------------------------------------------------------------------

@pytest.mark.parametrize("answer", ["memory", "Memory-bound", "memory bound", "MEMORY_BOUND",
                                    "bandwidth-bound", "bandwidth limited", "HBM bandwidth",
                                    "the memory roof", "memory-bound."])
def test_memory_synonyms(answer):
    assert check_choice(answer, "memory", "side", SIDES).passed


@pytest.mark.parametrize("answer", ["compute", "compute-bound", "Compute Bound", "FLOP-bound"])
def test_compute_synonyms(answer):
    assert check_choice(answer, "compute", "side", SIDES).passed


def test_a_verdict_object_is_read_by_its_side():
    verdict = classify(20, 120_000, 3000)
    assert check_choice(verdict, "memory", "side", SIDES).passed


def test_a_misspelling_gets_a_suggestion_not_a_verdict():
    check = check_choice("memroy", "memory", "side", SIDES)
    assert check.status == "invalid" and "did you mean 'memory'" in check.message


@pytest.mark.parametrize("answer", [None, 3, ["memory"], "", "purple"])
def test_unreadable_choices_are_invalid(answer):
    check = check_choice(answer, "memory", "side", SIDES)
    assert check.status == "invalid"
    assert "\n" not in check.message


def test_a_wrong_choice_gets_its_hint_without_naming_the_key():
    check = check_choice("compute", "memory", "side", SIDES, hints={"compute": "which roof is lower?"})
    assert check.status == "fail" and check.message == "which roof is lower?"
    generic = check_choice("ridge", "memory", "side", SIDES)
    assert generic.status == "fail" and "'memory'" not in generic.message


def test_choices_accept_a_set_and_refuse_unknown_keys():
    assert check_choice("compute", {"memory", "compute"}, "q", SIDES).passed
    with pytest.raises(ValueError):
        check_choice("memory", "sideways", "q", SIDES)


def test_ambiguous_synonyms_are_refused_when_defined():
    with pytest.raises(ValueError, match="names both"):
        Choices({"a": ("first", ("x",)), "b": ("second", ("x",))})


def test_check_side_uses_the_models_ridge_band():
    assert check_side("memory", 124, 300, "vs 300").passed
    assert check_side("compute", 124, 15, "vs 15").passed
    assert check_side("ridge", 20, 20, "at").passed
    assert check_side("memory", 124, 15, "vs 15").status == "fail"


# --- functions -------------------------------------------------------------------------------

SAMPLES = [dict(s=512, d=64), dict(s=8192, d=128)]


def reference(s, d):
    return 8 * s * d


def test_a_right_function_passes():
    assert check_function(lambda s, d: 8 * d * s, reference, SAMPLES, "bytes").passed


def test_a_function_matching_a_listed_mistake_gets_its_hint():
    check = check_function(lambda s, d: 4 * s * d, reference, SAMPLES, "bytes",
                           mistakes=[(lambda s, d: 4 * s * d, "bf16 is 2 bytes")])
    assert check.message == "bf16 is 2 bytes"


def test_a_wrong_function_names_a_failing_point_not_the_key():
    check = check_function(lambda s, d: 8 * s * d if s < 1000 else 1.0, reference, SAMPLES, "b")
    assert check.status == "fail" and "s=8192, d=128" in check.message and "too low" in check.message
    assert str(reference(8192, 128)) not in check.message


@pytest.mark.parametrize("function, says", [
    (None, "None"), (42, "expected a function"), (lambda s: s, "calling it"),
    (lambda s, d: 1 / 0, "ZeroDivisionError"), (lambda s, d: "lots", "unusable"),
    (lambda s, d: None, "None"), (lambda s, d: float("nan"), "NaN"),
])
def test_broken_functions_are_invalid_not_crashes(function, says):
    check = check_function(function, reference, SAMPLES, "bytes")
    assert check.status == "invalid" and says in check.message


def test_stub_functions_are_unanswered():
    def stub(s, d):
        return NOT_ANSWERED

    def half_done(s, d):
        return NOT_ANSWERED * 2

    assert check_function(stub, reference, SAMPLES, "b").status == "unanswered"
    assert check_function(half_done, reference, SAMPLES, "b").status == "unanswered"
    assert check_function(NOT_ANSWERED, reference, SAMPLES, "b").status == "unanswered"


# --- prose and reports -----------------------------------------------------------------------

def test_reveal_waits_for_a_real_attempt():
    model = "Because the ridge moved right."
    assert reveal(NOT_ANSWERED, model, "q").status == "unanswered"
    assert model not in str(reveal(NOT_ANSWERED, model, "q"))
    short = reveal("dunno", model, "q")
    assert short.status == "invalid" and model not in str(short) and "8 words" in short.message
    assert reveal(None, model, "q").status == "invalid"
    assert reveal(12, model, "q").status == "invalid"
    shown = reveal("the compute roof grew much faster than bandwidth did over the years", model,
                   "q", key_points=["ridge = P/B"])
    assert shown.revealed and model in str(shown) and "ridge = P/B" in str(shown)
    assert model in shown._repr_html_()


def test_report_status_and_summary():
    ok = check_number(40, 40, "a")
    bad = check_number(41.5, 40, "b")
    todo = check_number(NOT_ANSWERED, 40, "c")
    junk = check_number(None, 40, "d")
    assert report("row", ok, ok).status == "pass" and report("row", ok).passed
    assert report("row", todo, todo).status == "unanswered"
    assert report("row", ok, todo).status == "unanswered" and not report("row", ok, todo).passed
    assert report("row", ok, bad).status == "fail"
    assert report("row", ok, bad, junk).status == "invalid"
    text = str(report("row 1", ok, todo))
    assert "1 correct" in text and "1 not answered yet" in text
    nested = report("all", report("r1", ok), report("r2", todo))
    assert len(nested.checks) == 2


def test_check_renders_as_html_with_escaped_text():
    check = check_choice("<b>", "memory", "side <i>", SIDES)
    assert "<b>" not in check._repr_html_().replace("<b style", "").replace("</b>", "")


def test_read_number_is_usable_directly():
    assert read_number("3 TB/s", unit="GB/s") == pytest.approx(3000)
    with pytest.raises(NotAnsweredError):
        read_number(NOT_ANSWERED)
    with pytest.raises(grading.AnswerError):
        read_number(math.nan)


def test_fractions_pass_as_rounded_percentages_without_prefix_hints():
    assert check_number("13%", 0.1333, "q", unit="fraction").passed
    assert "percentage points" in check_number(0.133, 0.1333, "q", unit="fraction").message
    wrong = check_number(0.512, 0.5, "q", unit="fraction")  # off by 1.024, as KiB would be
    assert wrong.status == "fail" and "KiB" not in wrong.message
    assert "KiB" in check_number("80 KB", 81920, "q", unit="B").message


# --- an answer cell that stopped at an error (issue 24) ----------------------------------------

class _Result:
    def __init__(self, error):
        self.error_in_exec, self.error_before_exec = error, None


class _Shell:
    def __init__(self, error):
        self.last_execution_result = _Result(error)


def _fake_ipython(monkeypatch, error):
    import sys
    import types
    module = types.ModuleType("IPython")
    module.get_ipython = lambda: _Shell(error)
    monkeypatch.setitem(sys.modules, "IPython", module)


def test_a_check_after_an_answer_cell_that_raised_says_what_failed(monkeypatch):
    _fake_ipython(monkeypatch, NameError("name 'peak_gflop' is not defined"))
    for check in (check_number(NOT_ANSWERED, 15.0, "ridge"), check_choice(NOT_ANSWERED, "memory", "side", SIDES)):
        assert check.status == "invalid", check
        assert "NameError: name 'peak_gflop' is not defined" in check.message
        assert "NOT ANSWERED YET" not in str(check)
    shown = reveal(NOT_ANSWERED, "model", "why")
    assert shown.status == "invalid" and "NameError" in shown.message


def test_after_a_cell_that_ran_through_the_stub_is_still_not_answered(monkeypatch):
    _fake_ipython(monkeypatch, None)
    check = check_number(NOT_ANSWERED, 15.0, "ridge")
    assert check.status == "unanswered" and check.message == grading.UNANSWERED_MESSAGE


@pytest.mark.parametrize("text", ["1e", "1e+", "2.5E", "1e GB/s", "3e-"])
def test_a_number_cut_at_its_exponent_is_called_incomplete_not_a_unit(text):
    check = check_number(text, 1.0, "peak", unit="GB/s")
    assert check.status == "invalid"
    assert "incomplete number" in check.message and "unknown unit" not in check.message


def test_a_choice_pass_can_say_why_that_right_answer_is_right():
    # review 5a T7: a second right answer passes with its own note, never a bare "correct"
    from rooflinelib.exercises.grading import Choices, check_choice
    menu = Choices({"fuse": ("fuse it", ()), "tile": ("tile it", ())})
    assert check_choice("tile", {"fuse", "tile"}, "q", menu, notes={"tile": "right too, for another reason"}).message == \
        "right too, for another reason"
    assert check_choice("fuse", {"fuse", "tile"}, "q", menu, notes={"tile": "right too"}).message == "correct"
    with pytest.raises(ValueError, match="notes"):
        check_choice("fuse", {"fuse"}, "q", menu, notes={"tile": "not an accepted option"})


def test_a_model_answers_asides_come_after_it_as_a_list():
    # review 5a C16: asides listed under "Also", after the answer and before the key points
    from rooflinelib.exercises.grading import reveal
    shown = reveal("an attempt of my own with enough words in it", "The answer.\n- point one\n- point two",
                   "q", key_points=("k",), also=("an aside",))
    text = str(shown)
    assert text.index("The answer.") < text.index("Also:") < text.index("  - an aside") < text.index("Does your")
    html = shown._repr_html_()
    assert html.count("<li>") == 4 and "<p>Also:</p>" in html and "<p>The answer.</p><ul><li>point one" in html
    assert reveal("too short", "x", "q", also=("an aside",)).also == ()
