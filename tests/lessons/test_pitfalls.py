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


# --- review 11d: the FFT route for short filters, the 64-byte hypothesis, plain row names -------

def test_overlap_save_counts_far_fewer_flops_per_output_for_short_filters():
    # T06-1: the raced FFT transforms the whole signal; blocked FFT correlation is the better
    # FFT route for short filters.  Blocks of 2,048 at m = 256: two real transforms of
    # 2.5 * 2048 * 11 FLOPs and 1,025 complex products of 6, for 1,793 outputs
    assert pitfalls.overlap_save_flops_per_output(256, 2048) == pytest.approx(
        (2 * 2.5 * 2048 * 11 + 6 * 1025) / 1793)
    assert pitfalls.overlap_save_flops_per_output(256, 2048) == pytest.approx(66.25, abs=0.01)
    assert pitfalls.overlap_save_flops_per_output(1024, 8192) == pytest.approx(77.70, abs=0.01)
    whole = pitfalls.algorithm_race(2 ** 22, 256)["fft_flops"] / 2 ** 22
    assert pitfalls.overlap_save_flops_per_output(256, 2048) < whole / 5 < 2 * 256
    for bad in (256, 200, 3000):  # not above m, not above m, not a power of two
        with pytest.raises(ValueError, match="block_length"):
            pitfalls.overlap_save_flops_per_output(256, bad)


def test_a_hypothesised_bytes_ratio_is_labelled_in_the_triage():
    # T06-5: the stride-16 ratio is the 64-byte-fetch hypothesis's, not a profiler's count
    from rooflinelib.lessons.triage import KernelFacts, triage
    counted = triage(KernelFacts(fraction_of_roof=0.06, side="memory", bytes_ratio=16)).text()
    assert "the bytes moved are 16x the analytic bytes" in counted
    guessed = triage(KernelFacts(fraction_of_roof=0.06, side="memory", bytes_ratio=16,
                                 bytes_ratio_hypothesis="if the L2 fetches 64 B")).text()
    assert "the bytes moved are" not in guessed
    assert ("the bytes moved would be 16x the analytic bytes if the L2 fetches 64 B "
            "(a hypothesis, not a counter reading)") in guessed
    for bad in ("", "  ", 16):
        with pytest.raises(ValueError, match="bytes_ratio_hypothesis"):
            KernelFacts(bytes_ratio=16, bytes_ratio_hypothesis=bad)


def test_the_cache_runs_rows_are_named_in_plain_words():
    # C06-4: the engine's kernel names (l2_slab, copy16 x1 block 256) reached the lesson's table
    from rooflinelib.experiments.record import recorded_experiments
    runs = recorded_experiments()
    cache = runs["cache"]
    assert any("l2_slab" in v.name for v in cache.variants)  # the shipped run keeps its own names
    names = [v.name for v in pitfalls.plain_cache_names(cache).variants]
    assert names == ["L2-resident re-read (25.2 MB set)", "DRAM copy (1.07 GB buffer)"]
    assert pitfalls.plain_cache_names(runs["launch"]) is runs["launch"]
    assert pitfalls.plain_cache_names(None) is None
