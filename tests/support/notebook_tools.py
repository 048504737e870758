"""Keep the course notebooks committable: canonical format, fixed kernel, only checked outputs.

The notebooks are the source students open, so they are edited in JupyterLab.  Before a
commit, run

    .venv/bin/python tests/support/notebook_tools.py refresh notebooks/01_derivation.ipynb   # or several

which executes each notebook in a fresh kernel, keeps the plain-text outputs of the cells
tagged ``nbval-check-output`` (nbval compares those in CI), drops every other output and all
widget state, and writes the file in canonical nbformat.  ``strip`` does the same without
executing.  ``check`` lists what is wrong with a notebook; tests/notebooks/test_notebooks.py runs it.

nbval's markers are cell tags (``nbval-check-output``, ``nbval-ignore-output``, ``nbval-skip``,
``nbval-raises-exception``), never comments a student reads.  ``tags`` moves any comment
marker (``# NBVAL_CHECK_OUTPUT`` as a line of its own) into the cell's tags: a JSON pass that
executes nothing, keeps every output, and changes nothing the second time, so it can be run on
every notebook whenever one is added::

    .venv/bin/python tests/support/notebook_tools.py tags notebooks/*.ipynb solutions/*.ipynb exercises/*.ipynb

Cells whose output depends on the machine (the measurements of notebooks 03 to 06) cannot be
compared, but a page that shows blank results reads wrong before it is run.  A cell tagged
``recorded-output`` keeps the printed text (stream output only) of a run in recorded mode:
``refresh`` executes a notebook that has such cells with ``ROOFLINE_MODE=recorded``, and
``mark`` adds the tag to every untagged code cell that prints text in that mode.  nbval never
compares these cells (only ``nbval-check-output`` ones), so a live run may print other numbers.
The tag replaces the comment line ``# stored output: recorded H200 run`` that students read;
``tags`` moves that comment into the tag as it does nbval's markers.

Every figure and widget is visible before anyone runs the notebook, on GitHub and nbviewer too:
``refresh`` runs the notebook in recorded-H200 mode and stores, in the cell that drew it, a PNG
of each figure's first state (the state it was displayed in), with a widget's controls and
text lines written under its figure, and the cell gets the tag ``figure``.  The image's
caption (its alternative text) names the figure by its title (a widget without one by its
first text line) and says where its data comes from only where that is the recorded H200 runs:
the notebook's owner tags such a cell ``figure-recorded-h200``, since the figure itself does not
show which data it plots.  Any other figure (a datasheet GPU, the made-up example GPU, a
formula) draws the same in every mode, and its caption says only that the image is the
figure as the cell first draws it.  ``check`` reports a caption that does not match its cell's
tag (add or remove the tag, then refresh).  The interactive
figure replaces the image when the cell runs.  The PNGs are drawn by kaleido with the Chromium
of the machine, at a fixed size and scale, so the same notebook gives the same bytes.  A figure
cell that draws nothing in recorded mode (a live-only figure) gets ``figure-live-only`` instead.
``check`` reports a cell that calls a figure or widget maker and stores no image, except in a
student copy (exercises/), whose figure cells at or after its first answer cell
``rooflinelib.exercises.generator`` tags ``figure-in-exercise``: a student copy keeps only the
outputs of its given cells before the first answer, and the solution's image would show the
worked answers.
"""
from __future__ import annotations

import base64
import html
import json
import re
import sys
from pathlib import Path

import nbformat

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
LANGUAGE_INFO = {"name": "python"}
CHECK_TAG = "nbval-check-output"
#: nbval's comment markers and the cell tags that say the same (nbval reads both).
COMMENT_TAGS = {"NBVAL_CHECK_OUTPUT": CHECK_TAG, "NBVAL_IGNORE_OUTPUT": "nbval-ignore-output",
                "NBVAL_SKIP": "nbval-skip", "NBVAL_RAISES_EXCEPTION": "nbval-raises-exception",
                "stored output: recorded H200 run": "recorded-output"}
#: The tag of a cell that keeps the printed text of a recorded-mode run.
RECORDED_TAG = "recorded-output"
#: The comment line that marked such cells before the tag (moved into the tag by ``tags``).
RECORDED_MARK = "# stored output: recorded H200 run"
#: The tag of a cell that stores a static image of the figure it draws, and of one that draws
#: nothing in recorded mode (so has no image to store).
FIGURE_TAG = "figure"
LIVE_ONLY_TAG = "figure-live-only"
#: The tag of a figure cell whose figure draws the recorded H200 runs (the notebook's owner sets
#: it: which data a figure plots is not visible in the figure), and what each caption says of
#: the data.  A figure of a datasheet or example GPU is the same in every mode, so its caption
#: makes no claim about the mode.
RECORDED_FIGURE_TAG = "figure-recorded-h200"
RECORDED_CAPTION = "drawn from the recorded H200 runs that ship with the course"
#: The tag ``rooflinelib.exercises.generator`` gives a figure cell of a student copy in exercises/: the
#: copy stores no outputs, and the solution's image would show the worked answers, so the cell
#: has no image by design (the student's run draws the figure).
EXERCISE_FIGURE_TAG = "figure-in-exercise"
PLAIN_CAPTION = "as the cell first draws it"
MAX_BYTES = 1_000_000
#: Output types kept in checked cells: the plain text nbval compares, nothing else.
KEPT_MIMETYPE = "text/plain"
IMAGE_MIMETYPE = "image/png"
#: What the capture hook (``CAPTURE_SOURCE``) adds to a displayed figure's or widget's bundle.
STATIC_MIMETYPE = "application/x.rooflinelib-static+json"
#: The size a static image is drawn at when the figure does not set its own (CSS pixels), and
#: the scale: one image pixel per CSS pixel, so an image is about 40-100 kB.
IMAGE_WIDTH_PX, IMAGE_HEIGHT_PX, IMAGE_SCALE = 820, 450, 1
#: A line of a widget's text, written under its figure, wraps at this many characters.
TEXT_WRAP = 110
TEXT_LINE_PX = 19
#: A call that makes a figure or a widget, as the last expression of a cell or inside display().
FIGURE_CALL = re.compile(r"(?<!check)(_figure|_widget|_explorer|_animation|_walker|_tool|\.figure)\s*\(")
#: Cell metadata a committed notebook keeps.
KEPT_CELL_METADATA = ("nbgrader", "tags")
#: Strings that must never appear in a committed notebook.
FORBIDDEN = {
    "plotly.js inlined": "Plotly.newPlot(",
    "a widget view": "application/vnd.jupyter.widget-view+json",
    "a saved plotly figure": "application/vnd.plotly.v1+json",
    "a pip install": "!pip",
}


#: Run in the kernel before a notebook's first cell by ``refresh`` (and never stored): every
#: object IPython displays, as a cell's result or through display(), is also described under
#: STATIC_MIMETYPE when it is a plotly figure or a widget: each figure as plotly JSON, and a
#: widget's controls ("description: value") and text lines, in the order they appear.  Captured
#: when displayed, so the image is the widget's first state whatever later cells do to it.
CAPTURE_SOURCE = r"""
def _rooflinelib_capture(mimetype):
    import html as _html, json as _json, re as _re
    from IPython import get_ipython

    formatter = get_ipython().display_formatter
    original = formatter.format

    def shown(control):
        if hasattr(control, "options") and hasattr(control, "label"):
            # a selection made with value= at its first option leaves .label empty (ipywidgets
            # sets it only when the index changes): read the label of the index
            labels, index = getattr(control, "_options_labels", ()), getattr(control, "index", None)
            if isinstance(index, int) and 0 <= index < len(labels):
                return str(labels[index])
            return str(control.label)
        value, spec = control.value, getattr(control, "readout_format", "")
        if isinstance(value, float) and spec.endswith("s") and value > 0:
            # d3's SI format (".3s": 28.2M), which the live slider shows and Python lacks
            import math as _math
            power = max(-8, min(8, _math.floor(_math.log10(value) / 3)))
            digits = int(spec.strip(".~s") or 3)
            return format(value / 1000 ** power, f".{digits}g") + "yzafpnµm kMGTPEZY"[power + 8].strip()
        if isinstance(value, float):
            try:
                return format(value, spec.replace("~", "")) if spec else f"{value:g}"
            except ValueError:
                return f"{value:g}"
        return str(value)

    def walk(obj, figures, lines, depth=0):
        if depth > 20:
            return
        try:
            from plotly.basedatatypes import BaseFigure
        except ImportError:
            return
        if isinstance(obj, BaseFigure):
            figures.append(_json.loads(obj.to_json()))
            return
        try:
            import ipywidgets
        except ImportError:
            return
        if not isinstance(obj, ipywidgets.Widget):
            box = getattr(obj, "box", None)
            if isinstance(box, ipywidgets.Widget):
                walk(box, figures, lines, depth + 1)
            return
        if hasattr(obj, "children"):
            for child in obj.children:
                walk(child, figures, lines, depth + 1)
        elif isinstance(obj, (ipywidgets.HTML, ipywidgets.HTMLMath, ipywidgets.Label)):
            text = _re.sub(r"\s+", " ", _html.unescape(_re.sub(r"<[^>]*>", " ", obj.value))).strip()
            if text:
                lines.append(text)
        elif isinstance(obj, (ipywidgets.Button, ipywidgets.Play, ipywidgets.Output)):
            return
        elif hasattr(obj, "value"):
            # A greyed-out (disabled) control is not used by the state shown: its value would
            # mislead a reader of the static image (notebook 06's GPUs field when streaming).
            value = "not used here (greyed out)" if getattr(obj, "disabled", False) else shown(obj)
            lines.append(f"{obj.description or 'value'}: {value}")

    def described(obj, include=None, exclude=None):
        data, metadata = original(obj, include=include, exclude=exclude)
        figures, lines = [], []
        try:
            walk(obj, figures, lines)
        except Exception as exc:  # the capture must never change what a cell does
            lines = [f"(static capture failed: {type(exc).__name__}: {exc})"]
        if figures or lines:
            data = dict(data)
            data[mimetype] = {"figures": figures, "lines": lines}
        return data, metadata

    formatter.format = described


_rooflinelib_capture(%r)
del _rooflinelib_capture
"""


def tags_of(cell) -> list:
    return list(cell.get("metadata", {}).get("tags", []))


def is_checked(cell) -> bool:
    return cell.cell_type == "code" and CHECK_TAG in tags_of(cell)


def _comment_marker(line: str):
    stripped = line.strip()
    return stripped.lstrip("#").strip() if stripped.startswith("#") else None


def comment_markers(cell) -> list:
    """nbval markers written as comments in a code cell's source."""
    if cell.cell_type != "code":
        return []
    return [m for m in map(_comment_marker, cell.source.splitlines()) if m in COMMENT_TAGS]


def to_tags(nb) -> int:
    """Move every nbval comment marker into its cell's tags; returns how many cells changed."""
    changed = 0
    for cell in nb.cells:
        markers = comment_markers(cell)
        if not markers:
            continue
        lines = [line for line in cell.source.splitlines(keepends=True)
                 if _comment_marker(line) not in COMMENT_TAGS]
        cell.source = "".join(lines).rstrip("\n") if lines else ""
        tags = tags_of(cell)
        for marker in markers:
            if COMMENT_TAGS[marker] not in tags:
                tags.append(COMMENT_TAGS[marker])
        cell.setdefault("metadata", nbformat.from_dict({}))["tags"] = tags
        changed += 1
    return changed


def tags(path: Path) -> int:
    """``to_tags`` on the file at ``path``, written back only when something moved."""
    nb = nbformat.read(str(path), as_version=4)
    changed = to_tags(nb)
    if changed:
        write(nb, path)
    return changed


def is_recorded(cell) -> bool:
    # The comment line still counts until ``tags`` moves it (check() reports it meanwhile).
    marked = RECORDED_TAG in tags_of(cell) or RECORDED_MARK in cell.source
    return cell.cell_type == "code" and marked and not is_checked(cell)


def _last_statement(source: str) -> str:
    lines = [line for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return lines[-1] if lines else ""


def draws_figure(cell, made: set = frozenset()) -> bool:
    """Whether the cell shows a figure or a widget: its last line calls a maker (or names a
    variable in ``made``, assigned from one earlier), or it calls display() on one."""
    if cell.cell_type != "code":
        return False
    last = _last_statement(cell.source)
    shown = not last.startswith((" ", "\t")) and not re.match(r"\w+\s*=[^=]", last)
    if shown and (FIGURE_CALL.search(last) or last.strip() in made):
        return True
    return any("display(" in line and FIGURE_CALL.search(line) for line in cell.source.splitlines())


def figure_variables(nb) -> set:
    """Names the notebook assigns from a figure or widget maker (``explorer = widgets.x(...)``)."""
    made = set()
    for cell in nb.cells:
        if cell.cell_type == "code":
            for match in re.finditer(r"^(\w+)\s*=\s*[^=\n]*" + FIGURE_CALL.pattern, cell.source, re.M):
                made.add(match.group(1))
    return made


def images_of(cell) -> list:
    return [o for o in cell.get("outputs", []) if IMAGE_MIMETYPE in o.get("data", {})]


def _image_output(output):
    """A stored static image, reduced to its PNG and its alternative text."""
    data = output.get("data", {})
    if output.output_type != "display_data" or IMAGE_MIMETYPE not in data:
        return None
    return nbformat.v4.new_output("display_data", data={IMAGE_MIMETYPE: data[IMAGE_MIMETYPE],
                                                        KEPT_MIMETYPE: data.get(KEPT_MIMETYPE, "")})


def _plain(output):
    """The output reduced to what nbval compares, or None to drop it."""
    if output.output_type == "stream":
        return nbformat.v4.new_output("stream", name=output.name, text=output.text)
    if output.output_type in ("execute_result", "display_data"):
        text = output.get("data", {}).get(KEPT_MIMETYPE)
        if text is None:
            return None
        if output.output_type == "execute_result":
            return nbformat.v4.new_output("execute_result", data={KEPT_MIMETYPE: text},
                                          execution_count=output.get("execution_count"))
        return nbformat.v4.new_output("display_data", data={KEPT_MIMETYPE: text})
    return None  # errors are never stored: a notebook that raises is not committed


def _recorded_text(output):
    """What a recorded-run cell keeps: printed text, and the plain-text form of a result that
    is not a figure or a widget (whose plain text is only a repr of the object)."""
    if output.output_type == "stream":
        return nbformat.v4.new_output("stream", name=output.name, text=output.text)
    data = output.get("data", {})
    if output.output_type in ("execute_result", "display_data") and KEPT_MIMETYPE in data:
        if any(m.startswith(("application/vnd.plotly", "application/vnd.jupyter.widget"))
               for m in data):
            return None
        return nbformat.v4.new_output("display_data", data={KEPT_MIMETYPE: data[KEPT_MIMETYPE]})
    return None


def merged_streams(outputs) -> list:
    """Adjacent stream outputs of one name as one: a kernel sends a print in pieces when it
    flushes mid-line, and each piece stored apart shows as a block of its own (a piece that
    starts with the line's newline as a stray blank line)."""
    merged = []
    for output in outputs:
        last = merged[-1] if merged else None
        if (last is not None and output.output_type == "stream" and last.output_type == "stream"
                and last.name == output.name):
            merged[-1] = nbformat.v4.new_output("stream", name=output.name, text=last.text + output.text)
        else:
            merged.append(output)
    return merged


def canonical(nb):
    """The notebook with the fixed kernelspec, no widget state, and outputs only where checked."""
    nb.metadata = nbformat.from_dict({"kernelspec": dict(KERNELSPEC),
                                      "language_info": dict(LANGUAGE_INFO)})
    for index, cell in enumerate(nb.cells):
        # nbgrader's cell metadata and the cell tags (nbval's markers) are content; the rest
        # (collapsed, scrolled, execution timings) is editor state.
        kept = {k: cell.metadata[k] for k in KEPT_CELL_METADATA if k in cell.metadata}
        cell.metadata = nbformat.from_dict(kept)
        if cell.cell_type != "code":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
            continue
        if is_checked(cell):
            outputs = merged_streams([kept for kept in (_plain(o) for o in cell.get("outputs", [])) if kept])
            count = 1 if outputs else None
            for output in outputs:
                if output.output_type == "execute_result":
                    output.execution_count = count
            cell.outputs = outputs
            cell.execution_count = count
        else:
            keep = _recorded_text if is_recorded(cell) else (lambda output: None)
            # A recorded cell's printed text, then the cell's static images (refresh puts them
            # last); the images of a figure cell are kept by ``strip`` too, which executes nothing.
            outputs = [keep(o) for o in cell.get("outputs", []) if not _image_output(o)]
            outputs += [_image_output(o) for o in cell.get("outputs", [])]
            cell.outputs = merged_streams([kept for kept in outputs if kept])
            # nbval refuses a stored output without an execution count ("unrun reference cell")
            cell.execution_count = 1 if cell.outputs else None
    nb.nbformat, nb.nbformat_minor = 4, 5
    return nb


def execute(nb, path: Path, timeout: int = 600):
    from nbclient import NotebookClient
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return nb


def write(nb, path: Path) -> None:
    nbformat.validate(nb)
    nbformat.write(nb, str(path))


def _execute_recorded(nb, path: Path):
    """Execute with ROOFLINE_MODE=recorded (the kernel inherits this process's environment)."""
    import os
    before = os.environ.get("ROOFLINE_MODE")
    os.environ["ROOFLINE_MODE"] = "recorded"
    try:
        return execute(nb, path)
    finally:
        if before is None:
            os.environ.pop("ROOFLINE_MODE", None)
        else:
            os.environ["ROOFLINE_MODE"] = before


def _text_lines(lines) -> list:
    import textwrap
    wrapped = []
    for line in lines:
        wrapped += textwrap.wrap(line, TEXT_WRAP, subsequent_indent="    ") or [""]
    return wrapped


def static_figure(figure, lines) -> dict:
    """The plotly figure (as JSON) a static image draws: ``figure`` (or, for a widget without
    one, an empty page) with the widget's ``lines`` written under it, at a fixed size."""
    wrapped = _text_lines(lines)
    text = "<br>".join(html.escape(line, quote=False) for line in wrapped)
    extra_px = TEXT_LINE_PX * len(wrapped) + 12 if wrapped else 0
    if figure is None:
        return {"data": [], "layout": {
            "template": "plotly_white", "width": IMAGE_WIDTH_PX, "height": extra_px + 16,
            "margin": {"l": 8, "r": 8, "t": 8, "b": 8},
            "xaxis": {"visible": False}, "yaxis": {"visible": False},
            "annotations": [{"text": text, "xref": "paper", "yref": "paper", "x": 0, "y": 1,
                             "xanchor": "left", "yanchor": "top", "align": "left",
                             "showarrow": False, "font": {"size": 13}}]}}
    figure = json.loads(json.dumps(figure))
    layout = figure.setdefault("layout", {})
    layout["width"] = layout.get("width") or IMAGE_WIDTH_PX
    layout["height"] = (layout.get("height") or IMAGE_HEIGHT_PX) + extra_px
    if wrapped:
        margin = layout.setdefault("margin", {})
        bottom, left = margin.get("b", 80), margin.get("l", 80)
        margin["b"] = bottom + extra_px
        layout.setdefault("annotations", []).append({
            "text": text, "xref": "paper", "yref": "paper", "x": 0, "y": 0, "xanchor": "left",
            "yanchor": "top", "xshift": 8 - left, "yshift": -bottom, "align": "left",
            "showarrow": False, "font": {"size": 13}})
    return figure


def static_figures(captured) -> list:
    """The figures one displayed object draws as static images: one per plotly figure, the
    widget's text under the last, or the text alone for a widget without a figure."""
    figures, lines = captured.get("figures", []), captured.get("lines", [])
    if not figures:
        return [static_figure(None, lines)] if lines else []
    return [static_figure(f, lines if i == len(figures) - 1 else []) for i, f in enumerate(figures)]


def render_pngs(figures) -> list:
    """PNG bytes of each plotly figure (JSON), drawn by kaleido in one Chromium."""
    if not figures:
        return []
    try:
        import kaleido
    except ImportError:
        raise SystemExit("refresh: the static figure images need kaleido (in the test extra: "
                         "python3 course.py test installs it) and Debian's chromium") from None
    # No MathJax (the course writes no TeX, and its default is a download); one browser for all.
    kaleido.start_sync_server(n=1, timeout=180, mathjax=False, silence_warnings=True)
    try:
        return [kaleido.calc_fig_sync(f, opts={"format": "png", "width": f["layout"]["width"],
                                               "height": f["layout"]["height"],
                                               "scale": IMAGE_SCALE})
                for f in figures]
    finally:
        kaleido.stop_sync_server(silence_warnings=True)


def _title(figure) -> str:
    title = (figure.get("layout") or {}).get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return re.sub(r"<[^>]*>", " ", str(text)).strip() if text else ""


def _first_line(captured) -> str:
    """A name for a widget whose figure has no title (or that has no figure): its first text
    line, shortened."""
    lines = captured.get("lines") or []
    if not lines:
        return "a widget"
    first = lines[0] if len(lines[0]) <= 80 else lines[0][:79].rstrip() + "…"
    return f"a widget ({first})"


def caption(cell, name: str) -> str:
    """The alternative text of a static image of the figure ``name`` drawn by ``cell``."""
    source = RECORDED_CAPTION if RECORDED_FIGURE_TAG in tags_of(cell) else PLAIN_CAPTION
    return f"[static image: {name}, {source}; run the cell for the interactive figure]"


def caption_problem(cell):
    """What is wrong with the captions of ``cell``'s images, or None: each must say what the
    cell's tag says of its data (a caption written before the tag changed, or by an older
    ``refresh``, says something else)."""
    want = RECORDED_CAPTION if RECORDED_FIGURE_TAG in tags_of(cell) else PLAIN_CAPTION
    for output in images_of(cell):
        alt = output.get("data", {}).get(KEPT_MIMETYPE, "")
        alt = "".join(alt) if isinstance(alt, list) else alt
        if want not in alt:
            tagged = "is" if want == RECORDED_CAPTION else "is not"
            return (f"the caption of its image does not say {want!r} (the cell {tagged} tagged "
                    f"{RECORDED_FIGURE_TAG!r}; run: tests/support/notebook_tools.py refresh FILE)")
    return None


def add_static_images(nb) -> list:
    """Replace what the capture hook recorded in each cell's outputs by PNG outputs, tag figure
    cells; returns the indices of cells that got images."""
    pending = []  # (cell, alt text, static figure)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.get("outputs", []):
            captured = output.get("data", {}).get(STATIC_MIMETYPE)
            if captured is None:
                kept.append(output)
                continue
            for figure in static_figures(captured):
                pending.append((cell, caption(cell, _title(figure) or _first_line(captured)), figure))
            # the figure's own outputs (plotly's bundle, the widget view) go in canonical()
            rest = {k: v for k, v in output.get("data", {}).items() if k != STATIC_MIMETYPE}
            if rest:
                output["data"] = rest
                kept.append(output)
        cell.outputs = kept
    pngs = render_pngs([figure for _, _, figure in pending])
    for (cell, alt, _), png in zip(pending, pngs):
        cell.outputs.append(nbformat.v4.new_output("display_data", data={
            IMAGE_MIMETYPE: base64.b64encode(png).decode("ascii"), KEPT_MIMETYPE: alt}))
    made = figure_variables(nb)
    drawn = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = [t for t in tags_of(cell) if t not in (FIGURE_TAG, LIVE_ONLY_TAG)]
        if images_of(cell):
            tags.append(FIGURE_TAG)
            drawn.append(index)
        elif draws_figure(cell, made):
            tags.append(LIVE_ONLY_TAG)
        if tags:
            cell.setdefault("metadata", nbformat.from_dict({}))["tags"] = tags
        else:
            cell.get("metadata", {}).pop("tags", None)
    return drawn


def refresh(path: Path) -> None:
    """Execute the notebook (in recorded mode when it stores a recorded run or draws figures),
    keep what ``canonical`` keeps and a static image of each figure, and write it."""
    nb = nbformat.read(str(path), as_version=4)
    made = figure_variables(nb)
    recorded = any(is_recorded(c) or draws_figure(c, made) or FIGURE_TAG in tags_of(c)
                   for c in nb.cells)
    _run_with_images(nb, path, recorded)
    write(canonical(nb), path)


def _run_with_images(nb, path: Path, recorded: bool = True) -> None:
    nb.cells.insert(0, nbformat.v4.new_code_cell(CAPTURE_SOURCE % STATIC_MIMETYPE))
    try:
        (_execute_recorded if recorded else execute)(nb, path)
    finally:
        nb.cells.pop(0)
    add_static_images(nb)


def mark(path: Path) -> list:
    """Execute in recorded mode, tag every untagged code cell that printed text, and keep its
    output.  Returns the indices of the cells it tagged."""
    nb = nbformat.read(str(path), as_version=4)
    _run_with_images(nb, path)
    marked = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or is_checked(cell) or is_recorded(cell):
            continue
        if any(_recorded_text(o) for o in cell.get("outputs", [])):
            cell.setdefault("metadata", nbformat.from_dict({}))["tags"] = tags_of(cell) + [RECORDED_TAG]
            marked.append(index)
    write(canonical(nb), path)
    return marked


def strip(path: Path) -> None:
    nb = nbformat.read(str(path), as_version=4)
    write(canonical(nb), path)


def missing_images(nb) -> list:
    """Indices of the cells that draw a figure or a widget and store no static image of it."""
    made = figure_variables(nb)
    return [i for i, cell in enumerate(nb.cells)
            if (draws_figure(cell, made) or FIGURE_TAG in tags_of(cell)) and not images_of(cell)
            and LIVE_ONLY_TAG not in tags_of(cell) and EXERCISE_FIGURE_TAG not in tags_of(cell)]


def _is_png(text) -> bool:
    try:
        return base64.b64decode("".join(text), validate=True).startswith(b"\x89PNG\r\n\x1a\n")
    except (ValueError, TypeError):
        return False


def check(path: Path) -> list:
    """Everything that keeps ``path`` from being committed, one line each (empty when fine)."""
    problems = []
    text = path.read_text(encoding="utf-8")
    if len(text.encode("utf-8")) >= MAX_BYTES:
        problems.append(f"larger than {MAX_BYTES} bytes")
    for what, needle in FORBIDDEN.items():
        if needle in text:
            problems.append(f"contains {what} ({needle!r})")
    nb = nbformat.reads(text, as_version=4)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        problems.append(f"invalid nbformat: {str(exc).splitlines()[0]}")
    if dict(nb.metadata.get("kernelspec", {})) != KERNELSPEC:
        problems.append(f"kernelspec is {dict(nb.metadata.get('kernelspec', {}))}, not {KERNELSPEC}")
    if "widgets" in nb.metadata:
        problems.append("saved widget state in the notebook metadata")
    missing = missing_images(nb)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if "import *" in cell.source:
            problems.append(f"cell {index}: star import")
        images = images_of(cell)
        texts = [o for o in cell.outputs if o not in images]
        if texts and not (is_checked(cell) or is_recorded(cell)):
            problems.append(f"cell {index}: outputs stored in a cell nbval does not check")
        if is_recorded(cell) and not texts:
            problems.append(f"cell {index}: tagged {RECORDED_TAG!r} but has no stored output")
        if is_recorded(cell) and any(set(o.get("data", {})) - {KEPT_MIMETYPE} for o in texts):
            problems.append(f"cell {index}: a recorded-run cell may store plain text only")
        if is_checked(cell) and not cell.outputs:
            problems.append(f"cell {index}: tagged {CHECK_TAG} but has no stored output")
        wrong_caption = caption_problem(cell)
        if wrong_caption:
            problems.append(f"cell {index}: {wrong_caption}")
        if index in missing:
            problems.append(f"cell {index}: draws a figure or a widget but stores no static image "
                            "of it (run: tests/support/notebook_tools.py refresh FILE)")
        for marker in comment_markers(cell):
            problems.append(f"cell {index}: marker {marker!r} written as a comment students read; "
                            "make it a tag (run: tests/support/notebook_tools.py tags FILE)")
        for output in cell.outputs:
            data = output.get("data", {})
            extra = set(data) - {KEPT_MIMETYPE} - ({IMAGE_MIMETYPE} if output in images else set())
            if extra:
                problems.append(f"cell {index}: stored output has {sorted(extra)}")
            if output in images and not _is_png(data[IMAGE_MIMETYPE]):
                problems.append(f"cell {index}: a stored image is not a base64 PNG")
            if output.output_type == "error":
                problems.append(f"cell {index}: stored error output")
    canonical_text = nbformat.writes(canonical(nbformat.reads(text, as_version=4))) + "\n"
    if canonical_text != text:
        problems.append("not in canonical form (run: tests/support/notebook_tools.py strip FILE)")
    return problems


def main(argv) -> int:
    if len(argv) < 2 or argv[0] not in ("refresh", "strip", "check", "mark", "tags"):
        print(__doc__)
        return 2
    status = 0
    for name in argv[1:]:
        path = Path(name)
        if argv[0] == "refresh":
            refresh(path)
            print(f"refreshed {path}")
        elif argv[0] == "mark":
            print(f"marked {path}: cells {mark(path)}")
        elif argv[0] == "tags":
            print(f"tagged {path}: {tags(path)} cells moved their nbval markers to tags")
        elif argv[0] == "strip":
            strip(path)
            print(f"stripped {path}")
        else:
            for problem in check(path):
                print(f"{path}: {problem}")
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
