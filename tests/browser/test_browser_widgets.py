"""Every widget of the course in a real browser: JupyterLab on localhost, headless Chromium.

One notebook builds each widget as the course's notebooks do (recorded mode, so the sweep
walker and the link-step widget use the shipped H200 runs).  Run top to bottom in Chromium,
each widget is then driven as a student would (a slider dragged, a menu picked, a box typed
in) and the test asserts on what changed on screen: the plotted points in the browser's
figure, the verdict text, and the legend names, which must be the names the kernel set (never
plotly's "trace 3").  It also checks that no two tick labels overlap, that no annotation
crosses the title, and that every legend lies inside its figure.  Screenshots of each widget,
before and after, go to ``test-artifacts/browser/``.

The explorer's slider drag across the ridge has its own test (test_browser_explorer.py); here
the explorer's machine menu is switched, which redraws its roofs in place.
"""
from __future__ import annotations

import json
import re

import nbformat
import pytest

import harness

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CELLS = {
    "explorer": 'widgets.intensity_explorer("H200", "fp32", intensity=4.0)',
    "time-bounds": "widgets.time_bounds_widget(n_flops=240e9, n_bytes=20e9, peak_gflops=120_000, "
                   "peak_gbps=3_000)",
    "gemm": 'widgets.gemm_widget("MI300X", "bf16", 512)',
    "attention": 'widgets.attention_widget("MI300X", s=1024, d=128)',
    "tiles": "widgets.tile_animation()",
    "sweep-walker": "lab3 = load_sweep()\nwidgets.sweep_walker(lab3.result['rows'], lab3.machine)",
    "link-step": "roofs = step_roofs.step_roofs_for(detect_mode())\n"
                 "widgets.link_step_widget(roofs, n_params=10**6)",
    "triage": 'widgets.triage_tool(fraction_of_roof="12/60", side="ridge")',
    # The static charts whose legends were cut off, drawn as notebooks 02, 03 and 04 draw them.
    "charts": "from rooflinelib.core import operators; from rooflinelib.store import results\n"
              "from rooflinelib.core.machines import MI300X\n"
              "from rooflinelib.core.placement import KernelPoint\n"
              "from rooflinelib.views.plotting import roofline_figure\n"
              "from IPython.display import display\n"
              "import ipywidgets\n"
              "def boxed(figure, name):\n"
              "    out = ipywidgets.Output()\n"
              "    out.add_class(name)\n"
              "    with out:\n"
              "        display(figure)\n"
              "    return out\n"
              "points = [KernelPoint(f\"K={r['k']}\", 2 * r['k'], 8, r['gflops'])\n"
              "          for r in lab3.result['rows'] if r['k'] > 0]\n"
              "ipywidgets.VBox([\n"
              "    boxed(roofline_figure(MI300X, kernels=operators.demo_kernels(), compute=['fp32', 'bf16-tensor'],\n"
              "          title='Six operators on the MI300X (fp32 solid, bf16 matrix dashed)'), 'chart-mi300x'),\n"
              "    boxed(roofline_figure(lab3.machine, kernels=points, title=f'Lab 3 sweep: {lab3.machine.name}'),\n"
              "          'chart-sweep'),\n"
              "    boxed(roofline_figure(results.recorded_h200(), title='Measured ceilings: H200 (recorded)'),\n"
              "          'chart-ceilings')])",
}
SETUP = ("from rooflinelib.lessons import step_roofs; from rooflinelib.views import widgets\n"
         "from rooflinelib.modes import detect_mode, load_sweep")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    harness.skip_or_fail_without_browser()
    work = tmp_path_factory.mktemp("work")
    scratch = tmp_path_factory.mktemp("scratch")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(SETUP)] + [nbformat.v4.new_code_cell(c) for c in CELLS.values()]
    nbformat.write(nb, str(work / "widgets.ipynb"))
    harness.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with harness.jupyterlab(work, scratch, {"ROOFLINE_MODE": "recorded"}) as url, \
            harness.chromium_page(1100, 900) as page:
        # Drawn, legend included (plotly draws after the data arrive); a single bar has none.
        harness.run_all_until_drawn(page, url("widgets.ipynb"), ".roofline-triage .roofline-text pre",
                                    ("roofline-explorer", "roofline-gemm", "roofline-attention", "roofline-tiles",
                                     "roofline-sweep-walker", "roofline-link-step", "chart-mi300x", "chart-sweep",
                                     "chart-ceilings"), screenshot="widgets-not-drawn")
        harness.wait_until_drawn(page, ("roofline-time-bounds",), legend=False, screenshot="widgets-not-drawn")
        page.wait_for_timeout(1000)  # let plotly finish its first draw
        yield page


def shot(page, box: str, name: str) -> None:
    page.locator(f".{box}").first.screenshot(path=str(harness.ARTIFACTS / f"{name}.png"))


def wait_for_change(page, box: str, before: dict) -> dict:
    page.wait_for_function(
        f"(old) => JSON.stringify(({harness.FIGURE_JS})('{box}').traces.map(t => [t.x, t.y])) !== old",
        arg=json.dumps([[t["x"], t["y"]] for t in before["traces"]]), timeout=harness.STEP_S * 1000)
    page.wait_for_timeout(600)  # the verdict line and the marker follow the same message
    return harness.figure(page, box)


def point(fig: dict, meta_pattern: str) -> tuple:
    traces = [t for t in fig["traces"] if t["meta"] and re.search(meta_pattern, t["meta"])]
    assert traces, (meta_pattern, [t["meta"] for t in fig["traces"]])
    return tuple((t["x"], t["y"]) for t in traces)


def assert_legend_names_kept(fig: dict) -> None:
    """The legend shows exactly the names the kernel gave the traces, none of plotly's own."""
    assert fig["legend"], "no legend drawn"
    assert not [t for t in fig["legend"] if re.fullmatch(r"trace \d+", t)], fig["legend"]
    shown = [t["name"] for t in fig["traces"] if t["showlegend"] and t["name"]]
    assert all(t["name"] for t in fig["traces"] if t["showlegend"]), fig["traces"]
    assert sorted(fig["legend"]) == sorted(shown), (fig["legend"], shown)


# Boxes of the drawn figure's labels, from the SVG as laid out.
LAYOUT_JS = """
(box) => {
  const gd = document.querySelector('.' + box + ' .js-plotly-plot');
  const rect = el => { const r = el.getBoundingClientRect();
                       return {l: r.left, r: r.right, t: r.top, b: r.bottom, text: el.textContent}; };
  const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const svg = gd.querySelector('.main-svg');
  return {
    figure: rect(svg),
    xticks: [...gd.querySelectorAll('.xaxislayer-above text')].filter(visible).map(rect),
    yticks: [...gd.querySelectorAll('.yaxislayer-above text')].filter(visible).map(rect),
    title: [...gd.querySelectorAll('.g-gtitle text')].filter(visible).map(rect),
    annotations: [...gd.querySelectorAll('.annotation')].filter(visible).map(rect),
    legend: [...gd.querySelectorAll('.legend')].filter(visible).map(
      el => rect(el.querySelector('.bg') || el)),
    // entries of a legend taller than its box scroll out of sight
    entries: [...gd.querySelectorAll('.legend .traces')].map(rect),
    labels: [...gd.querySelectorAll('.scatterlayer .textpoint text')].filter(visible).map(rect),
  };
}
"""


def _overlap(a: dict, b: dict) -> float:
    width = min(a["r"], b["r"]) - max(a["l"], b["l"])
    height = min(a["b"], b["b"]) - max(a["t"], b["t"])
    return width * height if width > 0.5 and height > 0.5 else 0.0


def assert_clean_layout(page, box: str) -> None:
    drawn = page.evaluate(LAYOUT_JS, box)
    ticks = drawn["xticks"] + drawn["yticks"]
    clashes = [(a["text"], b["text"]) for i, a in enumerate(ticks) for b in ticks[i + 1:]
               if _overlap(a, b)]
    assert not clashes, f"{box}: tick labels overlap: {clashes}"
    crossing = [(a["text"], t["text"]) for a in drawn["annotations"] for t in drawn["title"]
                if _overlap(a, t)]
    assert not crossing, f"{box}: annotations cross the title: {crossing}"
    labels = drawn["labels"]
    clashes = [(a["text"], b["text"]) for i, a in enumerate(labels) for b in labels[i + 1:]
               if _overlap(a, b)]
    assert not clashes, f"{box}: point labels overlap: {clashes}"
    for legend in drawn["legend"]:
        hidden = [e["text"] for e in drawn["entries"]
                  if e["b"] > legend["b"] + 1 or e["t"] < legend["t"] - 1]
        assert not hidden, f"{box}: legend entries scrolled out of sight: {hidden}"
    fig = drawn["figure"]
    for legend in drawn["legend"]:
        inside = (legend["l"] >= fig["l"] - 1 and legend["r"] <= fig["r"] + 1
                  and legend["t"] >= fig["t"] - 1 and legend["b"] <= fig["b"] + 1)
        assert inside, f"{box}: legend {legend} is cut off by the figure {fig}"


def test_explorer_machine_menu_redraws_roofs_and_keeps_names(page):
    box = "roofline-explorer"
    before = harness.figure(page, box)
    assert_legend_names_kept(before)
    assert_clean_layout(page, box)
    shot(page, box, "explorer-H200")
    page.locator(f".{box} select").first.select_option("MI300X")
    after = wait_for_change(page, box, before)
    assert "MI300X" in after["title"], after["title"]
    assert_legend_names_kept(after)
    assert any("your kernel" == t["name"] for t in after["traces"])
    assert "MI300X" in harness.text_of(page, box, "roofline-verdict")
    assert_clean_layout(page, box)
    shot(page, box, "explorer-MI300X")


def test_time_bounds_slider_moves_the_bars(page):
    box = "roofline-time-bounds"
    before = harness.figure(page, box)
    text_before = harness.text_of(page, box, "roofline-text")
    shot(page, box, "time-bounds-before")
    harness.drag_slider(page, box, 0.95, index=0)  # F, the FLOPs, to the top of its range
    after = wait_for_change(page, box, before)
    text_after = harness.text_of(page, box, "roofline-text")
    assert text_after != text_before
    assert after["traces"][0]["x"] != before["traces"][0]["x"]
    assert_clean_layout(page, box)
    shot(page, box, "time-bounds-after")


@pytest.mark.parametrize("box,slider,names", [
    ("roofline-gemm", 0.9, {"I(N) = 2N / (3s)", "this GEMM"}),
    ("roofline-attention", 0.95, {"unfused", "fused", "this s"}),
])
def test_operator_widgets_move_their_point_and_keep_every_legend_name(page, box, slider, names):
    before = harness.figure(page, box)
    assert_legend_names_kept(before)
    assert names <= set(before["legend"]), before["legend"]
    text_before = harness.text_of(page, box, "roofline-text")
    shot(page, box, f"{box[9:]}-before")
    harness.drag_slider(page, box, slider)
    after = wait_for_change(page, box, before)
    assert point(after, "^points?$") != point(before, "^points?$")
    assert harness.text_of(page, box, "roofline-text") != text_before
    assert_legend_names_kept(after)
    assert names <= set(after["legend"]), after["legend"]
    assert_clean_layout(page, box)
    shot(page, box, f"{box[9:]}-after")


def test_tile_animation_steps_all_three_points(page):
    box = "roofline-tiles"
    before = harness.figure(page, box)
    assert_legend_names_kept(before)
    assert_clean_layout(page, box)
    shot(page, box, "tiles-before")
    harness.drag_slider(page, box, 1.0)
    after = wait_for_change(page, box, before)
    moved = [b != a for b, a in zip(point(before, r"\|kernel:"), point(after, r"\|kernel:"))]
    assert len(moved) == 3 and all(moved), moved
    assert "128" in harness.text_of(page, box, "roofline-text")
    assert_legend_names_kept(after)
    shot(page, box, "tiles-after")


def test_sweep_walker_walks_the_measured_point(page):
    box = "roofline-sweep-walker"
    before = harness.figure(page, box)
    assert_legend_names_kept(before)
    text_before = harness.text_of(page, box, "roofline-text")
    shot(page, box, "sweep-walker-before")
    harness.drag_slider(page, box, 1.0)
    after = wait_for_change(page, box, before)
    (x0, _), = point(before, "^kernel:sweep K$")
    (x1, _), = point(after, "^kernel:sweep K$")
    assert x1[0] > x0[0]
    assert harness.text_of(page, box, "roofline-text") != text_before
    assert_legend_names_kept(after)
    assert_clean_layout(page, box)
    shot(page, box, "sweep-walker-after")


def test_link_step_widget_moves_both_points(page):
    box = "roofline-link-step"
    before = harness.figure(page, box)
    assert_legend_names_kept(before)
    text_before = harness.text_of(page, box, "roofline-text")
    shot(page, box, "link-step-before")
    harness.drag_slider(page, box, 1.0, index=0)  # the model size, to its largest
    after = wait_for_change(page, box, before)
    assert point(after, "^point:") != point(before, "^point:")
    assert harness.text_of(page, box, "roofline-text") != text_before
    assert_legend_names_kept(after)
    assert_clean_layout(page, box)
    shot(page, box, "link-step-after")


@pytest.mark.parametrize("box", ["chart-mi300x", "chart-sweep", "chart-ceilings"])
def test_static_charts_fit_their_legends_and_labels(page, box):
    fig = harness.figure(page, box)
    assert_legend_names_kept(fig)
    assert_clean_layout(page, box)
    shot(page, box, box)


def test_triage_report_follows_what_is_typed(page):
    box = "roofline-triage"
    before = harness.text_of(page, box, "roofline-text")
    shot(page, box, "triage-before")
    field = page.locator(f".{box} input[type=text]").first
    field.scroll_into_view_if_needed()
    field.fill("0.001")
    field.press("Enter")
    page.wait_for_function(
        "(old) => { const e = document.querySelector('.roofline-triage .roofline-text');"
        " return e && e.innerText !== old; }", arg=before, timeout=harness.STEP_S * 1000)
    after = harness.text_of(page, box, "roofline-text")
    assert after != before and after.strip()
    shot(page, box, "triage-after")
