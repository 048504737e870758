"""Lab 1: measure this machine's ceilings, verified, with provenance.

What is measured is the ceiling registry's plan for the backend (:mod:`.registry`): on a GPU,
DRAM (read only, write only and copy, and ``dram``, the best of the three), L2, shared memory,
fp32 and fp64 FMA, the SFU and, where CuPy can reach cuBLAS, the matrix ceilings; on the CPU,
the DRAM mixes and ``dram``, fp32 and fp64 FMA.  Each ceiling is the best
rate over a few launch configurations (as the Empirical Roofline Toolkit reports it); the
others are kept in ``details``.
"""
from __future__ import annotations

from rooflinelib.store import results
from rooflinelib.measure import registry
from rooflinelib.measure.errors import VerificationError
from rooflinelib.measure.backend import buffer_bytes, open_backend


def measure_ceilings(backend="auto", size_mib: float = None, repeats: int = None,
                     matrix: bool = True, matrix_n: int = 8192, progress=None, links: bool = True) -> dict:
    """Run Lab 1 and return a validated ``ceilings`` result (see :mod:`rooflinelib.store.results`).

    ``backend``: 'auto', 'numba', 'cupy', 'cpu' or a backend object.  ``size_mib``: each copy
    buffer (default: the backend's, large against its last-level cache).  ``matrix``: also
    measure the cuBLAS ceilings where they can be.  ``links``: also the host <-> device
    ceilings (``pcie-h2d``, ``pcie-d2h``), on a GPU (a CPU has none to measure).  A failed verification raises VerificationError and
    nothing is returned.
    """
    b = open_backend(backend, progress) if isinstance(backend, str) else backend
    if repeats:
        b.repeats = int(repeats)
    size_bytes = buffer_bytes(size_mib, b.default_buffer_bytes)
    groups = ("core",) + (("matrix",) if matrix else ()) + (("link",) if links else ())
    options = registry.Options(size_bytes, matrix_n, groups, progress)
    specs, notes = registry.plan(b, options.groups)
    session = b.start()
    done = []
    for i, spec in enumerate(specs):
        if progress:
            progress(f"[{i + 1}/{len(specs)}] {spec.name}")
        try:
            m = spec.measure(b, options)
        except VerificationError:
            raise
        except Exception as exc:  # a dtype this GPU or library lacks: say so, go on
            if not spec.optional:
                raise
            notes.append(f"{spec.name} not measured: {' '.join(str(exc).split())[:200]}")
            if progress:
                progress(f"  {spec.name}: not measured ({type(exc).__name__})")
            continue
        if m.extra.get("note"):
            notes.append(f"{spec.name}: {m.extra['note']}")
        done.append(m)
    device = b.finish(session)
    notes += options.notes + b.result_notes(device)
    result = {
        "format": results.FORMAT, "version": results.VERSION, "kind": "ceilings",
        "backend": b.name, "scope": b.scope, "created": session["started"],
        "device": device,
        "ceilings": [m.ceiling_row() for m in done],
        "details": [m.detail() for m in done],
        "jit_seconds": {m.name: m.first_call_s for m in done},
        "notes": notes,
    }
    return results.validate(result)
