"""One backend interface, and the one place that decides which backend "auto" means.

Three backends implement :class:`Backend` with the same signatures: ``numba`` and ``cupy`` on a
CUDA GPU (:mod:`.engine`), ``cpu`` on this machine's cores (:mod:`.cpu`).  Lab 1, Lab 3, the
working-set sweep and the experiments call only these methods, so none of them branches on
the backend's name; what a backend cannot measure, the ceiling registry
(:mod:`.registry`) leaves out of its plan.

``auto`` takes the first backend whose probe passes, GPU first (numba, then cupy), then the
CPU, and says which it took and why.  The notebooks' modes (:mod:`rooflinelib.modes`) run the
same probes, so a notebook and ``roofline measure`` always agree on the machine.  A probe
never raises: every import, driver query or device check that fails becomes its reason.
"""
from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from rooflinelib.core import sanity
from rooflinelib.measure.errors import BackendUnavailable
from rooflinelib.measure.registry import BACKENDS
from rooflinelib.measure.provenance import cpu_name
from rooflinelib.measure.gpu_backends import NumbaGpu, CupyGpu
from rooflinelib.measure.cpu import CpuBackend

BACKEND_CHOICES = ("auto",) + BACKENDS

#: The range of a DRAM buffer the user may ask for, in MiB.  Below 1 MiB the buffer is a few
#: cache lines (1e-300 MiB was rounded up to one 32 KB block) and the "DRAM" rate is a cache's.
MIN_BUFFER_MIB, MAX_BUFFER_MIB = 1, 65536


def buffer_bytes(size_mib, default: int) -> int:
    """Bytes of a buffer of ``size_mib`` MiB (``default`` bytes when None or 0), or a one-line
    ValueError naming ``size_mib`` outside :data:`MIN_BUFFER_MIB`..:data:`MAX_BUFFER_MIB`."""
    if size_mib is None or (not isinstance(size_mib, bool) and size_mib == 0):
        return default
    value = sanity.number(size_mib, "size_mib", error=ValueError, positive=True)
    if not MIN_BUFFER_MIB <= value <= MAX_BUFFER_MIB:
        raise ValueError(f"size_mib: must be from {MIN_BUFFER_MIB} to {MAX_BUFFER_MIB} MiB, got {value:g}")
    return int(value * 2 ** 20)

NO_GPU_NOTE = ("No CUDA GPU found: measuring this machine's CPU instead. "
               "This is a CPU roofline, not a GPU one.")


@runtime_checkable
class Backend(Protocol):
    """What Lab 1, Lab 3, the working-set sweep and the experiments need from a backend.

    Kernel methods return :class:`~rooflinelib.measure.protocol.Run` objects (one per launch
    configuration), which :func:`~rooflinelib.measure.protocol.measure_run` verifies and times.
    A backend raises ``NotImplementedError`` for a kernel it does not have; the registry rows
    say which backends have which, so a plan never asks.
    """

    name: str  # "numba", "cupy" or "cpu"
    scope: str  # "gpu" or "cpu"
    device_name: str
    repeats: int
    default_buffer_bytes: int  # each DRAM buffer: far larger than the last-level cache
    sweep_ks: tuple  # Lab 3's default K values

    # session: provenance before and after a run
    def provenance(self) -> dict: ...
    def start(self) -> dict: ...
    def finish(self, session: dict) -> dict: ...
    def result_notes(self, device: dict) -> list: ...

    # the protocol's primitives
    def first_call(self, launch) -> float: ...
    def time(self, launch, repeats: int = None): ...
    def clock_sampler(self): ...
    def theoretical(self, clock_mhz) -> dict: ...
    def release(self) -> None: ...

    # kernels, each a list of Runs
    def copy_runs(self, size_bytes: int) -> list: ...
    def read_runs(self, size_bytes: int) -> list: ...  # read-only DRAM stream
    def write_runs(self, size_bytes: int) -> list: ...  # write-only DRAM stream
    def fma_runs(self, dtype: str) -> list: ...
    def sweep_buffers(self, size_bytes: int): ...
    def sweep_runs(self, k: int, buffers, all_ks=(), vectors_per_thread=None) -> list: ...
    def l2_runs(self, working_sets=None) -> list: ...
    def shared_runs(self) -> list: ...
    def sfu_runs(self) -> list: ...
    def link_runs(self, direction: str) -> list: ...  # host <-> device ("h2d", "d2h")


# ---------------------------------------------------------------------------------------------
# probes: can this backend run here?  Never raising.


@dataclass(frozen=True)
class Probe:
    """The outcome of trying one backend: usable or not, and a one-line reason either way."""

    backend: str  # "numba", "cupy" or "cpu"
    ok: bool
    detail: str


def _first_line(exc: BaseException) -> str:
    """An exception in one line: its type, then its text squeezed and cut at 160 characters."""
    text = " ".join(str(exc).split())
    name = type(exc).__name__
    text = text[:160] + ("..." if len(text) > 160 else "")
    return f"{name}: {text}" if text else name


def _numpy_version():
    try:
        from importlib.metadata import version
        parts = version("numpy").split(".")
        return int(parts[0]), int(parts[1])
    except Exception:  # numpy missing or a version string we cannot read: no opinion
        return None


def probe_numba() -> Probe:
    """Can Numba-CUDA compile and launch on a real device here?"""
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        return Probe("numba", False, "the CUDA simulator is switched on (NUMBA_ENABLE_CUDASIM); "
                                     "it runs kernels correctly but its timings mean nothing")
    if importlib.util.find_spec("numba") is None:
        return Probe("numba", False, "numba is not installed")
    try:
        from numba import cuda
    except Exception as exc:
        return Probe("numba", False, f"import failed ({_first_line(exc)})")
    try:
        present = cuda.is_available()
    except Exception as exc:
        return Probe("numba", False, f"driver check failed ({_first_line(exc)})")
    if not present:
        return Probe("numba", False, "no CUDA driver or device is visible")
    numpy_version = _numpy_version()
    if numpy_version is not None and numpy_version >= (2, 5):
        return Probe("numba", False, f"numpy {numpy_version[0]}.{numpy_version[1]} breaks "
                                     "numba-cuda 0.30's compiler; install numpy<2.5")
    try:
        dev = cuda.get_current_device()
        name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        cc = ".".join(map(str, dev.compute_capability))
    except Exception as exc:
        return Probe("numba", False, f"device query failed ({_first_line(exc)})")
    return Probe("numba", True, f"{name} (compute capability {cc})")


def probe_cupy() -> Probe:
    """Can CuPy allocate on a real device here?"""
    if importlib.util.find_spec("cupy") is None:
        return Probe("cupy", False, "CuPy is not installed")
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return Probe("cupy", False, "no CUDA device is visible")
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        cupy.zeros(1)  # the first allocation is where a missing driver shows
        name = props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
    except Exception as exc:
        return Probe("cupy", False, f"no usable device ({_first_line(exc)})")
    return Probe("cupy", True, name)


def cpu_description() -> str:
    """The CPU in words: model name and logical core count."""
    cores = os.cpu_count() or 1
    return f"{cpu_name()}, {cores} logical core{'s' if cores != 1 else ''}"


def probe_cpu() -> Probe:
    """Can Numba's parallel CPU target run the CPU labs here?"""
    if importlib.util.find_spec("numba") is None:
        return Probe("cpu", False, "numba is not installed (pip install numba)")
    try:
        import numba  # noqa: F401  (the import itself is the check)
    except Exception as exc:
        return Probe("cpu", False, f"import failed ({_first_line(exc)})")
    return Probe("cpu", True, f"CPU: {cpu_description()}")


def safe_probe(probe) -> Probe:
    try:
        return probe()
    except Exception as exc:  # a probe with a bug must not take a notebook down
        name = getattr(probe, "__name__", "probe").replace("probe_", "")
        return Probe(name, False, f"probe failed ({_first_line(exc)})")


#: Probes in the order "auto" tries them.  Tests replace these to simulate machines.
GPU_PROBES: tuple = (probe_numba, probe_cupy)
CPU_PROBES: tuple = (probe_cpu,)


# ---------------------------------------------------------------------------------------------
# opening a backend


def _construct(name: str):
    if name == "numba":
        return NumbaGpu()
    if name == "cupy":
        return CupyGpu()
    return CpuBackend()


def open_backend(name: str = "auto", progress=None):
    """An instance of the backend ``name`` ('auto', 'numba', 'cupy' or 'cpu'); raises
    BackendUnavailable (one line) if it cannot run here."""
    if name not in BACKEND_CHOICES:
        raise BackendUnavailable(f"backend: must be one of {', '.join(BACKEND_CHOICES)}, got {name!r:.40}")
    if name != "auto":
        return _construct(name)
    reasons = []
    for probe in GPU_PROBES:
        found = safe_probe(probe)
        if not found.ok:
            reasons.append(f"{found.backend}: {found.detail}")
            continue
        try:
            backend = _construct(found.backend)
        except BackendUnavailable as exc:
            reasons.append(str(exc))
            continue
        if progress:
            progress(f"backend: {found.backend} (auto) on {backend.device_name}")
        return backend
    if progress:
        progress(NO_GPU_NOTE)
        for r in reasons:
            progress(f"  ({r})")
    return _construct("cpu")


def gpu_available() -> bool:
    """True when a GPU backend's probe passes here."""
    return any(safe_probe(p).ok for p in GPU_PROBES)
