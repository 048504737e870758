"""What the real-browser tests share: a JupyterLab server on 127.0.0.1 serving a folder,
headless Debian Chromium driven by Playwright, and the JavaScript that reads a plotly figure
as the browser drew it.

A test that cannot run says why: :func:`missing` names what is absent, and the tests skip with
that reason unless ``ROOFLINE_REQUIRE_BROWSER=1`` (set by .ci/run), where they fail.
"""
from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from rooflinelib.core import envvars

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("ROOFLINE_CHROMIUM", "/usr/bin/chromium")
REQUIRED = os.environ.get("ROOFLINE_REQUIRE_BROWSER", "") == "1"

SERVER_START_S = 90
# the one check of a number from the environment (rooflinelib.core.envvars): one line naming it
RUN_ALL_S = envvars.number_from_env("ROOFLINE_BROWSER_RUN_ALL_S", "seconds", 1, 3600, whole=True) or 300
STEP_S = 60


def missing() -> str:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (pip install playwright)"
    if not (Path(CHROMIUM).exists() and os.access(CHROMIUM, os.X_OK)):
        return (f"no Chromium at {CHROMIUM} (on Debian: apt-get install chromium; "
                "or set ROOFLINE_CHROMIUM to another Chromium)")
    return ""


def skip_or_fail_without_browser():
    import pytest
    reason = missing()
    if reason:
        if REQUIRED:
            pytest.fail(f"ROOFLINE_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(f"real-browser test skipped: {reason}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_server(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"JupyterLab did not answer within {SERVER_START_S} s:\n{log.read_text()[-3000:]}")


def course_script():
    """course.py, loaded by its path (it defines functions only; main() runs under __main__)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("course_script", ROOT / "course.py")
    course = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course)
    return course


#: Server extensions off beyond those the course's JupyterLab switches off (the test extra's
#: nbgrader, which a student never uses): the language-server proxy, which finds no language
#: server here.  Off, the server started on 2.7 s of CPU instead of 4.3 s (its page then asks
#: for /lsp/status once and gets a 404 in the server's log).
UNUSED_SERVER_EXTENSIONS = {"jupyter_lsp": False}

#: The log of every JupyterLab server started (the kernels' stderr included), newest last:
#: a figure that is never drawn is reported with the end of it.
SERVER_LOGS = []


@contextlib.contextmanager
def jupyterlab(work: Path, scratch: Path, env_extra=None):
    """The course's JupyterLab (course.py's command line and environment) serving ``work``;
    yields ``url(notebook_name)``."""
    settings = scratch / "settings"
    for plugin, values in {
        # No "Select Kernel" dialog: start the notebook's kernel as soon as it opens.
        # Every cell rendered, also those scrolled out of view, so each widget can be read.
        "@jupyterlab/notebook-extension/tracker": {"autoStartDefaultKernel": True,
                                                   "windowingMode": "none"},
        # No news or update toasts over the notebook.
        "@jupyterlab/apputils-extension/notification": {"fetchNews": "false",
                                                        "checkForUpdates": False},
    }.items():
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    token = secrets.token_hex(16)
    port = _free_port()
    course = course_script()
    env = course.lab_environment(dict(
        os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTERLAB_WORKSPACES_DIR=str(scratch / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(scratch / "runtime"), **(env_extra or {})))
    log = scratch / "jupyterlab.log"
    extensions = {**course.server_extensions_off(), **UNUSED_SERVER_EXTENSIONS}
    lab = course.lab_command(["--no-browser", "--ip=127.0.0.1", f"--port={port}", f"--ServerApp.token={token}",
                              f"--ServerApp.root_dir={work}", "--ServerApp.port_retries=0",
                              "--LabApp.expose_app_in_browser=True", "--LabApp.default_url=/lab",
                              f"--ServerApp.jpserver_extensions={extensions!r}"])
    # this Python's JupyterLab, with the course's options (course.py runs .venv's `jupyter lab`)
    command = [sys.executable, "-m", "jupyterlab", *lab[2:]]
    with open(log, "w") as handle:
        process = subprocess.Popen(command, cwd=work, env=env, stdout=handle, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_for_server(f"{base}/api/status?token={token}", process, log)
        SERVER_LOGS.append(log)
        yield lambda name: f"{base}/lab/tree/{name}?token={token}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@contextlib.contextmanager
def chromium_page(width: int = 1400, height: int = 1000):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            # what the page said, for a failure to report: console errors and warnings, uncaught errors
            page.roofline_console = []
            page.on("console", lambda m: page.roofline_console.append(f"{m.type}: {m.text}"[:300])
                    if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: page.roofline_console.append(f"pageerror: {e}"[:300]))
            yield page
        finally:
            browser.close()


KERNEL_IDLE_JS = """
() => {
  const app = window.jupyterapp;
  const panel = app && app.shell.currentWidget;
  const ctx = panel && panel.sessionContext;
  return !!(ctx && ctx.session && ctx.session.kernel && ctx.kernelDisplayStatus === 'idle');
}
"""


def open_notebook(page, url: str) -> None:
    """Open the notebook at ``url`` and wait until its kernel is idle."""
    page.goto(url, timeout=STEP_S * 1000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget",
                           timeout=STEP_S * 1000)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=STEP_S * 1000)


def run_all(page, ready_selector: str) -> None:
    """Run every cell of the open notebook, and wait until ``ready_selector`` shows and the
    kernel is idle again."""
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_selector(ready_selector, timeout=RUN_ALL_S * 1000)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=RUN_ALL_S * 1000)


def open_and_run_all(page, url: str, ready_selector: str) -> None:
    """Open the notebook at ``url``, run every cell, and wait until ``ready_selector`` shows and
    the kernel is idle again."""
    open_notebook(page, url)
    run_all(page, ready_selector)


def slow_cpu(page, rate: float) -> None:
    """Run the page's JavaScript ``rate`` times slower (Chromium's own CPU throttling, through
    the DevTools protocol): a busy machine, in the browser alone and without loading the
    cores others share.  1 is full speed."""
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})


#: The figure inside the widget box with CSS class ``box``, as the browser holds and draws it:
#: each trace's name, meta and first point, the legend's texts as drawn, and the point's
#: marker position on screen.
FIGURE_JS = """
(box) => {
  const gd = document.querySelector('.' + box + ' .js-plotly-plot');
  if (!gd || !gd.data) return null;
  const legend = [...gd.querySelectorAll('.legend .legendtext')].map(t => t.textContent);
  const traces = [...gd.querySelectorAll('.scatterlayer .trace, .barlayer .trace')];
  return {
    traces: gd.data.map((t, i) => ({
      name: t.name === undefined ? null : String(t.name), meta: t.meta === undefined ? null : String(t.meta),
      showlegend: t.showlegend !== false,
      x: t.x ? Array.from(t.x) : [], y: t.y ? Array.from(t.y) : [],
      text: t.text ? Array.from(t.text).map(String) : [],
    })),
    legend: legend,
    title: (gd.layout.title && gd.layout.title.text) || '',
    markers: [...gd.querySelectorAll('.scatterlayer .trace')].map(
      tr => [...tr.querySelectorAll('path.point')].map(p => p.getAttribute('transform'))),
  };
}
"""


def figure(page, box: str):
    return page.evaluate(FIGURE_JS, box)


#: What a widget box holds so far: "no box", "no figure" (the box, but plotly has not drawn
#: into it), or the number of traces and of legend entries drawn.
_DRAWN_JS = """
(box) => {
  const el = document.querySelector('.' + box);
  if (!el) return 'no box';
  const gd = el.querySelector('.js-plotly-plot');
  if (!gd || !gd.data) return 'no figure';
  return gd.data.length + ' traces, ' + gd.querySelectorAll('.legend .legendtext').length + ' legend entries';
}
"""


def wait_until_drawn(page, boxes, legend: bool = True, timeout_s: float = None,
                     screenshot: str = "not-drawn") -> None:
    """Wait until plotly has drawn a figure in every widget box of ``boxes`` (CSS classes),
    with a legend when ``legend``.  On timeout, keep a screenshot of the page in ARTIFACTS and
    fail naming each box that was not drawn and what it held."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    timeout_s = RUN_ALL_S if timeout_s is None else timeout_s
    deadline = time.monotonic() + timeout_s
    for box in boxes:
        check = (f"() => {{ const f = ({FIGURE_JS})('{box}'); "
                 f"return f !== null{' && f.legend.length > 0' if legend else ''}; }}")
        try:
            page.wait_for_function(check, timeout=max(1.0, deadline - time.monotonic()) * 1000)
        except PlaywrightTimeout:
            held = {b: page.evaluate(_DRAWN_JS, b) for b in boxes}
            fail_with_state(page, f"not drawn within {timeout_s:g} s: {box} (every box: {held})", screenshot)


#: How long a run-all's figures get to be drawn, once the kernel is idle after the run-all,
#: before the notebook is opened and run once more.  Beside the other test workers a figure
#: was, now and then, never drawn (3 of 10 whole test runs, 2026-12-01; 4 of 5 runs of the
#: widget file under load 5-14, 2026-12-02): the page's first figure widget (the explorer)
#: held 0 traces while the rest of the notebook had rendered, and the second run-all drew it.
#: The cause, found 2026-12-02: anywidget drops every comm message to a model whose widget
#: initialize takes over 2 s, and the first figure's initialize imported plotly (1.5-2 s
#: alone), so the message with its traces never reached it; plotting's widget loader now
#: returns from initialize at once (test_browser_first_figure.py shows the blank figure with
#: the old loader and a slow import, and the drawn one with the new; benchmarks/first_draw.py
#: counted blank first figures in 6 of 10 run-alls with the old loader under load 9-27, 0 of
#: 10 with the new, on the 2-core VM, 2026-12-02).  When they were drawn,
#: every figure was there 0.00-0.10 s after the kernel went idle, alone and in a whole test
#: run alike; 20 s is 200 times that.  The second run-all stays as a net, with a warning.
FIRST_DRAW_S = 20


def run_all_until_drawn(page, url: str, ready_selector: str, boxes, legend: bool = True,
                        screenshot: str = "not-drawn") -> None:
    """:func:`open_and_run_all`, then :func:`wait_until_drawn` for ``boxes``.  If a figure is
    not drawn within FIRST_DRAW_S, the notebook is opened and run once more, with a warning
    that keeps what the first attempt saw; a second failure fails."""
    import warnings
    open_and_run_all(page, url, ready_selector)
    try:
        wait_until_drawn(page, boxes, legend, timeout_s=FIRST_DRAW_S, screenshot=f"{screenshot}-first")
        return
    except AssertionError as first:
        warnings.warn(f"browser: {first}; opened and ran the notebook once more")
    open_and_run_all(page, url, ready_selector)
    wait_until_drawn(page, boxes, legend, screenshot=screenshot)


def fail_with_state(page, what: str, screenshot: str) -> None:
    """Fail with ``what``, keeping a screenshot of the page in ARTIFACTS and saying what the page
    and the newest JupyterLab server logged last."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        page.screenshot(path=str(ARTIFACTS / f"{screenshot}.png"), full_page=True)
    except Exception as exc:  # the page itself may be what broke
        screenshot = f"none ({type(exc).__name__})"
    said = getattr(page, "roofline_console", [])[-8:]
    log = SERVER_LOGS[-1].read_text(errors="replace").splitlines()[-15:] if SERVER_LOGS else []
    raise AssertionError(f"{what}; screenshot {screenshot}.png; the page said {said}; "
                         f"the server's log ended {log}")


#: What the test tools' JupyterLab extension (nbgrader's) would add to a page: a menu, plugins,
#: a Validate button in a notebook's toolbar; and a menu every JupyterLab page has, as a control.
TEST_TOOLS_JS = """
() => {
  const app = window.jupyterapp;
  const plugins = app.listPlugins().filter(id => id.startsWith('@jupyter/nbgrader'));
  return {
    menus: [...document.querySelectorAll('.lm-MenuBar-itemLabel')].map(e => e.textContent.trim()),
    activated: plugins.filter(id => app.isPluginActivated(id)),
    validate: [...document.querySelectorAll('.jp-Toolbar-item')]
      .map(e => e.textContent.trim()).filter(t => /validate/i.test(t)),
  };
}
"""


def assert_no_test_tools(page) -> None:
    """The page shows nothing of the test tools ``course.py test`` installs into .venv."""
    seen = page.evaluate(TEST_TOOLS_JS)
    assert "File" in seen["menus"], seen  # the menu bar was read
    assert "Nbgrader" not in seen["menus"] and not seen["activated"] and not seen["validate"], seen


def text_of(page, box: str, css: str) -> str:
    return page.locator(f".{box} .{css}").first.inner_text()


def drag_slider(page, box: str, fraction: float, index: int = 0) -> None:
    """Drag the ``index``-th slider handle in ``box`` to ``fraction`` of its track."""
    track = page.locator(f".{box} .noUi-target").nth(index)
    handle = page.locator(f".{box} .noUi-handle").nth(index)
    track.scroll_into_view_if_needed()
    track_box, handle_box = track.bounding_box(), handle.bounding_box()
    start_x = handle_box["x"] + handle_box["width"] / 2
    y = handle_box["y"] + handle_box["height"] / 2
    target_x = track_box["x"] + fraction * track_box["width"]
    page.mouse.move(start_x, y)
    page.mouse.down()
    for step in range(1, 9):
        page.mouse.move(start_x + (target_x - start_x) * step / 8, y)
        page.wait_for_timeout(40)
    page.mouse.up()
