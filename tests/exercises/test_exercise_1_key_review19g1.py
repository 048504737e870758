"""Exercise 1's key after review 19g1: a 2 TB/s roof typed in TB/s is named once, without a
second instruction to set a memory_ceiling the points already have; swapped ridges and a rate in
FLOP/s get their own hints."""
from rooflinelib.exercises import ex01_two_kernels as ex01

from test_exercise_1_key_review15a import TWENTY, _figure

TBS_TYPO = [("dram", "memory", 3_000), ("dram-2tbs", "memory", 2), ("fp32", "compute", 120_000)]


def test_a_roof_typed_in_tbs_is_the_one_fault_named():
    check = ex01.check_figure(_figure(TBS_TYPO, TWENTY + [(80, 120e3, None), (80, 120e3, "dram-2tbs")]))
    assert check.status == "fail"
    assert check.message.startswith("your memory roof is at 2 GB/s")
    # the old key went on: "the point for 80 FLOP/byte at 2 TB/s is judged against your 3 TB/s
    # roof ('dram'), ...: give it a memory_ceiling that names your 2 TB/s ceiling"
    assert "judged against" not in check.message and "memory_ceiling" not in check.message


def test_fixing_the_unit_alone_passes():
    fixed = [("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000), ("fp32", "compute", 120_000)]
    assert ex01.check_figure(_figure(fixed, TWENTY + [(80, 120e3, None), (80, 120e3, "dram-2tbs")])).passed


def test_swapped_ridges_are_told_which_bandwidth_each_uses():
    report = ex01.check_ridges(60, 40)
    assert report.status == "fail"
    assert "that is the ridge at 2 TB/s: this one uses 3 TB/s" in report.checks[0].message
    assert ex01.check_ridges(40, 60).passed


def test_a_rate_in_flops_is_told_the_unit():
    report = ex01.check_predictions(60e12, 120, 40, 120)
    assert report.status == "fail"
    assert "that is in FLOP/s: the answer is in TFLOP/s" in report.checks[0].message
    assert ex01.check_predictions(60, 120, 40, 120).passed
