"""The same model on AMD and NVIDIA: units, ceilings, tools and counters under their two names.

The table of notebook 05's appendix (docs/appendix-05-hierarchy.md).  Names of units,
instructions, tools and counters follow each vendor's documentation (the ROCm Compute Profiler
and Nsight Compute guides in REFERENCES.md); the HBM ceilings are the datasheet rows of
:mod:`rooflinelib.core.machines`, so the table and the charts cannot disagree.  The NVIDIA
counters are the very ones :mod:`rooflinelib.hierarchy.ncu` reads.
"""
from __future__ import annotations

from rooflinelib.core.machines import H100_SXM, MI300X

#: The HBM traffic counters: what each vendor's profiler calls the bytes read from and written
#: to device memory.  Both are summed over the kernel.
HBM_COUNTERS = {"AMD": ("FETCH_SIZE", "WRITE_SIZE"),
                "NVIDIA": ("dram__bytes_read.sum", "dram__bytes_write.sum")}
#: The fp32 FLOP counters: NVIDIA counts executed thread instructions per opcode (an FFMA is 2
#: FLOPs); rocprof-compute derives FLOPs from its VALU instruction counters.
FLOP_COUNTERS = {"AMD": "VALU FLOP counters, derived by rocprof-compute",
                 "NVIDIA": ("sm__sass_thread_inst_executed_op_ffma_pred_on.sum (x2), "
                            "sm__sass_thread_inst_executed_op_fadd_pred_on.sum, "
                            "sm__sass_thread_inst_executed_op_fmul_pred_on.sum")}
#: Each vendor's built-in roofline.  rocprof-compute measures its ceilings with microbenchmarks;
#: Nsight Compute derives its peaks from each unit's throughput per cycle at the clock of the run
#: (its DRAM line on the H200 at 1953 MHz: 1504 B/cycle x 3.155 GHz = 4.74 TB/s).
ROOFLINE_TOOLS = {"AMD": "rocprof-compute profile --roof-only (ROCm Compute Profiler)",
                  "NVIDIA": "ncu --set roofline, or --set full (Nsight Compute)"}


def _tbps(machine) -> str:
    return f"{machine.ceiling('dram').value / 1e3:g} TB/s ({machine.ceiling('dram').label})"


def comparison_rows(amd=MI300X, nvidia=H100_SXM) -> list:
    """The comparison, one ``{"concept", "AMD", "NVIDIA"}`` row per concept."""
    return [
        {"concept": "vector FLOP unit", "AMD": "VALU (v_fma_f32), 64-lane wavefront",
         "NVIDIA": "CUDA cores (FFMA), 32-lane warp"},
        {"concept": "matrix unit", "AMD": "Matrix Core, MFMA instructions",
         "NVIDIA": "Tensor Core, HMMA / GMMA instructions"},
        {"concept": "HBM ceiling (datasheet)", "AMD": f"{amd.name}: {_tbps(amd)}",
         "NVIDIA": f"{nvidia.name}: {_tbps(nvidia)}"},
        # the L1 is a level of its own on both (notebook 05 draws it; rocprof-compute's roofline
        # draws the vL1D); per-CU and per-SM sizes are binary (CDNA 3 white paper, Hopper Tuning Guide)
        {"concept": "on-chip levels worth modelling",
         "AMD": "vL1D (32 KiB per CU), LDS (64 KiB per CU), L2, Infinity Cache",
         "NVIDIA": "L1 and shared memory (one 256 KiB block per SM, shared memory up to 228 KiB of it), "
                   "L2 (50 MB on the H100)"},
        {"concept": "built-in roofline", "AMD": ROOFLINE_TOOLS["AMD"], "NVIDIA": ROOFLINE_TOOLS["NVIDIA"]},
        # FETCH_SIZE/WRITE_SIZE count the L2's traffic to the fabric, part of which the Infinity
        # Cache serves: past the L2, not all of it HBM (exercise 2, C5)
        {"concept": "byte counters past the L2", "AMD": " + ".join(HBM_COUNTERS["AMD"])
         + " (L2 to fabric; the Infinity Cache serves part of it)",
         "NVIDIA": " + ".join(HBM_COUNTERS["NVIDIA"]) + " (DRAM)"},
        {"concept": "fp32 FLOP counters", "AMD": FLOP_COUNTERS["AMD"], "NVIDIA": FLOP_COUNTERS["NVIDIA"]},
    ]


def counterpart(counter: str) -> str:
    """The other vendor's name for an HBM byte counter (``FETCH_SIZE`` <-> ``dram__bytes_read.sum``,
    ``WRITE_SIZE`` <-> ``dram__bytes_write.sum``), or ``ValueError``."""
    amd, nvidia = HBM_COUNTERS["AMD"], HBM_COUNTERS["NVIDIA"]
    key = str(counter).strip()
    for a, n in zip(amd, nvidia):
        if key.upper() == a:
            return n
        if key.lower() == n:
            return a
    raise ValueError(f"counter: not an HBM byte counter of either vendor, got {counter!r} "
                     f"(one of {', '.join(amd + nvidia)})")
