"""Exercise 1's key after review 10a: the exercise gives every count, so no hint sends the student
to recount FMAs or copies (K-1), and a slowdown of 0 is told that 1 means no change (K-2); the
student copy says plainly which memory ceiling a point without one is judged against (C-EX1-1)."""
from pathlib import Path

import nbformat
import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01

ROOT = Path(__file__).resolve().parents[2]
RECOUNT = "one fused multiply-add is 2 FLOPs"


def _messages(result):
    return [c.message for c in result.checks]


def _all_checks(result):
    """The leaf checks of a report, nested reports (check_table) included."""
    for check in result.checks:
        if hasattr(check, "checks"):
            yield from _all_checks(check)
        else:
            yield check


@pytest.mark.parametrize("slowdown_20, slowdown_80", [
    (3, 2), ("50%", "50%"), (0.75, 0.5), ("1.5", "2"),
])
def test_k1_a_slowdown_off_by_two_gets_no_recount_hint(slowdown_20, slowdown_80):
    result = ex01.check_slowdowns(slowdown_20, slowdown_80)
    assert not result.passed
    for message in _messages(result):
        assert RECOUNT not in message and "factor of 2" not in message, message


def test_k1_ridges_and_rates_off_by_two_get_no_recount_hint_but_keep_the_prefix_hint():
    ridges = ex01.check_ridges(20, 120)  # half and twice the keys, 40 and 60
    for message in _messages(ridges):
        # review 56k1: the factor of 2 is named, as exercise 2's ridge check names it, with no count
        assert RECOUNT not in message and message == ex01._RIDGE_TWICE_OR_HALF, message
    rates = ex01.check_predictions(30, 240, 20, 60)  # each half or twice its key
    for message in _messages(rates):
        assert RECOUNT not in message, message
    # a prefix slip is still named: GFLOP/s typed where TFLOP/s is asked, TFLOP/s over GB/s
    prefix = ex01.check_predictions(60_000, 120, 40, 120)
    assert "factor of 1,000" in _messages(prefix)[0]
    assert all("factor of 1,000" in m for m in _messages(ex01.check_ridges(0.04, 0.06)))
    # the keys still pass, and the named slips keep their own hints
    assert ex01.check_ridges(40, 60).passed and ex01.check_predictions(60, 120, 40, 120).passed
    assert "recompute P / B" in _messages(ex01.check_ridges(40, 40))[1]


def test_k2_zero_slowdown_is_told_that_one_means_no_change():
    result = ex01.check_slowdowns(1.5, 0)
    assert _messages(result)[0].startswith("correct")
    assert _messages(result)[1] == "old rate / new rate is 1 when nothing changes, not 0"
    assert "must be positive" not in _messages(result)[1]
    assert "1 when nothing changes" in _messages(ex01.check_slowdowns(0, 1))[0]
    # "0%" is the loss-of-rate reading of the same answer, and passes for the 80 FLOP/byte kernel
    assert ex01.check_slowdowns(1.5, "0%").passed


def _markdown(folder):
    cells = nbformat.read(str(ROOT / folder / "01_place_two_kernels.ipynb"), as_version=4).cells
    return " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")


def test_c_ex1_1_the_default_memory_ceiling_is_said_plainly():
    pytest.importorskip("plotly")
    from rooflinelib.core.model import Ceiling, Machine
    from rooflinelib.core.placement import KernelPoint
    from rooflinelib.views.plotting import roofline_figure

    for folder in ("solutions", "exercises"):
        text = _markdown(folder)
        assert "left out, it is the chart's first memory ceiling" not in text
        assert ('Without it, a point is judged against the ceiling named `"dram"` if there is one, else '
                'the first memory ceiling you listed') in text
    # what the chart does: "dram" wins when listed second; without one, the first listed wins
    for ceilings, ridge in (((Ceiling("dram-2tbs", "memory", 2_000), Ceiling("dram", "memory", 3_000)), 40),
                            ((Ceiling("hbm-2", "memory", 2_000), Ceiling("hbm-3", "memory", 3_000)), 60)):
        machine = Machine("m", ceilings=(*ceilings, Ceiling("fp32", "compute", 120_000)))
        figure = roofline_figure(machine, [KernelPoint("k", 20, 1, 40_000)])
        point = next(t for t in figure.data if str(t.meta).startswith("kernel:"))
        assert f"ridge {ridge:g} FLOP/byte)" in " ".join(point.hovertext), point.hovertext
