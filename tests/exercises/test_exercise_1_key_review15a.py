"""Exercise 1's key after review 15a: a student who draws the two coinciding 80 FLOP/byte
predictions as one point is told to draw the missing fourth point, not sent back and forth
between the two bandwidth roofs (case 1); the notebook says which ridge the chart marks (case 2);
the hint for a missing 2 TB/s ceiling reads as a sentence (case 4)."""
from pathlib import Path

import nbformat
import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01

ROOT = Path(__file__).resolve().parents[2]
CEILINGS = [("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000), ("fp32", "compute", 120_000)]


def _figure(ceilings, points):
    """``points``: (intensity, GFLOP/s, memory_ceiling) triples."""
    pytest.importorskip("plotly")
    from rooflinelib.core.model import Ceiling, Machine
    from rooflinelib.core.placement import KernelPoint
    from rooflinelib.views.plotting import roofline_figure

    machine = Machine("m", ceilings=tuple(Ceiling(*c) for c in ceilings))
    return roofline_figure(machine, [KernelPoint(f"k{i}", x, 1, rate, memory_ceiling=m)
                                     for i, (x, rate, m) in enumerate(points)])


TWENTY = [(20, 60e3, None), (20, 40e3, "dram-2tbs")]


@pytest.mark.parametrize("drawn_on, missing, other", [(None, "2 TB/s", "3 TB/s"),
                                                      ("dram-2tbs", "3 TB/s", "2 TB/s")])
def test_one_point_for_the_two_coinciding_predictions_names_the_missing_fourth_point(drawn_on, missing, other):
    # The old key said "give it memory_ceiling='dram-2tbs'" for the one 80 FLOP/byte point, and
    # once that was done, "give it memory_ceiling='dram'": a loop that never named the fix.
    check = ex01.check_figure(_figure(CEILINGS, TWENTY + [(80, 120e3, drawn_on)]))
    assert check.status == "fail"
    assert f"no point for 80 FLOP/byte at {missing}: it coincides with the one at {other}" in check.message
    assert "fourth point" in check.message and "is judged against" not in check.message
    target = "'dram'" if missing == "3 TB/s" else "'dram-2tbs'"
    assert f"judged against your {missing} roof (memory_ceiling={target}" in check.message


def test_two_points_on_one_roof_still_get_the_wrong_roof_hint():
    # with both 80 FLOP/byte points drawn, one of them on the wrong roof, re-judging it is the fix
    check = ex01.check_figure(_figure(CEILINGS, TWENTY + [(80, 120e3, None), (80, 120e3, None)]))
    assert check.message == ("the point for 80 FLOP/byte at 2 TB/s is judged against your 3 TB/s roof "
                             "('dram'), the one a point without memory_ceiling gets: give it "
                             "memory_ceiling='dram-2tbs', your 2 TB/s ceiling")
    fixed = ex01.check_figure(_figure(CEILINGS, TWENTY + [(80, 120e3, None), (80, 120e3, "dram-2tbs")]))
    assert fixed.passed, fixed


def test_the_hint_for_a_missing_2tbs_ceiling_reads_as_a_sentence():
    check = ex01.check_figure(_figure([("dram", "memory", 3_000), ("fp32", "compute", 120_000)],
                                      [(20, 60e3, None), (20, 40e3, None), (80, 120e3, None), (80, 120e3, None)]))
    assert "no memory roof at 2 TB/s" in check.message
    assert "memory_ceiling=," not in check.message
    assert "give each a memory_ceiling that names your 2 TB/s ceiling" in check.message


@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_the_notebook_says_the_chart_marks_the_default_ceilings_ridge(folder):
    # roofline_figure marks the ridge of "dram" wherever it is listed, else of the first memory
    # ceiling: the same ceiling a point gets without memory_ceiling
    cells = nbformat.read(str(ROOT / folder / "01_place_two_kernels.ipynb"), as_version=4).cells
    text = " ".join(" ".join(c.source for c in cells if c.cell_type == "markdown").split())
    assert "The chart marks the ridge of the first memory ceiling only" not in text
    assert "The chart marks one ridge: that of the memory ceiling a point gets by default" in text
    code = " ".join(c.source for c in cells if c.cell_type == "code")
    assert "ridge of its first memory ceiling" not in code


def test_the_chart_marks_the_ridge_of_dram_wherever_it_is_listed():
    # the fact behind the notebook's sentence: with "dram-2tbs" listed first, the ridge is 40
    figure = _figure([("dram-2tbs", "memory", 2_000), ("dram", "memory", 3_000),
                      ("fp32", "compute", 120_000)], [(20, 60e3, None)])
    ridges = [a.text for a in figure.layout.annotations if str(a.text).startswith("ridge")]
    assert ridges and all(": 40" in r for r in ridges), ridges
