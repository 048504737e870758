"""rooflinelib.profiling.simulator: the CUDA simulator quickened (a short switch interval, its
shared arrays looked up under a lock), exact at any interval, and undone after."""
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba.cuda")
sys.path.insert(0, str(Path(__file__).parents[1] / "profile_targets"))
import numba_kernels as k  # noqa: E402

from rooflinelib.profiling import simulator  # noqa: E402


def _block_sums(x, blocks):
    from numba.cuda.simulator.kernel import FakeCUDAKernel
    total = np.zeros(1, np.float32)
    FakeCUDAKernel(k.block_sum_kernel.py_func, device=False)[blocks, k.BLOCK](x, total)
    return float(total[0])


def test_quick_shortens_the_switch_interval_and_puts_everything_back():
    from numba.cuda.simulator import kernelapi
    before, original = sys.getswitchinterval(), kernelapi.FakeCUDAShared.array
    with simulator.quick():
        assert sys.getswitchinterval() == pytest.approx(min(before, simulator.SWITCH_INTERVAL_S))
        assert kernelapi.FakeCUDAShared.array is not original
        with simulator.quick():  # nested: the inner one changes and undoes nothing
            inner = kernelapi.FakeCUDAShared.array
        assert kernelapi.FakeCUDAShared.array is inner
    assert sys.getswitchinterval() == before and kernelapi.FakeCUDAShared.array is original


def test_a_shared_array_is_one_per_line_of_the_kernel_per_block():
    from numba.cuda import float32
    from numba.cuda.simulator import kernelapi
    with simulator.quick():
        block, other_block = kernelapi.FakeCUDAShared(0), kernelapi.FakeCUDAShared(0)
        first = [block.array(8, float32) for _ in range(2)]  # one line, called twice
        second = block.array(8, float32)
        elsewhere = other_block.array(8, float32)
    assert first[0] is first[1] and second is not first[0] and elsewhere is not first[0]
    assert first[0].dtype == np.float32 and first[0].shape == (8,)


class _SlowLookups(dict):
    """A block's allocations whose lookup gives the other threads time to run."""

    def get(self, key, default=None):
        import time
        found = super().get(key, default)
        time.sleep(0.02)  # between the lookup and the store that follows it
        return found


def test_threads_of_a_block_asking_at_once_get_one_array():
    # Unlocked, every thread that looks before the first one stores makes its own array (the
    # simulator's own lookup, in isolation, gave 8 threads several arrays; beside other test
    # workers the threads start too far apart to show it every time, so only the locked
    # lookup is asserted).
    import threading
    from numba.cuda import float32
    from numba.cuda.simulator import kernelapi
    block = kernelapi.FakeCUDAShared(0)
    block._allocations = _SlowLookups()
    got = []

    def ask():
        got.append(block.array(32, float32))  # one line of the "kernel", for every thread

    with simulator.quick():
        threads = [threading.Thread(target=ask) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(got) == 8 and len({id(a) for a in got}) == 1


def test_block_reductions_are_exact_when_threads_switch_every_10_us(monkeypatch):
    # Unlocked, this interval gave a thread a shared array of its own about once in twenty
    # softmax counts, and its block read uninitialised memory.
    n = 4 * k.BLOCK
    x = (np.arange(n) % 7).astype(np.float32)
    monkeypatch.setattr(simulator, "SWITCH_INTERVAL_S", 1e-5)
    with simulator.quick():
        assert _block_sums(x, n // k.BLOCK) == float(x.sum())


def test_count_bytes_runs_quickened_and_puts_the_interval_back():
    from rooflinelib.profiling import count_bytes
    n, before = 1000, sys.getswitchinterval()
    blocks = k.grid_1d(n)
    counted = count_bytes(k.block_sum_kernel, blocks, k.BLOCK, np.ones(n, np.float32), np.zeros(1, np.float32))
    assert counted["read"] == n * 4 + blocks * 4 and counted["written"] == blocks * 4
    assert sys.getswitchinterval() == before
