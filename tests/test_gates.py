"""Roofline regression gates (rooflinelib.testing, roofline check, the pytest plugin): the CPU
lane.  The decisions are tested on synthetic timings (exact), the timing itself on NumPy work
against roofs chosen so that the verdict cannot depend on this machine's noise.  The clock
logic a GPU needs is tested here on its inputs; tests/test_gates_gpu.py gates real kernels."""
import importlib.metadata
import json
import math
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rooflinelib import testing
from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.profiling import ProfileError, ProfileResult

ROOT = Path(__file__).resolve().parents[1]
TINY_ROOF = Machine("tiny", (Ceiling("dram", "memory", 1e-3), Ceiling("fp32", "compute", 1e-3)))
HUGE_ROOF = Machine("huge", (Ceiling("dram", "memory", 1e9), Ceiling("fp32", "compute", 1e9)))


def _copy_args(n=1 << 16):
    a = np.ones(n)
    return np.empty_like(a), a


def _copy(dst, src):
    np.copyto(dst, src)


# --- synthetic rounds: the decision rule, exactly -----------------------------------------------

def fake(samples, n_flops=0.0, n_bytes=1e6, peak_gbps=1.0, peak_gflops=100.0, library="cpu", clock_mhz=None,
         device=None, compute="fp32"):
    """A ProfileResult; by default 1 MB against 1 GB/s, so that a call of t ms is a share of 1 / t."""
    median = statistics.median(samples)
    if n_flops > 0:
        roof = min(peak_gflops, n_flops / n_bytes * peak_gbps)
        side = "compute" if peak_gflops <= n_flops / n_bytes * peak_gbps else "memory"
        fraction = n_flops / median / 1e9 / roof
    else:
        roof, side, fraction = 0.0, "memory", n_bytes / median / 1e9 / peak_gbps
    return ProfileResult(
        name="kernel", n_flops=n_flops, n_bytes=n_bytes, seconds=median,
        spread=(max(samples) - min(samples)) / median, first_call_s=0.0, repeats=len(samples), library=library,
        clock="perf_counter", machine="test", ceilings_source="the test's ceilings (given)", compute=compute,
        memory="dram", peak_gflops=peak_gflops, peak_gbps=peak_gbps, roof_gflops=roof, side=side,
        fraction_of_roof=fraction, advice="", device=device or {}, samples_s=tuple(samples),
        ceilings_sm_clock_mhz=clock_mhz)


@pytest.fixture
def rounds(monkeypatch):
    """Feed gate() these rounds in turn instead of timing anything; the calls are counted."""
    state = {"queue": [], "calls": 0, "now": 0.0}

    def profile(fn, *args, **kwargs):
        state["calls"] += 1
        result = state["queue"].pop(0)
        state["now"] += 1.5 * sum(result.samples_s)  # a round takes its repeats and some more
        return result

    class Clock:
        @staticmethod
        def perf_counter():
            return state["now"]

    monkeypatch.setattr(testing, "profile", profile)
    monkeypatch.setattr(testing, "time", Clock)
    return state


def shares(*values):
    """Call times (s) of the given shares of the roof, for :func:`fake`'s 1 MB at 1 GB/s."""
    return [1e-3 / v for v in values]


def test_a_clear_pass_takes_one_round_and_returns_the_profile(rounds):
    rounds["queue"] = [fake(shares(*[0.80, 0.81, 0.79, 0.80, 0.82, 0.80, 0.79, 0.81, 0.80, 0.80]))]
    result = testing.assert_roofline(_copy, n_flops=0, n_bytes=1e9, at_least=0.7)
    assert isinstance(result, ProfileResult) and rounds["calls"] == 1
    outcome = testing.gate(_copy, n_flops=0, n_bytes=1e9, at_least=0.7) if rounds["queue"] else None
    assert outcome is None  # nothing left to measure: the pass did not re-measure


def test_a_clear_fail_raises_below_roof_with_one_line(rounds):
    rounds["queue"] = [fake(shares(*[0.40, 0.41, 0.39, 0.40, 0.42, 0.40, 0.39, 0.41, 0.40, 0.40]))]
    with pytest.raises(testing.BelowRoof) as caught:
        testing.assert_roofline(_copy, n_flops=0, n_bytes=1e9, at_least=0.7)
    message = str(caught.value)
    assert isinstance(caught.value, AssertionError) and rounds["calls"] == 1
    assert "\n" not in message
    assert message.startswith("roofline gate failed for kernel: 40.0% of its roof (95% interval ")
    assert "< at_least 70.0%" in message
    for part in ("roof: dram 1 GB/s", "ceilings: the test's ceilings (given)", "clocks: not read on the CPU"):
        assert part in message
    assert caught.value.outcome.verdict == "below"


def test_a_straddling_interval_is_measured_again_and_then_called_ambiguous(rounds):
    straddle = shares(0.60, 0.65, 0.68, 0.69, 0.70, 0.70, 0.71, 0.72, 0.75, 0.80)
    rounds["queue"] = [fake(straddle) for _ in range(testing.MAX_ROUNDS + 2)]
    with pytest.raises(testing.AmbiguousGate) as caught:
        testing.assert_roofline(_copy, n_flops=0, n_bytes=1e9, at_least=0.7)
    outcome = caught.value.outcome
    assert 2 <= rounds["calls"] <= testing.MAX_ROUNDS
    assert outcome.verdict == "ambiguous" and outcome.low < 0.7 <= outcome.high
    assert outcome.repeats == 10 * rounds["calls"]
    assert "roofline gate ambiguous for kernel" in str(caught.value)
    assert f"{outcome.low:.1%} to {outcome.high:.1%}" in str(caught.value)


def test_re_measuring_pools_the_samples_and_can_decide(rounds):
    # 10 samples: the interval is min..max and holds 0.7; pooled with 30 tight ones it does not.
    first = fake(shares(0.66, 0.78, 0.79, 0.80, 0.80, 0.80, 0.81, 0.81, 0.82, 0.83))
    second = fake(shares(*([0.80] * 15 + [0.81] * 15)))
    rounds["queue"] = [first, second]
    outcome = testing.gate(_copy, n_flops=0, n_bytes=1e9, at_least=0.7)
    assert outcome.verdict == "pass" and outcome.rounds == 2 and outcome.repeats == 40
    assert outcome.profile.repeats == 40 and len(outcome.profile.samples_s) == 40
    assert any("pooled over 2 rounds" in n for n in outcome.profile.notes)


def test_re_measuring_stops_within_its_time_budget(rounds):
    # 1 GB calls of about 1.4 s: a round's 10 repeats take 14 s and a round about 21 s, so the
    # budget of 1 s + 3 x 14 s leaves room for a second round and not a third
    straddle = [1e3 * t for t in shares(0.60, 0.65, 0.68, 0.69, 0.70, 0.70, 0.71, 0.72, 0.75, 0.80)]
    rounds["queue"] = [fake(straddle, n_bytes=1e9) for _ in range(5)]
    outcome = testing.gate(_copy, n_flops=0, n_bytes=1e9, at_least=0.7)
    assert outcome.verdict == "ambiguous" and outcome.rounds == 2
    assert outcome.gate_s <= testing.OVERHEAD_S + testing.OVERHEAD_FACTOR * outcome.timed_s


def test_a_pass_needs_the_whole_interval_above_the_threshold(rounds):
    rounds["queue"] = [fake(shares(*([0.71] * 5 + [0.69] * 5))) for _ in range(testing.MAX_ROUNDS)]
    assert testing.gate(_copy, n_flops=0, n_bytes=1e9, at_least=0.7).verdict == "ambiguous"


def test_compute_side_message_names_the_roof_intensity_and_ridge(rounds):
    # 1e12 FLOPs on 1e9 bytes: I = 1000, ridge 100: compute-bound on fp32 100 GFLOP/s
    rounds["queue"] = [fake([1e12 / 1e9 / 100 / 0.9] * 10, n_flops=1e12, n_bytes=1e9)]
    outcome = testing.gate(_copy, n_flops=1e12, n_bytes=1e9, at_least=0.5)
    assert outcome.verdict == "pass" and outcome.side == "compute"
    assert outcome.share == pytest.approx(0.9)
    assert "roof: fp32 100 GFLOP/s, compute side (I = 1000 FLOP/byte above the ridge 100)" in outcome.message


def test_memory_side_with_flops_names_intensity_times_bandwidth(rounds):
    rounds["queue"] = [fake([1e9 / 1e9 / 1.0 / 0.5] * 10, n_flops=1e9, n_bytes=1e9)]  # I = 1, roof 1 GFLOP/s
    outcome = testing.gate(_copy, n_flops=1e9, n_bytes=1e9, at_least=0.4)
    assert outcome.side == "memory" and outcome.share == pytest.approx(0.5)
    assert "roof: 1 GFLOP/s = I 1 FLOP/byte x dram 1 GB/s, memory side (I below the ridge 100)" in outcome.message


# --- the interval ---------------------------------------------------------------------------

def test_median_interval_ranks():
    samples = list(range(1, 101))  # order statistics are the values themselves
    median, low, high = testing.median_interval(samples)
    assert median == 50.5 and (low, high) == (40, 61)  # the textbook ranks for n = 100
    assert testing.median_interval(range(1, 11))[1:] == (1, 10)  # n = 10: min and max
    assert testing.median_interval([3.0]) == (3.0, 3.0, 3.0)


def test_median_interval_covers_the_true_median_about_95_percent_of_the_time():
    rng = random.Random(7)
    for n in (12, 40, 200):
        covered = 0
        for _ in range(1500):
            draw = [rng.lognormvariate(0, 0.5) for _ in range(n)]  # skewed, as timings are
            _, low, high = testing.median_interval(draw)
            covered += low <= 1.0 <= high  # the true median of lognormal(0, s) is 1
        assert 0.93 <= covered / 1500 <= 0.995, (n, covered / 1500)


# --- at_least and the other bad input ------------------------------------------------------------

@pytest.mark.parametrize("value, reason", [
    (0, r"must be a share of the roof in \(0, 1\]"), (1.5, r"in \(0, 1\]"), (-0.1, r"in \(0, 1\]"),
    (float("nan"), "must be a finite number"), (float("inf"), "must be a finite number"),
    ("0.7", "must be a number"), ("fast", "must be a number"), (True, "must be a number"),
    (None, "must be a number"), (10 ** 400, "at most 30 digits"),
])
def test_bad_at_least_is_one_value_error_naming_it_before_anything_runs(value, reason):
    calls = []
    with pytest.raises(ValueError) as caught:
        testing.assert_roofline(lambda: calls.append(1), n_flops=0, n_bytes=8, at_least=value, ceilings=TINY_ROOF)
    message = str(caught.value)
    assert message.startswith("at_least: ") and re.search(reason, message) and "\n" not in message
    assert calls == []


def test_at_least_of_one_is_allowed():
    assert testing.check_at_least(1) == 1.0


@pytest.mark.parametrize("kwargs, message", [
    ({"n_flops": None, "n_bytes": 8}, r"^n_flops: required"),
    ({"n_flops": 0, "n_bytes": "__import__('os').system('touch /tmp/roofline-gate-pwned')"}, r"^n_bytes: "),
    ({"n_flops": "open('x').read()", "n_bytes": 8}, r"^n_flops: "),
    ({"n_flops": 0, "n_bytes": 0}, r"^n_bytes: must be positive"),
    ({"n_flops": 0, "n_bytes": 8, "ceilings": "no-such-machine"}, r"^ceilings: unknown machine"),
    ({"n_flops": 0, "n_bytes": 8, "repeats": 0}, r"^repeats: "),
    ({"n_flops": 0, "n_bytes": 8, "timeout": float("nan")}, r"^timeout: "),
])
def test_bad_input_names_the_argument_and_never_evaluates_code(kwargs, message):
    arguments = {"ceilings": TINY_ROOF, **kwargs}
    with pytest.raises(ProfileError, match=message):
        testing.assert_roofline(_copy, *_copy_args(), at_least=0.5, **arguments)
    assert not Path("/tmp/roofline-gate-pwned").exists()


def test_a_function_that_raises_is_bad_input_not_a_failed_gate():
    def broken(dst, src):
        raise RuntimeError("out of memory")
    with pytest.raises(ProfileError, match=r"^fn: raised RuntimeError on the first call: out of memory"):
        testing.assert_roofline(broken, *_copy_args(), n_flops=0, n_bytes=8, at_least=0.5, ceilings=TINY_ROOF)


def test_a_function_that_never_returns_is_stopped_naming_it_and_the_limit():
    def sleeps_forever():
        time.sleep(1e6)
    started = time.perf_counter()
    with pytest.raises(ProfileError, match=r"^fn: sleeps_forever did not return within its time limit, timeout = 0.5 s"):
        testing.assert_roofline(sleeps_forever, n_flops=0, n_bytes=8, at_least=0.5, ceilings=TINY_ROOF, timeout=0.5)
    assert time.perf_counter() - started < 10


# --- real timing, against roofs no noise can cross --------------------------------------------------

def test_a_numpy_copy_passes_against_a_tiny_roof_and_the_result_is_profile_s():
    dst, src = _copy_args()
    result = testing.assert_roofline(_copy, dst, src, n_flops=0, n_bytes=2 * src.nbytes, at_least=1.0,
                                     ceilings=TINY_ROOF, repeats=5)
    assert result.library == "cpu" and result.repeats == 5 and len(result.samples_s) == 5
    assert result.fraction_of_roof > 1.0


def test_a_gate_judges_against_the_mix_asked_for_on_the_recorded_h200():
    from rooflinelib.store import results
    lab1 = results.recorded("ceilings")
    mixes = results.dram_mixes(lab1)
    dst, src = _copy_args()
    outcome = testing.gate(_copy, dst, src, n_flops=0, n_bytes=2 * src.nbytes, at_least=1e-9, ceilings=lab1,
                           memory="copy", repeats=5)
    assert outcome.roof == pytest.approx(mixes["copy"]) and outcome.roof != pytest.approx(mixes["write"])
    assert "roof: dram-copy 4,280 GB/s" in outcome.message and outcome.profile.memory == "dram-copy"
    result = testing.assert_roofline(_copy, dst, src, n_flops=0, n_bytes=2 * src.nbytes, at_least=1e-9,
                                     ceilings=lab1, memory="write", repeats=5)
    assert result.peak_gbps == pytest.approx(mixes["write"]) and result.memory == "dram-write"


def test_a_bad_memory_is_refused_before_anything_runs():
    calls = []
    with pytest.raises(ProfileError, match=r"^memory: must be one of dram, .*, got 'l2'"):
        testing.gate(lambda: calls.append(1), n_flops=0, n_bytes=8, at_least=0.5, ceilings=HUGE_ROOF, memory="l2")
    assert calls == []


def test_the_plugin_passes_memory_through():
    from rooflinelib.store import results
    from rooflinelib.pytest_plugin import RooflineGates

    class Node:
        nodeid, user_properties = "test_x", []
    dst, src = _copy_args()
    result = RooflineGates(Node, None).check(_copy, dst, src, n_flops=0, n_bytes=2 * src.nbytes, at_least=1e-9,
                                             ceilings=results.recorded("ceilings"), memory="copy", repeats=5)
    assert result.memory == "dram-copy"
    assert result.peak_gbps == pytest.approx(results.dram_mixes(results.recorded("ceilings"))["copy"])
    assert Node.user_properties[0][1]["verdict"] == "pass"


def test_a_numpy_copy_fails_against_a_huge_roof():
    dst, src = _copy_args()
    with pytest.raises(testing.BelowRoof) as caught:
        testing.assert_roofline(_copy, dst, src, n_flops=0, n_bytes=2 * src.nbytes, at_least=0.5,
                                ceilings=HUGE_ROOF, repeats=5)
    assert caught.value.outcome.rounds == 1 and caught.value.outcome.high < 1e-3


def test_one_gate_costs_at_most_a_second_plus_three_times_its_repeats():
    dst, src = _copy_args(1 << 20)
    testing.gate(_copy, dst, src, n_flops=0, n_bytes=2 * src.nbytes, at_least=0.5, ceilings=TINY_ROOF)  # warm imports
    outcome = testing.gate(_copy, dst, src, n_flops=0, n_bytes=2 * src.nbytes, at_least=0.5, ceilings=TINY_ROOF)
    assert outcome.gate_s <= testing.OVERHEAD_S + testing.OVERHEAD_FACTOR * outcome.timed_s + 1.0, \
        (outcome.gate_s, outcome.timed_s)  # + 1 s: the shared 2-core VM's own slack


def test_the_outcome_is_json_ready():
    dst, src = _copy_args()
    outcome = testing.gate(_copy, dst, src, n_flops=0, n_bytes=2 * src.nbytes, at_least=0.5, ceilings=TINY_ROOF,
                           repeats=4)
    record = json.loads(json.dumps(outcome.to_dict(), allow_nan=False))
    assert record["verdict"] == "pass" and record["interval"][0] <= record["share"] <= record["interval"][1]
    assert record["profile"]["samples_s"] and record["clock_sampled"] is False


# --- clocks ---------------------------------------------------------------------------------

def test_clock_within_five_percent_is_not_scaled():
    clocks = testing.clock_view("cupy", "fp32", 1980, {"sm_clock_mhz_median": 1965, "samples": 40,
                                                       "clock_event_reasons": [0]})
    assert clocks.scale == 1.0 and clocks.sampled and not clocks.throttled
    assert "SM 1,965 MHz (median of 40 NVML samples during the gate), within 5% of the 1,980 MHz" in clocks.text


def test_clock_more_than_five_percent_low_scales_the_compute_roof_and_says_why():
    clocks = testing.clock_view("numba", "fp32", 1980, {"sm_clock_mhz_median": 1500, "samples": 12,
                                                        "clock_event_reasons": [4, 0x40]})
    assert clocks.scale == pytest.approx(1500 / 1980)
    assert "24% below the 1,980 MHz that fp32 was measured at: the compute roof is scaled by 0.758" in clocks.text
    assert clocks.throttled == ("software power cap", "hardware thermal slowdown")
    assert "throttled: software power cap, hardware thermal slowdown" in clocks.text


def test_a_scaled_clock_changes_a_compute_bound_share_and_the_message_says_so(rounds):
    scaled = testing.clock_view("numba", "fp32", 2000, {"sm_clock_mhz_median": 1000, "samples": 9,
                                                        "clock_event_reasons": []})
    result = fake([1e12 / 1e9 / 100 / 0.45] * 10, n_flops=1e12, n_bytes=1e9, library="numba", clock_mhz=2000)
    outcome = testing.judge([result], 0.7, scaled)
    assert outcome.share == pytest.approx(0.9)  # 45% of the roof at 2 GHz is 90% of it at 1 GHz
    assert outcome.verdict == "pass" and "0.500 x 100 for the clock" in outcome.message
    assert any("scaled the compute roof" in n for n in outcome.profile.notes)
    unscaled = testing.judge([result], 0.7, testing.clock_view("numba", "fp32", 2000, None, {}, {}))
    assert unscaled.verdict == "below" and unscaled.share == pytest.approx(0.45)


def test_without_nvml_the_snapshots_are_used_and_said():
    clocks = testing.clock_view("cupy", "fp32", 1980, None, {"sm_clock_mhz": 1980}, {"sm_clock_mhz": 1700})
    assert not clocks.sampled and clocks.during_mhz == 1840 and clocks.scale == 1840 / 1980
    assert "from the snapshots before and after the timing (not sampled during it: no NVML)" in clocks.text


def test_no_clock_and_a_datasheet_are_each_said():
    assert "could not be read" in testing.clock_view("cupy", "fp32", 1980, None, {}, {}).text
    text = testing.clock_view("cupy", "fp32", None, {"sm_clock_mhz_median": 1900, "samples": 3}).text
    assert "the ceilings record no clock" in text and "not scaled" in text
    assert testing.clock_view("cpu", "fp32", 1980).text == "clocks: not read on the CPU (the roof is not scaled)"


def test_the_gate_samples_the_clock_only_for_gpu_work(monkeypatch, rounds):
    made = []
    real = testing._sampler
    monkeypatch.setattr(testing, "_sampler", lambda gpu: made.append(gpu) or real(False))
    rounds["queue"] = [fake(shares(*[0.9] * 10))]
    testing.gate(_copy, *_copy_args(), n_flops=0, n_bytes=1e9, at_least=0.5)
    assert made == [False]


def test_the_ceilings_clock_comes_from_the_result_per_ceiling_when_it_has_one():
    from rooflinelib.profiling.core import ceilings_clock
    machine = Machine("m", (Ceiling("dram", "memory", 1.0), Ceiling("fp32", "compute", 1.0)),
                      provenance={"before": {"sm_clock_mhz": 1980},
                                  "sm_clock_mhz_during": {"bf16-tensor": 1560.0}})
    assert ceilings_clock(machine, "bf16-tensor") == 1560.0
    assert ceilings_clock(machine, "fp32") == 1980.0
    assert ceilings_clock(Machine("d", ()), "fp32") is None


# --- the notebook's demonstration and the recorded gates ------------------------------------------

def test_demo_kernels_slow_the_copy_by_the_extra_share():
    k = testing.demo_kernels("cpu", size_mib=1, extra=1.5)
    dst, src = k.args
    calls = []
    real = np.copyto
    try:
        np.copyto = lambda d, s: calls.append(d.size) or real(d, s)
        k.slowed(dst, src)
    finally:
        np.copyto = real
    assert calls == [src.size, src.size, src.size // 2]
    assert k.n_bytes == 2 * src.nbytes and "1.5x the buffer again" in k.describe()
    with pytest.raises(ProfileError, match="^library: "):
        testing.demo_kernels("opencl")


def test_demo_gates_live_cpu_passes_the_copy_and_fails_the_slowed_one(monkeypatch):
    from rooflinelib.modes import RunMode
    # the roof sits at the copy's own median rate here, so that the verdicts do not depend on
    # this machine: the copy is near 125% of it and the slowed copy (6 passes) near 21%
    k = testing.demo_kernels("cpu", 8)
    # the faster of two probes: one probe taken during a burst of load elsewhere on a shared 2-core
    # machine read 0.98 GB/s against the gate's 10 GB/s a moment later, which put the roof so low
    # that the slowed copy landed near it (fresh-clone run of 2026-12-03)
    rate = max(testing.gate(k.copy, *k.args, n_flops=0, n_bytes=k.n_bytes, at_least=0.01,
                            ceilings=TINY_ROOF).profile.achieved_gbps for _ in range(2))
    monkeypatch.setitem(testing.DEMO, "cpu", {"size_mib": 8, "at_least": 0.5, "extra": 5.0})
    roof = Machine("this CPU's copy", (Ceiling("dram", "memory", rate * 0.8), Ceiling("fp32", "compute", 1.0)))
    demo = testing.demo_gates(RunMode("cpu", "cpu", "the test CPU"), ceilings=roof)
    text = demo.text()
    assert text.startswith("Mode: live CPU.")
    verdicts = [o.verdict for o in demo.outcomes]
    assert verdicts[1] == "below", text
    assert "assert_roofline(slowed_copy, ...) raises BelowRoof" in text


def test_recorded_mode_shows_the_recorded_gates_as_recorded(tmp_path, monkeypatch):
    from rooflinelib.modes import RunMode
    def outcome(name, verdict, share):
        return {"format": "rooflinelib-gate", "version": 1, "name": name, "verdict": verdict,
                "share": share, "interval": [share - 0.01, share + 0.01], "at_least": 0.9, "roof": 4280.0,
                "roof_unit": "GB/s", "message": f"roofline gate {verdict} for {name}: ..."}
    record = {"format": "rooflinelib-gates", "version": 1, "created": "2026-12-02T00:00:00+00:00",
              "device": "NVIDIA H200", "gates": [outcome("copy", "pass", 0.97), outcome("slowed_copy", "below", 0.6)]}
    path = tmp_path / "gates.json"
    path.write_text(json.dumps(record))
    monkeypatch.setattr(testing, "recorded_gates", lambda path=path, real=testing.recorded_gates: real(path))
    demo = testing.demo_gates(RunMode("recorded", None, "recorded H200 data"))
    assert demo.lines[0].startswith("Mode: recorded H200 data: these gates ran on the NVIDIA H200 on 2026-12-02")
    assert "shown as recorded, not measured now" in demo.lines[0]
    assert "- slowed_copy at at_least = 90.0%: below" in demo.text()
    record["gates"][0]["verdict"] = "maybe"
    path.write_text(json.dumps(record))
    with pytest.raises(ProfileError, match=r"gates\.json: gates\[0\]\.verdict: "):
        testing.recorded_gates(path)
    # the file's schema (rooflinelib/store/schemas/gates.schema.json) holds every field, in one line
    record["gates"][0]["verdict"], record["gates"][1]["share"] = "pass", float("1e400")
    path.write_text(json.dumps(record).replace("Infinity", "1e400"))
    with pytest.raises(ProfileError, match=r"gates\[1\]\.share: ") as caught:
        testing.recorded_gates(path)
    assert "\n" not in str(caught.value)


# --- roofline check -------------------------------------------------------------------------------

TARGET = '''
import time
import numpy as np
N_FLOPS = 0
N_BYTES = "2 * 8 * 2**16"
CALLS = [0]
def setup():
    a = np.ones(2**16)
    return np.empty_like(a), a
def copy(dst, src):
    np.copyto(dst, src)
def bimodal(dst, src):
    # 1 ms and 50 ms calls in turn: the median's interval holds both, whatever the threshold between
    CALLS[0] += 1
    time.sleep(0.001 if CALLS[0] % 2 else 0.050)
def raises(dst, src):
    raise ValueError("bad shape")
def never(dst, src):
    time.sleep(1e6)
'''


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    folder = tmp_path_factory.mktemp("check")
    (folder / "kernels.py").write_text(TARGET)
    (folder / "code_in_count.py").write_text(TARGET.replace('N_BYTES = "2 * 8 * 2**16"',
                                                            'N_BYTES = "__import__(\'os\').getpid()"'))
    recorded = json.loads((ROOT / "rooflinelib" / "data" / "h200_ceilings_numba.json").read_text())
    for ceiling in recorded["ceilings"]:
        if ceiling["name"] == "dram":
            ceiling["value"] = 1e-3  # a roof every copy is far above
    (folder / "tiny.json").write_text(json.dumps(recorded))
    return folder


def check(folder, *argv, timeout=180):
    return subprocess.run([sys.executable, "-m", "rooflinelib", "check", *argv], capture_output=True, text=True,
                          timeout=timeout, cwd=folder)


def test_check_passes_with_status_0_and_prints_one_line(target):
    done = check(target, "kernels.py:copy", "--at-least", "1", "--ceilings", "tiny.json", "--repeats", "5")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("roofline gate passed for copy: ")
    assert "ceilings: Lab 1 result tiny.json (NVIDIA H200" in lines[0]


def test_check_memory_judges_a_copy_against_the_copy_mix(target):
    # tiny.json's dram (the best mix) is 1e-3 GB/s, its copy mix the H200's 4,280: --memory copy
    # judges the copy against 4,280, where a CPU copy is below 100%
    done = check(target, "kernels.py:copy", "--at-least", "1", "--ceilings", "tiny.json", "--memory", "copy",
                 "--repeats", "5", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    record = json.loads(done.stdout)
    copy = json.loads((ROOT / "rooflinelib" / "data" / "h200_ceilings_numba.json").read_text())
    rate = next(c["value"] for c in copy["ceilings"] if c["name"] == "dram-copy")
    assert record["roof"] == pytest.approx(rate) and record["profile"]["memory"] == "dram-copy"
    assert "roof: dram-copy 4,280 GB/s" in record["message"]


def test_check_below_is_status_1_and_json_on_request(target):
    done = check(target, "kernels.py:copy", "--at-least", "0.9", "--machine", "H200", "--repeats", "5", "--json")
    assert done.returncode == 1, done.stderr
    record = json.loads(done.stdout)
    assert record["verdict"] == "below" and record["at_least"] == 0.9 and record["interval"][1] < 0.9
    assert record["ceilings_source"].startswith("the H200 datasheet")


def test_check_ambiguous_is_status_3_with_the_interval(target):
    # at the H200's 4,800 GB/s, 4.8e10 bytes in 10 ms is 100% of the roof: 1 ms calls (even 9 ms
    # ones on a busy machine) are above, 50 ms calls at 20%; a threshold of 99% lies between them
    done = check(target, "kernels.py:bimodal", "--at-least", "0.99", "--machine", "H200", "--n-bytes", "4.8e10",
                 "--repeats", "20")
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout.startswith("roofline gate ambiguous for bimodal: ")
    assert re.search(r"95% interval [\d.]+% to [\d.]+%", done.stdout)


@pytest.mark.parametrize("argv, message", [
    (("missing.py:copy", "--at-least", "0.5"), r"missing\.py: no such Python file"),
    (("kernels.py:nothere", "--at-least", "0.5"), r"kernels\.py: defines no function 'nothere'"),
    (("kernels.py:copy", "--at-least", "0"), r"--at-least: must be in \(0, 1\], got '0'"),
    (("kernels.py:copy", "--at-least", "1.5"), r"--at-least: must be in \(0, 1\], got '1.5'"),
    (("kernels.py:copy", "--at-least", "nan"), r"--at-least: must be in \(0, 1\], got 'nan'"),
    (("kernels.py:copy", "--at-least", "__import__('os').getpid()"), r"--at-least: must be a number"),
    (("kernels.py:copy", "--at-least", "most"), r"--at-least: must be a number, got 'most'"),
    (("kernels.py:copy",), r"required: --at-least"),
    (("code_in_count.py:copy", "--at-least", "0.5"), r"n_bytes: "),
    (("kernels.py:raises", "--at-least", "0.5"), r"fn: raised ValueError on the first call: bad shape"),
    (("kernels.py:never", "--at-least", "0.5", "--timeout", "1"),
     r"fn: never did not return within its time limit, timeout = 1 s"),
    (("kernels.py:copy", "--at-least", "0.5", "--ceilings", "tiny.json", "--machine", "H200"), r"not allowed with"),
    (("kernels.py:copy", "--at-least", "0.5", "--memory", "hbm"), r"--memory: must be one of dram, .*, got 'hbm'"),
    (("kernels.py:copy", "--at-least", "0.5", "--memory", "copy"), r"memory: H200 has no 'dram-copy' roof"),
])
def test_check_bad_input_is_one_line_and_status_2(target, argv, message):
    done = check(target, *argv, *(() if "--machine" in argv or "--ceilings" in argv else ("--machine", "H200")))
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("roofline: error: ") and re.search(message, lines[0]), lines
    assert done.stdout == ""


# --- the pytest plugin -----------------------------------------------------------------------------

def test_the_plugin_is_registered_by_the_package_entry_point():
    import tomllib
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["entry-points"]["pytest11"] == {"roofline": "rooflinelib.pytest_plugin"}
    installed = [e for e in importlib.metadata.entry_points(group="pytest11") if e.name == "roofline"]
    if installed:  # an install from before the entry point was declared lists none
        assert installed[0].value == "rooflinelib.pytest_plugin"


def test_importing_the_plugin_stays_light():
    code = ("import sys, json; import rooflinelib.pytest_plugin; "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'numba', 'cupy', 'torch', 'plotly') or m == 'rooflinelib.testing')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


GATED_TESTS = '''
import sys
import numpy as np
from rooflinelib.core.model import Ceiling, Machine

HUGE = Machine("huge", (Ceiling("dram", "memory", 1e9), Ceiling("fp32", "compute", 1e9)))

def copy(dst, src):
    np.copyto(dst, src)

def slowed(dst, src):
    for _ in range(3):
        np.copyto(dst, src)

def test_copy_keeps_its_roof(roofline):
    a = np.ones(1 << 16)
    result = roofline.check(copy, np.empty_like(a), a, n_flops=0, n_bytes=2 * a.nbytes, at_least=1.0, repeats=5)
    assert result.repeats == 5

def test_slowed_copy_misses_it(roofline):
    a = np.ones(1 << 16)
    roofline.check(slowed, np.empty_like(a), a, n_flops=0, n_bytes=2 * a.nbytes, at_least=0.5, repeats=5,
                   ceilings=HUGE)
'''


def run_pytest(folder, *argv):
    plugin = () if any(e.name == "roofline" for e in importlib.metadata.entry_points(group="pytest11")) \
        else ("-p", "rooflinelib.pytest_plugin")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-p", "no:randomly", *plugin, *argv], capture_output=True, text=True, timeout=300,
                          cwd=folder)


def test_pytest_plugin_gates_and_prints_a_summary_table(target, tmp_path):
    (tmp_path / "test_gated.py").write_text(GATED_TESTS)
    (tmp_path / "tiny.json").write_text((target / "tiny.json").read_text())
    done = run_pytest(tmp_path, "--roofline-ceilings", "tiny.json")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "1 failed, 1 passed" in out
    assert "roofline gate failed for slowed: " in out  # the failure's one line
    section = out.split("roofline gates", 1)[1]
    rows = [line.split() for line in section.splitlines()[1:4]]
    assert rows[0][:2] == ["kernel", "share"] and rows[0][-1] == "verdict"
    assert rows[1][0] == "copy" and rows[1][-1] == "pass"
    assert rows[2][0] == "slowed" and rows[2][-1] == "below" and rows[2][-2] == "50.0%"
    assert "ceilings: Lab 1 result" in section and "tiny.json" in section
    assert "clocks: not read on the CPU" in section


def test_pytest_plugin_does_nothing_for_a_run_without_gates(tmp_path):
    (tmp_path / "test_plain.py").write_text(
        "import sys\n\ndef test_plain():\n    assert 'rooflinelib.testing' not in sys.modules\n"
        "    assert 'numpy' not in sys.modules\n")
    done = run_pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "roofline gates" not in done.stdout


def test_pytest_plugin_refuses_both_ceilings_options(tmp_path):
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    pass\n")
    done = run_pytest(tmp_path, "--roofline-ceilings", "x.json", "--roofline-machine", "H200")
    assert done.returncode != 0
    assert "--roofline-ceilings, --roofline-machine: give one of the two, not both" in done.stdout + done.stderr


def test_pytest_ambiguous_gate_is_a_failure_that_says_ambiguous(tmp_path):
    (tmp_path / "test_ambiguous.py").write_text('''
import time
CALLS = [0]
def bimodal():
    CALLS[0] += 1
    time.sleep(0.001 if CALLS[0] % 2 else 0.050)
def test_bimodal(roofline):
    roofline.check(bimodal, n_flops=0, n_bytes=4.8e10, at_least=0.99, repeats=20)
''')
    done = run_pytest(tmp_path, "--roofline-machine", "H200")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "AmbiguousGate: roofline gate ambiguous for bimodal" in done.stdout
    assert re.search(r"bimodal\s+\S+%\s+\S+% to \S+%\s+>=\s+99.0%\s+ambiguous", done.stdout)


def test_a_gpu_gate_without_nvml_reads_the_snapshots_and_flags_throttling(monkeypatch, rounds):
    monkeypatch.setattr(testing, "detect_library", lambda fn, args, kwargs: "cupy")
    device = {"before": {"sm_clock_mhz": 1980, "clock_event_reasons": 0},
              "after": {"sm_clock_mhz": 1620, "clock_event_reasons": 4}}
    rounds["queue"] = [fake(shares(*[0.9] * 10), library="cupy", device=device, clock_mhz=1980)]
    outcome = testing.gate(_copy, n_flops=0, n_bytes=1e6, at_least=0.5)
    assert outcome.verdict == "pass" and not outcome.clocks.sampled
    assert outcome.clocks.during_mhz == 1800 and outcome.clocks.scale == pytest.approx(1800 / 1980)
    assert "from the snapshots before and after the timing" in outcome.message
    assert "throttled: software power cap" in outcome.message
    assert outcome.share == pytest.approx(0.9)  # n_flops = 0: bandwidth, not scaled by the clock


def test_a_shipped_h200_result_gives_each_compute_ceiling_its_own_clock():
    from rooflinelib.profiling.core import ceilings_clock
    from rooflinelib.store.results import to_machine
    path = ROOT / "rooflinelib" / "data" / "h200_ceilings_cupy.json"
    during = {d["name"]: d["sm_clock_mhz_during"] for d in json.loads(path.read_text())["details"]
              if d.get("sm_clock_mhz_during")}
    machine = to_machine(path)
    for compute in ("fp32", "bf16-tensor", "fp16-tensor"):
        assert ceilings_clock(machine, compute) == during[compute]
