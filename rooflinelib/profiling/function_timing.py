"""Timing a student's function: which library launched its work, and that library's clock.

``fn(*args, **kwargs)`` is called once, timed apart (the first call pays for compilation and
allocation), then warmed up, then timed ``repeats`` times.  GPU work is timed with device events
recorded on the stream the library launches on; the timed calls are queued back to back and the
host waits once, after the last end event, so no synchronisation and no allocation falls inside
an interval.  CPU work is
timed with ``time.perf_counter``.  The result is the median of the repeats and their spread.

The library is told apart by what the call touches: a CuPy array or a torch CUDA tensor among
the arguments or the return value, a Numba device array, or ``fn`` being a Numba CUDA kernel
launch (``kernel[grid, block]``).  Anything else is CPU work.  numba, cupy and torch are
imported only when an argument shows they are in use.

The whole timing runs under a time bound (:func:`run_bounded`): in a thread of its own, as the
checkers run a student's answer, so that a function that never returns is reported after
``timeout_s`` instead of hanging a batch job.  The caller's current CUDA stream and device
(CuPy, torch, Numba) are made current in that thread first, so the work runs where it would
have run.
"""
from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass

from rooflinelib.measure.timing import Timing, TimingUnavailable, device_events, time_queued

LIBRARIES = ("cupy", "torch", "numba", "cpu")
#: Warm-up: at least this many calls, and at least this long, after the first call.
WARMUP_CALLS = 3
WARMUP_S = 0.05
#: Default repeats: enough for about TARGET_S of timed work, within these bounds.
MIN_REPEATS, MAX_REPEATS, TARGET_S = 10, 1000, 0.3


#: Seconds that timing one function may take by default (first call, warm-up and repeats):
#: far above the 0.3 s of repeats plus a first call that compiles; a CI job is not left hanging.
DEFAULT_TIMEOUT_S = 300.0


class TimingError(RuntimeError):
    """The function could not be timed: it raised, ran past its time bound, or its library
    cannot time it here."""


class _TimeUp(BaseException):
    """Raised into a function that ran past its bound.  A BaseException, so that the function's
    own ``except Exception`` does not swallow it."""


def _raise_in(thread: threading.Thread) -> None:
    """Ask ``thread`` to raise :class:`_TimeUp` at its next bytecode (CPython only; a thread
    blocked in C, a ``time.sleep`` say, sees it when the call returns)."""
    try:
        import ctypes
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(_TimeUp))
    except (AttributeError, ImportError, OSError):  # not CPython: the thread is left to end itself
        pass


def _caller_devices() -> list:
    """Context managers that make the caller's current CUDA device and stream current in
    another thread: CuPy's and torch's current stream, and Numba's current device, are each
    thread's own.  Only libraries already imported are asked; nothing is imported here."""
    entered = []
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        try:
            entered += [cupy.cuda.Device(), cupy.cuda.get_current_stream()]
        except Exception:  # no GPU, or CuPy without its CUDA libraries: nothing to carry over
            pass
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_initialized():
                entered.append(torch.cuda.stream(torch.cuda.current_stream()))
        except Exception:
            pass
    numba_cuda = sys.modules.get("numba.cuda")
    if numba_cuda is not None:
        try:
            # the device whose context is active in the caller, without creating one
            current = numba_cuda.gpus.current if numba_cuda.is_available() else None
            if current is not None:
                entered.append(current)
        except Exception:
            pass
    return entered


def run_bounded(call, timeout_s: float, what: str):
    """``call()`` in a thread of its own: its value, its exception re-raised here, or
    :class:`TimingError` (naming ``what`` and the limit) when it runs past ``timeout_s``.

    A late call is first asked to stop (an exception raised into it); one that does not stop
    within half a second is left running as a daemon thread, which does not keep the process
    alive at exit, and the message says so.  Ctrl-C in the caller stops the call the same way
    and is re-raised."""
    box = {}
    devices = _caller_devices()

    def target():
        try:
            for device in devices:
                device.__enter__()
            box["value"] = call()
        except _TimeUp:
            box["stopped"] = True
        except BaseException as exc:  # re-raised in the caller, whatever it is
            box["error"] = exc

    worker = threading.Thread(target=target, name=f"rooflinelib: {what}"[:60], daemon=True)
    worker.start()
    try:
        worker.join(timeout_s)
    except KeyboardInterrupt:
        _raise_in(worker)
        raise
    if worker.is_alive():
        deadline = time.monotonic() + 0.5
        while worker.is_alive() and time.monotonic() < deadline:
            _raise_in(worker)
            worker.join(0.02)
        still = ("; it is still running in the background (a notebook: restart the kernel to stop it)"
                 if worker.is_alive() else "; is there an endless loop or a wait in it?")
        raise TimingError(f"{what} did not return within its time limit, timeout = {timeout_s:g} s{still}")
    if "error" in box:
        raise box["error"]
    if box.get("stopped"):  # the stop request arrived as the call ended
        raise TimingError(f"{what} did not return within its time limit, timeout = {timeout_s:g} s")
    return box["value"]


def _module_of(obj) -> str:
    return type(obj).__module__ or ""


def _is_cupy(obj) -> bool:
    return _module_of(obj).startswith("cupy") and hasattr(obj, "device") and hasattr(obj, "data")


def _is_torch_cuda(obj) -> bool:
    return _module_of(obj).startswith("torch") and bool(getattr(obj, "is_cuda", False))


def _is_numba_device(obj) -> bool:
    mod = _module_of(obj)
    return mod.startswith("numba") and ("devicearray" in mod or hasattr(obj, "copy_to_host"))


def _is_numba_launch(fn) -> bool:
    mod = _module_of(fn)
    return mod.startswith("numba") and ("dispatcher" in mod or "_LaunchConfiguration" in type(fn).__name__)


def _flatten(values, depth: int = 0):
    for value in values:
        if isinstance(value, (list, tuple)) and depth < 2:
            yield from _flatten(value, depth + 1)
        elif isinstance(value, dict) and depth < 2:
            yield from _flatten(list(value.values()), depth + 1)
        else:
            yield value


def detect_library(fn, args=(), kwargs=None, returned=None) -> str:
    """'cupy', 'torch', 'numba' or 'cpu': the library whose device work ``fn`` launched."""
    if _is_numba_launch(fn):
        return "numba"
    values = list(_flatten(list(args) + list((kwargs or {}).values()) + [returned]))
    for test, name in ((_is_cupy, "cupy"), (_is_torch_cuda, "torch"), (_is_numba_device, "numba")):
        if any(test(v) for v in values):
            return name
    return "cpu"


@dataclass(frozen=True)
class Timed:
    """What the timer saw: the library, its clock, the first call, and the repeats' statistics
    (a :class:`rooflinelib.measure.timing.Timing`, rule "median": the course's one home for
    them)."""

    library: str
    clock: str  # "device events" or "perf_counter"
    first_call_s: float
    timing: object  # measure.timing.Timing of the timed repeats
    warmup_calls: int

    @property
    def seconds(self) -> tuple:
        return self.timing.samples_s

    @property
    def median_s(self) -> float:
        return self.timing.median_s

    @property
    def spread(self) -> float:
        """(max - min) / median of the repeats."""
        return self.timing.spread

    @property
    def repeats(self) -> int:
        return self.timing.repeats


def _call(fn, args, kwargs, what: str):
    try:
        return fn(*args, **kwargs)
    except (KeyboardInterrupt, GeneratorExit, _TimeUp):
        raise
    except BaseException as exc:  # the student's code: SystemExit included, shown in one line
        text = " ".join(str(exc).split())[:300]
        raise TimingError(f"fn: raised {type(exc).__name__} on the {what} call: {text}") from None


def time_function(fn, args=(), kwargs=None, repeats=None, timeout_s=None, what="fn") -> Timed:
    """Time ``fn(*args, **kwargs)``: first call apart, warm-up, then ``repeats`` timed calls
    (default: enough for about TARGET_S, between MIN_REPEATS and MAX_REPEATS).

    With ``timeout_s``, all of it runs under :func:`run_bounded`: past the bound it is a
    :class:`TimingError` that names ``what`` and the limit."""
    if timeout_s is not None:
        return run_bounded(lambda: _time_function(fn, args, kwargs, repeats), timeout_s, what)
    return _time_function(fn, args, kwargs, repeats)


def _time_function(fn, args, kwargs, repeats) -> Timed:
    kwargs = kwargs or {}
    t0 = time.perf_counter()
    returned = _call(fn, args, kwargs, "first")
    library = detect_library(fn, args, kwargs, returned)
    events = device_events(library) if library != "cpu" else None
    if events:
        events.synchronize()  # the first call's device work is part of the first call
    first_call_s = time.perf_counter() - t0
    del returned

    # warm-up: also estimates one call's cost, to choose the number of repeats
    n_warm, t0 = 0, time.perf_counter()
    while n_warm < WARMUP_CALLS or time.perf_counter() - t0 < WARMUP_S:
        _call(fn, args, kwargs, "warm-up")
        n_warm += 1
        if events:
            events.synchronize()
        if n_warm >= 10 * WARMUP_CALLS and time.perf_counter() - t0 >= WARMUP_S:
            break
    per_call = (time.perf_counter() - t0) / n_warm
    if repeats is None:
        repeats = int(min(MAX_REPEATS, max(MIN_REPEATS, TARGET_S / max(per_call, 1e-9))))

    seconds = []
    if events:
        # Queued back to back (measure.timing.time_queued): a call too short to keep the queue
        # full is timed with the device idling between its kernels, which is what a loop of
        # such calls costs.  One untimed call first, so that the device is busy when the first
        # start event is recorded: otherwise the first interval holds the host's dispatch.
        seconds = time_queued(lambda: _call(fn, args, kwargs, "timed"), events, repeats,
                              prime=lambda: _call(fn, args, kwargs, "warm-up"))
        clock = "device events"
    else:
        clock_fn = time.perf_counter
        for _ in range(repeats):
            t = clock_fn()
            _call(fn, args, kwargs, "timed")
            seconds.append(clock_fn() - t)
        clock = "perf_counter"
    try:
        timing = Timing(tuple(seconds), rule="median")
    except TimingUnavailable:
        raise TimingError(f"fn: a timed call took no measurable time ({clock}); give it more work") from None
    return Timed(library, clock, first_call_s, timing, n_warm)
