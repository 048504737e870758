"""labs/lab4_ncu.py profile writes two files, --out (ncu's CSV) and --log (ncu's messages): a
command that fails leaves neither changed, and one that succeeds writes both.

A stand-in ncu (a shell script) prints a recorded CSV and a message, and can spoil --out while
it runs, as anything else on the machine could during a profile of minutes: both targets are
then checked again before either is written.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rooflinelib.hierarchy import ncu

ROOT = Path(__file__).resolve().parents[2]
OLD_CSV, OLD_LOG = "old csv\n", "old log\n"


def _fake_ncu(folder: Path, then: str = "", status: int = 0) -> Path:
    """An ncu that prints the recorded H200 CSV (none when ``status`` says it failed) and one
    message, runs ``then`` (shell), and exits with ``status``."""
    fake = folder / "ncu"
    csv = f"cat '{ncu.recorded_csv()}'" if status == 0 else ":"
    fake.write_text(f"#!/bin/sh\n{csv}\necho 'ncu: profiled 6 kernels' >&2\n{then}\nexit {status}\n")
    fake.chmod(0o755)
    return fake


def _old_files(folder: Path):
    out, log = folder / "prof.csv", folder / "ncu.log"
    out.write_text(OLD_CSV)
    log.write_text(OLD_LOG)
    return out, log


def _profile(fake: Path, out, log):
    return subprocess.run([sys.executable, str(ROOT / "labs" / "lab4_ncu.py"), "profile", "--ncu", str(fake),
                           "--out", str(out), "--log", str(log), "--", "true"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_an_out_spoiled_during_the_run_leaves_the_log_as_it_was(tmp_path):
    # --log was written before --out, so a failure on --out left a changed --log
    out, log = _old_files(tmp_path)
    done = _profile(_fake_ncu(tmp_path, then=f"rm '{out}' && mkdir '{out}'"), out, log)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"lab4: --out: {out}: file: is a directory, not a regular " \
                                                   "file; refusing to replace it"
    assert log.read_text() == OLD_LOG and out.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ncu", "ncu.log", "prof.csv"]  # no temporary file


def test_a_log_spoiled_during_the_run_leaves_the_csv_as_it_was(tmp_path):
    out, log = _old_files(tmp_path)
    done = _profile(_fake_ncu(tmp_path, then=f"rm '{log}' && mkdir '{log}'"), out, log)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"lab4: --log: {log}: file: is a directory")
    assert out.read_text() == OLD_CSV


def test_a_good_run_writes_both(tmp_path):
    out, log = _old_files(tmp_path)
    done = _profile(_fake_ncu(tmp_path), out, log)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == ncu.recorded_csv().read_text() and log.read_text() == "ncu: profiled 6 kernels\n"
    assert "6 profiled launch(es)" in done.stdout


def test_a_failed_ncu_keeps_its_messages_and_no_csv(tmp_path):
    # what --log is for: why ncu failed; the CSV of a failed run is never stored
    out, log = _old_files(tmp_path)
    done = _profile(_fake_ncu(tmp_path, status=3), out, log)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == ("lab4: ncu: exited with status 3: ncu: profiled 6 kernels; "
                                                    f"{out} was not written; its messages are in {log}")
    assert out.read_text() == OLD_CSV and log.read_text() == "ncu: profiled 6 kernels\n"


def test_one_file_for_both_is_refused_before_ncu_runs(tmp_path):
    # the CSV would be written, then replaced by the messages
    out, _ = _old_files(tmp_path)
    link = tmp_path / "same.csv"
    link.symlink_to(out)
    for log in (out, link):
        done = _profile(_fake_ncu(tmp_path, then=f"touch '{tmp_path / 'ran'}'"), out, log)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr == f"lab4: --log: {log}: is the same file as --out; give another\n"
        assert out.read_text() == OLD_CSV and not (tmp_path / "ran").exists()
