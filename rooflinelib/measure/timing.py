"""Timing: device events after a warm-up, the median of N repeats, and the spread.

A rate is computed from the median time, never from the best or the mean: the median ignores
the odd slow run and does not reward a lucky one.  The spread, (slowest - fastest) / median,
says how far to trust it.  The first call of a kernel (compilation and module load) is timed
separately by the caller and never enters a rate.
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


def time_with_events(launch, make_event, elapsed_ms, repeats: int, warmup: int,
                     prime=None, rule: str = "median") -> Timing:
    """Time ``launch()`` with a pair of device events around each repeat.

    ``make_event()`` returns an object with ``record()`` and ``synchronize()``;
    ``elapsed_ms(start, end)`` reads the time between two recorded events in milliseconds.

    ``prime``, when given, is launched untimed just before each start event.  The device is
    then still busy with it while the host prepares the timed launch (tens of microseconds in
    Numba), so the start event fires only when the timed kernel can begin at once.  Without
    it, that host overhead lands inside the interval: 5% of a 0.5 ms copy.
    """
    for _ in range(warmup):
        launch()
    samples = []
    for _ in range(repeats):
        start, end = make_event(), make_event()
        if prime is not None:
            prime()
        start.record()
        launch()
        end.record()
        end.synchronize()
        ms = elapsed_ms(start, end)
        if not ms or ms <= 0:
            raise TimingUnavailable("device events returned no time (is this the simulator?)")
        samples.append(ms / 1e3)
    return Timing(tuple(samples), rule)


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
