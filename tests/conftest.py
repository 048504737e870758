"""Shared test set-up.  Kept small on purpose: fixtures belong with the tests that use them."""
import os

from hypothesis import settings

# Same examples on every run, so a CI failure reproduces locally.  Export
# HYPOTHESIS_PROFILE=explore to let hypothesis search afresh (and with more examples).
settings.register_profile("course", derandomize=True, print_blob=True)
settings.register_profile("explore", max_examples=1000, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "course"))

# `roofline measure` and `sweep` store their results by default, and the notebooks load what is
# stored: the tests (and the notebooks nbval runs) use a folder of their own, never a
# student's results/, so that a stored measurement neither changes a checked output nor is
# overwritten by a test.
if not os.environ.get("ROOFLINE_RESULTS_DIR"):
    import tempfile
    os.environ["ROOFLINE_RESULTS_DIR"] = tempfile.mkdtemp(prefix="roofline-test-results-")


#: Tests that need a device this machine may lack, by marker: each kind skipped says so once at
#: the end of the run, with its reason (pytest prints no skip reasons unless asked with -rs).
DEVICE_MARKERS = {"gpu": "GPU tests (run them on a CUDA GPU: python -m pytest -m gpu)",
                  "browser": "real-browser tests"}


def _skip_reason(report) -> str:
    reason = report.longrepr[-1] if isinstance(report.longrepr, (tuple, list)) else str(report.longrepr)
    return str(reason).removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter):
    """One line for each kind of device test that was skipped: how many, and why (the commonest
    reason, and how many others there were)."""
    for marker, kind in DEVICE_MARKERS.items():
        reasons = {}
        for report in terminalreporter.stats.get("skipped", []):
            if marker in getattr(report, "keywords", {}):
                reason = _skip_reason(report)
                reasons[reason] = reasons.get(reason, 0) + 1
        if not reasons:
            continue
        ranked = sorted(reasons, key=lambda r: -reasons[r])
        others = f"; {len(ranked) - 1} other reason(s)" if len(ranked) > 1 else ""
        terminalreporter.write_line(f"{kind}: {sum(reasons.values())} skipped: {ranked[0][:200]}{others}",
                                    yellow=True)


def pytest_collection_modifyitems(config, items):
    """Long files first.  ``course.py test`` spreads whole files over its workers in this order
    (``--no-loadscope-reorder``), and a long file handed out last would run on alone at the end.
    A file is long when it holds a test marked ``slow`` or is a notebook (nbval runs each in a
    kernel of its own, and several measure this machine live); the order inside a file, which
    a notebook's cells need, is kept."""
    long_files = {item.path for item in items
                  if item.get_closest_marker("slow") is not None or item.path.suffix == ".ipynb"}
    items.sort(key=lambda item: item.path not in long_files)  # a stable sort


try:
    from xdist.scheduler import LoadFileScheduling
except ImportError:  # pytest runs in one process; nothing to schedule
    LoadFileScheduling = None

#: The browser tests' folder: its files go to one worker together (see below).
BROWSER_TESTS = "tests/browser/"

if LoadFileScheduling is not None:
    class _BrowserTestsTogether(LoadFileScheduling):
        """Whole files per worker, the browser tests' files counting as one."""

        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return BROWSER_TESTS if scope.startswith(BROWSER_TESTS) else scope

    def pytest_xdist_make_scheduler(config, log):
        """Under ``--dist loadfile``, the browser tests run one after the other on one worker.
        Each starts JupyterLab and headless Chromium; two of them at once on these 2 cores left a
        figure undrawn for 300 s (its legend never came) where either alone passed."""
        if config.getvalue("dist") != "loadfile":
            return None
        return _BrowserTestsTogether(config, log)
