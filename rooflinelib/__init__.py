"""rooflinelib: the roofline model, the operator catalogue and the course's measurements.

One folder per role (STYLE.md's table says where each kind of change goes):

- :mod:`.core`: the model and its vocabulary (imports nothing from the other folders);
- :mod:`.store`: files: the one read and write path, result formats, the recorded data;
- :mod:`.measure`: Labs 1 and 3, the backends, kernels and runs;
- :mod:`.experiments`: the notebooks' experiments and the rows they print;
- :mod:`.hierarchy`: the hierarchical roofline (notebook 05, Lab 4);
- :mod:`.profiling`: place your own kernel;
- :mod:`.lessons`: the notebooks' narration;
- :mod:`.views`: figures, tables and widgets;
- :mod:`.exercises`: the exercises' keys, grading and generator;
- :mod:`.cli`: the ``roofline`` command;

and on the top floor :mod:`.modes` (the one chain of ceiling sources), :mod:`.testing` (the
regression gates) and :mod:`.pytest_plugin` (their pytest entry point).

The names below are the model a notebook's first cells use, and :func:`profile`.  Importing
the package loads only the standard library: numba, cupy and plotly are imported by the
modules that need them, when they are first used.
"""
from rooflinelib.core.model import (Ceiling, Machine, Roofline, TimeBounds, Verdict,
                                    attainable_gflops, classify, ridge, side_of_ridge, time_bounds,
                                    RIDGE_TOLERANCE)
from rooflinelib.core.machines import get_machine, register, machine_names, ridge_table
from rooflinelib.core.expr import ExpressionError, evaluate, parse_positive
from rooflinelib.core import operators
from rooflinelib.profiling import profile

__version__ = "0.1.0"

__all__ = ["Ceiling", "Machine", "Roofline", "TimeBounds", "Verdict", "attainable_gflops", "classify",
           "ridge", "side_of_ridge", "time_bounds", "RIDGE_TOLERANCE", "get_machine", "register",
           "machine_names", "ridge_table", "ExpressionError", "evaluate", "parse_positive", "operators",
           "profile"]
