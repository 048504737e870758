"""The recorded GEMMs' caps figure (gemm_targets.caps_figure, notebook 07 section 6): each bar is a
number from the recorded counters, the same numbers caps_text prints."""
import pytest

pytest.importorskip("plotly")

from rooflinelib.profiling import capstone  # noqa: E402
from rooflinelib.profiling import gemm_targets as g  # noqa: E402


@pytest.fixture(scope="module")
def drawn():
    fp32, shared, _ = g.recorded_roofs(capstone.recorded_pair()[0])
    recorded = g.recorded_counters()
    return g.caps_figure(recorded, shared, fp32), g.caps(recorded, shared, fp32), g.caps_text(recorded, shared, fp32, l1=False)


def test_each_bar_is_a_recorded_cap_or_share(drawn):
    fig, caps, _ = drawn
    bars = {trace.meta: trace for trace in fig.data}
    assert set(bars) == {"caps:measured", "caps:shared", "caps:issue"}
    labels = {g.label(name): name for name in caps}
    for key in ("measured", "shared", "issue"):
        trace = bars[f"caps:{key}"]
        assert len(trace.x) == 4
        for x, y, text in zip(trace.x, trace.y, trace.text):
            value = caps[labels[x]][key]
            if value is None:  # a naive kernel: no shared memory, no bar and no label
                assert "naive" in x and y is None and text == ""
            else:
                assert y == pytest.approx(100 * value) and text == f"{value:.1%}"


def test_the_bars_show_what_the_caps_text_prints(drawn):
    fig, _, text = drawn
    labels = [t for trace in fig.data for t in trace.text if t]
    # every percentage on a bar is one the caps lines print, and the other way round
    printed = {word.rstrip(",;") for line in text.splitlines() for word in line.split() if word.rstrip(",;").endswith("%")}
    assert set(labels) == printed
    assert {"3.0%", "5.0%", "11.6%", "16.6%", "19.4%", "1.4%", "1.9%"} <= printed


def test_the_kernels_come_in_the_tables_order_and_the_axis_fits_every_bar(drawn):
    fig, caps, text = drawn
    assert list(fig.data[0].x) == [g.label(n) for n in g.CAPS_ORDER]
    # review 40e: the figure lists the kernels as the counter table and the caps lines beside it do
    assert list(fig.data[0].x) == [line.split("  ")[0].strip() for line in text.splitlines()]
    assert [x.split(",")[0] for x in fig.data[0].x] == ["naive", "tiled", "naive", "tiled"]
    top = max(y for trace in fig.data for y in trace.y if y is not None)
    assert fig.layout.yaxis.range[1] > top and fig.layout.barmode == "group"
    assert "fp32 roof" in fig.layout.yaxis.title.text and "Recorded H200 GEMMs" in fig.layout.title.text
