"""The intensity explorer in a real browser: JupyterLab on localhost, headless Chromium.

The test serves a temporary copy of notebooks/01_derivation.ipynb with JupyterLab (bound to
127.0.0.1, as root when it must be), opens it in Debian's ``chromium`` driven by Playwright,
runs every cell, then drags the explorer's intensity slider from below the ridge to above it.
It asserts that the verdict turns from memory-bound to compute-bound and that the plotted point
moved, both in the figure's data and on screen, and saves screenshots under
``test-artifacts/browser/``.

The page is the course's JupyterLab, started as ``course.py`` starts it: it shows none of the
test tools (nbgrader's menu, Validate button) that ``course.py test`` installs into the same
environment.

It is skipped, with the reason, when Playwright or Chromium is missing, unless
``ROOFLINE_REQUIRE_BROWSER=1`` (set by .ci/run, which installs both), where a missing browser
is a failure.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import harness

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "01_derivation.ipynb"
ARTIFACTS = harness.ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STEP_S = harness.STEP_S


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on 127.0.0.1 serving a temporary copy of the explorer notebook
    (tests/browser/harness.py: every cell rendered, also those out of view)."""
    harness.skip_or_fail_without_browser()
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(NOTEBOOK, work / "explorer.ipynb")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with harness.jupyterlab(work, scratch) as url:
        yield {"url": url("explorer.ipynb")}


# JavaScript run in the page. The explorer's figure is the plotly graph inside the explorer box;
# its movable point is the trace whose meta is "kernel:your kernel".
_POINT_JS = """
() => {
  const gd = document.querySelector('.roofline-explorer .js-plotly-plot');
  if (!gd || !gd.data) return null;
  const index = gd.data.findIndex(t => t.meta === 'kernel:your kernel');
  if (index < 0) return null;
  const traces = gd.querySelectorAll('.scatterlayer .trace');
  const marker = traces[index] ? traces[index].querySelector('path.point') : null;
  return {x: gd.data[index].x[0], y: gd.data[index].y[0],
          transform: marker ? marker.getAttribute('transform') : null};
}
"""


def _verdict(page) -> str:
    return page.locator(".roofline-explorer .roofline-verdict").first.inner_text()


def test_slider_moves_point_across_the_ridge(lab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with harness.chromium_page(1400, 1000) as page:
        harness.run_all_until_drawn(page, lab["url"], ".roofline-explorer .roofline-verdict", ("roofline-explorer",),
                                    screenshot="explorer-not-drawn")
        page.wait_for_function(f"() => ({_POINT_JS})() !== null", timeout=STEP_S * 1000)
        harness.assert_no_test_tools(page)  # a student's page, though nbgrader is installed
        explorer = page.locator(".roofline-explorer").first
        explorer.scroll_into_view_if_needed()

        before_text = _verdict(page)
        before_point = page.evaluate(_POINT_JS)
        assert "memory-bound" in before_text, before_text
        assert before_point["transform"], before_point
        explorer.screenshot(path=str(ARTIFACTS / "explorer-before.png"))

        # Drag the slider's handle to 90% of its track: I = 2**(-6 + 0.9 * 18), about 1200
        # FLOP/byte, far right of the H200's fp32 ridge (13.9).
        track = page.locator(".roofline-explorer .roofline-intensity .noUi-target").first
        handle = page.locator(".roofline-explorer .roofline-intensity .noUi-handle").first
        track_box, handle_box = track.bounding_box(), handle.bounding_box()
        start_x = handle_box["x"] + handle_box["width"] / 2
        y = handle_box["y"] + handle_box["height"] / 2
        page.mouse.move(start_x, y)
        page.mouse.down()
        target_x = track_box["x"] + 0.9 * track_box["width"]
        for step in range(1, 11):
            page.mouse.move(start_x + (target_x - start_x) * step / 10, y)
            page.wait_for_timeout(50)
        page.mouse.up()

        page.wait_for_function(
            "() => { const v = document.querySelector('.roofline-explorer .roofline-verdict');"
            " return v && v.innerText.includes('compute-bound'); }",
            timeout=STEP_S * 1000)
        page.wait_for_function(
            f"(x0) => {{ const p = ({_POINT_JS})(); return p && p.x > x0; }}",
            arg=before_point["x"], timeout=STEP_S * 1000)
        page.wait_for_timeout(500)  # let plotly finish drawing the moved marker
        after_text = _verdict(page)
        after_point = page.evaluate(_POINT_JS)
        explorer.screenshot(path=str(ARTIFACTS / "explorer-after.png"))
        page.screenshot(path=str(ARTIFACTS / "jupyterlab.png"), full_page=False)

    assert "memory-bound" not in after_text and "compute-bound" in after_text, after_text
    assert after_point["x"] > 13.9 > before_point["x"], (before_point, after_point)
    assert after_point["y"] > before_point["y"], (before_point, after_point)
    assert after_point["transform"] != before_point["transform"], (before_point, after_point)
    (ARTIFACTS / "result.json").write_text(json.dumps(
        {"before": {"verdict": before_text, **before_point},
         "after": {"verdict": after_text, **after_point}}, indent=2))
