"""Numbers behind notebook 05's prose that no other module computes: the shared-memory peak a
sweep ran under, the L2-sharing run's rates, and the recorded L2 bytes by source unit.

The notebook writes its interpretations in markdown with the recorded numbers put in;
``tests/test_hierarchy_readings.py`` checks those numbers against the data.  Pure standard
library.
"""
from __future__ import annotations

import statistics
from pathlib import Path

from ..fileio import read_json
# Bytes per clock per SM that the L1 and shared memory deliver to loads (the engine's shared
# ceiling uses the same figure); ncu's own L1 peak counts a wider path.
from ..measure.provenance import SHARED_BYTES_PER_CLOCK_PER_SM
from .ncu import NcuError


def shared_peak_gbps(result: dict, series_name: str = None):
    """SMs x 128 B x the SM clock the sweep ran at (GB/s), and that clock (MHz); (None, None)
    for a result without an SM count or clock (a CPU sweep)."""
    device = result.get("device", {})
    clocks = [s.get("sm_clock_mhz") for s in result.get("series", [])
              if s.get("sm_clock_mhz") and (series_name is None or s.get("name") == series_name)]
    sm_count = device.get("sm_count")
    if not sm_count or not clocks:
        return None, None
    clock = statistics.median(clocks)
    return sm_count * SHARED_BYTES_PER_CLOCK_PER_SM * clock / 1e3, clock


def recorded_lts_by_source() -> dict:
    """The L2 bytes by source unit of Lab 4's kernels, recorded on the H200 (run of 2026-12-01)."""
    path = Path(__file__).resolve().parent.parent / "data" / "h200_ncu_lab4_lts_by_source.json"
    return read_json(path, NcuError, "a recorded ncu reading")


def sharing_rows(kernels, records) -> list:
    """Lab 4's ``--l2-sharing`` run (ncu kernels and the target's records, in launch order),
    one dict per launch: what the SMs asked of the L2 (``l1tex__t_bytes``) against what its
    slices served (``lts__t_bytes``), as rates (GB/s) and as a share, with ncu's L2 peak."""
    rows = []
    for kernel, record in zip(kernels, records):
        seconds, asked, served = kernel.seconds, kernel.level_bytes("l1"), kernel.level_bytes("l2")
        peaks = kernel.peaks()
        rows.append({"name": record["name"], "ws_bytes": record["ws_bytes"],
                     "blocks_per_chunk": record["blocks_per_chunk"], "sm_gbps": asked / seconds / 1e9,
                     "slices_gbps": served / seconds / 1e9, "slices_share": served / asked,
                     "ncu_l2_peak_gbps": peaks.gbps.get("l2") if peaks else None})
    return rows

