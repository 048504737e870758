"""What a student sees: the Plotly roofline, text plots and tables, progress bars, widgets.
"""
