"""rooflinelib: the roofline model, the operator catalogue and the course's measurements.

Importing the package loads only the standard library: numba, cupy and plotly are imported
by the modules that need them, when they are first used.
"""
from .model import (Ceiling, Machine, Roofline, TimeBounds, Verdict, attainable_gflops, classify,
                    ridge, side_of_ridge, time_bounds, RIDGE_TOLERANCE)
from .machines import get_machine, register, machine_names, ridge_table
from .expr import ExpressionError, evaluate, parse_positive
from . import operators
from .profiling import profile

__version__ = "0.1.0"
