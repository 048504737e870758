"""Every Numba-CUDA measurement kernel, run in the CUDA simulator at tiny sizes.

The simulator must be on before numba is imported, so the kernels run in a subprocess
(tests/support/sim_measure_kernels.py) that counts the FMAs, exp2s and 16-byte accesses each kernel
really performs; here we check its results bit for bit and that the counts equal what
rooflinelib.measure.accounting says the kernel does.
"""
import json
from pathlib import Path

import pytest

from support import simulated

pytest.importorskip("numba_cuda")

HELPER = Path(__file__).parents[1] / "support" / "sim_measure_kernels.py"


@pytest.fixture(scope="module")
def records():
    done = simulated.run(script=HELPER)
    assert done.returncode == 0, done.stderr[-2000:]
    out = {}
    for line in done.stdout.splitlines():
        rec = json.loads(line)
        out[rec["name"]] = rec
    return out


EXPECTED = ["copy x1", "copy x2", "copy x4", "dram_read x2", "dram_read x4", "dram_write x1",
            "dram_write x4", "fill_read", "count_write_mismatches", "fma_peak fp32", "fma_peak fp64", "sweep k=0",
            "sweep k=1", "sweep k=3", "sweep k=64", "sweep k=70", "sweep k=130",
            "sweep_pipelined k=0", "sweep_pipelined k=1", "sweep_pipelined k=70",
            "l2_slab", "shared_read", "sfu", "fill",
            "count_mismatches"]


@pytest.mark.slow
def test_every_kernel_ran(records):
    assert sorted(records) == sorted(EXPECTED)


@pytest.mark.parametrize("name", EXPECTED)
def test_kernel_result_is_exact(records, name):
    rec = records[name]
    assert rec["ok"] is True, rec


@pytest.mark.parametrize("name", ["copy x1", "copy x2", "copy x4", "dram_read x2", "dram_read x4",
                                  "dram_write x1", "dram_write x4", "sweep k=0", "sweep k=1",
                                  "sweep k=3", "sweep k=64", "sweep k=70", "sweep k=130",
                                  "sweep_pipelined k=0", "sweep_pipelined k=1",
                                  "sweep_pipelined k=70", "l2_slab",
                                  "shared_read"])
def test_bytes_counted_equal_bytes_accounted(records, name):
    rec = records[name]
    assert rec["counted_bytes"] == rec["n_bytes"] > 0


@pytest.mark.parametrize("name", ["fma_peak fp32", "fma_peak fp64", "sweep k=1", "sweep k=3",
                                  "sweep k=64", "sweep k=70", "sweep k=130",
                                  "sweep_pipelined k=1", "sweep_pipelined k=70", "sfu"])
def test_flops_counted_equal_flops_accounted(records, name):
    rec = records[name]
    assert rec["counted_flops"] == rec["n_flops"] > 0


def test_copy_and_k0_do_no_arithmetic(records):
    for name in ("copy x1", "dram_read x4", "dram_write x1", "sweep k=0"):
        assert records[name]["counts"]["fma"] == 0
        assert records[name].get("n_flops", 0) == 0


def test_sweep_intensity_is_k_over_4(records):
    for k in (0, 1, 3, 64, 70, 130):
        assert records[f"sweep k={k}"]["intensity"] == k / 4


def test_fma_peak_runs_in_its_own_precision(records):
    assert records["fma_peak fp32"]["dtype"] == "float32"
    assert records["fma_peak fp64"]["dtype"] == "float64"


def test_mismatch_kernel_counts_planted_differences(records):
    assert records["count_mismatches"]["count"] == 3
    assert records["count_write_mismatches"]["count"] == 3


def test_dram_read_stores_one_vector_per_block(records):
    # the lane sums leave through one 16-byte store per block (2 blocks), whatever the tail
    for unroll in (2, 4):
        assert records[f"dram_read x{unroll}"]["stores"] == 2


@pytest.mark.slow
def test_numba_engine_plumbing_in_the_simulator():
    """The engine's launch shapes, poisoning, checks and bookkeeping, end to end on a pretend
    one-SM GPU in the simulator (timing is faked there: the simulator has none)."""
    done = simulated.run(script=HELPER.with_name("sim_measure_engine.py"))
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(out["ceilings"]) == ["dram", "dram-copy", "dram-read", "dram-write", "fp32", "fp64", "l2",
                                       "pcie-d2h", "pcie-h2d", "sfu", "shared"]
    # the link copies: pinned and pageable both ways, verified, on two sets of buffers shared by
    # both directions
    for name in ("pcie-h2d", "pcie-d2h"):
        tried = out["details"][name]["configs_tried"]
        assert [(t["host_memory"], t["bytes"]) for t in tried] == [("pinned", 16384), ("pageable", 4096)]
        assert all(t["verified"] for t in tried)
        assert out["details"][name]["config"]["host_memory"] == "pinned"
    assert out["link_buffers"] == 2
    assert all(c["verified"] for c in out["ceilings"].values())
    copy = out["details"]["dram-copy"]
    assert copy["n_bytes"] == 2 * copy["config"]["buffer_bytes"]
    assert [r["verified"] for r in out["sweep"]] == [True] * 6
    assert len(copy["configs_tried"]) == 2
    # the read and the write each stream two buffers' worth, every configuration verified
    for mix in ("read", "write"):
        d = out["details"][f"dram-{mix}"]
        assert d["n_bytes"] == d["config"]["buffer_bytes"] == copy["n_bytes"]
        assert len(d["configs_tried"]) == 2 and all(t["verified"] for t in d["configs_tried"])
    # dram is the best mix (the fake timing gives every mix the same time: equal bytes, so a
    # tie, taken by the first) and says which it is
    dram = out["details"]["dram"]
    assert dram["mix"] in ("read", "write", "copy") and dram["mix_ceiling"] == f"dram-{dram['mix']}"
    assert dram["mixes"] == {mix: out["ceilings"][f"dram-{mix}"]["value"] for mix in ("read", "write", "copy")}
    assert out["ceilings"]["dram"]["value"] == max(dram["mixes"].values())
    # each default sweep point ran, and verified, every configured launch shape in the simulator
    for k, d in out["sweep_chosen"].items():
        tried = d["configs_tried"]
        assert [t["vectors_per_thread"] for t in tried] == [1, 16]
        assert all(t["verified"] and t["gbps"] > 0 for t in tried)
        assert [t["kernel"] for t in tried] == [f"sweep<{k}>", f"sweep_pipelined<{k}>"]
        assert d["config"]["vectors_per_thread"] in (1, 16) and d["config"]["k"] == int(k)
    # the L2 ceiling: many short blocks, each reading `iters` whole 16 KiB chunks of its group,
    # every working set tried, bytes from the accounting
    l2 = out["details"]["l2"]
    assert "l2_slab" in l2["kernel"] and "ld.global.cg" in l2["kernel"]
    assert sorted(c["working_set_bytes"] for c in l2["configs_tried"]) == [2 * 16384, 4 * 16384]
    assert l2["n_bytes"] == l2["config"]["grid"] * l2["config"]["iters"] * 16384 > 0
    assert l2["config"]["grid"] % l2["config"]["groups"] == 0
    # the L2 ceiling names the footprint it holds for, in its details and the result's notes
    assert l2["footprint_bytes"] == l2["config"]["working_set_bytes"] in (2 * 16384, 4 * 16384)
    [note] = [n for n in out["notes"] if n.startswith("l2: ")]
    assert "0.0 MB to 0.1 MB" in note and f"at {l2['footprint_bytes'] / 1e6:.1f} MB" in note
    # the progress lines name every measured configuration
    assert any("l2_slab" in line for line in out["progress"])


def test_l2_kernel_stores_once_per_block(records):
    assert records["l2_slab"]["stores"] == records["l2_slab"]["grid"]
