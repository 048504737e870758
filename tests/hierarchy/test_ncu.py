"""Importing Nsight Compute CSVs: both page layouts, units, kernel names, FLOPs and bytes per
level, ncu's peaks, the comparison with analytic counts, and every malformed input."""
import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rooflinelib.hierarchy import ncu

ROOT = Path(__file__).resolve().parents[2]

FFMA, FADD, FMUL = (ncu._INST.format(op) for op in ("ffma", "fadd", "fmul"))
DFMA = ncu._INST.format("dfma")
ID_COLUMNS = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
              "Block Size", "Grid Size", "Device", "CC"]
NAME = "cudapy::rooflinelib::measure::kernels_numba::sweep_kernel::<locals>::sweep$241(Array<float, 1, C, mutable, aligned>)"


def metrics(n=2 ** 28, k=8):
    """A sweep launch on n floats at K, as ncu would count it (in base units)."""
    return {"l1tex__t_bytes.sum": (8 * n, "byte"), "lts__t_bytes.sum": (8 * n, "byte"),
            "dram__bytes_read.sum": (4 * n, "byte"), "dram__bytes_write.sum": (4 * n, "byte"),
            FFMA: (k * n, "inst"), FADD: (0, "inst"), FMUL: (0, "inst"),
            DFMA: (0, "inst"), ncu._INST.format("dadd"): (0, "inst"), ncu._INST.format("dmul"): (0, "inst"),
            ncu.TIME_METRIC: (540_000, "nsecond"),
            "dram__bytes.sum.peak_sustained": (1536, "byte/cycle"),
            "dram__cycles_elapsed.avg.per_second": (3.2e9, "cycle/second"),
            FFMA + ".peak_sustained": (16896, "inst/cycle"),
            "sm__cycles_elapsed.avg.per_second": (1.98e9, "cycle/second")}


def fmt(value):
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,}"


def raw_csv(launches, junk=True):
    names = list(launches[0][1])
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    if junk:
        out.write("==PROF== Connected to process 4242 (/usr/bin/python3.12)\n")
    w.writerow(ID_COLUMNS + names)
    w.writerow([""] * len(ID_COLUMNS) + [launches[0][1][m][1] for m in names])
    for i, (name, values) in enumerate(launches):
        w.writerow([str(i), "4242", "python3", "127.0.0.1", name, "1", "7", "(256, 1, 1)",
                    "(1056, 1, 1)", "0", "9.0"] + [fmt(values[m][0]) for m in names])
    if junk:
        out.write("program output that is not CSV\n==PROF== Disconnected from process 4242\n")
    return out.getvalue()


def details_csv(launches):
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(ID_COLUMNS + ["Section Name", "Metric Name", "Metric Unit", "Metric Value"])
    for i, (name, values) in enumerate(launches):
        for metric, (value, unit) in values.items():
            w.writerow([str(i), "4242", "python3", "h", name, "1", "7", "(256, 1, 1)", "(1056, 1, 1)",
                        "0", "9.0", "Command line profiler metrics", metric, unit, fmt(value)])
    return out.getvalue()


def test_raw_page_import_gives_flops_bytes_time_and_names():
    (k,) = ncu.parse_csv(raw_csv([(NAME, metrics())]))
    n = 2 ** 28
    assert k.short_name == "sweep" and k.id == "0"
    assert k.n_flops == 2 * 8 * n
    assert k.bytes_by_level == {"l1": 8 * n, "l2": 8 * n, "dram": 8 * n}
    assert k.seconds == pytest.approx(540e-6)
    assert k.achieved_gflops == pytest.approx(16 * n / 540e-6 / 1e9)
    hk = k.hierarchical()
    assert hk.name == "sweep #0" and hk.intensity("dram") == pytest.approx(2.0)


def test_details_page_gives_the_same_kernels():
    launches = [(NAME, metrics()), ("ws_read_global(float*)", metrics(2 ** 20, 1))]
    a, b = ncu.parse_csv(raw_csv(launches)), ncu.parse_csv(details_csv(launches))
    assert [(k.short_name, k.metrics) for k in a] == [(k.short_name, k.metrics) for k in b]
    assert [k.short_name for k in b] == ["sweep", "ws_read_global"]


def test_scaled_units_are_converted():
    m = metrics()
    m["dram__bytes_read.sum"] = (1073.741824, "Mbyte")
    m["lts__t_bytes.sum"] = (2.147483648, "Gbyte")
    m[ncu.TIME_METRIC] = (540, "usecond")
    (k,) = ncu.parse_csv(details_csv([(NAME, m)]))
    assert k.value("dram__bytes_read.sum") == pytest.approx(2 ** 30)
    assert k.level_bytes("l2") == pytest.approx(2 ** 31)
    assert k.seconds == pytest.approx(540e-6)


@pytest.mark.parametrize("unit,factor", [("byte", 1), ("Kbyte", 1e3), ("Mbyte", 1e6), ("Gbyte", 1e9),
                                         ("nsecond", 1e-9), ("usecond", 1e-6), ("msecond", 1e-3),
                                         ("second", 1), ("ns", 1e-9), ("cycle/second", 1),
                                         ("cycle/nsecond", 1e9), ("byte/cycle", 1), ("Ghz", 1e9),
                                         ("MHz", 1e6), ("mhz", 1e6), ("inst", 1), ("", 1),
                                         ("Gbyte/second", 1e9), ("inst/cycle", 1)])
def test_unit_factors(unit, factor):
    assert ncu.unit_factor(unit) == pytest.approx(factor)


@pytest.mark.parametrize("unit", ["furlong", "byte/fortnight", "KiB?"])
def test_unknown_units(unit):
    assert ncu.unit_factor(unit) is None


@pytest.mark.parametrize("text,value", [("1,234,567.5", 1234567.5), ("0", 0.0), ("12", 12.0),
                                        ("3.5e9", 3.5e9), ("n/a", None), ("", None)])
def test_numbers_as_ncu_prints_them(text, value):
    assert ncu.parse_number(text) == value


@pytest.mark.parametrize("text", ["27.595.520", "1,23", "12 MB", "inf", "0x10", "1,2345"])
def test_numbers_that_are_not(text):
    with pytest.raises(ValueError):
        ncu.parse_number(text)


def test_peaks_are_peak_per_cycle_times_the_clock():
    (k,) = ncu.parse_csv(raw_csv([(NAME, metrics())]))
    peaks = k.peaks()
    assert peaks.gbps == {"dram": pytest.approx(1536 * 3.2e9 / 1e9)}
    assert peaks.gflops == {"fp32": pytest.approx(2 * 16896 * 1.98e9 / 1e9)}
    assert peaks.sm_clock_mhz == pytest.approx(1980)
    m = peaks.machine()
    assert m.kind == "theoretical" and "theoretical, not measured" in m.source
    assert m.ceiling("fp32").value == pytest.approx(66_908, rel=1e-4)


def test_no_peaks_when_not_collected():
    m = {k: v for k, v in metrics().items() if "peak" not in k and "per_second" not in k}
    (k,) = ncu.parse_csv(raw_csv([(NAME, m)]))
    assert k.peaks() is None


def test_fp64_flops_count_too():
    m = metrics()
    m[DFMA] = (1000, "inst")
    m[FADD] = (10, "inst")
    (k,) = ncu.parse_csv(raw_csv([(NAME, m)]))
    assert k.flops("fp64") == 2000 and k.flops("fp32") == 2 * 8 * 2 ** 28 + 10
    assert k.n_flops == k.flops("fp32") + 2000


def test_short_kernel_names():
    assert ncu.short_kernel_name(NAME) == "sweep"
    assert ncu.short_kernel_name("void ns::gemm<float, 128>(float*, int)") == "gemm<float, 128>"
    assert ncu.short_kernel_name("ws_read_global") == "ws_read_global"
    assert ncu.short_kernel_name("k[abi:v1,cw51]$3") == "k"


# --- comparison with analytic counts --------------------------------------------------------------

def test_agreement_with_analytic_counts():
    m = metrics()
    m["dram__bytes_write.sum"] = (4 * 2 ** 28 * 0.97, "byte")  # dirty lines still in the L2
    kernels = ncu.parse_csv(raw_csv([(NAME, m)]))
    n = 2 ** 28
    rows = ncu.compare(kernels, [{"name": "sweep K=8", "n_flops": 16 * n, "dram_bytes": 8 * n,
                                  "dram_write_bytes": 4 * n}])
    by = {a.quantity: a for a in rows}
    assert by["FLOPs"].gap == 0 and by["FLOPs"].within(0.01)
    assert by["DRAM bytes"].gap == pytest.approx(-0.015) and by["DRAM bytes"].within(0.05)
    assert by["DRAM write bytes"].gap == pytest.approx(-0.03)
    assert "-1.50%" in ncu.agreement_table(rows)


@pytest.mark.parametrize("records,match", [
    ([], "0 records for 1 profiled launches"),
    ([{"n_flops": 1}], r"\[0\].name: missing"),
    ([{"name": "k", "n_flops": -1}], r"\[0\].n_flops: must be a positive number"),
    ([{"name": "k", "dram_bytes": "many"}], r"\[0\].dram_bytes"),
    ({"name": "k"}, "must be a list"),
])
def test_bad_analytic_records(records, match):
    kernels = ncu.parse_csv(raw_csv([(NAME, metrics())]))
    with pytest.raises(ncu.NcuError, match=match):
        ncu.compare(kernels, records)


# --- malformed and foreign CSVs -------------------------------------------------------------------

GOOD = raw_csv([(NAME, metrics())])


def replace_line(text, index, new):
    lines = text.splitlines()
    lines[index] = new
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text,match", [
    ("", "file: empty"),
    ("   \n", "file: empty"),
    ("a,b,c\n1,2,3\n", "header: no line starting \"ID\""),
    ('"kernel","time"\n"k","1"\n', "header: no line starting"),
    ("==PROF== Connected\n==ERROR== ERR_NVGPUCTRPERM - no permission\n", "header: no line"),
    ('"ID","Kernel Name","Process ID"\n', "header: no metric columns"),
    ('"ID","Kernel Name","Metric Name","Metric Value"\n', "column 'Metric Unit': missing"),
    ('"ID","Kernel Name","dram__bytes_read.sum"\n"","","byte"\n', "rows: the CSV has a header but no kernel"),
])
def test_foreign_or_empty_csvs_are_refused_in_one_line(text, match):
    with pytest.raises(ncu.NcuError, match=match) as info:
        ncu.parse_csv(text, "prof.csv")
    assert str(info.value).startswith("prof.csv: ") and "\n" not in str(info.value)


def test_a_row_with_the_wrong_number_of_fields_names_its_line():
    lines = GOOD.splitlines()
    cells = next(csv.reader([lines[3]]))[:-2]
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="").writerow(cells)
    broken = lines[:3] + [out.getvalue()] + lines[4:]
    with pytest.raises(ncu.NcuError, match=r"line 4: has \d+ fields, the header has \d+"):
        ncu.parse_csv("\n".join(broken))


def test_a_value_that_is_not_a_number_names_the_metric():
    text = GOOD.replace('"2,147,483,648"', '"lots"', 1)  # the first 8n-byte field: l1tex
    with pytest.raises(ncu.NcuError, match=r"metric l1tex__t_bytes.sum: value 'lots' is not a number"):
        ncu.parse_csv(text)


def test_an_unknown_unit_names_the_metric_and_the_unit():
    text = GOOD.replace('"byte"', '"parsecs"', 1)
    with pytest.raises(ncu.NcuError, match=r"metric l1tex__t_bytes.sum: unit 'parsecs'"):
        ncu.parse_csv(text)


def test_a_missing_metric_is_named_when_it_is_needed():
    m = {k: v for k, v in metrics().items() if k != "dram__bytes_write.sum"}
    (k,) = ncu.parse_csv(raw_csv([(NAME, m)]), "prof.csv")
    assert k.level_bytes("l2") > 0  # the rest still imports
    with pytest.raises(ncu.NcuError, match=r"prof.csv: kernel 0 \(sweep\): metric dram__bytes_write.sum: missing"):
        k.bytes_by_level
    m = {k: v for k, v in metrics().items() if "_pred_on.sum" not in k or "peak" in k}
    (k,) = ncu.parse_csv(raw_csv([(NAME, m)]))
    with pytest.raises(ncu.NcuError, match="FLOP counters: none present"):
        k.n_flops


def test_na_values_are_missing_not_zero():
    text = GOOD.replace('"540,000"', '"n/a"')
    (k,) = ncu.parse_csv(text)
    with pytest.raises(ncu.NcuError, match="gpu__time_duration.sum: has no value"):
        k.seconds


def test_details_page_conflicting_duplicates_are_refused():
    text = details_csv([(NAME, metrics())])
    lines = text.splitlines()
    dup = lines[1].replace('"2,147,483,648"', '"1"')
    with pytest.raises(ncu.NcuError, match="given twice for kernel 0"):
        ncu.parse_csv("\n".join(lines + [dup]))


def test_empty_kernel_name_and_id():
    with pytest.raises(ncu.NcuError, match="column 'Kernel Name': empty"):
        ncu.parse_csv(GOOD.replace(f'"{NAME}"', '""'))


def test_files(tmp_path):
    with pytest.raises(ncu.NcuError, match="file: not found"):
        ncu.load_csv(tmp_path / "none.csv")
    binary = tmp_path / "report.ncu-rep"
    binary.write_bytes(b"\x89NCU\xff\xfe\x00\x01" * 20)
    with pytest.raises(ncu.NcuError, match="file: not UTF-8 text, so not an ncu CSV"):
        ncu.load_csv(binary)
    with pytest.raises(ncu.NcuError, match="file: is a directory"):
        ncu.load_csv(tmp_path)


def test_zero_flop_kernel_has_no_roofline_point():
    m = metrics(k=0)
    (k,) = ncu.parse_csv(raw_csv([(NAME, m)]))
    assert k.n_flops == 0
    with pytest.raises(ncu.NcuError, match="executed no FFMA, FADD, FMUL, DFMA, DADD or DMUL"):
        k.hierarchical()
    with pytest.raises(ncu.NcuError, match="count its FLOPs by hand"):
        k.hierarchical()


@pytest.mark.parametrize("guard", sorted(ncu.GUARD_METRICS))
def test_instructions_the_fma_count_misses_make_it_refuse(guard):
    # A bf16 GEMM runs on the tensor pipe: 2 x FFMA + FADD + FMUL would count its epilogue only.
    m = metrics(k=1)
    m[guard] = (4096, "inst")
    (k,) = ncu.parse_csv(raw_csv([(NAME, m)]))
    assert k.uncounted() == {guard: 4096}
    with pytest.raises(ncu.NcuError, match="would be undercounted") as refused:
        k.flops()
    assert ncu.GUARD_METRICS[guard] in str(refused.value)
    with pytest.raises(ncu.NcuError, match="would be undercounted"):
        k.hierarchical()
    table = ncu.kernel_table([k])
    assert "no FLOPs for 0" in table


def test_guard_metrics_at_zero_leave_the_count_alone():
    m = metrics(k=8)
    for guard in ncu.GUARD_METRICS:
        m[guard] = (0, "inst")
    (k,) = ncu.parse_csv(raw_csv([(NAME, m)]))
    assert k.uncounted() == {}
    assert k.n_flops == 2 * 8 * 2 ** 28


# --- the command and the lab script ---------------------------------------------------------------

def test_command_leaves_clocks_alone_and_asks_for_every_metric():
    cmd = ncu.command(["python3", "prog.py", "--n", "4"], "sweep|ws_read", ncu="ncu")
    joined = " ".join(cmd)
    assert cmd[:3] == ["ncu", "--clock-control", "none"]
    assert "--csv" in cmd and "--page raw" in joined and "--print-units base" in joined
    assert "-k regex:sweep|ws_read" in joined
    metrics_arg = cmd[cmd.index("--metrics") + 1].split(",")
    for required in ("dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
                     "l1tex__t_bytes.sum", FFMA, FADD, FMUL, DFMA, ncu.TIME_METRIC,
                     "dram__bytes.sum.peak_sustained"):
        assert required in metrics_arg
    assert cmd[-4:] == ["python3", "prog.py", "--n", "4"]
    assert not set(ncu.GUARD_METRICS) & set(metrics_arg)  # off until checked on the GPU
    guarded = ncu.command(["a"], guards=True)
    assert set(ncu.GUARD_METRICS) <= set(guarded[guarded.index("--metrics") + 1].split(","))
    no_peaks = ncu.command(["a"], peaks=False)
    assert not any("peak" in m for m in no_peaks[no_peaks.index("--metrics") + 1].split(","))
    with pytest.raises(ncu.NcuError, match="program: give the program"):
        ncu.command("python3 prog.py")


def run_lab(*args):
    return subprocess.run([sys.executable, str(ROOT / "labs" / "lab4_ncu.py"), *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_lab_show_prints_kernels_and_agreement(tmp_path):
    path = tmp_path / "prof.csv"
    path.write_text(GOOD)
    analytic = tmp_path / "analytic.json"
    n = 2 ** 28
    analytic.write_text(json.dumps([{"name": "sweep K=8", "n_flops": 16 * n, "dram_bytes": 8 * n}]))
    done = run_lab("show", str(path), "--analytic", str(analytic))
    assert done.returncode == 0, done.stderr
    assert "sweep" in done.stdout and "+0.00%" in done.stdout
    assert "theoretical, not measured" in done.stdout


def test_lab_errors_are_one_line(tmp_path):
    bad = tmp_path / "foreign.csv"
    bad.write_text("name,value\nx,1\n")
    done = run_lab("show", str(bad))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("lab4: ") and done.stderr.count("\n") == 1 and "header" in done.stderr
    done = run_lab("profile", "--ncu", str(tmp_path / "no-ncu"), "--out", str(tmp_path / "p.csv"), "--", "true")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"lab4: ncu: {tmp_path / 'no-ncu'} does not exist")


def test_lab_show_on_the_recorded_run_names_the_l2_bound_kernel():
    done = run_lab("show", str(ncu.recorded_csv()), "--analytic",
                   str(ncu.recorded_csv().with_name("h200_ncu_lab4_analytic.json")))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "6 profiled launch(es)" in out and "ws_read_global #5: bound by L2 cache" in out
    assert "looks memory-bound" in out and "theoretical, not measured" in out
    # FLOPs exact; the 64 MiB run's writes partly still in the L2 when the kernel ended
    writes = next(a for a in ncu.compare(ncu.load_csv(ncu.recorded_csv()),
                                         json.loads(ncu.recorded_csv().with_name("h200_ncu_lab4_analytic.json")
                                                    .read_text()))
                  if a.quantity == "DRAM write bytes" and "64 MiB" in a.kernel)
    assert writes.gap < -0.2
    assert "+0.00%" in out and f"{100 * writes.gap:+.2f}%" in out


# --- real ncu output, recorded on the H200 ----------------------------------------------------------

DATA = ROOT / "tests" / "data"


@pytest.fixture(scope="module")
def h200():
    return ncu.load_csv(DATA / "h200_ncu_lab4.csv"), json.loads((DATA / "h200_ncu_lab4_analytic.json").read_text())


def test_real_csv_imports_every_profiled_launch(h200):
    kernels, analytic = h200
    assert [k.short_name for k in kernels] == ["sweep"] * 5 + ["ws_read_global"]
    assert len(kernels) == len(analytic) == 6
    # the working-set read launches one wave: 6 resident blocks on each of the 132 SMs
    assert [k.grid for k in kernels] == ["(262144, 1, 1)"] * 4 + ["(16384, 1, 1)", "(792, 1, 1)"]
    for k in kernels:
        assert k.seconds > 0 and all(v > 0 for v in k.bytes_by_level.values())


def test_real_flops_equal_the_analytic_count_exactly(h200):
    rows = [a for a in ncu.compare(*h200) if a.quantity == "FLOPs"]
    assert len(rows) == 6 and all(a.gap == 0 for a in rows)


def test_real_dram_bytes_agree_within_5_percent_on_large_buffers(h200):
    kernels, analytic = h200
    rows = ncu.compare(kernels, analytic)
    large = [a for a in rows if a.quantity == "DRAM bytes" and "1024 MiB" in a.kernel]
    assert len(large) == 4 and all(a.within(0.05) for a in large)
    assert all(-0.03 < a.gap < 0 for a in large)  # a few dirty L2 lines not yet written back
    reads = [a for a in rows if a.quantity == "DRAM read bytes" and "1024 MiB" in a.kernel]
    assert all(a.within(0.001) for a in reads)


def test_real_small_buffer_writes_stay_in_the_l2(h200):
    rows = {(a.kernel, a.quantity): a for a in ncu.compare(*h200)}
    small = rows[("sweep K=8, 64 MiB", "DRAM write bytes")]
    assert small.gap < -0.2  # a third of the 64 MiB written had not reached DRAM when it ended
    assert rows[("sweep K=8, 64 MiB", "DRAM read bytes")].within(0.001)


def test_real_l2_counter_counts_more_than_l1_to_l2_requests(h200):
    kernels, _ = h200
    sweep = kernels[1]
    assert sweep.level_bytes("l1") == 2 ** 31  # every load and store, exactly
    assert 1.4 < sweep.level_bytes("l2") / sweep.level_bytes("l1") < 1.7


def test_real_peaks_are_theoretical_at_the_run_clock(h200):
    kernels, _ = h200
    peaks = kernels[0].peaks()
    assert 1900 < peaks.sm_clock_mhz < 2000
    fp32_at_clock = 132 * 128 * 2 * peaks.sm_clock_mhz / 1e3
    assert peaks.gflops["fp32"] == pytest.approx(fp32_at_clock, rel=1e-3)
    assert peaks.gflops["fp64"] == pytest.approx(fp32_at_clock / 2, rel=1e-3)
    assert 4_500 < peaks.gbps["dram"] < 5_000 and peaks.gbps["l2"] > peaks.gbps["dram"]


def test_real_csv_without_peaks_and_with_text_attributes():
    kernels = ncu.load_csv(DATA / "h200_ncu_lab4_nopeaks.csv")
    assert len(kernels) == 6 and all(k.peaks() is None for k in kernels)
    assert kernels[0].metrics.get("device__attribute_confidential_computing_mode") is None  # text: skipped
    analytic = json.loads((DATA / "h200_ncu_lab4_nopeaks_analytic.json").read_text())
    assert all(a.gap == 0 for a in ncu.compare(kernels, analytic) if a.quantity == "FLOPs")


def test_real_csv_hierarchical_points_place_the_l2_kernel(h200):
    from rooflinelib.hierarchy import level_placement, workingset_files as wsr
    from rooflinelib.store.results import recorded_h200
    kernels, _ = h200
    machine = level_placement.machine_from_result(wsr.recorded(), recorded_h200())
    ws = level_placement.place_levels(kernels[5].hierarchical(), machine)
    assert ws.binding == "l2" and ws.point("l2").fraction_of_roof > 0.8
    assert ws.point("dram").intensity < machine.ridge("fp32", "dram")  # memory side against DRAM...
    assert ws.point("dram").fraction_of_roof < 0.2  # ...far below that roof
    sweep = level_placement.place_levels(kernels[0].hierarchical(), machine)
    assert sweep.binding == "dram" and sweep.point("dram").fraction_of_roof > 0.9


def test_truncated_real_csv_names_its_last_line(tmp_path):
    text = (DATA / "h200_ncu_lab4.csv").read_text()
    lines = text.splitlines()
    cut = tmp_path / "cut.csv"
    cut.write_text("\n".join(lines[:-1] + [lines[-1][:len(lines[-1]) // 2]]))
    with pytest.raises(ncu.NcuError, match=rf"line {len(lines)}: (has \d+ fields|not valid CSV)"):
        ncu.load_csv(cut)


def test_real_csv_missing_a_needed_column(tmp_path):
    rows = list(csv.reader(io.StringIO((DATA / "h200_ncu_lab4.csv").read_text())))
    start = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    drop = rows[start].index("dram__bytes_write.sum")
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for r in rows[start:]:
        w.writerow(r[:drop] + r[drop + 1:])
    (k, *_) = ncu.parse_csv(out.getvalue(), "edited.csv")
    with pytest.raises(ncu.NcuError, match="edited.csv: kernel 0 \\(sweep\\): metric dram__bytes_write.sum: missing"):
        k.level_bytes("dram")
