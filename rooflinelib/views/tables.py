"""Plain-text tables for the notebooks: every figure computed by rooflinelib, then printed.

Plain text, not HTML, because nbval compares the notebooks' stored outputs as text: a table that
prints the same characters every run is a table CI can check.  Each ``*_table`` function
returns rows (dicts); :func:`render` turns rows into aligned text.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from rooflinelib.core import operators
from rooflinelib.views.ascii_plot import format_number
from rooflinelib.core.machines import DATASHEET_MACHINES, ridge_table
from rooflinelib.core.vocabulary import FP32_MATRIX


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    fmt: Callable = str  # value -> text
    align: str = ">"  # ">" right, "<" left


def number(value) -> str:
    """format_number, with '-' for a missing value."""
    return "-" if value is None else format_number(value)


def sig(digits: int) -> Callable:
    return lambda value: "-" if value is None else f"{value:.{digits}g}"


def render(rows, columns) -> str:
    """Rows of dicts as an aligned text table with a header and a rule under it."""
    cells = [[column.fmt(row[column.key]) for column in columns] for row in rows]
    widths = [max([len(column.header)] + [len(r[i]) for r in cells]) for i, column in enumerate(columns)]

    def line(values):
        return "  ".join(f"{v:{c.align}{w}}" for v, c, w in zip(values, columns, widths)).rstrip()

    out = [line([c.header for c in columns]), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    return "\n".join(out)


# --- operator intensities --------------------------------------------------------------------

OPERATOR_COLUMNS = (
    Column("operator", "operator", align="<"),
    Column("dtype", "dtype", align="<"),
    Column("n_flops", "FLOPs", lambda v: f"{v:.4g}"),
    Column("n_bytes", "bytes", lambda v: f"{v:.4g}"),
    Column("level", "counted at", align="<"),
    Column("intensity", "FLOP/byte", sig(4)),
)


def operator_rows(**sizes) -> list:
    """The catalogue's operator table (see :func:`rooflinelib.core.operators.operator_table`)."""
    return operators.operator_table(**sizes)


def place_rows(kernels, machine, memory: str = "dram") -> list:
    """Each kernel against the compute ceiling its dtype runs on (fp32 vector for fp32 work,
    the tensor roof for bf16 and below): intensity, that ridge, the roof and the verdict."""
    rows = []
    for k in kernels:
        ceiling = operators.GEMM_CEILING[k.dtype]
        roofline = machine.roofline(ceiling, memory)
        verdict = roofline.classify(k.intensity)
        rows.append({"operator": k.name, "intensity": k.intensity, "ceiling": ceiling,
                     "ridge": roofline.ridge, "roof_gflops": verdict.roof_gflops,
                     "side": verdict.bound, "ridge_over_i": roofline.ridge / k.intensity})
    return rows


PLACE_COLUMNS = (
    Column("operator", "operator", align="<"),
    Column("intensity", "FLOP/byte", sig(4)),
    Column("ceiling", "against", align="<"),
    Column("ridge", "ridge", sig(4)),
    Column("roof_gflops", "roof GFLOP/s", number),
    Column("side", "verdict", align="<"),
    Column("ridge_over_i", "ridge / I", sig(3)),
)


# --- ridges ----------------------------------------------------------------------------------

RIDGE_COLUMNS = (
    Column("machine", "machine", align="<"),
    Column("memory_gbps", "HBM GB/s", number),
    Column("ceiling", "compute ceiling", align="<"),
    Column("peak_gflops", "GFLOP/s", number),
    Column("ridge", "ridge FLOP/byte", sig(4)),
)


def ridge_rows(machines=DATASHEET_MACHINES, names=None) -> list:
    """machines.ridge_table, optionally only the ceilings in ``names``."""
    rows = ridge_table(machines)
    return [r for r in rows if names is None or r["name"] in names]


# --- GEMM ------------------------------------------------------------------------------------

GEMM_COLUMNS = (
    Column("machine", "machine", align="<"),
    Column("dtype", "dtype", align="<"),
    Column("ceiling", "ceiling", align="<"),
    Column("bytes", "bytes per element"),
    Column("ridge", "ridge", sig(4)),
    Column("smallest_n", "smallest N at the ridge"),
)


def gemm_threshold_rows(machine, dtypes=("fp32", ("fp32", FP32_MATRIX), "tf32", "bf16", "fp16", "fp8")) -> list:
    """Per precision: the ridge of its GEMM ceiling and the smallest N with 2N/(3e) >= ridge (e bytes per element).

    An entry of ``dtypes`` is a dtype, scored against its usual ceiling
    (:data:`operators.GEMM_CEILING`), or a (dtype, ceiling) pair: fp32 has two roofs on a GPU
    with fp32 matrix units (the MI300X), and a row appears only where the machine has the roof."""
    rows = []
    for entry in dtypes:
        dtype, ceiling = (entry, operators.GEMM_CEILING[entry]) if isinstance(entry, str) else entry
        if not machine.has(ceiling):
            continue
        r = machine.ridge(ceiling)
        rows.append({"machine": machine.name, "dtype": dtype, "ceiling": ceiling,
                     "bytes": operators.dtype_bytes(dtype), "ridge": r,
                     "smallest_n": operators.smallest_compute_bound_gemm_n(r, dtype)})
    return rows


# --- attention -------------------------------------------------------------------------------

ATTENTION_COLUMNS = (
    Column("s", "s"),
    Column("unfused", "unfused FLOP/byte", sig(4)),
    Column("fused", "fused FLOP/byte", sig(5)),
    Column("fused_over_s", "fused / s", sig(4)),
)


def attention_rows(d: int = 128, dtype: str = "bf16", lengths=(512, 2048, 8192, 32768)) -> list:
    rows = []
    for s in lengths:
        fused = operators.attention(s, d, fused=True, dtype=dtype).intensity
        rows.append({"s": s, "unfused": operators.attention(s, d, fused=False, dtype=dtype).intensity,
                     "fused": fused, "fused_over_s": fused / s})
    return rows


CROSSOVER_COLUMNS = (
    Column("machine", "machine", align="<"),
    Column("ridge", "bf16 ridge", sig(4)),
    Column("unfused_limit", "unfused limit", sig(4)),
    Column("unfused_s", "unfused crosses at s", lambda v: "never" if v is None else str(v)),
    Column("fused_s", "fused crosses at s"),
)


def attention_crossover_rows(machines=DATASHEET_MACHINES, d: int = 128, dtype: str = "bf16") -> list:
    rows = []
    for m in machines:
        ceiling = operators.GEMM_CEILING[dtype]
        if not m.has(ceiling):
            continue
        r = m.ridge(ceiling)
        cross = operators.attention_fusion_crossover(r, d, dtype)
        rows.append({"machine": m.name, "ridge": r, "unfused_limit": cross["unfused_limit"],
                     "unfused_s": cross["unfused_s"], "fused_s": cross["fused_s"]})
    return rows


# --- the tile sweep (notebook 02) ------------------------------------------------------------

def tile_rows(machines, n: int = 4096, tiles=(1, 2, 4, 8, 16, 32, 64, 128)) -> list:
    """Per tile b: the tiled GEMM's intensity and its fp32 roof on each machine."""
    rows = []
    for b in tiles:
        op = operators.gemm_tiled(n, b, "fp32")
        row = {"tile": b, "intensity": op.intensity}
        for m in machines:
            roofline = m.roofline("fp32", "dram")
            row[m.name] = roofline.attainable_gflops(op.intensity)
            row[m.name + " side"] = roofline.side(op.intensity)
        rows.append(row)
    return rows


def tile_columns(machines) -> tuple:
    columns = [Column("tile", "b"), Column("intensity", "FLOP/byte", sig(4))]
    for m in machines:
        columns.append(Column(m.name, f"{m.name} GFLOP/s", number))
        columns.append(Column(m.name + " side", "", lambda v: {"memory": "slope", "ridge": "ridge",
                                                              "compute": "ROOF"}[v], "<"))
    return tuple(columns)


# --- measured experiments --------------------------------------------------------------------

def _time(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


VARIANT_COLUMNS = (
    Column("name", "variant", align="<"),
    Column("median_s", "median time", _time),
    Column("gbps", "GB/s", lambda v: "-" if v is None else number(v)),
    Column("gflops", "GFLOP/s", lambda v: "-" if v is None else number(v)),
    Column("spread", "spread", lambda v: f"{100 * v:.0f}%"),
)


def variant_rows(experiment) -> list:
    """One row per variant: its median time, and the rates its counts give (None when 0)."""
    return [{"name": v.name, "median_s": v.median_s, "spread": v.spread,
             "gbps": v.gbps if v.n_bytes else None, "gflops": v.gflops if v.n_flops else None}
            for v in experiment.variants]


def experiment_text(experiment) -> str:
    """The experiment's table with a heading line giving the device and the backend."""
    head = f"{experiment.title} - {experiment.device.get('name', '?')}, {experiment.backend} backend"
    text = head + "\n" + render(variant_rows(experiment), VARIANT_COLUMNS)
    noisy = [v for v in experiment.variants if (v.extra or {}).get("noisy")]
    if noisy:
        text += (f"\nNOISY: {len(noisy)} of {len(experiment.variants)} rows judged their own trials noisy; "
                 "re-run this cell when no other program is busy before comparing them:")
        text += "".join(f"\n  {v.name}: {v.extra.get('noise') or 'noisy'}" for v in noisy)
    return text


# --- measured against datasheet --------------------------------------------------------------

COMPARE_COLUMNS = (
    Column("name", "ceiling", align="<"),
    Column("unit", "unit", align="<"),
    Column("measured", "measured", number),
    Column("datasheet", "datasheet", number),
    # one decimal: fp64's 99.5% must not print as 100%, above fp32's 98% (review 6b, C03-6)
    Column("fraction", "measured / datasheet", lambda v: "-" if v is None else f"{100 * v:.1f}%"),
    Column("basis", "datasheet figure", align="<"),
)


def compare_rows(measured, datasheet) -> list:
    """Each measured ceiling beside the datasheet's ceiling of the same name (None if absent).

    ``basis`` says whether the vendor prints that figure on the datasheet, or where else it comes
    from (its source's words before the colon: "derived ..." or another document), so a derived
    or borrowed row is never read as a printed one.
    """
    rows = []
    for c in measured.ceilings:
        reference = datasheet.ceiling(c.name) if datasheet.has(c.name) else None
        basis = "-" if reference is None else (
            reference.source.split(":")[0] if ":" in reference.source else "printed")
        rows.append({"name": c.name, "unit": c.unit, "measured": c.value,
                     "datasheet": None if reference is None else reference.value,
                     "fraction": None if reference is None else c.value / reference.value, "basis": basis})
    return rows


# ---------------------------------------------------------------------------------------------
# the tables of Labs 1 and 3 (``roofline measure`` and ``roofline sweep`` print them)


def _fmt(value):
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"


def ceilings_table(result, record: bool = True) -> str:
    """Lab 1's table of a ceilings result: each ceiling with its spread, the timing rule its
    rate was computed by, and whether it was verified; then the ridge and the notes.

    The ``rule`` column ("median" or "best" of the timed trials) is shown when the result's
    details record it; results written before the rule was recorded all used the median, and
    their table keeps its old columns.  ``record=False`` folds the run's record into the title
    line, the date and (on a GPU) the SM clock at the start and the end of the run: a lesson
    reads only the clock, and the driver, temperature and power stay in the result file.
    """
    dev = result["device"]
    scope = "CPU roofline" if result["scope"] == "cpu" else "GPU roofline"
    before, after = dev.get("before", {}), dev.get("after", {})
    if not record:
        clock = (f"; SM clock {before.get('sm_clock_mhz', '?')} MHz at the start, "
                 f"{after.get('sm_clock_mhz', '?')} at the end") if result["scope"] == "gpu" else ""
        lines = [f"Ceilings of {dev['name']}  [{scope}, {result['backend']} backend, "
                 f"{str(result['created'])[:10]}{clock}]"]
    else:
        lines = [f"Ceilings of {dev['name']}  [{scope}, {result['backend']} backend, {result['created']}]"]
    if record and result["scope"] == "gpu":
        # the driver's own version (580.x) and the CUDA version it supports (13.0) are two numbers
        driver, cuda = before.get("driver"), dev.get("cuda_driver", before.get("cuda_driver"))
        version = (f"{driver} (CUDA {cuda})" if driver and cuda else
                   driver or (f"supporting CUDA {cuda}" if cuda else "?"))
        lines.append(f"  driver {version}, "
                     f"SM clock {before.get('sm_clock_mhz', '?')} -> {after.get('sm_clock_mhz', '?')} MHz, "
                     f"memory clock {after.get('mem_clock_mhz', '?')} MHz, "
                     f"{after.get('temperature_c', '?')} C, {after.get('power_w', '?')} W")
    lines.append("")
    rules = {d["name"]: d["rule"] for d in result.get("details", [])
             if isinstance(d, dict) and "name" in d and "rule" in d}
    rule_header = f"{'rule':<8}" if rules else ""
    # The spread a student can read: the middle half of the trials (IQR over the median), which
    # one stray trial cannot blow up; results from before it was recorded show max - min.
    iqr = all("iqr" in c for c in result["ceilings"])
    spread_header = "IQR" if iqr else "spread"
    lines.append(f"  {'ceiling':<13}{'kind':<9}{'value':>14}  {'unit':<8}{spread_header:>8}  {rule_header}"
                 "verified  first call")
    for c in result["ceilings"]:
        jit = result.get("jit_seconds", {}).get(c["name"])
        jit_text = f"{jit:8.2f} s" if isinstance(jit, (int, float)) else ""
        rule = f"{rules.get(c['name'], '?'):<8}" if rules else ""
        flag = "  NOISY" if c.get("noisy") else ""
        lines.append(f"  {c['name']:<13}{c['kind']:<9}{_fmt(c['value']):>14}  {c['unit']:<8}"
                     f"{100 * c['iqr' if iqr else 'spread']:7.1f}%  {rule}{'yes' if c['verified'] else 'NO':<8}"
                     f"  {jit_text}{flag}")
    noisy = [c for c in result["ceilings"] if c.get("noisy")]
    if noisy:
        lines.append("")
        lines.append(f"  NOISY: {len(noisy)} of {len(result['ceilings'])} ceilings judged their own trials "
                     "noisy; re-run Lab 1 when no other program is busy before trusting them:")
        lines += [f"    {c['name']}: {c.get('noise') or 'noisy'}" for c in noisy]
    names = {c["name"]: c["value"] for c in result["ceilings"]}
    if "fp32" in names and "dram" in names:
        lines.append("")
        lines.append(f"  ridge point I = P / B = fp32 / dram = {names['fp32'] / names['dram']:.2f} FLOP/byte")
    for d in result.get("details", []):
        if "fraction_of_theoretical" in d:
            lines.append(f"  {d['name']}: {100 * d['fraction_of_theoretical']:.1f}% of the "
                         f"theoretical {_fmt(d['theoretical_gflops'] if 'theoretical_gflops' in d else d['theoretical_gbps'])} "
                         f"at the {d['sm_clock_mhz_during']:.0f} MHz sampled while it ran")
    for note in result.get("notes", []):
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def sweep_tables(result, width: int = 40) -> str:
    """Lab 3's tables of a sweep result: each K's rates, then each K against the sweep's own
    roofs with a bar, the knee and the notes."""
    dev = result["device"]
    scope = "CPU roofline" if result["scope"] == "cpu" else "GPU roofline"
    rows = result["rows"]
    lines = [f"Intensity sweep on {dev['name']}  [{scope}, {result['backend']} backend, {result['created']}]",
             "", f"  {'K':>5} {'I (FLOP/B)':>11} {'GB/s':>12} {'GFLOP/s':>13}  verified"]
    for r in rows:
        lines.append(f"  {r['k']:>5} {r['intensity']:>11.2f} {r['gbps']:>12,.0f} {r['gflops']:>13,.0f}"
                     f"  {'yes' if r['verified'] else 'NO'}")
    peak_gflops, peak_gbps, ridge = result["peak_gflops"], result["peak_gbps"], result["ridge"]
    lines += ["", f"  Against the sweep's own roofs: P = {_fmt(peak_gflops)} GFLOP/s, "
                  f"B = {_fmt(peak_gbps)} GB/s, ridge = P/B = {ridge:.2f} FLOP/byte", "",
              f"  {'K':>5} {'I':>8}  {'roof':>10}  {'of roof':>7}  {'side':<8} bar"]
    for r in rows:
        roof = min(peak_gflops, r["intensity"] * peak_gbps)
        if roof > 0:
            frac = r["gflops"] / roof
            side = "memory" if r["intensity"] < ridge else "compute"
        else:  # K = 0: no FLOPs, score the bandwidth instead
            frac = r["gbps"] / peak_gbps
            side = "copy"
        bar = "#" * max(0, min(width, round(frac * width)))
        # the copy row's roof is a bandwidth: its unit is printed, since the column's is GFLOP/s
        roof_text = _fmt(roof) if roof > 0 else f"{_fmt(peak_gbps)} GB/s"
        lines.append(f"  {r['k']:>5} {r['intensity']:>8.2f}  {roof_text:>10}  {100 * frac:6.1f}%  {side:<8} {bar}")
    k = result.get("knee")
    if k:
        lines.append("")
        lines.append(f"  knee (where the curve turns): I = {k['intensity']:.2f} FLOP/byte, "
                     f"nearest K = {k['k']}; the ridge P/B = {ridge:.2f}")
    noisy = [(r["k"], d) for r, d in zip(rows, result.get("details", ())) if isinstance(d, dict) and d.get("noisy")]
    if noisy:
        lines.append("")
        lines.append(f"  NOISY: {len(noisy)} of {len(rows)} points (K = {', '.join(str(k_) for k_, _ in noisy)}) "
                     "judged their own trials noisy; re-run Lab 3 when no other program is busy before "
                     "reading the curve's shape:")
        lines += [f"    K = {k_}: {d.get('noise') or 'noisy'}" for k_, d in noisy[:3]]
        if len(noisy) > 3:
            lines.append(f"    ... and {len(noisy) - 3} more")
    for note in result.get("notes", []):
        lines.append(f"  note: {note}")
    return "\n".join(lines)


#: What each HBM roof a step may be scored on measured (Lab 1's DRAM access mixes).
HBM_MIX = {"dram-copy": "copy mix", "dram-read": "read mix", "dram": "write mix"}


def step_roof_rows(roofs) -> list:
    """The roofs a training step meets (a :class:`rooflinelib.lessons.step_roofs.StepRoofs`): compute,
    HBM, each link, and the pageable copies beside the pinned ones where they were measured."""
    rows = [{"roof": f"compute ({roofs.compute_name})", "rate": roofs.peak_gflops, "unit": "GFLOP/s",
             "source": "measured"},
            {"roof": f"HBM, {HBM_MIX.get(roofs.hbm_name, roofs.hbm_name)} ({roofs.hbm_name})",
             "rate": roofs.hbm_gbps, "unit": "GB/s", "source": "measured"}]
    rows += [{"roof": r.label, "rate": r.gbps, "unit": "GB/s per direction",
              "source": "measured" if r.measured else "datasheet"} for r in roofs.links]
    rows += [{"roof": f"PCIe, pageable host memory, {direction}", "rate": gbps, "unit": "GB/s",
              "source": "measured"} for direction, gbps in sorted(roofs.pageable_gbps.items(), reverse=True)]
    return rows


def step_roofs_text(roofs) -> str:
    return render(step_roof_rows(roofs), (Column("roof", "roof", align="<"), Column("rate", "rate", number),
                                          Column("unit", "unit", align="<"), Column("source", "source", align="<")))
