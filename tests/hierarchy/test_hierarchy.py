"""The hierarchical roofline: level detection, kernel placement per level, the working-set
model, result files, the CPU sweep for real, the GPU kernels in the simulator and as PTX."""
import copy
import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from support import simulated as on_the_simulator

from rooflinelib.hierarchy import levels as hl, level_placement as h, workingset_files as wsr
from rooflinelib.core.machines import H200

ROOT = Path(__file__).resolve().parents[2]


# --- synthetic sweeps ---------------------------------------------------------------------------

def sizes_per_octave(low, high, per_octave=8):
    n = int(per_octave * math.log2(high / low))
    return [low * 2 ** (i / per_octave) for i in range(n + 1)]


def staircase(sizes, rates, capacities, noise=0.0, mixing=False, seed=1):
    """Bandwidth of a cache hierarchy: a level serves what fits it.  ``mixing``: beyond a
    capacity C a fraction C/W of the reads still hits (a gradual step, the hard case)."""
    rng = random.Random(seed)
    out = []
    for s in sizes:
        remaining, seconds_per_byte = 1.0, 0.0
        for k, rate in enumerate(rates):
            cap = capacities[k] if k < len(capacities) else math.inf
            hit = 1.0 if s <= cap else (cap / s if mixing else 0.0)
            seconds_per_byte += remaining * hit / rate
            remaining *= 1 - hit
        out.append((1 / seconds_per_byte) * (1 + rng.gauss(0, noise)))
    return out


GPU_SIZES = sizes_per_octave(16e3, 512e6)
GPU_RATES = (30_000, 12_000, 4_000)
GPU_CAPS = (250e3, 50e6)


@pytest.mark.parametrize("mixing", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_three_levels_found_with_their_rates_and_capacities(mixing, seed):
    levels = hl.detect_levels(GPU_SIZES, staircase(GPU_SIZES, GPU_RATES, GPU_CAPS, 0.02, mixing, seed))
    assert [lv.name for lv in levels] == ["l1", "l2", "dram"]
    for lv, rate in zip(levels, GPU_RATES):
        # with mixing, a tenth of the reads at 10x the L2 still hit it: DRAM's plateau sits higher
        assert lv.gbps == pytest.approx(rate, rel=0.2 if mixing and lv.name == "dram" else 0.06)
        assert lv.best_gbps >= lv.gbps
    for lv, cap in zip(levels, GPU_CAPS):
        assert lv.capacity_bytes == pytest.approx(cap, rel=0.25)
    assert levels[-1].capacity_bytes is None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_slow_fall_past_the_capacity_is_placed_at_its_start(seed):
    # A cache that is not strict LRU keeps some hits past its size: here the hit share falls
    # linearly over the two octaves beyond C (as the H200's L1 does).  The step is where the
    # fall begins; 15% down the fall would place it about 1.5 C.
    rng = random.Random(seed)
    cap, fast, slow = 230e3, 32_000.0, 20_000.0
    sizes = sizes_per_octave(16e3, 64e6)
    gbps = []
    for w in sizes:
        hit = 1.0 if w <= cap else max(0.0, 1 - math.log2(w / cap) / 2)
        gbps.append(1 / (hit / fast + (1 - hit) / slow) * (1 + rng.gauss(0, 0.003)))
    first = hl.detect_levels(sizes, gbps)[0]
    assert first.gbps == pytest.approx(fast, rel=0.01)
    assert cap <= first.capacity_bytes <= 1.15 * cap
    assert first.last_bytes <= first.capacity_bytes  # the fall is no part of the plateau


@pytest.mark.parametrize("n_flops", [True, 0, -1.0, float("nan"), "10"])
def test_a_kernel_needs_a_positive_flop_count(n_flops):
    with pytest.raises(wsr.HierarchyError) as info:
        h.HierarchicalKernel("k", n_flops, {"dram": 1.0})
    assert str(info.value).startswith("k: n_flops must be a positive number") and "\n" not in str(info.value)


def test_a_sharp_step_is_placed_between_its_two_points():
    sizes = [2 ** i for i in range(10, 30)]
    gbps = [100.0 if s <= 2 ** 18 else 20.0 for s in sizes]
    l1, dram = hl.detect_levels(sizes, gbps)
    assert 2 ** 18 <= l1.capacity_bytes <= 2 ** 19
    assert (l1.first_bytes, l1.last_bytes) == (2 ** 10, 2 ** 18)
    assert dram.first_bytes == 2 ** 19


def test_a_cpu_like_four_level_sweep():
    sizes = sizes_per_octave(4e3, 1.2e9, 4)
    rates, caps = (200, 100, 40, 15), (48e3, 2e6, 300e6)
    levels = hl.detect_levels(sizes, staircase(sizes, rates, caps, 0.03, seed=4))
    assert [lv.name for lv in levels] == ["l1", "l2", "l3", "dram"]
    assert [round(lv.gbps / r, 1) for lv, r in zip(levels, rates)] == [1.0] * 4


def test_one_stray_point_does_not_split_a_plateau():
    gbps = staircase(GPU_SIZES, GPU_RATES, GPU_CAPS)
    gbps[40] *= 0.5  # one slow repeat in the middle of the L2 plateau
    assert [lv.name for lv in hl.detect_levels(GPU_SIZES, gbps)] == ["l1", "l2", "dram"]


def test_a_slow_start_is_not_a_level():
    # Tiny working sets can underuse the machine: a plateau slower than the next is dropped.
    gbps = staircase(GPU_SIZES, GPU_RATES, GPU_CAPS)
    for i in range(12):
        gbps[i] = 9_000.0
    names = [lv.name for lv in hl.detect_levels(GPU_SIZES, gbps)]
    assert names[-2:] == ["l2", "dram"] and len(names) == 3


def test_a_flat_sweep_is_one_level_and_names_follow_first_cache():
    sizes = sizes_per_octave(1e3, 1e6)
    (only,) = hl.detect_levels(sizes, [50.0] * len(sizes), first_cache=2, ends_in_memory=False)
    assert only.name == "l2" and only.capacity_bytes is None
    levels = hl.detect_levels(GPU_SIZES, staircase(GPU_SIZES, GPU_RATES[1:], GPU_CAPS[1:]), first_cache=2)
    assert [lv.name for lv in levels] == ["l2", "dram"]


def test_explicit_names_must_match_the_levels_found():
    gbps = staircase(GPU_SIZES, GPU_RATES, GPU_CAPS)
    assert [lv.name for lv in hl.detect_levels(GPU_SIZES, gbps, names=["a", "b", "c"])] == ["a", "b", "c"]
    with pytest.raises(wsr.HierarchyError, match="names: 3 levels found but 2"):
        hl.detect_levels(GPU_SIZES, gbps, names=["a", "b"])


def test_a_steady_slope_is_no_plateau():
    sizes = sizes_per_octave(1e3, 1e9)
    gbps = [1e5 * (s / 1e3) ** -0.5 for s in sizes]  # falls 30% per octave, everywhere
    assert hl.detect_levels(sizes, gbps) == ()


@pytest.mark.parametrize("sizes,gbps,match", [
    ([1, 2], [1, 1], "at least 3 points"),
    ([1, 2, 3], [1, 1], "3 sizes but 2"),
    ([1, 3, 2], [1, 1, 1], "sizes must increase"),
    ([1, 2, 3], [1, 0, 1], r"gbps\[1\]"),
    ([1, 2, float("nan")], [1, 1, 1], r"sizes\[2\]"),
    ([1, 2, "x"], [1, 1, 1], "must be numbers"),
])
def test_bad_sweeps_are_refused_in_one_line(sizes, gbps, match):
    with pytest.raises(wsr.HierarchyError, match=match) as info:
        hl.detect_levels(sizes, gbps)
    assert "\n" not in str(info.value)


def test_level_table_and_bytes_format():
    levels = hl.detect_levels(GPU_SIZES, staircase(GPU_SIZES, GPU_RATES, GPU_CAPS))
    table = hl.level_table(levels)
    assert table.splitlines()[1].split()[:2] == ["l1", "30,000"]
    assert "(holds everything)" in table.splitlines()[-1]
    assert [hl.format_bytes(v) for v in (512, 48e3, 50.3e6, 2.1e9)] == ["512 B", "48 kB", "50.3 MB", "2.1 GB"]


# --- placement per level -----------------------------------------------------------------------

def machine():
    levels = hl.detect_levels(GPU_SIZES, staircase(GPU_SIZES, GPU_RATES, GPU_CAPS))
    return h.hierarchical_machine(levels, H200, ("fp32",), name="test H200"), levels


def test_l2_bound_kernel_that_looks_memory_bound_against_dram():
    m, _ = machine()
    # 32 MB read 8 times, one FLOP per 4 bytes: the L2 moves 256 MB, DRAM 32 MB.
    kernel = h.HierarchicalKernel("ws 32 MB x8", 0.25 * 256e6, {"l1": 256e6, "l2": 256e6, "dram": 32e6}, 2_900.0)
    pl = h.place_levels(kernel, m)
    assert pl.binding == "l2"
    assert pl.point("dram").intensity == pytest.approx(2.0)
    assert pl.point("l2").intensity == pytest.approx(0.25)
    # the same FLOP/s, three intensities: the roof at each level is I * B_level
    assert pl.point("l2").roof_gflops == pytest.approx(0.25 * m.ceiling("l2").value)
    assert pl.roof_gflops == pytest.approx(kernel.n_flops / (256e6 / (m.ceiling("l2").value * 1e9)) / 1e9)
    assert pl.point("l2").fraction_of_roof > 0.9 > 0.5 > pl.point("dram").fraction_of_roof
    text = pl.verdict()
    assert "bound by L2" in text and "looks memory-bound" in text and "not the limit" in text


def test_compute_bound_kernel_names_the_compute_ceiling():
    m, _ = machine()
    kernel = h.HierarchicalKernel("gemm-ish", 1e13, {"l1": 1e10, "l2": 1e9, "dram": 1e8})
    pl = h.place_levels(kernel, m)
    assert pl.binding == "fp32" and not pl.binding_is_memory
    assert pl.fraction_of_roof is None
    assert "bound by fp32 compute" in pl.verdict()
    assert pl.roof_gflops == pytest.approx(m.ceiling("fp32").value)


def test_dram_bound_kernel_gets_no_cache_lesson():
    m, _ = machine()
    pl = h.place_levels(h.HierarchicalKernel("stream", 1e9, {"l1": 8e9, "l2": 8e9, "dram": 8e9}), m)
    assert pl.binding == "dram" and "looks memory-bound" not in pl.verdict()


def test_placement_refuses_unknown_levels_and_bad_kernels():
    m, _ = machine()
    with pytest.raises(wsr.HierarchyError, match="has no such memory ceiling"):
        h.place_levels(h.HierarchicalKernel("k", 1.0, {"l7": 1.0}), m)
    with pytest.raises(wsr.HierarchyError, match="compute: "):
        h.place_levels(h.HierarchicalKernel("k", 1.0, {"l1": 1.0}), m, compute="fp8-tensor")
    with pytest.raises(wsr.HierarchyError, match="is a memory ceiling"):
        h.place_levels(h.HierarchicalKernel("k", 1.0, {"l1": 1.0}), m, compute="l2")
    for bad in ({"l1": 0}, {"l1": -1}, {"l1": float("inf")}, {"l1": True}, {}):
        with pytest.raises(wsr.HierarchyError):
            h.HierarchicalKernel("k", 1.0, bad)
    with pytest.raises(wsr.HierarchyError, match="n_flops"):
        h.HierarchicalKernel("k", 0, {"l1": 1.0})
    with pytest.raises(wsr.HierarchyError, match="achieved_gflops"):
        h.HierarchicalKernel("k", 1.0, {"l1": 1.0}, float("nan"))


def test_placement_table_marks_the_binding_level():
    m, _ = machine()
    pl = h.place_levels(h.HierarchicalKernel("ws", 64e6, {"l1": 256e6, "l2": 256e6, "dram": 32e6}, 2_900.0), m)
    rows = h.placement_table([pl]).splitlines()[1:]
    assert [r.split()[1] for r in rows] == ["l1", "l2", "dram"]
    assert [r.endswith("<") for r in rows] == [False, True, False]


# --- the working-set model -----------------------------------------------------------------------

def test_traffic_per_level_follows_the_capacities():
    _, levels = machine()
    small = h.working_set_traffic(100e3, 64, levels)  # fits L1
    assert small == {"l1": 6.4e6, "l2": 100e3, "dram": 100e3}
    mid = h.working_set_traffic(8e6, 64, levels)  # fits L2 only
    assert mid == {"l1": 512e6, "l2": 512e6, "dram": 8e6}
    big = h.working_set_traffic(200e6, 64, levels)
    assert big == {"l1": 12.8e9, "l2": 12.8e9, "dram": 12.8e9}


def test_traffic_is_per_sm_where_the_cache_is_per_sm():
    # review 6c T5-2: the GPU's L1 is one per SM, so a working set that every SM reads and that
    # fits one L1 reaches the L2 once per SM, not once in all; the shared L2 sends it to DRAM once
    _, levels = machine()
    small = h.working_set_traffic(100e3, 64, levels, readers=132)
    assert small == {"l1": 132 * 6.4e6, "l2": 132 * 100e3, "dram": 100e3}
    mid = h.working_set_traffic(8e6, 64, levels, readers=132)
    assert mid == {"l1": 132 * 512e6, "l2": 132 * 512e6, "dram": 8e6}
    assert h.sm_readers({"device": {"kind": "gpu", "sm_count": 132}}) == 132
    assert h.sm_readers({"device": {"kind": "cpu", "sm_count": 132}}) == 1
    for bad in (0, 1.5, True):
        with pytest.raises(wsr.HierarchyError, match="readers"):
            h.working_set_traffic(100e3, 64, levels, readers=bad)
    m, _ = machine()
    state = h.working_set_state(levels, m, 100e3, 64, 0.25, readers=132)
    assert state.kernel.bytes_by_level["l2"] == 132 * 100e3
    assert "read 64 times by each of 132 SMs" in state.text()


@pytest.mark.parametrize("ws_bytes,binding", [(64e3, "l1"), (8e6, "l2"), (200e6, "dram")])
def test_the_bound_level_moves_with_the_working_set(ws_bytes, binding):
    m, levels = machine()
    sweep = (GPU_SIZES, staircase(GPU_SIZES, GPU_RATES, GPU_CAPS))
    state = h.working_set_state(levels, m, ws_bytes, 64, 0.25, sweep=sweep)
    assert state.placement.binding == binding
    # the model's bandwidth is the binding level's ceiling, and the sweep measured about that
    assert state.predicted_gbps == pytest.approx(m.ceiling(binding).value)
    assert state.measured_gbps == pytest.approx(state.predicted_gbps, rel=0.1)
    assert f"({binding})" in state.text()


def test_working_set_state_refuses_bad_values():
    m, levels = machine()
    for kwargs, field in (({"ws_bytes": 0}, "ws_bytes"), ({"ws_bytes": 1e6, "reads": -1}, "reads"),
                          ({"ws_bytes": 1e6, "flops_per_byte": float("nan")}, "flops_per_byte")):
        with pytest.raises(wsr.HierarchyError, match=field):
            h.working_set_state(levels, m, **kwargs)


# --- result files ----------------------------------------------------------------------------------

def result(levels_rates=GPU_RATES):
    rows = [{"bytes": int(s), "gbps": g, "spread": 0.01, "verified": True}
            for s, g in zip(GPU_SIZES, staircase(GPU_SIZES, levels_rates, GPU_CAPS, 0.01))]
    return {"format": wsr.FORMAT, "version": 1, "kind": "workingset", "backend": "numba", "scope": "gpu",
            "created": "2026-11-30T00:00:00+00:00",
            "device": {"name": "test GPU", "reported_cache_bytes": {"l2": 52428800, "shared": 233472}},
            "series": [{"name": "global", "access": "global", "first_cache": 1, "rows": rows},
                       {"name": "tiles", "access": "shared", "first_cache": 1,
                        "rows": [{"bytes": 16384 * i, "gbps": 31_000.0, "spread": 0.0, "verified": True}
                                 for i in (1, 2, 3)]}]}


def test_result_round_trip_levels_and_machine(tmp_path):
    path = wsr.save(result(), tmp_path / "ws.json")
    loaded = wsr.load(path)
    levels = h.result_levels(loaded)
    assert [lv.name for lv in levels] == ["l1", "l2", "dram"]
    checks = {c.level: c for c in h.compare_steps(levels, wsr.reported_sizes(loaded), 256 * 1024)}
    assert checks["l2"].within(0.25) and checks["l1 vs l1+shared"].within(0.25)
    # the largest shared-memory size is no yardstick for the L1: it is never compared with it
    assert not any("shared" in c.level and c.reported_bytes == 233472 for c in checks.values())
    m = h.machine_from_result(loaded, H200)
    assert [c.name for c in m.memory_ceilings] == ["l1", "l2", "dram", "shared"]
    assert m.ceiling("shared").value == 31_000.0 and m.ceiling("fp32").value == H200.ceiling("fp32").value
    assert m.kind == "measured" and m.date == "2026-11-30"


def test_a_sweep_short_of_memory_does_not_call_its_last_level_dram():
    r = result()
    r["device"]["reported_cache_bytes"]["l2"] = 400e6  # the sweep stops at 512 MB < 2 x 400 MB
    assert [lv.name for lv in h.result_levels(r)] == ["l1", "l2", "l3"]


@pytest.mark.parametrize("edit,field", [
    (lambda r: r.update(format="rooflinelib-result"), "format"),
    (lambda r: r.update(version=99), "version"),
    (lambda r: r.update(scope="tpu"), "scope"),
    (lambda r: r["device"].pop("name"), "device.name"),
    (lambda r: r.update(series=[]), "series"),
    (lambda r: r["series"][0].update(access="texture"), r"series\[0\].access"),
    (lambda r: r["series"][1].update(name="global"), r"series\[1\].name"),
    (lambda r: r["series"][0].update(first_cache=0), r"series\[0\].first_cache"),
    (lambda r: r["series"][0]["rows"][3].pop("gbps"), r"rows\[3\].gbps: missing"),
    (lambda r: r["series"][0]["rows"][3].update(gbps=-1.0), r"rows\[3\].gbps"),
    (lambda r: r["series"][0]["rows"][3].update(bytes=1), r"rows\[3\].bytes: working sets must increase"),
    (lambda r: r["series"][0]["rows"][3].update(verified=False), r"rows\[3\].verified"),
    (lambda r: r["series"][0]["rows"][3].update(extra=1), r"rows\[3\].extra: unknown field"),
])
def test_bad_result_files_name_the_field(edit, field):
    r = copy.deepcopy(result())
    edit(r)
    with pytest.raises(wsr.HierarchyError, match=field) as info:
        wsr.validate(r, "ws.json")
    assert str(info.value).startswith("ws.json: ") and "\n" not in str(info.value)


def test_truncated_and_missing_files(tmp_path):
    path = tmp_path / "ws.json"
    path.write_text(json.dumps(result())[:500])
    with pytest.raises(wsr.HierarchyError, match="not valid JSON"):
        wsr.load(path)
    with pytest.raises(wsr.HierarchyError, match="file: not found"):
        wsr.load(tmp_path / "none.json")
    with pytest.raises(wsr.HierarchyError, match="series: no series 'x'"):
        wsr.series_of(result(), "x")


# --- the CPU sweep, for real, at tiny sizes -----------------------------------------------------

def test_cpu_sweep_runs_verified_at_tiny_sizes():
    pytest.importorskip("numba")
    from rooflinelib.hierarchy.workingset import expected_cpu_sum, measure_cpu, working_set_sizes
    sizes = working_set_sizes(4096, 64 * 1024, 2, 1024)
    r = measure_cpu(sizes=sizes, bytes_per_call=4e6, repeats=2)
    rows = r["series"][0]["rows"]
    assert [row["bytes"] for row in rows] == sizes
    assert all(row["verified"] and row["gbps"] > 0 for row in rows)
    assert r["scope"] == "cpu" and "CPU" in r["notes"][0]
    assert expected_cpu_sum(10, 3) == 3 * (21 + 3 * 2 // 2)  # 0..6 sums to 21, then 0 + 1 + 2


def test_working_set_sizes_are_whole_chunks_per_octave():
    from rooflinelib.hierarchy.workingset import working_set_sizes
    sizes = working_set_sizes(16384, 2 ** 29, 8, 16384)
    assert sizes[0] == 16384 and sizes[-1] == 2 ** 29
    assert all(s % 16384 == 0 for s in sizes) and sizes == sorted(set(sizes))
    ratios = [b / a for a, b in zip(sizes, sizes[1:]) if a >= 2 ** 20]
    assert max(ratios) < 1.1  # fine steps where the plateaus end
    with pytest.raises(ValueError, match="sizes"):
        working_set_sizes(10, 1, 8)


@pytest.mark.parametrize("pattern", ["spread", "slices"])
@pytest.mark.parametrize("n_chunks,n_pass,grid", [(5, 7, 3), (2, 3, 3), (7, 2, 2), (1, 4, 2)])
def test_expected_gpu_sums_match_a_direct_count(pattern, n_chunks, n_pass, grid):
    np = pytest.importorskip("numpy")
    from rooflinelib.measure.expected import expected_gpu_sums, gpu_data
    from rooflinelib.measure.workingset_kernels import BLOCK, CHUNK_VECTORS, UNROLL
    data = gpu_data(n_chunks).astype(np.float64).reshape(-1, 4)
    want = np.zeros((grid * BLOCK, 4))
    for b in range(grid):
        first = (b * n_chunks) // grid
        lo, hi = (0, n_chunks) if pattern == "spread" else (first, max(first + 1, ((b + 1) * n_chunks) // grid))
        chunk = first
        for _ in range(n_pass):
            base = chunk * CHUNK_VECTORS
            for u in range(UNROLL):
                want[b * BLOCK:(b + 1) * BLOCK] += data[base + u * BLOCK + np.arange(BLOCK)]
            chunk = chunk + 1 if chunk + 1 < hi else lo
    assert np.array_equal(expected_gpu_sums(n_chunks, n_pass, grid, pattern), want)


# --- the GPU kernels without a GPU: simulator and PTX ------------------------------------------

@pytest.fixture(scope="module")
def simulated():
    pytest.importorskip("numba_cuda")
    done = on_the_simulator.run(script=ROOT / "tests" / "support" / "sim_workingset.py", timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return {rec["name"]: rec for rec in map(json.loads, done.stdout.splitlines())}


@pytest.mark.parametrize("name", ["global 3 chunks", "global-cg 2 chunks", "global 1 chunk", "shared 2 chunks",
                                  "global-cg slices 5 chunks", "global slices 2 chunks"])
@pytest.mark.slow
def test_simulated_kernel_sums_are_exact_and_bytes_are_counted(simulated, name):
    rec = simulated[name]
    assert rec["ok"] and rec["wrong"] == 0
    assert rec["loaded_bytes"] == rec["accounted_bytes"] > 0


def test_simulated_sweep_plumbing_writes_a_valid_result(simulated):
    r = wsr.validate(simulated["plumbing"]["result"])
    assert [(s["access"], s["pattern"]) for s in r["series"]] == [
        ("global", "spread"), ("global-cg", "slices"), ("shared", "tiles")]
    assert [row["bytes"] for row in r["series"][1]["rows"]] == [16384, 32768]  # its largest: 2 chunks
    assert [row["bytes"] for row in r["series"][2]["rows"]] == [16384, 32768, 49152]
    assert r["device"]["reported_cache_bytes"] == {"l2": 32768, "shared": 65536}


def test_simulated_lab4_target_counts(simulated):
    sweep, ws, cg = simulated["lab4 target"]["records"]
    assert sweep["n_flops"] == 2 * 3 * sweep["buffer_bytes"] / 4  # 2K FLOPs per float, K = 3
    assert sweep["dram_bytes"] == 2 * sweep["buffer_bytes"]
    assert ws["n_flops"] == ws["requested_bytes"] / 4 and ws["dram_read_bytes"] == ws["ws_bytes"]
    # one block on two chunks: 3 chunks' worth requested (3 passes), nothing shared
    assert (cg["grid"], cg["ws_bytes"], cg["blocks_per_chunk"]) == (1, 2 * 16384, 0.5)
    assert cg["requested_bytes"] == 3 * 16384 and cg["n_flops"] == cg["requested_bytes"] / 4
    assert cg["l2_bytes"] == cg["requested_bytes"] + 16 * 256  # plus the sums each thread stores


@pytest.fixture(scope="module")
def ptx():
    pytest.importorskip("numba_cuda")
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        pytest.skip("PTX needs the real compiler, not the simulator")
    from rooflinelib.measure import workingset_kernels as wk
    return {src.name: src.ptx(cc=(9, 0)) for src in wk.ptx_targets()}


def _ops(text):
    import re
    return re.findall(r"^\s+(?:@!?%p\d+\s+)?([a-z][\w.]*)", text, re.M)


@pytest.mark.parametrize("name,load", [("ws_read global spread", "ld.global.v4.f32"),
                                       ("ws_read global slices", "ld.global.v4.f32"),
                                       ("ws_read global-cg spread", "ld.global.cg.v4.f32"),
                                       ("ws_read global-cg slices", "ld.global.cg.v4.f32"),
                                       ("ws_read shared 16 KiB", "ld.shared.v4.f32"),
                                       ("ws_read shared 48 KiB", "ld.shared.v4.f32")])
def test_ptx_reads_16_bytes_at_a_time_in_fp32(ptx, name, load):
    text = ptx[name]
    ops = _ops(text)
    assert ".f64" not in text and ".local" not in text
    assert ops.count(load) >= 4 and ops.count(load) % 4 == 0  # whole chunks, possibly unrolled
    assert ops.count("add.f32") == 4 * ops.count(load)  # the four sums of each vector, nothing else
    scalar_global_loads = [op for op in ops if op.startswith("ld.global") and ".v4." not in op]
    if "shared" in name:
        assert ops.count("st.shared.f32") >= 1  # the tile is staged first
    else:
        assert scalar_global_loads == []
    assert "rem." not in text and "div." not in " ".join(ops[ops.index(load):])  # no modulo per load


@pytest.mark.parametrize("name", ["ws_read global spread", "ws_read global slices"])
def test_ptx_chunk_offsets_are_constants(ptx, name):
    import re
    offsets = re.findall(r"ld\.global\.v4\.f32\s+\{[^}]*\},\s*\[%rd\d+\+(\d+)\]", ptx[name])
    assert {"4096", "8192", "12288"} <= set(offsets)  # u * BLOCK * 16 bytes


# --- the recorded H200 sweep ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def recorded():
    return wsr.recorded("h200", "numba")


def test_recorded_h200_sweep_is_valid_and_has_provenance(recorded):
    dev = recorded["device"]
    assert dev["name"] == "NVIDIA H200" and dev["sm_count"] == 132
    assert dev["before"]["sm_clock_mhz"] >= 1900 and not dev["clock_drift_flag"]
    assert dev["reported_cache_bytes"] == {"l2": 62914560, "shared": 233472}
    assert [(s["access"], s["pattern"]) for s in recorded["series"]] == [
        ("global", "spread"), ("global-cg", "slices"), ("global-cg", "spread"), ("shared", "tiles")]
    assert all(s["sm_clock_mhz"] >= 1900 for s in recorded["series"])


def test_recorded_h200_levels_are_found_from_the_steps(recorded):
    levels = {lv.name: lv for lv in h.hierarchy_levels(recorded)}
    assert list(levels) == ["l1", "l2", "dram"]
    theoretical_shared = 132 * 128 * 1980 / 1e3  # GB/s at the clock the series ran at
    assert levels["l1"].gbps / theoretical_shared > 0.9
    assert 6_000 < levels["l2"].gbps < 10_000
    assert 3_800 < levels["dram"].gbps < 4_800
    sram = h.l1_sram_bytes(recorded)
    assert sram == 256 * 1024  # Hopper's unified L1 and shared memory per SM
    steps = {c.level: c for c in h.compare_steps(list(levels.values()), wsr.reported_sizes(recorded), sram)}
    # the L1 is the 256 KiB block minus the carve-out: its step lies below the block, not above
    assert steps["l1 vs l1+shared"].within(0.25) and steps["l1 vs l1+shared"].ratio < 1.0
    # The L2's step lies a little short of the 60 MiB the device reports (see notebook 05).
    assert steps["l2"].within(0.25) and steps["l2"].ratio < 1.0


def test_recorded_l2_level_starts_where_blocks_stop_sharing_chunks(recorded):
    slices = wsr.series_by_access(recorded, "global-cg", "slices")
    assert slices.shared_below == 792 * 16384  # 132 SMs x 6 resident blocks, one chunk each
    own = slices.own_data()
    assert min(own.sizes) >= slices.shared_below and len(own.sizes) < len(slices.sizes)
    l2 = next(lv for lv in h.hierarchy_levels(recorded) if lv.name == "l2")
    assert l2.first_bytes >= slices.shared_below
    # below it the blocks share chunks and read faster than the L2's slices serve (notebook 05)
    shared = [g for x, g in zip(slices.sizes, slices.gbps) if x < slices.shared_below]
    assert max(shared) > 1.5 * l2.gbps


def test_recorded_dram_level_agrees_with_the_lab1_read_ceiling(recorded):
    from rooflinelib.store import results
    mixes = results.dram_mixes(results.recorded("ceilings", "numba"))
    dram = next(lv for lv in h.hierarchy_levels(recorded) if lv.name == "dram")
    # Two read-only kernels, two runs, one HBM: within a few per cent.  A copy is slower (the
    # bus turns round between reads and writes); Lab 1's dram, the best mix, is at least
    # every point of the sweep's DRAM plateau, so no read lands above the roof.
    assert 0.97 * mixes["read"] <= dram.gbps <= 1.03 * mixes["read"]
    assert mixes["copy"] < dram.gbps <= dram.best_gbps <= results.recorded_h200().ceiling("dram").value


def test_recorded_sharing_blocks_make_a_large_set_look_cached(recorded):
    # With every SM reading the whole set, blocks fetch chunks together: at 100 MB, far past
    # the L2, the .cg spread series still reads much faster than the slices series.
    spread = wsr.series_by_access(recorded, "global-cg", "spread")
    slices = wsr.series_by_access(recorded, "global-cg", "slices")
    at = {s: dict(zip(x.sizes, x.gbps)) for s, x in (("spread", spread), ("slices", slices))}
    size = min(spread.sizes, key=lambda v: abs(v - 100e6))
    assert at["spread"][size] > 1.4 * at["slices"][size]


def test_recorded_machine_and_working_set_widget_state(recorded):
    from rooflinelib.store.results import recorded_h200
    m = h.machine_from_result(recorded, recorded_h200())
    assert [c.name for c in m.memory_ceilings] == ["l1", "l2", "dram", "shared"]
    levels = h.hierarchy_levels(recorded)
    curve = h.reference_curve(recorded)
    inside = hl.inside_each_level(levels)
    bound = {ws: h.working_set_state(levels, m, ws, 64, 0.25, sweep=curve).placement.binding
             for ws in inside.values()}
    assert bound == {ws: name for name, ws in inside.items()}


def test_the_l2_level_takes_lab_1s_l2_ceiling_and_keeps_the_sweeps_capacity(recorded):
    from rooflinelib.core.machines import H200
    from rooflinelib.store.results import recorded_h200
    lab1 = recorded_h200()
    levels = {lv.name: lv for lv in h.hierarchy_levels(recorded)}
    m = h.machine_from_result(recorded, lab1)
    l2 = m.ceiling("l2")
    assert l2.value == lab1.ceiling("l2").value != levels["l2"].gbps
    assert "Lab 1's l2 ceiling" in l2.source and f"{levels['l2'].gbps:,.0f} GB/s" in l2.source
    # DRAM is Lab 1's dram too (one DRAM figure for the course), the L1 keeps its plateau; a
    # datasheet machine (no measured l2) keeps them all
    assert m.ceiling("dram").value == lab1.ceiling("dram").value and m.ceiling("l1").value == levels["l1"].gbps
    assert h.machine_from_result(recorded, H200).ceiling("l2").value == levels["l2"].gbps


def test_figures_and_explorer_from_the_recorded_sweep(recorded):
    pytest.importorskip("plotly")
    pytest.importorskip("ipywidgets")
    from rooflinelib.hierarchy import plot as hp
    from rooflinelib.store.results import recorded_h200
    m = h.machine_from_result(recorded, recorded_h200())
    fig = hp.sweep_figure(recorded)
    ids = [t.meta for t in fig.data]
    assert ids[:4] == [f"series:{s['name']}" for s in recorded["series"]]
    assert {"level:l1", "level:l2", "level:dram", "capacity:l2", "reported:l2", "reported:shared"} <= set(ids)
    slices = wsr.series_by_access(recorded, "global-cg", "slices")
    marked = hp.find_trace(fig, f"shared-chunks:{slices.name}")
    assert max(marked.x) < slices.shared_below and len(marked.x) == sum(x < slices.shared_below for x in slices.sizes)
    assert not any(t.startswith("shared-chunks:") and t != f"shared-chunks:{slices.name}" for t in ids if t)
    pl = h.place_levels(h.HierarchicalKernel("ws 32 MB", 0.25 * 1.1e9, {"l1": 1.1e9, "l2": 1.1e9, "dram": 36e6},
                                             1_800.0), m)
    fig = hp.hierarchical_figure(m, [pl], peaks=m)
    ids = [t.meta for t in fig.data]
    assert {"mem:l1", "mem:l2", "mem:dram", "hier:ws 32 MB", "hier:ws 32 MB:l2", "peak:l2"} <= set(ids)
    assert "mem:shared" not in ids  # only the levels the kernel has bytes at
    inside = hl.inside_each_level(h.hierarchy_levels(recorded))
    assert list(inside) == ["l1", "l2", "dram"]
    explorer = hp.WorkingSetExplorer(recorded, m, ws_bytes=inside["l1"])
    assert explorer.state.placement.binding == "l1"
    for binding, ws in list(inside.items())[1:]:
        assert explorer.update(ws).placement.binding == binding
        marker = hp.find_trace(explorer.roofline, f"hier:working-set model:{binding}")
        assert marker.marker.line.width == 3  # the binding level is outlined
    assert explorer.update(-1) is None and "ws_bytes" in explorer.text.value


@pytest.mark.parametrize("capacities,reported,ends,names", [
    ([231e3, 10.4e6, 78.8e6, None], {"l2": 62914560, "shared": 233472}, True, ["l1", "l2-fast", "l2", "dram"]),
    ([231e3, 734e3, 10.9e6, None], {"l2": 62914560, "shared": 233472}, True, ["l1", "l2", "l3", "dram"]),
    ([50e3, 2.1e6, None], {"l1": 49152, "l2": 2097152, "l3": 314572800}, False, ["l1", "l2", "l3"]),
    ([50e3, 2.1e6, 290e6, None], {"l1": 49152, "l2": 2097152, "l3": 314572800}, True, ["l1", "l2", "l3", "dram"]),
    ([10e6, None], {}, True, ["l1", "dram"]),
    ([10e6, 70e6, None], None, False, ["l1", "l2", "l3"]),
])
def test_level_names_follow_the_reported_cache_sizes(capacities, reported, ends, names):
    assert hl.name_levels(capacities, reported, 1, ends) == names


def test_levels_within_ten_percent_bind_together():
    m, _ = machine()
    # L2 and DRAM take about as long: a streaming kernel whose L2 counter also counts the fills
    l2_s, dram_s = 1.5e9 / 12_000e9, 0.5e9 / 4_000e9
    assert abs(l2_s / dram_s - 1) < 0.1
    pl = h.place_levels(h.HierarchicalKernel("stream", 1e8, {"l1": 1e9, "l2": 1.5e9, "dram": 0.5e9}), m)
    assert pl.close in (("dram",), ("l2",))
    assert "tied with" in pl.verdict() and "within 10%" in pl.verdict()
    assert "looks memory-bound" not in pl.verdict()  # no cache lesson when DRAM binds as much


def test_the_cache_lesson_needs_reuse():
    levels = (hl.Level("l2", 5_000.0, 5_000.0, 1, 2, 1e6, 3), hl.Level("dram", 4_000.0, 4_000.0, 3, 4, None, 3))
    m = h.hierarchical_machine(levels, H200, ("fp32",))
    # L2-bound (300 us against 250 us), but the L2 moves only 1.5x the DRAM bytes: no reuse
    pl = h.place_levels(h.HierarchicalKernel("k", 1e8, {"l2": 1.5e9, "dram": 1.0e9}), m)
    assert pl.binding == "l2" and not pl.close and "looks memory-bound" not in pl.verdict()
    pl = h.place_levels(h.HierarchicalKernel("k", 1e8, {"l2": 4e9, "dram": 1.0e9}), m)
    assert "read 4 times at l2" in pl.verdict()


# --- module layout: the file format below the level detection -----------------------------------

def test_result_format_module_stands_alone_and_nothing_reexports_it():
    # hierarchy.results must not pull in the level detection or the placement (they import it,
    # so that would be an import cycle), and the file's API has one home: no other module of
    # the package re-exports it.
    probe = ("import sys, rooflinelib.hierarchy.workingset_files; "
             "print(sorted(m for m in sys.modules if m.startswith('rooflinelib.')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = set(json.loads(done.stdout.replace("'", '"')))
    assert "rooflinelib.hierarchy.workingset_files" in loaded
    assert not loaded & {"rooflinelib.hierarchy.levels", "rooflinelib.hierarchy.level_placement"}, loaded
    for module in (hl, h):
        for name in ("FORMAT", "VERSION", "DATA_DIR", "validate", "loads", "load", "save", "recorded"):
            assert not hasattr(module, name), f"{module.__name__} re-exports {name}"
    with pytest.raises(wsr.HierarchyError, match="format"):
        wsr.loads('{"format": "something-else"}', "probe.json")


def test_a_sweep_with_no_plateau_is_drawn_without_levels_and_says_why(recorded):
    # a live sweep on a busy machine: no two working sets at the same rate, nothing flat to
    # call a level (here a steady climb of 1.5x per point)
    pytest.importorskip("plotly")
    import copy

    from rooflinelib.hierarchy import plot as hp
    noisy = copy.deepcopy(recorded)
    for series in noisy["series"]:
        for i, row in enumerate(series["rows"]):
            row["gbps"] = 100.0 * 1.5 ** i
    with pytest.raises(wsr.HierarchyError, match="no plateau found"):
        h.hierarchy_levels(noisy)
    fig = hp.sweep_figure(noisy)
    ids = [t.meta for t in fig.data]
    assert ids[:len(noisy["series"])] == [f"series:{s['name']}" for s in noisy["series"]]
    assert not [i for i in ids if i and i.startswith(("level:", "capacity:"))]
    assert "no plateau stood out from the noise" in fig.layout.title.text


def test_the_hierarchy_roofs_from_lab1_say_the_l2_footprint_and_the_dram_mix(recorded):
    from rooflinelib.store import results
    machine = h.machine_from_result(recorded, results.recorded_h200())
    assert "L2 (read, 15.7 MB set)" in machine.ceiling("l2").source
    assert "DRAM (write)" in machine.ceiling("dram").source
    assert machine.ceiling("dram").value == results.recorded_h200().ceiling("dram").value
