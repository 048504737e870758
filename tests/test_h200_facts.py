"""docs/h200-facts.md quotes the recorded H200 runs that ship with the course: its figures must be
the shipped files' figures, and every file, notebook section and library name it points to must
exist.  (It once quoted an older Lab 1 run, 66.1 TFLOP/s at 98.8%, after the files had moved on,
and pointed to a primer notebook 03 no longer had.)"""
import importlib
import json
import re
from pathlib import Path

import pytest

from rooflinelib.store import results
from rooflinelib.experiments.record import recorded_experiments

ROOT = Path(__file__).resolve().parents[1]
FACTS = ROOT / "docs" / "h200-facts.md"


@pytest.fixture(scope="module")
def text():
    return FACTS.read_text(encoding="utf-8")


def _ceilings(backend="numba"):
    run = results.recorded("ceilings", backend)
    values = {c["name"]: c["value"] for c in run["ceilings"]}
    details = {d["name"]: d for d in run["details"]}
    return run, values, details


def test_lab1_figures_are_the_shipped_run(text):
    run, values, details = _ceilings()
    created = run["created"]  # e.g. 2026-12-01T23:41:42+00:00
    stamp = f"{created[:10]} {created[11:16]} UTC"
    wanted = [
        f"read {values['dram-read']:,.0f} GB/s",
        f"write {values['dram-write']:,.0f} GB/s",
        f"copy (read + write) {values['dram-copy']:,.0f} GB/s",
        f"{values['dram'] / 4800:.0%} of the datasheet's 4.8 TB/s",
        f"(the copy {values['dram-copy'] / 4800:.0%})",
        f"fp32 FMA {values['fp32']:,.0f} GFLOP/s ({values['fp32'] / 1000:.1f} TFLOP/s)",
        f"{details['fp32']['fraction_of_theoretical']:.1%} of the theoretical "
        f"{details['fp32']['theoretical_gflops'] / 1000:.1f} TFLOP/s at the "
        f"{details['fp32']['sm_clock_mhz_during']:,.0f} MHz",
        f"L2 ceiling {values['l2'] / 1000:.2f} TB/s",
        f"{values['fp32-matrix']:,.0f} GFLOP/s ({values['fp32-matrix'] / 1000:.1f} TFLOP/s)",
        f"{values['bf16-tensor']:,.0f} GFLOP/s ({values['bf16-tensor'] / 1000:.0f} TFLOP/s)",
        f"`h200_ceilings_numba.json`, {stamp}",
    ]
    missing = [w for w in wanted if w not in text]
    assert not missing, f"docs/h200-facts.md does not quote the shipped Lab 1 run: {missing}"
    # the dram roof the ridge uses is the fastest mix, and the page names which one
    assert details["dram"]["mix_ceiling"] == "dram-write" and "(the write)" in text


def test_cupy_run_agrees_as_the_page_says(text):
    claim = re.search(r"agrees within ([\d.]+)% on every row here", text)
    assert claim, "the page no longer says how close the CuPy run is"
    _, numba, _ = _ceilings("numba")
    _, cupy, _ = _ceilings("cupy")
    rows = ["dram-read", "dram-write", "dram-copy", "dram", "fp32", "l2", "fp32-matrix", "bf16-tensor"]
    worst = max(abs(cupy[r] / numba[r] - 1) for r in rows)
    assert worst <= float(claim.group(1)) / 100, worst


def test_strided_and_chains_figures_are_the_shipped_experiments(text):
    experiments = recorded_experiments()
    strided = {v.extra["stride"]: v.n_bytes / v.median_s / 1e9
               for v in experiments["strided"].variants}
    base = strided[1]
    assert (f"({strided[8] / base:.1%} at 8, {strided[16] / base:.1%} at 16: "
            f"{strided[8]:.1f} and {strided[16]:.1f} of stride 1's {base:,.0f} GB/s)") in text
    chains = {(v.extra["chains"], v.extra["warps_per_scheduler"], v.extra["trap"]):
              v.n_flops / v.median_s / 1e12 for v in experiments["chains"].variants}
    assert f"one chain issues a dependent FFMA every ~4 cycles: {chains[1, 1, False]:.1f} TFLOP/s" in text
    assert f"1 chain {chains[1, 16, False]:.1f} TFLOP/s (0.50), 2 chains {chains[2, 16, False]:.1f}" in text
    assert f"{chains[1, 16, True]:.1f} TFLOP/s, from code generation" in text


def test_pointers_resolve(text):
    """Every path, link and library name the page gives exists, and a notebook's primer it
    points to is a section of that notebook."""
    for link in re.findall(r"\]\(([^)#]+)", text):
        assert (FACTS.parent / link).exists(), link
    for path in re.findall(r"`((?:docs|benchmarks|labs|rooflinelib)/[^`]+)`", text):
        assert (ROOT / path).exists(), path
    for name in re.findall(r"`(h200_[a-z0-9_]+\.json)`", text):
        assert (ROOT / "rooflinelib" / "data" / name).exists(), name
    for module, attribute in re.findall(r"`(machines|pitfalls|triage|interconnect|kernels_numba)"
                                        r"\.(\w+)", text):
        package = {"kernels_numba": "measure", "machines": "core", "interconnect": "core",
                   "pitfalls": "lessons", "triage": "lessons"}[module]
        assert hasattr(importlib.import_module(f"rooflinelib.{package}.{module}"), attribute), (module, attribute)
    primers = re.findall(r"notebook (\d\d)'s primer", text)
    assert primers
    for number in primers:
        notebook, = (ROOT / "notebooks").glob(f"{number}_*.ipynb")
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        assert re.search(r"^#+ Primer", markdown, re.M), f"notebook {number} has no primer"
    assert "notebook 03's traps" not in text and "notebook 03's four trap kernels" not in text
