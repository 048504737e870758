"""Both GPU extras resolve against PyPI with the course's own pins (numpy < 2.5 above all), and
each pulls one CUDA major only: gpu the CUDA 13 stack, gpu-cu12 the CUDA 12 one.

uv resolves them for this interpreter without installing anything (``uv pip compile``, uv being
in the test extra), reading wheel metadata only: 1.6 s per extra on the 2-core VM, where
pip's ``install --dry-run`` took 7.9 s and 10.1 s in a whole test run.  Without a route to the
package index the test is skipped with the reason, unless ``ROOFLINE_REQUIRE_NETWORK=1`` (set
by .ci/run).
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
REQUIRED = os.environ.get("ROOFLINE_REQUIRE_NETWORK", "") == "1"

pytestmark = pytest.mark.slow

#: extra -> (the CUDA major its stack must be built for, the one it must not pull)
EXTRAS = {"gpu": ("13", "12"), "gpu-cu12": ("12", "13")}


def _index_reachable() -> str:
    try:
        with socket.create_connection(("pypi.org", 443), timeout=5):
            return ""
    except OSError as exc:
        return f"pypi.org:443 unreachable ({exc})"


def test_the_two_gpu_extras_are_declared_side_by_side():
    extras = PROJECT["optional-dependencies"]
    assert {"gpu", "gpu-cu12"} <= set(extras)
    assert "numba-cuda[cu13]==0.30.4" in extras["gpu"] and "numba-cuda[cu12]==0.30.4" in extras["gpu-cu12"]
    assert any(r.startswith("cupy-cuda13x") for r in extras["gpu"])
    assert any(r.startswith("cupy-cuda12x") for r in extras["gpu-cu12"])


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_gpu_extra_resolves_for_one_cuda_major(extra, tmp_path):
    unreachable = _index_reachable()
    if unreachable:
        if REQUIRED:
            pytest.fail(f"ROOFLINE_REQUIRE_NETWORK=1 but {unreachable}")
        pytest.skip(f"cannot resolve against PyPI: {unreachable}")
    wanted, other = EXTRAS[extra]
    requirements = PROJECT["dependencies"] + PROJECT["optional-dependencies"][extra]
    pinned = tmp_path / "resolved.txt"
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    done = subprocess.run([sys.executable, "-m", "uv", "pip", "compile", "--quiet", "--no-header", "--no-annotate",
                           "--python-version", python, "-", "-o", str(pinned)],
                          input="\n".join(requirements), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line.split(";")[0].strip() for line in pinned.read_text().splitlines()]
    resolved = dict(line.lower().split("==") for line in lines if "==" in line)
    assert len(resolved) >= len(requirements), pinned.read_text()
    assert resolved["numba-cuda"] == "0.30.4"
    assert int(resolved["numpy"].split(".")[0]) < 3 and tuple(
        int(x) for x in resolved["numpy"].split(".")[:2]) < (2, 5), resolved["numpy"]
    assert f"cupy-cuda{wanted}x" in resolved, sorted(resolved)
    assert resolved["cuda-toolkit"].split(".")[0] == wanted, resolved["cuda-toolkit"]
    wrong = [name for name in resolved if re.search(rf"(cu{other}x?|cuda{other}x)$", name)]
    assert not wrong, f"[{extra}] pulled CUDA {other} packages: {wrong}"
