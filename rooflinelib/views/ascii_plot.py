"""A log-log roofline drawn in plain text, and the placement table that goes under it.

Standard library only, so that ``roofline plot`` works on a bare login node.  The chart marks
the roof with ``#``, the ridge column with ``:`` and each kernel with a letter (``A``, ``B``, ...)
at its intensity and its achieved rate, or at its roof when it was not timed.
"""
from __future__ import annotations

import math
import string
import textwrap

from rooflinelib.core.model import Roofline
from rooflinelib.core.placement import as_kernel_point, place

ROOF_MARK = "#"
RIDGE_MARK = ":"
#: Shown where two kernels land in the same character cell; the legend lists both.
SHARED_MARK = "*"
KERNEL_MARKS = string.ascii_uppercase + string.ascii_lowercase + string.digits

MIN_WIDTH, MIN_HEIGHT = 20, 6
MAX_WIDTH, MAX_HEIGHT = 400, 200
_Y_LABEL_WIDTH = 7


def kernel_mark(index: int) -> str:
    """The letter for the index-th kernel: A..Z, a..z, 0..9, then ``*`` for the rest."""
    return KERNEL_MARKS[index] if 0 <= index < len(KERNEL_MARKS) else SHARED_MARK


def format_decade(exponent: int) -> str:
    """A short tick label for 10**exponent: 0.001, 0.1, 1, 100, 10k, 1M, 1e-05, 1e+12."""
    if 0 <= exponent <= 2:
        return str(10 ** exponent)
    if 3 <= exponent <= 5:
        return f"{10 ** (exponent - 3)}k"
    if 6 <= exponent <= 8:
        return f"{10 ** (exponent - 6)}M"
    if -3 <= exponent < 0:
        return f"{10.0 ** exponent:.{-exponent}f}"
    return f"1e{exponent:+d}"


def format_number(value: float) -> str:
    """Three or four significant figures, with thousands separators from 1000 up."""
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 1:
        return f"{value:.4g}"
    return f"{value:.3g}"


def _plotted_rate(point, roofline: Roofline) -> float:
    if point.achieved_gflops is not None:
        return point.achieved_gflops
    return roofline.attainable_gflops(point.intensity)


def _decade_span(values, margin: float) -> tuple:
    """Whole decades (log10) that contain every value with ``margin`` decades to spare."""
    logs = [math.log10(v) for v in values]
    low = math.floor(min(logs) - margin)
    high = math.ceil(max(logs) + margin)
    return low, max(high, low + 1)


def _check_size(width: int, height: int) -> None:
    if isinstance(width, bool) or not isinstance(width, int) or not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ValueError(f"width: must be a whole number from {MIN_WIDTH} to {MAX_WIDTH}, got {width!r}")
    if isinstance(height, bool) or not isinstance(height, int) or not MIN_HEIGHT <= height <= MAX_HEIGHT:
        raise ValueError(f"height: must be a whole number from {MIN_HEIGHT} to {MAX_HEIGHT}, "
                         f"got {height!r}")


def render_chart(roofline: Roofline, kernels=(), width: int = 64, height: int = 18,
                 source: str = None) -> str:
    """The roofline and its kernels as text: ``width`` plot columns by ``height`` plot rows.
    ``source`` (the machine and its mode, e.g. ``"H200 [datasheet]"``) heads the chart.

    The x axis spans whole decades around the ridge and every kernel's intensity, however far
    apart (1e-3 and 1e5 FLOP/byte fit together); the y axis spans the roof and every plotted rate.
    """
    _check_size(width, height)
    points = [as_kernel_point(k) for k in kernels]
    ridge = roofline.ridge
    x_low, x_high = _decade_span([ridge] + [p.intensity for p in points], margin=0.5)

    def x_of(column: int) -> float:  # intensity at the centre of a column
        return 10 ** (x_low + (column + 0.5) * (x_high - x_low) / width)

    def column_of(intensity: float) -> int:
        fraction = (math.log10(intensity) - x_low) / (x_high - x_low)
        return min(width - 1, max(0, int(fraction * width)))

    roof_rates = [roofline.attainable_gflops(x_of(c)) for c in range(width)]
    rates = [_plotted_rate(p, roofline) for p in points]
    y_low, y_high = _decade_span(roof_rates + rates, margin=0.02)

    def row_of(rate: float) -> int:  # row 0 is the top of the chart
        fraction = (math.log10(rate) - y_low) / (y_high - y_low)
        return min(height - 1, max(0, height - 1 - int(fraction * height)))

    grid = [[" "] * width for _ in range(height)]
    roof_rows = [row_of(rate) for rate in roof_rates]
    ridge_column = column_of(ridge)
    for row in range(roof_rows[ridge_column] + 1, height):
        grid[row][ridge_column] = RIDGE_MARK
    for column, row in enumerate(roof_rows):
        # A steep stretch of the slope can jump several rows between neighbouring columns:
        # fill the gap so the roof reads as one unbroken line.
        # The roof never falls, so only an upward jump (a smaller row index) needs filling.
        lowest = roof_rows[column - 1] - 1 if column and roof_rows[column - 1] > row + 1 else row
        for fill in range(row, lowest + 1):
            grid[fill][column] = ROOF_MARK
    for index, (point, rate) in enumerate(zip(points, rates)):
        row, column = row_of(rate), column_of(point.intensity)
        grid[row][column] = SHARED_MARK if grid[row][column] in KERNEL_MARKS else kernel_mark(index)

    lines = [f"Roofline of {source}"] if source else []
    lines.append(f"{'GFLOP/s':>{_Y_LABEL_WIDTH}}")
    labelled = {row_of(10 ** e): format_decade(e) for e in range(y_low, y_high + 1)}
    for row in range(height):
        label = labelled.get(row, "")
        lines.append(f"{label:>{_Y_LABEL_WIDTH}} {'+' if label else '|'}{''.join(grid[row]).rstrip()}")
    axis = ["-"] * width
    tick_labels = [" "] * (width + 8)
    next_free = 0
    for exponent in range(x_low, x_high + 1):
        column = min(width - 1, round((exponent - x_low) * width / (x_high - x_low)))
        axis[column] = "+"
        text = format_decade(exponent)
        start = max(0, column - len(text) // 2)
        if start >= next_free:  # skip a label that would run into the previous one
            tick_labels[start:start + len(text)] = text
            next_free = start + len(text) + 1
    lines.append(f"{'':>{_Y_LABEL_WIDTH}} +{''.join(axis)}")
    lines.append(f"{'':>{_Y_LABEL_WIDTH}}  {''.join(tick_labels).rstrip()}")
    lines.append(f"{'':>{_Y_LABEL_WIDTH}}  {'arithmetic intensity (FLOP/byte)':^{width}}".rstrip())
    lines.append("")
    lines.append(f"  {ROOF_MARK} roof min(P, I*B): P = {format_number(roofline.peak_gflops)} GFLOP/s "
                 f"({roofline.compute_name}), B = {format_number(roofline.peak_gbps)} GB/s "
                 f"({roofline.memory_name})")
    lines.append(f"  {RIDGE_MARK} ridge P/B = {format_number(ridge)} FLOP/byte")
    for index, (point, rate) in enumerate(zip(points, rates)):
        where = "achieved" if point.achieved_gflops is not None else "on its roof, not timed"
        lines.append(f"  {kernel_mark(index)} {point.name}  (I = {format_number(point.intensity)}, "
                     f"{format_number(rate)} GFLOP/s {where})")
    if any(SHARED_MARK in row for row in grid):
        lines.append(f"  {SHARED_MARK} two or more kernels share a character cell")
    return "\n".join(lines)


TABLE_COLUMNS = ("", "kernel", "I FLOP/byte", "roof GFLOP/s", "% of roof", "side", "next step")


def render_table(roofline: Roofline, kernels=(), width: int = 120, source: str = None) -> str:
    """One row per kernel: letter, name, intensity, roof, % of roof (or ``-``), side, next step.
    ``source`` names the machine and its mode above the table.

    The next step is the advice of the course's decision table, wrapped to fit ``width``; a kernel
    whose advice repeats an earlier row's says "same as A" instead.
    """
    records = [place(k, roofline) for k in kernels]
    if not records:
        return "no kernels to place: add --kernel \"name, flops, bytes[, achieved_gflops]\" or --demo-kernels"
    rows = []
    first_with_advice = {}
    for index, record in enumerate(records):
        fraction = record["fraction_of_roof"]
        mark = kernel_mark(index)
        # Several kernels usually share one piece of advice; spell it out once.
        advice = record["advice"]
        if advice in first_with_advice:
            advice = f"same as {first_with_advice[advice]}"
        else:
            first_with_advice[advice] = mark
        rows.append((
            mark, record["name"], format_number(record["intensity"]),
            format_number(record["roof_gflops"]),
            "-" if fraction is None else f"{100 * fraction:.0f}%",
            record["side"], advice,
        ))
    widths = [max(len(TABLE_COLUMNS[i]), *(len(r[i]) for r in rows)) for i in range(6)]
    right_aligned = (2, 3, 4)

    def cells(values) -> str:
        return "  ".join(v.rjust(w) if i in right_aligned else v.ljust(w)
                         for i, (v, w) in enumerate(zip(values, widths)))

    indent = len(cells([""] * 6)) + 2
    advice_width = max(40, width - indent)
    head = [f"Kernels on {source}, {roofline.compute_name} against {roofline.memory_name}"
            + (" (CPU advice)" if roofline.target == "cpu" else "")] if source else []
    lines = head + [cells(TABLE_COLUMNS[:6]) + "  " + TABLE_COLUMNS[6],
             cells(["-" * w for w in widths]) + "  " + "-" * min(advice_width, 40)]
    for row in rows:
        wrapped = textwrap.wrap(row[6], advice_width) or [""]
        lines.append(cells(row[:6]) + "  " + wrapped[0])
        lines.extend(" " * indent + more for more in wrapped[1:])
    return "\n".join(lines)


def render(roofline: Roofline, kernels=(), width: int = 64, height: int = 18,
           source: str = None) -> str:
    """Chart, then table: what ``roofline plot`` prints by default; ``source`` names the
    machine and the mode over both."""
    return (render_chart(roofline, kernels, width, height, source) + "\n\n"
            + render_table(roofline, kernels, source=source))
