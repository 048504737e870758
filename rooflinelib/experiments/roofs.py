"""The DRAM roofs the experiments are judged against, from the one chain of ceiling sources.

An experiment scored on DRAM (notebook 04's softmax and transpose, notebook 06's wrong-ceiling
GEMMs) does not time a copy of its own for its roof, on a CPU or on a GPU: it takes the DRAM
access mix it moves from the student's stored Lab 1 result of its backend, through
:func:`rooflinelib.modes.student_ceilings` (else Lab 1 measured once now and stored, as
``roofline profile`` does).  So it sits under the same DRAM roof as Lab 1's table, the charts,
``roofline profile`` and the exercises, until the student measures again.  A roof timed beside
the kernel would be another figure each run, and on a busy machine a slower one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from rooflinelib import modes
from rooflinelib.store import results

MIXES = ("read", "write", "copy")


@dataclass(frozen=True)
class DramRoof:
    """One DRAM access mix's roof from the chain, and what the chain said about it."""

    gbps: float
    mix: str  # 'read', 'write' or 'copy'
    origin: str  # 'file' (the stored Lab 1 result) or 'live' (Lab 1 ran now, and was stored)
    created: Optional[str]  # when that Lab 1 result was measured
    noisy: bool  # the Lab 1 ceiling this roof is judged itself noisy (measure.protocol.judge_noise)
    noise: Optional[str]  # why, in words, when noisy
    message: str  # the chain's own message: where the result came from, whether it was stored

    def as_extra(self) -> dict:
        """What an experiment keeps of its roof in its result file.  The chain's message stays
        out: it names the student's own files, which a shipped recorded run must not."""
        kept = {"gbps": self.gbps, "mix": self.mix, "origin": self.origin, "created": self.created,
                "noisy": self.noisy}
        return dict(kept, noise=self.noise) if self.noisy else kept

    def said(self) -> str:
        """One line for a notebook: where the roof came from, in the chain's words."""
        return f"DRAM roof from Lab 1: {' '.join(self.message.split())}"


def chain_dram_roof(mix: str, backend: str = "numba", progress=None) -> DramRoof:
    """The DRAM roof of access mix ``mix`` ('read', 'write' or 'copy') for an experiment on
    ``backend`` ('numba' or 'cpu'): the stored Lab 1 result of ``backend``, else Lab 1 measured
    once now (on a CPU at notebook 03's buffer size, ``modes.LAB1_CPU_SIZE_MIB``) and stored.
    Never the recorded H200 run: a live experiment is placed under the roofs of the machine it
    ran on.  A stored result that judged itself noisy is still the stored one, as everywhere on
    the chain: the roof says it was noisy (``noisy``, ``noise``) and the message says to measure
    again.

    Raises ``ValueError`` (one line) when no Lab 1 result can be had, or when it holds neither
    that mix nor (for the copy) a DRAM roof measured by copying, as results from before the
    mixes did."""
    if mix not in MIXES:
        raise ValueError(f"mix: must be read, write or copy, got {mix!r}")
    options = {"size_mib": modes.LAB1_CPU_SIZE_MIB} if backend == "cpu" else {}
    loaded = modes.student_ceilings(backend=backend, measure="if-missing", recorded=False,
                                    progress=progress, **options)
    if loaded.result is None:
        raise ValueError(f"DRAM roof: {' '.join(loaded.message.split())}")
    name = f"dram-{mix}"
    if name not in {c["name"] for c in loaded.result["ceilings"]} and mix == "copy" \
            and results.dram_mix(loaded.result) == "copy":
        name = "dram"  # a result from before the mixes: its dram was a copy
    ceiling = next((c for c in loaded.result["ceilings"] if c["name"] == name), None)
    if ceiling is None:
        raise ValueError(f"DRAM roof: the Lab 1 result ({modes.describe_result(loaded.result)}) has no "
                         f"dram-{mix} ceiling; run `roofline measure` again to measure every mix")
    noisy = bool(ceiling.get("noisy"))
    return DramRoof(float(ceiling["value"]), mix, loaded.origin, loaded.result.get("created"), noisy,
                    (ceiling.get("noise") or "judged noisy") if noisy else None, loaded.message)
