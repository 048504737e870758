"""Lab 1: measure this machine's ceilings, verified, with provenance.

On a GPU with the Numba backend: DRAM (copy), L2, shared memory, fp32 and fp64 FMA, the SFU,
and the matrix ceilings through cuBLAS (when CuPy is present).  With CuPy: DRAM, fp32, fp64 and
the matrix ceilings.  On the CPU: DRAM (copy), fp32 and fp64 FMA.  Each ceiling is the best rate
over a few launch configurations (as the Empirical Roofline Toolkit reports it); the others
are kept in ``details``.
"""
from __future__ import annotations

from .. import results
from .provenance import finish, gpu_snapshot, library_versions, now_iso

MATRIX_ORDER = ("fp64-matrix", "fp32-matrix", "tf32-tensor", "fp16-tensor", "bf16-tensor")


def plan(backend_name: str, with_matrix: bool) -> list:
    """The ceiling names a backend measures, in order."""
    if backend_name == "cpu":
        return ["dram", "fp32", "fp64"]
    names = ["dram", "fp32", "fp64"]
    if backend_name == "numba":
        names[1:1] = ["l2", "shared"]
        names.append("sfu")
    if with_matrix:
        names += list(MATRIX_ORDER)
    return names


def measure_ceilings(backend="auto", size_mib: float = None, repeats: int = None,
                     matrix: bool = True, matrix_n: int = 8192, progress=None) -> dict:
    """Run Lab 1 and return a validated ``ceilings`` result (see :mod:`rooflinelib.results`).

    ``backend``: 'auto', 'numba', 'cupy', 'cpu' or a backend object.  ``size_mib``: each copy
    buffer (default 1024 on a GPU, 256 on the CPU; DRAM figures need buffers far larger than
    the last-level cache).  ``matrix``: also measure the cuBLAS ceilings (needs CuPy).
    A failed verification raises VerificationError and nothing is returned.
    """
    from .backends import open_backend
    from .engine import FP32_CONFIGS
    b = open_backend(backend, progress) if isinstance(backend, str) else backend
    is_cpu = b.name == "cpu"
    if repeats:
        b.repeats = int(repeats)
    size_bytes = int((size_mib or (256 if is_cpu else 1024)) * 2 ** 20)
    with_matrix = False
    if matrix and not is_cpu:
        from .matrix import cupy_gpu_available
        with_matrix = cupy_gpu_available()
    names = plan(b.name, with_matrix)
    started = now_iso()
    if not is_cpu:
        b.warm_up()
    before = {} if is_cpu else gpu_snapshot()
    done = []
    notes = []
    if matrix and not is_cpu and not with_matrix:
        notes.append("matrix ceilings skipped: CuPy with a GPU is not available")
    for i, name in enumerate(names):
        if progress:
            progress(f"[{i + 1}/{len(names)}] {name}")
        if name == "dram":
            m = b.dram(size_bytes, progress)
        elif name in ("fp32", "fp64") and is_cpu:
            m = b.fma_peak(name, progress=progress)
        elif name == "fp32":
            m = b.fma_peak("fp32", FP32_CONFIGS, 4096, progress)
        elif name == "fp64":
            m = b.fma_peak("fp64", ((8, 32),), 1024, progress)
        elif name == "l2":
            m = b.l2(progress)
            if m.config.get("blocks_per_chunk", 0) > 1:  # an L2 too small for a chunk per block
                notes.append(f"l2: read with {m.config['blocks_per_chunk']:.1f} blocks per chunk; blocks that "
                             "share lines have their requests merged before the L2, so this rate can "
                             "exceed what the L2 itself serves")
        elif name == "shared":
            m = b.shared(progress)
        elif name == "sfu":
            m = b.sfu(progress)
        else:
            from .engine import VerificationError
            from .matrix import measure_matrix
            try:
                m = measure_matrix(name, n=matrix_n, progress=progress)
            except VerificationError:
                raise
            except Exception as exc:  # a dtype this GPU or library lacks: say so, go on
                notes.append(f"{name} not measured: {' '.join(str(exc).split())[:200]}")
                if progress:
                    progress(f"  {name}: not measured ({type(exc).__name__})")
                continue
        done.append(m)
    after = {} if is_cpu else gpu_snapshot()
    if is_cpu:
        device = dict(b.provenance(), backend="cpu", started=started, finished=now_iso(),
                      libraries=library_versions())
        notes.append("CPU roofline: measured on this machine's CPU cores, not a GPU.")
    else:
        device = finish(b.provenance(), before, after, b.name, started)
        if device.get("clock_drift_flag"):
            notes.append(f"SM clock moved {100 * device['sm_clock_drift']:+.1f}% between the "
                         "start and the end of the run: re-measure before trusting small gaps")
    result = {
        "format": results.FORMAT, "version": results.VERSION, "kind": "ceilings",
        "backend": b.name, "scope": "cpu" if is_cpu else "gpu", "created": started,
        "device": device,
        "ceilings": [m.ceiling_row() for m in done],
        "details": [m.detail() for m in done],
        "jit_seconds": {m.name: m.first_call_s for m in done},
        "notes": notes,
    }
    return results.validate(result)
