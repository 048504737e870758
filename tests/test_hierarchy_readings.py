"""The sentences notebook 05 prints about the recorded H200 run: every figure in them must be the
one computed from the data, and the claims its prose makes about them must hold."""
import json

import pytest

from rooflinelib.hierarchy import levels as hl, ncu, placement as h, readings as hr, results as wsr


@pytest.fixture(scope="module")
def recorded():
    return wsr.recorded("h200", "numba")


@pytest.fixture(scope="module")
def sharing():
    path = ncu.recorded_csv("h200_ncu_l2_sharing.csv")
    return ncu.load_csv(path), json.loads(path.with_name("h200_ncu_l2_sharing.json").read_text())


def test_sweep_reading_quotes_the_detected_levels(recorded):
    levels = h.hierarchy_levels(recorded)
    l1, l2, dram = levels
    text = hr.sweep_reading(recorded, levels, copy_gbps=4_000.0)
    lines = text.splitlines()
    assert all(line.startswith("- ") for line in lines)
    assert f"L1: {l1.gbps / 1e3:.3g} TB/s" in lines[0] and hl.format_bytes(l1.capacity_bytes) in lines[0]
    # the L1 step is set against the 256 KiB block it shares with shared memory, not the shared size
    assert f"{l1.capacity_bytes / 262144:.2f} of the 262 kB of SRAM each SM splits" in lines[0]
    assert "carve-out" in lines[0] and "shared memory the device reports" not in lines[0]
    peak, clock = hr.shared_peak_gbps(recorded)
    assert peak == pytest.approx(132 * 128 * clock / 1e3) and f"{l1.gbps / peak:.2f} of it" in lines[0]
    assert f"L2: {l2.gbps / 1e3:.3g} TB/s" in lines[1]
    assert f"{l2.capacity_bytes / 62914560:.2f} times the 62.9 MB" in lines[1]
    assert f"reading alone runs {dram.gbps / 4_000:.2f} times as fast" in text
    assert "share chunks" in text and "no level is taken from there" in text


def test_sweep_reading_without_reported_sizes_or_copy(recorded):
    bare = dict(recorded, device={k: v for k, v in recorded["device"].items() if k != "reported_cache_bytes"})
    levels = h.hierarchy_levels(bare)
    text = hr.sweep_reading(bare, levels)
    assert "the device reports" not in text and "copy" not in text and text.count("\n- ") >= 2


def test_sharing_reading_backs_the_notebook_claims(sharing):
    kernels, records = sharing
    assert [r["ws_bytes"] // 2 ** 20 for r in records] == [1, 2, 16, 32]
    text = hr.sharing_reading(kernels, records).splitlines()
    assert len(text) == len(records) + 1 and "15.4 TB/s" in text[-1]
    peak = kernels[0].peaks().gbps["l2"]
    for kernel, record, line in zip(kernels, records, text):
        asked, served, seconds = kernel.level_bytes("l1"), kernel.level_bytes("l2"), kernel.seconds
        assert f"{served / asked:.0%} of those bytes" in line
        if record["blocks_per_chunk"] > 1:  # shared chunks: the SMs read above the slices' peak
            assert served / asked < 0.6 and asked / seconds / 1e9 > peak
        else:  # chunks of their own: the slices serve every byte, well under their peak
            assert 0.95 < served / asked < 1.05 and served / seconds / 1e9 < 0.7 * peak


def test_ncu_reading_quotes_the_agreement_table():
    kernels = ncu.load_csv(ncu.recorded_csv())
    analytic = json.loads(ncu.recorded_csv().with_name("h200_ncu_lab4_analytic.json").read_text())
    rows = ncu.compare(kernels, analytic)
    text = hr.ncu_reading(rows)
    assert text.startswith("- FLOPs: 6 launches, every count exact.")
    writes = [a for a in rows if a.quantity == "DRAM write bytes" and "64 MiB" in a.kernel]
    assert f"the writes alone {100 * writes[0].gap:+.2f}%" in text
    assert hr.ncu_reading([]) == ""


def test_looks_memory_bound_reading_of_the_working_set_read(recorded):
    from rooflinelib.results import recorded_h200
    machine = h.machine_from_result(recorded, recorded_h200())
    kernels = ncu.load_csv(ncu.recorded_csv())
    analytic = json.loads(ncu.recorded_csv().with_name("h200_ncu_lab4_analytic.json").read_text())
    placements = [h.place_levels(k.hierarchical(r["name"]), machine) for k, r in zip(kernels, analytic)]
    ws = next(p for p in placements if p.name.startswith("ws_read"))
    text = hr.looks_memory_bound_reading(ws, machine)
    dram = ws.point("dram")
    assert f"I = {dram.intensity:.3g} FLOP/byte, left of the ridge ({machine.ridge('fp32', 'dram'):.3g})" in text
    assert "bound by l2" in text
    sweep = hr.looks_memory_bound_reading(placements[1], machine)  # K = 8 on 1 GiB: DRAM-bound
    assert sweep.endswith("Against every level: bound by dram.")


def test_lts_by_source_reading_splits_the_l2_bytes_of_the_recorded_run():
    record = hr.recorded_lts_by_source()
    assert "2026-12-01" in record["what"] and "H200" in record["what"]
    sweeps, ws = hr.lts_by_source_reading(record).splitlines()
    # the 1 GiB sweeps: what the SMs asked for, plus the fabric's bytes, about the DRAM reads
    assert sweeps.startswith("- 1 GiB sweeps (4 launches): lts__t_bytes 3.24 GB to 3.33 GB = 2.15 GB from the SMs")
    assert "(as much as l1tex__t_bytes)" in sweeps and "1.08 GB to 1.1 GB from the fabric" in sweeps
    assert "DRAM reads 1.07 GB: the fabric's bytes are 1.01 to 1.02 times the DRAM reads" in sweeps
    assert "848 MB = 819 MB from the SMs + 30.8 MB from the fabric" in ws
    assert "l1tex" not in ws  # the working-set read's SM bytes differ from its L1 bytes
    assert "DRAM reads 34.6 MB: the fabric's bytes are 0.89 times" in ws
    # a group with no rows says nothing, and a missing DRAM read gives no ratio
    only = {"rows": [dict(r, dram_read_bytes=0.0) for r in record["rows"] if r["kernel"].startswith("ws_read")]}
    text = hr.lts_by_source_reading(only)
    assert len(text.splitlines()) == 1 and "times the DRAM reads" not in text
