"""plotting.figure_widget's browser side in headless Chromium: however many figure widgets a page
holds, plotly's widget code (its 5 MB bundle, plotly.js inside) is imported once for each
plotly version, and each widget is still initialized and drawn by that code.

The loader runs as the page would run it (imported from a Blob URL, as anywidget imports a
widget's module), with a stand-in bundle that counts how often it is evaluated and records
what each widget was asked to do.  Skipped, with the reason, without Playwright or Chromium
(a failure under ROOFLINE_REQUIRE_BROWSER=1).
"""
from __future__ import annotations

import json

import pytest

import harness

pytestmark = pytest.mark.browser

# A stand-in for plotly's bundle: the same shape (a default export returning initialize and
# render), counting its evaluations in the page.
STAND_IN = """
globalThis.evaluations = (globalThis.evaluations || 0) + 1;
export default () => {
  let model = null;
  return {
    initialize(context) { model = context.model; model.log.push('initialize ' + model.name); },
    render(context) { model.log.push('render ' + model.name); context.el.textContent = model.name; },
  };
};
"""

RUN = """
async ([loader, bundle]) => {
  const load = (source) => import(URL.createObjectURL(new Blob([source], {type: 'text/javascript'})));
  const log = [];
  const state = {_plotly_bundle: bundle, _plotly_version: '6.0'};
  for (const name of ['a', 'b', 'c']) {
    const model = {name, log, get: (key) => state[key]};
    const widget = (await load(loader)).default();  // one module per widget, as anywidget does
    await widget.initialize({model});
    const el = document.createElement('div');
    await widget.render({model, el});
    log.push('drew ' + el.textContent);
  }
  const once = globalThis.evaluations;
  state._plotly_version = '6.1';  // a kernel restarted on another plotly: its own import
  const model = {name: 'd', log: [], get: (key) => state[key]};
  await (await load(loader)).default().initialize({model});
  return {evaluations: once, after_upgrade: globalThis.evaluations, log};
}
"""


def test_the_bundle_is_imported_once_a_page_and_every_widget_is_drawn():
    harness.skip_or_fail_without_browser()
    pytest.importorskip("plotly")
    from rooflinelib import plotting
    with harness.chromium_page(400, 300) as page:
        page.set_content("<html><body></body></html>")
        done = page.evaluate(RUN, [plotting._WIDGET_LOADER_ESM, STAND_IN])
    assert done["evaluations"] == 1 and done["after_upgrade"] == 2, json.dumps(done)
    assert done["log"] == [f"{step} {name}" for name in "abc" for step in ("initialize", "render", "drew")]


# plotly's view draws the traces the model holds when it renders, once.  The kernel opens a
# FigureWidget's comm with none and sends them next; a stand-in that draws what it sees.
DRAWS_WHAT_IT_SEES = """
export default () => ({
  initialize() {},
  render(context) { context.el.textContent = context.model.get('_widget_data').length + ' traces'; },
});
"""

LATE_TRACES = """
async ([loader, bundle, arrivesMs]) => {
  const load = (source) => import(URL.createObjectURL(new Blob([source], {type: 'text/javascript'})));
  const state = {_plotly_bundle: bundle, _plotly_version: 'late-' + arrivesMs, _widget_data: []};
  const handlers = [];
  const model = {
    get: (key) => state[key],
    on: (name, callback) => handlers.push([name, callback]),
    off: (name, callback) => handlers.splice(handlers.findIndex(h => h[1] === callback), 1),
  };
  if (arrivesMs !== null) setTimeout(() => {  // the update message with the traces
    state._widget_data = [{type: 'scatter'}, {type: 'scatter'}];
    handlers.filter(h => h[0] === 'change:_widget_data').forEach(h => h[1]());
  }, arrivesMs);
  const widget = (await load(loader)).default();
  await widget.initialize({model});
  const el = document.createElement('div');
  const started = performance.now();
  await widget.render({model, el});
  return {drawn: el.textContent, waited_ms: performance.now() - started, handlers_left: handlers.length};
}
"""


@pytest.mark.parametrize("arrives_ms", [50, 1000, None])
def test_a_figure_is_drawn_once_its_traces_arrive_not_blank_before(arrives_ms):
    # the explorer's browser test drew no figure now and then on a first run-all (0 traces); a
    # figure whose traces never come is drawn empty after the bound, not never
    harness.skip_or_fail_without_browser()
    pytest.importorskip("plotly")
    from rooflinelib import plotting
    with harness.chromium_page(400, 300) as page:
        page.set_content("<html><body></body></html>")
        done = page.evaluate(LATE_TRACES, [plotting._WIDGET_LOADER_ESM, DRAWS_WHAT_IT_SEES, arrives_ms])
    assert done["handlers_left"] == 0, done
    if arrives_ms is None:
        assert done["drawn"] == "0 traces" and 4500 <= done["waited_ms"] < 8000, done
    else:
        assert done["drawn"] == "2 traces" and done["waited_ms"] < 4000, done
