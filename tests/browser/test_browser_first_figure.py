"""The first figures of a page are drawn however slowly plotly's code is imported: JupyterLab on
localhost, headless Chromium.

The browser tests' first run-all now and then left the page's first figure widget (the
explorer) at 0 traces.  anywidget holds a model's comm messages until the widget's JavaScript
initialize returns, and gives it 2 s from the model's creation; past that it drops every
message to that model for good.  plotly's FigureWidget opens its comm with no traces and sends
them in the next message, and the first figure of a page is the one whose initialize imported
plotly's 5 MB bundle (1.5-2 s of Chromium on the 2-core VM when it is quiet, more when busy).

Here the import is made slow on purpose, in every run: the notebook's first cell puts a 3 s
wait in front of the bundle the kernel sends.  The notebook then makes the time-bounds widget
(which edits its bars as soon as it is made, so its first edits come while plotly's code is
still loading) and the explorer.  Both must be drawn with what the kernel holds, and the
explorer must still follow its slider.  With the loader that imported plotly inside initialize,
both figures stayed blank and the page logged "[anywidget] Failed to initialize model."
(2026-12-02, this VM).  Skipped, with the reason, without Playwright or Chromium.
"""
from __future__ import annotations

import json

import nbformat
import pytest

import harness

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IMPORT_DELAY_MS = 3000

SLOW_IMPORT = f"""\
import traitlets
from rooflinelib.views import plotting, widgets

_plain = plotting._figure_widget_class()


class _SlowImport(_plain):  # plotly's code imported {IMPORT_DELAY_MS} ms late, as on a busy machine
    _plotly_bundle = traitlets.Unicode(
        "await new Promise((r) => setTimeout(r, {IMPORT_DELAY_MS}));\\n" + _plain._plotly_bundle.default_value
    ).tag(sync=True)


plotting._figure_widget_class = lambda: _SlowImport"""

BOUNDS = dict(n_flops=240e9, n_bytes=20e9, peak_gflops=120_000, peak_gbps=3_000)
CELLS = [SLOW_IMPORT,
         "widgets.time_bounds_widget(" + ", ".join(f"{k}={v!r}" for k, v in BOUNDS.items()) + ")",
         'widgets.intensity_explorer("H200", "fp32", intensity=4.0)']

EXPLORER, BARS = "roofline-explorer", "roofline-time-bounds"


@pytest.fixture
def url(tmp_path):
    harness.skip_or_fail_without_browser()
    work = tmp_path / "work"
    work.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nbformat.write(nb, str(work / "first.ipynb"))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with harness.jupyterlab(work, scratch) as url:
        yield url("first.ipynb")


def _expected_bars() -> list:
    """The bars' lengths as the kernel sets them, in the unit it picks (here ms)."""
    from rooflinelib.views import widget_state as ws
    from rooflinelib.views.widgets import _time_unit
    bars = ws.time_bounds_state(**BOUNDS).bars()
    _, scale = _time_unit(max(seconds for _, seconds in bars))
    return [seconds / scale for _, seconds in bars]


def test_the_first_figures_are_drawn_when_plotly_loads_slowly(url):
    harness.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with harness.chromium_page(1100, 900) as page:
        harness.open_and_run_all(page, url, f".{EXPLORER} .roofline-verdict")
        # one run-all, no second chance: the import takes 3 s, so 20 s is plenty
        harness.wait_until_drawn(page, (EXPLORER,), timeout_s=harness.FIRST_DRAW_S,
                                 screenshot="first-figure-not-drawn")
        harness.wait_until_drawn(page, (BARS,), legend=False, timeout_s=harness.FIRST_DRAW_S,
                                 screenshot="first-figure-not-drawn")
        explorer, bars = harness.figure(page, EXPLORER), harness.figure(page, BARS)
        said = list(page.roofline_console)

        # the explorer follows its slider: messages after the import still arrive
        point = next(t for t in explorer["traces"] if t["meta"] == "kernel:your kernel")
        harness.drag_slider(page, EXPLORER, 0.9)
        page.wait_for_function(
            f"(x0) => {{ const f = ({harness.FIGURE_JS})('{EXPLORER}');"
            " const p = f && f.traces.find(t => t.meta === 'kernel:your kernel');"
            " return p && p.x[0] > x0; }",
            arg=point["x"][0], timeout=harness.STEP_S * 1000)
        page.locator(f".{EXPLORER}").first.screenshot(path=str(harness.ARTIFACTS / "first-figure.png"))

    assert not [line for line in said if "[anywidget]" in line], said
    assert len(explorer["traces"]) >= 3 and point["x"][0] == pytest.approx(4.0, rel=0.01), \
        json.dumps(explorer)[:2000]
    # the bars' first edit (sent as the widget was made, while plotly's code was loading)
    drawn = bars["traces"][0]["x"]
    assert drawn == pytest.approx(_expected_bars(), rel=1e-9) and min(drawn) > 0, bars
