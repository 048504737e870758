"""How often the page's first figure widget is left blank: N run-alls in JupyterLab and headless
Chromium, with plotting's widget loader or the one before 2026-12-02 (which imported plotly's
bundle inside the widget's initialize), at full speed or with Chromium's CPU throttled.

    .venv/bin/python benchmarks/first_draw.py [--runs 5] [--loader new|old] [--throttle 1] [--out FILE]

Each run opens the notebook in a new page (so plotly is imported again, as on a student's
first run-all; the kernel and its earlier widgets stay, so the page also restores those),
runs every cell (the explorer, then the GEMM widget), and records, for each figure: what the
browser drew (its number of traces) within the browser tests' FIRST_DRAW_S of the kernel
going idle, what the kernel's FigureWidget holds, how long the loader's initialize took, and
what the page logged from anywidget.  Each invocation adds one batch to --out (default
docs/measurements/first_draw.json).  Needs Playwright and Chromium (tests/browser/harness.py).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "measurements" / "first_draw.json"

import harness  # noqa: E402

#: plotting's loader before 2026-12-02 (commit 2f11de3): plotly imported inside initialize.
OLD_LOADER = """
function plotlyWidget(model) {
  const key = Symbol.for("rooflinelib.plotly-widget-bundle old " + model.get("_plotly_version"));
  if (!globalThis[key]) {
    const bundle = new Blob([model.get("_plotly_bundle")], { type: "text/javascript" });
    globalThis[key] = import(URL.createObjectURL(bundle));
  }
  return globalThis[key];
}

export default () => {
  let widget = null;
  return {
    async initialize(context) {
      widget = (await plotlyWidget(context.model)).default();
      return widget.initialize(context);
    },
    render(context) {
      return widget.render(context);
    },
  };
};
"""

# Around either loader: how long its initialize took and how many traces the model held then
# and at render, logged as warnings (the harness keeps warnings and errors).
TIMED = """
export default () => {
  const inner = loaderDefault();
  return {
    async initialize(context) {
      const started = performance.now();
      const result = await inner.initialize(context);
      console.warn(`[first-draw] initialize ${Math.round(performance.now() - started)} ms, model traces `
                   + context.model.get("_widget_data").length);
      return result;
    },
    async render(context) {
      const result = await inner.render(context);
      console.warn(`[first-draw] render, model traces ${context.model.get("_widget_data").length}`);
      return result;
    },
  };
};
"""

SETUP = """\
from rooflinelib.views import plotting, widgets

# the course's class, kept from the first run-all (later ones find the patched function)
_plain = getattr(plotting, "_plain_figure_widget_class", None) or plotting._figure_widget_class()
plotting._plain_figure_widget_class = _plain


class _Timed(_plain):
    _esm = {esm!r}


plotting._figure_widget_class = lambda: _Timed"""

CELLS = ['widgets.intensity_explorer("H200", "fp32", intensity=4.0)',
         'widgets.gemm_widget("MI300X", "bf16", 512)']
BOXES = ("roofline-explorer", "roofline-gemm")

# the traces each of this run's two figure widgets holds in the kernel, in the order made
KERNEL_SIDE = ("from ipywidgets.widgets.widget import _instances\n"
               "print([len(w._widget_data) for w in list(_instances.values()) if hasattr(w, '_widget_data')][-2:])")

EXECUTE_JS = """
async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({code, silent: false, store_history: false});
  let out = '';
  future.onIOPub = (msg) => { if (msg.header.msg_type === 'stream') out += msg.content.text; };
  await future.done;
  return out;
}
"""


def esm(loader: str) -> str:
    return loader.replace("export default", "const loaderDefault =", 1) + TIMED


def one_run(url: str, throttle: float) -> dict:
    with harness.chromium_page(1100, 900) as page:
        harness.open_notebook(page, url)
        if throttle != 1:
            harness.slow_cpu(page, throttle)
        load = os.getloadavg()[0]
        started = time.monotonic()
        harness.run_all(page, ".roofline-gemm")
        idle_s = time.monotonic() - started
        drawn = {}
        deadline = time.monotonic() + harness.FIRST_DRAW_S
        while time.monotonic() < deadline:
            drawn = {box: page.evaluate(harness._DRAWN_JS, box) for box in BOXES}
            if all(state.split()[0] not in ("no", "0") for state in drawn.values()):
                break
            page.wait_for_timeout(250)
        waited_s = time.monotonic() - started - idle_s
        if throttle != 1:
            harness.slow_cpu(page, 1)
        kernel = page.evaluate(EXECUTE_JS, KERNEL_SIDE).strip()
        said = [line for line in page.roofline_console if "anywidget" in line or "first-draw" in line]
    return {"load_1min": load, "throttle": throttle, "run_all_to_idle_s": round(idle_s, 2),
            "waited_after_idle_s": round(waited_s, 2), "drawn": drawn, "kernel_traces": kernel,
            "first_blank": drawn.get(BOXES[0], "").startswith("0 traces"), "page_said": said}


def add_batch(path: Path, batch: dict) -> None:
    """``batch`` appended to the result file at ``path`` (made when absent)."""
    from rooflinelib.store.fileio import read_json, write_atomic
    record = read_json(path, RuntimeError) if path.exists() else {
        "format": "rooflinelib-first-draw", "version": 1, "machine": "2-core VM, no GPU", "batches": []}
    record["batches"].append(batch)
    write_atomic(path, json.dumps(record, indent=1) + "\n", RuntimeError)


def main(argv=None) -> int:
    import nbformat
    from rooflinelib.views import plotting
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--loader", choices=("old", "new"), default="new")
    parser.add_argument("--throttle", type=float, default=1.0, help="Chromium CPU slow-down (1: none)")
    parser.add_argument("--out", type=Path, default=OUT, help="the JSON file the batch is added to")
    args = parser.parse_args(argv)
    missing = harness.missing()
    if missing:
        print(f"first_draw: {missing}", file=sys.stderr)
        return 2
    loader = OLD_LOADER if args.loader == "old" else plotting._WIDGET_LOADER_ESM
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        work, scratch = Path(tmp) / "work", Path(tmp) / "scratch"
        work.mkdir()
        scratch.mkdir()
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.cells = [nbformat.v4.new_code_cell(SETUP.format(esm=esm(loader)))] + \
            [nbformat.v4.new_code_cell(c) for c in CELLS]
        nbformat.write(nb, str(work / "first.ipynb"))
        with harness.jupyterlab(work, scratch) as url:
            for run in range(args.runs):
                record = {"run": run + 1, "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                          **one_run(url("first.ipynb"), args.throttle)}
                runs.append(record)
                print(json.dumps(record), flush=True)
    blank = sum(r["first_blank"] for r in runs)
    add_batch(args.out, {"loader": args.loader, "throttle": args.throttle, "n": len(runs), "first_blank": blank,
                         "runs": runs})
    print(f"{args.loader} loader, throttle {args.throttle:g}: first figure blank in {blank} of {len(runs)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
