"""Notebook 00's kitchen: the roofline in a unit anyone can picture, and where the picture fails.

One unit for each quantity, as the roofline has: the chef does ``chef_work_per_min`` units of
work a minute (the compute roof, FLOP/s); each van brings ``van_crates_per_min`` crates a minute
(the bandwidth, bytes/s); a recipe needs some units of work per crate (the intensity, FLOP/byte).
The work done a minute is the roofline's ``min(P, I x B)``, computed by
:func:`rooflinelib.core.model.attainable_gflops` in kitchen units.  :func:`break_figures` gives the
numbers behind the three places the picture fails; the notebook says them in prose.
"""
from __future__ import annotations

from rooflinelib.core import operators
from rooflinelib.lessons import pitfalls
from rooflinelib.core.model import attainable_gflops
from rooflinelib.core.machines import H200, MI300X
from rooflinelib.core.vocabulary import FP8_TENSOR

#: The picture's round numbers: a chef who does 100 units of work a minute, a van that brings
#: 10 crates a minute.
CHEF_WORK_PER_MIN = 100.0
VAN_CRATES_PER_MIN = 10.0


def kitchen(work_per_crate: float = 1.0, vans: int = 1, chef_work_per_min: float = CHEF_WORK_PER_MIN,
            van_crates_per_min: float = VAN_CRATES_PER_MIN) -> dict:
    """What the kitchen does in a minute, and how the chef spends it.

    ``work_per_crate`` is the recipe's intensity in units of work per crate (1: a salad, each
    crate chopped once; a stew that simmers off one crate is far more).  Returns the crates
    delivered and the crates used a minute, the work done a minute
    (``min(chef, work_per_crate x crates delivered)``), the share of the minute the chef works and
    waits, which of the two binds, and the ridge: the work per crate (units of work per crate) at
    which more vans stop helping."""
    if not vans >= 1 or not work_per_crate > 0:
        raise ValueError(f"vans, work_per_crate: must be at least 1 and positive, got {vans!r}, "
                         f"{work_per_crate!r}")
    delivered = vans * van_crates_per_min
    work = attainable_gflops(work_per_crate, chef_work_per_min, delivered)
    busy = work / chef_work_per_min
    return {"crates_delivered_per_min": delivered, "crates_used_per_min": work / work_per_crate,
            "work_per_min": work, "chef_busy": busy, "chef_waiting": 1.0 - busy,
            "bound": "the deliveries" if work < chef_work_per_min else "the chef",
            "ridge": chef_work_per_min / delivered}


def break_figures(launch_machine=None, span_machine=None) -> dict:
    """The numbers behind the three places the picture fails, each from the course's own data.

    ``launch``: a 4096-element fp32 vector add's bytes and their time at ``launch_machine``'s
    (the H200's) datasheet HBM bandwidth, against the device's own cost of one launch recorded on
    the H200 (an empty kernel in a CUDA graph) and, apart, Numba's host dispatch of one empty
    kernel on the same run (``numba_dispatch_s``) and of a three-array kernel such as the add
    (``three_array_dispatch_s``); and the same two figures from the run's second launch
    experiment (``second_*``); ``device_s`` is the second one, the figure notebooks 00 and 06
    quote.  ``skills``: the figure notebook 00 prints for "one chef with one skill":
    ``launch_machine``'s dense fp8 tensor roof against its fp32 vector roof, two kinds of
    instruction on one GPU.  ``roofs``: the lowest and highest compute roof of ``span_machine``
    (the MI300X), with the unpacked fp32 roof as the lowest, and the ratio against the data
    sheet's packed fp32 figure too (the appendix's, and notebook 06's pitfall 4).
    ``cache``: a 16 KiB row read five times, once from HBM (``_cached_row``).
    Raises ``ValueError`` when the recorded launch run is not shipped."""
    launch_machine, span_machine = launch_machine or H200, span_machine or MI300X
    empty = pitfalls.recorded_empty_launch()
    if not empty["device_s"]:
        raise ValueError("launch_empty: the recorded run has no device (CUDA graph) row")
    # The pitfalls run recorded the launch twice (its 'launch' experiment too, which notebook 06
    # quotes): both are given, so that the two notebooks' figures read as one range.
    second = pitfalls.recorded_launch_costs()
    bound = pitfalls.launch_bound(4096, launch_machine, empty["device_s"])
    span = pitfalls.compute_roof_span(span_machine)
    packed = (span_machine.ceiling("fp32-packed").value if span_machine.has("fp32-packed") else None)
    row_bytes = 4096 * operators.dtype_bytes("fp32")
    # The H200's own span, so that the first page needs no packed/unpacked distinction (the
    # MI300X's fp32 vector roof is half its data sheet's packed figure, a detail for later).
    fast, slow = launch_machine.ceiling(FP8_TENSOR), launch_machine.ceiling("fp32")
    return {
        "launch": {"n": bound["n"], "n_bytes": bound["n_bytes"], "traffic_s": bound["traffic_s"],
                   "hbm_gbps": launch_machine.ceiling("dram").value, "machine": launch_machine.name,
                   "device_launch_s": empty["device_s"], "launch_over_traffic": bound["launch_over_traffic"],
                   "numba_dispatch_s": empty["dispatch_s"]["one float"], "source": empty["source"],
                   # the vector add passes three arrays, which the same run dispatched apart
                   "three_array_dispatch_s": empty["dispatch_s"].get("three arrays"),
                   # the one launch figure notebook 00 quotes: notebook 06's and exercise 2's
                   "device_s": second["device_s"],
                   "second_device_launch_s": second["device_s"],
                   "second_numba_dispatch_s": second["host_dispatch_s"].get("Numba-CUDA")},
        "skills": {"machine": launch_machine.name, "fast": fast.label, "fast_gflops": fast.value,
                   "slow": slow.label, "slow_gflops": slow.value, "ratio": fast.value / slow.value},
        "roofs": {"machine": span_machine.name, "low_gflops": span["low"].value, "low": span["low"].label,
                  "high_gflops": span["high"].value, "high": span["high"].label, "ratio": span["ratio"],
                  # the other roofs as low as the lowest (the MI300X's fp64 vector)
                  "also_low": [c.label for c in span_machine.compute_ceilings
                               if c.value == span["low"].value and c.name != span["low"].name],
                  "packed_fp32_gflops": packed,
                  "ratio_to_packed": span["high"].value / packed if packed else None},
        "cache": _cached_row(row_bytes, reads=5),
    }


def _cached_row(row_bytes: int, reads: int) -> dict:
    """A row of fp32 elements read ``reads`` times with one FMA (2 FLOPs) per element per read, every
    re-read served by a cache: the cache carries every read's bytes, HBM the first read's only, so
    the same FLOPs give an intensity against HBM ``reads`` times that against the cache."""
    n_flops = 2 * (row_bytes // operators.dtype_bytes("fp32")) * reads
    cache_bytes, hbm_bytes = reads * row_bytes, row_bytes
    return {"row_bytes": row_bytes, "reads": reads, "n_flops": n_flops,
            "cache_bytes": cache_bytes, "hbm_bytes": hbm_bytes,
            "cache_intensity": n_flops / cache_bytes, "hbm_intensity": n_flops / hbm_bytes,
            "hbm_over_l2_intensity": (n_flops / hbm_bytes) / (n_flops / cache_bytes)}
