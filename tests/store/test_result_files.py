"""Results stored where the notebooks look, --out/--no-save/--csv, CSV read back by
``roofline plot --ceilings``, and the labs started with a Python that lacks numba."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rooflinelib import modes
from rooflinelib.store import lab_files, results
from rooflinelib.store.results import ResultError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def results_dir(tmp_path, monkeypatch):
    folder = tmp_path / "stored"
    monkeypatch.setenv(lab_files.RESULTS_DIR_ENV, str(folder))
    return folder


def test_default_place_is_the_checkouts_results_folder_unless_told(monkeypatch, tmp_path):
    monkeypatch.delenv(lab_files.RESULTS_DIR_ENV, raising=False)
    assert lab_files.results_dir() == ROOT / "results"
    monkeypatch.setenv(lab_files.RESULTS_DIR_ENV, str(tmp_path))
    assert lab_files.default_path("sweep", "cupy") == tmp_path / "sweep_cupy.json"
    with pytest.raises(ResultError, match="backend: must be one of"):
        lab_files.default_path("ceilings", "auto")


def test_ceilings_csv_has_the_columns_and_reads_back():
    result = results.recorded("ceilings", "numba")
    text = lab_files.to_csv(result)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == lab_files.CEILING_COLUMNS
    assert [r["name"] for r in rows] == [c["name"] for c in result["ceilings"]]
    assert {r["verified"] for r in rows} == {"true"}


def test_csv_round_trips_to_the_same_ceilings(tmp_path):
    for kind in ("ceilings", "sweep"):
        result = results.recorded(kind, "numba")
        path = lab_files.write_csv(result, tmp_path / f"{kind}.csv")
        from_csv = lab_files.machine_from_csv(path)
        from_json = results.to_machine(result)
        assert {c.name: c.value for c in from_csv.ceilings} == \
            {c.name: c.value for c in from_json.ceilings}, kind
        assert {c.name: c.kind for c in from_csv.ceilings} == \
            {c.name: c.kind for c in from_json.ceilings}, kind
    header = (tmp_path / "sweep.csv").read_text().splitlines()[0]
    assert header == "k,intensity,gbps,gflops,verified"


@pytest.mark.parametrize("body,where", [
    ("", "file: empty"),
    ("name,kind,value\n", "header: expected"),
    ("name,kind,value,unit,verified,spread\n", "rows: the file has a header and no rows"),
    ("name,kind,value,unit,verified,spread\ndram,memory,lots,GB/s,true,0.01\n", "row 2: value: must be a number"),
    ("name,kind,value,unit,verified,spread\nwarp,memory,1,GB/s,true,0.01\n", "row 2: name: unknown ceiling"),
    ("name,kind,value,unit,verified,spread\ndram,compute,1,GB/s,true,0.01\n", "row 2: kind: dram is a memory ceiling"),
    ("name,kind,value,unit,verified,spread\ndram,memory,1,GFLOP/s,true,0.01\n", "row 2: unit: must be 'GB/s'"),
    ("name,kind,value,unit,verified,spread\ndram,memory,1,GB/s,yes,0.01\n", "row 2: verified: must be true or false"),
    ("name,kind,value,unit,verified,spread\ndram,memory,inf,GB/s,true,0.01\n", "row 2: value: must be a finite number"),
    ("name,kind,value,unit,verified,spread\ndram,memory,1,GB/s,true\n", "row 2: has 5 cells"),
    ("name,kind,value,unit,verified,spread\ndram,memory,1,GB/s,true,0\ndram,memory,2,GB/s,true,0\n",
     "name: dram appears twice"),
    ("k,intensity,gbps,gflops,verified\n0,0,10,0,true\n4,1,10,20,true\n2,0.5,10,5,true\n", "row 4: k: rows must be in increasing k"),
    ("k,intensity,gbps,gflops,verified\n0,0,10,0,true\n4,3,10,20,true\n", "row 3: intensity: must be k/4"),
    ("k,intensity,gbps,gflops,verified\n0,0,10,0,true\n1.5,0.375,10,20,true\n", "row 3: k: must be a whole number"),
])
def test_bad_csv_is_one_line_naming_row_and_column(tmp_path, body, where):
    path = tmp_path / "bad.csv"
    path.write_text(body)
    with pytest.raises(ResultError) as info:
        lab_files.machine_from_csv(path)
    message = str(info.value)
    assert where in message and str(path) in message and "\n" not in message, message


def _roofline(*args, env):
    return subprocess.run([sys.executable, "-m", "rooflinelib", *args], capture_output=True,
                          text=True, timeout=300, env=env, cwd=ROOT)


def test_plot_ceilings_accepts_the_csv_back(tmp_path):
    env = dict(os.environ)
    path = lab_files.write_csv(results.recorded("ceilings", "numba"), tmp_path / "c.csv")
    done = _roofline("plot", "--ceilings", str(path), "--demo-kernels", "--json", env=env)
    assert done.returncode == 0, done.stderr
    machine = json.loads(done.stdout)["machine"]
    fp32 = next(c for c in results.recorded("ceilings", "numba")["ceilings"] if c["name"] == "fp32")
    assert machine["peak_gflops"] == pytest.approx(fp32["value"])
    bad = tmp_path / "bad.csv"
    bad.write_text("name,kind,value,unit,verified,spread\ndram,memory,-1,GB/s,true,0\n")
    done = _roofline("plot", "--ceilings", str(bad), "--demo-kernels", env=env)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--ceilings" in lines[0] and "row 2: value" in lines[0], done.stderr


def test_out_and_no_save_exclude_each_other(tmp_path):
    done = _roofline("measure", "--backend", "cpu", "--out", str(tmp_path / "x.json"), "--no-save",
                     env=dict(os.environ))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--no-save" in lines[0] and "--out" in lines[0], done.stderr


def test_bad_csv_target_is_refused_before_measuring(tmp_path):
    done = _roofline("sweep", "--backend", "cpu", "--csv", str(tmp_path / "no" / "x.csv"),
                     env=dict(os.environ))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("roofline: error: --csv: folder"), done.stderr


@pytest.mark.slow
def test_measure_stores_by_default_where_the_notebooks_look(results_dir, tmp_path, monkeypatch):
    pytest.importorskip("numba")
    env = dict(os.environ)
    done = _roofline("measure", "--backend", "cpu", "--size-mib", "2", "--repeats", "2",
                     "--csv", str(tmp_path / "c.csv"), env=env)
    assert done.returncode == 0, done.stderr
    stored = results_dir / "ceilings_cpu.json"
    assert f"wrote {stored}" in done.stderr, done.stderr
    assert f"wrote {tmp_path / 'c.csv'}" in done.stderr
    result = results.load(stored)  # validated
    kind, rows = lab_files.read_csv(tmp_path / "c.csv")
    assert kind == "ceilings" and [r["name"] for r in rows] == [c["name"] for c in result["ceilings"]]
    assert [r["value"] for r in rows] == [c["value"] for c in result["ceilings"]]
    # the notebooks' loader finds it, unless the recorded runs are asked for by name
    monkeypatch.delenv(modes.ENV_VAR, raising=False)
    loaded = modes.load_ceilings(backend="cpu")
    # the message shows the path as a student reads it (relative when short), wherever the run is
    assert loaded.origin == "file" and modes.shown_path(stored) in loaded.message
    assert loaded.machine.ceiling("dram").value == next(c["value"] for c in result["ceilings"] if c["name"] == "dram")
    monkeypatch.setenv(modes.ENV_VAR, "recorded")
    assert modes.load_ceilings(backend="cpu").origin != "file"


@pytest.mark.slow
def test_sweep_no_save_stores_nothing_and_lab3_uses_the_course_python(results_dir, tmp_path):
    pytest.importorskip("numba")
    env = dict(os.environ)
    env.pop("ROOFLINE_LAB_REEXEC", None)
    # -S: no site-packages, so this Python lacks numba as a system python3 does; the lab must
    # re-run itself with the course's .venv Python (the one running this test).
    venv_python = ROOT / ".venv" / "bin" / "python"
    if Path(sys.executable) != venv_python:
        pytest.skip("the course's .venv is not the Python running the tests")
    base = getattr(sys, "_base_executable", None) or "python3"
    done = subprocess.run([base, "-S", str(ROOT / "labs" / "lab3_sweep.py"), "--backend", "cpu",
                           "--size-mib", "2", "--repeats", "2", "--ks", "0,4", "--no-save",
                           "--csv", str(tmp_path / "s.csv")],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ridge = P/B" in done.stdout
    assert not results_dir.exists() or not any(results_dir.iterdir())
    kind, rows = lab_files.read_csv(tmp_path / "s.csv")
    assert kind == "sweep" and [r["k"] for r in rows] == [0, 4]


def test_lab_without_a_course_env_says_what_to_run(tmp_path, capsys):
    sys.path.insert(0, str(ROOT))
    try:
        from labs._lab_common import use_course_env
    finally:
        sys.path.remove(str(ROOT))
    with pytest.raises(SystemExit) as info:
        use_course_env(ROOT / "labs" / "lab1_ceilings.py", [], needs=("no_such_module_x",),
                       root=tmp_path)
    message = str(info.value.code)
    assert "cannot import no_such_module_x" in message and "course.py install" in message
    assert "\n" not in message
    use_course_env(ROOT / "labs" / "lab1_ceilings.py", [], needs=("json",), root=tmp_path)
