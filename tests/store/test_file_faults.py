"""Fault injection for the one read path and the one write path (rooflinelib.store.fileio), through
the API and through the command line: a full disk, an unwritable folder, device nodes, pipes,
links to /dev/zero and /dev/null.  Each case checks that the old file survives byte for byte,
that nothing hangs (a subprocess with a timeout, or a read that must return at once), and
that no half-written or temporary file is left behind."""
from __future__ import annotations

import json
import re
import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rooflinelib.store import fileio, results
from rooflinelib.store.fileio import FileError
from rooflinelib.hierarchy import ncu

ROOT = Path(__file__).resolve().parents[2]
ROOFLINE = [sys.executable, "-m", "rooflinelib.cli"]
OLD = '{"old": true}\n'


def _old_file(folder: Path, name: str = "result.json", mode: int = 0o640) -> Path:
    path = folder / name
    path.write_text(OLD)
    path.chmod(mode)
    return path


def _only(folder: Path, *names) -> None:
    """Nothing but ``names`` in ``folder``: no temporary or half-written file."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)


def _char_device(path: Path) -> Path:
    """A character device node like /dev/null at ``path``, or a skip where mknod is not allowed."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"mknod not permitted here ({exc.strerror})")
    return path


def _non_regular_targets(tmp_path: Path) -> list:
    """A FIFO, a link to /dev/null and a folder: targets that must never be replaced."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "null-link"
    link.symlink_to("/dev/null")
    folder = tmp_path / "folder"
    folder.mkdir()
    return [fifo, link, folder]


# --- writes ----------------------------------------------------------------------------------

def test_a_full_disk_leaves_the_old_file_and_no_temporary(tmp_path):
    # RLIMIT_FSIZE makes any write past 1 KiB fail with EFBIG, as a full disk fails with
    # ENOSPC; SIGXFSZ is ignored so that the write returns an error instead of killing.
    old = _old_file(tmp_path)
    script = textwrap.dedent(f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
        from rooflinelib.store.fileio import FileError, write_atomic
        try:
            write_atomic({str(old)!r}, "x" * 100_000)
        except FileError as exc:
            print(exc)
            sys.exit(3)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 3, done.stderr
    assert done.stdout.startswith(f"{old}: file: cannot be written (File too large)")
    assert "Traceback" not in done.stderr
    assert old.read_text() == OLD and stat.S_IMODE(old.stat().st_mode) == 0o640
    _only(tmp_path, "result.json")


def test_the_cli_on_a_full_disk_says_so_in_one_line_and_keeps_the_old_chart(tmp_path):
    old = _old_file(tmp_path, "chart.html", 0o644)
    script = textwrap.dedent(f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
        from rooflinelib.cli import main
        sys.exit(main(["plot", "--machine", "H200", "--demo-kernels", "--html", {str(old)!r}]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"roofline: error: --html: {old}: file: cannot be written (File too large); "
        "the old file, if any, is unchanged"]
    assert old.read_text() == OLD
    _only(tmp_path, "chart.html")


def test_an_unwritable_folder_is_one_error_and_leaves_nothing(tmp_path):
    if os.geteuid() == 0:
        folder = Path("/proc/self")  # root writes anywhere but on a read-only file system
    else:
        folder = tmp_path / "locked"
        folder.mkdir()
        folder.chmod(0o555)
    before = set(os.listdir(folder))
    target = folder / "result.json"
    with pytest.raises(results.ResultError, match=rf"^{target}: file: cannot be written \("):
        results.save(results.recorded("ceilings"), target)
    assert set(os.listdir(folder)) == before


def test_non_regular_targets_are_refused_and_left_alone(tmp_path):
    for target in _non_regular_targets(tmp_path):
        kind = os.stat(target).st_mode
        with pytest.raises(FileError, match=rf"^{target}: file: is a .*not a regular file; refusing"):
            fileio.write_atomic(target, "x")
        assert os.stat(target).st_mode == kind  # still a pipe, a device, a folder
    assert Path("/dev/null").is_char_device()
    _only(tmp_path, "pipe", "null-link", "folder")


def test_a_device_node_is_refused_as_a_target(tmp_path):
    node = _char_device(tmp_path / "null")
    with pytest.raises(FileError, match="is a device, not a regular file; refusing to replace it"):
        fileio.write_atomic(node, "x")
    assert node.is_char_device()
    _only(tmp_path, "null")


def test_cli_out_and_html_refuse_a_device_before_measuring_or_drawing(tmp_path):
    for target in _non_regular_targets(tmp_path):
        for argv in (["measure", "--backend", "cpu", "--out", str(target)],
                     ["plot", "--machine", "H200", "--demo-kernels", "--html", str(target)]):
            started = time.monotonic()
            done = subprocess.run(ROOFLINE + argv, capture_output=True, text=True, timeout=60, cwd=ROOT)
            assert done.returncode == 2, done.stderr
            option = argv[-2]
            assert done.stderr.startswith(f"roofline: error: {option}: {target}: file: is a ")
            assert len(done.stderr.strip().splitlines()) == 1
            assert time.monotonic() - started < 30  # refused up front, not after a run
    assert Path("/dev/null").is_char_device()


def test_overwriting_keeps_the_mode_and_a_new_file_gets_the_umask(tmp_path):
    old = _old_file(tmp_path, mode=0o604)
    fileio.write_atomic(old, "new\n")
    assert old.read_text() == "new\n" and stat.S_IMODE(old.stat().st_mode) == 0o604
    mask = os.umask(0o027)
    try:
        fresh = fileio.write_atomic(tmp_path / "fresh.json", "x")
    finally:
        os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
    _only(tmp_path, "result.json", "fresh.json")


def test_a_link_to_a_regular_file_is_written_through(tmp_path):
    real = _old_file(tmp_path, "real.json")
    link = tmp_path / "link.json"
    link.symlink_to(real.name)
    fileio.write_atomic(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to("missing.json")
    with pytest.raises(FileError, match="is a link to a missing file"):
        fileio.write_atomic(dangling, "x")
    _only(tmp_path, "real.json", "link.json", "dangling.json")


def test_an_interrupted_write_leaves_the_old_file(tmp_path, monkeypatch):
    old = _old_file(tmp_path)

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(fileio.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fileio.write_atomic(old, "half")
    assert old.read_text() == OLD
    _only(tmp_path, "result.json")


def test_lab4_profile_writes_no_csv_when_ncu_fails(tmp_path):
    fake = tmp_path / "ncu"
    fake.write_text("#!/bin/sh\necho '\"ID\",\"Kernel Name\"' \necho 'ncu: ==ERROR== boom' >&2\nexit 1\n")
    fake.chmod(0o755)
    old = _old_file(tmp_path, "prof.csv")
    done = subprocess.run([sys.executable, str(ROOT / "labs" / "lab4_ncu.py"), "profile", "--ncu", str(fake),
                           "--out", str(old), "--", "true"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("lab4: ncu: exited with status 1:")
    assert "was not written" in done.stderr and "Traceback" not in done.stderr
    assert old.read_text() == OLD
    directory = tmp_path / "out-dir"
    directory.mkdir()
    done = subprocess.run([sys.executable, str(ROOT / "labs" / "lab4_ncu.py"), "profile", "--ncu", str(fake),
                           "--out", str(directory), "--", "true"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"--out: {directory}: file: is a directory" in done.stderr


# --- reads -----------------------------------------------------------------------------------

READERS = [
    (results.load, results.ResultError, "a result file"),
    (ncu.load_csv, ncu.NcuError, "an ncu CSV"),
    (ncu.load_analytic, ncu.NcuError, "an analytic-counts JSON file"),
]


@pytest.mark.parametrize("reader, error, kind", READERS)
def test_links_to_endless_devices_are_refused_at_once(tmp_path, reader, error, kind):
    for device in ("/dev/zero", "/dev/urandom"):
        link = tmp_path / f"link-{Path(device).name}"
        link.symlink_to(device)
        started = time.monotonic()
        with pytest.raises(error, match=rf"^{link}: file: is a device, not a regular file, so not {kind}"):
            reader(link)
        assert time.monotonic() - started < 1


@pytest.mark.parametrize("reader, error, kind", READERS)
def test_a_named_pipe_is_refused_without_blocking(tmp_path, reader, error, kind):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(error, match="is a named pipe, not a regular file"):
        reader(fifo)
    assert time.monotonic() - started < 1


def test_a_pipe_given_to_the_cli_does_not_hang(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = subprocess.run(ROOFLINE + ["plot", "--ceilings", str(fifo), "--demo-kernels"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"roofline: error: --ceilings: {fifo}: file: is a named pipe, "
                                   "not a regular file, so not a result file")


def test_a_device_node_is_refused_as_a_source(tmp_path):
    node = _char_device(tmp_path / "null")
    with pytest.raises(results.ResultError, match="is a device"):
        results.load(node)


@pytest.mark.parametrize("reader, error, limit", [(results.load, results.ResultError, "result"),
                                                  (ncu.load_csv, ncu.NcuError, "ncu-csv")])
def test_a_file_over_its_format_cap_is_refused_before_reading(tmp_path, reader, error, limit):
    big = tmp_path / "big"
    with open(big, "wb") as f:  # sparse: the size is there, the bytes are not
        f.truncate(fileio.MAX_BYTES[limit] + 1)
    started = time.monotonic()
    with pytest.raises(error, match=rf"^{big}: file: is .* MiB; .* is at most "):
        reader(big)
    assert time.monotonic() - started < 1


def test_non_utf8_and_deep_json_are_one_line_errors(tmp_path):
    binary = tmp_path / "bin.json"
    binary.write_bytes(b'{"a": "\xff\xfe"}')
    with pytest.raises(ncu.NcuError, match=r"file: not UTF-8 text, so not an analytic-counts JSON "
                                           r"file \(bad byte at offset 7\)"):
        ncu.load_analytic(binary)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ncu.NcuError, match="JSON nested too deeply"):
        ncu.load_analytic(deep)


def test_huge_integers_in_a_result_name_the_field(tmp_path):
    document = results.recorded("ceilings")
    text = json.dumps(document).replace(json.dumps(document["ceilings"][0]["value"]), "9" * 400, 1)
    path = tmp_path / "huge.json"
    path.write_text(text)
    with pytest.raises(results.ResultError, match=rf"^{path}: ceilings\[0\]\.value: must be a finite number"):
        results.load(path)
    path.write_text(text.replace("9" * 400, "9" * 5000))
    with pytest.raises(results.ResultError, match=r"ceilings\[0\]\.value"):
        results.load(path)


@pytest.mark.parametrize("value", [1e300, 1e-300])
def test_verified_ceilings_outside_the_band_are_never_roofs(tmp_path, value):
    document = results.recorded("ceilings")
    document["ceilings"][0]["value"] = value
    with pytest.raises(results.ResultError, match=r"ceilings\[0\]\.value: .* is outside 1e-06\.\.1e\+12"):
        results.validate(document, "forged")
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(document))
    done = subprocess.run(ROOFLINE + ["plot", "--ceilings", str(path), "--demo-kernels"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "ceilings[0].value" in done.stderr


def test_piping_into_head_ends_quietly():
    # 1,500 rows are about 200 KB, over a pipe's 64 KiB buffer: the write itself meets the
    # closed pipe, as it does when `head` has left.
    kernels = sum((["--kernel", f"k{i}, {i + 1}e9, 1e9"] for i in range(1500)), [])
    command = ROOFLINE + ["plot", "--machine", "H200", *kernels]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT) as proc:
        proc.stdout.read(10)
        proc.stdout.close()  # the reader leaves while the table is still being written
        stderr = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 0
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr


def test_experiment_counts_and_rates_beyond_any_device_name_the_field(tmp_path):
    from rooflinelib.experiments import record
    document = json.loads((ROOT / "rooflinelib" / "data" / "h200_experiments_numba.json").read_text())
    name = document["experiments"][0]["name"]
    for value, reason in ((1e30, r"1e\+30 FLOPs is outside 0\.\.1e\+24 FLOPs"),
                          (1e24, "n_flops / median_s = .* GFLOP/s is above 1e\\+12 GFLOP/s"),
                          (10 ** 400, "must be a finite number")):
        document["experiments"][0]["variants"][0]["n_flops"] = value
        path = tmp_path / "experiments.json"
        path.write_text(json.dumps(document))
        with pytest.raises(ValueError, match=rf"^{path}: {name}\.variants\[0\]\.n_flops: {reason}"):
            record.load_experiments(path)


# --- a result CSV given to --ceilings (the JSON path's rules, read as a stream) ----------------

CSV_HEADER = "name,kind,value,unit,verified,spread\n"
CSV_ROWS = "dram,memory,4000,GB/s,true,0.01\nfp32,compute,60000,GFLOP/s,true,0.01\n"


def _plot_ceilings(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(ROOFLINE + ["plot", "--ceilings", str(path), "--demo-kernels", "--json"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def _one_error_line(done) -> str:
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize("body, reason", [
    # an unclosed quote: one cell over csv's 128 KiB field limit (was _csv.Error, a traceback)
    (CSV_HEADER + '"dram,memory,' + "x" * 200_000 + "\n", "row 2: longer than 4,096 characters"),
    (CSV_HEADER + '"dram,memory,x\n' + ("y" * 100 + "\n") * 2000,
     r"row 2: not CSV \(field larger than field limit"),
    (CSV_HEADER + "dram,memory,4000,GB/s,true,0.01\nfp32,compute,600\x0000,GFLOP/s,true,0.01\n",
     "row 3: value: must be a number, got '600\\\\x0000'"),
    (CSV_HEADER + "\x00\x00\x00\n", "row 2: has 1 cells, expected 6"),
])
def test_a_malformed_ceilings_csv_is_one_line_naming_the_option_file_and_row(tmp_path, body, reason):
    path = tmp_path / "bad.csv"
    path.write_text(body)
    line = _one_error_line(_plot_ceilings(path))
    assert re.match(rf"roofline: error: --ceilings: {re.escape(str(path))}: {reason}", line), line


def test_a_ceilings_csv_with_cr_line_ends_reads_as_the_same_roofline(tmp_path):
    # a spreadsheet's old Mac export ends lines with a lone CR (was _csv.Error, a traceback)
    unix, mac = tmp_path / "unix.csv", tmp_path / "mac.csv"
    unix.write_text(CSV_HEADER + CSV_ROWS)
    mac.write_bytes((CSV_HEADER + CSV_ROWS).replace("\n", "\r").encode())
    done_unix, done_mac = _plot_ceilings(unix), _plot_ceilings(mac)
    assert done_unix.returncode == done_mac.returncode == 0, done_mac.stderr
    assert json.loads(done_mac.stdout)["machine"] == json.loads(done_unix.stdout)["machine"] == \
        {"peak_gflops": 60000.0, "peak_gbps": 4000.0, "ridge": 15.0}


@pytest.mark.parametrize("value", ["1e300", "1e-300", "inf", "-5"])
def test_a_csv_ceiling_outside_the_band_is_worded_as_the_json_path_words_it(tmp_path, value):
    csv_path, json_path = tmp_path / "c.csv", tmp_path / "c.json"
    csv_path.write_text(CSV_HEADER + CSV_ROWS.replace("4000", value, 1))
    document = results.recorded("ceilings")
    at = [c["name"] for c in document["ceilings"]].index("dram")
    document["ceilings"][at]["value"] = float(value)
    json_path.write_text(json.dumps(document))
    from_csv, from_json = _one_error_line(_plot_ceilings(csv_path)), _one_error_line(_plot_ceilings(json_path))
    prefix_csv = f"roofline: error: --ceilings: {csv_path}: row 2: value: "
    prefix_json = f"roofline: error: --ceilings: {json_path}: ceilings[{at}].value: "
    assert from_csv.startswith(prefix_csv) and from_json.startswith(prefix_json), (from_csv, from_json)
    assert from_csv[len(prefix_csv):] == from_json[len(prefix_json):]


def test_16_mib_of_repeated_csv_rows_is_refused_at_the_first_bad_row_fast_and_small(tmp_path):
    # 2026-12-01, the 2-core VM (load 10): the old reader parsed the whole file before checking
    # a row, 6.8-7.1 s of CPU (25-27 s wall) and a peak of 496-500 MiB to refuse it; the stream
    # stops at row 3 in 0.012 s, its peak memory unchanged (27 MiB for the whole process).
    row = "dram,memory,4000,GB/s,true,0.01\n"
    path = tmp_path / "big.csv"
    path.write_text(CSV_HEADER + row * ((fileio.MAX_BYTES["result"] - len(CSV_HEADER)) // len(row)))
    assert path.stat().st_size > 16 * 2 ** 20 - len(row)
    script = textwrap.dedent(f"""
        import resource, sys, time
        from rooflinelib.store import lab_files as result_files
        from rooflinelib.store.results import ResultError
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.process_time()
        try:
            result_files.read_csv({str(path)!r})
        except ResultError as exc:
            print(exc)
        print(time.process_time() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    message, figures = done.stdout.strip().splitlines()
    assert message == f"{path}: row 3: name: dram appears twice (row 2 and this one)"
    cpu_s, grown_kib = map(float, figures.split())
    assert cpu_s < 0.5 and grown_kib < 8 * 1024, figures  # one 64 KiB chunk, not 16 MiB of rows


def test_a_csv_is_read_through_the_one_read_path(tmp_path):
    for special in ("/dev/zero",):
        link = tmp_path / "zero.csv"
        link.symlink_to(special)
        line = _one_error_line(_plot_ceilings(link))
        assert line == f"roofline: error: --ceilings: {link}: file: is a device, not a regular file, so not a result CSV"
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    assert _one_error_line(_plot_ceilings(fifo)).endswith("is a named pipe, not a regular file, so not a result CSV")
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    assert _one_error_line(_plot_ceilings(folder)).endswith("is a directory, not a regular file, so not a result CSV")
    binary = tmp_path / "binary.csv"
    binary.write_bytes(CSV_HEADER.encode() + b"dram,memory,\xff\n")
    assert _one_error_line(_plot_ceilings(binary)).endswith("not UTF-8 text, so not a result CSV (bad byte at offset 49)")


# --- roofline measure --out X --csv Y: both targets checked before either is written -----------

def test_a_csv_target_that_cannot_be_written_changes_no_file_and_costs_no_measurement(tmp_path):
    # was: the measurement ran, --out was replaced, then the CSV failed and the command exited 2
    out = _old_file(tmp_path, "x.json")
    started = time.monotonic()
    done = subprocess.run(ROOFLINE + ["measure", "--backend", "cpu", "--size-mib", "2", "--repeats", "2",
                                      "--out", str(out), "--csv", "/proc/self/y.csv"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert _one_error_line(done) == ("roofline: error: --csv: /proc/self/y.csv: file: cannot be written "
                                     "(No such file or directory); the old file, if any, is unchanged")
    assert "measuring" not in done.stderr.lower() and time.monotonic() - started < 30
    assert out.read_text() == OLD
    _only(tmp_path, "x.json")


def test_finishing_a_run_checks_the_csv_before_the_json_is_written(tmp_path):
    import argparse
    from rooflinelib.cli import measure
    from rooflinelib.cli.errors import UsageError
    from rooflinelib.views.tables import ceilings_table
    out = _old_file(tmp_path, "x.json")
    args = argparse.Namespace(out=str(out), no_save=False, quiet=True, json=False, csv="/proc/self/y.csv")
    with pytest.raises(UsageError, match="^--csv: /proc/self/y.csv: file: cannot be written"):
        measure._finish(results.recorded("ceilings"), args, ceilings_table)
    assert out.read_text() == OLD


def test_a_dangling_link_given_to_csv_names_the_folder_the_link_points_into(tmp_path):
    link = tmp_path / "y.csv"
    link.symlink_to(tmp_path / "gone" / "y.csv")
    done = subprocess.run(ROOFLINE + ["measure", "--backend", "cpu", "--no-save", "--csv", str(link)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    # was: "--csv: folder '<the link's own folder>' does not exist", which does exist
    assert _one_error_line(done) == (f"roofline: error: --csv: {link}: file: is a link to "
                                     f"'{tmp_path / 'gone' / 'y.csv'}', whose folder '{tmp_path / 'gone'}' "
                                     "does not exist")
    link.unlink()
    link.symlink_to(tmp_path / "missing.csv")
    with pytest.raises(FileError, match=rf"is a link to a missing file \('{tmp_path / 'missing.csv'}'\); refusing"):
        fileio.check_target(link)


def test_a_folder_where_no_file_can_be_made_is_refused_by_check_target(tmp_path):
    for folder in ("/proc/self", "/sys"):
        with pytest.raises(FileError, match=rf"^{folder}/x\.json: file: cannot be written \("):
            fileio.check_target(f"{folder}/x.json")
    fileio.check_target(tmp_path / "x.json")
    _only(tmp_path)  # the probe leaves nothing behind


def test_a_results_folder_that_cannot_take_the_result_is_named_before_measuring(tmp_path):
    # was: the measurement ran, then "--out: cannot create /dev/null (File exists)" blamed --out
    for folder, reason in (("/dev/null", "/dev/null: cannot create the folder (File exists)"),
                           ("/proc/self", "/proc/self/ceilings.json: file: cannot be written")):
        started = time.monotonic()
        done = subprocess.run(ROOFLINE + ["measure", "--backend", "cpu", "--size-mib", "2", "--repeats", "2"],
                              capture_output=True, text=True, timeout=120, cwd=ROOT,
                              env=dict(os.environ, ROOFLINE_RESULTS_DIR=folder))
        assert _one_error_line(done).startswith(f"roofline: error: ROOFLINE_RESULTS_DIR: {reason}")
        assert time.monotonic() - started < 30 and "dram" not in done.stderr


def test_roofline_profile_names_a_special_or_oversize_python_file_for_what_it_is(tmp_path):
    fifo, folder, big = tmp_path / "pipe.py", tmp_path / "folder.py", tmp_path / "big.py"
    os.mkfifo(fifo)
    folder.mkdir()
    with open(big, "wb") as f:  # sparse
        f.truncate(fileio.MAX_BYTES["text"] + 1)
    for path, reason in ((fifo, "not a regular file"), (folder, "not a regular file"),
                         (big, "over 16 MiB"), (tmp_path / "none.py", "no such Python file")):
        done = subprocess.run(ROOFLINE + ["profile", f"{path}:f", "--machine", "H200", "--n-flops", "1",
                                          "--n-bytes", "1"], capture_output=True, text=True, timeout=120, cwd=ROOT)
        # was "no such Python file" for the pipe and the folder, which are there
        assert _one_error_line(done).startswith(f"roofline: error: {path}: {reason}")
