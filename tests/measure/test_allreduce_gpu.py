"""The all-reduce workers on a real GPU, one rank (what a one-GPU machine allows): NCCL through
torch and through CuPy, every size checked, and the data-parallel step.  Marked ``gpu``."""
import pytest

from rooflinelib.measure import allreduce as ar

pytestmark = pytest.mark.gpu

SMALL = (1024, 2 ** 20, 2 ** 26)


@pytest.mark.parametrize("library", ar.LIBRARIES)
def test_one_rank_all_reduce_is_verified_at_every_size(library):
    if ar._visible_gpus(library) < 1:
        pytest.skip(f"{library} sees no GPU")
    if library == "cupy":
        try:
            from cupy.cuda import nccl
        except Exception as exc:
            pytest.skip(f"CuPy's NCCL bindings: {exc}")
        if not getattr(nccl, "available", True):
            pytest.skip("CuPy was built without NCCL")
    points, reports = ar.run(1, library, sizes=SMALL, repeats=5, timeout_s=240)
    assert [p.n_bytes for p in points] == list(SMALL)
    assert all(p.verified and p.median_s > 0 for p in points)
    assert all(p.busbw_gbps == 0 for p in points)  # one rank sends nothing: 2(n-1)/n = 0
    assert reports[0]["gpu"]["name"]


def test_one_rank_data_parallel_step():
    if ar._visible_gpus("torch") < 1:
        pytest.skip("torch sees no GPU")
    _, reports = ar.run(1, "torch", sizes=(1024,), repeats=3, step=True, timeout_s=300)
    step = reports[0]["step"]
    assert step["n_params"] == step["layers"] * step["d"] ** 2
    for row in step["rows"]:
        assert row["verified"] and row["compute_s"] > 0 and row["comm_s"] > 0
        assert row["serial_s"] >= 0.9 * row["compute_s"]  # the step, then its (one-rank) all-reduce
