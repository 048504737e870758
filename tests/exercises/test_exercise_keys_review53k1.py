"""Exercises 1-3's checkers after review 53k1: right answers the checkers could not read, hints
that pointed a student at a refused option or named the wrong slip, and no wrong answer let through."""
import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex03_attention as ex03
from rooflinelib.exercises.grading import NOT_ANSWERED as N, check_number

# --- exercise 2 --------------------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["fewer and larger launches", "fewer, larger launches",
                                    "one bigger launch", "larger launch", "bigger launch",
                                    "bigger launches", "one launch", "launch once",
                                    "batch the launches", "merge launches"])
def test_c1_a_larger_launch_reads_as_amortize_launch_and_passes(answer):
    assert ex02.FIRST_STEPS.read(answer) == "amortize-launch"
    check = ex02.check_tiny_launch(N, N, N, N, answer).checks[-1]
    assert check.status == "pass", check
    # 'batch' (more FLOPs per byte) is still refused there
    assert ex02.check_tiny_launch(N, N, N, N, "batch").checks[-1].status == "fail"


def test_c1_model_answer_comment_names_a_readable_option():
    # the solution's comment "one bigger launch" and the menu's "fewer and larger launches"
    desc = ex02.FIRST_STEPS.options["amortize-launch"][0]
    assert "fewer and larger launches" in desc
    assert ex02.FIRST_STEPS.read("one bigger launch") == "amortize-launch"


# review 56k1: "pipelining" and "software pipelining" name the exp/MMA overlap too
# (FlashAttention-3's intra-warpgroup pipelining), so they pass on row 9 now
# (test_exercise_2_key_review56k1.py); the load-only examples keep the hint
@pytest.mark.parametrize("answer", ["prefetch", "prefetching",
                                    "double buffering", "double-buffering", "async copies", "async copy"])
def test_row_9_every_load_overlap_example_of_the_menu_entry_hears_the_same_hint(answer):
    row = ex02._row(9)
    check = ex02.check_row(9, row.intensity, "compute", "compute", "compute", answer).checks[-1]
    assert check.status == "fail" and check.message == row.load_overlap_hint
    # on a row where overlap is not graded by that hint, the same words still read as 'overlap'
    assert ex02.FIRST_STEPS.read(answer) == "overlap"
    assert ex02.check_row(9, row.intensity, "compute", "compute", "compute",
                          "overlap exps with mmas").checks[-1].passed


def test_row_9_fp8_hint_leads_with_the_missing_roof():
    message = ex02.check_row(9, N, N, N, N, "fp8").checks[-1].message
    assert "this GPU lists no fp8 roof, so a smaller type has no faster units to reach" in message
    assert "(this GPU's table gives no fp8 roof)" not in message
    assert "fp8 pays only through faster units: its MMAs would speed up" not in message


@pytest.mark.parametrize("answer", ["host dispatch", "dispatch", "dispatch overhead", "host overhead",
                                    "python overhead"])
def test_c1_the_tables_own_words_for_the_overhead_read_as_launch(answer):
    assert ex02.check_tiny_launch(N, N, N, answer, N).checks[3].passed


def test_part_a_swapped_ridges_are_named():
    check = ex02.check_ridges(300, 15)
    assert all(c.status == "fail" and "ridge of the other compute roof" in c.message for c in check.checks)
    assert ex02.check_ridges(15, 300).passed


def test_c3_listing_offers_only_the_pages_menu_and_reads_the_l2_ceiling():
    with pytest.raises(Exception) as raised:
        ex02.C3_LIMITERS._read("a level of some sort")
    assert "'l1'" not in str(raised.value)
    assert ex02.C3_LIMITERS._read("l1") == "l1"  # still read, for its own hint
    for answer in ("the L2 bandwidth ceiling", "l2 ceiling"):
        assert ex02.C3_LIMITERS._read(answer) == "cache"


def test_row_1_tile_hears_that_there_is_no_reuse():
    row = ex02._row(1)
    check = ex02.check_row(1, row.intensity, "memory", "memory", "memory", "tile").checks[-1]
    assert check.status == "fail" and "each element is used exactly once" in check.message


def test_flops_per_b_is_an_intensity_unit():
    assert check_number("0.25 FLOPs/B", 0.25, "intensity", unit="FLOP/byte").passed


# --- exercise 3 --------------------------------------------------------------------------------

def test_ex3_a_rounded_ridge_hears_the_rounding_hint_not_the_prefix_hint():
    check = ex03.check_crossover(N, N, N, 200, N)
    message = check.checks[3].message
    assert check.checks[3].status == "fail"
    assert "1,024" not in message and "keep three significant figures" in message
    # the exact 1,024 slip is still named
    slip = ex03.check_crossover(N, N, N, ex03.H200.ridge(ex03.BF16_TENSOR) / 1.024, N).checks[3]
    assert slip.status == "fail" and "1,024" in slip.message


@pytest.mark.parametrize("fused, unfused", [("linearly with s", "plateau"),
                                            ("grows with s linearly", "constant ~ d/2"),
                                            ("s/2", "asymptotes"), ("~s/2", "d/2")])
def test_ex3_natural_growth_phrasings_pass(fused, unfused):
    assert ex03.GROWTH.read(fused) == "linear" and ex03.GROWTH.read(unfused) == "constant"


def test_ex3_growth_phrasings_swapped_still_fail():
    assert ex03.GROWTH.read("s/2") != ex03.GROWTH.read("d/2")


# --- exercise 1 --------------------------------------------------------------------------------

@pytest.mark.parametrize("factor, unit", [(1e9, "FLOP/s"), (1e3, "MFLOP/s")])
def test_ex1_points_a_power_of_1000_above_get_the_unit_hint(factor, unit, monkeypatch):
    import test_exercise_1_key_review11a as fig
    monkeypatch.setattr(fig, "RATES", tuple(r * factor for r in fig.RATES))
    figure = fig._figure([("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000),
                          ("fp32", "compute", 120_000)], (None, None, "dram-2tbs", "dram-2tbs"))
    message = ex01.check_figure(figure).message
    assert message == (f"your points sit {factor:,.0f} times above the predictions: achieved_gflops is "
                       f"in GFLOP/s, so divide your {unit} by {factor:,.0f}")
    assert "cap it" not in message


@pytest.mark.parametrize("answer", ["memory, left of the ridge", "memory roof at 3 TB/s", "memory at 3 TB/s",
                                    "memory (dram)", "memory (20 < 60)", "memory, 3 TB/s"])
def test_ex1_a_side_with_its_roof_or_a_comment_passes(answer):
    # "memory (dram-2tbs)" passed here until review 58k13 (key 1, item 2): the page's name for the
    # 2 TB/s ceiling now reads as that bandwidth, the other case's (test_exercise_keys_review58k13.py)
    assert ex01._check_active_roof(answer, 20, 3000.0).passed


@pytest.mark.parametrize("answer", ["memory 2 TB/s", "compute at 3 TB/s", "compute, left of the ridge",
                                    "memory, right of the ridge", "compute (20 < 60)", "compute (dram-2tbs)"])
def test_ex1_a_wrong_side_or_roof_still_fails(answer):
    check = ex01._check_active_roof(answer, 20, 3000.0)
    assert check.status == "fail", check


def test_ex1_a_bare_number_in_parentheses_is_not_a_comment():
    assert ex01._check_active_roof("memory (40)", 20, 3000.0).status == "invalid"


@pytest.mark.parametrize("answer", ["x1.5", "× 1.5"])
def test_ex1_a_leading_times_sign_reads_as_the_factor(answer):
    assert ex01.check_slowdowns(answer, 1).checks[0].passed
    assert not ex01.check_slowdowns("x1.2", 1).checks[0].passed


@pytest.mark.parametrize("answer", ["same", "the same", "unaffected", "no effect", "no difference"])
def test_ex1_no_change_words_read_as_1(answer):
    check = ex01.check_slowdowns(1.5, answer)
    assert check.checks[1].passed
    assert not ex01.check_slowdowns(answer, 1).checks[0].passed
