"""The notebooks' narration: the kitchen analogy, chart reading, the pitfalls, the
triage tree, use cases, published figures and a training step's roofs.
"""
