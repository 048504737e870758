"""Where the roofline is used in practice, each use tied to a figure the course computes.

Notebook 06 closes with this table.  Every ``figure`` is computed here from the operator
catalogue, the datasheet machines and the H200 runs the course ships; nothing is typed in.
"""
from __future__ import annotations

from rooflinelib.core import operators
from rooflinelib.core.machines import H100_SXM, H200, MI300X
from rooflinelib.core.vocabulary import BF16_TENSOR, FP8_TENSOR
from rooflinelib.experiments.record import recorded_experiments
from rooflinelib.hierarchy import ncu
from rooflinelib.store.results import recorded_h200


#: The register file of one Hopper SM: 65,536 32-bit registers (CUDA C++ Programming Guide,
#: compute capability 9.0).  A GEMM tile's fp32 accumulator lives there.
SM_REGISTER_BYTES = 65536 * 4
#: A tile shape that production bf16 GEMMs on Hopper use (CUTLASS's and cuBLAS's 128 x 256).
PRODUCTION_TILE = (128, 256)


def tile_intensity(rows: int, cols: int, dtype: str = "bf16") -> float:
    """FLOP per byte a rows x cols output tile requests: each step of K loads a column of A's
    ``rows`` and a row of B's ``cols`` elements and does 2 rows cols FLOPs."""
    return 2 * rows * cols / ((rows + cols) * operators.dtype_bytes(dtype))


def tile_figure(machine=H100_SXM, n: int = 8192, dtype: str = "bf16") -> str:
    """What the no-L2 tile model asks of a GEMM tile, and why real kernels use smaller ones."""
    ridge = machine.ridge(BF16_TENSOR)
    exact = operators.smallest_tile(ridge, n, dtype)["exact"]
    accumulator = exact * exact * 4
    rows, cols = PRODUCTION_TILE
    return (f"the tile model without the L2 asks a bf16 GEMM of N = {n} on the {machine.name} for tiles of at "
            f"least {exact} x {exact} to pass the ridge ({ridge:.0f}); their fp32 accumulator alone "
            f"({accumulator / 2 ** 20:.1f} MiB) is {accumulator / SM_REGISTER_BYTES:.0f}x an SM's "
            f"{SM_REGISTER_BYTES // 1024} KiB of registers. Real kernels use tiles such as {rows} x {cols} "
            f"({tile_intensity(rows, cols, dtype):.0f} FLOP per byte requested) and still reach the roof, "
            "which fits the L2 serving most re-reads (a hypothesis the course has not measured): judge tiles on a hierarchical roofline")


def regression_gate(measured: float, ceiling: float, floor: float = 0.7) -> dict:
    """A CI check on a kernel's rate as a fraction of a measured ceiling (both in the same
    unit): passes at ``floor`` or above.  Scored against the ceiling, not a wall-clock time,
    so it survives a change of clock or driver that moves both."""
    if not measured > 0 or not ceiling > 0 or not 0 < floor <= 1:
        raise ValueError(f"measured, ceiling, floor: need positive rates and 0 < floor <= 1, got "
                         f"{measured!r}, {ceiling!r}, {floor!r}")
    fraction = measured / ceiling
    return {"fraction": fraction, "floor": floor, "passed": fraction >= floor}


def _recorded_transpose():
    try:
        return recorded_experiments()["transpose"]
    except (KeyError, ValueError):
        return None


def _profiler_figure() -> str:
    """Lab 1's recorded H200 ceilings as fractions of the peaks Nsight Compute derived on the same
    card (notebook 05), or what is missing."""
    try:
        peaks, lab1 = ncu.load_csv(ncu.recorded_csv())[0].peaks(), recorded_h200()
    except Exception as exc:  # a shipped file missing or unreadable: say so, do not fail the table
        return f"no recorded ncu run to compare with ({type(exc).__name__})"
    dram = lab1.ceiling("dram")
    return (f"Lab 1's recorded H200 fp32 roof is {lab1.ceiling('fp32').value / peaks.gflops['fp32']:.2f} and its "
            f"{dram.title} roof {dram.value / peaks.gbps['dram']:.2f} of the peaks Nsight Compute derives from unit "
            f"throughputs at the running clock; notebook 05 places Lab 4's kernels from ncu's counters")


def use_case_rows() -> list:
    """``{"use", "the roofline question", "figure"}`` for each use."""
    mi_bf16 = MI300X.ridge(BF16_TENSOR)
    flash = operators.attention_fusion_crossover(mi_bf16, 128)
    three, fused = operators.softmax(2 ** 24, fused=False), operators.softmax(2 ** 24, fused=True)
    chain = operators.elementwise_chain(2 ** 24, 5, fused=False), operators.elementwise_chain(2 ** 24, 5, fused=True)
    h200 = H200.roofline("fp32", "dram")
    fp32_add, bf16_add = operators.vector_add(2 ** 24, "fp32"), operators.vector_add(2 ** 24, "bf16")
    n_bf16 = operators.smallest_compute_bound_gemm_n(mi_bf16, "bf16")
    n_fp8 = operators.smallest_compute_bound_gemm_n(MI300X.ridge(FP8_TENSOR), "fp8")
    decode = operators.decode_matvec(8192, 8192, "bf16")
    prefill = operators.gemm(8192, "bf16", m=4096)  # 4096 prompt tokens through one 8192 x 8192 layer
    h100_bf16 = H100_SXM.ridge(BF16_TENSOR)
    rows = [
        {"use": "FlashAttention", "the roofline question": "does keeping the s x s scores on chip move attention past the ridge?",
         "figure": (f"fused attention (d = 128, bf16) crosses the MI300X bf16 ridge at s = {flash['fused_s']}; "
                    f"unfused never does (its intensity tends to {flash['unfused_limit']:.1f})")},
        {"use": "fusion in torch.compile, Triton, XLA", "the roofline question": "how many bytes does the fused kernel delete?",
         "figure": (f"softmax fused: {three.n_bytes / fused.n_bytes:.1f}x fewer bytes; five elementwise ops fused: "
                    f"{chain[0].n_bytes / chain[1].n_bytes:.0f}x, still memory-bound at {chain[1].intensity:g} FLOP/byte")},
        {"use": "quantization", "the roofline question": "is the layer memory-bound (bytes halve, rate doubles) or a GEMM?",
         "figure": (f"a vector add in bf16 reaches {h200.attainable_gflops(bf16_add.intensity) / h200.attainable_gflops(fp32_add.intensity):.0f}x "
                    f"the fp32 rate on the H200; an MI300X GEMM needs N = {n_bf16} in bf16 and N = {n_fp8} in fp8"
                    + (" (fp8 halves the bytes and doubles the ridge)" if n_bf16 == n_fp8 else ""))},
        {"use": "prefill against decode", "the roofline question": "which side of the ridge is each phase on?",
         "figure": (f"decode's matrix-vector product: {decode.intensity:.2f} FLOP/byte; prefill of 4096 tokens through the "
                    f"same layer: {prefill.intensity:,.0f}; the H100's bf16 ridge: {h100_bf16:.0f}")},
        {"use": "GEMM tile selection (cuBLAS, CUTLASS, rocBLAS)", "the roofline question": "which tile lifts the GEMM past the ridge?",
         "figure": tile_figure()},
        {"use": "vendor profilers (Nsight Compute, rocprof-compute)", "the roofline question": "where does the kernel sit, per level?",
         "figure": _profiler_figure()},
        {"use": "procurement", "the roofline question": "how much bandwidth comes with each FLOP?",
         "figure": (f"same compute, different memory: the H200's fp32 ridge is {H200.ridge('fp32'):.1f} FLOP/byte, the "
                    f"H100's {H100_SXM.ridge('fp32'):.1f}; a memory-bound kernel runs "
                    f"{H200.ceiling('dram').value / H100_SXM.ceiling('dram').value:.2f}x faster on the H200")},
    ]
    transpose = _recorded_transpose()
    if transpose is not None:
        # a run from the chain era holds Lab 1's copy mix (copy_gbps) and no copy of its own
        copy = transpose.extra.get("copy_gbps") or transpose.variant("copy").gbps
        gates = {v.name: regression_gate(v.gbps, copy) for v in transpose.variants if v.name != "copy"}
        said = ", ".join(f"{name} {g['fraction']:.0%} ({'pass' if g['passed'] else 'fail'})" for name, g in gates.items())
        figure = f"a 70%-of-copy gate on the recorded H200 transposes: {said}"
    else:
        figure = "a gate at 70% of the measured copy ceiling (no recorded run to apply it to)"
    rows.append({"use": "regression gates in CI", "the roofline question": "is the kernel still at its share of a measured roof?",
                 "figure": figure})
    return rows



def use_case_markdown(rows=None) -> str:
    """The use cases as the markdown list of ``docs/appendix-06-use-cases.md`` (a test holds the
    page to this text, so a changed figure changes the page)."""
    rows = use_case_rows() if rows is None else rows
    return "\n".join(f"- **{r['use']}**: {r['the roofline question']}\n  {r['figure']}." for r in rows)
