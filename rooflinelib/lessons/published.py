"""Figures measured on other machines and published, shown beside the course's own runs.

The course never mixes these with its measurements: each table here carries its source, and a
notebook prints it next to a recorded or live run of the same kernels, never in place of one.
"""
from __future__ import annotations

from rooflinelib.lessons import pitfalls

#: A transpose ladder published for an AMD Instinct MI300X (gfx942, ROCm 6.2): the copy kernel's
#: bandwidth and each transpose's, in GB/s, rounded as published ("about"), and the published
#: reading that the naive kernel moves about 5x the bytes the problem needs.
MI300X_TRANSPOSE = {
    "source": "published MI300X measurements (gfx942, ROCm 6.2), rounded as published; not re-measured here",
    "copy_gbps": 4800.0,
    "variants": (("naive", 700.0), ("tiled", 2600.0), ("tiled + padded", 3400.0)),
    "naive_bytes_factor": 5.0,
}


def mi300x_transpose_rows() -> list:
    """``{"variant", "gbps", "fraction_of_copy"}`` for the published MI300X ladder."""
    copy = MI300X_TRANSPOSE["copy_gbps"]
    return [{"variant": name, "gbps": gbps, "fraction_of_copy": gbps / copy}
            for name, gbps in MI300X_TRANSPOSE["variants"]]


def naive_transpose_bytes_factor(element_bytes: int = 4,
                                 transaction_bytes: int = pitfalls.GPU_SECTOR_BYTES) -> float:
    """Bytes a naive transpose moves per byte it needs, when its reads are coalesced and every
    strided write fills a transaction of its own (no cache merges two writes to one sector):
    (1 + the write amplification) / 2, 4.5 for 4-byte elements and 32-byte sectors."""
    writes = pitfalls.strided_amplification(transaction_bytes, element_bytes, transaction_bytes)
    return (1.0 + writes) / 2.0
