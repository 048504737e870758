"""The measurement engine (Labs 1 and 3): ceilings and the intensity sweep, measured on a
GPU with Numba-CUDA or CuPy, or on this machine's CPU.

- backends: :mod:`.backend` (the protocol and the probe), :mod:`.gpu_backends` (Numba-CUDA,
  CuPy), :mod:`.cpu` (this machine's cores);
- kernels: :mod:`.kernels_numba`, :mod:`.kernels_cupy`, :mod:`.experiment_kernels`,
  :mod:`.experiment_kernels_cpu`, :mod:`.workingset_kernels`, with :mod:`.vector_access`
  (16-byte loads and stores);
- what a kernel must do: :mod:`.registry` (one row per ceiling), :mod:`.accounting` (its FLOPs
  and bytes), :mod:`.expected` (its exact output);
- turning a kernel into a rate: :mod:`.protocol`, :mod:`.timing`, :mod:`.errors` (the two ways
  a measurement refuses a number), :mod:`.provenance` (where it was made);
- the runs: :mod:`.ceilings` (Lab 1), :mod:`.sweep` (Lab 3), :mod:`.matrix` (cuBLAS GEMMs),
  :mod:`.allreduce` and :mod:`.dp_step` (NCCL and a data-parallel step);
- tools: :mod:`.sass` (opcode histograms), :mod:`.warm` (the CPU kernels compiled once).

The package offers the labs' entry points below.  Light to import: numba, cupy and numpy are
loaded only when a measurement starts.

    from rooflinelib.measure import measure_ceilings, run_sweep
    result = measure_ceilings(backend="auto", progress=print)   # Lab 1
    sweep = run_sweep(backend="auto", progress=print)            # Lab 3
    from rooflinelib.store.results import save, to_machine
    machine = to_machine(result)                                 # a Machine(kind="measured")
"""

__all__ = ["measure_ceilings", "run_sweep", "measure_cpu", "gpu_available"]


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
