"""The library behind the course sections that close the gaps of "The course, complete": the
kitchen of notebook 00, the chart reading of notebook 01, Lab 2's five steps (notebook 03), the
AMD/NVIDIA table (notebook 05), the tradeoffs and the use cases (notebooks 05 and 06)."""
import math

import pytest

from rooflinelib.lessons import analogy, chart_reading, pitfalls, use_cases
from rooflinelib.core import placement, vendors
from rooflinelib.hierarchy import ncu
from rooflinelib.core.machines import H100_SXM, H200, MI300X
from rooflinelib.core.model import ADVICE, Roofline


def test_the_kitchen_waits_90_percent_with_one_van_and_is_chef_bound_with_twenty():
    one = analogy.kitchen()
    assert (one["work_per_min"], one["chef_waiting"], one["bound"], one["ridge"]) == (10.0, 0.9, "the deliveries", 10.0)
    twenty = analogy.kitchen(vans=20)
    assert twenty["work_per_min"] == 100.0 and twenty["bound"] == "the chef" and twenty["chef_waiting"] == 0
    assert (twenty["crates_delivered_per_min"], twenty["crates_used_per_min"]) == (200.0, 100.0)
    stew = analogy.kitchen(work_per_crate=60)
    assert stew["bound"] == "the chef"  # more work per crate, same van: past the ridge
    # one unit per quantity: work a minute, crates a minute, work per crate (was "100 prepped a
    # minute" for a stew, ingredients and work taken for one unit)
    assert stew["work_per_min"] == 100.0 and abs(stew["crates_used_per_min"] - 100 / 60) < 1e-12
    with pytest.raises(ValueError, match="vans"):
        analogy.kitchen(vans=0)


def test_the_three_breaks_quote_only_figures_the_course_recorded():
    figures = analogy.break_figures()
    launch = figures["launch"]
    # the device's own cost of a launch (an empty kernel in a CUDA graph, recorded on the H200),
    # not the 42 us Numba's device events saw, which is host dispatch
    assert 0.5e-6 < launch["device_launch_s"] < 0.7e-6 and launch["source"].startswith("recorded on NVIDIA H200")
    assert launch["n_bytes"] == 49_152 and abs(launch["traffic_s"] - 49_152 / 4.8e12) < 1e-15
    assert 50 < launch["launch_over_traffic"] < 65
    assert 20e-6 < launch["numba_dispatch_s"] < 40e-6
    # notebook 06 quotes the run's other launch experiment: both are there, as one range
    assert 0.5e-6 < launch["second_device_launch_s"] < 0.7e-6 and launch["second_device_launch_s"] != launch["device_launch_s"]
    assert 20e-6 < launch["second_numba_dispatch_s"] < 40e-6
    roofs = figures["roofs"]
    assert (roofs["low"], roofs["low_gflops"], roofs["high_gflops"]) == ("fp32 vector, unpacked", 81_700, 2_614_900)
    assert round(roofs["ratio"]) == 32 and round(roofs["ratio_to_packed"]) == 16
    cache = figures["cache"]  # review 51a: computed from one FMA per element per read, not typed in
    assert (cache["row_bytes"], cache["reads"], cache["n_flops"]) == (16_384, 5, 2 * 4096 * 5)
    assert (cache["cache_bytes"], cache["hbm_bytes"]) == (5 * 16_384, 16_384)
    assert (cache["cache_intensity"], cache["hbm_intensity"], cache["hbm_over_l2_intensity"]) == (0.5, 2.5, 5.0)


def test_a_log_axis_spaces_equal_factors_equally():
    assert chart_reading.log_positions([1, 10, 100]) == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="positive"):
        chart_reading.log_positions([0])
    roof = Roofline(120_000, 3_000)
    assert chart_reading.slope_on_log_axes(roof, 1, 8) == pytest.approx(1.0)
    assert chart_reading.slope_on_log_axes(roof, 100, 800) == pytest.approx(0.0)
    assert 0 < chart_reading.slope_on_log_axes(roof, 10, 100) < 1  # across the ridge at 40
    with pytest.raises(ValueError):
        chart_reading.slope_on_log_axes(roof, 8, 1)


def test_unit_slips_move_the_ridge_by_their_factor():
    rows = {r["slip"].split(",")[0]: r for r in chart_reading.unit_slips(120_000, 3_000)}
    assert rows["no slip (GFLOP/s over GB/s)"]["ridge"] == 40
    factors = sorted(r["off_by"] for r in rows.values())
    assert factors == pytest.approx([1e-3, 0.125, 1.0, 2 ** 30 / 1e9])


def test_the_four_common_errors_have_their_sizes():
    sizes = chart_reading.error_sizes(H100_SXM)
    assert sizes["strided_amplification"] == 8 and sizes["gbit_off_by"] == 0.125
    assert round(sizes["gib_off_by"] - 1, 3) == 0.074 and round(sizes["wrong_roof_ratio"], 1) == 14.8


def test_the_decision_table_uses_the_models_advice():
    rows = placement.decision_rows()
    assert [r["next"] for r in rows] == [ADVICE[k] for k in ("memory", "compute", "far-below", "ridge")]


def test_five_steps_place_a_measured_kernel_and_name_the_row():
    roof = Roofline(66_075, 4_276)
    n = 2 ** 24
    near = placement.five_steps("softmax", 5 * n, 8 * n, 8 * n / 4_000e9, roof)  # at 4,000 GB/s
    assert [s[0][:2] for s in near] == ["1.", "2.", "3.", "4.", "5."]
    assert "I = 0.625" in near[2][1] and "memory-bound and near its bandwidth roof" in near[4][1] and "optimal" not in near[4][1]
    far = placement.five_steps("softmax", 5 * n, 8 * n, 8 * n / 1_000e9, roof)
    assert "does not model" in far[4][1]
    profiled = placement.five_steps("softmax", 5 * n, 8 * n, 1e-3, roof, profiled_bytes=40 * n)
    assert "5.00x" in profiled[1][1] and "access-pattern problem" in profiled[1][1]
    above = placement.five_steps("too fast", 1e12, 1e6, 1e-3, roof)
    assert "above its roof" in above[4][1]
    with pytest.raises(ValueError, match="seconds"):
        placement.five_steps("x", 1, 1, 0, roof)


def test_five_steps_prints_a_time_a_student_can_divide_by():
    # review 26b: "3.355e+08 FLOPs in 0.14 ms = 2,397.0 GFLOP/s" rounded the time to two figures,
    # so dividing the printed numbers gave 2,396.6, not the printed rate
    roof = Roofline(66_075, 4_280)
    steps = placement.five_steps("softmax", 5 * 2 ** 26, 8 * 2 ** 26, 0.13998e-3, roof)
    achieved = steps[3][1]
    assert "in 0.13998 ms" in achieved and "= 2,397 GFLOP/s" in achieved


def test_the_vendor_table_names_the_counters_ncu_reads_and_the_datasheet_ceilings():
    rows = {r["concept"]: r for r in vendors.comparison_rows()}
    assert "5.3 TB/s" in rows["HBM ceiling (datasheet)"]["AMD"]
    assert "3.35 TB/s" in rows["HBM ceiling (datasheet)"]["NVIDIA"]
    assert vendors.HBM_COUNTERS["NVIDIA"] == ncu.LEVEL_METRICS["dram"]
    for metric in ncu.FLOP_METRICS["fp32"]:
        assert metric in vendors.FLOP_COUNTERS["NVIDIA"]
    assert "--roof-only" in rows["built-in roofline"]["AMD"] and "--set roofline" in rows["built-in roofline"]["NVIDIA"]
    assert vendors.counterpart("fetch_size") == "dram__bytes_read.sum"
    assert vendors.counterpart("dram__bytes_write.sum") == "WRITE_SIZE"
    with pytest.raises(ValueError, match="not an HBM byte counter"):
        vendors.counterpart("lts__t_bytes.sum")


def test_a_kernel_at_2_percent_of_the_time_cannot_pay():
    assert pitfalls.whole_program_speedup(0.02, math.inf) == pytest.approx(1 / 0.98)
    assert pitfalls.whole_program_speedup(0.5, 2) == pytest.approx(4 / 3)
    with pytest.raises(ValueError):
        pitfalls.whole_program_speedup(1.5, 2)


def test_regression_gate_scores_against_the_ceiling():
    assert use_cases.regression_gate(3_400, 4_800)["passed"] is True
    assert use_cases.regression_gate(700, 4_800) == {"fraction": 700 / 4_800, "floor": 0.7, "passed": False}
    with pytest.raises(ValueError):
        use_cases.regression_gate(1, 1, floor=0)


def test_every_use_case_has_a_computed_figure():
    rows = use_cases.use_case_rows()
    assert len(rows) == 8
    by = {r["use"].split(" (")[0]: r["figure"] for r in rows}
    assert "s = 489" in by["FlashAttention"] and "64.6" in by["FlashAttention"]
    assert "2.5x" in by["fusion in torch.compile, Triton, XLA"]
    assert "2x the fp32 rate" in by["quantization"] and "N = 741 in bf16 and N = 741 in fp8" in by["quantization"]
    assert "1.00 FLOP/byte" in by["prefill against decode"]
    assert f"{H200.ceiling('dram').value / H100_SXM.ceiling('dram').value:.2f}x" in by["procurement"]
    assert "(pass)" in by["regression gates in CI"] and "(fail)" in by["regression gates in CI"]
    assert "fp32 roof is 0.99" in by["vendor profilers"] and "DRAM (write) roof 0.98" in by["vendor profilers"]
    assert MI300X.has("fp8-tensor")


def test_the_naive_transposes_bytes_by_32_byte_sectors_and_no_unsourced_published_ladder():
    from rooflinelib.lessons import published
    assert published.naive_transpose_bytes_factor() == 4.5  # reads once, writes 8x by sectors
    assert published.naive_transpose_bytes_factor(4, 64) == 8.5
    # review 4b E4-4: the MI300X transpose figures had no publication to cite, so they went
    assert not hasattr(published, "MI300X_TRANSPOSE")


def test_exercise_2_c4_the_launch_length_key_and_its_mistakes():
    from rooflinelib.exercises import ex02_classify as ex
    from rooflinelib.exercises.grading import NOT_ANSWERED
    assert ex.check_launch_length("6e-6*4e12/12", "0.64e-6*4e12/12", "50%").passed
    wrong = ex.check_launch_length(6e-6 * 4e12, 213_334, 1.0)  # bytes, not elements; and the sum forgotten
    assert not wrong.passed and "that is bytes" in str(wrong) and "their sum" in str(wrong)
    assert "NOT ANSWERED" in str(ex.check_launch_length(NOT_ANSWERED, NOT_ANSWERED, NOT_ANSWERED)).upper()


def test_exercise_2_c5_the_counter_mapping_key_and_its_hints():
    from rooflinelib.exercises import ex02_classify as ex
    assert ex.check_counters("dram__bytes_read.sum", "dram bytes written", "past the L2").passed
    swapped = ex.check_counters("dram__bytes_write.sum", "dram__bytes_read.sum", "l2")
    assert not swapped.passed and "not what is written" in str(swapped) and "not what is read" in str(swapped)
    assert "L2's traffic" in str(ex.check_counters("lts__t_bytes.sum", "dram__bytes_write.sum", "hbm"))


def test_the_vendor_table_does_not_call_fetch_size_hbm_bytes():
    # FETCH_SIZE/WRITE_SIZE count L2-to-fabric traffic that the Infinity Cache partly serves (C5)
    row = next(r for r in vendors.comparison_rows() if "FETCH_SIZE" in r["AMD"])
    assert "HBM" not in row["concept"] and "past the L2" in row["concept"]
    assert "Infinity Cache" in row["AMD"]
