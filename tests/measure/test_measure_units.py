"""The measurement engine's pure parts: FLOP/byte accounting, timing statistics, the ridge and
knee read off a sweep, provenance without a GPU, and the light import."""
import math
import subprocess
import sys

import pytest

from rooflinelib.measure import accounting as acc
from rooflinelib.measure import expected
from rooflinelib.measure.sweep import knee, nearest_k, steps_between, summarize
from rooflinelib.measure.timing import Timing, TimingUnavailable, time_on_host


def test_sweep_intensity_is_k_over_4():
    for k in (0, 1, 4, 64, 1024):
        w = acc.sweep_work(1000, k)
        assert w.n_bytes == 8000 and w.n_flops == 2 * k * 1000
        assert acc.sweep_intensity(k) == k / 4 == (w.intensity if k else 0)


def test_copy_counts_read_and_write():
    assert acc.copy_work(10).n_bytes == 320 and acc.copy_work(10).n_flops == 0
    assert acc.copy_elements_work(10, 4).n_bytes == 80


def test_fma_and_matmul_counts():
    assert acc.fma_peak_work(2, 3, 4, 5).n_flops == 2 * 2 * 3 * 4 * 5
    assert acc.matmul_work(8192, 2).n_flops == 2 * 8192 ** 3
    assert acc.sfu_work(2, 3, 4, 5).n_flops == 120


def test_timing_median_and_spread():
    t = Timing((1.0, 2.0, 4.0))
    assert t.median_s == 2.0 and t.spread == 1.5 and t.repeats == 3
    with pytest.raises(TimingUnavailable):
        Timing((-1.0,))  # the simulator's events
    assert time_on_host(lambda: None, 3, 1).repeats == 3


def model_rows(peak_gflops, peak_gbps, ks, p=4.0):
    """Rows of a kernel that blends the two bounds smoothly: t = (tm^p + tc^p)^(1/p)."""
    rows = []
    for k in ks:
        flops, nbytes = 2.0 * k, 8.0
        tm, tc = nbytes / peak_gbps, flops / peak_gflops
        t = (tm ** p + tc ** p) ** (1 / p)
        rows.append({"k": k, "intensity": k / 4, "gbps": nbytes / t, "gflops": flops / t,
                     "verified": True})
    return rows


def test_knee_of_a_symmetric_blend_is_the_ridge():
    from rooflinelib.measure.sweep import DEFAULT_KS
    rows = model_rows(64000.0, 4000.0, DEFAULT_KS)
    s = summarize(rows)
    assert s["knee"]["intensity"] == pytest.approx(16.0, rel=0.05)
    assert steps_between(rows, s["knee"]["k"], nearest_k(rows, s["ridge"])) <= 1


def test_knee_is_none_when_the_curve_never_turns():
    rows = model_rows(1e9, 4000.0, (0, 1, 2, 4, 8))
    assert knee(rows) is None


def test_ridge_from_the_sweeps_ends():
    rows = model_rows(64000.0, 4000.0, (0, 1, 4, 16, 64, 256, 1024))
    s = summarize(rows)
    assert s["peak_gbps"] == pytest.approx(4000.0, rel=1e-3)
    assert s["peak_gflops"] == pytest.approx(64000.0, rel=0.01)
    assert s["ridge"] == pytest.approx(s["peak_gflops"] / s["peak_gbps"])


def test_chunk_read_work_counts_whole_chunks_per_block_and_pass():
    w = acc.chunk_read_work(1056, 463, 16384)
    assert w.n_bytes == 1056 * 463 * 16384 and w.n_flops == 0
    assert w.gbps(1e-3) == pytest.approx(1056 * 463 * 16384 / 1e-3 / 1e9)


def test_l2_working_sets_are_whole_groups_between_a_quarter_and_two_fifths_of_the_l2():
    from rooflinelib.measure.gpu_backends import L2_DEFAULT_BYTES, L2_ITERS, l2_working_sets
    group = L2_ITERS * acc.CHUNK_BYTES  # 512 KiB: what one block reads
    h200 = l2_working_sets(60 * 2 ** 20)
    assert len(h200) == 3 and all(size % group == 0 for size in h200)
    assert 60 * 2 ** 20 / 4 - group < h200[0] <= 60 * 2 ** 20 / 4
    assert h200[-1] <= 0.4 * 60 * 2 ** 20
    assert l2_working_sets(None) == (L2_DEFAULT_BYTES // group * group,)
    assert l2_working_sets(64 * 1024) == (group,)  # never less than one group


def test_l2_slab_expected_sums_match_a_direct_count():
    import numpy as np
    groups, iters, grid = 3, 4, 9
    data = expected.gpu_data(groups * iters).astype(np.float64).reshape(groups * iters, -1, 4)
    want = np.stack([sum(data[i * groups + b % groups].sum(axis=0) for i in range(iters))
                     for b in range(grid)])
    assert np.array_equal(expected.l2_slab_expected(groups, iters, grid), want)


def test_fill_values_are_exact_and_never_zero():
    import numpy as np
    v = expected.fill_values(np.arange(100000))
    assert (v >= 1).all() and np.array_equal(v.astype(np.float32).astype(np.float64), v)


def test_provenance_degrades_without_tools(monkeypatch):
    from rooflinelib.measure import provenance
    monkeypatch.setattr(provenance, "_nvml", lambda: None)
    monkeypatch.setattr(provenance.shutil, "which", lambda name: None)
    assert provenance.gpu_snapshot() == {"source": "unknown"}
    done = provenance.finish({"name": "x"}, {"sm_clock_mhz": 1980}, {"sm_clock_mhz": 1700},
                             "numba", provenance.now_iso())
    assert done["clock_drift_flag"] is True and math.isclose(done["sm_clock_drift"], -280 / 1980)
    steady = provenance.finish({"name": "x"}, {"sm_clock_mhz": 1980}, {"sm_clock_mhz": 1975},
                               "numba", provenance.now_iso())
    assert steady["clock_drift_flag"] is False
    assert "numpy" in steady["libraries"]


class FakeNvml:
    """Stands in for pynvml: the SM clock sinks 15 MHz per read, the power rises 10 W."""
    NVML_CLOCK_SM = 1

    def __init__(self, reasons=True):
        self.reads, self.with_reasons = 0, reasons

    def nvmlDeviceGetHandleByIndex(self, index):
        return index

    def nvmlDeviceGetClockInfo(self, handle, which):
        self.reads += 1
        return 1980 - 15 * (self.reads - 1)

    def nvmlDeviceGetPowerUsage(self, handle):
        return 600_000 + 10_000 * self.reads  # milliwatts

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle):
        if not self.with_reasons:
            raise RuntimeError("not supported")
        return 4 if self.reads > 2 else 0


@pytest.mark.parametrize("reasons", [True, False])
def test_clock_sampler_summary_with_power(monkeypatch, reasons):
    import time
    from rooflinelib.measure import provenance
    fake = FakeNvml(reasons)
    monkeypatch.setattr(provenance, "_nvml", lambda: fake)
    with provenance.ClockSampler(interval_s=0.001, power=True) as sampler:
        deadline = time.monotonic() + 5
        while fake.reads < 5 and time.monotonic() < deadline:
            time.sleep(0.002)
    summary = sampler.summary()
    n = summary["samples"]
    assert n >= 5 and n == len(sampler.power_w)
    clocks = [1980 - 15 * i for i in range(n)]
    assert summary["sm_clock_mhz_min"] == min(clocks)
    assert summary["sm_clock_mhz_median"] == sorted(clocks)[n // 2] == sampler.median_mhz
    assert summary["power_w_max"] == 600 + 10 * n
    assert summary["clock_event_reasons"] == ([0, 4] if reasons else [])
    plain = provenance.ClockSampler(power=False)
    assert plain.summary()["samples"] == 0 and plain.summary()["power_w_median"] is None


def test_theoretical_peaks_of_an_h200():
    from rooflinelib.measure.gpu_backends import theoretical
    t = theoretical(132, (9, 0), 1980)
    assert t["fp32_gflops"] == pytest.approx(66908.16)
    assert t["shared_gbps"] == pytest.approx(33454.08)
    assert t["fp64_gflops"] == pytest.approx(t["fp32_gflops"] / 2)


def test_import_stays_light():
    code = ("import sys, rooflinelib, rooflinelib.measure, rooflinelib.store.results; "
            "heavy = [m for m in ('numba', 'cupy', 'numpy') if m in sys.modules]; "
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


class _FakeSweepGpu:
    """The engine's sweep plumbing on a pretend GPU: each launch configuration takes a set
    time, and the 'kernel' copies x into y unless told to corrupt it."""

    def __new__(cls, seconds_by_vpt, corrupt_vpt=None):
        from rooflinelib.measure import gpu_backends

        from rooflinelib.measure.provenance import NoClock

        class Fake(gpu_backends._GpuBase):
            name = "fake"

            def sweep_launcher(self, k, n_vec, x, y, all_ks=(), vectors_per_thread=1):
                def launch():
                    y[:] = x
                    if vectors_per_thread == corrupt_vpt:
                        y[0] += 1.0
                    self._last = vectors_per_thread
                return launch

            def synchronize(self):
                pass

            def poison(self, y):
                y[:] = [float("nan")] * len(y)

            def count_mismatches(self, a, b):
                return sum(1 for p, q in zip(a, b) if p != q)

            def clock_sampler(self):
                return NoClock()

            def time(self, launch, repeats=None):
                launch()
                return Timing((seconds_by_vpt[self._last],) * 3)

        return Fake()


def _buffers(n_vec):
    from rooflinelib.measure.protocol import SweepBuffers
    return SweepBuffers(n_vec, [1.5] * (4 * n_vec), [0.0] * (4 * n_vec))


def test_sweep_point_reports_the_fastest_variant_and_keeps_them_all():
    from rooflinelib.measure import gpu_backends
    from rooflinelib.measure.sweep import sweep_point
    n_vec = gpu_backends.BLOCK * 16
    buffers = _buffers(n_vec)
    gpu = _FakeSweepGpu({1: 1e-3, 16: 2e-3})
    # K = 0 does no FLOPs: every variant's GFLOP/s is 0, so the shorter time must decide
    m = sweep_point(gpu, 0, buffers)
    assert m.config["vectors_per_thread"] == 1 and m.timing.median_s == 1e-3
    tried = m.extra["configs_tried"]
    assert [t["vectors_per_thread"] for t in tried] == list(gpu_backends.SWEEP_VECTOR_CONFIGS)
    # 4 floats a vector, 8 bytes a float moved (read + write)
    assert [t["gbps"] for t in tried] == [pytest.approx(32 * n_vec / 1e-3 / 1e9),
                                          pytest.approx(32 * n_vec / 2e-3 / 1e9)]
    assert all(t["verified"] for t in tried)
    gpu = _FakeSweepGpu({1: 3e-3, 16: 2e-3})
    m = sweep_point(gpu, 64, buffers)
    assert m.config["vectors_per_thread"] == 16 and m.kernel == "sweep_pipelined<64>"
    assert m.extra["configs_tried"][0]["gflops"] < m.value
    # one kernel only, when asked for
    m = sweep_point(gpu, 64, buffers, vectors_per_thread=1)
    assert m.config["vectors_per_thread"] == 1 and len(m.extra["configs_tried"]) == 1


def test_sweep_point_fails_if_any_variant_fails_verification():
    from rooflinelib.measure import gpu_backends
    from rooflinelib.measure.errors import VerificationError
    from rooflinelib.measure.sweep import sweep_point
    buffers = _buffers(gpu_backends.BLOCK * 16)
    gpu = _FakeSweepGpu({1: 1e-3, 16: 2e-3}, corrupt_vpt=16)  # the slower one is wrong
    with pytest.raises(VerificationError, match=r"sweep_pipelined<8>\): 1 of"):
        sweep_point(gpu, 8, buffers)
    with pytest.raises(ValueError, match="vectors_per_thread"):
        sweep_point(gpu, 8, buffers, vectors_per_thread=(0,))


def test_the_protocol_poisons_times_the_first_call_apart_and_verifies_before_timing():
    from rooflinelib.measure.errors import VerificationError
    from rooflinelib.measure.protocol import Run, measure_run
    calls = []

    from rooflinelib.measure.provenance import NoClock

    class Backend:
        def first_call(self, launch):
            calls.append("first")
            launch()
            return 0.5

        def clock_sampler(self):
            return NoClock()

        def time(self, launch, repeats=None):
            calls.append("timed")
            launch()
            return Timing((2e-3, 1e-3, 3e-3))

        def theoretical(self, mhz):
            return {}

    out = []
    run = Run(lambda: out.append(1), lambda: None if out == [1] else f"out is {out}",
              acc.Work(0.0, 4e6), "fake", poison=lambda: (calls.append("poison"), out.clear()))
    m = measure_run(Backend(), "dram", "memory", run)
    assert calls == ["poison", "first", "poison", "timed"]
    assert m.first_call_s == 0.5 and m.seconds == 2e-3 and m.gbps == pytest.approx(2.0)
    calls.clear()
    wrong = Run(lambda: out.append(2), lambda: "2 of 2 floats differ", acc.Work(0.0, 1.0), "bad")
    with pytest.raises(VerificationError, match="verification: dram \\(bad\\): 2 of 2"):
        measure_run(Backend(), "dram", "memory", wrong)
    assert "timed" not in calls  # a wrong kernel is never timed
    # a kernel right at its first call but wrong in its timed launches is caught after them
    launches = []
    flaky = Run(lambda: launches.append(1), lambda: None if len(launches) == 1 else "timed launches wrote garbage",
                acc.Work(0.0, 1.0), "flaky")
    with pytest.raises(VerificationError, match="after the timed repeats: timed launches wrote garbage"):
        measure_run(Backend(), "dram", "memory", flaky)


def test_a_best_rule_timing_reports_the_fastest_repeat():
    t = Timing((3.0, 1.0, 2.0), "best")
    assert t.seconds == 1.0 and t.median_s == 2.0 and t.as_dict()["rule"] == "best"
    assert Timing((3.0, 1.0, 2.0)).seconds == 2.0
    with pytest.raises(ValueError, match="rule"):
        Timing((1.0,), "mean")


class _FakeBackend:
    """A backend that measures nothing: every kernel a verified run of 1 GB or 1 GFLOP in 1 s."""
    name = "numba"
    scope = "gpu"
    repeats = 3
    device_name = "fake GPU"
    default_buffer_bytes = 2 ** 20

    def _runs(self, kind, note=None):
        from rooflinelib.measure.protocol import Run
        work = acc.Work(0.0 if kind == "memory" else 1e9, 1e9 if kind == "memory" else 0.0)
        return [Run(lambda: None, lambda: None, work, "fake", extra={"note": note} if note else {})]

    def start(self):
        return {"started": "2026-12-01T00:00:00+00:00"}

    def finish(self, session):
        return {"name": "fake GPU", "kind": "gpu", "backend": "numba", "started": session["started"]}

    def result_notes(self, device):
        return []

    def first_call(self, launch):
        launch()
        return 0.0

    def time(self, launch, repeats=None):
        return Timing((1.0, 1.0, 1.0))

    def clock_sampler(self):
        from rooflinelib.measure.provenance import NoClock
        return NoClock()

    def theoretical(self, mhz):
        return {}

    def release(self):
        pass

    def copy_runs(self, size_bytes):
        return self._runs("memory")

    def read_runs(self, size_bytes):
        return self._runs("memory")

    def write_runs(self, size_bytes):
        return self._runs("memory")

    def fma_runs(self, dtype):
        return self._runs("compute")

    def l2_runs(self):
        return self._runs("memory", note="read with shared chunks")

    def shared_runs(self):
        return self._runs("memory")

    def sfu_runs(self):
        return self._runs("compute")

    def link_runs(self, direction):
        return self._runs("memory")


def test_lab1_measures_the_registry_plan_and_keeps_a_runs_note():
    from rooflinelib.measure.ceilings import measure_ceilings
    # a GPU backend measures the link ceilings by default, and leaves them out when told to
    result = measure_ceilings(_FakeBackend(), matrix=False, links=False)
    assert [c["name"] for c in result["ceilings"]] == ["dram-read", "dram-write", "dram-copy", "dram", "l2",
                                                       "shared", "fp32", "fp64", "sfu"]
    with_links = measure_ceilings(_FakeBackend(), matrix=False)
    assert [c["name"] for c in with_links["ceilings"]][-2:] == ["pcie-h2d", "pcie-d2h"]
    assert result["notes"] == ["l2: read with shared chunks"]
    assert all(d["rule"] == "median" for d in result["details"])


