"""The model's side of the nine pitfalls: what each one predicts, before anything is measured.

Notebook 06 sets each prediction here against a measurement from :mod:`rooflinelib.experiments`
and hands the facts to :mod:`rooflinelib.triage`.  Every function is arithmetic on the
catalogue (:mod:`rooflinelib.operators`) and the machine table, or reads the recorded H200 run
(:func:`recorded_launch_costs`); nothing here measures.
"""
from __future__ import annotations

import math

from . import operators

#: A GPU's L1 and L2 move global memory in 32-byte sectors (Nsight Compute's Kernel Profiling
#: Guide); a CPU moves 64-byte cache lines.
GPU_SECTOR_BYTES = 32
CPU_LINE_BYTES = 64
#: The unit the H200's DRAM traffic behaves as if it moved: pairs of 32-byte sectors.  This is
#: what the recorded strided reads fit (useful bandwidth keeps halving up to stride 16, four
#: times the sector's stride), not a datasheet figure; docs/h200-facts.md has the data.
GPU_DRAM_ACCESS_BYTES = 64


def recorded_launch_costs() -> dict:
    """What one launch cost on the recorded H200 run (the ``launch`` experiment of
    ``rooflinelib/data/h200_experiments_numba.json``), taken apart.

    Returns ``{"device_s": the device's own cost per kernel inside a CUDA graph, or None,
    "host_dispatch_s": {library: the host's wall-clock dispatch of one empty kernel},
    "source": one line naming the run}``.  Raises ``ValueError`` when no such run is shipped.
    """
    from .experiments.record import recorded_experiments
    try:
        run = recorded_experiments()["launch"]
    except KeyError:
        raise ValueError("launch: the recorded runs have no 'launch' experiment") from None
    device = next((v.median_s for v in run.variants if v.extra.get("part") == "device"), None)
    dispatch = {v.extra.get("library", v.name): v.median_s for v in run.variants
                if v.extra.get("part") == "host dispatch"}
    if device is None and not dispatch:
        raise ValueError("launch: the recorded run does not take the launch apart (no device or "
                         "host-dispatch rows)")
    return {"device_s": device, "host_dispatch_s": dispatch,
            "source": f"recorded on {run.device.get('name', 'the GPU')} on {run.created[:10]}"}


def launch_bound(n: int, machine, launch_s: float, dtype: str = "fp32") -> dict:
    """A vector add of ``n`` elements on ``machine``: its traffic time against a launch that
    costs ``launch_s`` (the device's own cost, or a host's dispatch: see
    :func:`recorded_launch_costs`).

    Returns the bytes, the traffic time at the DRAM roof, the launch time, their ratio, and
    the fraction of the roof the kernel can reach when every launch is paid.
    """
    if not launch_s > 0:
        raise ValueError(f"launch_s: must be a positive number of seconds, got {launch_s!r}")
    op = operators.vector_add(n, dtype)
    roofline = machine.roofline("fp32", "dram")
    traffic_s = op.n_bytes / (roofline.peak_gbps * 1e9)
    return {"n": n, "n_bytes": op.n_bytes, "traffic_s": traffic_s, "launch_s": launch_s,
            "launch_over_traffic": launch_s / traffic_s,
            "fraction_of_roof": traffic_s / (traffic_s + launch_s)}


def recorded_launch_bounds(n: int, machine) -> list:
    """``(part, launch_s, launch_bound(...))`` for each launch cost of the recorded H200 run:
    the device's own cost first, then each library's host dispatch."""
    costs = recorded_launch_costs()
    parts = ([("device's own cost (CUDA graph)", costs["device_s"])] if costs["device_s"] else [])
    parts += [(f"host dispatch, {library}", s) for library, s in costs["host_dispatch_s"].items()]
    return [(part, s, launch_bound(n, machine, s)) for part, s in parts]


def strided_amplification(stride: int, element_bytes: int = 4,
                          transaction_bytes: int = GPU_SECTOR_BYTES) -> float:
    """Bytes the memory system moves per useful byte when every ``stride``-th element is read.

    One element per transaction once the stride spans a whole transaction; before that, the
    transaction is shared by ``transaction_bytes / (stride * element_bytes)`` useful elements.
    """
    if stride < 1 or element_bytes < 1 or transaction_bytes < element_bytes:
        raise ValueError("stride, element_bytes, transaction_bytes: must be positive, "
                         "with a transaction at least one element wide")
    return min(stride * element_bytes, transaction_bytes) / element_bytes


def fft_correlation_flops(length: int) -> float:
    """FLOPs of correlating through the FFT at transform length L: three real transforms of
    about 2.5 L log2 L each (half the classic 5 L log2 L of a complex one)."""
    return 3 * 2.5 * length * math.log2(length)


def fft_length(n: int, m: int) -> int:
    """The power-of-two transform length that holds a correlation of n outputs and m taps."""
    return 1 << (n + 2 * m).bit_length()


def algorithm_race(n: int, m: int) -> dict:
    """Direct correlation (2nm FLOPs) against the FFT route, in FLOPs."""
    length = fft_length(n, m)
    direct, fft = 2.0 * n * m, fft_correlation_flops(length)
    return {"direct_flops": direct, "fft_flops": fft, "length": length, "flop_ratio": direct / fft}


def fp32_peak_at_clock(sm_count: int, compute_capability: tuple, clock_mhz: float) -> float:
    """The theoretical fp32 FMA peak in GFLOP/s: SMs x lanes x 2 FLOP x clock."""
    from .measure.engine import theoretical
    peaks = theoretical(sm_count, tuple(compute_capability), clock_mhz)
    if "fp32_gflops" not in peaks:
        raise ValueError(f"compute_capability: no published lane count for {compute_capability}")
    return peaks["fp32_gflops"]


def serial_over_overlapped(n_flops: float, n_bytes: float, peak_gflops: float, peak_gbps: float) -> float:
    """How much longer a kernel takes with no overlap than with perfect overlap (1 to 2)."""
    from .model import time_bounds
    t = time_bounds(n_flops, n_bytes, peak_gflops, peak_gbps)
    return t.serial_s / t.overlapped_s
