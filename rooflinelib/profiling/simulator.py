"""numba-cuda's CUDA simulator at a usable speed, and without its shared-array race.

The simulator runs every thread of a block as a Python thread, and its scheduler
(``BlockManager.run``) polls them in a busy loop.  That loop keeps the GIL for whole switch
intervals, 5 ms by default, so most of a simulated launch is the poll: the byte counts of
notebook 07's two softmax kernels took 10.3 s on a 2-core Xeon, 1.7 s with the interval at
:data:`SWITCH_INTERVAL_S`, and 1.25 s quickened (the interval, and the lookup below), with the
same counts.

Shorter slices expose a race in the simulator's shared arrays (``FakeCUDAShared.array``): a
block's array is made on first use, looked up and stored without a lock (and found by
formatting the whole call stack, which is slow), so two threads of a block could each make
their own, and the block no longer shares it.  With a 10 us interval a softmax's row maximum
came out of uninitialised memory that way.  While quickened, the lookup takes the calling
line from the frame and runs under a lock.

:func:`quick` does both for one launch and undoes them (:func:`rooflinelib.profiling.count_bytes`
uses it); :func:`quicken` does them for the rest of a process, as the test children that run
the GPU code on the simulator want.  Neither needs a GPU or ``NUMBA_ENABLE_CUDASIM``.
"""
from __future__ import annotations

import contextlib
import sys
import threading

#: The interpreter's switch interval while quickened, in seconds.  On the 2-core Xeon the
#: softmax counts took 2.2 s at 0.5 ms, 1.7 s at 0.2 ms and at 0.1 ms, 10.3 s at the default.
SWITCH_INTERVAL_S = 2e-4

_LOCK = threading.Lock()
#: While set (by :func:`rooflinelib.profiling.counting.count_accesses`, or by the capstone's race
#: detector, :func:`rooflinelib.profiling.races.detect`), every static shared array a quickened
#: kernel asks for is handed out through this function, which wraps it so that its accesses are
#: recorded.  None: the arrays themselves.
SHARED_WRAPPER = None
#: While set (by the capstone's kernel check), every static shared array a quickened kernel asks
#: for starts filled with this value (NaN there), not ``np.empty``'s leftovers, so a read before
#: any thread wrote it gives the same wrong value on every run.  None: ``np.empty``.
SHARED_FILL = None


def _kernelapi():
    try:
        from numba.cuda.simulator import kernelapi
    except Exception:  # numba or numba-cuda missing: nothing to quicken
        return None
    shared = getattr(kernelapi, "FakeCUDAShared", None)
    return kernelapi if callable(getattr(shared, "array", None)) else None


def _locked_shared_array(kernelapi, original):
    import numpy as np
    types, numpy_support = kernelapi.types, kernelapi.numpy_support

    def array(self, shape, dtype, alignment=None):
        allocations = getattr(self, "_allocations", None)
        # dynamic shared memory (shape 0) and alignment keep the simulator's own handling
        if shape == 0 or alignment is not None or not isinstance(allocations, dict):
            return original(self, shape, dtype, alignment)
        if isinstance(dtype, types.Type):
            dtype = numpy_support.as_dtype(dtype)
        caller = sys._getframe(1)  # the kernel's line, as the simulator keys its arrays
        where = (caller.f_code.co_filename, caller.f_lineno)
        with _LOCK:
            found = allocations.get(where)
            if found is None:
                fill = SHARED_FILL
                found = allocations[where] = np.empty(shape, dtype) if fill is None else np.full(shape, fill, dtype)
        wrapper = SHARED_WRAPPER
        return found if wrapper is None else wrapper(found)

    array.quickened = True
    return array


def quicken():
    """Shorten the switch interval and lock the shared arrays' lookup for the rest of this
    process.  Returns a function that undoes what this call did (nothing, if the simulator is
    missing or this process is quickened already)."""
    kernelapi = _kernelapi()
    if kernelapi is None:
        return lambda: None
    shared = kernelapi.FakeCUDAShared
    original = shared.array
    if getattr(original, "quickened", False):
        return lambda: None
    interval = sys.getswitchinterval()
    shared.array = _locked_shared_array(kernelapi, original)
    sys.setswitchinterval(min(interval, SWITCH_INTERVAL_S))

    def undo():
        shared.array = original
        sys.setswitchinterval(interval)

    return undo


@contextlib.contextmanager
def quick():
    """:func:`quicken` for the body of the ``with`` only."""
    undo = quicken()
    try:
        yield
    finally:
        undo()
