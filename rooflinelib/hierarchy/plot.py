"""Charts and the widget of the hierarchical roofline (notebook 05).

- :func:`sweep_figure`: read bandwidth against working-set size, log-log, with the detected
  levels (dashed, over their plateaus), their capacities (dotted) and the cache sizes the
  device reports (dash-dot).
- :func:`hierarchical_figure`: the roofline of :func:`rooflinelib.views.plotting.roofline_figure`
  with one memory roof per level, and each kernel drawn NERSC-style: one marker per level at
  the same GFLOP/s, joined by a line, the binding level's marker outlined, each level a size
  of its own (innermost largest) so that markers at the same intensity stay visible.
- :class:`WorkingSetExplorer`: a slider over the working-set size; the kernel's points and the
  verdict follow, and so does a marker on the sweep.

Trace ids (``meta``), for widgets and tests: ``series:<name>``, ``level:<name>``,
``capacity:<name>``, ``reported:<name>``, ``ws-marker``; ``hier:<kernel>`` (the joining line)
and ``hier:<kernel>:<level>`` (a marker); ``peak:<level>`` for a second machine's memory roofs.
Plotly and ipywidgets are imported inside the functions.
"""
from __future__ import annotations

import math

from rooflinelib.views import widgets as wd
from rooflinelib.views.plotting import (COLOURS, FALLBACK_COLOURS, figure_widget, find_trace,
                                        legend_below, memory_id, roofline_figure)
from rooflinelib.hierarchy.levels import format_bytes
from rooflinelib.hierarchy.level_placement import (WorkingSetState, ends_in_memory,
                                                   hierarchy_levels, hierarchy_series,
                                                   kernel_curve, reference_curve, series_levels, sm_readers,
                                                   working_set_state)
from rooflinelib.hierarchy.workingset_files import HierarchyError, reported_sizes, series_of

LEVEL_COLOURS = dict(COLOURS, l1="#2ca02c", l3="#9467bd")
SERIES_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728")
#: A level drawn over the sweep in a series' own colour (the DRAM's blue) read as that series
#: continuing past where it stops (537 MB, review 46c): such a level's plateau and capacity lines
#: take this colour instead.
PLATEAU_CLASH_COLOUR = "#8c564b"


def level_colour(name: str, index: int = 0) -> str:
    return LEVEL_COLOURS.get(name, FALLBACK_COLOURS[index % len(FALLBACK_COLOURS)])


def _decade_range(low, high):
    return [math.floor(math.log10(low)), math.ceil(math.log10(high))]


#: Legend names of reported sizes that are no cache's capacity: the H200 reports its shared memory
#: per SM (233 kB) beside the L1 step it measures (232 kB), and a reader takes one for the other
#: (review 11c C11c-6).
REPORTED_LABELS = {"shared": "most shared memory per SM, reported by the device: {size} (not an L1 size)"}


def sweep_figure(result: dict, series=None, levels=None, title=None, widget: bool = False,
                 skip_reported=()):
    """Bandwidth against working set for ``series`` (names; default all) of a working-set
    result, with the levels of the first one (or ``levels``) and the reported cache sizes
    (those named in ``skip_reported`` left out: notebook 05 leaves out ``"shared"``, whose 233 kB
    line hid the L1's 232 kB capacity line, review 19c).

    A live sweep on a busy machine may show no plateau: the curve is drawn without levels
    then, and the title says why, instead of the figure failing."""
    import plotly.graph_objects as go
    names = [s["name"] for s in result["series"]] if series is None else list(series)
    all_series = [series_of(result, n) for n in names]
    no_levels = None
    if levels is None:
        try:
            levels = hierarchy_levels(result) if series is None else \
                series_levels(all_series[0], ends_in_memory=ends_in_memory(result, all_series[0]))
        except HierarchyError as error:
            levels, no_levels = (), str(error)
    fig = go.Figure()
    for index, s in enumerate(all_series):
        fig.add_trace(go.Scatter(
            x=list(s.sizes), y=list(s.gbps), mode="lines+markers", name=s.label, meta=f"series:{s.name}",
            line=dict(color=SERIES_COLOURS[index % len(SERIES_COLOURS)], width=2), marker=dict(size=4),
            hovertemplate="%{x:.3s}B: %{y:,.0f} GB/s<extra>" + s.label + "</extra>"))
    sizes = [x for s in all_series for x in s.sizes]
    rates = [g for s in all_series for g in s.gbps]
    for index, s in enumerate(all_series):
        # Where blocks of a 'slices' series share chunks: drawn, and marked as such, since no
        # level is taken from there (placement.hierarchy_series).
        shared = s.shared_data()
        if shared.sizes:
            fig.add_trace(go.Scatter(
                x=list(shared.sizes), y=list(shared.gbps), mode="markers",
                name=f"{s.label}: blocks share chunks below {format_bytes(s.shared_below)}",
                meta=f"shared-chunks:{s.name}",
                marker=dict(size=9, symbol="circle-open", color=SERIES_COLOURS[index % len(SERIES_COLOURS)]),
                hovertemplate="%{x:.3s}B: %{y:,.0f} GB/s, blocks sharing chunks (no L2 level taken)<extra></extra>"))
    drawn = {SERIES_COLOURS[i % len(SERIES_COLOURS)] for i in range(len(all_series))}
    for index, lv in enumerate(levels):
        colour = level_colour(lv.name, index)
        colour = PLATEAU_CLASH_COLOUR if colour.lower() in drawn else colour
        fig.add_trace(go.Scatter(
            x=[lv.first_bytes, lv.last_bytes], y=[lv.gbps, lv.gbps], mode="lines",
            name=f"{lv.name} plateau: {lv.gbps:,.0f} GB/s", meta=f"level:{lv.name}",
            line=dict(color=colour, width=4, dash="dash"),
            hovertemplate=f"{lv.title}: {lv.gbps:,.0f} GB/s (plateau median)<extra></extra>"))
        if lv.capacity_bytes:
            fig.add_trace(go.Scatter(
                x=[lv.capacity_bytes] * 2, y=[min(rates) / 1.5, max(rates) * 1.5], mode="lines",
                name=f"{lv.name}: fall starts ~{format_bytes(lv.capacity_bytes)}",
                meta=f"capacity:{lv.name}", line=dict(color=colour, width=1, dash="dot"),
                hovertemplate=f"{lv.name}: the fall starts ~{format_bytes(lv.capacity_bytes)} (interpolated between two swept sizes)<extra></extra>"))
    for key, size in sorted(reported_sizes(result).items()):
        if min(sizes) <= size <= max(sizes) and key not in skip_reported:
            fig.add_trace(go.Scatter(
                x=[size] * 2, y=[min(rates) / 1.5, max(rates) * 1.5], mode="lines",
                name=REPORTED_LABELS.get(key, "{key} reported by the device: {size}").format(key=key, size=format_bytes(size)),
                meta=f"reported:{key}",
                line=dict(color="#7f7f7f", width=1, dash="dashdot"),
                hovertemplate=f"{key} size reported by the device: {format_bytes(size)}<extra></extra>"))
    device = result["device"]["name"]
    if title is None:
        title = f"Working-set sweep: {device}, measured {result['created'][:10]}"
        if no_levels:
            title += ("<br><sup>no level drawn: no plateau stood out from the noise "
                      "(another program was busy? measure again on a quiet machine)</sup>")
    fig.update_layout(
        title=title,
        template="plotly_white", hovermode="closest",
        xaxis=dict(type="log", title="working set (bytes)", range=_decade_range(min(sizes), max(sizes))),
        yaxis=dict(type="log", title="read bandwidth (GB/s)",
                   range=_decade_range(min(rates) / 1.5, max(rates) * 1.5)))
    legend_below(fig)
    return figure_widget(fig) if widget else fig


#: Memory levels from the cores out; a level not named here counts as outermost.
LEVEL_ORDER = ("shared", "l1", "l2", "l3", "dram")
#: The outermost level's marker, and how much wider each level inside it is drawn.
MARKER_PX, MARKER_STEP_PX = 9, 8


def _depth(level: str) -> int:
    return LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER)


def _x_range(machine, placements, compute):
    values = [p.intensity for pl in placements for p in pl.points]
    peak = machine.ceiling(compute).value
    values += [peak / c.value for c in machine.memory_ceilings]
    return (10 ** math.floor(math.log10(min(values) / 3)), 10 ** math.ceil(math.log10(max(values) * 3)))


def hierarchical_figure(machine, placements, compute: str = "fp32", levels=None, title=None,
                        peaks=None, x_range=None, widget: bool = False, dram_also=None):
    """The hierarchical roofline of ``machine`` with ``placements`` (from
    :func:`rooflinelib.hierarchy.level_placement.place_levels`), one marker per level per kernel.

    ``levels``: the memory ceilings to draw (default every level a placement uses, innermost
    first as in the machine).  ``peaks``: a second machine (e.g. ncu's theoretical peaks) whose
    memory roofs are drawn thin and dashed beside the measured ones.  ``dram_also``: ``{label:
    GB/s}``, further DRAM roofs (another access mix's) drawn dotted in the DRAM's colour.
    """
    import plotly.graph_objects as go
    used = {p.level for pl in placements for p in pl.points}
    if levels is None:
        levels = [c.name for c in machine.memory_ceilings if c.name in used or not used]
    memory = ["dram"] + [lv for lv in levels if lv != "dram"] if "dram" in levels else list(levels)
    if x_range is None and placements:
        x_range = _x_range(machine, placements, compute)
    fig = roofline_figure(machine, (), compute=[compute], memory=memory, title=title, x_range=x_range)
    for level in memory:  # a level's roof in its markers' colour (a level the registry lacks, the L1, too)
        find_trace(fig, memory_id(level)).line.color = level_colour(level)
    x_low, x_high = (10 ** v for v in fig.layout.xaxis.range)
    for label, gbps in (dram_also or {}).items():
        corner = min(x_high, machine.ceiling(compute).value / gbps)
        fig.add_trace(go.Scatter(
            x=[x_low, corner], y=[x_low * gbps, corner * gbps], mode="lines",
            name=f"{label}: {gbps:,.0f} GB/s", meta=f"dram-also:{label}",
            line=dict(color=level_colour("dram"), width=1.5, dash="dot"),
            hovertemplate=f"{label}: {gbps:,.0f} GB/s<extra></extra>"))
    if peaks is not None:
        for c in peaks.memory_ceilings:
            corner = min(x_high, peaks.ceiling(compute).value / c.value if peaks.has(compute) else x_high)
            fig.add_trace(go.Scatter(
                x=[x_low, corner], y=[x_low * c.value, corner * c.value], mode="lines",
                name=f"{c.name} ncu peak: {c.value:,.0f} GB/s", meta=f"peak:{c.name}",
                line=dict(color=level_colour(c.name), width=1, dash="longdash"),
                hovertemplate=f"{c.title}: {c.value:,.0f} GB/s (theoretical)<extra></extra>"))
        if peaks.has(compute):
            top = peaks.ceiling(compute).value
            fig.add_trace(go.Scatter(
                x=[x_low, x_high], y=[top, top], mode="lines", name=f"{compute} ncu peak: {top:,.0f} GFLOP/s",
                meta=f"peak:{compute}", line=dict(color="#d62728", width=1, dash="longdash")))
    symbols = ("circle", "square", "diamond", "triangle-up", "cross", "x", "star", "hexagon")
    rates = []
    for index, pl in enumerate(placements):
        rate = pl.achieved_gflops if pl.achieved_gflops is not None else pl.roof_gflops
        rates.append(rate)
        xs = sorted(p.intensity for p in pl.points)
        fig.add_trace(go.Scatter(x=xs, y=[rate] * len(xs), mode="lines", meta=f"hier:{pl.name}",
                                 name=pl.name, showlegend=False,
                                 line=dict(color="#444444", width=1), hoverinfo="skip"))
        # One kernel's levels can land at almost the same intensity (a streaming kernel's L1
        # and DRAM bytes are equal), so each level gets its own size, the innermost largest and
        # drawn first: every marker shows as a ring around the next.
        inner_first = sorted(pl.points, key=lambda p: _depth(p.level))
        for depth, p in enumerate(inner_first):
            binding = p.level == pl.binding
            frac = "" if p.fraction_of_roof is None else f", {100 * p.fraction_of_roof:.0f}% of this roof"
            fig.add_trace(go.Scatter(
                x=[p.intensity], y=[rate], mode="markers", meta=f"hier:{pl.name}:{p.level}",
                name=f"{pl.name} @ {p.level}" + (" (binds)" if binding else ""),
                marker=dict(symbol=symbols[index % len(symbols)],
                            size=MARKER_PX + MARKER_STEP_PX * (len(inner_first) - 1 - depth),
                            color=level_colour(p.level),
                            line=dict(width=3 if binding else 1, color="#000000" if binding else level_colour(p.level))),
                hovertext=[f"<b>{pl.name}</b> at {p.level}<br>{format_bytes(p.n_bytes)}, "
                           f"I = {p.intensity:.3g} FLOP/byte<br>roof {p.roof_gflops:,.0f} GFLOP/s{frac}"],
                hoverinfo="text"))
    if rates:
        low = min(min(rates) / 3, 10 ** fig.layout.yaxis.range[0])
        fig.update_layout(yaxis=dict(range=[math.floor(math.log10(low)), fig.layout.yaxis.range[1]]))
    fig.update_layout(legend=dict(title="roofs and kernels (one marker per level)"))
    if title is None:
        fig.update_layout(title=f"Hierarchical roofline: {machine.name}")
    legend_below(fig)
    return figure_widget(fig) if widget else fig


# --- the working-set explorer ----------------------------------------------------------------

class WorkingSetExplorer:
    """Move the working set of a kernel that re-reads it; watch the binding level change.

    The model's kernel: every SM of the result's GPU (one core on a CPU:
    :func:`.level_placement.sm_readers`) reads W bytes ``reads`` times with ``flops_per_byte``
    FLOPs per byte requested.  The roofline's markers and the sweep's cross are that model's
    prediction, not a measurement, and their legends say so.
    Its traffic at each level follows :func:`.level_placement.working_set_traffic`, with the
    capacities and ceilings measured by the sweep (:func:`.placement.hierarchy_levels`);
    the sweep chart marks W, and the text quotes the sweep's series of that kernel
    (:func:`.level_placement.kernel_curve`).
    """

    def __init__(self, result: dict, machine, reads: float = 64, flops_per_byte: float = 0.25,
                 ws_bytes: float = 8e6, compute: str = "fp32"):
        w = wd.ipywidgets_module()
        self._wd = wd
        self.result, self.machine, self.compute = result, machine, compute
        chosen = hierarchy_series(result)
        self.levels = hierarchy_levels(result)
        self.curve = reference_curve(result)
        self.kernel_curve = kernel_curve(result)  # the text quotes the series of the model's own kernel
        self.reads, self.flops_per_byte = reads, flops_per_byte
        self.readers = sm_readers(result)
        low, high = math.log2(self.curve[0][0]), math.log2(self.curve[0][-1])
        self.slider = w.FloatLogSlider(value=min(max(ws_bytes, self.curve[0][0]), self.curve[0][-1]), base=2,
                                       min=low, max=high, step=0.125, readout_format=".3s",
                                       description="working set (B)", continuous_update=True,
                                       style={"description_width": "initial"}, layout=w.Layout(width="620px"))
        self.text = w.HTML()
        state = self.state_at(self.slider.value)
        # Fixed axes: the kernel's intensities run from flops_per_byte (every level sees every
        # request) to flops_per_byte * reads * readers (a shared level sees the working set once).
        span = (flops_per_byte / 4, flops_per_byte * reads * self.readers * 4)
        self.roofline = hierarchical_figure(machine, [state.placement], compute, widget=True,
                                            x_range=span,
                                            title="The working-set model's kernel against every level (predicted)")
        # no 233 kB shared-memory line: no text of notebook 05 explains it (review 25c)
        self.sweep = sweep_figure(result, [c.name for c in chosen], self.levels, widget=True,
                                  title="Where the working set sits on the measured sweep",
                                  skip_reported=("shared",))
        self.sweep.add_scatter(x=[state.ws_bytes], y=[state.predicted_gbps], mode="markers",
                               meta="ws-marker", name="the model's prediction (not measured)",
                               marker=dict(size=14, color="#000000", symbol="x"),
                               hovertemplate="%{x:.3s}B: %{y:,.0f} GB/s predicted by the model<extra></extra>")
        legend_below(self.sweep)
        self.box = w.VBox([self.slider, self.text, self.roofline, self.sweep])
        self.slider.observe(lambda change: self.update(change["new"]), names="value")
        self.update(self.slider.value)

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)

    def state_at(self, ws_bytes: float) -> WorkingSetState:
        return working_set_state(self.levels, self.machine, ws_bytes, self.reads,
                                 self.flops_per_byte, self.compute, self.kernel_curve, self.readers)

    def update(self, ws_bytes: float):
        """Move the kernel to ``ws_bytes``; returns the new state (or None after an error,
        shown in place of the verdict)."""
        try:
            state = self.state_at(ws_bytes)
        except (HierarchyError, ValueError) as exc:
            self.text.value = self._wd._error_line(exc)
            return None
        pl = state.placement
        rate = pl.roof_gflops
        with self.roofline.batch_update():
            line = find_trace(self.roofline, f"hier:{pl.name}")
            xs = sorted(p.intensity for p in pl.points)
            line.x, line.y = xs, [rate] * len(xs)
            for p in pl.points:
                marker = find_trace(self.roofline, f"hier:{pl.name}:{p.level}")
                binding = p.level == pl.binding
                marker.x, marker.y = [p.intensity], [rate]
                marker.name = f"{pl.name} @ {p.level}" + (" (binds)" if binding else "")
                # sizes stay hierarchical_figure's (innermost largest): levels that meet at one
                # intensity (the L1's and the L2's while W overflows the L1) both show
                marker.marker.line.width = 3 if binding else 1
                marker.marker.line.color = "#000000" if binding else level_colour(p.level)
        with self.sweep.batch_update():
            point = find_trace(self.sweep, "ws-marker")
            point.x, point.y = [state.ws_bytes], [state.predicted_gbps]
        self.text.value = "<br>".join(self._wd._html_line(line) for line in state.text().splitlines())
        self.state = state
        return state


def working_set_explorer(result: dict, machine, **options) -> WorkingSetExplorer:
    return WorkingSetExplorer(result, machine, **options)
