"""A progress bar for the live measurements a notebook runs (Lab 1's ceilings, Lab 3's sweep).

The measurement functions report progress as lines, ``[3/11] K=   16 ...`` (what the
``roofline`` command prints on stderr).  :func:`progress_bar` returns a callback for their
``progress=`` argument that draws those lines as an ipywidgets bar with the latest line beside
it, so a run of a minute in a notebook is never a silent cell.  The bar appears on the first
line, so a notebook that loads a recorded run instead shows none.

ipywidgets and IPython are imported on the first line, so ``import rooflinelib`` stays light.
"""
from __future__ import annotations

import re

_STEP = re.compile(r"^\[(\d+)/(\d+)\]\s*(.*)")


class ProgressBar:
    """``bar(line)`` moves the bar on ``[n/N] ...`` lines (step n has started) and shows every
    line as the bar's text; :meth:`done` fills it."""

    def __init__(self, description: str = "measuring", display=None):
        self.description = description
        self._display = display
        self.bar = None
        self.label = None
        self.lines = []

    def _show(self):
        import ipywidgets as w
        self.bar = w.IntProgress(value=0, min=0, max=1, description=self.description,
                                 bar_style="info", style={"description_width": "initial"},
                                 layout=w.Layout(width="420px"))
        self.label = w.HTML()
        box = w.HBox([self.bar, self.label])
        box.add_class("roofline-progress")
        if self._display is None:
            from IPython.display import display
            display(box)
        else:
            self._display(box)

    def __call__(self, line: str) -> None:
        if self.bar is None:
            self._show()
        self.lines.append(line)
        match = _STEP.match(line.strip())
        if match:
            step, total = int(match.group(1)), int(match.group(2))
            self.bar.max = max(total, 1)
            self.bar.value = min(step - 1, self.bar.max)
        import html
        self.label.value = f"<code>{html.escape(line.strip())}</code>"

    def done(self) -> None:
        if self.bar is not None:
            self.bar.value = self.bar.max
            self.bar.bar_style = "success"


def progress_bar(description: str = "measuring", display=None) -> ProgressBar:
    """A ``progress=`` callback that draws a bar in the notebook (see the module's docstring)."""
    return ProgressBar(description, display)
