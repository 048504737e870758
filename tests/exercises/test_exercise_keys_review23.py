"""Key 4 after review 23k.  Each test calls a check with an answer the review tried (on the recorded
H200 setup, the shipped CPU mixes or made-up ceilings) and fails on the key before this round."""
import json
from pathlib import Path

from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises.grading import SIDES

RECORDED = ex04.prepare("recorded", progress=None)
_CPU = json.loads((Path(__file__).resolve().parents[2] / "docs" / "measurements"
                   / "dram_mixes_cpu.json").read_text())["lab1"]["cpu"]
#: grading's generic factor-2 hint, which fits neither the sum nor a fraction against P64
FACTOR_2 = "one fused multiply-add is 2 FLOPs, and a copy both reads and writes"
ATTEMPT = "the verdict depends on the ridge of the ceilings, not on the kernel itself"


def _runs(read_gbps: float, fma_gflops: float):
    n = 2 ** 27
    red = ex04.KernelRun("reduction", n, 4 * n / (0.95 * read_gbps * 1e9), 0.01, 20, True, "cpu_sum", "CPU")
    fma = ex04.KernelRun("fma", n, 128 * n / (fma_gflops * 1e9), 0.01, 20, True, "cpu_sweep", "CPU")
    return red, fma


def _cpu_setup(peak_gflops: float = 150.0, fp64: bool = True) -> ex04.Setup:
    """The shipped CPU mixes (B the read, C the copy) with made-up compute roofs, as the review
    set them: fp32 150, fp64 75 GFLOP/s."""
    ceilings = (Ceiling("dram", "memory", _CPU["dram"]["gbps"], "shipped", f"DRAM ({_CPU['dram']['mix']})"),
                Ceiling("fp32", "compute", peak_gflops, "made up", "fp32 FMA"))
    if fp64:
        ceilings += (Ceiling("fp64", "compute", peak_gflops / 2, "made up", "fp64 FMA"),)
    machine = Machine("CPU: AMD EPYC (measured, cpu)", ceilings, kind="measured",
                      provenance={"kind": "cpu", "backend": "cpu"})
    red, fma = _runs(_CPU["read"]["gbps"], 0.8 * min(peak_gflops, 16 * _CPU["copy"]["gbps"]))
    return ex04.Setup(machine, red, fma, "file", "made up", (), _CPU["read"]["gbps"],
                      _CPU["copy"]["gbps"], 0.01, 0.01)


def _bare_setup() -> ex04.Setup:
    """Made-up GPU ceilings with no fp64 row and no read or copy mix."""
    machine = Machine("made-up GPU", (Ceiling("dram", "memory", 2000.0, "made up, spread 1.0%", "DRAM"),
                                      Ceiling("fp32", "compute", 40000.0, "made up, spread 1.0%", "fp32 FMA")),
                      kind="measured", provenance={"kind": "gpu"})
    red, fma = _runs(2000.0, 0.8 * 16 * 2000.0)
    return ex04.Setup(machine, red, fma, "file", "made up", ())


# one set of answers built from the key, shared with the keys-21 tests
from test_exercise_keys_review21 import _answers, _check  # noqa: E402


# --- K4-1: no FMA/copy factor-2 hint on the sum; a fraction against P64 is told so ----------

def test_k4_1_reduction_roof_slips_get_the_sums_own_hints_not_the_fma_copy_one():
    red = ex04._keys(RECORDED)["reduction"]
    twice = _check(_answers(RECORDED, reduction_roof=0.5 * RECORDED.read_gbps), "reduction roof")
    assert twice.status == "fail" and FACTOR_2 not in twice.message
    assert "an add is 1 FLOP" in twice.message
    half = _check(_answers(RECORDED, reduction_roof=0.125 * RECORDED.read_gbps), "reduction roof")
    assert half.status == "fail" and FACTOR_2 not in half.message
    assert "4 bytes per element" in half.message
    assert abs(red["roof"] / (0.25 * RECORDED.read_gbps) - 1) < 1e-6


def test_k4_1_reduction_fraction_half_the_key_gets_no_fma_copy_hint():
    red = ex04._keys(RECORDED)["reduction"]
    key = red["gbps"] / RECORDED.read_gbps
    half = _check(_answers(RECORDED, reduction_fraction_of_dram=key / 2), "reduction bandwidth")
    assert half.status == "fail" and FACTOR_2 not in half.message and "too low" in half.message
    twice = _check(_answers(RECORDED, reduction_fraction_of_dram=2 * key), "reduction bandwidth")
    assert twice.status == "fail" and FACTOR_2 not in twice.message
    assert "4 bytes per element" in twice.message


def test_k4_1_fma_fraction_against_p64_is_told_it_is_the_fp64_roof():
    fma = ex04._keys(RECORDED)["fma"]
    wrong = fma["achieved"] / RECORDED.fp64_gflops
    assert wrong > 1
    check = _check(_answers(RECORDED, fma_fraction_of_roof=wrong), "FMA kernel fraction")
    assert check.status == "fail" and FACTOR_2 not in check.message
    assert "fp64 roof" in check.message and "above 1" in check.message
    # the shipped CPU mixes with fp64 = P / 2: the same slip, the same hint
    cpu = _cpu_setup()
    cfma = ex04._keys(cpu)["fma"]
    check = _check(_answers(cpu, fma_fraction_of_roof=cfma["achieved"] / cpu.fp64_gflops), "FMA kernel fraction")
    assert check.status == "fail" and "fp64 roof" in check.message and FACTOR_2 not in check.message


def test_right_answers_still_pass_on_every_setup():
    for setup in (RECORDED, _cpu_setup(), _cpu_setup(800.0), _cpu_setup(402.0), _cpu_setup(fp64=False),
                  _bare_setup()):
        failed = [c for c in _answers(setup).checks if c.status != "pass"]
        assert not failed, (setup.machine.name, setup.peak_gflops, failed)


# --- K4-2: the menu's own descriptions read as their sides ----------------------------------

def test_k4_2_the_menus_own_descriptions_read_as_their_sides():
    cpu = _cpu_setup()
    for setup in (RECORDED, cpu, _bare_setup()):
        k = ex04._keys(setup)
        for kernel, question in (("reduction", "reduction side"), ("fma", "FMA kernel side")):
            desc = SIDES.options[k[kernel]["side"]][0]
            check = _check(_answers(setup, **{f"{kernel}_side": desc}), question)
            assert check.status == "pass", (setup.machine.name, kernel, desc, check.message)
    # a wrong side in the menu's words is a readable wrong answer, not an input error
    check = _check(_answers(RECORDED, reduction_side="compute-bound, right of the ridge"), "reduction side")
    assert check.status == "fail"
    check = _check(_answers(RECORDED, fma_side="memory-bound, left of the ridge"), "FMA kernel side")
    assert check.status == "fail"


# --- K4-3: the CPU model answer names no GPU instruction and no GPU fp64 rate ----------------

def test_k4_3_cpu_model_answer_names_no_gpu_instruction():
    text = str(ex04.model_verdict(_cpu_setup(), ATTEMPT))
    assert "F2F" not in text and "one conversion instruction" in text
    assert "1/64-rate" not in text and "GPU with full- or half-rate fp64" not in text
    assert "P64 is an upper bound" in text
    # the GPU answer keeps both
    gpu = str(ex04.model_verdict(RECORDED, ATTEMPT))
    assert "one F2F instruction" in gpu and "1/64-rate fp64" in gpu


# --- K4-4: the reduction's achieved rate keeps the unit hints --------------------------------

def test_k4_4_reduction_achieved_rate_keeps_the_unit_hints():
    red = ex04._keys(RECORDED)["reduction"]
    flops = _check(_answers(RECORDED, reduction_gflops=red["achieved"] * 1e9), "reduction achieved")
    assert flops.status == "fail" and "10^9" in flops.message
    tera = _check(_answers(RECORDED, reduction_gflops=red["achieved"] / 1e3), "reduction achieved")
    assert tera.status == "fail" and "1,000" in tera.message
    # the factor-2 slips keep the sum's own hints, never the FMA/copy one
    for value in (2 * red["achieved"], red["achieved"] / 2, 2.1 * red["achieved"]):
        check = _check(_answers(RECORDED, reduction_gflops=value), "reduction achieved")
        assert check.status == "fail" and FACTOR_2 not in check.message, value


# --- K4-5: a memory-bound FMA kernel's fraction taken against P gets a hint -------------------

def _memory_bound_gpu(b_gbps: float) -> ex04.Setup:
    """Made-up ceilings where the FMA kernel is memory-bound against its copy mix, 16C < P."""
    machine = Machine("made-up GPU", (Ceiling("dram", "memory", b_gbps, "made up, spread 1.0%", "DRAM (write)"),
                                      Ceiling("fp32", "compute", 20000.0, "made up, spread 1.0%", "fp32 FMA"),
                                      Ceiling("fp64", "compute", 10000.0, "made up, spread 1.0%", "fp64 FMA")),
                      kind="measured", provenance={"kind": "gpu"})
    red, fma = _runs(900.0, 0.8 * 16 * 1000.0)
    return ex04.Setup(machine, red, fma, "file", "made up", (), 900.0, 1000.0, 0.01, 0.01)


def test_k4_5_memory_bound_fma_fraction_against_p_gets_a_hint():
    for b_gbps in (1100.0, 2000.0):  # 16B below P, and 16C < P <= 16B (the roof against B is P)
        setup = _memory_bound_gpu(b_gbps)
        fma = ex04._keys(setup)["fma"]
        assert fma["side"] == "memory" and 16 * setup.copy_gbps < setup.peak_gflops
        check = _check(_answers(setup, fma_fraction_of_roof=fma["achieved"] / setup.peak_gflops),
                       "FMA kernel fraction")
        assert check.status == "fail" and "not by P alone" in check.message, check.message
        assert check.message.count("divide the achieved") == 1
        assert all(c.status == "pass" for c in _answers(setup).checks)
    # the shipped CPU mixes with P = 800 GFLOP/s: 16C < P there too
    cpu = _cpu_setup(800.0)
    fma = ex04._keys(cpu)["fma"]
    check = _check(_answers(cpu, fma_fraction_of_roof=fma["achieved"] / cpu.peak_gflops), "FMA kernel fraction")
    assert check.status == "fail" and "not by P alone" in check.message


# --- K4-6: no read-mix label or P64 hint where the ceilings hold neither ---------------------

def test_k4_6_describe_labels_no_mix_where_none_is_loaded():
    rows = dict(_bare_setup().describe().rows)
    assert "its read mix" not in rows["reduction ridge"] and "no read mix measured" in rows["reduction ridge"]
    assert "its copy mix" not in rows["FMA kernel ridge"] and "no copy mix measured" in rows["FMA kernel ridge"]
    assert "not used" not in rows["ridge P / B"]
    assert "P64" not in rows["reduction ridge"]
    # the recorded H200 and the shipped CPU mixes keep their labels
    for setup in (RECORDED, _cpu_setup()):
        rows = dict(setup.describe().rows)
        assert "(P64 / R, its read mix)" in rows["reduction ridge"]
        assert "(P / C, its copy mix)" in rows["FMA kernel ridge"]
    # review 58 k45 item 3: B is neither kernel's mix only where it is the write (the recorded
    # H200); on the shipped CPU mixes B is the read, the reduction's own mix
    assert "not used: B is neither kernel's mix" in dict(RECORDED.describe().rows)["ridge P / B"]
    assert "B is the read here, the reduction's own mix" in dict(_cpu_setup().describe().rows)["ridge P / B"]


def test_k4_6_reduction_hints_name_no_p64_where_no_fp64_row_is_loaded():
    for setup in (_bare_setup(), _cpu_setup(fp64=False)):
        red = ex04._keys(setup)["reduction"]
        assert red["side"] == "memory"
        check = _check(_answers(setup, reduction_side="compute"), "reduction side")
        assert check.status == "fail" and "P64" not in check.message and "P / R" in check.message
        check = _check(_answers(setup, reduction_roof=1.5 * setup.peak_gflops), "reduction roof")
        assert check.status == "fail" and "P64" not in check.message and "fp64 row" in check.message
    check = _check(_answers(RECORDED, reduction_side="compute"), "reduction side")
    assert "P64 / R" in check.message
