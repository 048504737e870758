"""Child Python processes that run the GPU code on numba-cuda's CUDA simulator.

``NUMBA_ENABLE_CUDASIM=1`` must be set before numba is imported, so the GPU tests run their
code in a child process.  Each child is quickened first (:func:`rooflinelib.profiling.simulator.quicken`:
a short switch interval, and the simulator's shared arrays looked up under a lock), which
makes a simulated launch several times faster and changes nothing it computes.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The child's own sys.argv is what `python SCRIPT ARGS` or `python -c CODE ARGS` would give.
_PRELUDE = """
import os, runpy, sys
from rooflinelib.profiling.simulator import quicken
quicken()
kind, target = sys.argv[1], sys.argv[2]
if kind == "script":
    sys.argv = [target, *sys.argv[3:]]
    sys.path.insert(0, os.path.dirname(os.path.abspath(target)))  # as `python SCRIPT` puts it
    runpy.run_path(target, run_name="__main__")
else:
    sys.argv = ["-c", *sys.argv[3:]]
    exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
"""


def run(script=None, code=None, args=(), timeout: float = 300, cwd=ROOT) -> subprocess.CompletedProcess:
    """Run ``script`` (a path) or ``code`` (Python source) with ``args`` in a child process on
    the simulator; returns the finished process, its output captured as text."""
    if (script is None) == (code is None):
        raise ValueError("script, code: give exactly one")
    kind, target = ("script", str(script)) if script is not None else ("code", code)
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    return subprocess.run([sys.executable, "-c", _PRELUDE, kind, target, *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=timeout, cwd=cwd)


def result(code, args=(), timeout: float = 600):
    """Run ``code`` as :func:`run` does and return the JSON it printed after ``RESULT `` (the child must
    exit 0 and print one such line); the capstone's simulator tests read their findings this way."""
    done = run(code=code, args=args, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


# A capstone test module's VARIANTS (name: the solution's three-pass source edits) checked in one child;
# sys.argv[1] is tests/, sys.argv[2] the module's name.
_THREE_PASS_VARIANTS = r"""
import importlib, json, sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/profiling"]
from rooflinelib.profiling import capstone
from test_capstone_review32 import _solution
here = importlib.import_module(sys.argv[2])
good = _solution()
out = {}
for key, replace in here.VARIANTS.items():
    k = _solution(replace)
    got = capstone.check_kernels(k["three_pass_passes"], good["fused_passes"])
    out[key] = [[c.status, c.message] for c in got.checks]
print("RESULT " + json.dumps(out))
"""


def three_pass_variants(module: str) -> dict:
    """``{name: [[status, message] for the 3-pass and the fused check]}`` for each entry of ``module``'s
    ``VARIANTS``, the solution's fused kernels beside each edited 3-pass version, checked in the simulator."""
    return result(_THREE_PASS_VARIANTS, args=[ROOT / "tests", module])
