"""The project's own kernels behind regression gates, on a real GPU (marked ``gpu``; skipped
where no CUDA GPU is visible).

Lab 1 is the stored result of the numba backend, else measured once for the module; each kernel is then gated with the ``roofline`` fixture
(the pytest plugin) against the roof of its own access mix: a copy with ``memory="copy"``, Lab 1's
DRAM copy ceiling (``dram`` for a Lab 1 result from before the mixes were measured), so that a
copy is not judged against the read or the write stream.  Run on the H200 with
``python -m pytest -m gpu tests/test_gates_gpu.py -p rooflinelib.pytest_plugin`` (the plugin
is loaded by the entry point where the package is installed).
"""
import numpy as np
import pytest

pytestmark = pytest.mark.gpu

N = 1 << 28  # float32 elements: 1 GiB in, 1 GiB out, as Lab 1's copy
BLOCK = 256


def copy_mix(result: dict) -> str:
    """The ``memory`` a copy is judged against on ``result``: its copy mix where Lab 1 measured
    the mixes, else ``dram``."""
    return "copy" if any(c["name"] == "dram-copy" for c in result["ceilings"]) else "dram"


@pytest.fixture(scope="module")
def lab1():
    try:
        from numba import cuda
    except Exception as exc:
        pytest.skip(f"numba.cuda: {exc}")
    if not cuda.is_available():
        pytest.skip("no CUDA GPU")
    from rooflinelib.store.lab_files import stored_path
    from rooflinelib.store.results import load
    stored = stored_path("ceilings", "numba")  # `roofline measure` run first: one Lab 1 for the lane
    if stored is not None:
        return load(stored)
    from rooflinelib.measure.ceilings import measure_ceilings
    return measure_ceilings(backend="numba", links=False)


@pytest.fixture(scope="module")
def buffers(lab1):
    from numba import cuda
    src = cuda.to_device(np.arange(N, dtype=np.float32) % 1024)
    return src, cuda.device_array(N, np.float32)


def test_lab1_copy_keeps_95_percent_of_the_copy_roof(roofline, lab1, buffers):
    from rooflinelib.measure.kernels_numba import copy_kernel
    src, dst = buffers
    launch = copy_kernel(1).compile()[N // 4 // BLOCK, BLOCK]
    result = roofline.check(launch, src, dst, n_flops=0, n_bytes=8 * N, at_least=0.95, ceilings=lab1,
                            memory=copy_mix(lab1), name="Lab 1 copy x1")
    assert result.library == "numba" and result.clock == "device events"
    assert np.array_equal(dst.copy_to_host()[:: 1 << 16], src.copy_to_host()[:: 1 << 16])


def test_sweep_k0_keeps_95_percent_of_the_copy_roof(roofline, lab1, buffers):
    from numba import float32
    from rooflinelib.measure.kernels_numba import sweep_kernel
    src, dst = buffers
    launch = sweep_kernel(0).compile()[N // 4 // BLOCK, BLOCK]
    roofline.check(launch, src, dst, float32(1), float32(0), n_flops=0, n_bytes=8 * N, at_least=0.95,
                   ceilings=lab1, memory=copy_mix(lab1), name="sweep K=0")


def test_a_slowed_copy_fails_its_gate_and_says_so(roofline, lab1, buffers):
    from rooflinelib.testing import BelowRoof
    from rooflinelib.measure.kernels_numba import copy_kernel
    src, dst = buffers
    launch = copy_kernel(1).compile()[N // 4 // BLOCK, BLOCK]

    def slowed(src, dst):  # the copy and 60% of it again, counted once: about 60% of the roof
        launch(src, dst)
        part = N * 6 // 10 // (4 * BLOCK) * (4 * BLOCK)
        copy_kernel(1).compile()[part // 4 // BLOCK, BLOCK](src[:part], dst[:part])

    with pytest.raises(BelowRoof, match=r"roofline gate failed for slowed: .* < at_least 70\.0%"):
        roofline.check(slowed, src, dst, n_flops=0, n_bytes=8 * N, at_least=0.7, ceilings=lab1, memory=copy_mix(lab1))
