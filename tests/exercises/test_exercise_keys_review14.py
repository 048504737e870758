"""The keys of exercises 2, 4 and 5 after review 14: one rule for a smaller data type on every row
of exercise 2 (K14-1), C3's "unmodelled" refused with its reason (K14-2), no side passes on a wrong
intensity alone (K14-3); exercise 4's reduction placed under the fp64 roof its float64 adds run on
(K14-4); drill 8's ratios computed from the H200's ceilings (K14-5) and drill 1's no-overlap sum
called an upper estimate, not a floor (K14-6)."""
from pathlib import Path

import nbformat
import pytest

from rooflinelib.core.machines import H200
from rooflinelib.core.model import side_of_ridge
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED

ROOT = Path(__file__).resolve().parents[2]
RULE = ("a smaller type is a first move where the kernel is memory-bound and its bytes scale with "
        "the element size")


def _cells(path):
    return nbformat.read(str(ROOT / path), as_version=4).cells


def _first_move(number, answer):
    return ex02.check_row(number, *[NOT_ANSWERED] * 4, answer).checks[4]


# --- K14-1: one rule for a smaller data type, stated in every ruling ----------------------------

# Each row's kernel against the rule, worked out here and not read from the key: memory-bound
# with bytes that scale with the element (accepted); an untiled or small-tiled GEMM whose
# intensity is set by missing reuse (refused: tile first); compute-bound (refused).
RULINGS = {1: ("pass", "memory-bound"), 2: ("pass", "memory-bound"), 3: ("pass", "memory-bound"),
           4: ("fail", "missing reuse"), 5: ("fail", "missing reuse"), 6: ("pass", "memory-bound"),
           7: ("pass", "compute-bound"), 8: ("pass", "memory-bound"), 9: ("fail", "compute-bound")}


@pytest.mark.parametrize("number", sorted(RULINGS))
def test_every_row_rules_on_a_smaller_type_by_the_one_rule_and_states_it(number):
    status, reason = RULINGS[number]
    check = _first_move(number, "smaller dtype")
    assert check.status == status, check
    assert RULE in check.message and reason in check.message, check
    if status == "fail":  # a refusal names no option of the menu
        assert "instruction-mix" not in check.message and "tiling" not in check.message


def test_the_rows_verdicts_agree_with_the_rulings():
    # the rule's inputs, as the key computes them: memory-bound rows 1-6 and 8, compute-bound 7, 9
    assert [r.number for r in ex02.ROWS if r.verdict == "memory"] == [1, 2, 3, 4, 5, 6, 8]
    assert [r.number for r in ex02.ROWS if r.missing_reuse] == [4, 5]
    assert {r.number for r in ex02.ROWS
            if ex02.smaller_type_is_a_first_move(r) or r.dtype_is_matrix_route} == {
        n for n, (status, _) in RULINGS.items() if status == "pass"}


def test_part_c_and_drill_3_state_the_rule_when_they_refuse_a_smaller_type():
    c1 = ex02.check_tiny_launch(*[NOT_ANSWERED] * 4, "smaller dtype").checks[4]
    c2 = ex02.check_far_below(*[NOT_ANSWERED] * 5, "smaller dtype").checks[5]
    d3 = ex05.check_drill3(*[NOT_ANSWERED] * 5, "smaller dtype").checks[5]
    for check in (c1, c2, d3):
        assert check.status == "fail" and RULE in check.message, check
    assert "launch sets the time" in c1.message and "far below its roof" in c2.message


# --- K14-2: C3's "unmodelled" -------------------------------------------------------------------

def test_c3_refuses_unmodelled_and_says_why():
    # C3 asks what bounds the kernel; the profiler puts L2 at 92% of its own ceiling, a roof a
    # roofline with one roof per level draws, so "no roof accounts for the time" is not true here
    check = ex02.check_cache_resident(*[NOT_ANSWERED] * 4, "unmodelled")
    check = check.checks[4]
    assert check.status == "fail"
    assert "'unmodelled' means that no roof accounts for the time" in check.message
    assert f"{ex02.CACHE_L2_CEILING_FRACTION:.0%} of that level's own ceiling" in check.message
    assert "cache" not in check.message.lower()  # the hint does not name the option
    assert ex02.check_cache_resident(*[NOT_ANSWERED] * 4, "cache").checks[4].passed


# --- K14-3: a side graded on a wrong intensity never shows a plain PASS --------------------------

def _sides_for(intensity, row):
    return [side_of_ridge(intensity, ridge) for ridge in
            (ex02.MACHINE.ridge("fp32"), ex02.MACHINE.ridge(ex02.BF16_TENSOR), row.ridge)]


def test_sides_consistent_with_a_wrong_intensity_pass_only_where_right():
    # every row, with each wrong intensity its key recognises, compared rightly: a side passes
    # only where it is right for the kernel's own intensity (the old key passed them all)
    consistent = 0
    for row in ex02.ROWS:
        right = _sides_for(row.intensity, row)
        for wrong, _ in row.intensity_mistakes:
            answers = _sides_for(wrong, row)  # a right comparison of the wrong number
            checks = ex02.check_row(row.number, wrong, *answers, NOT_ANSWERED).checks
            assert checks[0].status == "fail"
            for answer, key, check in zip(answers, right, checks[1:4]):
                assert check.passed == (answer == key), (row.number, wrong, check)
                if not check.passed:
                    consistent += 1
                    assert "consistent with your intensity" in check.message, check
    assert consistent >= 4  # rows 4, 5, 8 and 9 have wrong intensities on another side


def test_a_pass_after_a_wrong_intensity_says_it_holds_for_the_right_one():
    check = ex02.check_row(8, 2731, "compute", NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED).checks[1]
    assert check.passed and "right intensity" in check.message and "2731" in check.message
    assert "which is itself wrong" not in check.message  # the old pass on the student's number


# --- K14-4: exercise 4's reduction under the fp64 roof ------------------------------------------

RECORDED = ex04.prepare("recorded", progress=None)


def test_the_recording_keeps_the_fp64_ceiling_of_its_own_lab_1_session():
    log = (ROOT / "docs/measurements/h200_mixes_b/ex03_record.log").read_text()
    assert f"fp64 fma_peak<fp64> chains 8 x unroll 32: {RECORDED.fp64_gflops:,.1f} GFLOP/s" in log
    assert RECORDED.reduction_peak_gflops == RECORDED.fp64_gflops < RECORDED.peak_gflops
    assert "fp64 roof" in str(RECORDED) and "P64 / R taken as known" in str(RECORDED)


def test_the_reduction_key_computes_with_the_fp64_roof_its_text_names():
    red = ex04._keys(RECORDED)["reduction"]
    assert red["peak"] == RECORDED.fp64_gflops
    assert red["ridge"] == pytest.approx(RECORDED.fp64_gflops / RECORDED.read_gbps)
    assert red["ridge"] == pytest.approx(RECORDED.read_ridge)
    # a roof between the fp64 and fp32 peaks is above the reduction's compute roof
    between = (RECORDED.fp64_gflops + RECORDED.peak_gflops) / 2
    names = [NOT_ANSWERED] * 10
    names[2] = between
    check = ex04.check_placement(RECORDED, *names).checks[2]
    assert check.status == "fail" and "float64 adds, the fp64 one" in check.message
    # the fp64 peak itself as the roof hears the fp64 hint, not the fp32 one (review 39k2: an FMA peak)
    names[2] = RECORDED.fp64_gflops
    assert "the fp64 roof (an FMA peak" in ex04.check_placement(RECORDED, *names).checks[2].message
    also = " ".join(ex04.model_verdict(RECORDED, "the ridge moves between machines, not the kernel").also)
    assert f"P64 = {RECORDED.fp64_gflops:,.0f} GFLOP/s" in also and f"P64 / R = {red['ridge']:.3g}" in also
    assert "whichever P is used" not in also


def test_without_an_fp64_row_the_reduction_falls_back_to_p_and_says_so():
    from dataclasses import replace
    machine = replace(RECORDED.machine, ceilings=tuple(c for c in RECORDED.machine.ceilings if c.name != "fp64"))
    bare = replace(RECORDED, machine=machine)
    assert bare.fp64_gflops is None and bare.reduction_peak_gflops == bare.peak_gflops
    assert "upper bound" in str(bare)
    also = " ".join(ex04.model_verdict(bare, "the ridge moves between machines, not the kernel").also)
    assert "hold no fp64 row" in also


def test_the_solution_places_the_reduction_under_p64():
    for path in ("solutions/04_place_your_kernel.ipynb", "exercises/04_place_your_kernel.ipynb"):
        text = "\n".join(c.source for c in _cells(path))
        assert "setup.reduction_peak_gflops" in text
        assert "| `P64` | the fp64 compute roof" in text
        assert "| `P` | the fp32 compute roof | GFLOP/s | both kernels |" not in text
    solution = "\n".join(c.source for c in _cells("solutions/04_place_your_kernel.ipynb"))
    assert "reduction_roof = min(P64, reduction_intensity * R)" in solution
    assert "side_of_ridge(reduction_intensity, P64 / R)" in solution


# --- K14-5 and K14-6: exercise 5 ----------------------------------------------------------------

def test_drill_8_ratios_come_from_the_h200_ceilings():
    fp32 = H200.ceiling("fp32").value
    bf16, tf32 = (H200.ceiling(n).value / fp32 for n in ("bf16-tensor", "tf32-tensor"))
    answer = " ".join(ex05.MODEL_ANSWERS[8][0].split())
    # review 26k2: the like-for-like tf32 ratio leads, bf16 second
    assert f"about {tf32:.1f} times faster in tf32 on an H200 ({bf16:.1f} in bf16," in answer
    assert "(7 in tf32)" not in answer and ex05.drill8_ratios() == {"bf16": bf16, "tf32": tf32}


def test_drill_1_does_not_call_the_sum_a_floor():
    # K14-6, as review 16c sharpened it: the sum is the model's no-overlap time, neither a floor
    # nor (for a real kernel) a ceiling; test_exercise_keys_review16 checks the new wording.
    text, points = ex05.MODEL_ANSWERS[1]
    text = " ".join(text.split())
    assert "the floor is F/P + M/B" not in text
    assert "The sum, F/P + M/B, is the model's time with no overlap" in text
    assert not any("no-overlap bound" in p for p in points)
    assert ex05.BOUNDS.options["sum"][0].startswith("F/P + M/B: the model's time with no overlap")
    assert ex05.check_drill1("max", 2).passed and not ex05.check_drill1("sum", 2).passed
    for path in ("solutions/05_conceptual_drills.ipynb", "exercises/05_conceptual_drills.ipynb"):
        text = " ".join(" ".join(c.source.split()) for c in _cells(path))
        assert "The sum is the model's time with no overlap: at most how many times the max is it?" in text
    solution = " ".join(" ".join(c.source.split()) for c in _cells("solutions/05_conceptual_drills.ipynb"))
    assert "model's time is the sum, up to twice as long; a kernel that stalls takes longer still" in solution
    assert "bound is the sum" not in solution
