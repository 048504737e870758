"""Opcode histograms of SASS, the instructions the GPU runs (``kernel.inspect_sass()``).

A histogram of the hot loop explains most gaps to a ceiling before any timing: integer
bookkeeping beside the FFMAs, a DFMA where an FFMA was meant, 4-byte loads where 16-byte ones
were intended.  Reading SASS needs ``nvdisasm`` (CUDA toolkit) and so a GPU machine.
"""
from __future__ import annotations

import os
import re
import shutil

# "        /*0090*/                   @!P0 FFMA R3, R2, R5, R3 ;" -> "FFMA"
_OPCODE = re.compile(r"^\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", re.M)


def opcode_histogram(sass) -> dict:
    """Opcode -> count over SASS text (or the dict of texts ``inspect_sass`` may return),
    most frequent first, NOPs left out."""
    if isinstance(sass, dict):
        sass = "\n".join(sass.values())
    counts = {}
    for op in _OPCODE.findall(sass):
        if op != "NOP":
            counts[op] = counts.get(op, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def nvdisasm_available() -> bool:
    """True once the CUDA toolkit's nvdisasm is on PATH (its usual place is added first)."""
    if "/usr/local/cuda/bin" not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.environ.get("PATH", "") + os.pathsep + "/usr/local/cuda/bin"
    return shutil.which("nvdisasm") is not None


def kernel_histograms(sources) -> dict:
    """``{source.name: histogram}`` for kernel sources with ``.compile().inspect_sass()``."""
    if not nvdisasm_available():
        return {"skipped": "nvdisasm not found"}
    return {src.name: opcode_histogram(src.compile().inspect_sass()) for src in sources}
