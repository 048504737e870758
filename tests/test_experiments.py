"""The notebooks' experiments: CPU runs for real at small sizes, GPU kernels in the simulator,
the trap kernels as PTX, result files round-trip, and the mode-aware entry point falls back."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rooflinelib import experiments, operators
from rooflinelib.experiments import record
from rooflinelib.modes import RunMode

pytest.importorskip("numba")
ROOT = Path(__file__).resolve().parents[1]


def test_chains_climb_with_independent_work():
    e = experiments.run("chains", "cpu", widths=(1, 64), target_s=0.01, repeats=3)
    one, many = e.variant("1 chain"), e.variant("64 chains")
    assert one.n_flops > 0 and many.extra["chains"] == 64
    assert many.gflops > 2 * one.gflops  # latency against throughput: a wide margin on any CPU


def test_softmax_counts_come_from_the_catalogue():
    e = experiments.run("softmax", "cpu", size_mib=1, cols=256, repeats=2)
    three, fused = e.variant("3-pass"), e.variant("fused")
    n = three.extra["rows"] * three.extra["cols"]
    assert three.n_bytes == operators.softmax(n, fused=False).n_bytes == 20 * n
    assert fused.n_bytes == 8 * n and fused.n_flops == three.n_flops == 5 * n
    assert e.extra["predicted_speedup"] == pytest.approx(2.5)
    assert e.extra["copy_gbps"] > 0 and e.extra["exp_per_s"] > 0


def test_transpose_ladder_is_verified_and_scored_by_bytes():
    e = experiments.run("transpose", "cpu", n=256, repeats=2)
    assert [v.name for v in e.variants] == ["copy", "naive", "tiled", "tiled + padded"]
    assert all(v.n_flops == 0 and v.n_bytes == 8 * 256 * 256 for v in e.variants)


def test_launch_starved_overlap_cache_strided_clocks_run():
    launch = experiments.run("launch", "cpu", large_mib=1, repeats=3)
    assert launch.variants[0].n_bytes == operators.vector_add(4096).n_bytes
    starved = experiments.run("starved", "cpu", size_mib=1, repeats=2)
    assert starved.variants[0].extra["chunks"] == 1
    overlap = experiments.run("overlap", "cpu", size_mib=2, repeats=2)
    assert [v.name for v in overlap.variants][2:] == ["one after the other", "overlapped (sweep kernel)"]
    assert overlap.variants[2].n_flops == overlap.variants[1].n_flops
    cache = experiments.run("cache", "cpu", small_kib=32, large_mib=2, repeats=2)
    assert cache.variants[0].n_bytes == cache.variants[1].n_bytes
    strided = experiments.run("strided", "cpu", size_mib=2, strides=(1, 4), repeats=2)
    assert strided.variants[1].n_bytes == pytest.approx(strided.variants[0].n_bytes / 4, rel=0.01)
    clocks = experiments.run("clocks", "cpu", runs=2, target_s=0.005)
    assert len(clocks.variants) == 2


def test_transcendental_and_algorithm():
    t = experiments.run("transcendental", "cpu", target_s=0.01, repeats=2)
    assert t.variant("exp").gflops < t.variant("FMA").gflops
    a = experiments.run("algorithm", "cpu", n=2 ** 12, m=2 ** 8, repeats=2)
    direct = a.variant("direct O(n m)")
    assert direct.n_flops == 2 * 2 ** 12 * 2 ** 8
    assert 0 < direct.extra["fraction_of_fp32_peak"]


def test_unknown_experiment_and_backend():
    with pytest.raises(ValueError, match="^experiment: unknown 'nope'"):
        experiments.run("nope")
    with pytest.raises(ValueError, match="^backend: must be 'cpu' or 'numba'"):
        experiments.run("chains", "opencl")
    with pytest.raises(ValueError, match="not available on the cpu backend"):
        experiments.run("traps", "cpu")


# --- result files ----------------------------------------------------------------------------

def _experiment():
    return record.Experiment("softmax", "t", "numba", {"name": "NVIDIA H200"}, "2026-11-30T00:00:00+00:00",
                             (record.Variant("3-pass", 5.0, 20.0, 2.0, 0.01, 20),
                              record.Variant("fused", 5.0, 8.0, 0.8, 0.01, 20)),
                             ("a note",), {"predicted_speedup": 2.5})


def test_result_file_round_trips(tmp_path):
    path = record.save_experiments([_experiment()], tmp_path / "e.json")
    loaded = record.load_experiments(path)["softmax"]
    assert loaded.ratio("3-pass", "fused") == pytest.approx(2.5)
    assert loaded.variant("fused").gbps == pytest.approx(8.0 / 0.8 / 1e9)
    assert loaded.extra == {"predicted_speedup": 2.5}


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(version=2), "version: must be 1"),
    (lambda d: d.update(format="other"), "format: not a rooflinelib-experiments file"),
    (lambda d: d["experiments"][0]["variants"][0].update(verified=False), "verified: must be true"),
    (lambda d: d["experiments"][0]["variants"][0].update(median_s=0), "median_s: must be positive"),
    (lambda d: d["experiments"][0].pop("device"), "softmax.device.name: missing"),
])
def test_bad_result_files_are_refused_in_one_line(tmp_path, mutate, message):
    path = record.save_experiments([_experiment()], tmp_path / "e.json")
    data = json.loads(path.read_text())
    mutate(data)
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError) as info:
        record.load_experiments(path)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_truncated_file_is_refused(tmp_path):
    path = record.save_experiments([_experiment()], tmp_path / "e.json")
    path.write_text(path.read_text()[:50])
    with pytest.raises(ValueError, match="not valid JSON"):
        record.load_experiments(path)


# --- what the notebooks call -----------------------------------------------------------------

def test_recorded_mode_without_data_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr(record, "DATA_DIR", tmp_path)
    outcome = experiments.experiment_for(RunMode("recorded", None, "recorded"), "softmax")
    assert outcome.experiment is None and outcome.origin == "none"
    assert "no recorded experiments" in outcome.message


def test_recorded_mode_loads_shipped_runs(monkeypatch, tmp_path):
    monkeypatch.setattr(record, "DATA_DIR", tmp_path)
    record.save_experiments([_experiment()], record.recorded_path())
    outcome = experiments.experiment_for(RunMode("recorded", None, "recorded"), "softmax")
    assert outcome.origin == "recorded" and "NVIDIA H200 on 2026-11-30" in outcome.message
    missing = experiments.experiment_for(RunMode("recorded", None, "recorded"), "transpose")
    assert missing.origin == "none" and "no 'transpose' experiment" in missing.message


def test_cpu_mode_measures_live():
    outcome = experiments.experiment_for(RunMode("cpu", "numba-cpu", "CPU"), "transpose",
                                         cpu={"n": 128, "repeats": 2})
    assert outcome.origin == "live" and "a CPU, not a GPU" in outcome.message


def test_gpu_only_experiment_on_a_cpu_falls_back(monkeypatch, tmp_path):
    monkeypatch.setattr(record, "DATA_DIR", tmp_path)
    outcome = experiments.experiment_for(RunMode("cpu", "numba-cpu", "CPU"), "traps")
    assert outcome.origin == "none" and "not available on the cpu backend" in outcome.message


# --- GPU kernels without a GPU ---------------------------------------------------------------

def test_trap_kernels_show_float64_promotion_in_ptx():
    from rooflinelib.experiments import traps
    ok, reason = traps.cuda_toolkit_available()
    if not ok:
        pytest.skip(reason)
    promoted, typed = traps.ptx_summary("promoted"), traps.ptx_summary("typed")
    fmas = traps.CHAINS * traps.UNROLL
    assert (promoted["fma.rn.f64"], promoted["fma.rn.f32"]) == (fmas, 0)
    assert (typed["fma.rn.f32"], typed["fma.rn.f64"]) == (fmas, 0)
    assert traps.ptx_summary("range")["fma.rn.f32"] == fmas


def test_sass_histogram_parses_disassembly():
    from rooflinelib.experiments import traps
    sass = ("        /*0070*/                   FFMA R5, R5, c[0x0][0x168], R2 ;\n"
            "        /*0080*/              @!P0 IADD3 R4, R4, 0x1, RZ ;\n"
            "        /*0090*/                   ISETP.GE.AND P0, PT, R4, c[0x0][0x170], PT ;\n")
    assert traps.sass_summary(sass) == {"FFMA": 1, "DFMA": 0, "F2F (conversions)": 0,
                                        "IADD3": 1, "ISETP": 1, "SEL": 0}


SIMULATED = r"""
import numpy as np
from numba import cuda
from rooflinelib.experiments import gpu
rows, cols, threads = 3, 64, 16
x = ((np.arange(rows * cols) * 7 % 11) / 4).reshape(rows, cols).astype(np.float32)
ref = np.exp(x - x.max(1, keepdims=True)); ref /= ref.sum(1, keepdims=True)
rm, es, nm, fu = gpu.softmax_kernels(cols, threads)
dx = cuda.to_device(x)
sc, y3, yf = (cuda.device_array((rows, cols), np.float32) for _ in range(3))
mx, sm = cuda.device_array(rows, np.float32), cuda.device_array(rows, np.float32)
rm[rows, threads](dx, mx); es[rows, threads](dx, mx, sc, sm); nm[rows, threads](sc, sm, y3)
fu[rows, threads](dx, yf)
assert np.max(np.abs(y3.copy_to_host() - ref) / ref) < 1e-5
assert np.max(np.abs(yf.copy_to_host() - ref) / ref) < 1e-5
n = 64
a = np.arange(n * n, dtype=np.float32).reshape(n, n)
for kernel in gpu.transpose_kernels():
    out = cuda.device_array((n, n), np.float32)
    kernel[(n // 32, n // 32), (32, 8)](cuda.to_device(a), out)
    assert np.array_equal(out.copy_to_host(), a.T)
b = np.arange(100, dtype=np.float32)
c = cuda.device_array(100, np.float32)
gpu.vector_add_kernel()[2, 16](cuda.to_device(b), cuda.to_device(b), c)
assert np.array_equal(c.copy_to_host(), 2 * b)
y = cuda.device_array(100, np.float32)
gpu.grid_stride_sweep(3)[2, 16](cuda.to_device(b + 1), y, np.float32(1), np.float32(0))
assert np.array_equal(y.copy_to_host(), b + 1)
s = (np.arange(256) % 5).astype(np.float32)
out = cuda.device_array(32, np.float32)
gpu.strided_sum_kernel()[2, 16](cuda.to_device(s), np.int64(3), out)
assert out.copy_to_host().sum() == s[: (256 // 3) * 3: 3].sum()
print("ok")
"""


def test_gpu_kernels_in_the_simulator():
    pytest.importorskip("numba.cuda")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    out = subprocess.run([sys.executable, "-c", SIMULATED], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=600)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
