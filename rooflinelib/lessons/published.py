"""Figures measured on other machines and published, shown beside the course's own runs, and
the model bounds they are read against.

The course never mixes these with its measurements: each table here carries its source (author,
title, date, in REFERENCES.md), and a notebook prints it next to a recorded or live run of the
same kernels, never in place of one.  A figure whose publication cannot be named is not kept.
"""
from __future__ import annotations

from rooflinelib.lessons import pitfalls


def naive_transpose_bytes_factor(element_bytes: int = 4,
                                 transaction_bytes: int = pitfalls.GPU_SECTOR_BYTES) -> float:
    """Bytes a naive transpose moves per byte it needs, when its reads are coalesced and every
    strided write fills a transaction of its own (no cache merges two writes to one sector):
    (1 + the write amplification) / 2, 4.5 for 4-byte elements and 32-byte sectors."""
    writes = pitfalls.strided_amplification(transaction_bytes, element_bytes, transaction_bytes)
    return (1.0 + writes) / 2.0
