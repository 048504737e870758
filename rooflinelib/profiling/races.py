"""A race detector for the capstone's kernel check, on numba-cuda's CUDA simulator: shared
arrays, and (through ``watch``) the global arrays a launch is passed.

The simulator runs a block's threads as Python threads in whatever order its scheduler picks,
so a kernel that reads another thread's shared-memory entry with no ``cuda.syncthreads()``
between the write and the read may still give the right output there (the writer happened to
run first).  On a GPU the same kernel is wrong whenever the reader runs first.

While :func:`detect` is active, every static shared array a quickened kernel asks for is
wrapped (:data:`rooflinelib.profiling.simulator.SHARED_WRAPPER`), and every barrier a thread
passes is counted.  A thread's *epoch* is the number of barriers it has passed; two accesses to
one element by two threads conflict when they fall in the same epoch (no barrier between them)
and at least one is a write.  Both orders are caught: a read of an element another thread wrote
in this epoch, and a write to an element another thread read in this epoch.  So the verdict
does not depend on the order the simulator picked.  Atomic updates of one element by several
threads in one epoch do not conflict with one another, nor do two threads storing the value
the entry already holds.
"""
from __future__ import annotations

import contextlib
import linecache
import sys
import threading
from dataclasses import dataclass

from rooflinelib.profiling import simulator
from rooflinelib.profiling.counting import ArrayFace


@dataclass(frozen=True)
class Race:
    """The first conflict found: the array's element, the two threads, and the source lines."""
    index: int
    writer: int
    reader: int
    write_line: str
    read_line: str
    kind: str  # "read after write", "write after read" or "write after write"
    space: str = "shared"  # or "global": an array the launch was passed
    atomic: bool = False  # one of the two is an atomic update (cuda.atomic.add), the other a plain access

    def sentence(self) -> str:
        """The race in words that do not depend on which thread the simulator ran first."""
        entry = "shared-array entry" if self.space == "shared" else "global-array entry (one output element)"
        if self.kind == "write after write":
            first = f"two threads write one {entry}"
        else:
            first = f"a thread reads a {entry} that another thread writes"
        lines = ""
        if self.write_line and self.read_line and self.kind != "write after write":
            lines = f" (the write `{self.write_line}`, the read `{self.read_line}`)"
        barrier = " with no atomic and no cuda.syncthreads() between the two" if self.space == "global" else (
            " with no cuda.syncthreads() between the two")
        if self.atomic:  # review 28f, 2: the atomic is there; the barrier is what is missing
            barrier = ", one with an atomic, the other with a plain access, and no cuda.syncthreads() between the two"
        return first + lines + barrier


def _thread_id():
    return getattr(threading.current_thread(), "thread_id", None)


def _epoch():
    return getattr(threading.current_thread(), "_race_epoch", 0)


def _block():
    block = getattr(threading.current_thread(), "blockIdx", None)
    return None if block is None else (block.x, block.y, block.z)


def _concurrent(a, b) -> bool:
    """Two accesses' (block, epoch) may run in either order: one epoch of one block, or two blocks
    (no barrier orders two blocks of one launch)."""
    return a == b or a[0] != b[0]


def _line(depth: int) -> str:
    frame = sys._getframe(depth)
    return linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()


class _State:
    def __init__(self):
        self.lock = threading.RLock()  # a store holds it across its compare, its note and the store itself
        self.arrays = {}  # id(array) -> {flat index: [write, reads]}
        self.keep = []  # the arrays themselves, so that their ids stay unique
        self.race = None


class RaceShared(ArrayFace):
    """A block's static shared array, as the kernel sees it while :func:`detect` is active."""

    def __init__(self, array, state: _State, space: str = "shared"):
        import numpy as np
        self._array = array
        self._state = state
        self._space = space
        self._flat = np.arange(array.size, dtype=np.int64).reshape(array.shape)
        with state.lock:
            if id(array) not in state.arrays:
                state.arrays[id(array)] = {}
                state.keep.append(array)

    def _note(self, index, write: bool, atomic: bool = False, depth: int = 3, same: bool = False):
        import numpy as np
        state = self._state
        if state.race is not None:
            return
        # a global array is shared by every block: a thread is (block, thread), an epoch (block, epoch)
        block = _block() if self._space == "global" else None
        tid, epoch = (block, _thread_id()), (block, _epoch())
        where = _line(depth)
        elements = state.arrays[id(self._array)]
        with state.lock:
            for flat in np.atleast_1d(self._flat[index]).ravel().tolist():
                entry = elements.setdefault(flat, [None, None])  # [(tid, epoch, line, atomic)], (epoch, {tid: line})
                last, reads = entry
                if (last is not None and _concurrent(last[1], epoch) and last[0] != tid and not (atomic and last[3])
                        and not (write and same)):  # threads storing one value alike: benign
                    # a read of another thread's write, or two writes of which either may land last
                    state.race = Race(flat, last[0][1], tid[1], last[2], where,
                                      "write after write" if write else "read after write", self._space,
                                      atomic or last[3])
                    return
                if write and not same and reads is not None and _concurrent(reads[0], epoch):
                    other = next((t for t in reads[1] if t != tid), None)
                    if other is not None and not atomic:
                        state.race = Race(flat, tid[1], other[1], where, reads[1][other], "write after read",
                                          self._space)
                        return
                if write:
                    # a thread's plain store stays on record through its own later atomic in one epoch:
                    # else thread 0's "sums[r] = 0" then its own atomic.add would hide the store from
                    # the other threads' atomics, and the race would be caught only in some orders
                    if atomic and last is not None and last[0] == tid and last[1] == epoch and not last[3]:
                        entry[0] = (tid, epoch, last[2], False)
                    else:
                        entry[0] = (tid, epoch, where, atomic)
                if not write or atomic:
                    if reads is None or reads[0] != epoch:
                        entry[1] = reads = (epoch, {})
                    if not atomic:
                        reads[1].setdefault(tid, where)

    def __getitem__(self, index):
        self._note(index, write=False)
        return self._array[index]

    def __setitem__(self, index, value):
        import numpy as np
        # one locked step: another thread's store cannot land between this compare and this store,
        # so threads storing one value alike are never told apart by the order they ran in
        with self._state.lock:
            self._note(index, write=True, same=bool(np.all(self._array[index] == value)))
            self._array[index] = value


def _atomics(base):
    """The simulator's atomics, noting an atomic update (not a plain read and write) of a wrapped
    shared array."""

    class RaceAtomic(base):
        def __getattribute__(self, name):
            op = super().__getattribute__(name)
            if name.startswith("_") or not callable(op):
                return op

            def noted(array, index, *values):
                if isinstance(array, RaceShared):
                    array._note(index, write=True, atomic=True)
                    array = array._array
                return op(array, index, *values)
            return noted

    return RaceAtomic


class _Found(list):
    watch = None


@contextlib.contextmanager
def detect():
    """While active, the simulated kernels' shared arrays are watched; yields a list that holds
    the first :class:`Race` found (empty if none) once the ``with`` ends.  Its ``watch(array)``
    wraps a global array (a launch's argument) for the same rule, with (block, thread) as a thread:
    two blocks of one launch are never ordered, so their accesses to one entry always conflict
    (with a write among them, atomics and stores of the value already there exempt)."""
    from numba.cuda.simulator import kernel as sim_kernel, kernelapi
    state = _State()
    found = _Found()
    found.watch = lambda array: RaceShared(array, state, "global")
    block_thread = sim_kernel.BlockThread
    original_sync = block_thread.syncthreads
    original_atomic = kernelapi.FakeCUDAAtomic
    wrapper = simulator.SHARED_WRAPPER

    def syncthreads(self):
        original_sync(self)
        self._race_epoch = getattr(self, "_race_epoch", 0) + 1

    block_thread.syncthreads = syncthreads
    kernelapi.FakeCUDAAtomic = _atomics(original_atomic)
    simulator.SHARED_WRAPPER = lambda array: RaceShared(array, state)
    try:
        yield found
    finally:
        simulator.SHARED_WRAPPER = wrapper
        kernelapi.FakeCUDAAtomic = original_atomic
        block_thread.syncthreads = original_sync
        if state.race is not None:
            found.append(state.race)
