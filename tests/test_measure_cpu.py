"""The CPU backend, run for real at small sizes, and the measure/sweep commands around it."""
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

from rooflinelib import results  # noqa: E402
from rooflinelib.measure import measure_ceilings, run_sweep  # noqa: E402

CEILING_KEYS = {"name", "kind", "value", "unit", "verified", "spread"}
ROW_KEYS = {"k", "intensity", "gbps", "gflops", "verified"}


@pytest.fixture(scope="module")
def cpu_ceilings():
    return measure_ceilings("cpu", size_mib=4, repeats=2)


@pytest.fixture(scope="module")
def cpu_sweep():
    return run_sweep("cpu", ks=(0, 1, 16, 64), size_mib=4, repeats=2)


def test_cpu_ceilings_are_verified_and_labelled(cpu_ceilings):
    assert cpu_ceilings["scope"] == "cpu" and cpu_ceilings["backend"] == "cpu"
    assert [c["name"] for c in cpu_ceilings["ceilings"]] == ["dram", "fp32", "fp64"]
    for c in cpu_ceilings["ceilings"]:
        assert set(c) == CEILING_KEYS and c["verified"] is True and c["value"] > 0
    assert cpu_ceilings["device"]["name"].startswith("CPU")
    assert any("CPU roofline" in n for n in cpu_ceilings["notes"])
    assert all(v >= 0 for v in cpu_ceilings["jit_seconds"].values())


def test_cpu_sweep_rows(cpu_sweep):
    rows = cpu_sweep["rows"]
    assert [r["k"] for r in rows] == [0, 1, 16, 64]
    for r in rows:
        assert set(r) == ROW_KEYS and r["verified"] is True
        assert r["intensity"] == r["k"] / 4
    assert rows[0]["gflops"] == 0 and all(r["gflops"] > 0 for r in rows[1:])
    assert cpu_sweep["ridge"] == pytest.approx(cpu_sweep["peak_gflops"] / cpu_sweep["peak_gbps"])


def test_cpu_result_becomes_a_measured_machine(cpu_ceilings, tmp_path):
    path = results.save(cpu_ceilings, tmp_path / "cpu.json")
    machine = results.to_machine(path)
    assert machine.kind == "measured" and machine.notes == "CPU roofline"
    assert machine.ridge("fp32", "dram") > 0


def _roofline(*args, env=None):
    return subprocess.run([sys.executable, "-m", "rooflinelib", *args], capture_output=True,
                          text=True, timeout=300, env=env)


def test_measure_json_has_the_issue_shape(tmp_path):
    out = tmp_path / "c.json"
    done = _roofline("measure", "--backend", "cpu", "--size-mib", "2", "--repeats", "2",
                     "--json", "--out", str(out))
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert set(printed) >= {"device", "ceilings"}
    assert all(set(c) == CEILING_KEYS for c in printed["ceilings"])
    assert results.load(out)["ceilings"] == printed["ceilings"]
    assert "[1/3] dram" in done.stderr  # progress goes to stderr


def test_sweep_prints_the_two_tables(tmp_path):
    done = _roofline("sweep", "--backend", "cpu", "--size-mib", "2", "--repeats", "2",
                     "--ks", "0,1,16")
    assert done.returncode == 0, done.stderr
    assert "GFLOP/s" in done.stdout and "ridge = P/B" in done.stdout
    assert "CPU roofline" in done.stdout


def test_sweep_json_has_rows_and_ridge():
    done = _roofline("sweep", "--backend", "cpu", "--size-mib", "2", "--repeats", "2",
                     "--ks", "0,4", "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert all(set(r) == ROW_KEYS for r in printed["rows"]) and printed["ridge"] > 0
    assert done.stderr == ""


def test_auto_without_gpu_says_it_measures_the_cpu():
    from rooflinelib.measure.backends import gpu_available
    if gpu_available():
        pytest.skip("a GPU is present")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    done = _roofline("measure", "--size-mib", "2", "--repeats", "2", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert "No CUDA GPU found" in done.stderr and "CPU roofline" in done.stderr
    assert json.loads(done.stdout)["scope"] == "cpu"


@pytest.mark.parametrize("args,field", [
    (["measure", "--backend", "opencl"], "--backend"),
    (["measure", "--backend", "cpu", "--size-mib", "lots"], "--size-mib"),
    (["measure", "--backend", "cpu", "--size-mib", "-3"], "--size-mib"),
    (["measure", "--backend", "cpu", "--repeats", "2.5"], "--repeats"),
    (["measure", "--backend", "cpu", "--out", "/no/such/dir/x.json"], "--out"),
    (["sweep", "--backend", "cpu", "--ks", "1,2"], "--ks"),
    (["sweep", "--backend", "cpu", "--ks", "0,8,4"], "--ks"),
    (["sweep", "--backend", "cpu", "--ks", "0,__import__('os')"], "--ks"),
    (["plot", "--ceilings", "/no/such/file.json"], "--ceilings"),
])
def test_bad_options_get_one_line(args, field):
    done = _roofline(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0], done.stderr


def test_plot_ceilings_uses_a_stored_result(cpu_ceilings, tmp_path):
    path = results.save(cpu_ceilings, tmp_path / "c.json")
    done = _roofline("plot", "--ceilings", str(path), "--demo-kernels", "--json")
    assert done.returncode == 0, done.stderr
    machine = json.loads(done.stdout)["machine"]
    fp32 = next(c["value"] for c in cpu_ceilings["ceilings"] if c["name"] == "fp32")
    assert machine["peak_gflops"] == pytest.approx(fp32)
