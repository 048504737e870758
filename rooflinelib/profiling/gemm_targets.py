"""The course's fp32 GEMMs in Numba-CUDA, as functions the profiler can import: a naive one
(every thread reads a row of A and a column of B from memory) and a tiled one (16 x 16 tiles
of A and B staged in shared memory), both at n = 2048 with 16 x 16 threads per block.

Both map ``threadIdx.x``, the index that runs fastest inside a warp, to the **column** of C.
The 32 threads of a warp are then 16 neighbouring columns of two rows: their loads of B and
their stores of C are 64 contiguous bytes per row (coalesced), and a tile in shared memory is
read along a row of 16 words, one word per bank, with no two threads wanting different words
of one bank.

The ``*_rows`` variants are the same kernels with ``threadIdx.x`` mapped to the **row**, a
deliberate slip (each warp lies down a column of C): a warp then reads one float from each of 16 rows,
16 sectors for 64 useful bytes, and the tiled one's shared tile is read down a column, 8 threads
to a bank.  They are kept as the counter-example that notebook 07 diagnoses with
:func:`rooflinelib.profiling.count_accesses` and Nsight Compute.

``setup()`` makes the arguments all four take, ``(a, b, c)`` on the GPU; ``roofline profile
rooflinelib/profiling/gemm_targets.py:gemm_tiled --counters`` profiles one.  numba is imported
when a kernel is first needed.
"""
from __future__ import annotations

import functools
from pathlib import Path

from rooflinelib.store.recorded import recorded_file
from rooflinelib.profiling.counting import count_accesses
from rooflinelib.store.fileio import read_json, read_text
from rooflinelib.store.results import recorded_h200
from rooflinelib.profiling.profile_result import ProfileError

N = 2048
TILE = 16
N_FLOPS = 2 * N ** 3
N_BYTES = 3 * N * N * 4  # A and B read once, C written once: the compulsory bytes
#: The simulator's size for access counts: one block of 16 x 16 threads (8 warps), as at n = 2048
#: (the requests are the same per warp and per k; the simulator runs about 10^5 accesses a minute).
SIM_N = 16
#: The four kernels, in the order the notebook shows them: (name, launcher name, mapping).
VARIANTS = (("naive, threadIdx.x -> row", "gemm_naive_rows"), ("tiled, threadIdx.x -> row", "gemm_tiled_rows"),
            ("naive, threadIdx.x -> column", "gemm_naive"), ("tiled, threadIdx.x -> column", "gemm_tiled"))
#: What the tables call each variant: where a warp's 32 threads lie in C, one convention for the
#: whole notebook ("a warp along a row of C" is threadIdx.x -> column index).  The variant names
#: above stay as they are: they are the keys of the recorded file.
LABELS = {"naive, threadIdx.x -> row": "naive, warp down a column", "tiled, threadIdx.x -> row": "tiled, warp down a column",
          "naive, threadIdx.x -> column": "naive, warp along a row", "tiled, threadIdx.x -> column": "tiled, warp along a row"}


def label(name: str) -> str:
    """The tables' name of a variant (:data:`LABELS`); an unknown name is shown as it is."""
    return LABELS.get(name, name)


def kernels(tile: int = TILE) -> dict:
    """``{launcher name: kernel}`` for ``tile`` x ``tile`` blocks (compiled on first launch)."""
    from rooflinelib.profiling.gemm_kernels import gemm_kernels
    return gemm_kernels(tile)


def grid(n: int = N, tile: int = TILE) -> tuple:
    """``(griddim, blockdim)`` of every variant at size n: one thread per element of C."""
    return (n // tile, n // tile), (tile, tile)


def setup():
    import numpy as np
    from numba import cuda
    a, b = inputs(N)
    return cuda.to_device(a), cuda.to_device(b), cuda.device_array((N, N), np.float32)


def inputs(n: int) -> tuple:
    """``(a, b)``, n x n float32 of small integers: every product and sum is exact, so the
    result is checked bit for bit."""
    import numpy as np
    rng = np.random.default_rng(0)
    return (rng.integers(-2, 3, (n, n)).astype(np.float32), rng.integers(-2, 3, (n, n)).astype(np.float32))


def _launch(name: str, a, b, c):
    griddim, blockdim = grid(c.shape[0])
    kernels()[name][griddim, blockdim](a, b, c)
    return c


def gemm_naive(a, b, c):
    return _launch("gemm_naive", a, b, c)


def gemm_tiled(a, b, c):
    return _launch("gemm_tiled", a, b, c)


def gemm_naive_rows(a, b, c):
    return _launch("gemm_naive_rows", a, b, c)


def gemm_tiled_rows(a, b, c):
    return _launch("gemm_tiled_rows", a, b, c)


@functools.lru_cache(maxsize=None)
def access_counts(n: int = SIM_N) -> dict:
    """``{variant name: count_accesses(...)}`` for the four variants at size n, in the CUDA
    simulator (no GPU): the per-request sectors and shared-memory passes of each mapping."""
    import numpy as np
    a, b = inputs(n)
    griddim, blockdim = grid(n)
    found = {}
    for name, launcher in VARIANTS:
        c = np.zeros((n, n), np.float32)
        found[name] = count_accesses(kernels()[launcher], griddim, blockdim, a, b, c)
    return found


def ffma_instructions(n: int = SIM_N) -> int:
    """Warp-wide FFMA instructions of every variant at size n: one per thread per k."""
    return n ** 3 // 32


def shared_passes_per_ffma(counts: dict, n: int = SIM_N) -> dict:
    """``{variant: shared-memory load passes per warp-wide FFMA}`` from :func:`access_counts`."""
    return {name: c["shared_load"]["wavefronts"] / ffma_instructions(n) for name, c in counts.items()}


def shared_cap(passes_per_ffma: float, shared_gbps: float, fp32_gflops: float) -> float:
    """The fraction of the fp32 roof a kernel can reach when every warp-wide FFMA (64 FLOPs)
    waits on ``passes_per_ffma`` shared-memory passes of 128 bytes each (one bank word for each
    of 32 banks) at ``shared_gbps``: the shared-memory pipe's ceiling, counted in FFMAs."""
    if passes_per_ffma <= 0:
        return 1.0
    return min(1.0, shared_gbps / 128 / passes_per_ffma * 64 / fp32_gflops)


def access_table(counts: dict, n: int = SIM_N) -> str:
    """One line per variant: global load requests and sectors per request, sectors per FFMA,
    shared load passes per request and per FFMA, and the shared loads' bank conflicts (per
    warp-wide FFMA, one for each thread's k; the tile stores' are in ``shared_store``)."""
    ffma = ffma_instructions(n)
    # Which thread index lies along a row is the lesson's to state (notebook 07, before the
    # table); repeating it here made a 200-character caption.
    lines = [f"counted in the CUDA simulator at n = {n}, one {TILE} x {TILE} block ({ffma:,} warp-wide FFMAs per kernel):",
             f"  {'kernel':30s} {'sectors/load':>12s} {'sectors/FFMA':>12s} {'shared passes/load':>18s} "
             f"{'passes/FFMA':>11s} {'load conflicts/FFMA':>19s}"]
    for name, c in counts.items():
        g, s = c["global_load"], c["shared_load"]
        shared = (f"{s['wavefronts_per_request']:18.2f} {s['wavefronts'] / ffma:11.2f} {s['bank_conflicts'] / ffma:19.2f}"
                  if s["requests"] else f"{'no shared':>18s} {'-':>11s} {'-':>19s}")
        lines.append(f"  {label(name):30s} {g['sectors_per_request']:12.2f} {g['sectors'] / ffma:12.2f} {shared}")
    return "\n".join(lines)


# --- the four variants recorded on the H200 (benchmarks/gemm_counters.py) ------------------------

RECORDED_COUNTERS = "h200_gemm_counters_numba.json"
#: Nsight Compute's names for what the table shows.
SECTORS, REQUESTS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
SHARED_PASSES = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
FFMA_THREADS = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"
INSTRUCTIONS = "smsp__inst_executed.sum"
MIO_STALL = "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"


def recorded_counters() -> dict:
    """The recorded file: ``{"date", "variants": {name: {...}}, "ncu": {run: {kernel: {metric: value}}}, ...}``."""
    from pathlib import Path
    return read_json(recorded_file(RECORDED_COUNTERS), ProfileError,
                     "the recorded GEMM counters")


def recorded_rows(recorded: dict) -> dict:
    """``{variant: {...}}``: each variant's time and rate, and its counters per warp-wide
    request or per warp-wide FFMA (an FFMA instruction of a warp is 32 thread FFMAs)."""
    rows = {}
    for name, v in recorded["variants"].items():
        m = {}
        for run in recorded["ncu"].values():
            m.update(run.get(v["kernel"], {}))
        ffma = m[FFMA_THREADS] / 32
        rows[name] = {"seconds": v["median_s"], "spread": v.get("spread"), "gflops": v["gflops"], "exact": v["exact"],
                      "sectors_per_request": m[SECTORS] / m[REQUESTS],
                      "l1_bytes": m["l1tex__t_bytes.sum"],
                      "dram_bytes": (m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]
                                     if "dram__bytes_read.sum" in m and "dram__bytes_write.sum" in m else None),
                      "shared_passes_per_ffma": m[SHARED_PASSES] / ffma,
                      "conflicts_per_ffma": m[CONFLICTS] / ffma,
                      "instructions_per_ffma": m[INSTRUCTIONS] / ffma if INSTRUCTIONS in m else None,
                      "mio_stall": m.get(MIO_STALL)}
    return rows


def recorded_table(recorded: dict, fp32_gflops: float) -> str:
    """The four variants side by side: time, rate and fraction of ``fp32_gflops``, and the
    counters that explain them.  The timing spreads and the bank conflicts per FFMA are the
    appendix's (:func:`spread_and_conflicts_text`): review 15d found nine columns too many."""
    sm = (recorded.get("gpu_before") or {}).get("sm_clock_mhz")
    lines = [f"recorded on an {(recorded.get('gpu_before') or {}).get('name', 'H200')} on {recorded['date'][:10]}"
             f"{f' (SM clock {sm} MHz)' if sm else ''}, n = {recorded['n']}, one thread per output, "
             f"{recorded['tile']} x {recorded['tile']} threads a block; Nsight Compute per warp-wide request or FFMA:",
             f"  {'kernel':30s} {'time':>8s} {'TFLOP/s':>8s} {'% of fp32':>9s} {'sectors/load':>12s} "
             f"{'DRAM MB':>7s} {'L1 GB':>7s} {'shared passes/FFMA':>18s} {'instr/FFMA':>10s}"]
    for name, r in recorded_rows(recorded).items():
        instr = f"{r['instructions_per_ffma']:10.1f}" if r["instructions_per_ffma"] else f"{'-':>10s}"
        dram = f"{r['dram_bytes'] / 1e6:7.1f}" if r["dram_bytes"] else f"{'-':>7s}"
        shared = f"{'-':>18s}" if "naive" in name else f"{r['shared_passes_per_ffma']:18.2f}"  # no shared memory
        lines.append(f"  {label(name):30s} {r['seconds'] * 1e3:6.2f} ms {r['gflops'] / 1e3:8.2f} {r['gflops'] / fp32_gflops:9.1%} "
                     f"{r['sectors_per_request']:12.2f} {dram} {r['l1_bytes'] / 1e9:7.1f} {shared} "
                     f"{instr}")
    return "\n".join(lines)


def spread_and_conflicts_text(recorded: dict) -> str:
    """The recorded GEMMs' timing spreads and Nsight Compute's bank conflicts per warp-wide FFMA,
    one line per variant: the two columns the notebook's table leaves to its appendix."""
    lines = []
    for name, r in recorded_rows(recorded).items():
        spread = f"{r['spread']:.1%}" if r["spread"] is not None else "-"
        lines.append(f"{label(name)}: spread {spread}, bank conflicts {r['conflicts_per_ffma']:.2f} per FFMA")
    return "\n".join(lines)


def recorded_roofs(profiles: dict) -> tuple:
    """``(fp32 GFLOP/s, shared-memory GB/s, where)`` for the recorded GEMMs' shares and caps: the
    Lab 1 measured first in the run that recorded them, as its profiles (``profiles``, from
    ``capstone.recorded_pair``) carry it, so that every recorded figure of notebook 07 stands on
    one Lab 1; with those profiles missing, the shipped Lab 1 of the same card."""
    own = (profiles or {}).get("gemm tiled")
    levels = ((getattr(own, "hierarchical", None) or {}).get("levels") or {}) if own else {}
    if own and "l1" in levels:
        return own.peak_gflops, levels["l1"]["ceiling_gbps"], "the recorded run's Lab 1"
    lab1 = recorded_h200()
    return (lab1.ceiling("fp32").value, lab1.ceiling("shared").value,
            "the shipped Lab 1 (the recorded run's profiles are missing)")


#: An H200 SM's warp schedulers: each issues one warp instruction a clock.
SCHEDULERS_PER_SM = 4


def issue_cap(instructions_per_ffma: float, roof_ffmas_per_sm_clock: float = SCHEDULERS_PER_SM) -> float:
    """The fraction of the fp32 roof a kernel can reach when each warp-wide FFMA comes with
    ``instructions_per_ffma`` instructions in all: an SM's 4 schedulers issue one instruction a
    clock each, so at most ``4 / instructions_per_ffma`` FFMAs per SM per clock, against the
    roof's ``roof_ffmas_per_sm_clock``.  The default, 4, is the theoretical peak (one FFMA per
    scheduler a clock); :func:`caps_text` passes the measured roof's 3.94 (:func:`per_sm_clock`),
    the denominator of the shared-memory cap and of the measured share beside it."""
    if instructions_per_ffma <= 0:
        return 1.0
    return min(1.0, SCHEDULERS_PER_SM / instructions_per_ffma / roof_ffmas_per_sm_clock)


#: The recorded H200's SM count (docs/h200-facts.md); its clock is the recorded file's.
RECORDED_SMS = 132


def per_sm_clock(recorded: dict, shared_gbps: float, fp32_gflops: float) -> tuple:
    """``(passes, ffmas, clock_mhz)``: the shared-memory passes (128 bytes each) an SM gets per
    clock at ``shared_gbps``, and the warp-wide FFMAs (64 FLOPs each) it must start per clock to
    reach ``fp32_gflops``, at the SM clock the recorded run reported.  Their ratio, not the
    clock, sets :func:`shared_cap`: a kernel that needs ``p`` passes per FFMA reaches at most
    ``passes / p / ffmas`` of the fp32 roof."""
    from rooflinelib.core.machines import NVIDIA_SHARED_BYTES_PER_CLOCK_PER_SM
    mhz = (recorded.get("gpu_before") or {}).get("sm_clock_mhz") or 1980
    clocks = RECORDED_SMS * mhz / 1e3  # G SM-clocks per second
    return shared_gbps / NVIDIA_SHARED_BYTES_PER_CLOCK_PER_SM / clocks, fp32_gflops / 64 / clocks, mhz


def l1_cap(l1_bytes: float, shared_gbps: float, fp32_gflops: float, n: int = N, clip: bool = True) -> float:
    """The fraction of the fp32 roof a GEMM of ``n`` can reach when its ``l1_bytes`` move at
    ``shared_gbps`` (one on-chip memory serves L1 and shared memory: an assumption); with
    ``clip=False`` a cap above the roof is returned as it is (over 1), not as the roof."""
    cap = 2 * n ** 3 / (l1_bytes / shared_gbps) / fp32_gflops
    return min(1.0, cap) if clip else cap


def caps(recorded: dict, shared_gbps: float, fp32_gflops: float) -> dict:
    """``{variant: {"shared", "l1", "issue", "measured"}}``: each variant's caps from its counts
    (shared-memory passes, None without shared memory; L1 bytes, unclipped; instruction issue)
    and the share it reached, each a fraction of the measured fp32 roof.  One home for the
    numbers :func:`caps_text` prints and :func:`caps_figure` draws."""
    roof_ffmas = per_sm_clock(recorded, shared_gbps, fp32_gflops)[1]  # the measured roof, per SM per clock
    out = {}
    for name, row in recorded_rows(recorded).items():
        passes = row["shared_passes_per_ffma"]
        out[name] = {"shared": shared_cap(passes, shared_gbps, fp32_gflops) if passes else None,
                     "l1": l1_cap(row["l1_bytes"], shared_gbps, fp32_gflops, clip=False),
                     "issue": issue_cap(row["instructions_per_ffma"], roof_ffmas),
                     "measured": row["gflops"] / fp32_gflops}
    return out


def caps_text(recorded: dict, shared_gbps: float, fp32_gflops: float, l1: bool = True) -> str:
    """One line a variant: its caps from the counts (shared-memory passes, L1 bytes, instruction
    issue), each a share of the measured fp32 roof, against the share of that roof it reached.  A cap above the roof is printed as
    it is (e.g. 198%), not clipped to a 100% that would read as an exact cap at the roof.
    ``l1=False`` leaves out the L1 cap, which binds none of the four (notebook 07 prints it so;
    its appendix prints all three)."""
    lines = []
    for name, c in caps(recorded, shared_gbps, fp32_gflops).items():
        shared = f"{c['shared']:6.1%}" if c["shared"] is not None else "  none"
        l1_part = f"L1 bytes {c['l1']:6.1%}, " if l1 else ""  # over 100%: above the roof, said so
        lines.append(f"{label(name):30s} caps: shared-memory passes {shared}, {l1_part}"
                     f"instruction issue {c['issue']:6.1%}; measured {c['measured']:5.1%}")
    return "\n".join(lines)


#: The caps figure's bars, (key of :func:`caps`, legend name, colour), and its kernels' order:
#: the tiled pair, then the naive pair, as notebook 07 reads them.
CAPS_BARS = (("measured", "measured", "#222222"), ("shared", "cap: shared-memory passes", "#1f77b4"),
             ("issue", "cap: instruction issue", "#ff7f0e"))
#: The figure's kernels in the order of :func:`recorded_table` and :func:`caps_text` (the recorded
#: file's), so the table and the figure beside it read alike.
CAPS_ORDER = ("naive, threadIdx.x -> row", "tiled, threadIdx.x -> row",
              "naive, threadIdx.x -> column", "tiled, threadIdx.x -> column")


def caps_figure(recorded: dict, shared_gbps: float, fp32_gflops: float, title: str | None = None):
    """A bar chart of each recorded GEMM's measured share of the fp32 roof beside its caps from
    the counts (:func:`caps`: shared-memory passes, instruction issue; the L1 cap, which binds
    none, is left out as in :func:`caps_text`), each bar labelled with its percentage.  A naive
    kernel has no shared-memory bar: it uses no shared memory.  plotly is imported here."""
    import plotly.graph_objects as go
    table = caps(recorded, shared_gbps, fp32_gflops)
    names = [n for n in CAPS_ORDER if n in table] + [n for n in table if n not in CAPS_ORDER]
    fig = go.Figure()
    for key, legend, colour in CAPS_BARS:
        values = [table[n][key] for n in names]
        fig.add_trace(go.Bar(
            x=[label(n) for n in names], y=[None if v is None else 100 * v for v in values], name=legend,
            marker_color=colour, meta=f"caps:{key}",
            text=["" if v is None else f"{v:.1%}" for v in values], textposition="outside",
            hovertemplate=f"%{{x}}<br>{legend}: %{{y:.1f}}% of the fp32 roof<extra></extra>"))
    top = max(100 * v for c in table.values() for k, v in c.items() if k in ("measured", "shared", "issue") and v)
    fig.update_layout(barmode="group", template="plotly_white",
                      title=title or "Recorded H200 GEMMs: measured share of the fp32 roof and the caps from their counts",
                      yaxis=dict(title="% of the fp32 roof", range=[0, top * 1.15]),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0))
    return fig


def dram_level_text(profile) -> str:
    """Notebook 07 section 5's level table cut to the row its lesson uses: a recorded profile's
    :func:`rooflinelib.profiling.capstone.levels_text` without its L2 and L1 rows (those stay in
    ``docs/appendix-07.md``, "The softmaxes level by level")."""
    from rooflinelib.profiling import capstone
    others = tuple(f"  {label} " for level, label in capstone.LEVEL_LABELS.items() if level != "dram")
    return "\n".join(line for line in capstone.levels_text(profile).splitlines() if not line.startswith(others))


#: The line of :func:`rooflinelib.profiling.capstone.counters_text` that notebook 07 leaves to its
#: prose (the hypothesis in section 5 names ncu's flush) and to its appendix.
FLUSH_LINE = "ncu flushed the L2 before each kernel; the timed run did not"


#: How :func:`capstone.counters_text` starts its line of ncu's own kernel time.
KERNEL_TIME_LINE = "ncu's own kernel time"


def softmax_counters_text(profiles: dict) -> str:
    """Notebook 07 section 5's counters: :func:`rooflinelib.profiling.capstone.counters_text`
    of the recorded softmaxes cut to the DRAM bytes and the ratios, the figures the section
    reads.  The L2, L1 and FLOP counts, ncu's kernel times and the note on ncu's L2 flush are
    left to ``docs/appendix-07.md`` (exercise 6 prints them whole)."""
    from rooflinelib.profiling import capstone
    lines = []
    for line in capstone.counters_text(profiles).splitlines():
        if line.strip() == FLUSH_LINE or line.strip().startswith(KERNEL_TIME_LINE):
            continue
        lines.append(line.split(", L2 ")[0] if " ncu: " in line else line)
    return "\n".join(lines)


#: The SASS opcodes of a tiled kernel's shared-memory traffic, in the order the table shows them.
SASS_SHARED = ("FFMA", "LDS", "LDS.128", "STS")


def sass_table(recorded: dict) -> str:
    """The tiled variants' machine code (SASS) as recorded: how many FFMAs, 4-byte shared loads
    (``LDS``), 16-byte shared loads (``LDS.128``) and shared stores (``STS``) the compiled kernel
    holds.  The inner loop over a tile's k is unrolled (16 FFMAs in the whole kernel), so the
    counts are those of one tile step; the source asks for two 4-byte shared loads per FFMA."""
    lines = [f"SASS of the tiled kernels as recorded (opcode counts of the whole kernel; its loop over a "
             f"tile's {recorded['tile']} k is unrolled):",
             "  " + f"{'kernel':30s}" + "".join(f"{op:>9s}" for op in SASS_SHARED) + f"{'shared loads':>14s}"
             f"{'in the source':>15s}"]
    for name, v in recorded["variants"].items():
        sass = v.get("sass")
        if not sass or not sass.get("LDS.128") and not sass.get("LDS"):
            continue
        loads = sass.get("LDS", 0) + sass.get("LDS.128", 0)
        lines.append("  " + f"{label(name):30s}" + "".join(f"{sass.get(op, 0):9d}" for op in SASS_SHARED)
                     + f"{loads:14d}{2 * sass.get('FFMA', 0):15d}")
    if len(lines) == 2:
        return "the recorded GEMM counters hold no SASS of a kernel with shared-memory loads"
    return "\n".join(lines)


#: How :func:`opcode_mix` groups SASS opcodes: by the opcode's stem (before its first dot).
OPCODE_GROUPS = (("FFMA", ("FFMA",)), ("global load", ("LDG",)), ("global store", ("STG",)),
                 ("integer add or multiply-add (IADD3, IMAD)", ("IADD3", "IMAD")),
                 ("compare (ISETP)", ("ISETP",)), ("branch", ("BRA",)))
#: The plural of each group's name, where it is not the name and an "s".
_PLURAL = {"integer add or multiply-add (IADD3, IMAD)": "integer adds and multiply-adds (IADD3, IMAD)",
           "compare (ISETP)": "compares (ISETP)", "branch": "branches"}


def opcode_mix(sass: dict) -> dict:
    """``{group: count}`` of a kernel's recorded SASS opcode counts (the whole compiled kernel, as
    ``benchmarks/gemm_counters.py`` saved them), in :data:`OPCODE_GROUPS`' order, then
    ``"other"``; ``"total"`` last.  These are static counts, not executed instructions."""
    mix = {group: 0 for group, _ in OPCODE_GROUPS}
    mix["other"] = 0
    for op, count in sass.items():
        stem = op.split(".")[0]
        group = next((g for g, stems in OPCODE_GROUPS if stem in stems), "other")
        mix[group] += count
    mix["total"] = sum(sass.values())
    return mix


#: The opcode families ``benchmarks/gemm_counters.py`` (``sass_mix``) counts; every other opcode
#: (EXIT, thread-id reads, moves, ...) is left out of the recorded SASS counts.
COUNTED_OPCODES = "FFMA, LDS, LDG, STS, STG, BAR, IMAD, IADD3, ISETP, BRA"


def naive_opcode_text(recorded: dict) -> str:
    """One line: the naive kernels' machine code as recorded, grouped by :func:`opcode_mix`
    (both naive variants compile to the same opcode counts; a difference is said).  The counts
    are static (of the code, not of its execution) and cover only :data:`COUNTED_OPCODES`."""
    mixes = {label(name): opcode_mix(v["sass"]) for name, v in recorded["variants"].items()
             if name.startswith("naive") and v.get("sass")}
    if not mixes:
        return "the recorded GEMM counters hold no SASS of the naive kernels"
    first = next(iter(mixes.values()))
    alike = all(m == first for m in mixes.values())
    parts = ", ".join(f"{count} {group if count == 1 else _PLURAL.get(group, group + 's')}"
                      for group, count in first.items() if count and group != "total")
    which = "the naive kernels' SASS (both alike)" if alike else f"the SASS of {next(iter(mixes))}"
    return f"{which}: {first['total']} of the counted opcodes ({COUNTED_OPCODES}): {parts}"


def _kernel_lines(source: str, name: str) -> list:
    """The code lines of the nested kernel ``name`` in ``source``: no docstring, comments or
    blank lines, indentation kept relative to the body."""
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(f"def {name}("))
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    text = "\n".join(body)
    text = text.split('"""', 2)[2] if text.lstrip().startswith('"""') else text
    code = [line.split("#")[0].rstrip() for line in text.splitlines()]
    base = min(len(line) - len(line.lstrip()) for line in code if line.strip())
    return [line[base:] for line in code if line.strip()]


def kernel_diff_text() -> str:
    """The lines in which each slow variant differs from its fixed kernel, side by side, read
    from :mod:`rooflinelib.profiling.gemm_kernels` (its text, not an import: numba is not
    needed).  Every other line of each pair is the same."""
    source = read_text(Path(__file__).with_name("gemm_kernels.py"), kind="the GEMM kernels' source")
    pairs = (("naive", "gemm_naive_kernel", "gemm_naive_rows_kernel"),
             ("tiled", "gemm_tiled_kernel", "gemm_tiled_rows_kernel"))
    rows = []
    for kind, fixed, slip in pairs:
        a, b = _kernel_lines(source, fixed), _kernel_lines(source, slip)
        if len(a) != len(b):
            raise ValueError(f"{fixed} and {slip} no longer differ line for line")
        differing = [(x.strip(), y.strip()) for x, y in zip(a, b) if x != y]
        rows += [(kind if i == 0 else "", x, y) for i, (x, y) in enumerate(differing)]
    width = max(len(r[1]) for r in rows) + 3
    out = ["the lines that differ (rooflinelib/profiling/gemm_kernels.py); every other line is the same:",
           f"  {'':6s} {'warp along a row (fixed)':{width}s} warp down a column (the slip)"]
    out += [f"  {kind:6s} {x:{width}s} {y}" for kind, x, y in rows]
    return "\n".join(out)
