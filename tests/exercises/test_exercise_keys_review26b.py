"""Keys 4 and 5 after review 26k2.  Each test calls a check or a model answer with what the review
tried (on the recorded H200 setup, or made-up ceilings) and fails on the key before this round."""
from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05

RECORDED = ex04.prepare("recorded", progress=None)
ATTEMPT = "the verdict depends on the ridge of the ceilings, not on the kernel itself"


def _gddr_setup() -> ex04.Setup:
    """Made-up GDDR GPU ceilings (an RTX 4090-like ridge of about 80 FLOP/byte), no mixes."""
    machine = Machine("made-up GDDR GPU", (Ceiling("dram", "memory", 1000.0, "made up, spread 1.0%", "DRAM"),
                                           Ceiling("fp32", "compute", 80000.0, "made up, spread 1.0%",
                                                   "fp32 FMA")),
                      kind="measured", provenance={"kind": "gpu"})
    n = 2 ** 27
    red = ex04.KernelRun("reduction", n, 4 * n / (950.0 * 1e9), 0.01, 20, True, "gpu_sum", "GPU")
    fma = ex04.KernelRun("fma", n, 128 * n / (0.8 * 16 * 1000.0 * 1e9), 0.01, 20, True, "gpu_sweep", "GPU")
    return ex04.Setup(machine, red, fma, "file", "made up", ())


# --- K4-1: the key point reads the loaded ceilings' ridge; "near a GPU's ridge" scoped to HBM ------

def test_k4_1_key_point_names_the_loaded_ridge_and_scopes_the_gpu_claim_to_hbm():
    for setup in (RECORDED, _gddr_setup()):
        fma = ex04._keys(setup)["fma"]
        points = ex04.model_verdict(setup, ATTEMPT).key_points
        ridge_point = next(p for p in points if "16 FLOP/byte" in p)
        assert "near a GPU's fp32 ridge" not in ridge_point
        assert f"{fma['ridge']:.3g} FLOP/byte" in ridge_point
        assert ex04.SIDES.options[fma["side"]][0] in ridge_point
        assert "HBM" in ridge_point and "GDDR" in ridge_point and "memory-bound" in ridge_point
    # on the GDDR ceilings the kernel is memory-bound, and the key point says so
    gddr = _gddr_setup()
    assert ex04._keys(gddr)["fma"]["side"] == "memory"
    assert "close to a GPU's fp32 ridge" not in ex04.__doc__ and "GDDR" in ex04.__doc__
