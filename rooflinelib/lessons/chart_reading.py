"""Reading a roofline chart: what its logarithmic axes do, and the errors people make with it.

Notebook 01 gathers both in one section.  Every figure here is computed: the positions of
values on a log axis, the slope of each roof on log-log axes, how far each unit slip moves a
ridge, and the size of each common error on a named machine.
"""
from __future__ import annotations

import math

from rooflinelib.lessons import pitfalls
from rooflinelib.core.vocabulary import BF16_TENSOR
from rooflinelib.core.model import Roofline

GIB_PER_GB = 2 ** 30 / 1e9  # a GiB is 1.0737 GB


def log_positions(values) -> list:
    """Where each value sits on a base-10 logarithmic axis (its decade count): 1, 10 and 100
    land at 0, 1 and 2, equally spaced, because each is ten times the last."""
    out = []
    for v in values:
        if not v > 0:
            raise ValueError(f"values: a log axis holds only positive numbers, got {v!r}")
        out.append(math.log10(v))
    return out


def slope_on_log_axes(roofline: Roofline, low: float, high: float) -> float:
    """The roof's slope between intensities ``low`` and ``high`` on log-log axes: 1 where the
    bandwidth roof binds (doubling the intensity doubles the rate), 0 on the flat compute roof."""
    if not 0 < low < high:
        raise ValueError(f"low, high: need 0 < low < high, got {low!r}, {high!r}")
    r_low, r_high = roofline.attainable_gflops(low), roofline.attainable_gflops(high)
    return math.log(r_high / r_low) / math.log(high / low)


def unit_slips(peak_gflops: float, peak_gbps: float) -> list:
    """The ridge as computed right, and as three common unit slips compute it: a bandwidth in
    GiB/s used as GB/s, a bandwidth in Gbit/s used as GB/s, and a TFLOP/s peak divided by a
    GB/s bandwidth.  Each row: the slip, the ridge it gives, and the factor it is off by."""
    right = Roofline(peak_gflops, peak_gbps).ridge
    slips = (("no slip (GFLOP/s over GB/s)", peak_gflops, peak_gbps),
             ("bandwidth given in GiB/s, used as GB/s", peak_gflops, peak_gbps / GIB_PER_GB),
             ("bandwidth given in Gbit/s, used as GB/s", peak_gflops, peak_gbps * 8),
             ("peak in TFLOP/s over bandwidth in GB/s", peak_gflops / 1e3, peak_gbps))
    rows = []
    for slip, p, b in slips:
        ridge = p / b
        rows.append({"slip": slip, "ridge": ridge, "off_by": ridge / right})
    return rows


def error_sizes(machine) -> dict:
    """The size of each of the four common errors of reading a roofline, as numbers (notebook 01
    says what each error is in prose): how many times the bytes a stride-32 fp32 read moves
    exceed those it uses, at the L2 (32-byte sectors) and at HBM (``strided_amplification_hbm``,
    the 64-byte units the course measured on the H200); how far GiB/s read as GB/s and Gbit/s
    read as GB/s move ``machine``'s fp32 ridge (factors); how many times its bf16 tensor roof
    exceeds its fp32 roof (None without one)."""
    slips = unit_slips(machine.ceiling("fp32").value, machine.ceiling("dram").value)
    by_slip = {r["slip"]: r["off_by"] for r in slips}
    return {"machine": machine.name,
            "strided_amplification": pitfalls.strided_amplification(32),
            # HBM moves what the L2 misses in larger units than the L2's 32-byte sectors
            "strided_amplification_hbm": pitfalls.strided_amplification(
                32, transaction_bytes=pitfalls.GPU_DRAM_ACCESS_BYTES),
            "gib_off_by": next(v for k, v in by_slip.items() if "GiB" in k),
            "gbit_off_by": next(v for k, v in by_slip.items() if "Gbit" in k),
            "wrong_roof_ratio": pitfalls.roof_ratio(machine) if machine.has(BF16_TENSOR) else None}
