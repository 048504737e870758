"""The pytest plugin of the roofline regression gates (registered as ``roofline`` through the
package's ``pytest11`` entry point, so installing rooflinelib is enough).

    def test_copy_keeps_the_bandwidth(roofline):
        roofline.check(copy, a, b, n_flops=0, n_bytes=2 * a.nbytes, at_least=0.9)

``roofline.check`` takes the arguments of :func:`rooflinelib.testing.assert_roofline`.  The
ceilings are ``--roofline-ceilings FILE`` (a Lab 1 result), else ``--roofline-machine NAME``
(a datasheet machine), else the stored Lab 1 result, else Lab 1 measured once per test
process (the summary says which).  An ambiguous gate fails, its message saying "ambiguous"
and giving the interval.  The terminal summary lists every gate: kernel, share and interval,
threshold, verdict.

The module imports only pytest: a run whose tests use no gate loads nothing else, and the
hooks below do nothing for it.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

PROPERTY = "roofline_gate"


def pytest_addoption(parser):
    group = parser.getgroup("roofline", "roofline regression gates (rooflinelib)")
    group.addoption("--roofline-ceilings", metavar="FILE", default=None,
                    help="a Lab 1 result file to gate kernels against (default: the stored Lab 1 result)")
    group.addoption("--roofline-machine", metavar="NAME", default=None,
                    help="a datasheet machine to gate kernels against instead of measured ceilings")


def pytest_configure(config):
    if config.getoption("roofline_ceilings", None) and config.getoption("roofline_machine", None):
        raise pytest.UsageError("--roofline-ceilings, --roofline-machine: give one of the two, not both")
    config.pluginmanager.register(GateSummary(), "roofline-gate-summary")


class RooflineGates:
    """The ``roofline`` fixture: ``check(...)`` gates one kernel and records the outcome."""

    def __init__(self, node, ceilings):
        self._node = node
        self._ceilings = ceilings

    def check(self, fn, *args, n_flops, n_bytes, at_least, ceilings=None, precision=None, repeats=None,
              memory=None, **kwargs):
        """:func:`rooflinelib.testing.assert_roofline`, with the session's ceilings by default."""
        __tracebackhide__ = True  # a failed gate points at the test's line
        from rooflinelib.testing import gate, raise_for  # here, not at the top: a run without gates loads none of it
        outcome = gate(fn, *args, n_flops=n_flops, n_bytes=n_bytes, at_least=at_least,
                       ceilings=self._ceilings if ceilings is None else ceilings, precision=precision,
                       repeats=repeats, memory=memory, **kwargs)
        self._node.user_properties.append((PROPERTY, {
            "test": self._node.nodeid, "kernel": outcome.name, "share": outcome.share, "low": outcome.low,
            "high": outcome.high, "at_least": outcome.at_least, "verdict": outcome.verdict,
            "ceilings": outcome.ceilings_source, "clocks": outcome.clocks.text}))
        return raise_for(outcome)


@pytest.fixture
def roofline(request):
    """Regression gates on the roofline: ``roofline.check(fn, *args, n_flops=, n_bytes=, at_least=)``."""
    config = request.config
    path = config.getoption("roofline_ceilings", None)
    if path:  # relative to where pytest was started, whatever folder a test moves to
        path = str(Path(config.invocation_params.dir, path))
    return RooflineGates(request.node, path or config.getoption("roofline_machine", None))


class GateSummary:
    """Collects the gates of one run and prints them at its end (nothing when there were none)."""

    def __init__(self):
        self.rows = []

    def pytest_runtest_logreport(self, report):
        # The teardown report carries every property the test added (setup and call included);
        # under xdist it is also the one that reaches the controlling process.
        if report.when == "teardown" and report.user_properties:
            self.rows += [value for key, value in report.user_properties if key == PROPERTY]

    def pytest_terminal_summary(self, terminalreporter):
        rows = self.rows
        if not rows:
            return
        terminalreporter.section("roofline gates")
        width = max(12, *(len(r["kernel"]) for r in rows))
        terminalreporter.write_line(f"{'kernel':<{width}}  {'share':>7}  {'95% interval':>17}  {'threshold':>10}  verdict")
        from rooflinelib.testing import share_text  # loaded already: a gate ran
        for r in rows:
            interval = f"{share_text(r['low'])} to {share_text(r['high'])}"
            terminalreporter.write_line(f"{r['kernel']:<{width}}  {share_text(r['share']):>7}  {interval:>17}  "
                                        f">= {share_text(r['at_least']):>7}  {r['verdict']}")
        for source in dict.fromkeys(r["ceilings"] for r in rows):
            terminalreporter.write_line(f"ceilings: {source}")
        # one line for each distinct clock reading, not for each gate's count of samples
        for clocks in dict.fromkeys(re.sub(r"median of \d+ NVML samples", "median of the NVML samples", r["clocks"])
                                    for r in rows):
            terminalreporter.write_line(clocks)
