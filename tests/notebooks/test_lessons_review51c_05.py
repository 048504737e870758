"""Review 51c of notebook 05 and its appendix: the fabric's bytes between the L2's halves are no general
"about the DRAM reads" (the recorded read-only and write-only kernels say half the DRAM traffic), ws_read's
89% mixes two ncu runs, the L1's firm upper bound, and the notebook's imprecisions and clarity items.  Each
test fails on the text before the fix."""
import pathlib

from test_lessons_03 import appendix, cells, markdown, outputs, words
from test_lessons_review36_05 import NB, PAGE, _lesson, _md

from rooflinelib.hierarchy import level_readings as hr

ROOT = pathlib.Path(__file__).resolve().parents[2]
FACTS = ROOT / "docs" / "h200-facts.md"


def _rows(prefix, big=True):
    rows = [r for r in hr.recorded_lts_by_source()["rows"] if r["kernel"].startswith(prefix)]
    return [r for r in rows if (r["l1tex_bytes"] >= 2 ** 30) == big]


def _span(values, fmt="{:.2f}"):
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    return lo if lo == hi else f"{lo} to {hi}"


def test_the_fabrics_bytes_are_said_per_kernel_not_as_the_dram_reads():
    page, facts = words(appendix(PAGE)), words(FACTS.read_text(encoding="utf-8"))
    for wrong in ("about as large as a kernel's DRAM reads", "the fabric's bytes match the DRAM reads"):
        assert wrong not in page, wrong
    assert "about the size of the DRAM reads" not in facts
    sweeps, check, fill = _rows("sweep"), _rows("count_mismatches"), _rows("fill")
    assert len(sweeps) == len(check) == len(fill) == 4
    # the sweeps read and write equal amounts: half their DRAM traffic is (about) their reads
    traffic = [r["lts_from_fabric_bytes"] / (r["dram_read_bytes"] + r["dram_write_bytes"]) for r in sweeps]
    assert f"bytes are {_span(traffic)} times the DRAM traffic (reads and writes)" in page
    # read only: half the reads, not the reads
    reads = [r["lts_from_fabric_bytes"] / r["dram_read_bytes"] for r in check]
    assert all(r["dram_write_bytes"] < 0.01 * r["dram_read_bytes"] for r in check)
    assert f"{_span(reads)} times the DRAM reads" in page and 0.49 < min(reads) and max(reads) < 0.52
    writes = [r["lts_from_fabric_bytes"] / r["dram_write_bytes"] for r in fill]
    assert all(r["dram_read_bytes"] < 1e-3 * r["dram_write_bytes"] for r in fill)
    assert f"{_span(writes)} times the DRAM writes" in page
    ws = _rows("ws_read", big=False)[0]
    assert f"are {ws['lts_from_fabric_bytes'] / ws['dram_read_bytes']:.2f} times the DRAM reads" in page
    assert "No rule covering both was established" in page
    # the facts page says the same, from the same file
    assert f"{min(traffic):.2f}-{max(traffic):.2f} of the sweeps' reads and writes" in facts
    assert f"{_span(reads)} of the lab's read-only check, {_span(writes)} of its write-only fill" in facts
    assert f"{ws['lts_from_fabric_bytes'] / ws['dram_read_bytes']:.2f} of `ws_read`'s DRAM reads" in facts
    assert "no rule covering both was established" in facts


def test_ws_reads_89_percent_says_it_mixes_two_runs():
    lesson = _lesson()
    ws = _rows("ws_read", big=False)[0]
    roof = lesson.machine.ceiling("l2").value * 1e9
    own = ws["lts_from_sm_bytes"] / ws["seconds"]
    page = words(appendix(PAGE))
    assert (f"own `ws_read` launch took {ws['seconds'] * 1e6:.2f} µs, and over it the 819 MB give "
            f"{own / 1e12:.2f} TB/s, {own / roof:.0%}") in page
    assert f"{own / roof:.0%}" == "87%"


def test_the_l1_step_hypothesis_has_its_firm_bound():
    page = words(appendix(PAGE))
    blocks, reserve_kib = 6, 1  # blocks per SM (the series table); CUDA's reserve per block on cc 8.x/9.0
    carveouts_kib = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)  # Hopper's shared-memory sizes
    smallest = min(c for c in carveouts_kib if c >= blocks * reserve_kib)
    l1_kib = 256 - smallest
    assert "Blocks per SM, all resident at once: 6 for every global series" in page
    assert (f"six blocks per SM need {blocks * reserve_kib} KiB, and the smallest Hopper carve-out that holds it is "
            f"{smallest} KiB: the L1 is at most {l1_kib} KiB ({l1_kib * 1024 / 1e3:.0f} kB), above the step") in page
    assert l1_kib * 1024 / 1e3 > 232


# --- the notebook ---------------------------------------------------------------------------------------------

def test_cell_19_says_ws_read_does_not_share_fetches_not_that_it_could_not():
    text = " ".join(_md("9437f8c3").split())
    assert "beat the L2 roof by sharing fetches? No:" not in text
    lesson = _lesson()
    placed = lesson.placement("ws_read")
    share = placed.point("l2").n_bytes / placed.point("l1").n_bytes
    assert (f"Does `ws_read`, like the open circles, share fetches? Hardly: {share:.0%} of the bytes its SMs loaded came "
            "through the L2; a kernel built to share them might beat its L2 roof") in text
    # the appendix section it links holds the untested ways to share them
    assert "## `ws_read`: ways to cut its L2 traffic (untested)" in appendix(PAGE)


def test_cell_22_is_split_in_plain_sentences():
    text = _md("cc5a9b48")
    assert "the L1's counts" not in text
    assert "out of reach. The L1's counter counts 512 B per clock per SM, of which loads get 128. No kernel tried" in text


def _sharing_shares():
    from rooflinelib.hierarchy import ncu
    from rooflinelib.store.fileio import read_json
    path = ncu.recorded_csv("h200_ncu_l2_sharing.csv")
    kernels, records = ncu.load_csv(path), read_json(path.with_name("h200_ncu_l2_sharing.json"), ValueError, "")
    return [r for r in hr.sharing_rows(kernels, records) if r["blocks_per_chunk"] > 1]


def test_cell_7_says_what_the_counters_show_and_labels_sharing_a_hypothesis():
    text = " ".join(_md("c7621aef").split())
    assert "the SMs receive more bytes than the L2 sends" not in text
    rows = _sharing_shares()
    shares, sizes = [r["slices_share"] for r in rows], sorted(r["ws_bytes"] // 2 ** 20 for r in rows)
    assert max(shares) < 0.5
    assert (f"the L2 serves under half their loaded bytes ({min(shares) * 100:.0f}–{max(shares):.0%} at "
            f"{sizes[0]}–{sizes[-1]} MB), we suppose because reads of one line **share fetches**") in text


def test_the_markdown_word_count_stays_capped():
    assert sum(len(c.source.split()) for c in cells(NB) if c.cell_type == "markdown") <= 1482
