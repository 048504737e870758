"""Counted bytes: run a Numba-CUDA kernel's body in the CUDA simulator on arrays that count.

Every element a kernel reads from or writes to one of its array arguments (global memory) goes
through a :class:`CountingArray`, which adds the element's size to a tally.  Shared and local
arrays are the simulator's own, so they are not counted: the tally is what the kernel asks of
global memory.  Two figures per direction:

- ``read`` / ``written``: every access, as the kernel's code issues them.  A naive GEMM that
  reads each input element n times counts it n times.  This is the traffic the L1 sees;
- ``unique_read`` / ``unique_written``: the distinct bytes touched, the least any cache
  hierarchy can move from DRAM (each byte once).

The simulator runs in this process, with no GPU and no environment variable: the kernel's
Python body runs under the simulator's ``cuda`` module, one thread at a time per block (small
launches only: the simulator runs a few tens of thousands of threads a second).
"""
from __future__ import annotations

import threading

from .simulator import quick

#: Launches larger than this many threads are refused: they would take minutes to simulate.
MAX_THREADS = 1 << 18


class CountError(ValueError):
    """count_bytes cannot run this kernel: the message names the argument and the reason."""


class _Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.read = 0
        self.written = 0


class CountingArray:
    """An array argument that counts the bytes each access moves, and which elements it touched."""

    def __init__(self, array, tally: _Tally, name: str):
        import numpy as np
        self._array = array
        self._tally = tally
        self.name = name
        self._read_mask = np.zeros(array.shape, dtype=bool)
        self._write_mask = np.zeros(array.shape, dtype=bool)

    # what kernels ask of an array besides its elements
    shape = property(lambda self: self._array.shape)
    size = property(lambda self: self._array.size)
    ndim = property(lambda self: self._array.ndim)
    dtype = property(lambda self: self._array.dtype)
    strides = property(lambda self: self._array.strides)
    nbytes = property(lambda self: self._array.nbytes)

    def __len__(self):
        return len(self._array)

    def _count(self, index, n_elements: int, write: bool):
        n_bytes = n_elements * self._array.itemsize
        with self._tally.lock:
            if write:
                self._tally.written += n_bytes
                self._write_mask[index] = True
            else:
                self._tally.read += n_bytes
                self._read_mask[index] = True

    def __getitem__(self, index):
        import numpy as np
        value = self._array[index]
        self._count(index, int(np.size(value)), write=False)
        return value

    def __setitem__(self, index, value):
        import numpy as np
        self._array[index] = value
        self._count(index, int(np.size(self._array[index])), write=True)

    @property
    def unique_read(self) -> int:
        return int(self._read_mask.sum()) * self._array.itemsize

    @property
    def unique_written(self) -> int:
        return int(self._write_mask.sum()) * self._array.itemsize


def _counting_atomics(base):
    """The simulator's atomics, counting one read and one write per atomic on a counted array
    (the simulator's own would read it twice: ``old = a[i]`` then ``a[i] += v``)."""

    class CountingAtomic(base):
        def __getattribute__(self, name):
            op = super().__getattribute__(name)
            if name.startswith("_") or not callable(op):
                return op

            def counted(array, index, *values):
                if isinstance(array, CountingArray):
                    array._count(index, 1, write=False)
                    array._count(index, 1, write=True)
                    array = array._array
                return op(array, index, *values)
            return counted

    return CountingAtomic


def _host_copy(value, field: str):
    import numpy as np
    if isinstance(value, np.ndarray):
        return value.copy()
    for getter in ("copy_to_host", "get"):  # Numba device arrays, CuPy arrays
        if callable(getattr(value, getter, None)) and hasattr(value, "shape"):
            return np.asarray(getattr(value, getter)())
    if _module(value).startswith("torch") and hasattr(value, "detach"):
        return value.detach().cpu().numpy().copy()
    return None


def _module(obj) -> str:
    return type(obj).__module__ or ""


def _py_func(kernel):
    fn = getattr(kernel, "py_func", None)
    if not callable(fn):
        raise CountError(f"kernel: expected a Numba CUDA kernel (@cuda.jit), got {type(kernel).__name__}")
    return fn


def _dims(value, field: str) -> tuple:
    dims = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(dims) <= 3 or any(isinstance(d, bool) or not isinstance(d, int) or d < 1 for d in dims):
        raise CountError(f"{field}: must be a positive whole number or a tuple of 1 to 3 of them, got {value!r}")
    return dims


def _fake_device_functions(fn, seen=None):
    """The kernel's global device functions (@cuda.jit(device=True)), as simulator kernels
    that run their Python bodies; found recursively through the functions they call."""
    from numba.cuda.simulator.kernel import FakeCUDAKernel
    seen = seen if seen is not None else {}
    for name, value in list(fn.__globals__.items()):
        target = getattr(value, "py_func", None)
        if (callable(target) and _module(value).startswith("numba") and value is not fn
                and getattr(getattr(value, "targetoptions", {}), "get", lambda *a: None)("device")):
            if id(value) not in seen:
                seen[id(value)] = (fn.__globals__, name, value, FakeCUDAKernel(target, device=True))
                _fake_device_functions(target, seen)
    return seen


def count_bytes(kernel, griddim, blockdim, *args) -> dict:
    """Run ``kernel[griddim, blockdim](*args)`` in the CUDA simulator and count its global
    memory traffic.  Returns ``{"read", "written", "unique_read", "unique_written"}`` in bytes,
    and ``"threads"``, the launch size.

    Array arguments (numpy, Numba device, CuPy or torch arrays) are copied to the host first,
    so the caller's arrays are left as they were; scalars pass through.
    """
    fn = _py_func(kernel)
    grid, block = _dims(griddim, "griddim"), _dims(blockdim, "blockdim")
    threads = 1
    for d in grid + block:
        threads *= d
    if threads > MAX_THREADS:
        raise CountError(f"griddim, blockdim: {threads:,} threads is more than the simulator runs in "
                         f"reasonable time ({MAX_THREADS:,}); count at a smaller size")
    try:
        from numba.cuda.simulator.kernel import FakeCUDAKernel
    except Exception as exc:  # numba or numba-cuda missing
        raise CountError(f"kernel: the CUDA simulator cannot be loaded ({' '.join(str(exc).split())[:200]})") from None
    tally = _Tally()
    counted, call_args = [], []
    for i, value in enumerate(args):
        host = _host_copy(value, f"args[{i}]")
        if host is None:
            call_args.append(value)
        elif host.ndim == 0:
            call_args.append(host[()])
        else:
            wrapped = CountingArray(host, tally, f"args[{i}]")
            counted.append(wrapped)
            call_args.append(wrapped)
    from numba.cuda.simulator import kernelapi
    fakes = _fake_device_functions(fn)
    for globs, name, _, fake in fakes.values():
        globs[name] = fake
    original_atomic = kernelapi.FakeCUDAAtomic
    kernelapi.FakeCUDAAtomic = _counting_atomics(original_atomic)
    try:
        with quick():
            FakeCUDAKernel(fn, device=False)[grid, block](*call_args)
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:  # the student's kernel body, run as Python
        text = " ".join(str(exc).split())[:300]
        raise CountError(f"kernel: raised {type(exc).__name__} in the simulator: {text}") from None
    finally:
        kernelapi.FakeCUDAAtomic = original_atomic
        for globs, name, original, _ in fakes.values():
            globs[name] = original
    return {"read": tally.read, "written": tally.written,
            "unique_read": sum(a.unique_read for a in counted),
            "unique_written": sum(a.unique_written for a in counted),
            "threads": threads}
