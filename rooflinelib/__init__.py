"""rooflinelib: the roofline model, the operator catalogue and the course's measurements.

Importing the package loads only the standard library: numba, cupy and plotly are imported
by the modules that need them, when they are first used.
"""
from rooflinelib.core.model import (Ceiling, Machine, Roofline, TimeBounds, Verdict,
                                    attainable_gflops, classify, ridge, side_of_ridge, time_bounds,
                                    RIDGE_TOLERANCE)
from rooflinelib.core.machines import get_machine, register, machine_names, ridge_table
from rooflinelib.core.expr import ExpressionError, evaluate, parse_positive
from rooflinelib.core import operators
from rooflinelib.profiling import profile

__version__ = "0.1.0"
