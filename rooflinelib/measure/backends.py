"""Choosing a backend: ``numba`` or ``cupy`` on a CUDA GPU, ``cpu`` anywhere.

``auto`` takes the first that works, in that order, and says which it took and why: a
student without a GPU gets a CPU roofline, clearly labelled, rather than an error.
"""
from __future__ import annotations

from .engine import BackendUnavailable

BACKEND_CHOICES = ("auto", "numba", "cupy", "cpu")

NO_GPU_NOTE = ("No CUDA GPU found: measuring this machine's CPU instead. "
               "This is a CPU roofline, not a GPU one.")


def open_backend(name: str = "auto", progress=None):
    """An instance of the backend ``name``; raises BackendUnavailable (one line) if it
    cannot run here."""
    if name not in BACKEND_CHOICES:
        raise BackendUnavailable(f"backend: must be one of {', '.join(BACKEND_CHOICES)}, got {name!r}")
    if name == "numba":
        from .engine import NumbaGpu
        return NumbaGpu()
    if name == "cupy":
        from .engine import CupyGpu
        return CupyGpu()
    if name == "cpu":
        from .cpu import CpuBackend
        return CpuBackend()
    reasons = []
    for candidate in ("numba", "cupy"):
        try:
            backend = open_backend(candidate)
        except BackendUnavailable as exc:
            reasons.append(str(exc))
            continue
        if progress:
            progress(f"backend: {candidate} (auto) on {backend.device_name}")
        return backend
    if progress:
        progress(NO_GPU_NOTE)
        for r in reasons:
            progress(f"  ({r})")
    from .cpu import CpuBackend
    return CpuBackend()


def gpu_available() -> bool:
    """True when the numba or the cupy backend can run here."""
    for candidate in ("numba", "cupy"):
        try:
            open_backend(candidate)
            return True
        except BackendUnavailable:
            pass
    return False
