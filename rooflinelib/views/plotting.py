"""The one Plotly roofline figure: ``roofline plot --html``, the notebooks and the widgets all use it.

Plotly is imported inside the functions, so ``import rooflinelib`` stays light.

What the figure holds, and the stable trace ids (each trace's ``meta``) that widgets use to
update a trace in place rather than rebuilding the figure:

- ``roof:<ceiling>`` one horizontal roof per compute ceiling, from where it meets the highest
  memory roof to the right edge; tensor and matrix roofs are dashed;
- ``mem:<ceiling>`` one sloped roof per memory ceiling, ``y = I * B``, up to where it meets the
  highest compute roof;
- ``ridge:<ceiling>`` a dotted vertical line at each compute ceiling's ridge against the
  *primary* memory ceiling (the first one: ``dram`` unless told otherwise), with an annotation;
- ``kernel:<name>`` one marker per kernel at its intensity and its achieved rate (or its roof
  when it was not timed), with hover text giving intensity, roof and verdict.

Verdicts are taken against the primary roofline: the first compute ceiling (``fp32`` unless
told otherwise) against the first memory ceiling.

Axis ranges and annotation positions on Plotly's log axes are in log10 units; the public
``x_range`` argument takes plain FLOP/byte and converts.
"""
from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from rooflinelib.store.fileio import FileError, read_text, write_atomic
from rooflinelib.measure import registry
from rooflinelib.core.vocabulary import compute_ceiling
from rooflinelib.core.model import Ceiling, Machine, Roofline
from rooflinelib.core.placement import as_kernel_point, verdict_phrase
from rooflinelib.core.operators import GEMM_CEILING

#: Ceilings drawn first (and so used for verdicts) when the machine has them.
PRIMARY_COMPUTE = "fp32"
PRIMARY_MEMORY = "dram"

#: Kernels drawn with their names beside the markers; up to MAX_LABELLED_KERNELS get a letter
#: instead, and more get the legend and hover text only.
MAX_NAMED_KERNELS = 2
MAX_LABELLED_KERNELS = 8
#: The figure's height: at least MIN_HEIGHT_PX, and room for every legend entry (about 20 px
#: each, plus the title, the legend's title and the margins).
MIN_HEIGHT_PX = 450
LEGEND_BASE_PX = 190
LEGEND_ENTRY_PX = 21

#: A figure whose legend goes under the plot (legend_below): the plot keeps PLOT_PX of height
#: and the full width, the x axis's labels get LEGEND_GAP_PX, and each entry one line below.
PLOT_PX = 450
LEGEND_GAP_PX = 75

#: Pixels between an axis and its tick labels: enough that the lowest y label and the first x
#: label, which both sit at the origin, do not touch.
TICK_STANDOFF_PX = 8

X_TITLE = "arithmetic intensity (FLOP/byte)"
Y_TITLE = "attainable rate (GFLOP/s)"
LEGEND_TITLE = "ceilings and kernels"

#: name -> chart colour of every registered ceiling (the colours live in measure.registry).
#: Kept as a module constant because rooflinelib.hierarchy.plot builds its level colours on it.
COLOURS = {spec.name: spec.colour for spec in registry.specs()}
FALLBACK_COLOURS = ("#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d")
#: Kernel markers: dark, and distinct from the roofs' colours (ColorBrewer Dark2).
_KERNEL_COLOURS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d",
                   "#666666")


def roof_id(name: str) -> str:
    return f"roof:{name}"


def memory_id(name: str) -> str:
    return f"mem:{name}"


def ridge_id(name: str) -> str:
    return f"ridge:{name}"


def kernel_id(name: str) -> str:
    return f"kernel:{name}"


def machine_from_peaks(peak_gflops: float, peak_gbps: float, name: str = "given peaks",
                       compute_name: str = PRIMARY_COMPUTE, memory_name: str = PRIMARY_MEMORY,
                       source: str = "given by the user") -> Machine:
    """A two-ceiling machine from a compute peak (GFLOP/s) and a bandwidth (GB/s).

    The defaults name the ceilings ``fp32`` and ``dram`` because that is what Lab 1 measures:
    an fp32 FMA loop and a DRAM copy.
    """
    return Machine(name=name, kind="given", source=source, ceilings=(
        Ceiling(memory_name, "memory", peak_gbps, source, f"B = {memory_name}"),
        Ceiling(compute_name, "compute", peak_gflops, source, f"P = {compute_name}"),
    ))


def _names(value, field: str) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    names = list(value)
    if not all(isinstance(n, str) for n in names):
        raise ValueError(f"{field}: expected ceiling names, got {value!r}")
    return names


def select_ceilings(machine: Machine, kind: str, names=None) -> list:
    """The machine's ceilings of ``kind`` ('compute' or 'memory') to draw, primary first.

    ``names`` picks and orders them; ``None`` means all of them, with ``fp32`` (compute) or
    ``dram`` (memory) moved to the front when present.
    """
    field = kind
    available = machine.compute_ceilings if kind == "compute" else machine.memory_ceilings
    wanted = _names(names, field)
    if not wanted:
        if not available:
            raise ValueError(f"{field}: {machine.name} has no {kind} ceilings")
        primary = PRIMARY_COMPUTE if kind == "compute" else PRIMARY_MEMORY
        return sorted(available, key=lambda c: c.name != primary)  # stable: keeps the rest in order
    chosen = []
    for name in wanted:
        try:
            ceiling = machine.ceiling(name)
        except KeyError as exc:
            raise ValueError(f"{field}: {exc.args[0]}") from None
        if ceiling.kind != kind:
            raise ValueError(f"{field}: {name!r} is a {ceiling.kind} ceiling, not a {kind} one")
        if ceiling not in chosen:
            chosen.append(ceiling)
    return chosen


def primary_roofline(machine: Machine, compute=None, memory=None) -> Roofline:
    """The roofline that kernel verdicts are taken against: first compute vs first memory."""
    p = select_ceilings(machine, "compute", compute)[0]
    b = select_ceilings(machine, "memory", memory)[0]
    return Roofline(p.value, b.value, compute_name=p.name, memory_name=b.name)


#: The line of each DRAM access mix's roof (``dram-read`` and so on); ``dram`` itself is solid.
MIX_DASH = {"read": "dot", "write": "dashdot", "copy": "dash"}


def _is_matrix_roof(ceiling: Ceiling) -> bool:
    return registry.group_of(ceiling.name) == "matrix"


def _is_nvidia(machine: Machine) -> bool:
    device = str((getattr(machine, "provenance", None) or {}).get("name", ""))
    return "NVIDIA" in device or machine.name.split()[0] in ("A100", "H100", "H200")


def ceiling_label(ceiling: Ceiling, machine: Machine) -> str:
    """The legend's name for a ceiling.  On NVIDIA GPUs an fp32 GEMM has no tensor-core path
    (Hopper's and Ampere's tensor cores take tf32, not fp32), so ``fp32-matrix`` there is SGEMM
    on the CUDA cores and says so; on the MI300X it is a real matrix-core roof."""
    if ceiling.name == compute_ceiling("fp32", "matrix") and _is_nvidia(machine):
        if "CUDA cores" in ceiling.title:  # the registry's title already says where it runs
            return f"{ceiling.title}: no fp32 tensor path"
        return f"{ceiling.title} (SGEMM on the CUDA cores, no fp32 tensor path)"
    return ceiling.title


def own_roofline(kernel, compute_ceilings, primary: Roofline, memory_ceilings=()) -> Roofline:
    """The roofline a kernel is judged against on a chart: the ceiling its dtype runs on
    (:data:`rooflinelib.core.operators.GEMM_CEILING`, fp32 vector for fp32 work, the tensor roof for
    bf16) when that ceiling is drawn, else the chart's primary compute roof; and the memory
    ceiling its ``memory_ceiling`` names (the DRAM roof of its own access mix, notebook 03's
    rule: ``dram-read`` for a kernel that only reads) when that one is drawn, else the primary's."""
    wanted = GEMM_CEILING.get(getattr(kernel, "dtype", None))
    compute = next((c for c in compute_ceilings if c.name == wanted), None)
    mix = getattr(kernel, "memory_ceiling", None)
    memory = next((m for m in memory_ceilings if m.name == mix), None)
    if compute is None and memory is None:
        return primary
    return Roofline(compute.value if compute else primary.peak_gflops,
                    memory.value if memory else primary.peak_gbps,
                    compute_name=compute.name if compute else primary.compute_name,
                    memory_name=memory.name if memory else primary.memory_name)


def _colour(name: str, index: int) -> str:
    return registry.colour_of(name, FALLBACK_COLOURS[index % len(FALLBACK_COLOURS)])


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def kernel_hover_text(kernel, roofline: Roofline) -> str:
    """Hover text for one kernel: name, intensity, roof, achieved rate and verdict (HTML lines)."""
    point = as_kernel_point(kernel)
    roof = roofline.attainable_gflops(point.intensity)
    lines = [
        f"<b>{point.name}</b>",
        f"intensity: {point.intensity:.4g} FLOP/byte",
        f"roof: {_fmt(roof)} GFLOP/s ({roofline.compute_name} vs {roofline.memory_name}, "
        f"ridge {roofline.ridge:.3g} FLOP/byte)",
    ]
    if point.achieved_gflops is not None:
        lines.append(f"achieved: {_fmt(point.achieved_gflops)} GFLOP/s")
    lines.append(f"verdict: {verdict_phrase(point, roofline)}")
    return "<br>".join(lines)


def _decades(low: float, high: float) -> tuple:
    return 10.0 ** math.floor(math.log10(low)), 10.0 ** math.ceil(math.log10(high))


def _check_x_range(x_range) -> tuple:
    try:
        low, high = (float(v) for v in x_range)
    except (TypeError, ValueError):
        raise ValueError(f"x_range: expected (low, high) in FLOP/byte, got {x_range!r}") from None
    if not (0 < low < high and math.isfinite(high)):
        raise ValueError(f"x_range: need 0 < low < high, finite, got {x_range!r}")
    return low, high


def legend_below(fig, plot_px: int = PLOT_PX):
    """Move ``fig``'s legend under the plot, one entry a line, and make the figure tall enough
    for every entry.  A legend beside the plot takes its width from the longest name and
    squashes the plot; one taller than the plot scrolls.  Returns ``fig``."""
    entries = sum(1 for t in fig.data if t.showlegend is not False) + (1 if fig.layout.legend.title.text else 0)
    top, bottom = 80, LEGEND_GAP_PX + LEGEND_ENTRY_PX * entries + 10
    fig.update_layout(height=plot_px + bottom, margin=dict(t=top, b=bottom),
                      legend=dict(orientation="v", x=0, xanchor="left", yanchor="top",
                                  y=-LEGEND_GAP_PX / (plot_px - top)))
    return fig


def roofline_figure(machine: Machine, kernels=(), compute=None, memory=None, title=None,
                    x_range=None, widget: bool = False, y_title: str = Y_TITLE,
                    legend_title: str = LEGEND_TITLE, text_positions=None):
    """The roofline chart of ``machine`` with ``kernels`` placed on it.

    ``compute`` and ``memory`` are ceiling names (a name or a list) to draw; the first of each
    makes the primary roofline that ridges and verdicts refer to.  ``kernels`` are
    :class:`~rooflinelib.core.placement.KernelPoint` or anything with ``name``, ``n_flops`` and
    ``n_bytes`` (an ``OpCost``).  ``x_range`` is ``(low, high)`` in FLOP/byte; by default it
    spans whole decades around every ridge, roof corner and kernel.  Returns a ``go.Figure``,
    or a ``go.FigureWidget`` when ``widget`` is true.  ``y_title`` and ``legend_title`` name the
    y axis and the legend: a chart of achieved (measured) points beside the roofs can say
    "rate" on its axis and "attainable" on its roofs' legend.  ``text_positions``, ``{kernel
    name: Plotly textposition}``, places a named kernel's label where the default side would
    print it on a roof line (by default, None, every label keeps its default side).
    """
    import plotly.graph_objects as go

    compute_ceilings = select_ceilings(machine, "compute", compute)
    memory_ceilings = select_ceilings(machine, "memory", memory)
    primary = Roofline(compute_ceilings[0].value, memory_ceilings[0].value,
                       compute_name=compute_ceilings[0].name, memory_name=memory_ceilings[0].name)
    points = [as_kernel_point(k) for k in kernels]
    # Each kernel is judged (hover text, and the height of an untimed point) against the roof
    # of its own dtype when the chart draws it, the same choice tables.place_rows makes, and
    # against the DRAM roof of its own access mix when it names one that is drawn.
    judged = [own_roofline(k, compute_ceilings, primary, memory_ceilings) for k in kernels]
    top_compute = max(c.value for c in compute_ceilings)
    top_memory = max(m.value for m in memory_ceilings)

    # Every place where something happens on the x axis: ridges, corners, kernels.
    landmarks = [c.value / primary.peak_gbps for c in compute_ceilings]
    landmarks += [c.value / top_memory for c in compute_ceilings]
    landmarks += [top_compute / m.value for m in memory_ceilings]
    landmarks += [p.intensity for p in points]
    if x_range is None:
        x_low, x_high = _decades(min(landmarks) / 3, max(landmarks) * 3)
    else:
        x_low, x_high = _check_x_range(x_range)
    rates = [r.attainable_gflops(p.intensity) if p.achieved_gflops is None else p.achieved_gflops
             for p, r in zip(points, judged)]
    y_low, y_high = _decades(min([x_low * m.value for m in memory_ceilings] + rates),
                             max([top_compute * 2] + [r * 2 for r in rates]))

    fig = go.Figure()
    for index, m in enumerate(memory_ceilings):
        corner = min(x_high, top_compute / m.value)
        fig.add_trace(go.Scatter(
            x=[x_low, corner], y=[x_low * m.value, corner * m.value], mode="lines",
            name=f"{m.title}: {_fmt(m.value)} GB/s", meta=memory_id(m.name),
            # DRAM's access mixes lie within about 10% of ``dram`` and of each other: a dash of
            # their own, so that each shows beside the line it nearly covers on a log chart.
            line=dict(color=_colour(m.name, index), width=3 if index == 0 else 2,
                      dash=MIX_DASH.get(registry.MIX_OF.get(m.name), "solid")),
            hovertemplate=f"{m.title} ({m.name}): {_fmt(m.value)} GB/s<br>"
                          "I = %{x:.3g} FLOP/byte, I*B = %{y:,.0f} GFLOP/s<extra></extra>",
        ))
    for index, c in enumerate(compute_ceilings):
        start = max(x_low, c.value / top_memory)
        fig.add_trace(go.Scatter(
            x=[start, x_high], y=[c.value, c.value], mode="lines",
            name=f"{ceiling_label(c, machine)}: {_fmt(c.value)} GFLOP/s", meta=roof_id(c.name),
            line=dict(color=_colour(c.name, index), width=3 if index == 0 else 2,
                      dash="dash" if _is_matrix_roof(c) else "solid"),
            hovertemplate=f"{c.title} ({c.name}): {_fmt(c.value)} GFLOP/s<extra></extra>",
        ))

    # Ridges against the primary memory ceiling.  Ceilings with equal peaks share one ridge
    # position, so they share one annotation instead of printing on top of each other.
    annotated = {}
    for index, c in enumerate(compute_ceilings):
        ridge = c.value / primary.peak_gbps
        fig.add_trace(go.Scatter(
            x=[ridge, ridge], y=[y_low, c.value], mode="lines",
            name=f"ridge {c.name}: {ridge:.3g} FLOP/byte", meta=ridge_id(c.name),
            line=dict(color=_colour(c.name, index), width=1, dash="dot"),
            showlegend=False,
            hovertemplate=(f"ridge {c.name} vs {primary.memory_name}: {ridge:.3g} FLOP/byte"
                           "<extra></extra>"),
        ))
        annotated.setdefault(c.value, []).append(c.name)
    for peak, names in annotated.items():
        ridge = peak / primary.peak_gbps
        # From the x axis up along the dotted line: anchored at the roof, the label ran up
        # into the title.
        fig.add_annotation(
            x=math.log10(ridge), y=math.log10(y_low), name=ridge_id(names[0]),
            text=f"ridge {'/'.join(names)}: {ridge:.3g}", showarrow=False,
            xanchor="left", yanchor="bottom", textangle=-90, font=dict(size=10),
        )

    used, taken = {}, set()
    # Names beside the markers print on each other once there are a few kernels (the MI300X's
    # vector add over its sum reduction, a sweep's K=64K=128...): up to MAX_NAMED_KERNELS carry
    # their names, up to MAX_LABELLED_KERNELS a letter that the legend spells out (as the
    # terminal chart does), and beyond that the legend and the hover text alone name them.
    named = len(points) <= MAX_NAMED_KERNELS
    labelled = len(points) <= MAX_LABELLED_KERNELS
    # Two names centred above and below their markers still overprint when the points are a
    # fraction of a decade apart (the softmaxes at I = 0.25 and 0.625): a name is wider than
    # that gap.  Named points go to the side away from the other point instead.
    sides = {}
    if named and len(points) == 2:
        left = min(range(2), key=lambda i: (points[i].intensity, i))
        sides = {left: "middle left", 1 - left: "middle right"}
    for index, (point, rate, judge) in enumerate(zip(points, rates, judged)):
        # Trace ids must be unique (find_trace, the browser tests): a second "x" is "x#2",
        # or the next number free when a kernel is itself called "x#2".
        count = used.get(point.name, 0) + 1
        suffix = "" if count == 1 else f"#{count}"
        while point.name + suffix in taken:
            count += 1
            suffix = f"#{count}"
        used[point.name] = count
        taken.add(point.name + suffix)
        measured = point.achieved_gflops is not None
        colour = _KERNEL_COLOURS[index % len(_KERNEL_COLOURS)]
        letter = chr(ord("A") + index)
        fig.add_trace(go.Scatter(
            x=[point.intensity], y=[rate], mode="markers+text" if labelled else "markers",
            name=point.name + suffix if named or not labelled else f"{letter}: {point.name}{suffix}",
            meta=kernel_id(point.name + suffix),
            # Alternate label sides so neighbouring kernels' labels do not print on each other.
            text=[point.name if named else letter],
            textposition=(text_positions or {}).get(
                point.name, sides.get(index, "top center" if index % 2 == 0 else "bottom center")),
            hovertext=[kernel_hover_text(point, judge)], hoverinfo="text",
            marker=dict(size=11, color=colour, line=dict(width=2, color=colour),
                        # Filled when timed, open when the point only sits on its roof.
                        symbol="circle" if measured else "circle-open"),
        ))

    entries = len(memory_ceilings) + len(compute_ceilings) + len(points)
    fig.update_layout(
        title=title if title is not None else f"Roofline: {machine.name}",
        template="plotly_white",
        # Tall enough for every legend entry: a legend taller than the plot scrolls, and hid
        # most of a sweep's points.
        height=max(MIN_HEIGHT_PX, LEGEND_BASE_PX + LEGEND_ENTRY_PX * entries),
        hovermode="closest",
        legend=dict(title=legend_title),
        # Stood off from the axes, so the first x and y labels do not meet at the origin.
        xaxis=dict(type="log", title=X_TITLE, range=[math.log10(x_low), math.log10(x_high)],
                   ticklabelstandoff=TICK_STANDOFF_PX),
        yaxis=dict(type="log", title=y_title, range=[math.log10(y_low), math.log10(y_high)],
                   ticklabelstandoff=TICK_STANDOFF_PX),
    )
    return figure_widget(fig) if widget else fig


# What each figure widget's browser side runs instead of plotly's own widget code: that code
# (5 MB, plotly.js inside) comes in the widget's _plotly_bundle, and is imported once a page
# for each plotly version (a kernel restarted on another plotly gets its own).
#
# Why initialize does not wait for that import.  anywidget (0.11) holds a model's comm messages
# until the widget's initialize has returned, and gives it 2 s from the model's creation: past
# that, its ready promise is rejected and every later message to the model is dropped, for
# good.  The kernel opens a FigureWidget's comm with no traces and sends them in the next
# message, so a model whose initialize took over 2 s keeps 0 traces (and ignores every later
# update): the blank explorer of the browser test's first run-all, the page's first figure,
# which is the one that imports plotly (1.5-2 s of Chromium on the 2-core VM when quiet).
# So initialize returns at once; the messages that come before plotly's own model code is
# ready (its handlers of the _py2js_* edits) are held and handed to it, in order, when it is;
# render waits for it, and the import itself for a quiet moment (QUIET_MS, below).  The traces
# and the layout need no holding: they are the model's state.
_WIDGET_LOADER_ESM = """
const EDITS = ["_py2js_addTraces", "_py2js_deleteTraces", "_py2js_moveTraces", "_py2js_restyle",
  "_py2js_relayout", "_py2js_update", "_py2js_animate", "_py2js_removeLayoutProps",
  "_py2js_removeTraceProps"];

function bundleKeys(model) {
  const name = "rooflinelib.plotly-widget-bundle " + model.get("_plotly_version");
  return [Symbol.for(name), Symbol.for(name + " imported")];
}

// The import holds the page for all its length (one task of 10 s under load 33 on the 2-core
// VM, 2026-12-02), and a figure made just before it that had not yet reached its initialize
// would pass its 2 s meanwhile.  So it starts once no figure has reached its initialize for
// QUIET_MS, and never inside an initialize (the Blob alone held the page 0.25-0.75 s).
const QUIET_MS = 300;
const LAST_INITIALIZE = Symbol.for("rooflinelib.plotly-widget last initialize");

function quiet() {
  return new Promise((resolve) => {
    const check = () => {
      const left = globalThis[LAST_INITIALIZE] + QUIET_MS - performance.now();
      if (left > 0) setTimeout(check, left);
      else resolve();
    };
    setTimeout(check, 0);
  });
}

function plotlyWidget(model) {
  const [key, imported] = bundleKeys(model);
  if (!globalThis[key]) {
    const source = model.get("_plotly_bundle");
    globalThis[key] = quiet()
      .then(() => import(URL.createObjectURL(new Blob([source], { type: "text/javascript" }))))
      .then((module) => {
        globalThis[imported] = module;
        return module;
      });
  }
  return globalThis[key];
}

// plotly's widget on ``context``'s model, given the edits that came meanwhile (``held``) in
// order, straight after its initialize: no message can come in between.
function started(module, context, held) {
  const model = context.model;
  const replaying = new Map();
  const handlers = [];  // plotly's model handlers, recorded until the replay
  let recording = true;
  const seen = Object.assign({}, model, {
    get: (name) => (replaying.has(name) ? replaying.get(name) : model.get(name)),
    on: (event, callback) => {
      if (recording) handlers.push([event, callback]);
      model.on(event, callback);
    },
  });
  const widget = module.default();
  const replay = () => {
    recording = false;
    for (const [name, value] of held) {
      replaying.set(name, value);
      try {
        handlers.filter(([event]) => event === "change:" + name).forEach(([, callback]) => callback());
      } finally {
        replaying.delete(name);
      }
    }
    return widget;
  };
  const result = widget.initialize({ ...context, model: seen });
  return result && typeof result.then === "function" ? result.then(replay) : replay();
}

export default () => {
  let ready = null;
  return {
    initialize(context) {
      globalThis[LAST_INITIALIZE] = performance.now();
      const model = context.model;
      const module = globalThis[bundleKeys(model)[1]];
      if (module) {  // imported already: plotly's own initialize, as it would run
        ready = Promise.resolve(started(module, context, []));
        return ready.then(() => undefined);
      }
      const held = [];
      const holders = EDITS.map((name) => {
        const hold = () => {
          const value = model.get(name);
          if (value !== null && value !== undefined) held.push([name, value]);
        };
        model.on("change:" + name, hold);
        return ["change:" + name, hold];
      });
      ready = plotlyWidget(model).then((module) => {
        holders.forEach(([event, hold]) => model.off(event, hold));
        return started(module, context, held);
      });
    },
    async render(context) {
      return (await ready).render(context);
    },
  };
};
"""

def figure_widget(fig):
    """``fig`` as a plotly ``FigureWidget`` whose browser side imports plotly's widget code once
    a page, not once a figure.

    plotly's FigureWidget sends that code (its 5,075,269-byte widget bundle) as each widget's
    module, and anywidget imports each widget's module from a URL of its own, so the browser
    parsed and ran plotly.js again for every figure: 1.5-2.0 s each in headless Chromium on the
    2-core VM, for the 7 figure widgets of the browser test's notebook.  Here the bundle comes
    as data beside a small module that imports it the first time and hands the same import to
    every later figure; what each figure draws, and how it is updated, is plotly's code as
    before.  Every widget of the course is made through here.
    """
    return _figure_widget_class()(fig)


@lru_cache(maxsize=None)
def _figure_widget_class():
    """The FigureWidget class of :func:`figure_widget`, made (and the bundle read) once a process."""
    import plotly
    import plotly.graph_objects as go
    import traitlets
    from plotly import basewidget

    bundle = read_text(Path(basewidget.__file__).parent / "package_data" / "widgetbundle.js",
                       kind="plotly's widget bundle")

    class FigureWidget(go.FigureWidget):
        _esm = _WIDGET_LOADER_ESM
        _plotly_bundle = traitlets.Unicode(bundle).tag(sync=True)
        _plotly_version = traitlets.Unicode(plotly.__version__).tag(sync=True)

    return FigureWidget


def find_trace(fig, trace_id: str):
    """The trace whose ``meta`` is ``trace_id`` (``'roof:fp32'``, ``'kernel:GEMM'``...), or KeyError."""
    for trace in fig.data:
        if trace.meta == trace_id:
            return trace
    raise KeyError(f"trace: no trace {trace_id!r}; have: {', '.join(str(t.meta) for t in fig.data)}")


def trace_ids(fig) -> list:
    """The stable ids of the figure's traces, in drawing order."""
    return [trace.meta for trace in fig.data]


def write_html(fig, path, error: type = None) -> Path:
    """Write ``fig`` as one standalone HTML file that works offline (plotly.js inline, ~5 MB).

    ``error``: the error class a failed write raises (default
    :class:`rooflinelib.store.fileio.FileError`); the old file is then left as it was."""
    # Through the one write path: plotly's own write_html truncates the old chart first.
    html = fig.to_html(include_plotlyjs=True, full_html=True,
                       config={"displaylogo": False, "responsive": True})
    return write_atomic(Path(path), html, error or FileError)
