"""The exercises' given data, answer keys and checks, one module per exercise notebook.

- :mod:`.ex01_two_kernels`: two kernels on one roofline, before and after bandwidth drops;
- :mod:`.ex02_classify`: nine kernels against two ridge points, and three cases the roofline
  cannot see;
- :mod:`.ex03_attention`: the arithmetic intensity of attention, fused and unfused;
- :mod:`.ex04_place_kernel`: place a reduction and an FMA-heavy kernel on measured ceilings;
- :mod:`.ex05_drills`: the conceptual drills;
- :mod:`.grading`: the checks' one way to run a student's answer and say CHECK YOUR INPUT;
- :mod:`.generator`: the student notebooks made from ``solutions/``
  (``python -m rooflinelib.exercises.generator``).

Every key is computed from :mod:`rooflinelib.core.operators` and :mod:`rooflinelib.core.model`; the
problem statements' inputs (a 120 TFLOP/s machine, a 4096-element launch) are data.  The
modules are imported by the notebooks one at a time, so importing this package loads nothing
but :mod:`rooflinelib.exercises.notebook_hooks`, whose handler, inside IPython, turns a check cell run
before its answer cell into NOT ANSWERED YET instead of a NameError traceback.
"""
from rooflinelib.exercises import notebook_hooks

__all__ = []

notebook_hooks.install()
