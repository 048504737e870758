"""Counted bytes, the simulator lane: count_bytes equals the analytic count, exactly, for a copy,
a block reduction, and a naive and a tiled GEMM, at sizes the CUDA simulator runs in seconds."""
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba.cuda")
sys.path.insert(0, str(Path(__file__).parents[1] / "profile_targets"))
import numba_kernels as k  # noqa: E402

from rooflinelib.profiling import CountError, count_bytes  # noqa: E402

F32 = 4


def test_copy_reads_and_writes_each_element_once():
    n = 1000  # not a multiple of the block: the guard's idle threads touch nothing
    src, dst = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
    counted = count_bytes(k.copy_kernel, k.grid_1d(n), k.BLOCK, src, dst)
    assert counted == {"read": n * F32, "written": n * F32, "unique_read": n * F32,
                       "unique_written": n * F32, "threads": k.grid_1d(n) * k.BLOCK,
                       "by_argument": {"args[0]": {"read": n * F32, "written": 0},
                                       "args[1]": {"read": 0, "written": n * F32}}}
    assert not dst.any()  # the caller's arrays are left as they were


def test_block_reduction_reads_its_input_once_plus_one_atomic_per_block():
    n = 1000
    blocks = k.grid_1d(n)
    counted = count_bytes(k.block_sum_kernel, blocks, k.BLOCK, np.ones(n, np.float32), np.zeros(1, np.float32))
    # shared-memory traffic is not global traffic; each block's atomic reads and writes total[0]
    assert counted["read"] == n * F32 + blocks * F32
    assert counted["written"] == blocks * F32
    assert counted["unique_read"] == n * F32 + F32 and counted["unique_written"] == F32


@pytest.fixture(scope="module")
def matrices():
    n = 16
    rng = np.random.default_rng(0)
    return n, rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)


def test_naive_gemm_reads_every_input_element_n_times(matrices):
    n, a, b = matrices
    counted = count_bytes(k.gemm_naive_kernel, (n // 4, n // 4), (4, 4), a, b, np.zeros((n, n), np.float32))
    assert counted["read"] == 2 * n ** 3 * F32
    assert counted["written"] == n * n * F32
    assert counted["unique_read"] == 2 * n * n * F32  # what DRAM must deliver at least once


def test_tiled_gemm_reads_every_input_element_n_over_tile_times(matrices):
    n, a, b = matrices
    t = k.TILE
    naive = count_bytes(k.gemm_naive_kernel, (n // t, n // t), (t, t), a, b, np.zeros((n, n), np.float32))
    tiled = count_bytes(k.gemm_tiled_kernel, (n // t, n // t), (t, t), a, b, np.zeros((n, n), np.float32))
    assert tiled["read"] == 2 * n * n * (n // t) * F32
    assert naive["read"] == t * tiled["read"]  # tiling divides the traffic by the tile edge
    assert tiled["unique_read"] == naive["unique_read"] and tiled["written"] == naive["written"]


@pytest.mark.parametrize("call, message", [
    (lambda: count_bytes(len, 1, 1), r"^kernel: expected a Numba CUDA kernel"),
    (lambda: count_bytes(k.copy_kernel, 0, 32), r"^griddim: must be a positive whole number"),
    (lambda: count_bytes(k.copy_kernel, 1, (1, 2, 3, 4)), r"^blockdim: must be"),
    (lambda: count_bytes(k.copy_kernel, 1 << 12, 1024), r"^griddim, blockdim: 4,194,304 threads"),
    (lambda: count_bytes(k.copy_kernel, 1, 4, np.ones(4, np.float32)), r"^kernel: raised \w+ in the simulator"),
])
def test_count_errors_name_the_argument(call, message):
    with pytest.raises(CountError, match=message):
        call()
