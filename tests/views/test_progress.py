"""The notebooks' progress bar for live measurements: a bar that follows the [n/N] lines."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rooflinelib.views.progress import progress_bar

ROOT = Path(__file__).resolve().parents[2]


def test_bar_follows_the_step_lines_and_fills_when_done():
    pytest.importorskip("ipywidgets")
    shown = []
    bar = progress_bar("Lab 3", display=shown.append)
    assert shown == [] and bar.bar is None  # nothing drawn until a line arrives
    bar("backend: cpu (auto) on CPU: test")
    assert len(shown) == 1 and "roofline-progress" in shown[0]._dom_classes
    bar("[1/4] K=    0  I=   0.00")
    assert (bar.bar.value, bar.bar.max) == (0, 4)
    bar("[3/4] K=   16  I=   4.00")
    assert (bar.bar.value, bar.bar.max) == (2, 4)
    assert "K=   16" in bar.label.value
    bar("  sweep K=16: 10.0 GB/s")  # a detail line moves the text, not the bar
    assert bar.bar.value == 2 and "sweep K=16" in bar.label.value
    bar.done()
    assert bar.bar.value == 4 and bar.bar.bar_style == "success"
    assert len(shown) == 1


@pytest.mark.slow
def test_a_live_cpu_sweep_in_a_notebook_moves_the_bar():
    pytest.importorskip("numba")
    from rooflinelib.modes import detect_mode, sweep_for
    mode = detect_mode("cpu")
    if mode.mode != "cpu":
        pytest.skip(f"no CPU backend: {mode.describe()}")
    shown = []
    bar = progress_bar("Lab 3", display=shown.append)
    loaded = sweep_for(mode, progress=bar, ks=(0, 4), size_mib=2, repeats=2)
    assert loaded.origin == "live", loaded.message
    assert any(line.startswith("[2/2]") for line in bar.lines), bar.lines
    assert bar.bar.value == bar.bar.max == 2 and bar.bar.bar_style == "success"


def test_importing_the_module_loads_no_widgets():
    code = "import sys, rooflinelib.views.progress; print(json.dumps(['ipywidgets' in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", "import json; " + code], capture_output=True,
                          text=True, timeout=60)
    assert json.loads(done.stdout) == [False], done.stderr


@pytest.mark.parametrize("notebook,call", [("03_ceilings.ipynb", "ceilings_for("),
                                           ("04_sweep.ipynb", "sweep_for(")])
def test_the_measuring_notebooks_pass_a_progress_bar(notebook, call):
    cells = json.loads((ROOT / "notebooks" / notebook).read_text())["cells"]
    calls = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"
             and call + "mode" in "".join(c["source"])]
    assert calls and all("progress=progress_bar(" in c for c in calls), calls
