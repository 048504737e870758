"""Notebook 03's tables and its worked placement, so that its cells stay a few lines.

* :func:`lesson_table`: the few ceilings the lesson argues from (the three DRAM mixes, the L2,
  the fp32 and fp64 FMA loops, one tensor-core row), each beside the datasheet's figure where
  there is one, with its spread.
* :func:`full_tables`: every row Lab 1 recorded, as ``roofline measure`` prints them, and the
  full comparison with the datasheet.  The notebook's appendix
  (``docs/appendix-03-ceilings.md``) prints this for the recorded H200 run.
* :func:`place_on_own_mix`: Lab 2's five steps for a measured kernel, against the DRAM roof of
  the kernel's own access mix, with step 5 saying how far the kernel sits under that roof.
"""
from __future__ import annotations

from rooflinelib.core import placement
from rooflinelib.core.machines import H200
from rooflinelib.core.vocabulary import BF16_TENSOR
from rooflinelib.store import results
from rooflinelib.views import tables
from rooflinelib.lessons.pitfalls import own_dram_mix

#: The rows the lesson reads, in the order it reads them.
LESSON_ROWS = ("dram-read", "dram-write", "dram-copy", "l2", "fp32", "fp64", BF16_TENSOR)
#: The vendor figure each row is set against (the DRAM mixes all against the one printed rate).
DATASHEET_OF = {"dram-read": "dram", "dram-write": "dram", "dram-copy": "dram"}


def _percent(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


LESSON_COLUMNS = (
    tables.Column("name", "ceiling", align="<"),
    tables.Column("unit", "unit", align="<"),
    tables.Column("measured", "measured", tables.number),
    tables.Column("datasheet", "vendor figure", tables.number),
    tables.Column("fraction", "measured / vendor", _percent),
    tables.Column("iqr", "IQR / median", _percent),
)


def _is_h200(lab1) -> bool:
    name = str((lab1.machine.provenance or {}).get("name", "")) + " " + lab1.machine.name
    return "H200" in name


def lesson_rows(lab1, names=LESSON_ROWS) -> list:
    """The rows of :data:`LESSON_ROWS` that ``lab1`` (a :func:`rooflinelib.modes.ceilings_for`
    answer) measured: value, unit, the H200 datasheet's figure where it prints one and the
    machine is an H200, the share of it, and the IQR of the trials (None where not recorded)."""
    if lab1.result is not None:
        recorded = {c["name"]: c for c in lab1.result.get("ceilings", ())}
    else:
        recorded = {c.name: {"name": c.name, "value": c.value, "unit": c.unit} for c in lab1.machine.ceilings}
    datasheet = H200 if _is_h200(lab1) else None
    if names == LESSON_ROWS and not any(n in recorded for n in DATASHEET_OF):
        names = ("dram",) + tuple(n for n in names if n not in DATASHEET_OF)  # a run without the mixes
    rows = []
    for name in names:
        if name not in recorded:
            continue
        c = recorded[name]
        key = DATASHEET_OF.get(name, name)
        reference = datasheet.ceiling(key).value if datasheet is not None and datasheet.has(key) else None
        rows.append({"name": name, "unit": c["unit"], "measured": float(c["value"]), "datasheet": reference,
                     "fraction": None if reference is None else float(c["value"]) / reference,
                     "iqr": c.get("iqr"), "noisy": bool(c.get("noisy"))})
    return rows


#: Where the H200's vendor figures come from, printed under the lesson table (review 32b): the
#: compute figures are the Hopper white paper's, not the H200 datasheet's (see ``machines.py``).
VENDOR_SOURCES = ("vendor figure: DRAM from the H200 datasheet; fp32, fp64 and bf16 from NVIDIA's Hopper "
                  "white paper (H100 SXM5, the same GH100 configuration); the H200 datasheet prints 67 / 34 "
                  "TFLOP/s and its tensor figures only with sparsity")


def lesson_table(lab1) -> str:
    """:func:`lesson_rows` as the notebook prints them, where the vendor figures come from (on an
    H200), then each DRAM mix's ridge."""
    rows = lesson_rows(lab1)
    for row in rows:
        if row["noisy"]:
            row["name"] += " (NOISY)"
    text = tables.render(rows, LESSON_COLUMNS)
    if any(row["datasheet"] is not None for row in rows):
        text += "\n" + VENDOR_SOURCES
    if lab1.result is not None:
        mixes = results.dram_mixes(lab1.result)
        peak = lab1.machine.ceiling("fp32").value
        if mixes:
            text += "\n\neach mix's ridge, fp32 / mix: " + ", ".join(
                f"{mix} {peak / gbps:.2f} FLOP/byte" for mix, gbps in mixes.items())
    return text


def full_tables(result) -> str:
    """Every ceiling a Lab 1 result holds (the table ``roofline measure`` prints, its record
    folded into the title line), then each one beside the H200 datasheet's figure."""
    machine = results.to_machine(result)
    return (tables.ceilings_table(result, record=False) + "\n\n"
            + tables.render(tables.compare_rows(machine, H200), tables.COMPARE_COLUMNS))


def own_mix_roof(lab1, read_bytes: float, write_bytes: float):
    """``(memory, roofline)``: the DRAM ceiling of a kernel's own access mix (``dram-read``,
    ``dram-write`` or ``dram-copy``; ``dram`` where Lab 1 measured no such mix or the mix is the
    fastest one) and the fp32 roofline with it."""
    if lab1.result is None:
        return "dram", lab1.machine.roofline("fp32", "dram")
    drawn, names = results.mix_roofs(lab1.result, lab1.machine.name)
    mix = own_dram_mix(read_bytes=read_bytes, write_bytes=write_bytes)
    memory = f"dram-{mix}" if f"dram-{mix}" in names else "dram"
    return memory, drawn.roofline("fp32", memory)


def place_on_own_mix(variant, lab1, name: str = "fused softmax", read_share: float = 0.5) -> str:
    """Lab 2's five steps for a measured kernel (``variant``: an experiment's variant with
    ``n_flops``, ``n_bytes`` and ``median_s``) against the fp32 roof and the DRAM roof of its own
    mix (``read_share`` of its bytes read; the softmax reads each element once and writes it
    once: 0.5, the copy's mix).  Step 5 says how far under that roof the kernel sits, not that
    it is optimal; the last line scores it against ``dram``, the fastest mix, for contrast."""
    reads = variant.n_bytes * read_share
    memory, roof = own_mix_roof(lab1, reads, variant.n_bytes - reads)
    mix = memory.split("-", 1)[1] if "-" in memory else "dram"
    label = "" if memory == "dram" else f" (the {mix} mix)"
    lines = [f"its roof: fp32 and {memory}{label}, {roof.peak_gbps:,.0f} GB/s"]
    steps = placement.five_steps(name, variant.n_flops, variant.n_bytes, variant.median_s, roof,
                                 machine_name=lab1.machine.name)
    for step, found in steps[:4]:
        lines.append(f"{step}: {found}")
    verdict = roof.classify(variant.n_flops / variant.n_bytes, variant.n_flops / variant.median_s / 1e9)
    share = verdict.fraction_of_roof
    where = f", about {100 - round(100 * share)}% under the {mix} roof" if 0.8 <= share <= 1 else ""
    situation = next((s for s, _, key in placement.DECISION_TABLE if key == _key(verdict)),
                     "above its roof: recheck the counts and units")
    lines.append(f"5. compare and act: {100 * share:.0f}% of the roof, {verdict.bound}{where}. "
                 f"Row: {situation}. Next: {verdict.advice}")
    if memory != "dram" and lab1.result is not None:
        fastest = results.mix_roofs(lab1.result, lab1.machine.name)[0].ceiling("dram").value
        achieved = variant.n_bytes / variant.median_s / 1e9
        lines.append(f"against dram, the fastest mix ({fastest:,.0f} GB/s), not its own: {achieved / fastest:.0%}")
    return "\n".join(lines)


def _key(verdict) -> str:
    return verdict.status if verdict.status in ("far-below", "above-roof") else verdict.side
