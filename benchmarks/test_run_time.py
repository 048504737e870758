"""How long ``python3 course.py test`` takes here, and where the time goes.

Runs the README's test command once on this checkout (installed already, or it installs first
and says so), with ``--durations``, and writes ``docs/measurements/test_run_time.json``: the date, the
cores, the pytest command course.py chose, the wall time of the whole command, pytest's own
time, the counts, what failed and the slowest items.  The issue's target is 4 min on the
course's 2-core VM.

    .venv/bin/python benchmarks/test_run_time.py            # or: python3 benchmarks/...
    .venv/bin/python benchmarks/test_run_time.py -- -k grading   # extra pytest arguments

A run shares the machine with whatever else runs there: quote it with the load beside it.
"""
from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "measurements" / "test_run_time.json"
SUMMARY = re.compile(r"=+ (?P<counts>.*?) in (?P<seconds>[0-9.]+)s")
DURATION = re.compile(r"^(?P<seconds>[0-9.]+)s (?P<phase>call|setup|teardown)\s+(?P<item>\S.*)$")


def main(argv: list) -> int:
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    command = [sys.executable, str(ROOT / "course.py"), "test", "--durations=25", "-rfE", *extra]
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall_s = time.perf_counter() - started
    text = done.stdout + done.stderr
    summary = SUMMARY.findall(text)
    running = [line for line in text.splitlines() if line.startswith("[course] running:")]
    record = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "load_average_before": load_before,
        "installed_first": "installing the course" in text,
        "pytest_command": running[-1].removeprefix("[course] running: ") if running else None,
        "returncode": done.returncode,
        "wall_s": round(wall_s, 1),
        "pytest_s": float(summary[-1][1]) if summary else None,
        "counts": summary[-1][0] if summary else None,
        # what failed, as pytest's short summary (-rfE) names it: a failed run is no timing to
        # quote until it is known why it failed
        "failed": [line.split(" ", 1)[1] for line in text.splitlines() if line.startswith(("FAILED ", "ERROR "))],
        "slowest": [{"seconds": float(m["seconds"]), "phase": m["phase"], "item": m["item"]}
                    for m in map(DURATION.match, text.splitlines()) if m],
    }
    partial = OUT.with_name(OUT.name + ".tmp")
    partial.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(partial, OUT)
    print(f"course.py test: exit {done.returncode}, {wall_s:.0f} s in all, pytest {record['pytest_s']} s "
          f"({record['counts']}); written to {OUT.relative_to(ROOT)}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
