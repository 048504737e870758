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
