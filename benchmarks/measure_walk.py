"""Walk one ``roofline measure --backend cpu`` from the CLI to its result file and count the
package's rooms it enters: its modules and its sub-packages (roles).

    .venv/bin/python benchmarks/measure_walk.py [--out docs/measurements/measure_walk_cpu.json]

A profile hook (``sys.setprofile``, and ``threading.setprofile`` for the threads a run starts)
sees every Python call.  A call *enters* a module when the caller's module is another one (a
module's calls to itself are not counted), and *enters* a role when the caller's sub-package is
another one (``rooflinelib.store.results`` is the role ``store``; a top-floor module such as
``rooflinelib.modes`` is its own role), library callbacks left out.  The command runs in this process exactly as
``roofline measure --backend cpu --out FILE`` does, with the short CPU window of the test runs
(``$ROOFLINE_CPU_WINDOW_S=0.1``, ``$ROOFLINE_CPU_REPEATS=3`` unless set), the result written
into a temporary folder.  It writes the rooms in order of first entry, how often each was
entered, and each crossing (caller function -> callee function, with its count), so that a
reader can say why each room is on the path.  A call into the package from a library (a
jsonschema type check calling the course's number test) is an entry too; ``callbacks`` counts
those apart.  The rooms and the crossings that read, validate or write a file do not depend on
the machine; the entries into the kernels' timing (``measure.cpu``, ``measure.timing``,
``measure.protocol``) grow with the trials each window holds.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import platform
import sys
import tempfile
import threading
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "rooflinelib"
DEFAULT_OUT = ROOT / "docs" / "measurements" / "measure_walk_cpu.json"


def role(module: str) -> str:
    """The sub-package a module lives in (``store`` for ``rooflinelib.store.results``); a
    top-floor module is its own role, and the package's ``__init__`` is the role ``rooflinelib``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


class Walk:
    """The profile hook and its counts; ``origins`` are the modules the walk is started from
    (their calls into the package are the command's, not a library's callbacks)."""

    def __init__(self, origins=("__main__", __name__)) -> None:
        self.origins = set(origins)
        self.modules = collections.Counter()
        self.callbacks = collections.Counter()
        self.roles = collections.Counter()
        self.crossings = collections.Counter()
        self.order: list[str] = []
        self.role_order: list[str] = []

    def hook(self, frame, event, arg):
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if module != PACKAGE and not module.startswith(PACKAGE + "."):
            return
        back = frame.f_back
        caller = back.f_globals.get("__name__", "") if back is not None else ""
        if caller == module:
            return
        self.modules[module] += 1
        if module not in self.order:
            self.order.append(module)
        caller_func = f"{caller}.{back.f_code.co_name}" if back is not None else "?"
        self.crossings[(caller_func, f"{module}.{frame.f_code.co_name}")] += 1
        in_package = caller == PACKAGE or caller.startswith(PACKAGE + ".")
        if not in_package and caller not in self.origins:
            self.callbacks[module] += 1  # a library calling back, not a step of the command
        elif not in_package or role(caller) != role(module):
            self.roles[role(module)] += 1
            if role(module) not in self.role_order:
                self.role_order.append(role(module))

    def summary(self) -> dict:
        return {"rooms": len(self.order),
                "roles": len(self.role_order),
                "modules": {m: self.modules[m] for m in self.order},
                "role_entries": {r: self.roles[r] for r in self.role_order},
                "callbacks": dict(self.callbacks),
                "crossings": [{"from": a, "to": b, "calls": n}
                              for (a, b), n in self.crossings.items()]}


def walk() -> dict:
    os.environ.setdefault("ROOFLINE_CPU_WINDOW_S", "0.1")
    os.environ.setdefault("ROOFLINE_CPU_REPEATS", "3")
    sys.path.insert(0, str(ROOT))
    from rooflinelib.cli import main as roofline  # imported before the walk: imports are no calls

    steps = Walk()
    with tempfile.TemporaryDirectory(prefix="measure_walk_") as folder:
        os.environ["ROOFLINE_RESULTS_DIR"] = folder
        target = str(Path(folder) / "ceilings_cpu.json")
        sys.setprofile(steps.hook)
        threading.setprofile(steps.hook)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                code = roofline(["measure", "--backend", "cpu", "--quiet", "--out", target])
        except SystemExit as exc:
            code = exc.code
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
        if code not in (0, None) or not Path(target).is_file():
            raise SystemExit(f"roofline measure --backend cpu failed (exit {code}); no walk")
    return steps.summary()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="the walk as JSON")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from rooflinelib.store.fileio import check_target, write_atomic
    out_error = lambda reason: SystemExit(f"--out: {reason}")  # one line, names the option
    check_target(args.out, out_error)
    result = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "machine": {"platform": platform.platform(), "python": platform.python_version()},
              "command": "roofline measure --backend cpu --quiet --out FILE",
              **walk()}
    write_atomic(args.out, json.dumps(result, indent=1) + "\n", out_error)
    print(f"roofline measure --backend cpu: {result['rooms']} modules in "
          f"{result['roles']} roles; modules entered more than once from elsewhere: "
          + ", ".join(f"{m.removeprefix(PACKAGE + '.')} {n}x"
                      for m, n in result["modules"].items() if n > 1))
    print(f"roles: " + ", ".join(f"{r} {n}x" for r, n in result["role_entries"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
