"""The race detector's verdict does not depend on the order the simulator runs a block's threads
in: the order is fixed here by running each access in its own thread, one after another."""
import threading
from types import SimpleNamespace

import numpy as np

from rooflinelib.profiling import races


def _as_thread(tid, step):
    thread = threading.Thread(target=step)
    thread.thread_id = tid
    thread.blockIdx = SimpleNamespace(x=0, y=0, z=0)
    thread.start()
    thread.join()


def _atomic_add(array, index, value):
    array._note(index, write=True, atomic=True)
    array._array[index] += value


def _zero_then_atomics(order):
    state = races._State()
    sums = races.RaceShared(np.zeros(1, np.float32), state, space="global")
    steps = {"zero": (0, lambda: sums.__setitem__(0, np.float32(0))),
             "own atomic": (0, lambda: _atomic_add(sums, 0, 1.0)),
             "other atomic": (1, lambda: _atomic_add(sums, 0, 2.0))}
    for name in order:
        _as_thread(*steps[name])
    return state.race


def test_thread_0_zeroing_then_its_own_atomic_still_races_the_other_atomics():
    # the capstone's "if t == 0: sums[r] = 0; cuda.atomic.add(sums, r, s)" with no barrier: thread 0's
    # plain store was overwritten on record by its own atomic, so when both ran before any other
    # thread's atomic the race went unseen (a test of it failed now and then on a loaded machine)
    for order in (("zero", "own atomic", "other atomic"), ("zero", "other atomic", "own atomic"),
                  ("other atomic", "zero", "own atomic")):
        race = _zero_then_atomics(order)
        assert race is not None and race.atomic, order


def test_atomics_alone_do_not_race():
    state = races._State()
    sums = races.RaceShared(np.zeros(1, np.float32), state, space="global")
    for tid in range(4):
        _as_thread(tid, lambda: _atomic_add(sums, 0, 1.0))
    assert state.race is None
