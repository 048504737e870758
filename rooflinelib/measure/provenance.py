"""Where a measurement was made: device, driver, CUDA, clocks, temperature, power, versions.

A ceiling is valid for the machine in the state it was measured in (pitfall 8, on
clocks), so every result records that state before and after the run, and flags the run when
the SM clock moved between the two.  Sources, best first: NVML through ``pynvml`` (the
``nvidia-ml-py`` package), then ``nvidia-smi``; without either, the fields say ``unknown``
rather than failing the measurement.
"""
from __future__ import annotations

import datetime as _dt
import os
import platform
import shutil
import subprocess
import threading
import time

from rooflinelib.store.fileio import FileError, read_text

#: A relative change of the SM clock between the start and the end of a run above which the
#: run is flagged: 2% is about the spread of a good ceiling measurement.
CLOCK_DRIFT_LIMIT = 0.02

#: FP32 and FP64 lanes per SM by compute capability: the theoretical FMA peak is
#: SMs x lanes x 2 FLOP x clock.  Only architectures whose figures the vendor publishes.
FMA_LANES_PER_SM = {
    (7, 0): (64, 32), (8, 0): (64, 32), (8, 6): (128, 2), (8, 9): (128, 2),
    (9, 0): (128, 64), (10, 0): (128, 64), (12, 0): (128, 2),
}
SHARED_BYTES_PER_CLOCK_PER_SM = 128  # 32 banks x 4 bytes, every architecture above
SFU_PER_CLOCK_PER_SM = {(7, 0): 16, (8, 0): 16, (8, 6): 16, (8, 9): 16, (9, 0): 16}


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def _package_version(name: str):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return None


def library_versions() -> dict:
    names = ("rooflinelib", "numpy", "numba", "numba-cuda", "cupy-cuda13x", "cupy-cuda12x",
             "cupy", "torch", "nvidia-ml-py", "llvmlite")
    found = {n: _package_version(n) for n in names}
    found = {n: v for n, v in found.items() if v}
    found["python"] = platform.python_version()
    return found


# ---------------------------------------------------------------------------------------------
# GPU state: one snapshot, from NVML or nvidia-smi


def _device_index() -> int:
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return int(visible) if visible.isdigit() else 0


def _nvml():
    try:
        import pynvml
        pynvml.nvmlInit()
        return pynvml
    except Exception:
        return None


def _decode(value):
    return value.decode() if isinstance(value, bytes) else value


def _snapshot_nvml(nv) -> dict:
    h = nv.nvmlDeviceGetHandleByIndex(_device_index())
    snap = {
        "source": "nvml",
        "name": _decode(nv.nvmlDeviceGetName(h)),
        "driver": _decode(nv.nvmlSystemGetDriverVersion()),
        "sm_clock_mhz": nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM),
        "mem_clock_mhz": nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM),
        "max_sm_clock_mhz": nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_SM),
        "temperature_c": nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU),
        "power_w": round(nv.nvmlDeviceGetPowerUsage(h) / 1000.0, 1),
    }
    for key, call in (("power_limit_w", "nvmlDeviceGetEnforcedPowerLimit"),):
        try:
            snap[key] = round(getattr(nv, call)(h) / 1000.0, 1)
        except Exception:
            pass
    try:
        reasons = nv.nvmlDeviceGetCurrentClocksEventReasons(h)
        snap["clock_event_reasons"] = int(reasons)
    except Exception:
        pass
    try:
        cuda_driver = nv.nvmlSystemGetCudaDriverVersion()
        snap["cuda_driver"] = f"{cuda_driver // 1000}.{cuda_driver % 1000 // 10}"
    except Exception:
        pass
    return snap


_SMI_FIELDS = ("name", "driver_version", "clocks.sm", "clocks.mem", "clocks.max.sm",
               "temperature.gpu", "power.draw", "power.limit")
_SMI_KEYS = ("name", "driver", "sm_clock_mhz", "mem_clock_mhz", "max_sm_clock_mhz",
             "temperature_c", "power_w", "power_limit_w")


def _snapshot_smi() -> dict:
    exe = shutil.which("nvidia-smi")
    if not exe:
        return {"source": "unknown"}
    try:
        text = subprocess.run(
            [exe, f"--query-gpu={','.join(_SMI_FIELDS)}", "--format=csv,noheader,nounits",
             "-i", str(_device_index())],
            capture_output=True, text=True, timeout=10).stdout.strip().splitlines()[0]
    except Exception:
        return {"source": "unknown"}
    snap = {"source": "nvidia-smi"}
    for key, raw in zip(_SMI_KEYS, (p.strip() for p in text.split(","))):
        try:
            snap[key] = float(raw) if key not in ("name", "driver") else raw
        except ValueError:
            snap[key] = raw
    return snap


def gpu_snapshot() -> dict:
    """Clocks (MHz), temperature (C) and power (W) now; ``{"source": "unknown"}`` if no
    tool can read them."""
    nv = _nvml()
    if nv is not None:
        try:
            return _snapshot_nvml(nv)
        except Exception:
            pass
    return _snapshot_smi()


class NoClock:
    """A clock sampler for a backend that reads no SM clock (the CPU): ``median_mhz`` is None."""

    median_mhz = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class ClockSampler:
    """Samples the SM clock in a background thread while a kernel runs (NVML only).

    ``with ClockSampler() as s: ...`` then ``s.median_mhz`` (None without NVML).  The
    theoretical FMA peak is computed at this clock, the one the kernel actually ran at.
    With ``power=True`` it also samples the board power (W) and NVML's clock-event reasons (a
    bit mask; 4 is the software power cap), for :meth:`summary`.  Read-only: nothing here
    changes a setting of the card.
    """

    def __init__(self, interval_s: float = 0.005, power: bool = False):
        self.interval_s = interval_s
        self.samples = []
        self.power_w = []
        self.reasons = set()
        self._power = power
        self._stop = threading.Event()
        self._thread = None
        self._nv = _nvml()

    def _run(self):
        nv = self._nv
        h = nv.nvmlDeviceGetHandleByIndex(_device_index())
        while not self._stop.is_set():
            try:
                self.samples.append(nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM))
                if self._power:
                    self.power_w.append(nv.nvmlDeviceGetPowerUsage(h) / 1000.0)
            except Exception:
                return
            if self._power:
                try:
                    self.reasons.add(int(nv.nvmlDeviceGetCurrentClocksEventReasons(h)))
                except Exception:  # an older NVML: no reasons, the rest still sampled
                    pass
            time.sleep(self.interval_s)

    def __enter__(self):
        if self._nv is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=2)
        return False

    @property
    def median_mhz(self):
        if not self.samples:
            return None
        ordered = sorted(self.samples)
        return float(ordered[len(ordered) // 2])

    def summary(self) -> dict:
        """The samples in short: SM clock median and minimum (MHz), power median and maximum
        (W), the clock-event reasons seen, and how many samples there were."""
        def median(values):
            return sorted(values)[len(values) // 2] if values else None
        return {"sm_clock_mhz_median": median(self.samples), "sm_clock_mhz_min": min(self.samples, default=None),
                "power_w_median": median(self.power_w), "power_w_max": max(self.power_w, default=None),
                "clock_event_reasons": sorted(self.reasons), "samples": len(self.samples)}


def clock_drift(before: dict, after: dict):
    """Relative change of the SM clock from ``before`` to ``after``, or None if unknown."""
    try:
        a, b = float(before["sm_clock_mhz"]), float(after["sm_clock_mhz"])
    except (KeyError, TypeError, ValueError):
        return None
    return (b - a) / a if a > 0 else None


# ---------------------------------------------------------------------------------------------
# The CPU


def cpu_name() -> str:
    try:
        for line in read_text("/proc/cpuinfo").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except FileError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def cpu_provenance(threads: int, name: str = None) -> dict:
    """The device block of a CPU result; ``name`` is :func:`cpu_name` when the caller already
    read it (a backend reads it once, when it opens)."""
    return {
        "name": f"CPU: {cpu_name() if name is None else name}",
        "kind": "cpu",
        "cores_logical": os.cpu_count(),
        "threads_used": threads,
        "platform": platform.platform(),
    }


def finish(device: dict, before: dict, after: dict, backend: str, started: str) -> dict:
    """The ``device`` block of a result: static facts, the state before and after, versions."""
    out = dict(device)
    out["backend"] = backend
    out["started"] = started
    out["finished"] = now_iso()
    out["libraries"] = library_versions()
    if before or after:
        out["before"] = before
        out["after"] = after
        drift = clock_drift(before, after)
        out["sm_clock_drift"] = drift
        out["clock_drift_flag"] = bool(drift is not None and abs(drift) > CLOCK_DRIFT_LIMIT)
    return out
