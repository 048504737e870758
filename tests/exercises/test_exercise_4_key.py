"""Exercise 4's key after review 4a: its figure draws the roof each kernel is judged against,
its question matches the kernel shown, its recorded ceilings say why they are not notebook 03's,
and its model answer leads with the two points the key asks for."""
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.store import results

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ex04.prepare("recorded", progress=None)


def _traces(fig, prefix):
    return {t.meta: t for t in fig.data if str(t.meta).startswith(prefix)}


def test_the_figure_draws_each_kernels_own_mix_and_the_copy_ridge():
    # K04-1: the check wants 'ridge' for the FMA kernel (P / C = 15.4); the figure drew only B,
    # the write mix, with its ridge at 14.1, so the kernel at 16 looked clearly compute-bound
    pytest.importorskip("plotly")
    fig = ex04.placement_figure(RECORDED)
    memory = _traces(fig, "mem:")
    assert list(memory) == ["mem:dram-copy", "mem:dram-read"]  # the copy first: its ridge is drawn
    assert memory["mem:dram-copy"].y[-1] / memory["mem:dram-copy"].x[-1] == pytest.approx(RECORDED.copy_gbps)
    ridge = _traces(fig, "ridge:")["ridge:fp32"]
    assert ridge.x[0] == pytest.approx(RECORDED.copy_ridge)
    kernels = _traces(fig, "kernel:")
    # an untimed point sits on its own roof: the reduction on I x R, not I x B
    keys = ex04._keys(RECORDED)
    assert kernels["kernel:reduction"].y[0] == pytest.approx(keys["reduction"]["roof"])
    assert "dram-read" in kernels["kernel:reduction"].hovertext[0]
    assert "dram-copy" in kernels["kernel:fma"].hovertext[0]
    assert "at the ridge" in kernels["kernel:fma"].hovertext[0]


def test_the_figure_falls_back_to_dram_when_no_mix_was_measured():
    pytest.importorskip("plotly")
    bare = replace(RECORDED, dram_read_gbps=None, dram_copy_gbps=None)
    machine, fma_roof, reduction_roof = ex04.mix_machine(bare)
    assert (fma_roof, reduction_roof) == ("dram", "dram") and machine is bare.machine
    fig = ex04.placement_figure(bare)
    assert list(_traces(fig, "mem:")) == ["mem:dram"]
    assert _traces(fig, "ridge:")["ridge:fp32"].x[0] == pytest.approx(bare.ridge)


def test_a_chart_judges_a_kernel_by_the_memory_roof_it_names_when_drawn():
    from rooflinelib.core.model import Ceiling, Roofline
    from rooflinelib.views.plotting import own_roofline

    class Point:
        memory_ceiling = "dram-read"

    read = Ceiling("dram-read", "memory", 90.0)
    primary = Roofline(1000.0, 100.0, compute_name="fp32", memory_name="dram")
    judged = own_roofline(Point(), [], primary, [Ceiling("dram", "memory", 100.0), read])
    assert (judged.peak_gbps, judged.memory_name, judged.peak_gflops) == (90.0, "dram-read", 1000.0)
    assert own_roofline(Point(), [], primary) is primary  # not drawn: the chart's primary
    assert own_roofline(object(), [], primary, [read]) is primary


def _question(path):
    cells = nbformat.read(str(ROOT / path), as_version=4).cells
    return next(c.source for c in cells if c.cell_type == "markdown" and "## Part A" in c.source)


@pytest.mark.parametrize("path", ["solutions/04_place_your_kernel.ipynb", "exercises/04_place_your_kernel.ipynb"])
def test_the_question_does_not_contradict_the_float64_scalar_the_kernel_writes(path):
    # K04-2: the kernel shown accumulates in float64 and adds a float64 partial into out
    question = " ".join(_question(path).split())
    assert "float32-sized scalar" not in question
    assert "float64 partial sums" in question and "any small constant for it passes" not in question
    # review 17b: the 2% tolerance is what admits the scalar's bytes, and the text says how much
    assert "4n plus the scalar's few bytes (the check allows 2%, 328 bytes at its smallest test size, n = 4,096)" in question
    assert 0.02 * 4 * ex04.SAMPLES[0]["n"] == 327.68
    assert "float64" in ex04.kernel_sources(RECORDED)
    # ... and the key does accept the 8 bytes the kernel really writes
    right = (lambda n: n, lambda n: 4 * n + 8, lambda n: 128 * n, lambda n: 8 * n)
    assert ex04.check_accounting(*right).passed


def test_the_recorded_setup_says_why_its_ceilings_are_not_notebook_03s():
    # K04-3: a second set of "the H200's" ceilings, with a word on why and how far apart
    lab1 = results.recorded("ceilings")
    theirs = {c["name"]: c["value"] for c in lab1["ceilings"]}
    mixes = results.dram_mixes(lab1)
    rec = ex04.RECORDED_H200
    gap = max(abs(rec["ceilings"]["fp32"]["value"] / theirs["fp32"] - 1),
              abs(rec["ceilings"]["dram"]["value"] / theirs["dram"] - 1),
              abs(rec["dram_read_gbps"] / mixes["read"] - 1),
              abs(rec["dram_copy_gbps"] / mixes["copy"] - 1))
    assert ex04.against_notebook_03() == pytest.approx(gap)
    assert 0 < gap < 0.01
    note = next(n for n in RECORDED.notes if n.startswith("A Lab 1 session of its own, recorded with the two kernels"))
    assert f"within {gap:.1%} of notebook 03's" in note and len(note) <= 200  # a table cell's width
    stored = nbformat.read(str(ROOT / "solutions/04_place_your_kernel.ipynb"), as_version=4).cells
    printed = "".join(o.get("text", "") for c in stored if c.cell_type == "code" for o in c.get("outputs", []))
    assert "A Lab 1 session of its own" in printed


def test_the_model_answer_leads_with_the_two_key_points():
    # K04-4: the ridge moves with the mix, and each kernel is scored on its own mix, first; the
    # CPU, the datasheet and the float64 adds follow as "also"
    # (since review 5a C16 the asides are the reveal's own "Also:" list, not a tail of the answer)
    shown = ex04.model_verdict(RECORDED, "the ridge moves between machines and the kernel does not")
    # review 51: the direct answer to Part C's question (datasheet against loaded ceilings) opens it,
    # the two key points right after
    head, also = shown.model_answer, " ".join(shown.also)
    assert head.startswith("No, a different verdict: against the H200's datasheet ridge")
    assert head.split(". ", 1)[1].startswith("Two points decide both verdicts:")
    for point in ("each kernel meets the DRAM roof of its own access mix", "P / C = 15.4", "of 4,507 GB/s"):
        assert point in head, point
    for aside in ("ROOFLINE_MODE=cpu", "float64", "no counter here measured the overlap"):
        assert aside in also and aside not in head, aside


# --- review 7b, K4-1: the side of P / C is graded within the copy ceiling's spread, not B's ----

def test_each_ridge_is_known_to_its_own_mix_spread_and_the_recording_borrows_none():
    # The recording keeps no spread for its read and copy ceilings: their ridges take fp32's
    # (0) at the floor, not the write's 1.3%, and the loaded-setup table says so.
    assert RECORDED.dram_copy_spread is None and RECORDED.dram_read_spread is None
    assert RECORDED.ridge_spread == pytest.approx(0.013)
    assert RECORDED.copy_ridge_spread == RECORDED.read_ridge_spread == ex04.RIDGE_SPREAD_FLOOR
    assert "(spread not recorded: P / C taken as known to 1%)" in str(RECORDED)
    # a live Lab 1 keeps each mix's IQR: the copy's goes into P / C, the read's into P / R
    wide = replace(RECORDED, dram_copy_spread=0.05, dram_read_spread=0.02)
    assert wide.copy_ridge_spread == pytest.approx(0.05) and wide.read_ridge_spread == pytest.approx(0.02)
    assert wide.ridge_spread == pytest.approx(0.013) and "spread not recorded" not in str(wide)
    # no copy mix: the FMA kernel's ridge is P / B, with B's spread
    assert replace(RECORDED, dram_copy_gbps=None).copy_ridge_spread == pytest.approx(0.013)
    lab1 = results.recorded("ceilings")
    rows = {c["name"]: c for c in lab1["ceilings"]}
    assert ex04._mix_spreads(lab1) == {"read": rows["dram-read"]["iqr"], "copy": rows["dram-copy"]["iqr"]}


def test_the_fma_side_is_graded_with_the_copy_spread():
    # Put P / C 4% below the band's edge for I = 16: only a 5% copy spread admits both sides.
    from rooflinelib.exercises.grading import NOT_ANSWERED
    fma = ex04._keys(RECORDED)["fma"]
    edge_copy = RECORDED.peak_gflops / (fma["intensity"] / 1.1 / 1.04)
    narrow = replace(RECORDED, dram_copy_gbps=edge_copy, dram_copy_spread=0.0)
    wide = replace(narrow, dram_copy_spread=0.05)
    for setup, passes in ((narrow, {"compute"}), (wide, {"compute", "ridge"})):
        got = {side for side in ("memory", "compute", "ridge")
               if ex04.check_placement(setup, *([NOT_ANSWERED] * 8), side, NOT_ANSWERED).checks[8].status == "pass"}
        assert got == passes, (setup.copy_ridge_spread, got)
