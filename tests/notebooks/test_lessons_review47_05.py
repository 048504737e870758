"""Review 46c/47 of notebook 05: the sweep figure's plateau overlays and the shorter page."""
import pytest

from rooflinelib.hierarchy import lesson as hl05, plot as hp
from rooflinelib.views.plotting import find_trace


def test_no_plateau_overlay_shares_a_series_colour():
    # review 46c: the DRAM plateau's dashes were the blue series' colour and ran on to 2.15 GB,
    # past the 537 MB where blue stops, so blue seemed to continue
    pytest.importorskip("plotly")
    lesson = hl05.load()
    fig = hp.sweep_figure(lesson.recorded, levels=lesson.levels, series=lesson.level_series, skip_reported=("shared",))
    series = {t.line.color.lower() for t in fig.data if str(t.meta).startswith("series:")}
    for level in ("level:l1", "level:l2", "level:dram", "capacity:l2"):
        assert find_trace(fig, level).line.color.lower() not in series, level
    assert find_trace(fig, "level:dram").line.color.lower() == hp.PLATEAU_CLASH_COLOUR
