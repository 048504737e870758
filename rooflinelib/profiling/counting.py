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

:func:`count_accesses` also groups the accesses as the hardware does, by warp and instruction,
and counts what each warp-wide request costs:

- global memory: the distinct 32-byte **sectors** a request touches.  32 threads reading 32
  consecutive floats touch 4 sectors (128 bytes, all used); 32 threads reading one float from
  each of 32 rows touch 32 sectors, of which one float in eight is used.  Nsight Compute's
  ``l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum``
  is the same ratio for loads;
- shared memory: the **wavefronts** a request needs.  Shared memory is 32 banks of 4-byte
  words; a request is served in one pass unless two threads want different words of one bank,
  and it takes as many passes as the most-wanted bank has distinct words.  The passes beyond
  the first are **bank conflicts** (``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum``).

A warp's request is recognised as the same instruction (the kernel's bytecode position) executed
for the same time by each thread of the warp, so it assumes, as the hardware's accounting does,
that the warp's threads run that instruction together (the instruction is told by its line and
how often the thread ran that line on that array before).  Dynamic shared memory and atomics are
left out of the request counts (their bytes are still counted).
"""
from __future__ import annotations

import sys
import threading
from collections import defaultdict

from rooflinelib.profiling import simulator
from rooflinelib.profiling.simulator import quick

#: Launches larger than this many threads are refused: they would take minutes to simulate.
MAX_THREADS = 1 << 18
#: count_accesses keeps every access's address until the launch ends: a smaller limit.
MAX_ACCESS_THREADS = 1 << 14
WARP = 32
SECTOR_BYTES = 32
BANKS, BANK_BYTES = 32, 4


class CountError(ValueError):
    """count_bytes cannot run this kernel: the message names the argument and the reason."""


class _Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.read = 0
        self.written = 0
        self.requests = None  # count_accesses: {key of one warp's request: [byte offsets]}


def _record(tally: _Tally, space: str, write: bool, array, offsets, itemsize: int, frame):
    """Note one thread's access under the key of its warp's request: the array, the line of
    the kernel's code, the warp, and how many times this thread has accessed that array on that
    line before."""
    thread = threading.current_thread()
    warp = (tuple(getattr(thread, "blockIdx", ())), getattr(thread, "thread_id", 0) // WARP)
    # the line, not the bytecode offset: Python 3.11 moves f_lasti once it specialises the code
    # (two accesses to one array on a line are told apart by the count that follows)
    where = (id(frame.f_code), frame.f_lineno)
    seen = thread.__dict__.setdefault("_roofline_seen", {})
    step_key = (space, write, id(array)) + where
    nth = seen.get(step_key, 0)
    seen[step_key] = nth + 1
    with tally.lock:
        tally.requests[(space, write, id(array), itemsize) + where + warp + (nth,)].extend(offsets)


def _offsets(offset_map, index) -> list:
    import numpy as np
    return [int(v) for v in np.ravel(offset_map[index])]


class ArrayFace:
    """What a kernel asks of an array besides its elements (``shape``, ``size``, ``ndim``,
    ``dtype``, ``strides``, ``nbytes``, ``len()``), answered by the numpy array ``self._array``
    that a simulator proxy wraps: :class:`CountingArray`, :class:`RecordedShared` and
    :class:`rooflinelib.profiling.races.RaceShared` index it in their own way."""

    shape = property(lambda self: self._array.shape)
    size = property(lambda self: self._array.size)
    ndim = property(lambda self: self._array.ndim)
    dtype = property(lambda self: self._array.dtype)
    strides = property(lambda self: self._array.strides)
    nbytes = property(lambda self: self._array.nbytes)

    def __len__(self):
        return len(self._array)


class CountingArray(ArrayFace):
    """An array argument that counts the bytes each access moves, and which elements it touched."""

    def __init__(self, array, tally: _Tally, name: str):
        import numpy as np
        self._array = array
        self._tally = tally
        self.name = name
        self._read_mask = np.zeros(array.shape, dtype=bool)
        self._write_mask = np.zeros(array.shape, dtype=bool)
        self.read = self.written = 0  # this array's own share of the tally, every access
        # byte offsets from the array's start (a host copy: C order), for count_accesses
        self._offset_map = (np.arange(array.size, dtype=np.int64).reshape(array.shape) * array.itemsize
                            if tally.requests is not None else None)

    def _count(self, index, n_elements: int, write: bool):
        n_bytes = n_elements * self._array.itemsize
        with self._tally.lock:
            if write:
                self._tally.written += n_bytes
                self.written += n_bytes
                self._write_mask[index] = True
            else:
                self._tally.read += n_bytes
                self.read += n_bytes
                self._read_mask[index] = True

    def __getitem__(self, index):
        import numpy as np
        value = self._array[index]
        self._count(index, int(np.size(value)), write=False)
        if self._offset_map is not None:
            _record(self._tally, "global", False, self, _offsets(self._offset_map, index),
                    self._array.itemsize, sys._getframe(1))
        return value

    def __setitem__(self, index, value):
        import numpy as np
        self._array[index] = value
        self._count(index, int(np.size(self._array[index])), write=True)
        if self._offset_map is not None:
            _record(self._tally, "global", True, self, _offsets(self._offset_map, index),
                    self._array.itemsize, sys._getframe(1))

    @property
    def unique_read(self) -> int:
        return int(self._read_mask.sum()) * self._array.itemsize

    @property
    def unique_written(self) -> int:
        return int(self._write_mask.sum()) * self._array.itemsize


class RecordedShared(ArrayFace):
    """A block's static shared array, as the kernel sees it during :func:`count_accesses`:
    its elements are the simulator's array, and each access is recorded (no bytes counted:
    shared memory is on chip)."""

    def __init__(self, array, tally: _Tally):
        import numpy as np
        self._array = array
        self._tally = tally
        self._offset_map = np.arange(array.size, dtype=np.int64).reshape(array.shape) * array.itemsize

    def __getitem__(self, index):
        value = self._array[index]
        _record(self._tally, "shared", False, self._array, _offsets(self._offset_map, index),
                self._array.itemsize, sys._getframe(1))
        return value

    def __setitem__(self, index, value):
        self._array[index] = value
        _record(self._tally, "shared", True, self._array, _offsets(self._offset_map, index),
                self._array.itemsize, sys._getframe(1))


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


def kernel_py_func(kernel):
    fn = getattr(kernel, "py_func", None)
    if not callable(fn):
        raise CountError(f"kernel: expected a Numba CUDA kernel (@cuda.jit), got {type(kernel).__name__}")
    return fn


def _dims(value, field: str) -> tuple:
    dims = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(dims) <= 3 or any(isinstance(d, bool) or not isinstance(d, int) or d < 1 for d in dims):
        raise CountError(f"{field}: must be a positive whole number or a tuple of 1 to 3 of them, got {value!r}")
    return dims


def fake_device_functions(fn, seen=None):
    """The kernel's global device functions (@cuda.jit(device=True)), as simulator kernels
    that run their Python bodies; found recursively through the functions they call.  Under
    ``NUMBA_ENABLE_CUDASIM=1`` such a function is already a simulator kernel, and is its own."""
    from numba.cuda.simulator.kernel import FakeCUDAKernel
    seen = seen if seen is not None else {}
    for name, value in list(fn.__globals__.items()):
        target = getattr(value, "py_func", None)
        if (callable(target) and _module(value).startswith("numba") and value is not fn
                and _is_device_function(value)):
            if id(value) not in seen:
                fake = value if isinstance(value, FakeCUDAKernel) else FakeCUDAKernel(target, device=True)
                seen[id(value)] = (fn.__globals__, name, value, fake)
                fake_device_functions(target, seen)
    return seen


def _is_device_function(value) -> bool:
    """Whether a Numba CUDA function object was made with ``device=True``.  A dispatcher keeps it in
    ``targetoptions``; the simulator's FakeCUDAKernel has no ``targetoptions`` and keeps it in
    ``_device`` (numba-cuda's simulator/kernel.py), so without this the simulator's device functions
    were never found (review 39f, E3)."""
    options = getattr(value, "targetoptions", None)
    if options is not None:
        return bool(getattr(options, "get", lambda *a: None)("device"))
    return getattr(value, "_device", False) is True


def count_bytes(kernel, griddim, blockdim, *args) -> dict:
    """Run ``kernel[griddim, blockdim](*args)`` in the CUDA simulator and count its global
    memory traffic.  Returns ``{"read", "written", "unique_read", "unique_written"}`` in bytes,
    ``"threads"``, the launch size, and ``"by_argument"``: ``{"args[i]": {"read", "written"}}``,
    every access to each array argument (by its position), so a caller can tell which array a
    kernel re-reads.

    Array arguments (numpy, Numba device, CuPy or torch arrays) are copied to the host first,
    so the caller's arrays are left as they were; scalars pass through.
    """
    tally, counted, threads = _simulate(kernel, griddim, blockdim, args, MAX_THREADS, record=False)
    return _bytes(tally, counted, threads)


def count_accesses(kernel, griddim, blockdim, *args) -> dict:
    """:func:`count_bytes`, and how the accesses fall into warp-wide requests: under
    ``"global_load"``, ``"global_store"``, ``"shared_load"`` and ``"shared_store"``, a dict of
    ``requests`` (warp-wide accesses), ``threads`` (thread accesses in them), ``sectors``
    (distinct 32-byte sectors summed over the requests), ``wavefronts`` (shared-memory passes,
    the most distinct 4-byte words any one bank is asked for, summed) and ``bank_conflicts``
    (wavefronts beyond the fewest the request's distinct words need), and the ratios
    ``sectors_per_request`` and ``wavefronts_per_request`` (None without requests).  At most
    :data:`MAX_ACCESS_THREADS` threads: the addresses are kept until the launch ends."""
    tally, counted, threads = _simulate(kernel, griddim, blockdim, args, MAX_ACCESS_THREADS, record=True)
    result = _bytes(tally, counted, threads)
    result.update(request_stats(tally.requests))
    return result


def request_stats(requests: dict) -> dict:
    """Sectors, wavefronts and bank conflicts of recorded requests (see :func:`count_accesses`),
    by space and direction."""
    stats = {f"{space}_{way}": {"requests": 0, "threads": 0, "sectors": 0, "wavefronts": 0, "bank_conflicts": 0}
             for space in ("global", "shared") for way in ("load", "store")}
    for key, offsets in requests.items():
        space, write, itemsize = key[0], key[1], key[3]
        s = stats[f"{space}_{'store' if write else 'load'}"]
        s["requests"] += 1
        s["threads"] += len(offsets)
        words = {w for o in offsets for w in range(o // BANK_BYTES, (o + itemsize - 1) // BANK_BYTES + 1)}
        s["sectors"] += len({o // SECTOR_BYTES for o in offsets}
                            | {(o + itemsize - 1) // SECTOR_BYTES for o in offsets})
        by_bank = defaultdict(set)
        for w in words:
            by_bank[w % BANKS].add(w)
        passes = max(len(ws) for ws in by_bank.values())
        s["wavefronts"] += passes
        s["bank_conflicts"] += passes - -(-len(words) // BANKS)
    for s in stats.values():
        n = s["requests"]
        s["sectors_per_request"] = s["sectors"] / n if n else None
        s["wavefronts_per_request"] = s["wavefronts"] / n if n else None
    return stats


def _bytes(tally: _Tally, counted: list, threads: int) -> dict:
    return {"read": tally.read, "written": tally.written,
            "unique_read": sum(a.unique_read for a in counted),
            "unique_written": sum(a.unique_written for a in counted),
            "by_argument": {a.name: {"read": a.read, "written": a.written} for a in counted},
            "threads": threads}


def _simulate(kernel, griddim, blockdim, args, max_threads: int, record: bool):
    """Run the kernel in the simulator on counting arrays: ``(tally, counting arrays, threads)``."""
    fn = kernel_py_func(kernel)
    grid, block = _dims(griddim, "griddim"), _dims(blockdim, "blockdim")
    threads = 1
    for d in grid + block:
        threads *= d
    if threads > max_threads:
        raise CountError(f"griddim, blockdim: {threads:,} threads is more than the simulator runs in "
                         f"reasonable time ({max_threads:,}); count at a smaller size")
    try:
        from numba.cuda.simulator.kernel import FakeCUDAKernel
    except Exception as exc:  # numba or numba-cuda missing
        raise CountError(f"kernel: the CUDA simulator cannot be loaded ({' '.join(str(exc).split())[:200]})") from None
    tally = _Tally()
    if record:
        tally.requests = defaultdict(list)
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
    fakes = fake_device_functions(fn)
    for globs, name, _, fake in fakes.values():
        globs[name] = fake
    original_atomic = kernelapi.FakeCUDAAtomic
    kernelapi.FakeCUDAAtomic = _counting_atomics(original_atomic)
    wrapper = simulator.SHARED_WRAPPER
    if record:
        simulator.SHARED_WRAPPER = lambda array: RecordedShared(array, tally)
    try:
        with quick():
            FakeCUDAKernel(fn, device=False)[grid, block](*call_args)
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:  # the student's kernel body, run as Python
        text = " ".join(str(exc).split())[:300]
        raise CountError(f"kernel: raised {type(exc).__name__} in the simulator: {text}") from None
    finally:
        simulator.SHARED_WRAPPER = wrapper
        kernelapi.FakeCUDAAtomic = original_atomic
        for globs, name, original, _ in fakes.values():
            globs[name] = original
    return tally, counted, threads
