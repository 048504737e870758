"""Timing: device events after a warm-up, the median of N repeats, and the spread.

A rate is computed from the median time, never from the best or the mean: the median ignores
the odd slow run and does not reward a lucky one.  The spread, (slowest - fastest) / median,
says how far to trust it.  The first call of a kernel (compilation and module load) is timed
separately by the caller and never enters a rate.

Every device-event clock of the package is made here, one per library (:func:`numba_events`,
:func:`cupy_events`, :func:`torch_events`), and every timed loop is one of two shapes:
:func:`time_with_events` (each repeat waited for: Lab 1's kernels) or :func:`time_queued` (the
repeats queued back to back, one wait at the end: a student's function, the all-reduce, a
training step).  numba, cupy and torch are imported only when their clock is asked for.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field


#: The statistics a rate may be computed from.
RULES = ("median", "best")


class TimingUnavailable(RuntimeError):
    """The device gave no timing (the CUDA simulator's events return -1)."""


@dataclass(frozen=True)
class Timing:
    """Seconds of ``len(samples_s)`` timed repeats."""

    samples_s: tuple = field(default_factory=tuple)
    #: which statistic a rate is computed from: "median" (the GPU backends) or "best"
    rule: str = "median"
    #: what the timer saw that a reader of the rate should know (empty when nothing)
    note: str = ""

    def __post_init__(self):
        if self.rule not in RULES:
            raise ValueError(f"rule: must be one of {', '.join(RULES)}, got {self.rule!r}")
        if not self.samples_s:
            raise ValueError("samples_s: needs at least one timed repeat")
        if any(not (s > 0) for s in self.samples_s):
            raise TimingUnavailable(f"samples_s: non-positive time in {self.samples_s[:4]}")

    @property
    def seconds(self) -> float:
        """The time a rate is computed from, by ``rule``."""
        return self.median_s if self.rule == "median" else self.min_s

    @property
    def min_s(self) -> float:
        return min(self.samples_s)

    @property
    def median_s(self) -> float:
        return statistics.median(self.samples_s)

    @property
    def spread(self) -> float:
        """(max - min) / median: 0.02 means the repeats lay within 2% of one another."""
        return (max(self.samples_s) - min(self.samples_s)) / self.median_s

    @property
    def repeats(self) -> int:
        return len(self.samples_s)

    def as_dict(self) -> dict:
        return {"median_s": self.median_s, "min_s": self.min_s, "rule": self.rule,
                "max_s": max(self.samples_s), "spread": self.spread, "repeats": self.repeats}


class DeviceEvents:
    """One library's device events: ``new()`` makes an event that records time,
    ``record(event, stream)`` records it (on the library's current stream when ``stream`` is
    None), ``elapsed_s(start, end)`` reads a recorded pair in seconds, ``synchronize()`` waits
    for the device work the library queued (the library's own rule: see each maker)."""

    def __init__(self, library: str, new, elapsed_ms, synchronize):
        self.library = library
        self._new, self._elapsed_ms, self._synchronize = new, elapsed_ms, synchronize

    def new(self):
        return self._new()

    @staticmethod
    def record(event, stream=None) -> None:
        if stream is None:
            event.record()
        else:
            event.record(stream)

    def elapsed_s(self, start, end) -> float:
        return self._elapsed_ms(start, end) / 1e3

    def synchronize(self) -> None:
        self._synchronize()


def numba_events() -> DeviceEvents:
    """Numba-CUDA's events (``cuda.event()`` records time by default; the CUDA simulator's
    take no argument and read -1 ms); ``synchronize`` waits for the whole device."""
    from numba import cuda
    return DeviceEvents("numba", cuda.event, lambda start, end: start.elapsed_time(end), cuda.synchronize)


def cupy_events() -> DeviceEvents:
    """CuPy's events; ``synchronize`` waits for the current stream, where CuPy launches."""
    import cupy
    return DeviceEvents("cupy", cupy.cuda.Event, cupy.cuda.get_elapsed_time,
                        lambda: cupy.cuda.get_current_stream().synchronize())


def torch_events() -> DeviceEvents:
    """torch's CUDA events, made to record time; ``synchronize`` waits for the whole device."""
    import torch
    return DeviceEvents("torch", lambda: torch.cuda.Event(enable_timing=True),
                        lambda start, end: start.elapsed_time(end), torch.cuda.synchronize)


#: The maker of each library's events, by the name :mod:`rooflinelib.profiling.function_timing` detects.
EVENT_MAKERS = {"numba": numba_events, "cupy": cupy_events, "torch": torch_events}


def device_events(library: str) -> DeviceEvents:
    """The events of ``library``: 'numba', 'cupy' or 'torch'."""
    try:
        return EVENT_MAKERS[library]()
    except KeyError:
        raise ValueError(f"library: no device events for {library!r:.20}; known: {', '.join(EVENT_MAKERS)}") from None


def time_with_events(launch, events: DeviceEvents, repeats: int, warmup: int,
                     prime=None, rule: str = "median", stream=None) -> Timing:
    """Time ``launch()`` with a pair of ``events`` around each repeat, waiting for the end
    event before the next repeat; ``stream``: where the events are recorded (the library's
    current stream when None).

    ``prime``, when given, is launched untimed just before each start event.  The device is
    then still busy with it while the host prepares the timed launch (tens of microseconds in
    Numba), so the start event fires only when the timed kernel can begin at once.  Without
    it, that host overhead lands inside the interval: 5% of a 0.5 ms copy.
    """
    for _ in range(warmup):
        launch()
    samples = []
    for _ in range(repeats):
        start, end = events.new(), events.new()
        if prime is not None:
            prime()
        events.record(start, stream)
        launch()
        events.record(end, stream)
        end.synchronize()
        seconds = events.elapsed_s(start, end)
        if not seconds or seconds <= 0:
            raise TimingUnavailable("device events returned no time (is this the simulator?)")
        samples.append(seconds)
    return Timing(tuple(samples), rule)


def time_queued(launch, events: DeviceEvents, repeats: int, prime=None) -> tuple:
    """Seconds of ``repeats`` calls of ``launch()``, each between a pair of ``events``, queued
    back to back with one wait, on the last end event, at the end.

    The host runs ahead of the device, so each interval holds the call's device work and not
    the host's dispatch of it (a wait after every call would put the next call's dispatch
    inside its interval).  The events are made before the first call, so no allocation falls
    inside an interval.  ``prime``, when given, is called once, untimed, before the first start
    event, so that the device is busy when it is recorded.  The warm-up is the caller's: its
    rules differ (a time bound for a student's function, a barrier across ranks for a step).
    The times are returned as read, checked by whoever makes a :class:`Timing` of them.
    """
    pairs = [(events.new(), events.new()) for _ in range(repeats)]
    if not pairs:
        return ()
    if prime is not None:
        prime()
    for start, end in pairs:
        events.record(start)
        launch()
        events.record(end)
    pairs[-1][1].synchronize()
    return tuple(events.elapsed_s(start, end) for start, end in pairs)


def time_on_host(run, repeats: int, warmup: int, rule: str = "median") -> Timing:
    """Time a synchronous ``run()`` (the CPU backend) with the host's monotonic clock."""
    for _ in range(warmup):
        run()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        samples.append(time.perf_counter() - t0)
    return Timing(tuple(samples), rule)


class Stopwatch:
    """Wall-clock seconds of a block, for first-call (compile) times."""

    def __enter__(self):
        self.t0 = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0
        return False
