"""Roofline regression gates: a kernel must keep a share of its measured roof.

    from rooflinelib.testing import assert_roofline
    assert_roofline(copy, a, b, n_flops=0, n_bytes=2 * a.nbytes, at_least=0.9)

A gate is a statement about a share of a measured roof, "at least 90% of the bandwidth this
machine was measured to reach", not about a wall-clock time that drifts with every clock and
driver.  :func:`gate` times ``fn`` with :func:`rooflinelib.profile` (the same first call,
warm-up and timed repeats, under the same time bound), places it on the ceilings (the stored
Lab 1 result by default) and compares its share of the roof at its intensity with
``at_least``.  :func:`assert_roofline` raises when the gate does not pass.

Noise.  The share comes from the median of the timed repeats.  Its interval is the 95%
confidence interval of that median from the samples' order statistics (ranks n/2 -/+ 1.96
sqrt(n)/2: no assumption that the times are normal).  When the interval holds the threshold,
the gate measures again and pools the samples, at most :data:`MAX_ROUNDS` rounds in all and
only while the time spent (first calls left out: a compilation does not repeat) stays within
1 s plus three times the first round's timed repeats.
An interval that still holds the threshold makes the outcome "ambiguous", with its interval:
never a silent pass or a coin-flip fail.  :func:`assert_roofline` raises
:class:`AmbiguousGate`, an AssertionError whose message says "ambiguous", so pytest reports
an ambiguous gate as a failure that says so (catch AmbiguousGate to treat it otherwise);
``roofline check`` exits 3.

Clocks.  On a GPU the SM clock is sampled through NVML while the gate runs (without NVML,
the snapshots before and after the timing are used, and the message says so).  When it
differs by more than 5% from the clock the compute ceiling was measured at, the compute roof
is scaled by the ratio and the message says so; NVML's clock-event reasons flag power and
thermal throttling.  On the CPU no clock is read, and the message says that too.
"""
from __future__ import annotations

import math
import re
import statistics
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Optional

import numpy

from rooflinelib.store import validation
from rooflinelib.store.fileio import read_json
from rooflinelib.measure.provenance import ClockSampler, NoClock
from rooflinelib.modes import detect_mode
from rooflinelib.profiling.core import memory_roof, profile
from rooflinelib.profiling.profile_result import ProfileError, ProfileResult
from rooflinelib.profiling.function_timing import (DEFAULT_TIMEOUT_S, WARMUP_CALLS, WARMUP_S,
                                                   detect_library)
from rooflinelib.core.sanity import number
from rooflinelib.store.recorded import recorded_file

#: Rounds of timing a gate may take in all (the first included) before it says "ambiguous".
MAX_ROUNDS = 3
#: Re-measuring stops when another round would take the gate past this many seconds plus
#: OVERHEAD_FACTOR times the first round's timed repeats.
OVERHEAD_S, OVERHEAD_FACTOR = 1.0, 3.0
#: z of the two-sided 95% confidence interval of the median.
CONFIDENCE_Z = 1.96
#: A clock this far (relative) from the compute ceiling's clock scales the compute roof.
CLOCK_SCALE_LIMIT = 0.05
VERDICTS = ("pass", "below", "ambiguous")
#: NVML's clock-event reasons that mean throttling (nvmlClocksEventReason*; idle, application
#: clocks, sync boost and display clocks are left out).
THROTTLE_REASONS = {0x4: "software power cap", 0x8: "hardware slowdown", 0x20: "software thermal slowdown",
                    0x40: "hardware thermal slowdown", 0x80: "hardware power brake"}


class GateError(AssertionError):
    """A gate that did not pass; ``outcome`` is its :class:`GateOutcome`."""

    def __init__(self, outcome: "GateOutcome"):
        super().__init__(outcome.message)
        self.outcome = outcome


class BelowRoof(GateError):
    """The kernel's share of its roof is below ``at_least``, beyond the noise."""


class AmbiguousGate(GateError):
    """The share's interval still holds ``at_least`` after every re-measurement."""


def check_at_least(value, field: str = "at_least") -> float:
    """``value`` as a share of the roof in (0, 1], or ProfileError (a ValueError) naming ``field``."""
    x = number(value, field, error=ProfileError)
    if not 0 < x <= 1:
        raise ProfileError(f"{field}: must be a share of the roof in (0, 1] (0.7 means 70%), got {x:g}")
    return x


def median_interval(samples) -> tuple:
    """``(median, low, high)`` seconds: the median of ``samples`` and its distribution-free 95%
    confidence interval, the order statistics at ranks n/2 - 1.96 sqrt(n)/2 and
    1 + n/2 + 1.96 sqrt(n)/2 (1-based; clamped to the smallest and largest sample)."""
    ordered = sorted(samples)
    n = len(ordered)
    if n == 0:
        raise ProfileError("samples_s: no timed repeats to judge")
    half = CONFIDENCE_Z * math.sqrt(n) / 2
    low = max(1, math.floor(n / 2 - half))
    high = min(n, math.ceil(1 + n / 2 + half))
    return statistics.median(ordered), ordered[low - 1], ordered[high - 1]


# --- clocks ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Clocks:
    """What the gate knows of the SM clock, and what it did about it."""

    text: str  # one clause for the message
    during_mhz: Optional[float] = None
    ceilings_mhz: Optional[float] = None
    sampled: bool = False  # sampled during the gate (NVML), not only snapshots
    scale: float = 1.0  # the factor applied to the compute roof
    throttled: tuple = ()


def _mhz(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        return None
    return float(value)


def throttle_names(reasons) -> tuple:
    """The throttling that NVML clock-event reason masks name, in a fixed order."""
    seen = 0
    for mask in reasons:
        if isinstance(mask, int) and not isinstance(mask, bool):
            seen |= mask
    return tuple(name for bit, name in THROTTLE_REASONS.items() if seen & bit)


def clock_view(library: str, compute: str, ceilings_mhz=None, samples: Optional[dict] = None,
               before: Optional[dict] = None, after: Optional[dict] = None) -> Clocks:
    """The clocks of a gate: ``samples`` is :meth:`ClockSampler.summary` of the gate (None when
    not sampled), ``before``/``after`` the snapshots :func:`rooflinelib.profile` records."""
    if library == "cpu":
        return Clocks("clocks: not read on the CPU (the roof is not scaled)")
    before, after = before or {}, after or {}
    reasons = list((samples or {}).get("clock_event_reasons") or ())
    reasons += [s.get("clock_event_reasons") for s in (before, after)]
    throttled = throttle_names(reasons)
    during = _mhz((samples or {}).get("sm_clock_mhz_median"))
    sampled = during is not None
    how = f"median of {samples['samples']} NVML samples during the gate" if sampled else ""
    if during is None:
        snaps = [v for v in (_mhz(before.get("sm_clock_mhz")), _mhz(after.get("sm_clock_mhz"))) if v]
        if snaps:
            during = statistics.median(snaps)
            how = "from the snapshots before and after the timing (not sampled during it: no NVML)"
    ceilings_mhz = _mhz(ceilings_mhz)
    flag = f"; throttled: {', '.join(throttled)}" if throttled else ""
    if during is None:
        return Clocks(f"clocks: the SM clock could not be read (no NVML or nvidia-smi), the roof is not scaled{flag}",
                      ceilings_mhz=ceilings_mhz, throttled=throttled)
    if ceilings_mhz is None:
        return Clocks(f"clocks: SM {during:,.0f} MHz ({how}); the ceilings record no clock (a datasheet?), "
                      f"the roof is not scaled{flag}", during, None, sampled, 1.0, throttled)
    ratio = during / ceilings_mhz
    if abs(ratio - 1) > CLOCK_SCALE_LIMIT:
        word = "below" if ratio < 1 else "above"
        text = (f"clocks: SM {during:,.0f} MHz ({how}), {abs(ratio - 1):.0%} {word} the {ceilings_mhz:,.0f} MHz "
                f"that {compute} was measured at: the compute roof is scaled by {ratio:.3f}{flag}")
        return Clocks(text, during, ceilings_mhz, sampled, ratio, throttled)
    return Clocks(f"clocks: SM {during:,.0f} MHz ({how}), within {CLOCK_SCALE_LIMIT:.0%} of the "
                  f"{ceilings_mhz:,.0f} MHz that {compute} was measured at, not scaled{flag}",
                  during, ceilings_mhz, sampled, 1.0, throttled)


# --- the outcome -------------------------------------------------------------------------------

@dataclass(frozen=True)
class GateOutcome:
    """One gate: its verdict, the share and its interval, the roof, and the one-line message."""

    name: str
    verdict: str  # "pass", "below" or "ambiguous"
    share: float  # of the roof, from the median of every timed repeat
    low: float  # the share's 95% interval
    high: float
    at_least: float
    rounds: int
    repeats: int  # timed repeats pooled over the rounds
    side: str  # "memory" or "compute", on the roof the share is taken against
    roof: float  # GFLOP/s (GB/s when n_flops = 0), scaled for the clock when the message says so
    roof_unit: str
    clocks: Clocks
    ceilings_source: str
    gate_s: float  # the gate's wall time
    timed_s: float  # the first round's timed repeats, the unit of the overhead bound
    profile: ProfileResult  # the placement, its timing pooled over the rounds
    message: str

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def to_dict(self) -> dict:
        """JSON-ready: what ``roofline check --json`` prints and the benchmark records."""
        return {"format": "rooflinelib-gate", "version": 1, "name": self.name, "verdict": self.verdict,
                "share": self.share, "interval": [self.low, self.high], "at_least": self.at_least,
                "rounds": self.rounds, "repeats": self.repeats, "side": self.side, "roof": self.roof,
                "roof_unit": self.roof_unit, "ceilings_source": self.ceilings_source,
                "sm_clock_mhz": self.clocks.during_mhz, "ceilings_sm_clock_mhz": self.clocks.ceilings_mhz,
                "clock_sampled": self.clocks.sampled, "compute_roof_scale": self.clocks.scale,
                "throttled": list(self.clocks.throttled), "gate_s": self.gate_s, "timed_s": self.timed_s,
                "message": self.message, "profile": self.profile.to_dict()}


def _share(result: ProfileResult, clocks: Clocks):
    """``(k, side, roof, unit)``: the share of a call that took t seconds is k / t."""
    if result.n_flops <= 0:  # pure data movement: bytes against the bandwidth
        return result.n_bytes / 1e9 / result.peak_gbps, "memory", result.peak_gbps, "GB/s"
    intensity = result.intensity
    compute_roof = result.peak_gflops * clocks.scale
    memory_roof = intensity * result.peak_gbps
    roof = min(compute_roof, memory_roof)
    side = "compute" if compute_roof <= memory_roof else "memory"
    return result.n_flops / 1e9 / roof, side, roof, "GFLOP/s"


def _roof_text(result: ProfileResult, side: str, roof: float, clocks: Clocks) -> str:
    if result.n_flops <= 0:
        return (f"roof: {result.memory} {roof:,.4g} GB/s (n_flops = 0: bytes against the bandwidth; "
                f"achieved {result.achieved_gbps:,.4g} GB/s)")
    scaled = f", {clocks.scale:.3f} x {result.peak_gflops:,.6g} for the clock" if clocks.scale != 1.0 else ""
    ridge = result.peak_gflops * clocks.scale / result.peak_gbps
    if side == "memory":
        return (f"roof: {roof:,.4g} GFLOP/s = I {result.intensity:.4g} FLOP/byte x {result.memory} "
                f"{result.peak_gbps:,.4g} GB/s, memory side (I below the ridge {ridge:.4g}); "
                f"achieved {result.achieved_gflops:,.4g} GFLOP/s")
    return (f"roof: {result.compute} {roof:,.6g} GFLOP/s{scaled}, compute side (I = {result.intensity:.4g} "
            f"FLOP/byte above the ridge {ridge:.4g}); achieved {result.achieved_gflops:,.4g} GFLOP/s")


def share_text(x: float) -> str:
    """A share as a percentage: one decimal ('69.5%'), three significant digits below 10%."""
    return f"{x:.1%}" if x >= 0.1 else f"{100 * x:.3g}%"


def _message(name, verdict, share, low, high, at_least, rounds, repeats, roof_text, source, clocks) -> str:
    numbers = (f"{share_text(share)} of its roof (95% interval {share_text(low)} to {share_text(high)}, median of "
               f"{repeats} repeats in {rounds} round{'s' if rounds > 1 else ''})")
    if verdict == "pass":
        head = f"roofline gate passed for {name}: {numbers} >= at_least {share_text(at_least)}"
    elif verdict == "below":
        head = f"roofline gate failed for {name}: {numbers} < at_least {share_text(at_least)}"
    else:
        head = (f"roofline gate ambiguous for {name}: {numbers}; the interval holds at_least "
                f"{share_text(at_least)} after {rounds} round{'s' if rounds > 1 else ''}, so noise decides")
    return f"{head}; {roof_text}; ceilings: {source}; {clocks.text}"


def judge(results, at_least: float, clocks: Clocks, gate_s: float = 0.0, timed_s: float = 0.0) -> GateOutcome:
    """The outcome of rounds ``results`` (ProfileResults of the same call) at ``at_least``,
    their samples pooled.  A result without samples (a file saved before they were kept)
    is judged on its median alone, its interval a point."""
    results = list(results)
    first, last = results[0], results[-1]
    samples = [s for r in results for s in r.samples_s] or [r.seconds for r in results]
    median_s, fast_s, slow_s = median_interval(samples)
    k, side, roof, unit = _share(first, clocks)
    share, low, high = k / median_s, k / slow_s, k / fast_s
    verdict = "pass" if low >= at_least else "below" if high < at_least else "ambiguous"
    pooled = last
    if len(results) > 1:
        pooled = replace(last, seconds=median_s, spread=(max(samples) - min(samples)) / median_s,
                         repeats=len(samples), samples_s=tuple(samples),
                         fraction_of_roof=last.fraction_of_roof * last.seconds / median_s,
                         notes=last.notes + (f"timing pooled over {len(results)} rounds of a regression gate",))
    if clocks.scale != 1.0:
        pooled = replace(pooled, notes=pooled.notes + (
            f"the regression gate scaled the compute roof by {clocks.scale:.3f} for the clock; "
            f"fraction_of_roof here is against the unscaled roof",))
    source = short_source(first.ceilings_source)
    message = _message(first.name, verdict, share, low, high, at_least, len(results), len(samples),
                       _roof_text(first, side, roof, clocks), source, clocks)
    return GateOutcome(first.name, verdict, share, low, high, at_least, len(results), len(samples), side, roof,
                       unit, clocks, source, gate_s, timed_s, pooled, message)


MAX_SOURCE_CHARS = 200


def short_source(text: str) -> str:
    """Where the ceilings came from, in the first sentence of profile()'s wording (a gate's
    message is one line), flagged when the ceilings were measured while the machine was busy."""
    flat = " ".join(str(text).split())
    first = re.split(r"(?<=[.)])\s+(?=[A-Z])", flat, maxsplit=1)[0].rstrip(".")
    if len(first) > MAX_SOURCE_CHARS:
        first = first[:MAX_SOURCE_CHARS - 3] + "..."
    if "noisy" in flat.lower() and "noisy" not in first.lower():
        first += " (measured while the machine was busy: noisy ceilings, re-run `roofline measure`)"
    return first


# --- the gate ----------------------------------------------------------------------------------

def _sampler(gpu: bool):
    return ClockSampler(interval_s=0.01, power=True) if gpu else NoClock()


def gate(fn, *args, n_flops, n_bytes, at_least, ceilings=None, precision=None, repeats=None, name=None,
         timeout=DEFAULT_TIMEOUT_S, memory=None, **kwargs) -> GateOutcome:
    """Time ``fn(*args, **kwargs)`` as :func:`rooflinelib.profile` does and judge its share of
    the roof against ``at_least``: a :class:`GateOutcome`, whatever the verdict.  Bad input
    (``at_least`` outside (0, 1], a count that is not a number or formula, a function that
    raises or runs past ``timeout``) is a :class:`ProfileError` naming the argument.  ``memory``:
    the memory roof, as :func:`rooflinelib.profile` takes it (``copy`` judges a copy against
    Lab 1's copy mix, not the best mix)."""
    at_least = check_at_least(at_least)
    memory_roof(memory)  # a bad value is refused before anything runs
    started = time.perf_counter()
    gpu = detect_library(fn, args, kwargs) != "cpu"
    results, summaries = [], []
    budget_s = timed_s = None
    while True:
        round_started = time.perf_counter()
        with _sampler(gpu) as sampler:
            result = profile(fn, *args, n_flops=n_flops, n_bytes=n_bytes, name=name, ceilings=ceilings,
                             precision=precision, repeats=repeats, timeout=timeout, memory=memory, **kwargs)
        round_s = time.perf_counter() - round_started
        results.append(result)
        gpu = gpu or result.library != "cpu"
        if hasattr(sampler, "summary") and sampler.summary()["samples"]:
            summaries.append(sampler.summary())
        # A round's cost without its first call, which may hold a compilation that does not
        # repeat; the next round is assumed to cost as much as this one, or as its calls do.
        cost = max(round_s - result.first_call_s, _round_estimate(result))
        if budget_s is None:
            timed_s = sum(result.samples_s) or result.seconds * result.repeats
            budget_s = OVERHEAD_S + OVERHEAD_FACTOR * timed_s
            spent = 0.0
        spent += cost
        clocks = _clocks(results, summaries)
        outcome = judge(results, at_least, clocks)
        if outcome.verdict != "ambiguous" or len(results) >= MAX_ROUNDS or spent + cost > budget_s:
            return replace(outcome, gate_s=time.perf_counter() - started, timed_s=timed_s)


def _round_estimate(result: ProfileResult) -> float:
    """Seconds another round of timing takes: the calls profile() makes (first, warm-up, one
    untimed, the repeats) at the median time, and the warm-up's minimum duration."""
    return result.seconds * (result.repeats + WARMUP_CALLS + 2) + WARMUP_S


def _clocks(results, summaries) -> Clocks:
    first = results[0]
    samples = None
    if summaries:
        values = [s["sm_clock_mhz_median"] for s in summaries if s.get("sm_clock_mhz_median")]
        samples = {"sm_clock_mhz_median": statistics.median(values) if values else None,
                   "samples": sum(s["samples"] for s in summaries),
                   "clock_event_reasons": [r for s in summaries for r in s.get("clock_event_reasons", ())]}
    device = first.device or {}
    return clock_view(first.library, first.compute, first.ceilings_sm_clock_mhz, samples,
                      device.get("before"), results[-1].device.get("after") if results[-1].device else None)


def raise_for(outcome: GateOutcome) -> ProfileResult:
    """``outcome.profile`` when it passed, else :class:`BelowRoof` or :class:`AmbiguousGate`."""
    __tracebackhide__ = True  # pytest shows the test's line, not this one
    if outcome.verdict == "below":
        raise BelowRoof(outcome)
    if outcome.verdict == "ambiguous":
        raise AmbiguousGate(outcome)
    return outcome.profile


def assert_roofline(fn, *args, n_flops, n_bytes, at_least, ceilings=None, precision=None, repeats=None,
                    memory=None, **kwargs) -> ProfileResult:
    """Assert that ``fn(*args, **kwargs)`` reaches ``at_least`` of its roof.

    Times it exactly as :func:`rooflinelib.profile` does (``name=`` and ``timeout=`` are taken
    as there), places it on ``ceilings`` (default: the stored Lab 1 result; ``memory`` picks the
    DRAM access mix to judge against, as in ``profile``) and returns the
    :class:`~rooflinelib.profiling.ProfileResult` when it passes.  Below ``at_least`` it raises
    :class:`BelowRoof`, and when noise cannot decide :class:`AmbiguousGate` (both
    AssertionErrors), with one line: the share and its interval, the roof and its ceiling,
    the intensity and side, where the ceilings came from, and the clocks."""
    __tracebackhide__ = True
    return raise_for(gate(fn, *args, n_flops=n_flops, n_bytes=n_bytes, at_least=at_least, ceilings=ceilings,
                          precision=precision, repeats=repeats, memory=memory, **kwargs))


# --- a copy and a deliberately slowed copy: the notebook's demonstration and the benchmark ------

@dataclass(frozen=True)
class DemoKernels:
    """A copy and a slowed copy of the same buffers on one library, with their byte count."""

    library: str  # "cpu" (NumPy), "cupy" or "numba"
    copy: object
    slowed: object
    args: tuple  # (destination, source)
    n_bytes: int  # what the copy must move: read the source once, write the destination once
    extra: float  # the slowed copy copies this share of the buffer again, uncounted

    def describe(self) -> str:
        size = self.n_bytes / 2 / 2 ** 20
        return (f"a copy of {size:,.0f} MiB ({'NumPy' if self.library == 'cpu' else self.library}), and the same "
                f"copy slowed on purpose: it copies {self.extra:g}x the buffer again, which its count of "
                f"{self.n_bytes / 1e9:.3g} GB does not include")


def demo_kernels(library: str = "cpu", size_mib: int = 64, extra: float = 2.0) -> DemoKernels:
    """:class:`DemoKernels` on ``library``: 'cpu' (NumPy), 'cupy' or 'numba' (a device-to-device
    copy of Numba device arrays).  float64 buffers of ``size_mib`` MiB each."""
    if library not in ("cpu", "cupy", "numba"):
        raise ProfileError(f"library: must be 'cpu', 'cupy' or 'numba', got {library!r}")
    size_mib = int(number(size_mib, "size_mib", error=ProfileError, positive=True, integer=True))
    extra = number(extra, "extra", error=ProfileError, positive=True)
    n = size_mib * 2 ** 20 // 8
    if library == "cpu":
        source, destination = numpy.ones(n), numpy.empty(n)

        def copy(dst, src):
            numpy.copyto(dst, src)
    elif library == "cupy":
        import cupy as xp
        source, destination = xp.ones(n), xp.empty(n)

        def copy(dst, src):
            xp.copyto(dst, src)
    else:
        from numba import cuda
        source, destination = cuda.to_device(numpy.ones(n)), cuda.device_array(n)

        def copy(dst, src):
            dst.copy_to_device(src)

    whole, part = int(extra), extra - int(extra)
    tail = int(n * part)

    def slowed(dst, src):
        for _ in range(1 + whole):
            copy(dst, src)
        if tail:
            copy(dst[:tail], src[:tail])

    copy.__name__, slowed.__name__ = "copy", "slowed_copy"
    return DemoKernels(library, copy, slowed, (destination, source), 2 * n * 8, extra)


@dataclass(frozen=True)
class GateDemo:
    """What the notebook prints: the mode, then each gate and its message."""

    mode: str
    lines: tuple
    outcomes: tuple = ()  # GateOutcomes (live) or the recorded outcomes' dicts

    def text(self) -> str:
        return "\n".join(self.lines)


#: The demonstration's threshold and slowed copy, by where it runs.  The roof is the stored
#: Lab 1 result's ``dram``, the best of its access mixes, which a copy does not reach: on the
#: H200 (2026-12-01) a CuPy copy made 0.90 of it and the slowed copy 0.56; on the 2-core VM,
#: where a copy also pays the write-allocate read, NumPy's copy made 0.20-0.52 of it under load
#: (docs/measurements/gate_targets_cpu.json), so the CPU's threshold sits lower and its slowed copy
#: slower.
DEMO = {"gpu": {"size_mib": 1024, "at_least": 0.8, "extra": 0.6},
        "cpu": {"size_mib": 64, "at_least": 0.3, "extra": 3.0}}
RECORDED_GATES = "h200_gates_cupy.json"


def recorded_gates(path=None) -> dict:
    """The gates recorded on the H200 and shipped with the course (``benchmarks/gate_targets.py
    --record``): ``{"created", "device", "note", "gates": [outcome dicts]}``, each checked."""
    path = Path(path) if path is not None else recorded_file(RECORDED_GATES)
    data = read_json(path, ProfileError, "a recorded gates file")
    validation.check(data, _gates_checker(), path.name, ProfileError)
    return data


@lru_cache(maxsize=1)
def _gates_checker():
    return validation.validator(validation.schema("gates"))


def demo_gates(mode=None, ceilings=None) -> GateDemo:
    """Notebook 06's regression gate: a copy that passes its gate and a deliberately slowed copy
    that fails it, each with the message a CI log would show.  Live on this machine's backend
    (``mode``: :func:`rooflinelib.modes.detect_mode`'s, detected when None; ceilings: the stored
    Lab 1 result by default); in recorded mode, the gates recorded on the H200, said as such."""
    if mode is None:
        mode = detect_mode()
    if not mode.live:
        try:
            data = recorded_gates()
        except ProfileError as exc:  # a copy of the course without the recorded file
            return GateDemo(mode.title, (f"Mode: {mode.title}: nothing can be timed here and no recorded gates "
                                         f"could be read ({exc}).",))
        lines = [f"Mode: {mode.title}: these gates ran on the {data.get('device', 'H200')} on "
                 f"{str(data.get('created', '?'))[:10]} and are shown as recorded, not measured now."]
        for g in data["gates"]:
            lines += [f"- {g['name']} at at_least = {share_text(g['at_least'])}: {g['verdict']}", f"  {g['message']}"]
        return GateDemo(mode.title, tuple(lines), tuple(data["gates"]))
    settings = DEMO["gpu" if mode.mode == "gpu" else "cpu"]
    library = "cpu" if mode.mode == "cpu" else (mode.backend or "numba")
    kernels = demo_kernels(library, settings["size_mib"], settings["extra"])
    at_least = settings["at_least"]
    lines = [f"Mode: {mode.title}. Gated at at_least = {share_text(at_least)} of the roof: {kernels.describe()}."]
    outcomes = []
    for fn in (kernels.copy, kernels.slowed):
        outcome = gate(fn, *kernels.args, n_flops=0, n_bytes=kernels.n_bytes, at_least=at_least, ceilings=ceilings)
        outcomes.append(outcome)
        said = {"pass": "returns its profile", "below": "raises BelowRoof (an AssertionError)",
                "ambiguous": "raises AmbiguousGate (an AssertionError)"}[outcome.verdict]
        lines += [f"- assert_roofline({fn.__name__}, ...) {said}:", f"  {outcome.message}"]
    return GateDemo(mode.title, tuple(lines), tuple(outcomes))
