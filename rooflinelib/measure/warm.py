"""Compile the course's CPU kernels once, into Numba's on-disk cache.

Every CPU kernel of the labs is ``@njit(cache=True)``: the first process that calls one
compiles it (0.4 to 1.3 s each on a 2-core Xeon) and writes the machine code beside its
source, and later processes load it in milliseconds.  ``course.py`` runs this module once,
after it installs, so that the first measurement in a notebook does not wait for the compiler,
and the workers of a test run do not all compile the same kernels at the same moment.

Each kernel is compiled by calling it as the labs do, through the same functions, at the
smallest sizes, so that it is compiled for the argument types it will be given: Lab 1's copy,
fill and FMA kernels, Lab 3's sweep at every K, exercise 4's reduction and the working-set
read.  Every step's outcome is reported; one that fails is reported and the others still run
(a kernel not compiled here is compiled where it is first used, as before).

    python -m rooflinelib.measure.warm
"""
from __future__ import annotations

import sys
import time
from rooflinelib.measure.cpu import CpuBackend
from rooflinelib.measure.protocol import measure_run
from rooflinelib.hierarchy.workingset import measure_cpu

#: Each buffer of the warm-up runs, in MiB (the least Lab 1 and Lab 3 accept): the runs take
#: milliseconds once compiled.
WARM_MIB = 1


def _backend():
    return CpuBackend(repeats=1, warmup=0, window_s=0.0)


def _lab1():
    from rooflinelib.measure.ceilings import measure_ceilings
    measure_ceilings(_backend(), size_mib=WARM_MIB)


def _lab3():
    from rooflinelib.measure.sweep import run_sweep
    run_sweep(_backend(), size_mib=WARM_MIB)


def _reduction():
    backend = _backend()
    buffers = backend.sweep_buffers(int(WARM_MIB * 2 ** 20))
    measure_run(backend, "reduction", "memory", backend.reduction_run(buffers))


def _working_set():
    measure_cpu(sizes=[4096, 8192], bytes_per_call=1 << 16, repeats=1)


#: What is compiled, in the order it is compiled.
STEPS = {"Lab 1 (fill, copy, FMA peaks)": _lab1, "Lab 3 (the sweep at every K)": _lab3,
         "exercise 4's reduction": _reduction, "the working-set read": _working_set}


def warm(progress=print) -> dict:
    """Run every step of STEPS; returns ``{step: seconds or the one-line reason it failed}``."""
    done = {}
    for name, step in STEPS.items():
        started = time.perf_counter()
        try:
            step()
        except Exception as exc:  # reported, and the next step still runs
            done[name] = f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
        else:
            done[name] = time.perf_counter() - started
        if progress:
            outcome = done[name]
            progress(f"  {name}: " + (f"{outcome:.1f} s" if isinstance(outcome, float) else f"not compiled ({outcome})"))
    return done


def main(argv=None) -> int:
    started = time.perf_counter()
    print("compiling the CPU kernels into Numba's cache (once)", flush=True)
    done = warm(lambda line: print(line, flush=True))
    failed = [name for name, outcome in done.items() if not isinstance(outcome, float)]
    print(f"compiled in {time.perf_counter() - started:.1f} s"
          + (f"; {len(failed)} step(s) failed and compile where first used" if failed else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
