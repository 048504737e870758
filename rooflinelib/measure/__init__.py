"""The measurement engine (Labs 1 and 3): ceilings and the intensity sweep, measured on a
GPU with Numba-CUDA or CuPy, or on this machine's CPU.

Light to import: numba, cupy and numpy are loaded only when a measurement starts.

    from rooflinelib.measure import measure_ceilings, run_sweep
    result = measure_ceilings(backend="auto", progress=print)   # Lab 1
    sweep = run_sweep(backend="auto", progress=print)            # Lab 3
    from rooflinelib.store.results import save, to_machine
    machine = to_machine(result)                                 # a Machine(kind="measured")
"""


def measure_ceilings(*args, **kwargs):
    from rooflinelib.measure.ceilings import measure_ceilings as run
    return run(*args, **kwargs)


measure_ceilings.__doc__ = """Lab 1: see :func:`rooflinelib.measure.ceilings.measure_ceilings`."""


def run_sweep(*args, **kwargs):
    from rooflinelib.measure.sweep import run_sweep as run
    return run(*args, **kwargs)


run_sweep.__doc__ = """Lab 3: see :func:`rooflinelib.measure.sweep.run_sweep`."""


def measure_cpu(size_mib: float = None, progress=None):
    """Both labs on this machine's CPU, small enough for a notebook cell: returns
    ``(ceilings_result, sweep_result)``, each labelled as a CPU roofline."""
    from rooflinelib.measure.ceilings import measure_ceilings as lab1
    from rooflinelib.measure.sweep import run_sweep as lab3
    return (lab1("cpu", size_mib=size_mib, progress=progress),
            lab3("cpu", size_mib=size_mib, progress=progress))


def gpu_available() -> bool:
    """True when a CUDA GPU can be measured here (Numba-CUDA or CuPy)."""
    from rooflinelib.measure.backend import gpu_available as check
    return check()
