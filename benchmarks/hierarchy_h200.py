#!/usr/bin/env python3
"""The hierarchical roofline's targets (issue 6), measured side by side in ONE run on the H200.

    python3 benchmarks/hierarchy_h200.py OUTDIR
    python3 benchmarks/hierarchy_h200.py --from RUNDIR OUTDIR   # targets again, from a run's files

Writes to OUTDIR:
- ``hierarchy_bench.json``: every figure below, the targets and whether each was met;
- ``h200_workingset_numba.json``: the working-set sweep, shipped in rooflinelib/data;
- ``h200_ncu_lab4.csv`` and ``h200_ncu_lab4_analytic.json``: Lab 4's ncu run on our own
  kernels and their analytic counts (shipped in rooflinelib/data and tests/data);
- ``ncu_log.txt``: ncu's own messages.

Targets: the L2 plateau reaches 12 TB/s; shared memory reaches 0.90 x (SMs x 128 B x clock);
the sweep's steps lie within 25% of the L2 and shared-memory sizes the device reports; ncu's
DRAM bytes and FLOPs on the sweep kernel (1 GiB buffers) agree with the analytic counts within
5% and 1%.  Each section runs in its own try block: one failure leaves the others' numbers.
Nothing here changes a clock or any other setting of the card.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ARGS = sys.argv[1:]
FROM = Path(ARGS[ARGS.index("--from") + 1]) if "--from" in ARGS else None
POSITIONAL = [a for i, a in enumerate(ARGS) if a != "--from" and (i == 0 or ARGS[i - 1] != "--from")]
OUT = Path(POSITIONAL[0] if POSITIONAL else os.environ.get("OUT", "."))
OUT.mkdir(parents=True, exist_ok=True)
REPORT: dict = {"sections": {}, "errors": {}, "targets": {}}
STATE: dict = {}
SECTIONS = []


def log(msg):
    print(msg, flush=True)


def section(name):
    def wrap(fn):
        SECTIONS.append((name, fn))
        return fn
    return wrap


def run_sections():
    for name, fn in SECTIONS:
        t0 = time.perf_counter()
        log(f"== {name}")
        try:
            REPORT["sections"][name] = fn()
        except Exception as exc:  # keep going: the other sections still measure
            REPORT["errors"][name] = "".join(traceback.format_exception(exc))[-4000:]
            log(f"!! {name} failed: {exc}")
        log(f"   ({time.perf_counter() - t0:.1f} s)")


def load_run(run: Path):
    """The state a run left in its files, for evaluating the targets again (no GPU needed)."""
    from rooflinelib.hierarchy import ncu, workingset_files
    saved = json.loads((run / "hierarchy_bench.json").read_text())
    REPORT["sections"] = saved["sections"]
    REPORT["errors"] = saved["errors"]
    REPORT["run_finished"] = saved.get("finished")
    REPORT["targets_recomputed_from"] = str(run.name)
    STATE["ws"] = workingset_files.load(run / "h200_workingset_numba.json")
    kernels = ncu.load_csv(run / "h200_ncu_lab4.csv")
    records = json.loads((run / "h200_ncu_lab4_analytic.json").read_text())
    rows = ncu.compare(kernels, records)
    STATE["agreement"] = [(a, r) for a in rows for r in records if r["name"] == a.kernel]


@section("environment")
def _env():
    from rooflinelib.measure.provenance import gpu_snapshot, library_versions
    smi = ""
    if shutil.which("nvidia-smi"):
        smi = subprocess.run(["nvidia-smi", "-q", "-d", "CLOCK,POWER,TEMPERATURE,PERFORMANCE"],
                             capture_output=True, text=True).stdout
    return {"snapshot": gpu_snapshot(), "libraries": library_versions(), "nvidia_smi_q": smi[-5000:]}


@section("working-set sweep")
def _sweep():
    from rooflinelib.hierarchy import levels as hl, level_placement, workingset_files
    from rooflinelib.hierarchy.workingset import measure_gpu
    result = measure_gpu(progress=lambda line: log("   " + line))
    workingset_files.save(result, OUT / "h200_workingset_numba.json")
    STATE["ws"] = result
    out = {"reported_cache_bytes": result["device"].get("reported_cache_bytes"),
           "hierarchy_levels": [[lv.name, lv.gbps, lv.capacity_bytes] for lv in level_placement.hierarchy_levels(result)]}
    for s in result["series"]:
        series = workingset_files.series_of(result, s["name"])
        levels = level_placement.result_levels(result, s["name"]) if s["access"] != "shared" else ()
        out[f"{s['access']} {s.get('pattern', '')}"] = {
            "sm_clock_mhz": s.get("sm_clock_mhz"),
            "best_gbps": max(series.gbps),
            "levels": [{"name": lv.name, "gbps": lv.gbps, "best_gbps": lv.best_gbps,
                        "first_bytes": lv.first_bytes, "last_bytes": lv.last_bytes,
                        "capacity_bytes": lv.capacity_bytes} for lv in levels],
        }
        if levels:
            log(hl.level_table(levels))
    return out


@section("engine references (Lab 1 kernels)")
def _engine():
    from rooflinelib.measure.gpu_backends import NumbaGpu
    gpu = NumbaGpu()
    out = {}
    for name in ("l2", "shared"):
        m = getattr(gpu, name)(lambda line: log("   " + line))
        out[name] = {"gbps": m.value, "kernel": m.kernel, **{k: v for k, v in m.extra.items()
                                                              if isinstance(v, (int, float, str))}}
    return out


@section("sass of the working-set kernels")
def _sass():
    from rooflinelib.measure import workingset_kernels as wk
    from rooflinelib.measure.sass import kernel_histograms
    return kernel_histograms(wk.ptx_targets())


@section("ncu (Lab 4) on our kernels")
def _ncu():
    csv_path, analytic = OUT / "h200_ncu_lab4.csv", OUT / "h200_ncu_lab4_analytic.json"
    base = [sys.executable, str(ROOT / "labs" / "lab4_ncu.py"), "profile", "--out", str(csv_path),
            "--analytic", str(analytic), "--log", str(OUT / "ncu_log.txt")]
    target = ["--", sys.executable, str(ROOT / "labs" / "lab4_target.py"), "--analytic", str(analytic)]
    if STATE.get("ws"):  # place the kernels against the sweep just measured
        base += ["--workingset", str(OUT / "h200_workingset_numba.json")]
    from rooflinelib.hierarchy import ncu
    out = {}
    for attempt, extra in (("with peaks", []), ("without peaks", ["--no-peaks"])):
        if attempt == "without peaks":  # keep the first attempt's CSV for the record
            csv_path = OUT / "h200_ncu_lab4_nopeaks.csv"
            base[base.index("--out") + 1] = str(csv_path)
        t0 = time.perf_counter()
        done = subprocess.run(base + extra + target, capture_output=True, text=True, timeout=240)
        out[attempt] = {"rc": done.returncode, "seconds": time.perf_counter() - t0,
                        "stdout": done.stdout[-12000:], "stderr": done.stderr[-3000:]}
        log(done.stdout[-6000:])
        log(done.stderr[-1500:])
        try:  # a CSV that parses is a success, whatever the placement step said
            ncu.load_csv(csv_path)
            break
        except ncu.NcuError as exc:
            out[attempt]["csv_error"] = str(exc)
    kernels = ncu.load_csv(csv_path)
    records = json.loads(analytic.read_text())
    rows = ncu.compare(kernels, records)
    STATE["agreement"] = [(a, r) for a in rows for r in records if r["name"] == a.kernel]
    out["agreement"] = [{"kernel": a.kernel, "quantity": a.quantity, "ncu": a.measured,
                         "analytic": a.analytic, "gap": a.gap} for a in rows]
    peaks = next((k.peaks() for k in kernels if k.peaks()), None)
    if peaks:
        out["ncu_peaks"] = {"sm_clock_mhz": peaks.sm_clock_mhz, "gbps": peaks.gbps, "gflops": peaks.gflops}
    return out


SHARING_MIB = "1,2,16,32"  # two working sets with several blocks per chunk, two with none


@section("ncu: the L2's slices, chunks shared and own")
def _ncu_sharing():
    """The L2 ceiling's kernel (ld.global.cg, a slice per block) once on each working set of
    SHARING_MIB, under ncu: below one chunk per block the blocks share chunks.  What the SMs
    asked for (l1tex__t_bytes) against what the L2's slices served (lts__t_bytes)."""
    csv_path, analytic = OUT / "h200_ncu_l2_sharing.csv", OUT / "h200_ncu_l2_sharing.json"
    command = [sys.executable, str(ROOT / "labs" / "lab4_ncu.py"), "profile", "--out", str(csv_path),
               "--analytic", str(analytic), "--log", str(OUT / "ncu_sharing_log.txt"), "--",
               sys.executable, str(ROOT / "labs" / "lab4_target.py"), "--analytic", str(analytic),
               "--ks=", "--small-mib", "0", "--ws-mib", "0", "--l2-sharing", SHARING_MIB]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240)
    log(done.stdout[-3000:])
    log(done.stderr[-1500:])
    STATE["sharing"] = (csv_path, analytic)
    return {"rc": done.returncode, "rows": sharing_rows(csv_path, analytic)}


def sharing_rows(csv_path, analytic):
    from rooflinelib.hierarchy import ncu, level_readings as hierarchy_readings
    rows = hierarchy_readings.sharing_rows(ncu.load_csv(csv_path), json.loads(Path(analytic).read_text()))
    for row in rows:
        log(f"   {row['name']}: SMs {row['sm_gbps']:,.0f} GB/s, slices {row['slices_gbps']:,.0f} "
            f"GB/s ({100 * row['slices_share']:.0f}% of the bytes)")
    return rows


def targets():
    from rooflinelib.hierarchy import levels as hl, level_placement, workingset_files
    t = REPORT["targets"]
    ws = STATE.get("ws")

    def add(name, value, goal, met, note=""):
        t[name] = {"value": value, "goal": goal, "met": met, "note": note}

    if ws:
        sm_count = ws["device"].get("sm_count")
        reported = workingset_files.reported_sizes(ws)
        levels = level_placement.hierarchy_levels(ws)
        found = [lv.name for lv in levels]
        add("levels found (L1 from the spread series, L2 and DRAM from the slices series)",
            ", ".join(found), "l1, l2 and dram among them", {"l1", "l2", "dram"} <= set(found),
            "a level named <cache>-fast is a faster range inside that cache's capacity")
        for check in level_placement.compare_steps(levels, reported, level_placement.l1_sram_bytes(ws)):
            add(f"{check.level} step within 25% of the reported size", check.ratio, "0.75 .. 1.25",
                check.within(0.25), f"detected {hl.format_bytes(check.detected_bytes)}, "
                f"reported {hl.format_bytes(check.reported_bytes)}")
        l2s = [lv for lv in levels if lv.name.startswith("l2")]
        outer = workingset_files.series_by_access(ws, "global-cg", "slices")
        if l2s:
            top = max(l2s, key=lambda lv: lv.gbps)
            add("L2 plateau GB/s (median, .cg slices, every block its own chunks)", top.gbps, ">= 12000",
                top.gbps >= 12000, "; ".join(f"{lv.name}: {lv.gbps:,.0f} GB/s (best {lv.best_gbps:,.0f}) from "
                                             f"{hl.format_bytes(lv.first_bytes)} up to "
                                             f"{hl.format_bytes(lv.capacity_bytes)}" for lv in l2s))
        shared = outer.shared_data().gbps if outer is not None else ()
        if shared:
            add("(reference) .cg slices with blocks sharing chunks: best GB/s, no L2 bandwidth",
                max(shared), "reference", None,
                f"below {hl.format_bytes(outer.shared_below)} (one chunk per block)")
        inner = next(x for x in ws["series"] if x["access"] == "global")
        l1 = next((lv for lv in levels if lv.name == "l1"), None)
        if l1 and sm_count and inner.get("sm_clock_mhz"):
            theo = sm_count * 128 * inner["sm_clock_mhz"] / 1e3
            add("L1 plateau / (SMs x 128 B x clock) (reference)", l1.gbps / theo, "reference", None,
                f"{l1.gbps:,.0f} GB/s at {inner['sm_clock_mhz']:.0f} MHz")
        other = workingset_files.series_by_access(ws, "global-cg", "spread")
        if other is not None:
            lv = level_placement.result_levels(ws, other.name)
            add("(reference) .cg spread series levels", "; ".join(
                f"{x.name} {x.gbps:,.0f} GB/s" + (f" up to {hl.format_bytes(x.capacity_bytes)}"
                                                   if x.capacity_bytes else "") for x in lv),
                "reference", None)
        shared = next((x for x in ws["series"] if x["access"] == "shared"), None)
        clock = (shared or {}).get("sm_clock_mhz") or ws["device"].get("after", {}).get("sm_clock_mhz")
        if shared and sm_count and clock:
            theo = sm_count * 128 * float(clock) / 1e3
            best = max(r["gbps"] for r in shared["rows"])
            add("shared / (SMs x 128 B x clock)", best / theo, ">= 0.90", best / theo >= 0.90,
                f"{best:,.0f} GB/s against {theo:,.0f} GB/s at {float(clock):.0f} MHz")
    for row in (REPORT["sections"].get("ncu: the L2's slices, chunks shared and own") or {}).get("rows", []):
        add(f"(reference) ncu, {row['name']}: share of the SMs' bytes the L2 slices served",
            row["slices_share"], "reference", None,
            f"SMs {row['sm_gbps']:,.0f} GB/s, slices {row['slices_gbps']:,.0f} GB/s, ncu's L2 peak "
            f"{row['ncu_l2_peak_gbps'] or 0:,.0f} GB/s")
    engine = REPORT["sections"].get("engine references (Lab 1 kernels)") or {}
    if "shared" in engine and "fraction_of_theoretical" in engine["shared"]:
        add("engine shared kernel / theoretical (reference)", engine["shared"]["fraction_of_theoretical"],
            "reference", None)
    for a, record in STATE.get("agreement", []):
        if record.get("kernel") != "sweep" or record.get("buffer_bytes", 0) < 2 ** 30:
            continue
        if a.quantity == "DRAM bytes":
            add(f"ncu DRAM bytes vs analytic: {a.kernel}", a.gap, "|gap| <= 0.05", a.within(0.05))
        if a.quantity == "FLOPs":
            add(f"ncu FLOPs vs analytic: {a.kernel}", a.gap, "|gap| <= 0.01", a.within(0.01))


if __name__ == "__main__":
    if FROM is not None:
        load_run(FROM)
    else:
        run_sections()
    try:
        targets()
    except Exception as exc:
        REPORT["errors"]["targets"] = "".join(traceback.format_exception(exc))[-4000:]
    from rooflinelib.measure.provenance import now_iso
    REPORT["finished"] = now_iso()
    (OUT / ("hierarchy_h200.json" if FROM is not None else "hierarchy_bench.json")).write_text(json.dumps(REPORT, indent=1, default=str) + "\n")
    log("\n== targets")
    for name, v in REPORT["targets"].items():
        val = v["value"]
        shown = f"{val:,.4g}" if isinstance(val, (int, float)) else str(val)
        mark = {True: "MET ", False: "MISS", None: "----"}[v["met"]]
        log(f"  {mark} {name}: {shown} (goal {v['goal']}) {v.get('note', '')}")
    if REPORT["errors"]:
        log("\n== errors in: " + ", ".join(REPORT["errors"]))
