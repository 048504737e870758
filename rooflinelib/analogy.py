"""Notebook 00's kitchen: the roofline in a unit anyone can picture, and where the picture fails.

A chef who can prep ``chef_per_min`` ingredients a minute is the compute roof; vans that deliver
``van_per_min`` ingredients a minute each are the bandwidth; how much prep a recipe does per
ingredient is the intensity.  The kitchen's output is the roofline's ``min(P, I x B)``, computed
by :func:`rooflinelib.model.attainable_gflops` in other units.  :func:`breaks` states the three
places the picture fails, each with the pitfall of notebook 06 that shows it and a figure
computed here.
"""
from __future__ import annotations

from . import operators, pitfalls
from .model import attainable_gflops

#: The picture's round numbers: a chef who preps 100 ingredients a minute, a van that brings 10.
CHEF_PER_MIN = 100.0
VAN_PER_MIN = 10.0


def kitchen(work_per_ingredient: float = 1.0, vans: int = 1, chef_per_min: float = CHEF_PER_MIN,
            van_per_min: float = VAN_PER_MIN) -> dict:
    """What the kitchen prepares per minute, and how the chef spends the minute.

    ``work_per_ingredient`` is the recipe's intensity (1: a salad, chopped once; a stew that
    simmers for an hour off one crate is far more).  Returns the deliveries per minute, the
    prep per minute (``min(chef, work x deliveries)``), the share of the minute the chef works
    and waits, which of the two binds, and the ridge: the work per ingredient at which more
    vans stop helping."""
    if not vans >= 1 or not work_per_ingredient > 0:
        raise ValueError(f"vans, work_per_ingredient: must be at least 1 and positive, got {vans!r}, "
                         f"{work_per_ingredient!r}")
    delivered = vans * van_per_min
    prep = attainable_gflops(work_per_ingredient, chef_per_min, delivered)
    busy = prep / chef_per_min
    return {"delivered_per_min": delivered, "prep_per_min": prep, "chef_busy": busy,
            "chef_waiting": 1.0 - busy, "bound": "the deliveries" if prep < chef_per_min else "the chef",
            "ridge": chef_per_min / delivered}


def breaks(machine=None) -> list:
    """The picture's three failures, each as ``{"assumes", "on a GPU", "pitfall", "figure"}``,
    the figure computed from the course's functions (``machine`` for the span of compute roofs:
    the MI300X by default, whose datasheet lists four)."""
    from .machines import MI300X
    machine = machine or MI300X
    launch = pitfalls.launch_bound_at(4096, pitfalls.TEXTBOOK_DRAM_GBPS, pitfalls.TEXTBOOK_LAUNCH_S)
    span = pitfalls.compute_roof_span(machine)
    row_bytes = 4096 * operators.dtype_bytes("fp32")  # one row of 4096 floats, small enough for any cache
    reads = 5
    try:
        measured = pitfalls.recorded_empty_launch()
        h200 = (f"; measured on the recorded H200, an empty kernel took {measured['events_s']['one float'] * 1e6:.0f} us "
                f"by device events from Numba, and {measured['device_s'] * 1e6:.2f} us of the GPU's own time in a CUDA graph"
                if measured["device_s"] else "")
    except (ValueError, KeyError):
        h200 = ""
    return [
        {"assumes": "a steady stream of orders", "on a GPU": "a kernel too small to amortise its launch",
         "pitfall": "pitfall 1 of notebook 06",
         "figure": (f"a {launch['n']}-element vector add moves {launch['n_bytes']:,.0f} bytes in "
                    f"{launch['traffic_s'] * 1e9:.1f} ns at {pitfalls.TEXTBOOK_DRAM_GBPS / 1e3:g} TB/s, against a "
                    f"launch of about {pitfalls.TEXTBOOK_LAUNCH_S * 1e6:g} us: more than {int(launch['launch_over_traffic'])}x"
                    + h200)},
        {"assumes": "one chef with one skill", "on a GPU": "several compute roofs, one per instruction class",
         "pitfall": "pitfall 4 of notebook 06",
         "figure": (f"the {machine.name}'s roofs run from {span['low'].value / 1e3:,.1f} TFLOP/s "
                    f"({span['low'].label}) to {span['high'].value / 1e3:,.1f} ({span['high'].label}): "
                    f"{span['ratio']:.0f}x")},
        {"assumes": "no pantry", "on a GPU": "caches that serve re-read data without touching HBM",
         "pitfall": "pitfall 3 of notebook 06, and the hierarchical roofline of notebook 05",
         "figure": (f"a row of {row_bytes:,} bytes read {reads} times crosses the L2 {reads} times and HBM "
                    f"once: its HBM intensity is {reads}x its L2 intensity")},
    ]
