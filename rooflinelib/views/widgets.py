"""The course's interactive widgets: controls, a live Plotly figure, and a line of verdict.

Every widget follows one pattern:

1. its controls (sliders, dropdowns) hold the state;
2. a pure function of :mod:`rooflinelib.views.widget_state` turns the state into numbers and text;
3. the text goes into an HTML line and the numbers into one ``FigureWidget``, updated in place
   by one message per change (:func:`_restyle`, or ``fig.batch_update()`` for one trace), so
   that the 5 MB of plotly.js is sent once per figure, never per update.

The roofline geometry comes from :func:`rooflinelib.views.plotting.roofline_figure`; the widgets
only move the traces it names (``kernel:<name>``, ``roof:<ceiling>``, ...).

ipywidgets and plotly are imported inside the functions, so ``import rooflinelib`` stays light.
"""
from __future__ import annotations

import threading

from rooflinelib.views import widget_state as ws
from rooflinelib.core.machines import get_machine, machine_names
from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.core.placement import KernelPoint
from rooflinelib.views.plotting import (figure_widget, legend_below, find_trace, kernel_hover_text,
                                        kernel_id, TICK_STANDOFF_PX, roofline_figure)
from rooflinelib.lessons.triage import BOOLEAN_FIELDS, NUMBER_FIELDS, triage_report
from rooflinelib.core.interconnect import TOKEN_INPUTS

#: The name of the explorer's movable point; its trace id is ``kernel:<POINT_NAME>``.
POINT_NAME = "your kernel"

#: CSS classes the browser tests (and anyone styling the course) can find the parts by.
EXPLORER_CLASS = "roofline-explorer"
SLIDER_CLASS = "roofline-intensity"
VERDICT_CLASS = "roofline-verdict"
#: Each widget's box, and the line of text every widget but the explorer writes its verdict in.
TIME_BOUNDS_CLASS = "roofline-time-bounds"
GEMM_CLASS = "roofline-gemm"
ATTENTION_CLASS = "roofline-attention"
TILES_CLASS = "roofline-tiles"
SWEEP_WALKER_CLASS = "roofline-sweep-walker"
TRIAGE_CLASS = "roofline-triage"
LINK_STEP_CLASS = "roofline-link-step"
TEXT_CLASS = "roofline-text"


def ipywidgets_module():
    import ipywidgets
    return ipywidgets


def _log_slider(**options):
    """An ipywidgets FloatLogSlider that clamps any value set on it to its range: an int too
    large for a float (10**400), which ipywidgets refuses with a TraitError naming no field,
    is read as an infinity of its sign first.  NaN is kept, for the widget's own message."""
    import math

    import traitlets
    w = ipywidgets_module()

    class SaneFloat(traitlets.CFloat):
        def validate(self, obj, value):
            if isinstance(value, int) and not isinstance(value, bool) and abs(value).bit_length() > 1024:
                value = math.inf if value > 0 else -math.inf
            return super().validate(obj, value)

    class LogSlider(w.FloatLogSlider):
        value = SaneFloat(1.0, help="Float value").tag(sync=True)

    return LogSlider(**options)


#: A menu's width per character of its longest option, and the room for its description.
MENU_PX_PER_CHAR, MENU_DESCRIPTION_PX = 8, 90


def _menu(fit=(), **kwargs):
    """A Dropdown wide enough for its longest option, and for the labels in ``fit`` (options it
    may be given later): ipywidgets' default 300 px (100 of them the description) cut
    "example 120 TFLOP/s, 3 TB/s" short."""
    w = ipywidgets_module()
    labels = [str(o[0] if isinstance(o, tuple) else o) for o in list(kwargs["options"]) + list(fit)]
    width = MENU_DESCRIPTION_PX + MENU_PX_PER_CHAR * max(map(len, labels)) + 30  # 30: the arrow
    return w.Dropdown(style={"description_width": f"{MENU_DESCRIPTION_PX}px"},
                      layout=w.Layout(width=f"{max(width, 300)}px"), **kwargs)


def _html_line(text: str, css_class: str = "") -> str:
    import html
    return f'<div class="{css_class}" style="line-height:1.4">{html.escape(text)}</div>'


def _error_line(exc: Exception) -> str:
    import html
    return f'<div style="color:#b00020">{html.escape(str(exc))}</div>'


def _selection_slider(**kwargs):
    """An ipywidgets SelectionSlider whose value, set from code, snaps to the nearest of its
    options when it is a number off the list (10**400 goes to the largest, 0 to the smallest),
    and otherwise is refused with a message naming the slider (stock ipywidgets raises
    'Invalid selection: value not found', naming nothing)."""
    w = ipywidgets_module()
    import math
    from traitlets import TraitError, validate

    class SnappingSelectionSlider(w.SelectionSlider):
        @validate("value")
        def _validate_value(self, proposal):
            value = proposal.value
            if value in self._options_values:
                return next(v for v in self._options_values if v == value)
            numbers = [v for v in self._options_values if isinstance(v, (int, float))]
            if (numbers and not isinstance(value, bool) and isinstance(value, (int, float))
                    and not (isinstance(value, float) and math.isnan(value))):
                if isinstance(value, int) and abs(value) > 1e300:
                    value = math.inf if value > 0 else -math.inf
                if not math.isfinite(value):
                    return max(numbers) if value > 0 else min(numbers)
                if value > 0 and all(v > 0 for v in numbers):  # the sliders are logarithmic
                    return min(numbers, key=lambda v: abs(math.log(v / value)))
                return min(numbers, key=lambda v: abs(v - value))
            shown = repr(value)[:40]
            raise TraitError(f"{self.description or 'slider'}: must be one of its values "
                             f"({self._options_labels[0]} to {self._options_labels[-1]}), got {shown}")

    return SnappingSelectionSlider(**kwargs)


class _Widget:
    """Shows as its ``box`` when it is the last expression of a cell."""

    box = None

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)


def _text_line(w):
    line = w.HTML()
    line.add_class(TEXT_CLASS)
    return line


def _restyle(figure, changes, layout=None) -> None:
    """Set ``changes`` (``[(trace, {property: value}), ...]``) and ``layout`` (``{"yaxis.range":
    ...}``) on FigureWidget ``figure``, as one message to the browser.

    Not ``batch_update``: it sends one list per property over the traces it touched, and a trace
    that did not set that property (or set it to its current value) gets null there, which
    plotly.js reads as "unset".  A name given at construction then vanished from the legend
    ("trace 0") as soon as another trace's name changed in the same batch.  Here every trace
    touched gets every property, its current value where it is unchanged.
    """
    index_of = {id(trace): i for i, trace in enumerate(figure.data)}
    indexes = [index_of[id(trace)] for trace, _ in changes]
    props = sorted({prop for _, values in changes for prop in values})
    # The raw properties, read without plotly's per-key path parsing (20 ms an explorer switch).
    now = [_flat(trace._props or {}) for trace, _ in changes]

    def current(i, prop):
        value = now[i].get(prop)
        return list(value) if isinstance(value, tuple) else value

    restyle = {prop: [values[prop] if prop in values else current(i, prop)
                      for i, (_, values) in enumerate(changes)] for prop in props}
    figure.plotly_update(restyle_data=restyle, relayout_data=dict(layout or {}),
                         trace_indexes=indexes)


def _flat(properties: dict, prefix: str = "") -> dict:
    """``{"line": {"dash": "dot"}}`` as ``{"line.dash": "dot"}``: plotly's restyle compares a
    nested dict with the object it replaces and never returns."""
    flat = {}
    for key, value in properties.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _copy_figure(target, source) -> None:
    """Make FigureWidget ``target`` show ``source``'s traces and layout, in place.

    Traces are updated one for one when the counts match (the usual case: a different machine
    or precision draws the same kinds of lines), else replaced; either way the widget, and the
    plotly.js already in the browser, stay.
    """
    layout = {"annotations": [a.to_plotly_json() for a in source.layout.annotations],
              **_flat(source.layout.title.to_plotly_json(), "title."),
              "xaxis.range": list(source.layout.xaxis.range),
              "yaxis.range": list(source.layout.yaxis.range)}
    if len(target.data) == len(source.data):
        # Every property that differs on any trace is sent for every trace (a property a trace
        # keeps, such as the point's name, included), its new value or None to unset it.
        olds = [_flat(old._props or {}) for old in target.data]
        news = [_flat(new._props or {}) for new in source.data]
        changed = {key for old, new in zip(olds, news) for key in old.keys() | new.keys()
                   if key not in ("type", "uid") and old.get(key) != new.get(key)}
        _restyle(target, [(old, {key: new.get(key) for key in changed})
                          for old, new in zip(target.data, news)], layout)
        return
    with target.batch_update():
        target.data = ()
        target.add_traces(list(source.data))
    target.plotly_relayout(layout)


# --- the intensity explorer ------------------------------------------------------------------

class IntensityExplorer(_Widget):
    """A point that slides along a roofline: the course's central widget.

    A log-scale slider sets the intensity; dropdowns pick the machine and the precision (the
    compute ceiling).  The point, the attainable rate and the verdict follow the slider, turning
    from memory-bound to compute-bound as the point crosses the ridge.  :meth:`use_ceilings`
    swaps the datasheet ceilings for measured ones.
    """

    def __init__(self, machine="H200", precision: str = "fp32", intensity: float = 1.0,
                 memory: str = "dram", warm: bool = True):
        w = ipywidgets_module()

        self.memory = memory
        self.machines = {name: get_machine(name) for name in machine_names()}
        first = ws.as_machine(machine)
        self.machines.setdefault(first.name, first)
        state = ws.explorer_state(first, precision, intensity, memory)
        self._state = state
        self._busy = False  # set while one control updates another, so only one redraw runs

        self.slider = _log_slider(
            value=intensity, base=2, min=_log2(ws.EXPLORER_MIN_INTENSITY),
            max=_log2(ws.EXPLORER_MAX_INTENSITY), step=0.05, readout_format=".3g",
            description="I (FLOP/byte)", continuous_update=True,
            style={"description_width": "initial"}, layout=w.Layout(width="620px"))
        self.slider.add_class(SLIDER_CLASS)
        self.machine_menu = _menu(options=list(self.machines), value=first.name,
                                  description="machine")
        self.precision_menu = _menu(options=ws.precision_options(first),
                                    value=state.precision, description="precision",
                                    fit=[o for m in self.machines.values() for o in ws.precision_options(m)])
        self.verdict = w.HTML(_html_line(state.verdict_text(), VERDICT_CLASS))
        self.verdict.add_class(VERDICT_CLASS)
        self.figure = roofline_figure(first, kernels=[self._point(state)], compute=[state.precision],
                                      memory=[memory], x_range=ws.EXPLORER_X_RANGE, widget=True)
        self.box = w.VBox([w.HBox([self.machine_menu, self.precision_menu]), self.slider,
                           self.verdict, self.figure])
        self.box.add_class(EXPLORER_CLASS)

        self.slider.observe(self._on_intensity, names="value")
        self.machine_menu.observe(self._on_machine, names="value")
        self.precision_menu.observe(self._on_precision, names="value")
        self.warmed = None
        if warm:
            self.warm_up()

    # The state and its two kinds of update ------------------------------------------------

    @property
    def state(self) -> ws.ExplorerState:
        return self._state

    @property
    def machine(self) -> Machine:
        return self.machines[self.machine_menu.value]

    @staticmethod
    def _point(state: ws.ExplorerState) -> KernelPoint:
        # One byte and I FLOPs: a point of intensity I that sits on its roof (never timed).
        return KernelPoint(POINT_NAME, state.intensity, 1.0)

    def update(self, intensity=None, machine=None, precision=None) -> ws.ExplorerState:
        """Recompute the state and redraw; ``None`` keeps a control's current value.

        The point alone moves when only the intensity changed; the roofs are redrawn when the
        machine or the precision did.  Bad values leave everything as it was and show a
        one-line error instead of the verdict.
        """

        precision = precision if precision is not None else self.precision_menu.value
        intensity = intensity if intensity is not None else self.slider.value
        try:
            if machine is not None and machine not in self.machines:
                raise ValueError(f"machine: unknown {str(machine)[:40]!r}; known: "
                                 f"{', '.join(self.machines)}")
            machine_obj = self.machines[machine] if machine is not None else self.machine
            state = ws.explorer_state(machine_obj, precision, intensity, self.memory)
            # The slider's own range: a value outside it could not be shown on the slider.
            if not ws.EXPLORER_MIN_INTENSITY <= state.intensity <= ws.EXPLORER_MAX_INTENSITY:
                raise ValueError(f"intensity: must be from {ws.EXPLORER_MIN_INTENSITY:g} to "
                                 f"{ws.EXPLORER_MAX_INTENSITY:g} FLOP/byte, got {state.intensity:g}")
        except ValueError as exc:
            self.verdict.value = _error_line(exc)
            return self._state
        roofs_changed = (state.machine, state.precision) != (self._state.machine, self._state.precision)
        self._state = state
        if roofs_changed:
            _copy_figure(self.figure, self._roofs(machine_obj, state.precision))
        point = find_trace(self.figure, kernel_id(POINT_NAME))
        roofline = machine_obj.roofline(state.precision, self.memory)
        with self.figure.batch_update():
            point.x = [state.intensity]
            point.y = [state.attainable_gflops]
            point.hovertext = [kernel_hover_text(self._point(state), roofline)]
        self.verdict.value = _html_line(state.verdict_text(), VERDICT_CLASS)
        return state

    def _roofs(self, machine: Machine, precision: str):
        return _reference_roofs(machine, precision, self.memory)

    def warm_up(self, wait: bool = False) -> threading.Event:
        """Build every (machine, precision) reference figure in a background thread.

        Started when the explorer is created, so that by the time a student opens a menu its
        roofs are ready and the switch costs a copy (about 5 ms) instead of a build (25-40 ms).
        Returns the event that is set when all are built; ``wait=True`` blocks until then.
        """
        jobs = [(machine, name) for machine in self._menu_order()
                for _, name in ws.precision_options(machine)]
        done = threading.Event()

        def build():
            try:
                for machine, name in jobs:
                    _reference_roofs(machine, name, self.memory)
            except Exception:  # a failed warm-up only costs speed: builds then happen on demand
                pass
            finally:
                done.set()

        threading.Thread(target=build, name="roofline-explorer-warm-up", daemon=True).start()
        self.warmed = done
        if wait:
            done.wait()
        return done

    def _menu_order(self) -> list:
        current = self.machine
        return [current] + [m for m in self.machines.values() if m is not current]

    def _on_intensity(self, change):
        if not self._busy:
            self.update(intensity=change["new"])

    def _on_precision(self, change):
        if not self._busy and change["new"] is not None:
            self.update(precision=change["new"])

    def _on_machine(self, change):
        if self._busy:
            return
        machine = self.machines[change["new"]]
        names = [name for _, name in ws.precision_options(machine)]
        keep = self.precision_menu.value if self.precision_menu.value in names else (
            "fp32" if "fp32" in names else names[0])
        self._busy = True
        try:
            self.precision_menu.options = ws.precision_options(machine)
            self.precision_menu.value = keep
        finally:
            self._busy = False
        self.update(machine=machine.name, precision=keep)

    # Measured ceilings ----------------------------------------------------------------------

    def use_ceilings(self, measured, name: str = None) -> "IntensityExplorer":
        """Show measured ceilings instead of the datasheet ones, in one call.

        ``measured`` is a :class:`Machine` (for example the one a Lab 1 result file loads into)
        or one or more :class:`Ceiling` objects, which then replace the same-named ceilings of
        the machine on show.  The result joins the machine menu and is selected.
        """
        if isinstance(measured, Machine):
            machine = measured
        else:
            ceilings = (measured,) if isinstance(measured, Ceiling) else tuple(measured)
            if not ceilings or not all(isinstance(c, Ceiling) for c in ceilings):
                raise ValueError("measured: expected a Machine or Ceiling objects")
            base = self.machine
            machine = base.with_ceilings(*ceilings, name=f"{base.name} (measured)", kind="measured")
        label = name or machine.name
        if label in self.machines and self.machines[label] is not machine and machine.kind != "datasheet":
            label = f"{label} ({machine.kind})"
        self.machines[label] = machine
        self._busy = True
        try:
            self.machine_menu.options = list(self.machines)
        finally:
            self._busy = False
        self.machine_menu.value = label  # fires _on_machine, which redraws
        if self._state.machine != machine.name:  # the label was already selected
            self._on_machine({"new": label})
        return self


# Reference figures of the explorer's roofs, shared by every explorer in the process.  A
# roofline_figure costs 25-40 ms to build (Plotly validates the template each time); a copy of
# one into the live widget costs about 5 ms.
_REFERENCE_LOCK = threading.Lock()
_REFERENCES: dict = {}


def _reference_roofs(machine: Machine, precision: str, memory: str):
    """The go.Figure of ``machine``'s ``precision`` roof against ``memory``, built once."""
    key = (machine.name, machine.ceilings, precision, memory)
    with _REFERENCE_LOCK:
        figure = _REFERENCES.get(key)
    if figure is None:
        point = KernelPoint(POINT_NAME, 1.0, 1.0)  # moved to the slider's intensity after the copy
        figure = roofline_figure(machine, kernels=[point], compute=[precision], memory=[memory],
                                 x_range=ws.EXPLORER_X_RANGE)
        with _REFERENCE_LOCK:
            figure = _REFERENCES.setdefault(key, figure)
    return figure


def _log2(value: float) -> float:
    import math
    return math.log2(value)


def intensity_explorer(machine="H200", precision: str = "fp32", intensity: float = 1.0,
                       memory: str = "dram") -> IntensityExplorer:
    """The intensity explorer (see :class:`IntensityExplorer`); display it as a cell's result."""
    return IntensityExplorer(machine, precision, intensity, memory)


# --- the two time bounds ---------------------------------------------------------------------

class TimeBoundsWidget(_Widget):
    """F, M, P and B sliders; bars for F/P, M/B, their max (overlapped) and their sum (serial)."""

    def __init__(self, n_flops=240e9, n_bytes=20e9, peak_gflops=120_000.0, peak_gbps=3_000.0,
                 plain_readouts: bool = False):
        w = ipywidgets_module()
        import plotly.graph_objects as go

        # ".3g" (the default) shows 2.4e+11 FLOPs and 1.2e+05 GFLOP/s.  Plain readouts put F in
        # GFLOP and M in GB, so that each of the four reads as a plain number with three
        # significant digits (240, 20.0, 120000, 3000) that a student can also type back: the
        # browser reads a typed readout with parseFloat, so no SI suffix and no thousands comma.
        # The sliders' values are then in GFLOP and GB (``count_scale``); the bounds are the same.
        self.count_scale = PLAIN_COUNT_SCALE if plain_readouts else 1.0
        readout = PLAIN_READOUT if plain_readouts else ".3g"
        flops_name, bytes_name = ("F (GFLOP)", "M (GB)") if plain_readouts else ("F (FLOPs)", "M (bytes)")

        def count(value):
            return value / self.count_scale if isinstance(value, (int, float)) and not isinstance(value, bool) else value

        def slider(value, low, high, description, readout_format):
            import math
            step, low, high = 0.05, math.floor(math.log10(low)), math.ceil(math.log10(high))
            if isinstance(value, (int, float)) and 0 < value < math.inf:
                # The browser puts the slider on the stops min + k * step and sends that value
                # back: the range is shifted so that the starting value is a stop (from whole
                # decades, 240e9 became 2.51e11 and the 6.67 ms memory bound 6.31 ms).
                start = math.log10(value)
                low = start - math.ceil((start - low) / step - 1e-9) * step
                high = start + math.ceil((high - start) / step - 1e-9) * step
            return _log_slider(value=value, base=10, min=low, max=high, step=step,
                               readout_format=readout_format, description=description,
                               continuous_update=True, style={"description_width": "initial"},
                               layout=w.Layout(width="560px"))

        self.flops = slider(count(n_flops), count(1e6), count(1e15), flops_name, readout)
        self.bytes = slider(count(n_bytes), count(1e3), count(1e13), bytes_name, readout)
        self.peak = slider(peak_gflops, 1e2, 1e7, "P (GFLOP/s)", readout)
        self.bandwidth = slider(peak_gbps, 1e1, 1e5, "B (GB/s)", readout)
        self.text = _text_line(w)
        self.figure = figure_widget(go.Figure(
            go.Bar(orientation="h", x=[0, 0, 0, 0], y=["", "", "", ""], meta="bars",
                   marker_color=["#d62728", "#1f77b4", "#2ca02c", "#7f7f7f"]),
            layout=dict(template="plotly_white", height=300, margin=dict(l=220, r=20, t=40, b=50),
                        title="lower bounds on the run time",
                        yaxis=dict(autorange="reversed"))))
        self.box = w.VBox([self.flops, self.bytes, self.peak, self.bandwidth, self.text, self.figure])
        self.box.add_class(TIME_BOUNDS_CLASS)
        for control in (self.flops, self.bytes, self.peak, self.bandwidth):
            control.observe(lambda change: self.update(), names="value")
        self.update()

    def update(self) -> ws.TimeBoundsState:
        try:
            state = ws.time_bounds_state(self.flops.value * self.count_scale,
                                         self.bytes.value * self.count_scale, self.peak.value,
                                         self.bandwidth.value)
        except ValueError as exc:
            self.text.value = _error_line(exc)
            return None
        bars = state.bars()
        unit, scale = _time_unit(max(seconds for _, seconds in bars))
        with self.figure.batch_update():
            bar = self.figure.data[0]
            bar.y = [label for label, _ in bars]
            bar.x = [seconds / scale for _, seconds in bars]
            bar.text = [ws.seconds_text(seconds) for _, seconds in bars]
            self.figure.layout.xaxis.title = f"time ({unit})"
        self.text.value = _html_line(state.text())
        return state


def _time_unit(seconds: float) -> tuple:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return unit, scale
    return "ns", 1e-9


#: The time-bounds widget's plain readouts: F and M in GFLOP and GB, and all four sliders in
#: d3's ".3r", plain decimal notation to three significant digits (240, 120000), which the
#: browser's parseFloat reads back when a student types into it.  Python's format() has no
#: "r": the static image's capture falls back to "{:g}", the same digits for these values.
PLAIN_COUNT_SCALE, PLAIN_READOUT = 1e9, ".3r"


def time_bounds_widget(**values) -> TimeBoundsWidget:
    return TimeBoundsWidget(**values)


# --- GEMM size and precision -----------------------------------------------------------------

class GemmWidget(_Widget):
    """N and precision of a square GEMM against the ridge of that precision's matrix roof."""

    def __init__(self, machine="MI300X", dtype: str = "bf16", n: int = 512):
        w = ipywidgets_module()
        import plotly.graph_objects as go

        machine = ws.as_machine(machine)
        self.machine_menu = _menu(options=[m for m in machine_names()
                                           if ws.gemm_dtypes(get_machine(m))],
                                  value=machine.name, description="machine")
        self.dtype_menu = w.Dropdown(options=ws.gemm_dtypes(machine), value=dtype,
                                     description="precision")
        self.n_slider = _selection_slider(options=ws.GEMM_SIZES, value=n, description="N",
                                          continuous_update=True, layout=w.Layout(width="560px"))
        self.text = _text_line(w)
        self.figure = figure_widget(go.Figure(
            [go.Scatter(mode="lines", name="I(N) = 2N / (3s)", meta="curve"),
             go.Scatter(mode="lines", name="ridge", meta="ridge", line=dict(dash="dot")),
             go.Scatter(mode="lines", name="smallest N reaching the ridge", meta="threshold",
                        line=dict(dash="dash", color="#7f7f7f")),
             go.Scatter(mode="markers", name="this GEMM", meta="point", marker=dict(size=12))],
            layout=dict(template="plotly_white", height=380,
                        xaxis=dict(type="log", title="N (square GEMM)"),
                        yaxis=dict(type="log", title="intensity (FLOP/byte)"))))
        self.box = w.VBox([w.HBox([self.machine_menu, self.dtype_menu]), self.n_slider,
                           self.text, self.figure])
        self.box.add_class(GEMM_CLASS)
        self.machine_menu.observe(self._on_machine, names="value")
        self.dtype_menu.observe(lambda change: self.update(), names="value")
        self.n_slider.observe(lambda change: self.update(), names="value")
        self._busy = False
        self.update()

    def _on_machine(self, change):
        dtypes = ws.gemm_dtypes(change["new"])
        keep = self.dtype_menu.value if self.dtype_menu.value in dtypes else dtypes[0]
        self._busy = True
        try:
            self.dtype_menu.options = dtypes
            self.dtype_menu.value = keep
        finally:
            self._busy = False
        self.update()

    def update(self):
        if self._busy:
            return None
        try:
            state = ws.gemm_state(self.machine_menu.value, self.dtype_menu.value, self.n_slider.value)
        except ValueError as exc:
            self.text.value = _error_line(exc)
            return None
        sizes, intensities = ws.gemm_curve(state.dtype)
        low, high = min(intensities + [state.ridge]) / 2, max(intensities + [state.ridge]) * 2
        curve, ridge, threshold, point = self.figure.data
        _restyle(self.figure, [
            (curve, {"x": sizes, "y": intensities}),
            (ridge, {"x": [sizes[0], sizes[-1]], "y": [state.ridge, state.ridge],
                     "name": f"{state.ceiling} ridge: {state.ridge:.4g} FLOP/byte"}),
            (threshold, {"x": [state.smallest_n] * 2, "y": [low, high],
                         "name": f"smallest N reaching the ridge: {state.smallest_n}"}),
            (point, {"x": [state.n], "y": [state.intensity]}),
        ], {"yaxis.range": [_log10(low), _log10(high)],
            "title.text": f"GEMM {state.dtype} on {state.machine}"})
        self.text.value = _html_line(state.text())
        return state


def _log10(value: float) -> float:
    import math
    return math.log10(value)


def gemm_widget(machine="MI300X", dtype: str = "bf16", n: int = 512) -> GemmWidget:
    return GemmWidget(machine, dtype, n)


# --- attention: fused against unfused --------------------------------------------------------

class AttentionWidget(_Widget):
    """Attention's intensity against sequence length, fused and unfused, against the ridge."""

    def __init__(self, machine="MI300X", s: int = 1024, d: int = 128, dtype: str = "bf16",
                 point_legend: str = None):
        w = ipywidgets_module()
        import plotly.graph_objects as go

        machine = ws.as_machine(machine)
        self.dtype = dtype
        # The two points at the chosen s.  By default they are "this s", each in its curve's
        # colour; a legend entry shows one colour, so under a name of their own
        # (``point_legend``, formatted with s: "s = {s}") both are drawn in one dark colour.
        self.point_legend = point_legend
        point_colours = ["#d62728", "#2ca02c"] if point_legend is None else POINT_COLOUR
        self.machine_menu = _menu(
            options=[m for m in machine_names() if dtype in ws.gemm_dtypes(get_machine(m))],
            value=machine.name, description="machine")
        self.d_menu = w.Dropdown(options=list(ws.ATTENTION_HEAD_DIMS), value=d, description="d")
        self.s_slider = _selection_slider(options=ws.ATTENTION_LENGTHS, value=s,
                                          description="s (tokens)", continuous_update=True,
                                          style={"description_width": "initial"},
                                          layout=w.Layout(width="560px"))
        self.text = _text_line(w)
        self.figure = figure_widget(go.Figure(
            [go.Scatter(mode="lines", name="unfused", meta="unfused", line=dict(color="#d62728")),
             go.Scatter(mode="lines", name="fused", meta="fused", line=dict(color="#2ca02c")),
             go.Scatter(mode="lines", name="ridge", meta="ridge", line=dict(dash="dot", color="#333")),
             go.Scatter(mode="lines", name="fused crosses", meta="crossing",
                        line=dict(dash="dash", color="#7f7f7f")),
             go.Scatter(mode="markers", name="this s", meta="points",
                        marker=dict(size=12, color=point_colours))],
            layout=dict(template="plotly_white", height=380,
                        xaxis=dict(type="log", title="sequence length s"),
                        yaxis=dict(type="log", title="intensity (FLOP/byte)"))))
        self.box = w.VBox([w.HBox([self.machine_menu, self.d_menu]), self.s_slider, self.text,
                           self.figure])
        self.box.add_class(ATTENTION_CLASS)
        for control in (self.machine_menu, self.d_menu, self.s_slider):
            control.observe(lambda change: self.update(), names="value")
        self.update()

    def update(self):
        try:
            state = ws.attention_state(self.machine_menu.value, self.s_slider.value,
                                       self.d_menu.value, self.dtype)
        except ValueError as exc:
            self.text.value = _error_line(exc)
            return None
        curves = ws.attention_curves(state.d, state.dtype)
        values = curves["fused"] + curves["unfused"] + [state.ridge]
        low, high = min(values) / 2, max(values) * 2
        s_values = curves["s"]
        unfused, fused, ridge, crossing, points = self.figure.data
        _restyle(self.figure, [
            (unfused, {"x": s_values, "y": curves["unfused"]}),
            (fused, {"x": s_values, "y": curves["fused"]}),
            (ridge, {"x": [s_values[0], s_values[-1]], "y": [state.ridge] * 2,
                     "name": f"{state.ceiling} ridge: {state.ridge:.4g}"}),
            (crossing, {"x": [state.fused_crossover_s] * 2, "y": [low, high],
                        "name": f"fused crosses at s = {state.fused_crossover_s}"}),
            (points, {"x": [state.s, state.s],
                      "y": [state.unfused_intensity, state.fused_intensity],
                      "name": ("this s" if self.point_legend is None
                               else self.point_legend.format(s=state.s))}),
        ], {"yaxis.range": [_log10(low), _log10(high)],
            "title.text": f"attention {state.dtype}, d = {state.d}, on {state.machine}"})
        self.text.value = _html_line(state.text())
        return state


#: The colour of the attention widget's two points when they have a legend name of their own.
POINT_COLOUR = "#333333"


def attention_widget(machine="MI300X", s: int = 1024, d: int = 128,
                     dtype: str = "bf16", point_legend: str = None) -> AttentionWidget:
    return AttentionWidget(machine, s, d, dtype, point_legend)


# --- the tile-size animation (notebook 02) ---------------------------------------------------

class TileAnimation(_Widget):
    """A b x b tiled fp32 GEMM stepping b = 1..128 on A100, H100 and H200, with a Play button.

    Each machine has its own panel: fp32 roof (solid), bf16 tensor roof (dashed), and the
    GEMM's point on the fp32 roofline at its tile intensity.
    """

    def __init__(self, machines=ws.TILE_MACHINES, n: int = ws.TILE_GEMM_N, tile: int = 1,
                 interval_ms: int = 900):
        w = ipywidgets_module()
        import plotly.graph_objects as go
        from plotly.subplots import make_subplots

        self.machines = [ws.as_machine(m) for m in machines]
        self.n = n
        self.tile_slider = _selection_slider(options=ws.TILE_SIZES, value=tile,
                                             description="tile b", continuous_update=True)
        self.play = w.Play(min=0, max=len(ws.TILE_SIZES) - 1, step=1, interval=interval_ms,
                           value=ws.TILE_SIZES.index(tile), description="play")
        w.jslink((self.play, "value"), (self.tile_slider, "index"))
        self.text = _text_line(w)

        state = ws.tile_state(tile, n, self.machines)
        fig = make_subplots(rows=1, cols=len(self.machines), shared_yaxes=True,
                            subplot_titles=[m.name for m in self.machines],
                            horizontal_spacing=0.03)
        for column, (machine, row) in enumerate(zip(self.machines, state.rows), start=1):
            single = roofline_figure(machine, kernels=[KernelPoint(_tile_point(), row.intensity, 1.0)],
                                     compute=["fp32", ws.TILE_TENSOR_CEILING], memory=["dram"],
                                     x_range=(0.1, 1e4))
            for trace in single.data:
                kind = str(trace.meta).split(":")[0]
                trace.meta = f"{machine.name}|{trace.meta}"
                # One legend for three panels: generic names, shown once, grouped by role.
                trace.legendgroup = kind
                if column == 1 and kind in _TILE_LEGEND:
                    trace.name = _TILE_LEGEND[kind] if kind != "roof" else (
                        "fp32 vector roof" if trace.meta.endswith(":fp32") else "bf16 tensor roof (dashed)")
                else:
                    trace.showlegend = False
                fig.add_trace(trace, row=1, col=column)
            axis = "" if column == 1 else str(column)
            # Labels on the inner decades only: at the panels' edges, one panel's "10k" ran
            # into the next one's "0.1".
            fig.layout[f"xaxis{axis}"].update(type="log", range=single.layout.xaxis.range,
                                               title="FLOP/byte", tickvals=_TILE_X_TICKS,
                                               ticktext=[f"{v:,.0f}".replace(",000", "k")
                                                         for v in _TILE_X_TICKS],
                                               ticklabelstandoff=TICK_STANDOFF_PX)
            fig.layout[f"yaxis{axis}"].update(type="log", range=[2, 6.3],
                                               ticklabelstandoff=TICK_STANDOFF_PX)
        fig.update_layout(template="plotly_white", height=420, yaxis_title="GFLOP/s",
                          title=f"GEMM {n}^3 fp32, b x b tiles", legend=dict(orientation="h", y=-0.25))
        self.figure = figure_widget(fig)
        self.box = w.VBox([w.HBox([self.play, self.tile_slider]), self.text, self.figure])
        self.box.add_class(TILES_CLASS)
        self.tile_slider.observe(lambda change: self.update(change["new"]), names="value")
        self.update(tile)

    def update(self, tile: int) -> ws.TileState:
        try:
            state = ws.tile_state(tile, self.n, self.machines)
        except ValueError as exc:
            self.text.value = _error_line(exc)
            return None
        _restyle(self.figure, [
            (find_trace(self.figure, f"{machine.name}|{kernel_id(_tile_point())}"),
             {"x": [row.intensity], "y": [row.attainable_gflops], "text": [f"b = {tile}"]})
            for machine, row in zip(self.machines, state.rows)])
        self.text.value = _html_line(state.text())
        return state


_TILE_LEGEND = {"mem": "HBM bandwidth roof", "roof": None, "kernel": "tiled GEMM"}
_TILE_X_TICKS = (1, 10, 100, 1000)


def _tile_point() -> str:
    return "tiled GEMM"


def tile_animation(machines=ws.TILE_MACHINES, n: int = ws.TILE_GEMM_N, tile: int = 1,
                   interval_ms: int = 900) -> TileAnimation:
    return TileAnimation(machines, n, tile, interval_ms)


# --- a measured sweep, one K at a time -------------------------------------------------------

class SweepWalker(_Widget):
    """A K slider that walks one measured sweep point along the roofline it was measured on.

    ``rows`` are a sweep result's rows (``k``, ``intensity``, ``gbps``, ``gflops``,
    ``verified``); ``machine`` holds the ceilings to draw (measured ones, ideally).
    """

    def __init__(self, rows, machine, compute: str = "fp32", memory: str = "dram", title=None):
        w = ipywidgets_module()

        self.rows = [row for row in rows if float(row["intensity"]) > 0]
        if not self.rows:
            raise ValueError("rows: the sweep has no row with K > 0 to walk")
        self.machine = ws.as_machine(machine)
        self.roofline = self.machine.roofline(compute, memory)
        ks = [int(row["k"]) for row in self.rows]
        self.k_slider = _selection_slider(options=ks, value=ks[0], description="K",
                                          continuous_update=True, layout=w.Layout(width="560px"))
        self.text = _text_line(w)
        first = ws.sweep_point_state(self.rows, ks[0], self.roofline)
        self.figure = roofline_figure(
            self.machine, kernels=[KernelPoint("sweep K", first.intensity, 1.0, first.gflops)],
            compute=[compute], memory=[memory], title=title, widget=True,
            x_range=(min(float(r["intensity"]) for r in self.rows) / 2,
                     max(float(r["intensity"]) for r in self.rows) * 2))
        self.box = w.VBox([self.k_slider, self.text, self.figure])
        self.box.add_class(SWEEP_WALKER_CLASS)
        self.k_slider.observe(lambda change: self.update(change["new"]), names="value")
        self.update(ks[0])

    def update(self, k: int):
        try:
            state = ws.sweep_point_state(self.rows, k, self.roofline)
        except ValueError as exc:
            self.text.value = _error_line(exc)
            return None
        point = find_trace(self.figure, kernel_id("sweep K"))
        with self.figure.batch_update():
            point.x, point.y = [state.intensity], [max(state.gflops, 1e-9)]
            point.hovertext = [state.text()]
        self.text.value = _html_line(state.text())
        return state


def sweep_walker(rows, machine, compute: str = "fp32", memory: str = "dram", title=None) -> SweepWalker:
    return SweepWalker(rows, machine, compute, memory, title)


# --- the triage tool -------------------------------------------------------------------------

class TriageTool(_Widget):
    """Type what you know about a kernel; read the likely cause and the next step.

    Numbers accept formulas (``3/132``); leave a box empty when the fact is unknown.
    """

    def __init__(self, **initial):
        w = ipywidgets_module()

        self.inputs = {}
        rows = []
        for name, label in NUMBER_FIELDS.items():
            box = w.Text(value=str(initial.get(name, "")), description=label,
                         placeholder="unknown", style={"description_width": "300px"},
                         layout=w.Layout(width="480px"))
            self.inputs[name] = box
            rows.append(box)
        for name, label in BOOLEAN_FIELDS.items():
            value = initial.get(name)
            menu = w.Dropdown(options=["unknown", "yes", "no"],
                              value={True: "yes", False: "no"}.get(value, "unknown"),
                              description=label, style={"description_width": "300px"},
                              layout=w.Layout(width="480px"))
            self.inputs[name] = menu
            rows.append(menu)
        self.side_menu = w.Dropdown(options=["unknown", "memory", "ridge", "compute"],
                                    value=initial.get("side") or "unknown",
                                    description="side of the ridge", style={"description_width": "300px"},
                                    layout=w.Layout(width="480px"))
        self.inputs["side"] = self.side_menu
        rows.append(self.side_menu)
        self.report = _text_line(w)
        self.box = w.VBox([w.VBox(rows), self.report])
        self.box.add_class(TRIAGE_CLASS)
        for control in self.inputs.values():
            control.observe(lambda change: self.update(), names="value")
        self.update()

    def values(self) -> dict:
        return {name: control.value for name, control in self.inputs.items()}

    def update(self) -> str:
        import html
        text = triage_report(self.values())
        self.report.value = f'<pre style="white-space:pre-wrap">{html.escape(text)}</pre>'
        return text


def triage_tool(**initial) -> TriageTool:
    return TriageTool(**initial)


# --- pitfall 9: a training step on three roofs -----------------------------------------------

#: Trace names of the link chart's two points; their trace ids are ``point:<name>``.
#: The two points sit at two intensities on one axis: each is read against its own roofs only.
DEVICE_POINT = "the device's view: HBM intensity, on the HBM and compute roofs"
STEP_POINT = "the step: FLOPs per byte sent, on the link roof"


class LinkStepWidget(_Widget):
    """Model size, tokens per step and the link of a training step, against three measured
    roofs: compute, HBM and the link.  ``roofs`` is a :class:`rooflinelib.lessons.step_roofs.StepRoofs`."""

    def __init__(self, roofs, scenario: str = ws.LINK_SCENARIOS[0], n_params: int = 10 ** 7,
                 tokens: int = 4096, bytes_per_token: int = 768, n_gpus: int = 8,
                 link: str = "pcie-measured", overlap: bool = True):
        w = ipywidgets_module()
        import plotly.graph_objects as go

        self.roofs = roofs
        wide = w.Layout(width="560px")
        # Buttons as wide as their labels: the default width cut "all-reduce the gradients" short.
        self.scenario = w.ToggleButtons(options=ws.LINK_SCENARIOS, value=scenario, description="step",
                                        style={"button_width": "auto"})
        self.params = _selection_slider(options=[(f"{p:.0e}", p) for p in ws.MODEL_SIZES], value=n_params,
                                        description="parameters", continuous_update=True, layout=wide)
        self.tokens = _selection_slider(options=list(ws.STEP_TOKENS), value=tokens,
                                        description="tokens/step", continuous_update=True, layout=wide)
        self.inputs = w.Dropdown(options=[(f"{name} ({size:,} B)", size) for name, size in TOKEN_INPUTS.items()],
                                 value=bytes_per_token, description="each token", layout=wide)
        self.gpus = w.Dropdown(options=list(ws.GPU_COUNTS), value=n_gpus, description="GPUs")
        self.link = w.Dropdown(options=[(f"{r.label}: {r.gbps:.4g} GB/s", r.name) for r in roofs.links],
                               value=link, description="link", layout=wide)
        # The label beside the box, whole: a Checkbox's description column cut it short.
        self.overlap = w.Checkbox(value=overlap, description="communication overlaps the computation",
                                  indent=False, layout=wide)
        self.text = _text_line(w)
        state = ws.link_step_state(roofs, scenario, n_params, tokens, bytes_per_token, n_gpus, link, overlap)
        traces = [go.Scatter(x=x, y=y, mode="lines", name=name, meta=f"roof:{i}",
                             line=dict(dash="dot" if i == 2 else "solid"))
                  for i, (name, (x, y)) in enumerate(ws.link_step_curves(state).items())]
        traces += [go.Scatter(x=[1], y=[1], mode="markers", name=DEVICE_POINT, meta=f"point:{DEVICE_POINT}",
                              marker=dict(size=13, symbol="circle")),
                   go.Scatter(x=[1], y=[1], mode="markers", name=STEP_POINT, meta=f"point:{STEP_POINT}",
                              marker=dict(size=14, symbol="x"))]
        # The legend under the plot, one entry a line, with room for each: laid out in a row
        # it ran past the figure's bottom and over the text beneath.
        self.figure = figure_widget(legend_below(go.Figure(traces, layout=dict(
            template="plotly_white",
            xaxis=dict(type="log", title="intensity (FLOP per byte of HBM traffic, or per byte sent)"),
            yaxis=dict(type="log", title="attainable GFLOP/s")))))
        self.box = w.VBox([self.scenario, self.params, self.tokens, w.HBox([self.inputs, self.gpus]),
                           self.link, self.overlap, self.text, self.figure])
        self.box.add_class(LINK_STEP_CLASS)
        for control in (self.scenario, self.params, self.tokens, self.inputs, self.gpus, self.link, self.overlap):
            control.observe(lambda change: self.update(), names="value")
        self.update()

    def update(self):
        try:
            state = ws.link_step_state(self.roofs, self.scenario.value, self.params.value, self.tokens.value,
                                       self.inputs.value, self.gpus.value, self.link.value, self.overlap.value)
        except ValueError as exc:
            self.text.value = _error_line(exc)
            return None
        streaming = state.scenario == ws.LINK_SCENARIOS[0]
        self.inputs.disabled, self.gpus.disabled = not streaming, streaming
        curves = ws.link_step_curves(state)
        device, step = self.figure.data[3:]
        _restyle(self.figure, [
            *[(trace, {"name": name, "x": x, "y": y})
              for trace, (name, (x, y)) in zip(self.figure.data[:3], curves.items())],
            (device, {"x": [state.step.hbm_intensity], "y": [state.device_gflops]}),
            (step, {"x": [state.step.link_intensity], "y": [state.step_gflops]}),
        ], {"title.text": f"{state.scenario} on {state.device}: "
                          f"{'link' if state.link_bound else state.device_side}-bound"})
        self.text.value = _html_line(state.text(), VERDICT_CLASS)
        return state


def link_step_widget(roofs, **values) -> LinkStepWidget:
    return LinkStepWidget(roofs, **values)
