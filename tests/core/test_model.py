"""The roofline model: attainable rate, ridge, time bounds and verdicts, on the course's examples."""
import math

import pytest

from rooflinelib.core import model
from rooflinelib.core.model import (ABOVE_ROOF_FRACTION, FAR_BELOW_FRACTION, RIDGE_TOLERANCE,
                                    Ceiling, Machine, Roofline, attainable_gflops, classify, ridge,
                                    side_of_ridge, time_bounds)

# The worked example: 120 TFLOP/s and 3 TB/s, in GFLOP/s and GB/s.
EXAMPLE = Roofline(120_000.0, 3_000.0)


# --- ridge and attainable --------------------------------------------------------------------

def test_ridge_is_peak_over_bandwidth():
    assert ridge(120_000, 3_000) == 40.0
    assert ridge(900_000, 3_000) == 300.0
    assert ridge(60_000, 3_000) == 20.0
    assert EXAMPLE.ridge == 40.0


@pytest.mark.parametrize("intensity, expected", [
    (0.0, 0.0),
    (1 / 12, 3_000 / 12),
    (12.0, 36_000.0),  # the course: 3 TB/s x 12 FLOP/byte = 36 TFLOP/s
    (20.0, 60_000.0),  # knowledge check: 60 TFLOP/s
    (40.0, 120_000.0),  # at the ridge both roofs give the same rate
    (90.0, 120_000.0),  # 270 TFLOP/s of bandwidth product, capped at 120
    (1e6, 120_000.0),
])
def test_attainable_is_min_of_peak_and_intensity_times_bandwidth(intensity, expected):
    assert attainable_gflops(intensity, 120_000, 3_000) == pytest.approx(expected, rel=1e-15)
    assert EXAMPLE.attainable_gflops(intensity) == pytest.approx(expected, rel=1e-15)


def test_bandwidth_drops_to_2_tb_s():
    # the "place two kernels" exercise: 20 and 80 FLOP/byte at 3 then 2 TB/s
    slower = Roofline(120_000.0, 2_000.0)
    assert slower.ridge == 60.0
    assert EXAMPLE.attainable_gflops(20) == 60_000 and slower.attainable_gflops(20) == 40_000
    assert EXAMPLE.attainable_gflops(80) == 120_000 and slower.attainable_gflops(80) == 120_000
    assert EXAMPLE.side(80) == "compute" and slower.side(80) == "compute"
    assert EXAMPLE.side(20) == "memory" and slower.side(20) == "memory"


# --- time bounds -----------------------------------------------------------------------------

def test_time_bounds_exact_values():
    # 2.4e11 FLOPs, 2e10 bytes on 120 TFLOP/s, 3 TB/s: F/P = 2 ms, M/B = 6.67 ms
    tb = time_bounds(2.4e11, 2e10, 120_000, 3_000)
    assert tb.compute_s == pytest.approx(2.4e11 / 120e12)
    assert tb.memory_s == pytest.approx(2e10 / 3e12)
    assert tb.overlapped_s == pytest.approx(max(2.4e11 / 120e12, 2e10 / 3e12))
    assert tb.serial_s == pytest.approx(2.4e11 / 120e12 + 2e10 / 3e12)
    assert tb.limiter == "memory"
    assert EXAMPLE.time_bounds(2.4e11, 2e10) == tb


def test_time_bounds_compute_limited_and_rate_is_attainable():
    n_flops, n_bytes = 9e12, 1e11  # I = 90
    tb = time_bounds(n_flops, n_bytes, 120_000, 3_000)
    assert tb.limiter == "compute"
    assert tb.overlapped_s == tb.compute_s == pytest.approx(9e12 / 120e12)
    # F / max(F/P, M/B) = min(P, I B): the roofline is the overlapped bound as a rate
    assert n_flops / tb.overlapped_s / 1e9 == pytest.approx(EXAMPLE.attainable_gflops(90))


def test_time_bounds_drill_1_serial_is_at_most_twice_overlapped():
    # at the ridge the two terms are equal: the serial bound is exactly 2x the overlapped one
    tb = time_bounds(4e11, 2e10, 60_000, 3_000)
    assert tb.compute_s == pytest.approx(tb.memory_s)
    assert tb.serial_s == pytest.approx(2 * tb.overlapped_s)


def test_time_bounds_zero_work():
    tb = time_bounds(0, 0, 1, 1)
    assert (tb.compute_s, tb.memory_s, tb.overlapped_s, tb.serial_s) == (0, 0, 0, 0)


# --- sides of the ridge ----------------------------------------------------------------------

def test_side_of_ridge_band_edges():
    r, tol = 40.0, RIDGE_TOLERANCE
    assert side_of_ridge(r, r) == "ridge"
    assert side_of_ridge(r * (1 + tol), r) == "ridge"  # the band is closed
    assert side_of_ridge(r / (1 + tol), r) == "ridge"
    assert side_of_ridge(r * (1 + tol) * 1.0001, r) == "compute"
    assert side_of_ridge(r / (1 + tol) / 1.0001, r) == "memory"
    assert side_of_ridge(0, r) == "memory"
    assert side_of_ridge(41, 40, tolerance=0) == "compute"
    assert side_of_ridge(40, 40, tolerance=0) == "ridge"


@pytest.mark.parametrize("tolerance", [-0.5, 1.0, 5.0, float("nan")])
def test_bad_ridge_tolerance(tolerance):
    with pytest.raises(ValueError, match=r"^ridge_tolerance:"):
        side_of_ridge(10, 10, tolerance)
    with pytest.raises(ValueError, match=r"^ridge_tolerance:"):
        classify(10, 100, 10, ridge_tolerance=tolerance)
    with pytest.raises(ValueError, match=r"^ridge_tolerance:"):
        Roofline(100, 10, ridge_tolerance=tolerance)


# --- classification on the course's worked examples --------------------------------------------

def test_normalization_kernel():
    v = EXAMPLE.classify(12, achieved_gflops=30_000)
    assert v.side == "memory" and v.bound == "memory-bound"
    assert v.ridge == 40.0
    assert v.roof_gflops == pytest.approx(36_000)
    assert v.fraction_of_roof == pytest.approx(30 / 36)
    assert v.status == "near-roof"
    # 30 TFLOP/s at 12 FLOP/byte is 2.5 TB/s of HBM traffic
    assert v.achieved_gflops / v.intensity == pytest.approx(2_500)
    assert "fewer bytes" in v.advice.lower() and "fuse" in v.advice.lower()


def test_gemm_far_below_its_compute_roof():
    v = EXAMPLE.classify(90, achieved_gflops=55_000)
    assert v.side == "compute" and v.bound == "compute-bound"
    assert v.roof_gflops == 120_000
    assert v.fraction_of_roof == pytest.approx(55 / 120)
    # 46% of roof is below the 50% line: not bound by either roof, and bandwidth is not the
    # first explanation
    assert v.fraction_of_roof < FAR_BELOW_FRACTION
    assert v.status == "far-below"
    assert v.advice == model.ADVICE["far-below"] != model.ADVICE["compute"]
    assert "occupancy" in v.advice and "launch" in v.advice


def test_compute_side_below_roof_gets_instruction_mix_advice():
    v = EXAMPLE.classify(90, achieved_gflops=70_000)  # 58%: below the roof, above the 50% line
    assert v.status == "below-roof"
    assert "matrix cores" in v.advice


def test_drill_2():
    v = classify(40, 900_000, 3_000)
    assert v.ridge == 300.0
    assert v.side == "memory"
    assert v.roof_gflops == pytest.approx(120_000)  # 120 TFLOP/s
    assert v.roof_gflops / 900_000 == pytest.approx(0.133, abs=5e-4)  # 13% of peak compute
    assert v.status == "unmeasured" and v.achieved_gflops is None and v.fraction_of_roof is None
    assert v.advice == model.ADVICE["memory"]


def test_drill_3_interview_question():
    intensity = 4.0e11 / 2.0e10
    assert intensity == 20.0
    v = classify(intensity, 60_000, 3_000, achieved_gflops=12_000)
    assert v.ridge == 20.0
    assert v.side == "ridge" and v.bound == "at the ridge"
    assert v.roof_gflops == 60_000
    assert v.fraction_of_roof == pytest.approx(0.20)
    assert v.status == "far-below"
    for cue in ("launch", "occupancy"):
        assert cue in v.advice
    # once it is close to its roof, the ridge verdict is "improve overlap"
    near = classify(intensity, 60_000, 3_000, achieved_gflops=57_000)
    assert near.status == "near-roof" and "overlap" in near.advice


def test_above_roof_is_a_counting_error():
    v = EXAMPLE.classify(12, achieved_gflops=36_000 * 1.2)
    assert v.status == "above-roof"
    assert v.fraction_of_roof == pytest.approx(1.2)
    for cue in ("count", "units", "clock"):
        assert cue in v.advice
    # within the noise margin it is still credible
    assert EXAMPLE.classify(12, achieved_gflops=36_000 * ABOVE_ROOF_FRACTION).status == "near-roof"


def test_status_thresholds():
    roof = EXAMPLE.attainable_gflops(12)
    statuses = {f: EXAMPLE.classify(12, roof * f).status for f in (0, 0.49, 0.5, 0.79, 0.8, 1.0, 1.06)}
    assert statuses == {0: "far-below", 0.49: "far-below", 0.5: "below-roof", 0.79: "below-roof",
                        0.8: "near-roof", 1.0: "near-roof", 1.06: "above-roof"}


def test_zero_intensity_cannot_be_scored_in_flops():
    v = EXAMPLE.classify(0)
    assert v.side == "memory" and v.roof_gflops == 0
    with pytest.raises(ValueError, match=r"^intensity:"):
        EXAMPLE.classify(0, achieved_gflops=1)


# --- bad inputs ------------------------------------------------------------------------------

BAD_POSITIVE = [0, -1, float("nan"), float("inf"), None, "abc", [1]]


@pytest.mark.parametrize("bad", BAD_POSITIVE, ids=repr)
def test_bad_peaks_name_the_field(bad):
    with pytest.raises(ValueError, match=r"^peak_gflops:"):
        Roofline(bad, 3_000)
    with pytest.raises(ValueError, match=r"^peak_gbps:"):
        Roofline(120_000, bad)
    with pytest.raises(ValueError, match=r"^peak_gflops:"):
        ridge(bad, 3_000)
    with pytest.raises(ValueError, match=r"^peak_gbps:"):
        attainable_gflops(1, 120_000, bad)
    with pytest.raises(ValueError, match=r"^peak_gflops:"):
        classify(1, bad, 3_000)


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf"), None, "x"], ids=repr)
def test_bad_intensity_flops_bytes_achieved_name_the_field(bad):
    with pytest.raises(ValueError, match=r"^intensity:"):
        attainable_gflops(bad, 1, 1)
    with pytest.raises(ValueError, match=r"^intensity:"):
        EXAMPLE.classify(bad)
    with pytest.raises(ValueError, match=r"^n_flops:"):
        time_bounds(bad, 1, 1, 1)
    with pytest.raises(ValueError, match=r"^n_bytes:"):
        time_bounds(1, bad, 1, 1)
    if bad is not None:  # None means "not measured"
        with pytest.raises(ValueError, match=r"^achieved_gflops:"):
            EXAMPLE.classify(12, achieved_gflops=bad)


def test_error_messages_are_one_line():
    for call in (lambda: Roofline(0, 1), lambda: time_bounds(-1, 1, 1, 1),
                 lambda: EXAMPLE.classify(0, 5)):
        with pytest.raises(ValueError) as info:
            call()
        assert "\n" not in str(info.value)


# --- ceilings and machines -------------------------------------------------------------------

def test_ceiling_units_and_validation():
    assert Ceiling("fp32", "compute", 1.0).unit == "GFLOP/s"
    assert Ceiling("dram", "memory", 1.0).unit == "GB/s"
    assert Ceiling("dram", "memory", 1.0, label="HBM3").title == "HBM3"
    assert Ceiling("dram", "memory", 1.0).title == "dram"
    with pytest.raises(ValueError, match=r"^kind:"):
        Ceiling("dram", "bandwidth", 1.0)
    with pytest.raises(ValueError, match=r"^dram value:"):
        Ceiling("dram", "memory", 0)


def test_machine_roofline_and_with_ceilings():
    m = Machine("toy", (Ceiling("dram", "memory", 1_000.0), Ceiling("fp32", "compute", 10_000.0),
                        Ceiling("bf16-tensor", "compute", 200_000.0)))
    assert m.roofline().ridge == 10.0
    assert m.ridge("bf16-tensor") == 200.0
    r = m.roofline("bf16-tensor")
    assert (r.compute_name, r.memory_name) == ("bf16-tensor", "dram")
    assert [c.name for c in m.compute_ceilings] == ["fp32", "bf16-tensor"]
    assert [c.name for c in m.memory_ceilings] == ["dram"]
    assert m.has("fp32") and not m.has("fp8-tensor")
    with pytest.raises(KeyError, match="fp8-tensor"):
        m.ceiling("fp8-tensor")
    with pytest.raises(ValueError, match=r"^compute:"):
        m.roofline(compute="dram")
    with pytest.raises(ValueError, match=r"^memory:"):
        m.roofline(memory="fp32")
    measured = m.with_ceilings(Ceiling("dram", "memory", 800.0, "copy kernel"), kind="measured",
                               provenance={"gpu": "toy"})
    assert measured.ceiling("dram").value == 800.0 and measured.ceiling("fp32").value == 10_000.0
    assert measured.kind == "measured" and measured.provenance == {"gpu": "toy"}
    assert m.ceiling("dram").value == 1_000.0  # the original is untouched
    assert math.isclose(measured.ridge(), 12.5)


def test_a_cpu_roofline_gives_cpu_advice():
    from rooflinelib.core.model import CPU_ADVICE, Ceiling, Machine, Roofline, classify
    cpu = Machine("my CPU", (Ceiling("dram", "memory", 50.0), Ceiling("fp32", "compute", 1000.0)),
                  kind="measured", notes="CPU roofline", provenance={"scope": "cpu"})
    assert cpu.target == "cpu" and cpu.roofline().target == "cpu"
    words = " ".join(cpu.roofline().classify(i, g).advice
                     for i, g in ((0.1, None), (20, None), (100, None), (100, 1.0), (100, 1e9)))
    for gpu_only in ("shared memory", "matrix cores", "occupancy", "warp"):
        assert gpu_only not in words, gpu_only
    assert "SIMD" in words and "thread" in words and "cache" in words
    assert classify(100, 1000, 50, target="cpu").advice == CPU_ADVICE["compute"]
    gpu = Roofline(1000, 50)
    assert "matrix cores" in gpu.classify(100).advice and gpu.target == "gpu"
    with pytest.raises(ValueError, match="target: must be one of gpu, cpu"):
        Roofline(1000, 50, target="tpu")
