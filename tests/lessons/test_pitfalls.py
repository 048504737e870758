"""The model side of the pitfalls: launch cost, strided traffic, the algorithm race, clocks."""
import pytest

from rooflinelib.lessons import pitfalls
from rooflinelib.core.machines import H200


def test_launch_bound_vector_add_on_the_h200():
    r = pitfalls.launch_bound(4096, H200, 4e-6)
    assert r["n_bytes"] == 49_152  # the course: "moves 49 KB"
    assert r["traffic_s"] == pytest.approx(49_152 / 4.8e12)
    assert r["launch_over_traffic"] == pytest.approx(4e-6 / (49_152 / 4.8e12))
    assert r["fraction_of_roof"] < 0.003
    big = pitfalls.launch_bound(2 ** 26, H200, 4e-6)
    assert big["fraction_of_roof"] > 0.97  # 168 us of traffic against a 4 us launch
    with pytest.raises(ValueError, match="launch_s"):
        pitfalls.launch_bound(4096, H200, 0.0)


def test_recorded_launch_costs_take_the_launch_apart():
    costs = pitfalls.recorded_launch_costs()
    # the H200 run of 2026-12-01: the device's own cost in a CUDA graph is under a microsecond,
    # and every library's host dispatch of an empty kernel costs several times that
    assert 0 < costs["device_s"] < 1e-6
    assert set(costs["host_dispatch_s"]) >= {"Numba-CUDA", "CuPy RawKernel"}
    assert all(s > 5 * costs["device_s"] for s in costs["host_dispatch_s"].values())
    assert costs["host_dispatch_s"]["Numba-CUDA"] > costs["host_dispatch_s"]["CuPy RawKernel"]
    assert costs["source"] == "recorded on NVIDIA H200 on 2026-12-01"
    bounds = pitfalls.recorded_launch_bounds(4096, H200)
    assert bounds[0][0] == "device's own cost (CUDA graph)" and bounds[0][1] == costs["device_s"]
    assert [b[2]["launch_s"] for b in bounds[1:]] == list(costs["host_dispatch_s"].values())


@pytest.mark.parametrize("stride, gpu, cpu", [(1, 1, 1), (2, 2, 2), (8, 8, 8), (16, 8, 16), (64, 8, 16)])
def test_strided_amplification(stride, gpu, cpu):
    assert pitfalls.strided_amplification(stride) == gpu
    assert pitfalls.strided_amplification(stride, transaction_bytes=pitfalls.CPU_LINE_BYTES) == cpu
    with pytest.raises(ValueError):
        pitfalls.strided_amplification(0)


def test_algorithm_race_counts():
    race = pitfalls.algorithm_race(2 ** 16, 2 ** 14)
    assert race["length"] == 2 ** 17 and race["direct_flops"] == 2 ** 31
    assert race["fft_flops"] == pytest.approx(3 * 2.5 * 2 ** 17 * 17)
    assert race["flop_ratio"] > 100


def test_peak_scales_with_the_clock():
    assert pitfalls.fp32_peak_at_clock(132, (9, 0), 1980) == pytest.approx(132 * 128 * 2 * 1.98)
    assert pitfalls.fp32_peak_at_clock(132, (9, 0), 990) == pytest.approx(
        pitfalls.fp32_peak_at_clock(132, (9, 0), 1980) / 2)
    with pytest.raises(ValueError, match="compute_capability"):
        pitfalls.fp32_peak_at_clock(10, (1, 0), 1000)


def test_serial_is_at_most_twice_overlapped():
    assert pitfalls.serial_over_overlapped(120e9, 3e9, 120_000, 3_000) == pytest.approx(2.0)
    assert pitfalls.serial_over_overlapped(240e9, 20e9, 120_000, 3_000) == pytest.approx(1.3)


@pytest.mark.parametrize("stride, expected", [(1, 1), (4, 4), (8, 8), (16, 16), (32, 16), (64, 16)])
def test_strided_amplification_with_the_dram_unit_keeps_halving_to_stride_16(stride, expected):
    # The recorded H200 reads fell from 13.6% to 6.8% of stride 1 between strides 8 and 16:
    # a 64-byte unit (two sectors) fits, a 32-byte one predicts a flat line from stride 8.
    assert pitfalls.GPU_DRAM_ACCESS_BYTES == 2 * pitfalls.GPU_SECTOR_BYTES
    assert pitfalls.strided_amplification(
        stride, transaction_bytes=pitfalls.GPU_DRAM_ACCESS_BYTES) == expected
