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
from rooflinelib.measure import backend as backends
from rooflinelib.store import results
from rooflinelib.store.lab_files import default_path
from rooflinelib.store.recorded import is_recorded
from rooflinelib.core.machines import H200
from rooflinelib import measure
from rooflinelib.store.results import to_machine

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
    provenance = getattr(machine, "provenance", None) or {}
    if machine.kind == "datasheet":
        return "datasheet"
    if machine.kind == "given":
        return "given peaks"
    if path is not None:
        if is_recorded(path):
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

    ``origin`` is ``live`` (measured just now), ``file`` (the path asked for, or the stored
    result), ``recorded`` (the H200 runs shipped with the course), ``datasheet`` (vendor peaks:
    only when no measurement at all could be loaded) or ``none`` (nothing usable).  ``message`` says which, and why any fallback happened.
    """

    origin: str
    message: str
    machine: object = None  # a Machine holding the ceilings (None for an unusable sweep)
    result: Optional[dict] = None  # the validated result, when one was loaded
    path: Optional[str] = None  # the file it was loaded from or stored in, when there is one


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


def shown_path(path) -> str:
    """``path`` as a student reads it: relative to the working folder when that is short
    (``../results/ceilings_cpu.json`` from a notebook), else under ``~``, else as given."""
    from pathlib import Path
    text = str(path)
    try:
        relative = os.path.relpath(text)
        if relative.count("..") <= 2:
            return relative
        return "~/" + str(Path(text).resolve().relative_to(Path.home().resolve()))
    except ValueError:  # another drive, or not under home
        return text


def describe_result(result: dict) -> str:
    """'NVIDIA H200, numba backend, measured 2026-12-01': a result's device, backend and date."""
    device = result.get("device", {})
    return (f"{device.get('name', 'unknown device')}, {result.get('backend')} backend, "
            f"measured {str(result.get('created', '?'))[:10]}")


def _load_file(path, kind: str):
    """(result, None) or (None, one-line reason)."""
    try:
        pass
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
        return results.recorded(kind, backend), None
    except Exception as exc:
        return None, " ".join(str(exc).split()) or type(exc).__name__


def _load_measured(kind: str, title: str, recorded_name: str, path, backend: str, now,
                   recorded: bool = True):
    """A stored result of ``kind``: from ``path`` if it loads (``None``: the file that
    ``roofline measure`` or ``sweep`` stored by default for ``backend``, if any), else the
    recorded H200 run (unless ``recorded`` is False).

    Returns ``(Loaded or None, because, recorded_reason)``; the last two word why neither was
    usable, for the caller's own fallback message.
    """
    reason = None
    if path is None and os.environ.get(ENV_VAR, "").strip().lower() != "recorded":
        # What `roofline measure` / `roofline sweep` stored by default, unless the recorded
        # runs were asked for by name.
        from rooflinelib.store.lab_files import stored_path
        path = stored_path(kind, backend)
    if path is not None:
        result, reason = _load_file(path, kind)
        if result is not None:
            return Loaded("file", f"{title} from {shown_path(path)}: {describe_result(result)}."
                          + _age_note(result, now) + noise_words(result), to_machine(result), result,
                          str(path)), "", ""
    because = f" ({path} could not be used: {reason})" if reason else ""
    if not recorded:
        return None, because, "not asked for"
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
    answer says what was used and why.  (:func:`student_ceilings` with ``measure="never"``.)
    """
    return student_ceilings(None, backend=backend, path=path, measure="never", now=now)


# --- the one chain of ceilings: live -> stored -> recorded -> datasheet ----------------------

#: What the chain may do about measuring: ``now`` (Lab 1 itself: measure, store, show),
#: ``if-missing`` (use the stored result; with none, measure once and store it) and ``never``.
MEASURE_CHOICES = ("now", "if-missing", "never")

#: The buffer size (MiB) of a Lab 1 on a CPU that the chain runs for a caller that finds none
#: stored (profile, notebook 07, exercise 4): notebook 03's.
LAB1_CPU_SIZE_MIB = 64

_measured_now = {}  # backend -> Loaded: a first measurement that could not be stored


def noise_words(result: dict) -> str:
    """' It was noisy: ...' when ``result`` judged itself noisy (:mod:`.measure.protocol`),
    else ''."""
    noisy = [c for c in result.get("ceilings", ()) if isinstance(c, dict) and c.get("noisy")]
    if not noisy:
        return ""
    why = "; ".join(f"{c['name']}: {c.get('noise', 'noisy')}" for c in noisy)
    return (f" It was noisy ({why}): re-run `roofline measure` when no other program is busy "
            "before trusting these ceilings.")


def _is_noisy(result: dict) -> bool:
    return any(isinstance(c, dict) and c.get("noisy") for c in result.get("ceilings", ()))


def keeps_clean(result: dict, path, notebook: bool = False) -> str:
    """Why ``result`` must not replace the file at ``path`` (it is noisy and the stored result
    there is clean), else ''.  ``roofline measure`` and Lab 1 both ask before they store;
    ``notebook``: Lab 1 asks, and goes on with the noisy run, which the words must say."""
    from pathlib import Path
    if not _is_noisy(result) or not Path(path).is_file():
        return ""
    old, _ = _load_file(path, result.get("kind", "ceilings"))
    if old is None or _is_noisy(old):
        return ""
    return (f"this run was noisy, so it does not replace the clean result stored in "
            f"{shown_path(path)} ({describe_result(old)}), which stays stored for `roofline profile`, the "
            + ("other notebooks and the exercises; this notebook uses the noisy run" if notebook
               else "notebooks and the exercises"))


def _store(result: dict, backend: str):
    """``(path, None)`` once ``result`` is stored where the chain looks for it, else
    ``(path or None, why not)``.  A noisy result never replaces a clean stored one."""
    try:
        path = default_path("ceilings", result.get("backend", backend))
    except Exception as exc:  # an unknown backend name: nothing to store under
        return None, _first_line(exc)
    kept = keeps_clean(result, path, notebook=True)  # the caller goes on with the noisy run
    if kept:
        return path, kept
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        results.save(result, path)
    except Exception as exc:  # a read-only folder, a full disk: the old file stays as it was
        return path, f"it could not be stored in {shown_path(path)} ({_first_line(exc)})"
    return path, None


def _live_ceilings(backend: str, device: str, progress, options: dict):
    """(result, None) from Lab 1 run now on ``backend``, or (None, reason)."""
    try:
        result = measure.measure_ceilings(backend=backend, progress=progress, **options)
        if hasattr(progress, "done"):  # a notebook's progress bar: fill it
            progress.done()
        return result, None
    except Exception as exc:  # includes a failed verification: an error, never a number
        return None, f"the live ceilings run on {device} failed ({_first_line(exc)})"


def student_ceilings(mode=None, *, backend=None, path=None, measure: str = "if-missing",
                     recorded: bool = True, progress=None, now=None, **options) -> Loaded:
    """The ceilings a student's work is placed on: the one chain every notebook, ``roofline
    profile``, ``roofline plot`` and the exercises go through.

    1. **live**, with ``measure="now"`` in a live ``mode``: Lab 1 runs now and its result is
       stored where the others look (a noisy one never replaces a clean stored one);
    2. **stored**: ``path`` if given, else what ``roofline measure`` (or step 1 or 3) stored
       for ``backend`` (default: the mode's backend, else ``numba``; a tuple is tried in order);
    3. **live, once**, with ``measure="if-missing"`` and nothing stored: Lab 1 runs now on
       ``backend``, is stored, and the message says to run ``roofline measure`` to measure again;
    4. **recorded**: the H200 run shipped with the course (unless ``recorded`` is False, and
       never in place of a live measurement that was asked for on a GPU or CPU);
    5. **datasheet**: the H200's vendor peaks, when nothing measured can be loaded.

    So the ridge a student sees is the same everywhere until they measure again.  ``options``
    go to :func:`rooflinelib.measure.measure_ceilings`.  Never raises; the ``message`` says
    which step gave the answer and why the ones before it did not.
    """
    if measure not in MEASURE_CHOICES:
        raise ValueError(f"measure: must be one of {', '.join(MEASURE_CHOICES)}, got {measure!r}")
    backends = (backend,) if isinstance(backend, str) else tuple(backend or ())
    if not backends:
        backends = (mode.backend,) if mode is not None and mode.backend else ("numba",)
    live = mode.live if mode is not None else measure != "never"
    device = mode.device if mode is not None else f"the {backends[0]} backend"
    cpu = (mode.mode == "cpu") if mode is not None else backends[0] == "cpu"
    reasons = []
    if measure == "now" and live:
        result, reason = _live_ceilings(backends[0], device, progress, options)
        if result is not None:
            return _from_live(result, device, cpu, first=False)
        reasons.append(reason)
    for name in backends:
        loaded, because, _ = _load_measured("ceilings", "Ceilings", "", path, name, now, recorded=False)
        if loaded is not None:
            return _prefixed(loaded, reasons)
        if because:
            reasons.append(because.strip(" ()"))
        if path is not None:
            break
    if measure == "if-missing" and live:
        if backends[0] in _measured_now:
            return _measured_now[backends[0]]
        result, reason = _live_ceilings(backends[0], device, progress, options)
        if result is not None:
            return _from_live(result, device, cpu, first=True)
        reasons.append(reason)
    if recorded:
        # the H200 was recorded with the GPU backends only: a CPU falls back to the numba run
        for name in dict.fromkeys((backends[0], "numba") if backends[0] == "cpu" else (backends[0],)):
            loaded, _, recorded_reason = _load_recorded_only(name, now)
            if loaded is not None:
                return _prefixed(loaded, reasons)
        reasons.append(f"recorded run: {recorded_reason}")
    else:
        return Loaded("none", "No Lab 1 result could be used: " + "; ".join(reasons or ["none is stored"])
                      + ". Run `roofline measure` to measure this machine.")
    return _prefixed(Loaded("datasheet", "No measured ceilings could be loaded, so these are the "
                            "H200 datasheet peaks, not measurements.", H200, None), reasons)


def _load_recorded_only(backend: str, now):
    """(Loaded of the recorded H200 run of ``backend``, '', '') or (None, '', why not)."""
    result, reason = _recorded("ceilings", backend)
    if result is None:
        return None, "", reason
    machine = to_machine(result, name=f"H200 (recorded, {result['backend']})")
    return Loaded("recorded", "Ceilings from the recorded H200 run shipped with the course: "
                  f"{describe_result(result)}.", machine, result), "", ""


def _prefixed(loaded: Loaded, reasons: list) -> Loaded:
    if not reasons:
        return loaded
    return Loaded(loaded.origin, f"{'; '.join(reasons)}. {loaded.message}", loaded.machine,
                  loaded.result, loaded.path)


def _from_live(result: dict, device: str, cpu: bool, first: bool) -> Loaded:
    """The Loaded of a live Lab 1 run, stored where the chain looks."""
    scope = "a CPU roofline of this machine" if cpu else "this GPU"
    path, not_stored = _store(result, result.get("backend", "cpu" if cpu else "numba"))
    head = (f"No Lab 1 result was stored, so Lab 1 measured {device} just now" if first
            else f"Ceilings measured just now on {device}")
    text = f"{head} ({scope}, {result['backend']} backend, every rate verified)."
    text += noise_words(result)
    if not_stored:
        text += f" Not stored: {not_stored}."
    else:
        text += (f" Stored in {shown_path(path)}: `roofline profile`, `roofline plot`, the notebooks and the "
                 "exercises use it until you measure again.")
    if first:
        text += " Run `roofline measure` to measure again."
    loaded = Loaded("live", text, to_machine(result), result, str(path) if path and not not_stored else None)
    if first and not_stored:
        _measured_now[result.get("backend")] = loaded
    return loaded


def load_sweep(path=None, backend: str = "numba", now=None) -> Loaded:
    """A Lab 3 sweep: from ``path`` if it loads, else the recorded H200 sweep, else nothing."""
    loaded, because, recorded_reason = _load_measured(
        "sweep", "Sweep", "H200 sweep (recorded, {backend})", path, backend, now)
    if loaded is not None:
        return loaded
    return Loaded("none", f"No sweep could be loaded{because}; recorded sweep: {recorded_reason}.")


# --- measure live when the mode allows, load otherwise ---------------------------------------

def _measured(kind: str, mode: RunMode, progress, options: dict):
    """(result, None) from a live run, or (None, reason) when it could not run or verify."""
    try:
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
            scope = "a CPU roofline of this machine" if mode.mode == "cpu" else "this GPU"
            return Loaded("live", f"{kind.capitalize()} measured just now on {mode.device} "
                          f"({scope}, {result['backend']} backend, every rate verified).",
                          to_machine(result), result)
        loaded = loader(path, backend)
        return Loaded(loaded.origin, f"{reason}. {loaded.message}", loaded.machine, loaded.result)
    return loader(path, backend)


def ceilings_for(mode: RunMode, path=None, backend: str = None, progress=None, store: bool = True,
                 **options) -> Loaded:
    """Lab 1's ceilings for a notebook: measured live in gpu/cpu mode and stored where every
    other notebook, ``roofline profile``, ``roofline plot`` and the exercises look (the message
    says where), else the stored result, else the recorded run (:func:`student_ceilings`).

    ``options`` go to :func:`rooflinelib.measure.measure_ceilings` (``size_mib``, ``repeats``,
    ...).  A live run that fails, or fails its verification, falls back and the message says
    so.  ``store=False`` measures and shows without storing.
    """
    if not store and mode.live:
        loaded = _live_or_loaded("ceilings", mode, path, backend or mode.backend or "numba", progress, options)
        return loaded
    return student_ceilings(mode, backend=backend, path=path, measure="now" if mode.live else "never",
                            progress=progress, **options)


def sweep_for(mode: RunMode, path=None, backend: str = "numba", progress=None, **options) -> Loaded:
    """Lab 3's sweep for a notebook: measured live in gpu/cpu mode, else loaded."""
    return _live_or_loaded("sweep", mode, path, backend, progress, options)
