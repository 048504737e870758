"""Keys 4 and 5 after review 26k2.  Each test calls a check or a model answer with what the review
tried (on the recorded H200 setup, or made-up ceilings) and fails on the key before this round."""
from pathlib import Path

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


# --- D8: the like-for-like tf32 figure first, bf16 second with its change of precision ---------

def test_d8_tf32_ratio_leads_and_bf16_is_said_to_change_the_precision():
    text = ex05.MODEL_ANSWERS[8][0]
    ratios = ex05.drill8_ratios()
    tf32, bf16 = f"{ratios['tf32']:.1f} times faster in tf32", f"{ratios['bf16']:.1f} in bf16"
    assert tf32 in text and bf16 in text and text.index(tf32) < text.index(bf16)
    assert "changes the precision" in text[text.index(bf16):]


# --- D1, D4, D6: the right phrasings the review typed read as their options ----------------------

def test_drills_1_4_6_read_the_reviews_right_phrasings():
    d1 = ex05.check_drill1("assuming no overlap", 2)
    assert d1.checks[0].status == "fail" and "no-overlap case" in d1.checks[0].message
    assert ex05.check_drill1("overlapped", 2).checks[0].status == "pass"
    flops, before, after = ex05._drill4()
    for side in ("memory, 32x left", "memory (32x left of the ridge)", "still memory, 32 times left"):
        check = ex05.check_drill4(flops / before, flops / after, side, before / after).checks[2]
        assert check.status == "pass", (side, check)
    for direction in ("moves to higher intensity", "further right"):
        assert ex05.check_drill6(direction, 6.67).checks[0].status == "pass", direction


# --- K4 trivia: the float64 output is 8 bytes; the no-copy-mix band hint names B; 1/64-rate fp64 --

def test_k4_reduction_output_is_a_float64_scalar_and_the_check_still_takes_4n_4n4_4n8():
    assert ex04.reduction_cost(1000).n_bytes == 4 * 1000 + 8
    source = (Path(__file__).resolve().parents[2] / "solutions" / "04_place_your_kernel.ipynb").read_text()
    assert "return 4 * n + 8   #" in source and "return 4 * n + 4   #" not in source
    for right in (lambda n: 4 * n, lambda n: 4 * n + 4, lambda n: 4 * n + 8):
        report = ex04.check_accounting(lambda n: n, right, lambda n: 128 * n, lambda n: 8 * n)
        assert report.checks[1].status == "pass"


def _no_copy_at_ridge() -> ex04.Setup:
    """CPU-like ceilings with no copy or read mix, the FMA kernel at P / B (15 FLOP/byte)."""
    machine = Machine("made-up CPU", (Ceiling("dram", "memory", 100.0, "made up, spread 1.0%", "DRAM"),
                                      Ceiling("fp32", "compute", 1500.0, "made up, spread 1.0%", "fp32 FMA")),
                      kind="measured", provenance={"kind": "cpu", "backend": "cpu"})
    n = 2 ** 27
    red = ex04.KernelRun("reduction", n, 4 * n / (95.0 * 1e9), 0.01, 20, True, "cpu_sum", "CPU")
    fma = ex04.KernelRun("fma", n, 128 * n / (0.8 * 1500.0 * 1e9), 0.01, 20, True, "cpu_sweep", "CPU")
    return ex04.Setup(machine, red, fma, "file", "made up", ())


def test_k4_band_hint_names_b_where_no_copy_mix_is_loaded():
    setup = _no_copy_at_ridge()
    k = ex04._keys(setup)
    red, fma = k["reduction"], k["fma"]
    assert fma["side"] == "ridge"
    report = ex04.check_placement(setup, red["intensity"], red["achieved"], red["roof"], red["side"],
                                  red["gbps"] / setup.read_gbps, fma["intensity"], fma["achieved"],
                                  fma["roof"], "memory", fma["fraction"])
    check = next(c for c in report.checks if c.question.startswith("FMA kernel side"))
    assert check.status == "fail" and "P / B" in check.message and "copy ceiling" not in check.message
    assert "no copy mix" in check.message


def test_k4_slow_fp64_note_says_close_to_not_down_to_the_intensity():
    text = " ".join(ex04.model_verdict(RECORDED, ATTEMPT).also)
    assert "can fall to its intensity" not in text
    # review 38k2: P64 / 2 over R is 0.3-0.8 against I = 0.25 on such parts, up to 3x: "within a small factor"
    assert "1/64-rate fp64" in text and "comes within a small factor of its intensity" in text
