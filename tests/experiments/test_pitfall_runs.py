"""The pitfalls run (benchmarks/record_pitfalls.sh) without a GPU: the counts and the model
figures it rests on, the sustained-load protocol on a fake backend, the readings of its
experiments on hand-made results, the recorded-file merge, and its empty kernels in the CUDA
simulator and as sm_90 PTX."""
import json
from pathlib import Path

import pytest

from support import simulated

from rooflinelib.core import operators
from rooflinelib.lessons import pitfalls
from rooflinelib.experiments import pitfall_readings, record
from rooflinelib.experiments.record import Experiment, Variant
from rooflinelib.core.machines import A100, H100_SXM, H200, MI300X
from rooflinelib.measure import accounting as acc
from rooflinelib.measure.errors import VerificationError
from rooflinelib.measure.protocol import Run, measure_sustained
from rooflinelib.measure.timing import Timing
from rooflinelib.store import recorded as recorded_folder

ROOT = Path(__file__).resolve().parents[2]
DEVICE = {"name": "fake H200"}


# --- counts and model figures ------------------------------------------------------------------

def test_gemm_work_counts_a_rectangular_product_and_matches_the_square_one():
    w = acc.gemm_work(16384, 16384, 128, 2)
    assert w.n_flops == 2 * 16384 * 16384 * 128
    assert w.n_bytes == 2 * (16384 * 128 + 128 * 16384 + 16384 * 16384)
    assert 120 < w.intensity < 128  # about K FLOP/byte in bf16: between an H200's two ridges
    assert acc.gemm_work(8192, 8192, 8192, 4) == acc.matmul_work(8192, 4)
    with pytest.raises(ValueError, match="must be positive"):
        acc.gemm_work(0, 1, 1, 2)


def test_the_mi300x_compute_roofs_span_32x():
    span = pitfalls.compute_roof_span(MI300X)
    assert span["low"].name == "fp32" and span["high"].name == "fp8-tensor"
    assert span["ratio"] == pytest.approx(2614.9 / 81.7) and round(span["ratio"]) == 32
    with pytest.raises(ValueError, match="fewer than two"):
        pitfalls.compute_roof_span(MI300X, names=("fp32",))


def test_bf16_over_fp32_is_16x_on_the_a100_and_14_8x_on_the_h100():
    assert pitfalls.roof_ratio(A100) == pytest.approx(16.0)
    assert pitfalls.roof_ratio(H100_SXM) == pytest.approx(14.79, abs=0.005)


def test_the_gaps_below_the_mi300x_bf16_ridge():
    ridge = MI300X.ridge("bf16-tensor")
    assert round(operators.times_below_ridge(operators.vector_add(2 ** 24), ridge)) == 2960
    assert round(operators.times_below_ridge(operators.reduction(2 ** 24), ridge)) == 987
    fused = operators.elementwise_chain(2 ** 20, 5, fused=True)
    assert round(operators.times_below_ridge(fused, ridge), -1) == 390  # drill 4's "about 400x"
    with pytest.raises(ValueError, match="ridge"):
        operators.times_below_ridge(fused, 0)


def test_five_fused_elementwise_ops_move_a_fifth_of_the_bytes():
    apart = operators.elementwise_chain(1000, 5, fused=False)
    fused = operators.elementwise_chain(1000, 5, fused=True)
    assert (apart.intensity, fused.intensity) == (0.125, 0.625)
    assert apart.n_flops == fused.n_flops and apart.n_bytes == 5 * fused.n_bytes
    with pytest.raises(ValueError, match="ops"):
        operators.elementwise_chain(1000, 0, fused=True)


def test_halving_the_dtype_doubles_a_memory_bound_rate():
    roof = H200.roofline("fp32", "dram")
    fp32, bf16 = operators.vector_add(2 ** 24, "fp32"), operators.vector_add(2 ** 24, "bf16")
    assert roof.attainable_gflops(bf16.intensity) == pytest.approx(2 * roof.attainable_gflops(fp32.intensity))


def test_the_textbook_launch_figures():
    bound = pitfalls.launch_bound_at(4096, pitfalls.TEXTBOOK_DRAM_GBPS, pitfalls.TEXTBOOK_LAUNCH_S)
    assert bound["n_bytes"] == 49152
    assert bound["traffic_s"] == pytest.approx(12.288e-9)
    assert round(bound["launch_over_traffic"]) == 326  # "a factor of 325", from 4000/12.3
    assert pitfalls.launch_bound(4096, H200, 1e-6) == pitfalls.launch_bound_at(4096, 4800.0, 1e-6)
    with pytest.raises(ValueError, match="peak_gbps"):
        pitfalls.launch_bound_at(4096, 0, 1e-6)


def test_the_length_at_which_a_launch_stops_dominating():
    n = pitfalls.launch_dominance_elements(4800.0, 4e-6)
    assert n == 1_600_000
    at = pitfalls.launch_bound_at(n, 4800.0, 4e-6)
    below = pitfalls.launch_bound_at(n - 1, 4800.0, 4e-6)
    assert at["launch_over_traffic"] <= 1 < below["launch_over_traffic"]
    assert pitfalls.launch_dominance_elements(4800.0, 4e-6, "bf16") == 2 * n
    with pytest.raises(ValueError):
        pitfalls.launch_dominance_elements(4800.0, 0)


# --- the sustained protocol ---------------------------------------------------------------------

class _Sampler:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("sample")
        return self

    def __exit__(self, *exc):
        return False

    def summary(self):
        return {"sm_clock_mhz_median": 1800, "power_w_median": 690.0}


class _Backend:
    def __init__(self, log):
        self.log = log

    def first_call(self, launch):
        self.log.append("first")
        launch()
        return 0.25

    def clock_sampler(self):
        return _Sampler(self.log)

    def time(self, launch, repeats=None):
        self.log.append(f"time {repeats}")
        launch()
        return Timing((1e-3,) * repeats)


def test_sustained_windows_cover_the_time_asked_and_carry_what_was_sampled():
    log, out, now = [], [], [0.0]

    def clock():
        now[0] += 1.0  # every read of the clock is one second later
        return now[0]

    run = Run(lambda: out.append(1), lambda: None if out else "nothing written", acc.Work(2e9, 0.0), "fake",
              poison=lambda: (log.append("poison"), out.clear()))
    windows = measure_sustained(_Backend(log), "bf16-tensor", "compute", run, 3.0, 5, clock=clock)
    assert log[:3] == ["poison", "first", "poison"]
    assert [w.extra["window"] for w in windows] == [0, 1, 2]
    assert [w.extra["elapsed_s"] for w in windows] == [1.0, 2.0, 3.0]
    assert all(w.extra["sm_clock_mhz_median"] == 1800 and w.timing.repeats == 5 for w in windows)
    assert windows[0].gflops == pytest.approx(2e9 / 1e-3 / 1e9)


def test_sustained_windows_raise_when_the_last_launches_wrote_garbage():
    launches = []
    run = Run(lambda: launches.append(1), lambda: None if len(launches) == 1 else "garbage",
              acc.Work(1.0, 0.0), "flaky")
    with pytest.raises(VerificationError, match="after 1 sustained windows: garbage"):
        measure_sustained(_Backend([]), "bf16-tensor", "compute", run, 0.5, 2, clock=iter(range(10)).__next__)
    with pytest.raises(ValueError, match="must be positive"):
        measure_sustained(_Backend([]), "bf16-tensor", "compute", run, 0, 2)


# --- readings of hand-made runs -----------------------------------------------------------------

def _experiment(name, variants, **extra):
    return Experiment(name, name, "numba", DEVICE, "2026-12-01T13:00:00+00:00", tuple(variants), (), extra)


def _v(name, seconds, flops=0.0, nbytes=0.0, spread=0.01, **extra):
    return Variant(name, flops, nbytes, seconds, spread, 10, True, extra)


LAUNCH = _experiment("launch_empty", [
    _v("e1 events", 24e-6, part="device events", arguments="one float"),
    _v("e1 round trip", 30e-6, part="round trip", arguments="one float"),
    _v("e1 dispatch", 20e-6, part="host dispatch", arguments="one float"),
    _v("e3 events", 55e-6, part="device events", arguments="three arrays"),
    _v("e3 round trip", 60e-6, part="round trip", arguments="three arrays"),
    _v("e3 dispatch", 50e-6, part="host dispatch", arguments="three arrays"),
    _v("add", 56e-6, 4096, 49152, spread=0.48, part="kernel", elements=4096),
    _v("graph", 0.64e-6, part="device", library="CuPy graph")])




def _wrong_ceiling(tensor_s):
    m, n, k = 16384, 16384, 128
    f32, b16 = acc.gemm_work(m, n, k, 4), acc.gemm_work(m, n, k, 2)
    return _experiment("wrong_ceiling", [
        _v("fp32 GEMM", 1.4e-3, f32.n_flops, f32.n_bytes, dtype="fp32"),
        _v("bf16 GEMM", tensor_s, b16.n_flops, b16.n_bytes, dtype="bf16")],
        fp32_gflops=66_000.0, dram_gbps=4_300.0, bf16_tensor_gflops=790_000.0)


def test_the_tensor_gemm_verdict_flips_with_the_ceiling():
    exp = _wrong_ceiling(0.15e-3)  # about 460 TFLOP/s
    rows = pitfall_readings.wrong_ceiling_rows(exp)
    assert [(r["dtype"], r["roof"]) for r in rows] == [("fp32", "fp32 FMA roof"), ("fp32", "bf16 tensor roof"),
                                                         ("bf16", "fp32 FMA roof"), ("bf16", "bf16 tensor roof")]
    wrong, right = rows[2], rows[3]
    assert wrong["side"] == "compute-bound" and right["side"] == "memory-bound"
    assert wrong["fraction"] > 1 > right["fraction"]


def test_sustained_reading_reports_the_drop_and_the_state():
    flops = 2.0 * 8192 ** 3
    variants = [_v("micro cool", flops / 800e12, flops, part="microbenchmark")]
    for i in range(30):
        rate = 800e12 if i < 10 else 700e12
        variants.append(_v(f"sustained, window {i + 1}", flops / rate, flops, part="sustained", elapsed_s=float(i + 1),
                           sm_clock_mhz_median=1980 if i < 10 else 1700, power_w_median=600.0 if i < 10 else 700.0))
    variants.append(_v("micro hot", flops / 720e12, flops, part="microbenchmark"))
    exp = Experiment("sustained", "sustained", "numba", {"name": "fake H200", "before": {"power_limit_w": 700.0}},
                     "2026-12-01T13:00:00+00:00", tuple(variants))
    rows = pitfall_readings.sustained_rows(exp, every_s=10)
    assert rows[0]["label"] == "micro cool" and rows[-1]["label"] == "micro hot"
    assert [r["elapsed_s"] for r in rows[1:-1]] == [1.0, 11.0, 21.0, 30.0]
    assert rows[1]["tflops"] == pytest.approx(800) and rows[-2]["tflops"] == pytest.approx(700)


def test_algorithm_sizes_rows_name_the_winner_per_filter_length():
    exp = _experiment("algorithm_sizes", [
        _v("direct, m = 256", 0.4e-3, 2e9, 1.0, m=256, fraction_of_fp32_peak=0.1),
        _v("FFT, m = 256", 0.3e-3, 1e9, 0.0, m=256),
        _v("direct, m = 4096", 6e-3, 3.2e10, 1.0, m=4096),
        _v("FFT, m = 4096", 0.4e-3, 1e9, 0.0, m=4096)])
    rows = pitfall_readings.algorithm_sizes_rows(exp)
    assert [(r["m"], r["winner"]) for r in rows] == [(256, "FFT"), (4096, "FFT")]
    assert rows[1]["flop_ratio"] == 32 and rows[0]["direct_fraction_of_peak"] == 0.1
    flipped = _experiment("algorithm_sizes", [
        _v("direct, m = 256", 0.2e-3, 2e9, 1.0, m=256), _v("FFT, m = 256", 0.3e-3, 1e9, 0.0, m=256),
        _v("direct, m = 4096", 6e-3, 3.2e10, 1.0, m=4096), _v("FFT, m = 4096", 0.4e-3, 1e9, 0.0, m=4096)])
    assert [r["winner"] for r in pitfall_readings.algorithm_sizes_rows(flipped)] == ["direct", "FFT"]


# --- the recorded file -------------------------------------------------------------------------

def test_the_pitfalls_file_is_read_beside_the_main_run_and_says_when_it_is_missing(tmp_path, monkeypatch):
    main = record.recorded_path()
    (tmp_path / main.name).write_text(main.read_text())
    monkeypatch.setattr(recorded_folder, "DATA_DIR", tmp_path)
    assert "launch_empty" not in record.recorded_experiments()
    with pytest.raises(ValueError, match="not recorded yet"):
        pitfalls.recorded_empty_launch()
    record.save_experiments([LAUNCH], record.pitfalls_path())
    found = record.recorded_experiments()
    assert "launch_empty" in found and "softmax" in found  # the main run is still there
    costs = pitfalls.recorded_empty_launch()
    assert costs["events_s"] == {"one float": 24e-6, "three arrays": 55e-6}
    assert costs["tiny_add_s"] == 56e-6 and costs["tiny_add_spread"] == 0.48 and costs["elements"] == 4096
    assert costs["device_s"] == 0.64e-6 and "fake H200" in costs["source"]
    broken = json.loads(record.pitfalls_path().read_text())
    broken["experiments"][0]["variants"][0]["verified"] = False
    record.pitfalls_path().write_text(json.dumps(broken))
    with pytest.raises(ValueError, match="verified"):
        record.recorded_experiments()


def test_the_new_experiments_are_catalogued_for_notebook_06_and_refuse_the_cpu():
    from rooflinelib import experiments
    for name in ("launch_empty", "wrong_ceiling", "sustained", "algorithm_sizes"):
        assert experiments.CATALOGUE[name][0] == "06"
        with pytest.raises(ValueError, match="not available on the cpu backend"):
            experiments.run(name, "cpu")


# --- the empty kernels, without a GPU ----------------------------------------------------------

SIMULATED = r"""
import numpy as np
from numba import cuda
from rooflinelib.measure.experiment_kernels import empty_kernels
touch, touch_three = empty_kernels()
x = cuda.to_device(np.full(4, np.nan, np.float32))
touch[2, 32](x)
got = x.copy_to_host()
assert got[0] == 1.0 and np.isnan(got[1:]).all(), got
a, b = cuda.to_device(np.full(8, 2.5, np.float32)), cuda.to_device(np.full(8, 0.25, np.float32))
c = cuda.to_device(np.full(8, np.nan, np.float32))
touch_three[2, 32](a, b, c)
got = c.copy_to_host()
assert got[0] == 2.75 and np.isnan(got[1:]).all(), got
print("ok")
"""


def test_empty_kernels_write_only_their_mark_in_the_simulator():
    pytest.importorskip("numba.cuda")
    out = simulated.run(code=SIMULATED)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_empty_kernels_compile_to_sm90_ptx_with_one_store_and_no_loop():
    pytest.importorskip("numba_cuda")
    from numba import cuda
    from rooflinelib.measure.experiment_kernels import empty_kernels
    touch, touch_three = empty_kernels()
    for kernel, signature, loads in ((touch, "void(float32[::1])", 0),
                                     (touch_three, "void(float32[::1], float32[::1], float32[::1])", 2)):
        ptx, _ = cuda.compile_ptx(kernel.py_func, signature, cc=(9, 0))
        lines = [line.strip() for line in ptx.splitlines()]
        assert sum(line.startswith("st.global") for line in lines) == 1
        assert sum(line.startswith("ld.global") for line in lines) == loads
        assert not any("fma" in line for line in lines)


def test_a_notebook_asking_for_an_unrecorded_pitfall_run_is_told_it_is_not_recorded_yet(tmp_path, monkeypatch):
    from rooflinelib import experiments
    from rooflinelib.modes import RunMode
    main = record.recorded_path()
    (tmp_path / main.name).write_text(main.read_text())
    monkeypatch.setattr(recorded_folder, "DATA_DIR", tmp_path)
    mode = RunMode(mode="recorded", backend=None, device="recorded H200 data")
    outcome = experiments.experiment_for(mode, "wrong_ceiling")
    assert outcome.experiment is None and outcome.origin == "none"
    assert "not recorded yet" in outcome.message and "benchmarks/record_pitfalls.sh" in outcome.message
    assert experiments.experiment_for(mode, "softmax").origin == "recorded"
