"""Compile the course's CPU kernels once, into Numba's on-disk cache.

Every CPU kernel of the labs is ``@njit(cache=True)``: the first process that calls one
compiles it (0.4 to 1.3 s each on a 2-core Xeon) and writes the machine code beside its
source, and later processes load it in milliseconds.  ``course.py`` runs this module once,
after it installs, so that the first measurement in a notebook does not wait for the compiler,
and the workers of a test run do not all compile the same kernels at the same moment.

Each kernel is compiled by calling it as the labs do, through the same functions, at the
smallest sizes, so that it is compiled for the argument types it will be given: Lab 1's copy,
fill and FMA kernels, Lab 2's sweep at every K, exercise 3's reduction and the working-set
read.  Every step's outcome is reported; one that fails is reported and the others still run
(a kernel not compiled here is compiled where it is first used, as before).  Two steps compile
at once, each in a process of its own (``--jobs 1``: one after another, in this process).

    python -m rooflinelib.measure.warm [--jobs N]
"""
from __future__ import annotations

import multiprocessing
import os
import sys
import time

#: Each buffer of the warm-up runs, in MiB (the least Lab 1 and Lab 2 accept): the runs take
#: milliseconds once compiled.
WARM_MIB = 1


def _backend():
    from .cpu import CpuBackend
    return CpuBackend(repeats=1, warmup=0, window_s=0.0)


def _lab1():
    from .ceilings import measure_ceilings
    measure_ceilings(_backend(), size_mib=WARM_MIB)


def _lab2():
    from .sweep import run_sweep
    run_sweep(_backend(), size_mib=WARM_MIB)


def _reduction():
    from .protocol import measure_run
    backend = _backend()
    buffers = backend.sweep_buffers(int(WARM_MIB * 2 ** 20))
    measure_run(backend, "reduction", "memory", backend.reduction_run(buffers))


def _working_set():
    from ..hierarchy.sweep import measure_cpu
    measure_cpu(sizes=[4096, 8192], bytes_per_call=1 << 16, repeats=1)


#: What is compiled, in the order it is compiled.
STEPS = {"Lab 1 (fill, copy, FMA peaks)": _lab1, "Lab 2 (the sweep at every K)": _lab2,
         "exercise 3's reduction": _reduction, "the working-set read": _working_set}


#: At most this many steps compile at once, each in a process of its own: Numba compiles on one
#: core, and on the 2-core VM the four steps took 9.1-11.9 s one after another.
MAX_JOBS = 2


def _run(name: str) -> float:
    started = time.perf_counter()
    STEPS[name]()
    return time.perf_counter() - started


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def warm(progress=print, jobs: int = 1) -> dict:
    """Run every step of STEPS, ``jobs`` at a time, each in a forked process of its own when
    ``jobs`` > 1 and the platform forks (else one after another, here); returns ``{step:
    seconds or the one-line reason it failed}``, and reports each step in STEPS' order."""
    done = {}

    def report(name):
        if progress:
            outcome = done[name]
            progress(f"  {name}: " + (f"{outcome:.1f} s" if isinstance(outcome, float) else f"not compiled ({outcome})"))

    if jobs > 1 and "fork" in multiprocessing.get_all_start_methods():
        from concurrent.futures import ProcessPoolExecutor
        # Forked, so each process finds STEPS as this one has it; nothing here has started
        # Numba's threads yet (the steps import it).
        with ProcessPoolExecutor(min(jobs, len(STEPS)), mp_context=multiprocessing.get_context("fork")) as pool:
            running = {name: pool.submit(_run, name) for name in STEPS}
            for name, future in running.items():
                try:
                    done[name] = future.result()
                except Exception as exc:  # reported, and the other steps still run
                    done[name] = _reason(exc)
                report(name)
        return done
    for name in STEPS:
        try:
            done[name] = _run(name)
        except Exception as exc:  # reported, and the next step still runs
            done[name] = _reason(exc)
        report(name)
    return done


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    jobs = min(MAX_JOBS, os.cpu_count() or 1)
    if argv:
        if len(argv) != 2 or argv[0] != "--jobs" or not argv[1].isdigit() or int(argv[1]) < 1:
            print(f"--jobs: must be a whole number of at least 1, got {' '.join(argv)[:60]!r} "
                  "(usage: python -m rooflinelib.measure.warm [--jobs N])", file=sys.stderr)
            return 2
        jobs = int(argv[1])
    started = time.perf_counter()
    print("compiling the CPU kernels into Numba's cache (once)", flush=True)
    done = warm(lambda line: print(line, flush=True), jobs=jobs)
    failed = [name for name, outcome in done.items() if not isinstance(outcome, float)]
    print(f"compiled in {time.perf_counter() - started:.1f} s"
          + (f"; {len(failed)} step(s) failed and compile where first used" if failed else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
