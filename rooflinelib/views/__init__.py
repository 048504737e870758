"""What a student sees: the Plotly roofline, text plots and tables, progress bars, widgets.

- :mod:`.plotting`: the one Plotly roofline;
- :mod:`.tables`: the tables the labs and notebooks print;
- :mod:`.ascii_plot`: a roofline in text, for a terminal;
- :mod:`.progress`: progress bars;
- :mod:`.widgets`: the widgets, with their pure state in :mod:`.widget_state`.

The package offers no names of its own: import the module.
"""

__all__ = []
