"""Datasheet ceilings for a few data-centre GPUs, and a registry for measured machines.

Datasheet figures are vendor peaks, not measurements: Lab 1 measures the real ones.  Rows a
datasheet does not print (the transcendental unit, shared-memory bandwidth) are derived from
the architecture's per-SM throughput at the boost clock; their ``source`` says how.
"""
from __future__ import annotations

from rooflinelib.core.vocabulary import (BF16_TENSOR, FP16_TENSOR, FP32_MATRIX, FP64_MATRIX,
                                         FP8_TENSOR, TF32_TENSOR)
from rooflinelib.core.model import Ceiling, Machine

NVIDIA_SFU_PER_SM = 16  # transcendental (MUFU) results per clock per SM, sm_80 and sm_90
NVIDIA_SHARED_BYTES_PER_CLOCK_PER_SM = 128  # 32 banks x 4 bytes
# Dense bf16 tensor-core FLOPs per clock per SM (A100: 1,024 FMAs; Hopper: 2,048). A datasheet's
# tensor figure is SMs x this x a clock that need not be the boost clock the SFU row is derived
# at: the H100/H200's 989.4 TFLOP/s is 132 x 4,096 x 1.83 GHz, against a 1.98 GHz boost.
NVIDIA_BF16_TENSOR_FLOP_PER_CLOCK_PER_SM = {"A100": 2048, "H100 SXM": 4096, "H200": 4096}


def _derived_nvidia(sms: int, clock_ghz: float, where: str) -> tuple:
    sfu = sms * NVIDIA_SFU_PER_SM * clock_ghz  # G results/s, each counted as one FLOP
    shared = sms * NVIDIA_SHARED_BYTES_PER_CLOCK_PER_SM * clock_ghz  # GB/s
    basis = f"derived (SMs x per-SM rate x {1000 * clock_ghz:.0f} MHz)"  # compare_rows shows this part
    return (
        Ceiling("sfu", "compute", sfu, f"{basis}: {sms} SMs x 16 SFU/clock x {clock_ghz} GHz ({where})",
                "transcendental (SFU)"),
        Ceiling("shared", "memory", shared,
                f"{basis}: {sms} SMs x 128 B/clock x {clock_ghz} GHz ({where})", "shared memory"),
    )


_NV_A100 = "NVIDIA A100 Tensor Core GPU datasheet, SXM4 40 GB, dense figures"
_NV_H100 = "NVIDIA H100 Tensor Core GPU datasheet, SXM5, dense figures"
_NV_H200 = "NVIDIA H200 Tensor Core GPU datasheet, SXM, dense figures"
# The H200's compute figures are the GH100's of the Hopper white paper (the H200 datasheet rounds
# them), and they are not at one clock: a notebook that sets a run at 1980 MHz against a tensor
# row must know that row assumes 1.83 GHz (132 x 4,096 bf16 FLOP per clock x 1.83 GHz = 989.4).
# compare_rows shows the words before the colon: the H200 datasheet prints 67 / 34 / 67 TFLOP/s and
# its tensor figures only with sparsity (twice these), so these are not "printed" on it (review 12b)
_NV_H200_COMPUTE = ("H100 SXM white paper (same chip, clocks): NVIDIA Hopper architecture white paper, "
                    "GH100 (SXM5) dense figures: fp32 and fp64 at 1.98 GHz, the tf32, fp16, bf16 and "
                    "fp8 tensor figures at the 1.83 GHz they imply; the H200 datasheet prints 67, 34 "
                    "and 67 TFLOP/s and its tensor figures with sparsity only (twice these)")
_AMD_MI300X = "AMD Instinct MI300X product specifications (data sheet and CDNA 3 white paper)"
_AMD_MI300X_UNPACKED = ("derived: 304 CUs x 64 lanes x 2 FLOPs (v_fma_f32) x 2.1 GHz = 81.7 TFLOP/s, "
                        "ordinary (unpacked) fp32; the data sheet prints this figure as its FP64 "
                        "vector peak, and 163.4 (packed fp32) as its FP32 vector peak")


A100 = Machine(
    name="A100",
    source=_NV_A100,
    date="2026-11-30",
    notes="108 SMs at 1.41 GHz boost, 40 MB L2. The 40 GB part's 1555 GB/s; the 80 GB part has more.",
    ceilings=(
        Ceiling("dram", "memory", 1555.0, _NV_A100, "HBM2, 40 GB part"),
        Ceiling("fp64", "compute", 9_700.0, _NV_A100, "fp64 vector"),
        Ceiling(FP64_MATRIX, "compute", 19_500.0, _NV_A100, "fp64 tensor"),
        Ceiling("fp32", "compute", 19_500.0, _NV_A100, "fp32 vector"),
        Ceiling(TF32_TENSOR, "compute", 156_000.0, _NV_A100, "tf32 tensor"),
        Ceiling(BF16_TENSOR, "compute", 312_000.0, _NV_A100, "bf16 tensor"),
        Ceiling(FP16_TENSOR, "compute", 312_000.0, _NV_A100, "fp16 tensor"),
    ) + _derived_nvidia(108, 1.41, "A100"),
)

_H100_COMPUTE = (
    ("fp64", 33_500.0, "fp64 vector"),
    (FP64_MATRIX, 66_900.0, "fp64 tensor"),
    ("fp32", 66_900.0, "fp32 vector"),
    (TF32_TENSOR, 494_700.0, "tf32 tensor"),
    (BF16_TENSOR, 989_400.0, "bf16 tensor"),
    (FP16_TENSOR, 989_400.0, "fp16 tensor"),
    (FP8_TENSOR, 1_978_900.0, "fp8 tensor"),
)

H100_SXM = Machine(
    name="H100 SXM",
    source=_NV_H100,
    date="2026-08-08",
    notes=("132 SMs at 1.98 GHz boost, 50 MB L2, 256 KiB of combined L1 and shared memory per "
           "SM, of which shared memory can take up to 228 KiB. Hopper has no fp32 tensor-core "
           "path: an fp32 GEMM (SGEMM) runs on the CUDA cores, under the fp32 vector roof."),
    ceilings=(Ceiling("dram", "memory", 3350.0, _NV_H100, "HBM3"),)
    + tuple(Ceiling(n, "compute", v, _NV_H100, lab) for n, v, lab in _H100_COMPUTE)
    + _derived_nvidia(132, 1.98, "H100 SXM"),
)

# The H200 is the H100's GH100 die with HBM3e: same SMs and clocks, more and faster memory.
H200 = Machine(
    name="H200",
    source=_NV_H200,
    date="2026-11-30",
    notes=("132 SMs at 1.98 GHz boost, 141 GB HBM3e. The recorded H200 reports a 62.9 MB (60 MiB) "
           "L2 and 233 kB (228 KiB) of shared memory per SM; see docs/h200-facts.md. No fp32 "
           "tensor-core path: an fp32 GEMM runs on the CUDA cores."),
    ceilings=(Ceiling("dram", "memory", 4800.0, _NV_H200, "HBM3e"),)
    + tuple(Ceiling(n, "compute", v, _NV_H200_COMPUTE, lab) for n, v, lab in _H100_COMPUTE)
    + _derived_nvidia(132, 1.98, "H200"),
)

MI300X = Machine(
    name="MI300X",
    source=_AMD_MI300X,
    date="2026-08-08",
    notes=("304 CUs at 2.1 GHz. The data sheet's FP32 vector peak, 163.4 TFLOP/s, assumes packed "
           "fp32 (v_pk_fma_f32: two fp32 FMAs per lane per instruction); ordinary fp32 code "
           "issues v_fma_f32 and peaks at half that, 81.7, the figure the data sheet prints as "
           "its FP64 vector peak.  The course's 'fp32' roof on the MI300X is the unpacked 81.7; "
           "'fp32-packed' is the data sheet's 163.4."),
    ceilings=(
        Ceiling("dram", "memory", 5300.0, _AMD_MI300X, "HBM3"),
        Ceiling("fp64", "compute", 81_700.0, _AMD_MI300X, "fp64 vector"),
        Ceiling(FP64_MATRIX, "compute", 163_400.0, _AMD_MI300X, "fp64 matrix"),
        Ceiling("fp32", "compute", 81_700.0, _AMD_MI300X_UNPACKED, "fp32 vector, unpacked"),
        Ceiling("fp32-packed", "compute", 163_400.0, _AMD_MI300X, "fp32 vector, packed (data sheet)"),
        Ceiling(FP32_MATRIX, "compute", 163_400.0, _AMD_MI300X, "fp32 matrix"),
        Ceiling(TF32_TENSOR, "compute", 653_700.0, _AMD_MI300X, "tf32 matrix"),
        Ceiling(BF16_TENSOR, "compute", 1_307_400.0, _AMD_MI300X, "bf16 matrix"),
        Ceiling(FP16_TENSOR, "compute", 1_307_400.0, _AMD_MI300X, "fp16 matrix"),
        Ceiling(FP8_TENSOR, "compute", 2_614_900.0, _AMD_MI300X, "fp8 matrix"),
    ),
)

# The course's worked example: not a product, a round-number machine for exercises.
EXAMPLE_120T_3TB = Machine(
    name="example 120 TFLOP/s, 3 TB/s",
    kind="example",
    source="worked example (round numbers, not a product)",
    date="2026-11-30",
    ceilings=(
        Ceiling("dram", "memory", 3000.0, "worked example (round numbers)", "HBM"),
        Ceiling("fp32", "compute", 120_000.0, "worked example (round numbers)",
                "fp32 arithmetic"),
    ),
)

DATASHEET_MACHINES = (A100, H100_SXM, H200, MI300X)

_REGISTRY: dict = {}
_ALIASES = {"h100": "H100 SXM", "h100-sxm": "H100 SXM", "h100 sxm5": "H100 SXM"}


def _key(name: str) -> str:
    return " ".join(str(name).lower().split())


def register(machine: Machine) -> Machine:
    """Add (or replace) a machine, typically one built from a measurement."""
    _REGISTRY[_key(machine.name)] = machine
    return machine


def get_machine(name: str) -> Machine:
    key = _key(name)
    key = _key(_ALIASES.get(key, key))
    try:
        return _REGISTRY[key]
    except KeyError:
        known = ", ".join(m.name for m in _REGISTRY.values())
        raise KeyError(f"machine: unknown {name!r}; known: {known}") from None


def machine_names() -> list:
    return [m.name for m in _REGISTRY.values()]


for _m in DATASHEET_MACHINES + (EXAMPLE_120T_3TB,):
    register(_m)


def ridge_table(machines=DATASHEET_MACHINES, memory: str = "dram") -> list:
    """Rows of (machine, memory GB/s, ceiling, GFLOP/s, ridge FLOP/byte) for every compute roof."""
    rows = []
    for m in machines:
        b = m.ceiling(memory)
        for c in m.compute_ceilings:
            rows.append({
                "machine": m.name,
                "memory_gbps": b.value,
                "ceiling": c.title,
                "name": c.name,
                "peak_gflops": c.value,
                "ridge": c.value / b.value,
            })
    return rows


def sfu_at_tensor_clock(machine: Machine) -> float:
    """``machine``'s SFU rate (G results/s) at the clock its datasheet bf16 tensor figure implies,
    so that the two compare like with like: 16 results per SM per clock times SMs x that clock,
    which is 16 x the tensor figure / its FLOPs per SM per clock.  A machine whose tensor
    FLOPs per clock the course does not list keeps its ``sfu`` row."""
    per_clock = NVIDIA_BF16_TENSOR_FLOP_PER_CLOCK_PER_SM.get(machine.name)
    if per_clock is None or not machine.has(BF16_TENSOR):
        return machine.ceiling("sfu").value
    return NVIDIA_SFU_PER_SM * machine.ceiling(BF16_TENSOR).value / per_clock
