"""The verified-run protocol: the one function that turns a kernel into a rate.

Every ceiling, sweep point, working-set point, experiment and exercise kernel is measured by
:func:`measure_run`, on any backend (:class:`rooflinelib.measure.backend.Backend`):

1. poison the output, so that a kernel which writes nothing cannot pass;
2. the first call (compilation and module load included), timed on the host and kept apart
   (``first_call_s``): it never enters a rate;
3. verify the output, bit for bit wherever the kernel allows; a mismatch raises
   :class:`VerificationError` and no rate exists;
4. poison again, a warm-up, then ``repeats`` timed launches (device events on a GPU, each
   queued behind an untimed launch; the host clock on the CPU), with the SM clock sampled
   meanwhile where the backend can; then verify again, so that the timed launches too are
   known to have done the work;
5. rate = the work counted in :mod:`.accounting` / the backend's time statistic (the median
   of the repeats), with the spread of the repeats;
6. the measurement judges itself (:func:`judge_noise`): the middle half of its trials spread
   over more than :data:`NOISY_IQR` of their median, or, on the CPU, a process that got less
   than :data:`LOST_CORE_SHARE` of its cores' time while it was timed, is flagged ``noisy``,
   with the reason in words (``noise``), so that tables and notebooks can say so.

A kernel comes to the protocol as a :class:`Run`: what to launch, how to check it, what one
launch does.  Backends build runs; nothing else times or verifies.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from rooflinelib.measure.accounting import Work
from rooflinelib.measure.errors import VerificationError
from rooflinelib.measure.timing import Timing


#: The middle half of a measurement's trials spread over more than this share of their median
#: (the interquartile range over the median) flags it noisy.  On a quiet machine the CPU's
#: trials of Lab 1 lie within a few per cent; a browser drawing the page, or a neighbour's
#: job, spreads them over tens of per cent.
NOISY_IQR = 0.10
#: A CPU measurement whose process got less than this share of its threads x wall time as CPU
#: time while it was timed lost a core to another program for part of the time.
LOST_CORE_SHARE = 0.80


def iqr_spread(samples) -> float:
    """The interquartile range of ``samples`` over their median: the spread of the middle half
    of the trials, which one stray trial cannot move (0 for fewer than two trials)."""
    samples = sorted(samples)
    if len(samples) < 2:
        return 0.0
    q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return (q3 - q1) / statistics.median(samples)


def judge_noise(samples, cpu_share: Optional[float] = None, threads: int = 1, scope: str = "gpu") -> dict:
    """``{"iqr", "noisy", "noise"}`` (and ``cpu_share`` when given) for a measurement's trials.

    ``cpu_share`` is the process's CPU time over ``threads`` x the wall time of the timed
    trials (the CPU backend only; a GPU's host thread waits for the device, so its share says
    nothing).  ``noise`` is the reason in words, empty when the measurement is clean."""
    iqr = iqr_spread(samples)
    reasons = []
    if cpu_share is not None and cpu_share < LOST_CORE_SHARE:
        reasons.append(f"this process got {cpu_share:.0%} of its {threads} core{'s' if threads != 1 else ''}' "
                       f"time while it was timed (under {LOST_CORE_SHARE:.0%}): another program was "
                       "using the CPU")
    if iqr > NOISY_IQR:
        # A likely cause, not a diagnosis: on a GPU the clock under load, or a library picking
        # other algorithms from trial to trial, spreads the trials as well as a busy host does.
        who = ("another program was probably using the CPU" if scope == "cpu"
               else "often a busy device or host; not diagnosed")
        reasons.append(f"the middle half of its {len(samples)} trials spread over {iqr:.0%} of their "
                       f"median (more than {NOISY_IQR:.0%}): {who}")
    out = {"iqr": iqr, "noisy": bool(reasons), "noise": "; ".join(reasons)}
    if cpu_share is not None:
        out["cpu_share"] = cpu_share
    return out


@dataclass
class Run:
    """One kernel configuration, ready to be measured."""

    launch: Callable[[], None]  # enqueues one launch
    check: Callable[[], Optional[str]]  # None when the output is right, else what is wrong
    work: Work  # what one launch does
    kernel: str  # what ran, in words
    config: dict = field(default_factory=dict)
    poison: Optional[Callable[[], None]] = None  # overwrite the output before the first call
    peak_key: Optional[str] = None  # key of the backend's theoretical peaks to compare with
    first_call_s: Optional[float] = None  # when set-up already made (and timed) the first call
    extra: dict = field(default_factory=dict)
    #: check again after the timed repeats (poisoned before them): they must have written the
    #: right output too.  False for a kernel that accumulates into its output across launches.
    recheck: bool = True


@dataclass
class Measurement:
    """One verified, timed kernel run and the rate it gives."""

    name: str  # ceiling name (dram, fp32, ...), or what else was measured
    kind: str  # "memory" (rate in GB/s) or "compute" (rate in GFLOP/s)
    work: Work
    timing: Timing
    verified: bool
    first_call_s: float = 0.0
    kernel: str = ""
    config: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        """The time the rate is computed from (the timing's rule: the median of the repeats,
        or the best where the backend says so)."""
        return self.timing.seconds

    @property
    def gbps(self) -> float:
        return self.work.gbps(self.seconds)

    @property
    def gflops(self) -> float:
        return self.work.gflops(self.seconds)

    @property
    def value(self) -> float:
        return self.gbps if self.kind == "memory" else self.gflops

    @property
    def unit(self) -> str:
        return "GB/s" if self.kind == "memory" else "GFLOP/s"

    @property
    def noisy(self) -> bool:
        return bool(self.extra.get("noisy"))

    def ceiling_row(self) -> dict:
        row = {"name": self.name, "kind": self.kind, "value": self.value, "unit": self.unit,
               "verified": self.verified, "spread": self.timing.spread}
        for key in ("iqr", "noisy", "noise"):  # the measurement's own judgement (judge_noise)
            if key in self.extra:
                row[key] = self.extra[key]
        return row

    def detail(self) -> dict:
        return {"name": self.name, "kernel": self.kernel, "n_flops": self.work.n_flops,
                "n_bytes": self.work.n_bytes, "first_call_s": self.first_call_s,
                "config": dict(self.config), **self.timing.as_dict(), **self.extra}


class SweepBuffers:
    """Lab 3's input and output, as a backend made them: ``n_vec`` 16-byte vectors each (four
    float32 elements apiece)."""

    def __init__(self, n_vec: int, x, y):
        self.n_vec, self.x, self.y = n_vec, x, y


def launch_verified(backend, name: str, run: Run) -> float:
    """Steps 1-3 of the protocol: poison, the first call (timed apart), the check.  Returns the
    first call's seconds; raises VerificationError.  A profiler that wants one launch of each
    kernel (Lab 4 under ncu) stops here."""
    if run.first_call_s is None:
        if run.poison is not None:
            run.poison()
        first = backend.first_call(run.launch)
    else:
        first = run.first_call_s
    problem = run.check()
    if problem:
        raise VerificationError(f"verification: {name} ({run.kernel}): {problem}")
    return first


#: A noisy CPU measurement is timed again, up to this many more windows, until two windows'
#: best trials agree within :data:`AGREE_SHARE`: a neighbour's burst (a browser drawing the
#: page) lasts seconds, so a later window often finds the cores free again.
CPU_RETRIES = 2
AGREE_SHARE = 0.05


def _window(backend, run: Run, repeats, scope: str, threads: int):
    """One window of timed trials and its judgement (:func:`judge_noise`)."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    timing = backend.time(run.launch, repeats)
    cpu_s, wall_s = time.process_time() - cpu0, time.perf_counter() - wall0
    share = min(1.0, cpu_s / (threads * wall_s)) if scope == "cpu" and wall_s > 0 else None
    return timing, judge_noise(timing.samples_s, share, threads, scope)


def _timed_until_agreed(backend, run: Run, repeats, scope: str, threads: int):
    """``(Timing, judgement)``: one window; on the CPU, while it is noisy, up to CPU_RETRIES
    more, until two windows' best trials agree within AGREE_SHARE.  Every trial is kept.  Two
    windows that agree make the rate reproducible, so the judgement is then clean, and says how
    it got there; windows that never agree keep the flag and its reasons.  A window in which no
    trial had every core to itself (the CPU backend's note) never counts towards agreement."""
    timing, judged = _window(backend, run, repeats, scope, threads)
    if scope != "cpu" or not judged["noisy"]:
        return timing, judged
    windows = [(timing, judged)]
    agreed = False
    while len(windows) <= CPU_RETRIES and not agreed:
        windows.append(_window(backend, run, repeats, scope, threads))
        # Only windows in which some trial had every core (no note from the backend) may
        # agree: two windows slowed alike by a steady neighbour agree on a wrong rate.
        bests = sorted(w.min_s for w, _ in windows if not w.note)
        agreed = any(b / a - 1 <= AGREE_SHARE for a, b in zip(bests, bests[1:]))
    samples = tuple(x for w, _ in windows for x in w.samples_s)
    notes = "; ".join(n for n in dict.fromkeys(w.note for w, _ in windows) if n)
    combined = Timing(samples, timing.rule, note=notes if not agreed else "")
    shares = [j["cpu_share"] for _, j in windows if "cpu_share" in j]
    share = max(shares) if shares else None
    out = judge_noise(samples, share, threads, scope)
    out["windows"] = len(windows)
    lost_core = share is not None and share < LOST_CORE_SHARE
    if agreed and not lost_core:
        # a spread of trials, yet two windows' best agree: the rate (the best) is reproducible
        out.update(noisy=False, noise="", agreed=(f"noisy trials, but the best of two of {len(windows)} windows "
                                                  f"agreed within {AGREE_SHARE:.0%}"))
    elif agreed:
        # every window lost its cores: agreeing windows may agree on a slowed rate, so the flag stays
        out["noise"] += (f"; the best of two of {len(windows)} windows agreed within {AGREE_SHARE:.0%}, but "
                         "every window lost its cores, so the rate may be a lower bound")
    else:
        out["noise"] += f"; {len(windows)} windows of trials did not agree within {AGREE_SHARE:.0%}"
    return combined, out


def measure_run(backend, name: str, kind: str, run: Run, repeats: int = None) -> Measurement:
    """Measure ``run`` on ``backend`` by the protocol above; raises VerificationError."""
    first = launch_verified(backend, name, run)
    if run.recheck and run.poison is not None:
        run.poison()
    scope = getattr(backend, "scope", "gpu")
    threads = int(getattr(backend, "threads", 1) or 1)
    with backend.clock_sampler() as clocks:
        timing, judged = _timed_until_agreed(backend, run, repeats, scope, threads)
    if run.recheck:
        problem = run.check()
        if problem:
            raise VerificationError(f"verification: {name} ({run.kernel}), after the timed repeats: {problem}")
    m = Measurement(name, kind, run.work, timing, True, first, run.kernel, dict(run.config),
                    dict(run.extra))
    if timing.note:
        m.extra["note"] = "; ".join(n for n in (m.extra.get("note"), timing.note) if n)
    m.extra.update(judged)
    if timing.rule != "median":  # the rate at the median trial, which a busy machine drags down
        t = timing.median_s
        m.extra["median_value"] = run.work.gbps(t) if kind == "memory" else run.work.gflops(t)
    mhz = clocks.median_mhz
    if mhz:
        m.extra["sm_clock_mhz_during"] = mhz
        peak = backend.theoretical(mhz).get(run.peak_key) if run.peak_key else None
        if peak:
            m.extra["theoretical_" + ("gbps" if kind == "memory" else "gflops")] = peak
            m.extra["fraction_of_theoretical"] = m.value / peak
    return m


def measure_sustained(backend, name: str, kind: str, run: Run, seconds: float, window_repeats: int,
                      sampler=None, clock=None) -> list:
    """``run`` launched back to back for at least ``seconds``, cut into windows of
    ``window_repeats`` timed launches: one :class:`Measurement` per window, each with its
    ``elapsed_s`` since the first window began and, when ``sampler()`` (default: the backend's
    clock sampler) has a ``summary()``, the clock and power it sampled during the window.

    The same protocol as :func:`measure_run` (poison, first call apart, check; poison; check
    again after the last window), so every window is known to have done the work.  A rate
    that falls from window to window is the card's state changing under a steady load
    (pitfall 8), not the kernel.
    """
    import time
    if not seconds > 0 or window_repeats < 1:
        raise ValueError(f"seconds, window_repeats: must be positive, got {seconds!r}, {window_repeats!r}")
    clock = clock or time.perf_counter
    first = launch_verified(backend, name, run)
    if run.poison is not None:
        run.poison()
    windows = []
    t0 = clock()
    while not windows or windows[-1].extra["elapsed_s"] < seconds:
        with (sampler() if sampler else backend.clock_sampler()) as sampled:
            timing = backend.time(run.launch, window_repeats)
        m = Measurement(name, kind, run.work, timing, True, first, run.kernel, dict(run.config),
                        dict(run.extra, window=len(windows), elapsed_s=clock() - t0))
        summary = getattr(sampled, "summary", None)
        if summary is not None:
            m.extra.update(summary())
        windows.append(m)
    problem = run.check()
    if problem:
        raise VerificationError(f"verification: {name} ({run.kernel}), after {len(windows)} sustained "
                                f"windows: {problem}")
    return windows


def best(measurements: list) -> Measurement:
    """The ceiling is the best rate any configuration reached, as ERT reports it; the others
    stay in the details (``configs_tried``)."""
    # Ties (a K = 0 sweep point does no FLOPs: every variant's GFLOP/s is 0) go to the
    # shortest time, which is the highest rate of the same counted work.
    top = max(measurements, key=lambda m: (m.value, -m.seconds))
    top.extra["configs_tried"] = [
        dict(m.config, kernel=m.kernel, value=m.value, gbps=m.gbps, gflops=m.gflops,
             median_s=m.seconds, spread=m.timing.spread, first_call_s=m.first_call_s,
             verified=m.verified) for m in measurements]
    return top


def measure_best(backend, name: str, kind: str, runs, progress=None, repeats: int = None) -> Measurement:
    """Every run measured by :func:`measure_run`, the best reported (:func:`best`)."""
    tried = []
    for run in runs:
        m = measure_run(backend, name, kind, run, repeats)
        tried.append(m)
        if progress:
            progress(f"  {name} {run.kernel}: {m.value:,.1f} {m.unit}")
    backend.release()
    return best(tried)


def mismatch_message(bad: int, total: int, what: str = "values") -> Optional[str]:
    """The usual check result: None when nothing differs."""
    return None if bad == 0 else f"{bad} of {total} {what} differ from the expected"
