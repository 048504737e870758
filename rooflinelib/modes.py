"""Which of the course's three run modes this machine can use, and why.

The notebooks measure when they can and fall back when they cannot:

- ``gpu``: a CUDA device is visible to Numba-CUDA or CuPy, so the labs measure it live;
- ``cpu``: no usable GPU, but Numba's CPU target is there, so the labs measure this CPU live
  (a CPU roofline, labelled as one);
- ``recorded``: nothing can be measured here, so the notebooks load the runs recorded on the
  H200 that ship with the package.

:func:`detect_mode` runs the backends' probes (:mod:`rooflinelib.measure.backend`, the ones
``--backend auto`` runs) in that order.  A probe never raises: every import,
driver call or device query that fails becomes one line in :attr:`RunMode.fallbacks`, so a
notebook can always say what it tried and what it fell back to.  The environment variable
``ROOFLINE_MODE`` (``auto``, ``gpu``, ``cpu`` or ``recorded``) asks for a mode; a mode that is
not available falls back, with the reason.

Nothing heavy is imported at module import time; the probes import numba and cupy themselves.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

MODES = ("gpu", "cpu", "recorded")
CHOICES = ("auto",) + MODES
ENV_VAR = "ROOFLINE_MODE"

MODE_TITLES = {
    "gpu": "live GPU",
    "cpu": "live CPU",
    "recorded": "recorded H200 data",
}


@dataclass(frozen=True)
class RunMode:
    """The mode the notebooks run in, the backend that serves it, and what was passed over."""

    mode: str  # one of MODES
    backend: Optional[str]  # "numba", "cupy", "cpu" (the backends' names), or None for recorded data
    device: str  # what is measured, in words
    requested: str = "auto"
    fallbacks: tuple = field(default_factory=tuple)  # "backend: reason" for each one not used

    @property
    def live(self) -> bool:
        """True when the labs can measure this machine now."""
        return self.mode in ("gpu", "cpu")

    @property
    def title(self) -> str:
        return MODE_TITLES[self.mode]

    def describe(self) -> str:
        """A few plain lines for a notebook: the mode, the device, and every fallback taken."""
        if self.mode == "recorded" and self.requested == "recorded":
            head = (f"Mode: recorded H200 data, as asked ({ENV_VAR}=recorded): the labs load "
                    "the H200 runs shipped with the course.")
        elif self.mode == "recorded":
            head = ("Mode: recorded H200 data. Nothing on this machine can be measured, so the "
                    "labs load the H200 runs shipped with the course.")
        else:
            head = (f"Mode: {self.title}, measured with the {self.backend} backend "
                    f"({BACKEND_WORDS.get(self.backend, self.backend)}) on {self.device}.")
        lines = [head]
        if self.requested not in ("auto", self.mode):
            lines.append(f"Asked for {self.requested!r}; it is not available here, so this is the fallback.")
        for reason in self.fallbacks:
            lines.append(f"Not used: {reason}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.describe()


#: The backends in words, for the mode line.
BACKEND_WORDS = {"numba": "Numba-CUDA", "cupy": "CuPy", "cpu": "Numba's parallel CPU target"}


def _first_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    name = type(exc).__name__
    text = text[:160] + ("..." if len(text) > 160 else "")
    return f"{name}: {text}" if text else name


def requested_mode(requested: Optional[str] = None) -> str:
    """The mode asked for: the argument, else ``$ROOFLINE_MODE``, else ``auto``.

    An unknown value is a one-line ``ValueError`` naming the field.
    """
    source = "mode" if requested is not None else ENV_VAR
    value = requested if requested is not None else os.environ.get(ENV_VAR, "auto")
    value = str(value).strip().lower() or "auto"
    if value not in CHOICES:
        raise ValueError(f"{source}: must be one of {', '.join(CHOICES)}, got {value!r}")
    return value


def detect_mode(requested: Optional[str] = None, gpu_probes=None, cpu_probes=None) -> RunMode:
    """The best mode this machine supports, never raising for a missing GPU or library.

    ``requested`` (or ``$ROOFLINE_MODE``) narrows the search: ``gpu`` tries the GPU probes and
    then falls back; ``cpu`` skips the GPU; ``recorded`` measures nothing.  An invalid value is
    reported as a fallback too, so that a typo in the environment cannot crash a notebook.
    """
    fallbacks = []
    try:
        wanted = requested_mode(requested)
    except ValueError as exc:
        fallbacks.append(f"{exc}; using auto")
        wanted = "auto"
    from .measure import backend as backends
    gpu_probes = backends.GPU_PROBES if gpu_probes is None else gpu_probes
    cpu_probes = backends.CPU_PROBES if cpu_probes is None else cpu_probes

    if wanted in ("auto", "gpu"):
        for probe in gpu_probes:
            result = backends.safe_probe(probe)
            if result.ok:
                return RunMode("gpu", result.backend, result.detail, wanted, tuple(fallbacks))
            fallbacks.append(f"{result.backend}: {result.detail}")
    if wanted in ("auto", "gpu", "cpu"):
        for probe in cpu_probes:
            result = backends.safe_probe(probe)
            if result.ok:
                return RunMode("cpu", result.backend, result.detail, wanted, tuple(fallbacks))
            fallbacks.append(f"{result.backend}: {result.detail}")
    return RunMode("recorded", None, "recorded H200 runs", wanted, tuple(fallbacks))


def mode_label(machine, path=None) -> str:
    """What ``machine``'s ceilings are, in the course's words: ``recorded H200``, ``live CPU``,
    ``live GPU`` (each with its date), ``datasheet``, ``given peaks`` or ``measured, from a CSV``.

    ``path`` is the file the machine was loaded from, when there is one: a file shipped in
    ``rooflinelib/data`` is a recorded run.
    """
    from pathlib import Path
    provenance = getattr(machine, "provenance", None) or {}
    if machine.kind == "datasheet":
        return "datasheet"
    if machine.kind == "given":
        return "given peaks"
    if path is not None:
        from .results import DATA_DIR
        if DATA_DIR.resolve() in Path(path).resolve().parents:
            return f"recorded H200, measured {machine.date}" if machine.date else "recorded H200"
    if "(recorded" in machine.name:
        return f"recorded H200, measured {machine.date}" if machine.date else "recorded H200"
    if provenance.get("source") == "csv":
        return "measured, from a CSV (no device recorded)"
    scope = provenance.get("scope")
    if scope in ("cpu", "gpu"):
        when = f", measured {machine.date}" if machine.date else ""
        return f"live {scope.upper()}{when}"
    return machine.kind


# --- result files, with fallbacks ------------------------------------------------------------

#: A result older than this many days gets a warning: clocks, drivers and neighbours move the
#: ceilings (pitfall 8), so an old measurement describes the machine as it was.
STALE_AFTER_DAYS = 90


@dataclass(frozen=True)
class Loaded:
    """What a notebook got when it asked for a result: the thing, where it came from, and why.

    ``origin`` is ``file`` (the path asked for), ``recorded`` (the H200 runs shipped with the
    course), ``datasheet`` (vendor peaks: only when no measurement at all could be loaded) or
    ``none`` (nothing usable, for a sweep).  ``message`` says which, and why any fallback happened.
    """

    origin: str
    message: str
    machine: object = None  # a Machine holding the ceilings (None for an unusable sweep)
    result: Optional[dict] = None  # the validated result, when one was loaded


def _age_note(result: dict, now=None) -> str:
    from datetime import datetime, timezone
    try:
        created = datetime.fromisoformat(str(result["created"]).replace("Z", "+00:00"))
        if created.tzinfo is None:
            created = created.replace(tzinfo=timezone.utc)
        days = ((now or datetime.now(timezone.utc)) - created).days
    except (KeyError, ValueError, TypeError):
        return " Its date cannot be read, so treat it as possibly stale."
    if days > STALE_AFTER_DAYS:
        return (f" It is {days} days old: clocks, drivers and neighbours move ceilings, so "
                "re-measure if this machine has changed since.")
    return ""


def describe_result(result: dict) -> str:
    """'NVIDIA H200, numba backend, measured 2026-12-01': a result's device, backend and date."""
    device = result.get("device", {})
    return (f"{device.get('name', 'unknown device')}, {result.get('backend')} backend, "
            f"measured {str(result.get('created', '?'))[:10]}")


def _load_file(path, kind: str):
    """(result, None) or (None, one-line reason)."""
    try:
        from . import results
    except Exception as exc:  # the measurement package is missing or broken
        return None, f"results cannot be read here ({_first_line(exc)})"
    try:
        result = results.load(path)
    except Exception as exc:  # ResultError for bad files; anything else is reported the same way
        return None, " ".join(str(exc).split()) or type(exc).__name__
    if result.get("kind") != kind:
        return None, f"{path}: kind: is {result.get('kind')!r}, expected {kind!r}"
    return result, None


def _recorded(kind: str, backend: str):
    try:
        from . import results
        return results.recorded(kind, backend), None
    except Exception as exc:
        return None, " ".join(str(exc).split()) or type(exc).__name__


def _load_measured(kind: str, title: str, recorded_name: str, path, backend: str, now):
    """A stored result of ``kind``: from ``path`` if it loads (``None``: the file that
    ``roofline measure`` or ``sweep`` stored by default for ``backend``, if any), else the
    recorded H200 run.

    Returns ``(Loaded or None, because, recorded_reason)``; the last two word why neither was
    usable, for the caller's own fallback message.
    """
    from .results import to_machine
    reason = None
    if path is None and os.environ.get(ENV_VAR, "").strip().lower() != "recorded":
        # What `roofline measure` / `roofline sweep` stored by default, unless the recorded
        # runs were asked for by name.
        from .result_files import stored_path
        path = stored_path(kind, backend)
    if path is not None:
        result, reason = _load_file(path, kind)
        if result is not None:
            return Loaded("file", f"{title} from {path}: {describe_result(result)}."
                          + _age_note(result, now), to_machine(result), result), "", ""
    because = f" ({path} could not be used: {reason})" if reason else ""
    result, recorded_reason = _recorded(kind, backend)
    if result is not None:
        machine = to_machine(result, name=recorded_name.format(backend=result["backend"]))
        return Loaded("recorded", f"{title} from the recorded H200 run shipped with the course: "
                      f"{describe_result(result)}.{because}", machine, result), "", ""
    return None, because, recorded_reason


def load_ceilings(path=None, backend: str = "numba", now=None) -> Loaded:
    """Lab 1 ceilings: from ``path`` if it loads (by default, what ``roofline measure`` stored
    for ``backend``), else the recorded H200 run, else the datasheet.

    Never raises for a missing, truncated, foreign or outdated file: the ``message`` of the
    answer says what was used and why.
    """
    loaded, because, recorded_reason = _load_measured(
        "ceilings", "Ceilings", "H200 (recorded, {backend})", path, backend, now)
    if loaded is not None:
        return loaded
    from .machines import H200
    return Loaded("datasheet", "No measured ceilings could be loaded, so these are the H200 "
                  f"datasheet peaks, not measurements{because}; recorded run: {recorded_reason}.",
                  H200, None)


def load_sweep(path=None, backend: str = "numba", now=None) -> Loaded:
    """A Lab 2 sweep: from ``path`` if it loads, else the recorded H200 sweep, else nothing."""
    loaded, because, recorded_reason = _load_measured(
        "sweep", "Sweep", "H200 sweep (recorded, {backend})", path, backend, now)
    if loaded is not None:
        return loaded
    return Loaded("none", f"No sweep could be loaded{because}; recorded sweep: {recorded_reason}.")


# --- measure live when the mode allows, load otherwise ---------------------------------------

def _measured(kind: str, mode: RunMode, progress, options: dict):
    """(result, None) from a live run, or (None, reason) when it could not run or verify."""
    try:
        from . import measure
        run = measure.measure_ceilings if kind == "ceilings" else measure.run_sweep
        result = run(backend=mode.backend, progress=progress, **options)
        if hasattr(progress, "done"):  # a notebook's progress bar: fill it
            progress.done()
        return result, None
    except Exception as exc:  # includes a failed verification: an error, never a number
        return None, f"the live {kind} run on {mode.device} failed ({_first_line(exc)})"


def _live_or_loaded(kind: str, mode: RunMode, path, backend: str, progress, options: dict) -> Loaded:
    loader = load_ceilings if kind == "ceilings" else load_sweep
    if mode.live:
        result, reason = _measured(kind, mode, progress, options)
        if result is not None:
            from .results import to_machine
            scope = "a CPU roofline of this machine" if mode.mode == "cpu" else "this GPU"
            return Loaded("live", f"{kind.capitalize()} measured just now on {mode.device} "
                          f"({scope}, {result['backend']} backend, every rate verified).",
                          to_machine(result), result)
        loaded = loader(path, backend)
        return Loaded(loaded.origin, f"{reason}. {loaded.message}", loaded.machine, loaded.result)
    return loader(path, backend)


def ceilings_for(mode: RunMode, path=None, backend: str = "numba", progress=None, **options) -> Loaded:
    """Lab 1's ceilings for a notebook: measured live in gpu/cpu mode, else loaded.

    ``options`` go to :func:`rooflinelib.measure.measure_ceilings` (``size_mib``, ``repeats``,
    ...).  A live run that fails, or fails its verification, falls back to :func:`load_ceilings`
    and the message says so.
    """
    return _live_or_loaded("ceilings", mode, path, backend, progress, options)


def sweep_for(mode: RunMode, path=None, backend: str = "numba", progress=None, **options) -> Loaded:
    """Lab 2's sweep for a notebook: measured live in gpu/cpu mode, else loaded."""
    return _live_or_loaded("sweep", mode, path, backend, progress, options)
