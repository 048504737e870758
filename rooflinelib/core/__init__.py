"""The roofline model and its vocabulary: ceilings, machines, operators, placement, links.

Nothing here imports from the rest of the package.
"""
