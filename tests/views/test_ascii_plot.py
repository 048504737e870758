"""The text roofline: marks where the model puts them, on any span of intensities."""
import math

import pytest

from rooflinelib import Roofline
from rooflinelib.core import operators
from rooflinelib.views.ascii_plot import (RIDGE_MARK, ROOF_MARK, SHARED_MARK, format_decade,
                                          format_number, kernel_mark, render, render_chart,
                                          render_table)
from rooflinelib.core.placement import KernelPoint

LAB2 = Roofline(78500, 4650)
LABEL = 9  # y label (7) + space + axis bar


def plot_rows(chart: str) -> list:
    """The rows of the plot area, without y labels."""
    lines = chart.splitlines()
    axis = next(i for i, line in enumerate(lines) if line[LABEL - 1:LABEL + 1] in ("++", "+-"))
    return [line[LABEL:] for line in lines[1:axis]]


def find(rows: list, mark: str) -> tuple:
    hits = [(r, row.index(mark)) for r, row in enumerate(rows) if mark in row]
    assert len(hits) == 1, (mark, hits)
    return hits[0]


def test_size_follows_width_and_height():
    chart = render_chart(LAB2, operators.demo_kernels(), width=50, height=12)
    rows = plot_rows(chart)
    assert len(rows) == 12
    assert max(len(row) for row in rows) <= 50
    with pytest.raises(ValueError, match="width"):
        render_chart(LAB2, width=5)
    with pytest.raises(ValueError, match="height"):
        render_chart(LAB2, height=True)


def test_roof_is_unbroken_and_never_falls():
    rows = plot_rows(render_chart(LAB2, width=60, height=20))
    tops = []
    for column in range(60):
        marks = [r for r, row in enumerate(rows) if column < len(row) and row[column] == ROOF_MARK]
        assert marks, f"no roof in column {column}"
        # The marks in a column are contiguous, and touch the previous column's (no gaps).
        assert marks == list(range(marks[0], marks[-1] + 1))
        if tops:
            assert marks[0] <= tops[-1]  # rows count downwards: the roof never falls
            assert marks[-1] >= tops[-1] - 1  # reaches down to the previous column's top
        tops.append(marks[0])
    assert tops[0] > tops[-1]  # it rises on the left and is flat on the right
    assert tops[-1] == tops[-2] == tops[-10]


def test_ridge_column_sits_at_the_ridge_and_splits_the_kernels():
    kernels = operators.demo_kernels()
    rows = plot_rows(render_chart(LAB2, kernels, width=64, height=18))
    ridge_columns = {row.index(RIDGE_MARK) for row in rows if RIDGE_MARK in row}
    assert len(ridge_columns) == 1
    ridge_column = ridge_columns.pop()
    for index, kernel in enumerate(kernels):
        _, column = find(rows, kernel_mark(index))
        assert (column < ridge_column) == (kernel.intensity < LAB2.ridge)
    # The ridge line runs from under the roof's knee down to the axis.
    below = [row[ridge_column] if ridge_column < len(row) else " " for row in rows]
    assert below[-1] == RIDGE_MARK


def test_unmeasured_kernels_sit_on_the_roof_and_measured_ones_below():
    kernels = [KernelPoint("on roof", 5 * 2 ** 24, 8 * 2 ** 24),
               KernelPoint("measured", 5 * 2 ** 24, 8 * 2 ** 24, 410)]
    rows = plot_rows(render_chart(LAB2, kernels, width=64, height=24))
    row_a, column_a = find(rows, "A")
    row_b, column_b = find(rows, "B")
    assert column_a == column_b  # same intensity
    assert row_b > row_a  # 410 GFLOP/s is lower than the 2906 GFLOP/s roof
    # A sits on the roof (its letter replaces a '#'), so the roof continues right next to it.
    neighbours = [rows[r][c] for r in (row_a - 1, row_a, row_a + 1)
                  for c in (column_a - 1, column_a + 1) if 0 <= r < len(rows) and c < len(rows[r])]
    assert ROOF_MARK in neighbours
    column_b_roof = [r for r, row in enumerate(rows) if row[column_b - 1:column_b] == ROOF_MARK]
    assert all(r < row_b - 1 for r in column_b_roof)  # B is well under the roof


def test_intensities_from_1e_minus_3_to_1e5_all_show():
    kernels = [KernelPoint("tiny", 1, 1000), KernelPoint("huge", 1e5, 1),
               KernelPoint("huge measured", 1e5, 1, 10)]
    chart = render_chart(LAB2, kernels, width=64, height=16)
    rows = plot_rows(chart)
    _, tiny = find(rows, "A")
    row_b, huge = find(rows, "B")
    row_c, huge_c = find(rows, "C")
    assert tiny < 8 and huge > 55 and huge_c == huge
    assert row_c > row_b + 5  # 10 GFLOP/s, far under the 78,500 roof
    axis_labels = chart.splitlines()[len(rows) + 2]
    assert "0.001" in axis_labels or "1e-4" in axis_labels
    assert "100k" in axis_labels or "1M" in axis_labels


def test_two_kernels_in_one_cell_are_flagged():
    kernels = [KernelPoint("a", 1, 1), KernelPoint("b", 1, 1)]
    chart = render_chart(LAB2, kernels)
    assert SHARED_MARK in "".join(plot_rows(chart))
    assert "share a character cell" in chart


def test_legend_names_roof_ridge_and_kernels():
    chart = render_chart(LAB2, [KernelPoint("k1", 1, 1, 100)])
    assert f"{ROOF_MARK} roof min(P, I*B): P = 78,500 GFLOP/s" in chart
    assert f"{RIDGE_MARK} ridge P/B = {LAB2.ridge:.4g} FLOP/byte" in chart
    assert "A k1  (I = 1, 100 GFLOP/s achieved)" in chart


def test_table_columns_and_values():
    kernels = operators.demo_kernels() + [KernelPoint("my_softmax", 5 * 2 ** 24, 8 * 2 ** 24, 410)]
    table = render_table(LAB2, kernels)
    lines = table.splitlines()
    for heading in ("kernel", "I FLOP/byte", "roof GFLOP/s", "% of roof", "side", "next step"):
        assert heading in lines[0]
    rows = {line[0]: line for line in lines[2:] if line[:1].strip()}
    assert sorted(rows) == list("ABCDEFG")
    assert "vector add" in rows["A"] and "0.0833" in rows["A"] and "387.5" in rows["A"]
    assert " - " in rows["A"] and "memory" in rows["A"] and "Memory-bound" in rows["A"]
    assert "same as A" in rows["B"]  # repeated advice is not printed again
    assert "1,365" in rows["E"] and "78,500" in rows["E"] and "compute" in rows["E"]
    assert "14%" in rows["G"] and "Far below" in rows["G"]
    assert max(len(line) for line in render_table(LAB2, kernels, width=140).splitlines()) <= 140
    assert "no kernels" in render_table(LAB2, [])


def test_render_is_chart_then_table():
    text = render(LAB2, operators.demo_kernels())
    assert text.index("GFLOP/s") < text.index("ridge P/B") < text.index("next step")


@pytest.mark.parametrize("exponent, label", [(-4, "1e-4"), (-3, "0.001"), (-1, "0.1"), (0, "1"),
                                             (2, "100"), (3, "1k"), (5, "100k"), (6, "1M"),
                                             (9, "1e+9")])
def test_decade_labels(exponent, label):
    assert format_decade(exponent) == label
    assert math.isclose(float(label.replace("k", "e3").replace("M", "e6")), 10.0 ** exponent)


def test_number_format():
    assert format_number(1 / 12) == "0.0833"
    assert format_number(1365.333) == "1,365"
    assert format_number(16.8817) == "16.88"


def test_marks_run_out_gracefully():
    assert kernel_mark(0) == "A" and kernel_mark(26) == "a" and kernel_mark(61) == "9"
    assert kernel_mark(62) == SHARED_MARK
