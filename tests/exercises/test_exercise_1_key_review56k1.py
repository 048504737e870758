"""Exercise 1's checker after review 56k1: a bandwidth ceiling at a wrong value hears its value
(not that a memory_ceiling was missing or ignored); a right side with the other case's bandwidth
hears that the side is right; a bare 33 and twice or half the ridges hear their slips."""
import pytest

from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.core.placement import KernelPoint
from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.views.plotting import roofline_figure

# --- exercise 1, item 1: a ceiling's value --------------------------------------------------------


def _model_figure(at_3=3_000, at_2=2_000, ceiling_20_at_2="dram-2tbs", ceiling_80_at_2="dram-2tbs"):
    """The solution's figure (cell 11), with the two memory ceilings' values and the 2 TB/s
    points' memory_ceiling as given; every point at its right prediction."""
    machine = Machine("worked-example GPU", ceilings=(
        Ceiling("dram", "memory", at_3), Ceiling("dram-2tbs", "memory", at_2),
        Ceiling("fp32", "compute", 120_000)))
    kernels = [KernelPoint("20 at 3", n_flops=20, n_bytes=1, achieved_gflops=60_000),
               KernelPoint("20 at 2", n_flops=20, n_bytes=1, achieved_gflops=40_000,
                           memory_ceiling=ceiling_20_at_2),
               KernelPoint("80 at 3", n_flops=80, n_bytes=1, achieved_gflops=120_000),
               KernelPoint("80 at 2", n_flops=80, n_bytes=1, achieved_gflops=120_000,
                           memory_ceiling=ceiling_80_at_2)]
    return roofline_figure(machine, kernels), kernels


#: Wrong diagnoses the old checker gave for these figures: none may come back.
_MISSING_OR_IGNORED = ("the one a point without memory_ceiling gets", "the one its memory_ceiling names",
                       "no memory roof at 2 TB/s", "memory= argument can leave it out", "judged against")


@pytest.mark.parametrize("value, slip", [
    (2_200, "TiB for TB? 2 TiB/s is 2,199 GB/s"),
    (2_048, "1,024 GB per TB? A TB is 1,000 GB"),
    (1_819, "TiB for TB? 2 TB/s is 1.82 TiB/s"),
    (3_000, "that is your 3 TB/s ceiling's value, copied from it? Set 'dram-2tbs' to 2_000"),
])
def test_a_2_tbs_ceiling_at_a_wrong_value_hears_its_value_not_a_memory_ceiling_hint(value, slip):
    figure, kernels = _model_figure(at_2=value)
    check = ex01.check_figure(figure, kernels)
    assert check.status == "fail"
    assert check.message.startswith(f"your 'dram-2tbs' ceiling is at {value:,} GB/s, not the 2,000 GB/s "
                                    f"(2 TB/s) the case states: ")
    assert slip in check.message
    for wrong in _MISSING_OR_IGNORED:
        assert wrong not in check.message, (wrong, check.message)
    # the right value still passes
    assert ex01.check_figure(*_model_figure()).passed


def test_a_3_tbs_ceiling_typed_in_tib_is_named_too():
    check = ex01.check_figure(*_model_figure(at_3=3_299))
    assert check.message.startswith("your 'dram' ceiling is at 3,299 GB/s, not the 3,000 GB/s (3 TB/s)")
    assert "TiB for TB? 3 TiB/s is 3,299 GB/s" in check.message
    assert "judged against" not in check.message


def test_a_wrong_value_and_a_point_left_on_the_default_roof_hear_both():
    # the 80 FLOP/byte 2 TB/s point has no memory_ceiling: that hint is true and stays, and it
    # names the ceiling to use, not "draw that ceiling"
    check = ex01.check_figure(*_model_figure(at_2=2_200, ceiling_80_at_2=None))
    assert "your 'dram-2tbs' ceiling is at 2,200 GB/s" in check.message
    assert ("the point for 80 FLOP/byte at 2 TB/s is judged against your 3 TB/s roof ('dram'), the one "
            "a point without memory_ceiling gets: give it memory_ceiling='dram-2tbs', your 2 TB/s "
            "ceiling once its value is right") in check.message
    assert "20 FLOP/byte at 2 TB/s" not in check.message


def test_a_copy_no_point_names_keeps_the_old_hints():
    # both ceilings at 3,000 and no point names the copy: which one was meant is not known, so
    # the missing roof and the points on the default roof are named as before
    check = ex01.check_figure(*_model_figure(at_2=3_000, ceiling_20_at_2=None, ceiling_80_at_2=None))
    assert check.message.startswith("no memory roof at 2 TB/s (the slope is GB/s); the points for "
                                    "20 FLOP/byte at 2 TB/s and 80 FLOP/byte at 2 TB/s are judged "
                                    "against your 3 TB/s roof ('dram')")
    assert "copied" not in check.message


def test_a_ceiling_in_tb_per_s_keeps_its_unit_hint():
    check = ex01.check_figure(*_model_figure(at_2=2))
    assert check.message == ("your memory roof is at 2 GB/s: a memory Ceiling's value is in GB/s, so "
                             "2 TB/s is 2_000")


# --- exercise 1, items 2-4 -----------------------------------------------------------------------

@pytest.mark.parametrize("answer", ["memory (3 TB/s)", "memory at 3 TB/s", "memory 3 TB/s"])
def test_the_right_side_with_the_other_bandwidth_hears_that_the_side_is_right(answer):
    check = ex01._check_active_roof(answer, 20, 2_000.0)
    assert check.status == "fail"
    assert check.message == (f"{answer!r}: 'memory' is right, but 3 TB/s is the roof of the other "
                             "case's bandwidth; this case has 2 TB/s")


def test_the_wrong_side_with_a_bandwidth_still_asks_which_roof():
    check = ex01._check_active_roof("memory (3 TB/s)", 80, 2_000.0)
    assert check.status == "fail" and "is the active roof 'memory' or 'compute'?" in check.message
    assert "is right" not in check.message
    assert ex01._check_active_roof("memory (2 TB/s)", 20, 2_000.0).passed
    assert ex01._check_active_roof("3 TB/s", 20, 2_000.0).message.endswith("'memory' or 'compute'?")


@pytest.mark.parametrize("answer", [33, 33.3, "33", 100 / 3])
def test_a_bare_share_in_percent_hears_the_percent_sign_hint(answer):
    # The question asks old rate / new rate as a factor (1.5); a percentage is read only with
    # its % sign.  A bare 33 is a factor of 33, so it fails, with the hint 0.33 hears.
    check = ex01.check_slowdowns(answer, 1).checks[0]
    assert check.status == "fail"
    assert check.message.startswith("a share of the rate lost, in percent? Write it with %, as '33%'")
    assert ex01.check_slowdowns("33%", 1).passed
    assert ex01.check_slowdowns(0.33, 1).checks[0].message.startswith("a share of the rate lost? Write it with %")


@pytest.mark.parametrize("ridges", [(80, 120), (20, 30)])
def test_twice_or_half_the_ridges_hear_the_factor_of_2(ridges):
    check = ex01.check_ridges(*ridges)
    assert [c.message for c in check.checks] == [ex01._RIDGE_TWICE_OR_HALF] * 2
    assert ex01.check_ridges(40, 60).passed
    # the swapped ridges keep their own hints
    assert "that is the ridge at 2 TB/s" in ex01.check_ridges(60, 40).checks[0].message
