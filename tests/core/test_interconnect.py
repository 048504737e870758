"""The communication roof: datasheet links, communication intensity, a step on three roofs."""
import subprocess
import sys

import pytest

from rooflinelib.core.interconnect import (LINKS, CommCost, data_parallel_allreduce,
                                           host_to_device_batch, link, link_roof_gflops,
                                           pipeline_activations, place_step, ring_allgather_factor,
                                           ring_allreduce_factor, tensor_parallel_matmul)
from rooflinelib.core.model import Roofline, Work, ridge

# H100 SXM datasheet, dense bf16 tensor and HBM3, in GFLOP/s and GB/s (rooflinelib.core.machines).
H100_BF16_GFLOPS = 989_400.0
H100_HBM_GBPS = 3_350.0


# --- datasheet links -------------------------------------------------------------------------

def test_nvlink4_is_18_links_of_25_gb_s_each_way():
    nv = link("nvlink4")
    assert nv.n_links == 18
    assert nv.gbps_per_direction == 18 * 25.0
    assert nv.gbps_both_directions == 900.0  # the datasheets' "NVLink: 900 GB/s"


def test_pcie5_x16_is_16_lanes_at_32_gt_s_each_way():
    pcie = link("pcie5-x16")
    assert pcie.gbps_per_direction == 16 * 32 / 8  # lanes x GT/s / bits per byte
    assert pcie.gbps_both_directions == 128.0  # the datasheets' "PCIe Gen5: 128 GB/s"


def test_mi300x_fabric_is_seven_links_of_128_gb_s_both_ways():
    one, seven = link("mi300x-if-link"), link("mi300x-if")
    assert one.gbps_both_directions == 128.0
    assert one.gbps_per_direction == 128.0 / 2
    assert seven.gbps_per_direction == 7 * one.gbps_per_direction
    assert seven.gbps_both_directions == 7 * 128.0


def test_every_link_names_its_source_and_direction():
    for name, row in LINKS.items():
        assert row.name == name
        assert row.source
        assert "each way" in row.note and "both directions" in row.note, name


def test_unknown_link_is_one_line_naming_the_field():
    with pytest.raises(ValueError, match=r"^link: unknown 'nvlink5'; known: pcie5-x16, nvlink4"):
        link("nvlink5")


# --- ring factors ----------------------------------------------------------------------------

@pytest.mark.parametrize("n, allreduce, allgather", [
    (1, 0.0, 0.0),  # nothing to exchange
    (2, 2 * 1 / 2, 1 / 2),  # each sends half, then the other half back: the whole buffer
    (8, 2 * 7 / 8, 7 / 8),  # 1.75
])
def test_ring_factors(n, allreduce, allgather):
    assert ring_allreduce_factor(n) == allreduce
    assert ring_allgather_factor(n) == allgather


# --- communication intensity -----------------------------------------------------------------

def test_data_parallel_step_counts():
    cost = data_parallel_allreduce(n_params=10**9, tokens_per_gpu=4096, n_gpus=8, element_bytes=2)
    assert isinstance(cost, CommCost) and isinstance(cost, Work)
    assert cost.n_flops == 6 * 10**9 * 4096
    assert cost.n_bytes == pytest.approx(2 * 7 / 8 * 10**9 * 2)
    assert cost.intensity == pytest.approx(3 * 8 * 4096 / (7 * 2))  # 3nT/((n-1)s) = 7021.7


def test_data_parallel_intensity_ignores_model_size():
    small = data_parallel_allreduce(10**8, 2048, 4)
    large = data_parallel_allreduce(7 * 10**10, 2048, 4)
    assert small.intensity == pytest.approx(large.intensity)
    assert small.intensity == pytest.approx(3 * 4 * 2048 / (3 * 2))


def test_data_parallel_on_one_gpu_sends_nothing():
    cost = data_parallel_allreduce(10**9, 4096, 1)
    assert cost.n_bytes == 0
    assert cost.intensity == float("inf")


def test_tensor_parallel_all_reduce():
    # a down projection, 16384 -> 4096, split along d_in over 8 GPUs
    cost = tensor_parallel_matmul(tokens=2048, d_in=16384, d_out=4096, n_gpus=8)
    assert cost.n_flops == 2 * 2048 * 16384 * 4096 / 8
    assert cost.n_bytes == pytest.approx(2 * 7 / 8 * 2048 * 4096 * 2)
    assert cost.intensity == pytest.approx(16384 / (7 * 2))  # d_in / ((n-1) s) = 1170.3


def test_tensor_parallel_all_gather():
    # an up projection, 4096 -> 16384, split along d_out over 8 GPUs
    cost = tensor_parallel_matmul(2048, 4096, 16384, 8, collective="all-gather")
    assert cost.n_flops == 2 * 2048 * 4096 * 16384 / 8
    assert cost.n_bytes == pytest.approx(7 / 8 * 2048 * 16384 * 2)
    assert cost.intensity == pytest.approx(2 * 4096 / (7 * 2))  # 2 d_in / ((n-1) s) = 585.1


def test_tensor_parallel_intensity_ignores_the_batch():
    one = tensor_parallel_matmul(1, 16384, 4096, 8)
    many = tensor_parallel_matmul(8192, 16384, 4096, 8)
    assert one.intensity == pytest.approx(many.intensity)


def test_pipeline_stage_training_and_inference():
    train = pipeline_activations(n_params_per_stage=10**9, tokens_per_microbatch=4096, d_model=8192)
    assert train.n_flops == 6 * 10**9 * 4096
    assert train.n_bytes == 2 * 4096 * 8192 * 2  # activations forward, their gradient back
    assert train.intensity == pytest.approx(3 * 10**9 / (8192 * 2))
    infer = pipeline_activations(10**9, 4096, 8192, training=False)
    assert infer.n_flops == 2 * 10**9 * 4096
    assert infer.n_bytes == 4096 * 8192 * 2
    assert infer.intensity == pytest.approx(2 * 10**9 / (8192 * 2))


def test_host_to_device_batch():
    # 256 images of 224 x 224 x 3 bytes, into a step of 1e10 FLOPs per image
    batch_bytes = 256 * 224 * 224 * 3
    cost = host_to_device_batch(n_flops=256 * 1e10, batch_bytes=batch_bytes)
    assert cost.n_bytes == 38_535_168
    assert cost.intensity == pytest.approx(1e10 / (224 * 224 * 3))


# --- three roofs -----------------------------------------------------------------------------

def test_link_roof_is_bandwidth_times_intensity():
    assert link_roof_gflops(1200.0, 50.0) == 60_000.0
    assert link_roof_gflops(0.0, 50.0) == 0.0


def test_place_step_exact_values():
    # 1.2e12 FLOPs, 3e9 HBM bytes, 1e9 link bytes on 120 TFLOP/s, 3 TB/s and a 50 GB/s link
    step = place_step(1.2e12, 3e9, 1e9, 120_000, 3_000, 50)
    assert step.compute_s == pytest.approx(1.2e12 / 120e12)  # 10 ms
    assert step.hbm_s == pytest.approx(3e9 / 3e12)  # 1 ms
    assert step.link_s == pytest.approx(1e9 / 50e9)  # 20 ms
    assert step.overlapped_s == pytest.approx(1e9 / 50e9)
    assert step.serial_s == pytest.approx(1.2e12 / 120e12 + 3e9 / 3e12 + 1e9 / 50e9)
    assert step.binding == "link"
    assert step.attainable_gflops == pytest.approx(link_roof_gflops(1.2e12 / 1e9, 50))  # 60 TFLOP/s


def test_place_step_agrees_with_the_two_roof_model():
    step = place_step(1.2e12, 3e9, 0, 120_000, 3_000, 50)
    two = Roofline(120_000, 3_000).time_bounds(1.2e12, 3e9)
    assert (step.compute_s, step.hbm_s, step.link_s) == (two.compute_s, two.memory_s, 0.0)
    assert step.binding == "compute"
    assert step.attainable_gflops == pytest.approx(120_000)


def test_place_step_tie_goes_to_compute():
    # F/P = 1.2e12 / 120e12 = 10 ms = C/L = 5e8 / 50e9
    assert place_step(1.2e12, 0, 5e8, 120_000, 3_000, 50).binding == "compute"


@pytest.mark.parametrize("tokens, binding", [
    (4096, "compute"),  # intensity 3*8*4096/14 = 7022 > ridge 989400/450 = 2199
    (2048, "compute"),  # 3511
    (1024, "link"),  # 1755
    (512, "link"),  # 878
])
def test_data_parallel_step_turns_link_bound_as_the_batch_shrinks(tokens, binding):
    nvlink = link("nvlink4").gbps_per_direction
    cost = data_parallel_allreduce(10**9, tokens, 8)
    hbm_bytes = 4e9
    step = place_step(cost.n_flops, hbm_bytes, cost.n_bytes, H100_BF16_GFLOPS, H100_HBM_GBPS, nvlink)
    assert step.binding == binding
    assert (cost.intensity > ridge(H100_BF16_GFLOPS, nvlink)) == (binding == "compute")
    # the on-device roofline sees a compute-bound step at every batch size
    on_device = Roofline(H100_BF16_GFLOPS, H100_HBM_GBPS).time_bounds(cost.n_flops, hbm_bytes)
    assert on_device.limiter == "compute"


def test_the_same_step_over_pcie_is_link_bound():
    pcie = link("pcie5-x16").gbps_per_direction
    cost = data_parallel_allreduce(10**9, 4096, 8)
    step = place_step(cost.n_flops, 4e9, cost.n_bytes, H100_BF16_GFLOPS, H100_HBM_GBPS, pcie)
    assert step.binding == "link"
    assert step.attainable_gflops == pytest.approx(cost.intensity * pcie)


# --- bad inputs ------------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: data_parallel_allreduce(10**9, 4096, 0), r"^n_gpus: must be at least 1, got 0$"),
    (lambda: data_parallel_allreduce(0, 4096, 8), r"^n_params: must be at least 1"),
    (lambda: data_parallel_allreduce(10**9, 2.5, 8), r"^tokens_per_gpu: must be a whole number"),
    (lambda: data_parallel_allreduce(10**9, 4096, True), r"^n_gpus: must be a whole number"),
    (lambda: data_parallel_allreduce(10**9, 4096, 8, element_bytes=0), r"^element_bytes: "),
    (lambda: ring_allreduce_factor(-2), r"^n_gpus: must be at least 1"),
    (lambda: tensor_parallel_matmul(2048, 4096, 4096, 8, collective="broadcast"), r"^collective: "),
    (lambda: tensor_parallel_matmul(2048, 4100, 4096, 8), r"^d_in: must be divisible by n_gpus \(8\)"),
    (lambda: tensor_parallel_matmul(2048, 4096, 4100, 8, collective="all-gather"), r"^d_out: "),
    (lambda: pipeline_activations(10**9, 4096, -1), r"^d_model: must be at least 1"),
    (lambda: pipeline_activations(10**9, 4096, 8192, training="yes"), r"^training: "),
    (lambda: host_to_device_batch(1e12, 0), r"^batch_bytes: must be a positive"),
    (lambda: host_to_device_batch(float("nan"), 1e6), r"^n_flops: must be a positive"),
    (lambda: place_step(0, 1e9, 1e9, 1e5, 3e3, 50), r"^n_flops: must be a positive"),
    (lambda: place_step(1e12, -1, 1e9, 1e5, 3e3, 50), r"^hbm_bytes: must be a non-negative"),
    (lambda: place_step(1e12, 1e9, -1, 1e5, 3e3, 50), r"^link_bytes: must be a non-negative"),
    (lambda: place_step(1e12, 1e9, 1e9, 1e5, 3e3, 0), r"^link_gbps: must be a positive"),
    (lambda: place_step(1e12, 1e9, 1e9, 1e5, 0, 50), r"^hbm_gbps: must be a positive"),
    (lambda: link_roof_gflops(-1, 50), r"^intensity: "),
])
def test_bad_input_is_one_line_naming_the_field(call, message):
    with pytest.raises(ValueError, match=message) as info:
        call()
    assert "\n" not in str(info.value)


def test_import_stays_light():
    code = ("import sys, rooflinelib.core.interconnect; "
            "print([m for m in ('numba', 'cupy', 'numpy', 'plotly') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr
