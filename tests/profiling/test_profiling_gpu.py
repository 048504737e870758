"""The profiler on a real GPU: Numba, CuPy and torch work, timed and placed, ncu counters
against the analytic counts.  Marked ``gpu``; skipped where no CUDA GPU is visible (CI).
Run on the H200 with ``python -m pytest -m gpu tests/profiling/test_profiling_gpu.py``; the runs' logs
are listed in docs/measurements/history.md."""
import sys
from pathlib import Path

import numpy as np
import pytest

from rooflinelib.store import results
from rooflinelib.profiling import profile

pytestmark = pytest.mark.gpu
sys.path.insert(0, str(Path(__file__).parents[1] / "profile_targets"))


def _need(module):
    try:
        lib = __import__(module)
    except Exception as exc:
        pytest.skip(f"{module}: {exc}")
    return lib


@pytest.fixture(scope="module")
def lab1():
    numba = _need("numba.cuda")
    if not numba.cuda.is_available():
        pytest.skip("no CUDA GPU")
    return results.recorded("ceilings")  # the H200's, as shipped: the lane runs on an H200


def _counters_or_skip():
    from rooflinelib.profiling import ProfileError
    from rooflinelib.profiling.counters import ncu_path
    try:
        ncu_path()
    except ProfileError as exc:
        pytest.skip(str(exc))


def test_numba_copy_of_1_gib_dram_bytes_within_2_percent(lab1):
    _counters_or_skip()
    import numba_kernels as k
    src, dst = k.setup()
    r = profile(k.copy, src, dst, n_flops=0, n_bytes=k.N_BYTES, ceilings=lab1, counters=True, repeats=20)
    assert r.library == "numba" and r.clock == "device events"
    assert np.array_equal(dst.copy_to_host()[:: 1 << 16], src.copy_to_host()[:: 1 << 16])
    m = r.measured
    assert abs(m["dram_read_bytes"] + m["dram_write_bytes"] - k.N_BYTES) <= 0.02 * k.N_BYTES
    assert m["collection_s"] <= 30
    assert r.fraction_of_roof > 0.5  # a copy near the copy roof it was measured against


def test_cupy_raw_kernel_copy(lab1):
    _counters_or_skip()
    cupy = _need("cupy")
    import cupy_targets as t
    src, dst = t.setup()
    r = profile(t.copy, src, dst, n_flops=0, n_bytes=t.N_BYTES, ceilings=lab1, counters=True, repeats=20)
    assert r.library == "cupy"
    assert bool(cupy.all(dst[:: 1 << 16] == src[:: 1 << 16]))
    m = r.measured
    assert abs(m["dram_read_bytes"] + m["dram_write_bytes"] - t.N_BYTES) <= 0.02 * t.N_BYTES


def test_torch_bf16_gemm_is_compute_bound_on_the_tensor_roof(lab1):
    torch = _need("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    import torch_targets as t
    a, b, c = t.setup()
    counters = True
    try:
        _counters_or_skip()
    except pytest.skip.Exception:
        counters = False
    r = profile(t.gemm, a, b, c, n_flops=t.N_FLOPS, n_bytes=t.N_BYTES, ceilings=lab1, precision="bf16",
                repeats=10, counters=counters)
    assert r.library == "torch" and r.side == "compute" and r.compute == "bf16-tensor"
    if counters:  # a tensor-core GEMM: tensor-pipe instructions, and no FFMA FLOPs to speak of
        assert r.measured["tensor_instructions"] > 0
        assert r.measured["fp32_flops"] < 0.01 * t.N_FLOPS
    ref = (a[:64].float() @ b.float())[:, :64]
    assert torch.allclose(c[:64, :64].float(), ref, rtol=2e-2, atol=2.0)
    assert 0.5 < r.fraction_of_roof < 1.2


def test_tiled_gemm_moves_fewer_l1_bytes_and_both_are_exact(lab1):
    _counters_or_skip()
    import numba_gemm as g
    a, b, c = g.setup()
    want = a.copy_to_host() @ b.copy_to_host()
    placed = {}
    for fn in (g.gemm_naive, g.gemm_tiled):
        r = profile(fn, a, b, c, n_flops=g.N_FLOPS, n_bytes=g.N_BYTES, ceilings=lab1, counters=True, repeats=5)
        assert np.array_equal(c.copy_to_host(), want), fn.__name__
        placed[fn.__name__] = r
    naive, tiled = placed["gemm_naive"].measured, placed["gemm_tiled"].measured
    assert tiled["l1_bytes"] < naive["l1_bytes"] / 4
    assert placed["gemm_tiled"].seconds < placed["gemm_naive"].seconds
    assert placed["gemm_tiled"].hierarchical["levels"]
