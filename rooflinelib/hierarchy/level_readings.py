"""Numbers behind notebook 05's prose that no other module computes: the shared-memory peak a
sweep ran under, the L2-sharing run's rates, and the recorded L2 bytes by source unit.

The notebook writes its interpretations in markdown with the recorded numbers put in;
``tests/notebooks/test_hierarchy_readings.py`` checks those numbers against the data.  Pure standard
library.
"""
from __future__ import annotations

import statistics
from pathlib import Path

from rooflinelib.store.fileio import read_json
# Bytes per clock per SM that the L1 and shared memory deliver to loads (the engine's shared
# ceiling uses the same figure); ncu's own L1 peak counts a wider path.
from rooflinelib.measure.provenance import SHARED_BYTES_PER_CLOCK_PER_SM
from rooflinelib.hierarchy.ncu import NcuError, load_csv, recorded_csv
from rooflinelib.store.recorded import recorded_file


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
    path = recorded_file("h200_ncu_lab4_lts_by_source.json")
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



def recorded_l2_by_footprint() -> dict:
    """Lab 1's L2 kernel at nine footprints under Nsight Compute, recorded on the H200
    (2026-12-02): ``{"what", "created", "reported_l2_bytes", "rows": [...]}``."""
    path = recorded_file("h200_ncu_l2_by_footprint.json")
    return read_json(path, NcuError, "a recorded ncu reading")


def l2_footprint_rows(record=None) -> list:
    """Per footprint of :func:`recorded_l2_by_footprint` (its read launch), what the counters
    say about the L2 kernel: the rate at the SMs (bytes requested / time), the slices' rate
    (``lts__t_bytes`` / time), the share of the requested bytes the slices served, the DRAM
    bytes read, and the share of the requested bytes that did not come from DRAM (the L2's hit
    rate as the DRAM counter bounds it)."""
    record = recorded_l2_by_footprint() if record is None else record
    rows = []
    for r in record["rows"]:
        if r.get("launch") != 1:
            continue
        seconds, asked = r["seconds"], r["requested_bytes"]
        rows.append({"ws_bytes": r["working_set_bytes"], "sm_gbps": asked / seconds / 1e9,
                     "slices_gbps": r["lts_bytes"] / seconds / 1e9, "slices_share": r["lts_bytes"] / asked,
                     "dram_read_bytes": r["dram_read_bytes"], "not_from_dram": 1 - r["dram_read_bytes"] / asked})
    return sorted(rows, key=lambda row: row["ws_bytes"])


def recorded_sharing_rows() -> list:
    """:func:`sharing_rows` of the recorded H200 run (``h200_ncu_l2_sharing.csv`` and its
    ``.json`` of the target's records, 2026-12-01)."""
    path = recorded_csv("h200_ncu_l2_sharing.csv")
    return sharing_rows(load_csv(path), read_json(path.with_name("h200_ncu_l2_sharing.json"), NcuError,
                                                  "a recorded ncu reading"))
