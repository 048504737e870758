"""Measured bytes and instructions: one call of a student's function under Nsight Compute.

ncu profiles a process, so the function runs in a child Python that imports it from its module
file (``python -m rooflinelib.profiling.counters FILE.py FUNCTION``): the child calls the
module's ``setup()`` for the arguments, calls the function twice to compile and warm it, then
once more between ``cudaProfilerStart`` and ``cudaProfilerStop``.  ncu runs with
``--profile-from-start off``, so only the kernels of that one call are profiled, however many
there are (a 3-pass softmax launches three, a torch op may launch several); their counters are
summed.

Collected: DRAM read and write bytes, L2 (lts) bytes, L1 bytes, the FP32 and FP64 instruction
counts (FLOPs as :mod:`rooflinelib.hierarchy.ncu` counts them), tensor-pipe instructions, and
the kernels' own time.  ncu runs with ``--clock-control none`` and ``--cache-control all``
(:func:`rooflinelib.hierarchy.ncu.command`).
"""
from __future__ import annotations

import importlib.util
import inspect
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from rooflinelib.store.fileio import MAX_BYTES
from rooflinelib.profiling.profile_result import ProfileError
from rooflinelib.hierarchy import ncu

#: ncu itself, then one call of the function: the whole collection must stay under this.
TIMEOUT_S = 120
TENSOR_METRIC = "sm__inst_executed_pipe_tensor.sum"
ENV_NCU = "ROOFLINE_NCU"


def ncu_path() -> str:
    from rooflinelib.hierarchy.ncu import NCU_DEFAULT
    given = os.environ.get(ENV_NCU, "").strip()
    for candidate in (given, shutil.which("ncu") or "", NCU_DEFAULT):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise ProfileError("counters: Nsight Compute (ncu) was not found (looked at $ROOFLINE_NCU, PATH and "
                       f"{NCU_DEFAULT}); install it with the CUDA toolkit, or profile with counters=False")


def function_source(fn) -> tuple:
    """``(module file, function name)`` of a module-level function, for the child process."""
    target = getattr(fn, "py_func", None) or getattr(getattr(fn, "dispatcher", None), "py_func", None) or fn
    module = sys.modules.get(getattr(target, "__module__", None) or "")
    qualname = getattr(target, "__qualname__", "") or ""
    path = getattr(module, "__file__", None)
    if module is None or module.__name__ == "__main__" or not path or "<" in qualname or "." in qualname:
        raise ProfileError("fn: counters=True needs a function defined at the top level of a .py file (ncu runs "
                           "it in a process of its own, which cannot see a notebook's functions); put it in "
                           "a module with setup() and profile it from there, or with roofline profile FILE.py:FUNCTION --counters")
    if not callable(getattr(module, "setup", None)):
        raise ProfileError(f"fn: counters=True: {Path(path).name} defines no setup() returning the arguments of "
                           f"{qualname}; ncu's process calls it to make them")
    spec_name = getattr(getattr(module, "__spec__", None), "name", None)
    if spec_name and "." in spec_name:  # a package module: imported by name, so its relative imports work
        return f"module:{spec_name}", qualname
    return str(Path(path).resolve()), qualname


def _sum(kernels, metric: str) -> float:
    return float(sum(k.metrics.get(metric) or 0.0 for k in kernels))


def summarize(kernels) -> dict:
    """The launches of one call, summed: bytes by level, instructions, time."""
    if not kernels:
        raise ProfileError("counters: ncu profiled no kernel in the call (did the function launch GPU work?)")
    fp32 = sum(w * _sum(kernels, m) for m, w in ncu.FLOP_METRICS["fp32"].items())
    fp64 = sum(w * _sum(kernels, m) for m, w in ncu.FLOP_METRICS["fp64"].items())
    return {
        "kernels": len(kernels),
        "kernel_names": sorted({k.short_name for k in kernels})[:20],
        "dram_read_bytes": _sum(kernels, "dram__bytes_read.sum"),
        "dram_write_bytes": _sum(kernels, "dram__bytes_write.sum"),
        "lts_bytes": _sum(kernels, "lts__t_bytes.sum"),
        "l1_bytes": _sum(kernels, "l1tex__t_bytes.sum"),
        "fp32_flops": fp32,
        "fp64_flops": fp64,
        "flops_counted": fp32 + fp64,
        "tensor_instructions": (_sum(kernels, TENSOR_METRIC)
                                if any(TENSOR_METRIC in k.metrics for k in kernels) else None),
        "kernel_seconds": _sum(kernels, ncu.TIME_METRIC),
    }


def run_ncu(module_file: str, function: str, timeout_s: float = TIMEOUT_S, tensor: bool = True) -> tuple:
    """``(kernels, seconds ncu took, note)`` for one call of ``function`` of ``module_file``."""
    program = [sys.executable, "-m", "rooflinelib.profiling.counters", module_file, function]
    cmd = ncu.command(program, peaks=False, ncu=ncu_path())
    cmd.insert(1, "--profile-from-start")
    cmd.insert(2, "off")
    if tensor:
        at = cmd.index("--metrics") + 1
        cmd[at] += "," + TENSOR_METRIC
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(__file__).resolve().parents[2]),
                                                    env.get("PYTHONPATH", "")) if p)
    t0 = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=env,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ProfileError(f"counters: ncu did not finish within {timeout_s:.0f} s") from None
    except OSError as exc:
        raise ProfileError(f"counters: ncu could not start ({exc.strerror or exc})") from None
    took = time.perf_counter() - t0
    out = done.stdout
    if tensor and ("Failed to find metric" in out + done.stderr or "invalid metric" in (out + done.stderr).lower()):
        kernels, more, _ = run_ncu(module_file, function, timeout_s, tensor=False)
        return kernels, took + more, f"{TENSOR_METRIC} is not available on this GPU or ncu; tensor activity not counted"
    child_failed = "ROOFLINE-CHILD-ERROR" in done.stderr + out
    if done.returncode != 0 or child_failed:
        lines = [l for l in (done.stderr + "\n" + out).splitlines() if l.strip()]
        tail = next((l for l in reversed(lines) if "ROOFLINE-CHILD-ERROR" in l), lines[-1] if lines else "")
        raise ProfileError(f"counters: ncu failed (exit {done.returncode}): {' '.join(tail.split())[:300]}")
    start = out.find('"ID"')
    if start < 0:
        raise ProfileError("counters: ncu printed no CSV (no kernel between cudaProfilerStart and Stop?)")
    try:
        kernels = ncu.parse_csv(out[start:], "ncu output")
    except ncu.NcuError as exc:
        raise ProfileError(f"counters: {exc}") from None
    return kernels, took, None


def collect(fn, label: str) -> dict:
    """Counters of one call of ``fn`` (a module-level function of a file with ``setup()``)."""
    module_file, function = function_source(fn)
    kernels, took, note = run_ncu(module_file, function)
    summary = summarize(kernels)
    summary.update({"name": label, "collection_s": took, "ncu": "Nsight Compute, --clock-control none, "
                    "--cache-control all, --profile-from-start off"})
    if note:
        summary["note"] = note
    return summary


# --- the child: what runs under ncu ----------------------------------------------------------

def load_function(module_file: str, function: str):
    """Import ``module_file`` by path and return ``(function, module)``; ProfileError naming the
    file or the function when either is missing."""
    if module_file.startswith("module:"):
        module = importlib.import_module(module_file[len("module:"):])
        fn = getattr(module, function, None)
        if not callable(fn):
            raise ProfileError(f"{module.__name__}: defines no function {function!r}")
        return fn, module
    path = Path(module_file)
    if path.suffix != ".py" or not path.exists():
        raise ProfileError(f"{module_file}: no such Python file")
    if not path.is_file():  # a folder, a device, a pipe: importing would fail or block
        raise ProfileError(f"{module_file}: not a regular file, so not a Python file to import")
    if path.stat().st_size > MAX_BYTES["text"]:  # the one read path's cap for a text file
        raise ProfileError(f"{module_file}: over {MAX_BYTES['text'] // 2 ** 20} MiB, so not a Python file to import")
    name = "_roofline_profiled_" + "".join(c if c.isalnum() else "_" for c in path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:
        raise ProfileError(f"{path.name}: importing it raised {type(exc).__name__}: {' '.join(str(exc).split())[:200]}") from None
    fn = getattr(module, function, None)
    if not callable(fn):
        raise ProfileError(f"{path.name}: defines no function {function!r}")
    return fn, module


def setup_args(module, where: str) -> tuple:
    setup = getattr(module, "setup", None)
    if setup is None:
        return ()
    try:
        args = setup()
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:
        raise ProfileError(f"{where}: setup() raised {type(exc).__name__}: {' '.join(str(exc).split())[:200]}") from None
    return tuple(args) if isinstance(args, (tuple, list)) else (args,)


def _profiler(library: str):
    """(start, stop, synchronize) of cudaProfilerStart/Stop through the library in use."""
    if library == "cupy":
        import cupy
        return cupy.cuda.profiler.start, cupy.cuda.profiler.stop, cupy.cuda.Device().synchronize
    if library == "torch":
        import torch
        return torch.cuda.profiler.start, torch.cuda.profiler.stop, torch.cuda.synchronize
    from numba import cuda
    return cuda.profile_start, cuda.profile_stop, cuda.synchronize


def _child(module_file: str, function: str) -> int:
    from rooflinelib.profiling.function_timing import detect_library
    fn, module = load_function(module_file, function)
    args = setup_args(module, Path(module_file).name if not module_file.startswith("module:") else module_file)
    returned = None
    for _ in range(2):  # compile and warm up outside the profiled range
        returned = fn(*args)
    library = detect_library(fn, args, {}, returned)
    if library == "cpu":
        raise ProfileError(f"{function}: launched no GPU work that ncu can see (its arguments and result "
                           "are not CuPy, torch or Numba device arrays)")
    start, stop, sync = _profiler(library)
    sync()
    start()
    fn(*args)
    sync()
    stop()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(_child(sys.argv[1], sys.argv[2]))
    except ProfileError as exc:
        print(f"ROOFLINE-CHILD-ERROR {exc}", file=sys.stderr)
        sys.exit(2)
    except Exception as exc:  # reported to the parent in one line
        print(f"ROOFLINE-CHILD-ERROR {type(exc).__name__}: {' '.join(str(exc).split())[:300]}", file=sys.stderr)
        sys.exit(2)
