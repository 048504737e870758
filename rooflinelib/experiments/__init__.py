"""The experiments behind notebooks 03, 04 and 06: small kernels that each make one point.

Labs 1 and 3 (:mod:`rooflinelib.measure`) measure the ceilings and the sweep.  The notebooks
also set predictions against measurements and demonstrate the pitfalls, and those need kernels
of their own: softmax three-pass against fused, the transpose ladder, a launch-bound vector add,
a starved grid, serial against overlapped phases, a cache-resident working set, strided reads,
transcendentals, an O(n^2) algorithm against an O(n log n) one, dependent against independent
FMA chains, and the float64 and ``range``-loop traps.

Each runs on this machine's CPU (:mod:`.cpu`, Numba's parallel target) and on a CUDA GPU
(:mod:`.gpu`, Numba-CUDA), verifies its output before a time is kept, and returns an
:class:`~rooflinelib.experiments.record.Experiment`: rows of variants with FLOPs, bytes, the
median time, its spread, and the rates.  :mod:`.record` saves and loads them, so that runs made
on the H200 ship with the course and stand in when nothing can be measured.
:mod:`.pitfall_readings` and :mod:`.rows` turn an experiment into the rows of numbers a notebook
prints beside its table; the notebooks say what they mean in their own prose.  :mod:`.traps`
holds notebook 03's float64 and ``range`` traps, :mod:`.roofs` the DRAM roofs an experiment is
judged against.  The package itself offers :data:`CATALOGUE`, :func:`run` and
:func:`experiment_for` (measure when the mode allows, load the recorded run otherwise).

Light to import: numba and numpy load when an experiment runs.
"""
from __future__ import annotations

from rooflinelib.experiments.record import (Experiment, Variant, load_experiments,
                                            recorded_experiments, save_experiments)

__all__ = ["CATALOGUE", "PITFALLS_RUN", "GPU_ONLY", "run", "Outcome", "experiment_for", "Experiment",
           "Variant", "load_experiments", "recorded_experiments", "save_experiments"]

#: Every experiment, with the notebook that shows it and what it shows.
CATALOGUE = {
    "chains": ("03", "independent against dependent FMA chains, at full and at low occupancy"),
    "traps": ("03", "float64 promotion and range bookkeeping: rates and SASS (GPU only)"),
    "softmax": ("04", "three-pass against fused softmax: the predicted 2.5x"),
    "transpose": ("04", "the transpose ladder: naive, tiled, padded, against a copy"),
    "launch": ("06", "pitfall 1: a launch taken apart (kernel, host dispatch, device cost)"),
    "starved": ("06", "pitfall 1: the sweep kernel with too little parallelism"),
    "overlap": ("06", "pitfall 2: two phases in sequence against one overlapped pass"),
    "cache": ("06", "pitfall 3: a cache-resident working set against a DRAM-sized one"),
    "transcendental": ("06", "pitfall 5: exp against FMA"),
    "strided": ("06", "pitfall 6: useful bytes of strided reads"),
    "algorithm": ("06", "pitfall 7: direct O(n m) correlation against the FFT route"),
    "clocks": ("06", "pitfall 8: the same ceiling measured again and again"),
    "launch_empty": ("06", "pitfall 1: an empty kernel timed by device events and by the wall clock (GPU only)"),
    "wrong_ceiling": ("06", "pitfall 4: one GEMM shape on the CUDA cores and on the tensor cores (GPU only)"),
    "algorithm_sizes": ("06", "pitfall 7: the direct correlation against the FFT route at four filter lengths (GPU only)"),
    "sustained": ("06", "pitfall 8: a tensor-core GEMM held for minutes, clock and power beside it (GPU only)"),
}


#: The experiments of the pitfalls run (benchmarks/record_pitfalls.sh), shipped apart from
#: the main recorded run (record.pitfalls_path).
PITFALLS_RUN = ("launch_empty", "wrong_ceiling", "algorithm_sizes", "sustained")


def run(name: str, backend: str = "cpu", progress=None, **options) -> Experiment:
    """Run one experiment of :data:`CATALOGUE` on ``backend`` ('cpu' or 'numba')."""
    if name not in CATALOGUE:
        raise ValueError(f"experiment: unknown {name!r}; known: {', '.join(CATALOGUE)}")
    if backend == "cpu":
        from rooflinelib.experiments import cpu as impl
    elif backend == "numba":
        from rooflinelib.experiments import gpu as impl
    else:
        raise ValueError(f"backend: must be 'cpu' or 'numba', got {backend!r}")
    function = getattr(impl, f"run_{name}", None)
    if function is None:
        raise ValueError(f"experiment {name!r}: not available on the {backend} backend")
    return function(progress=progress, **options)


# --- what a notebook calls: measure when the mode allows, load otherwise ----------------------

from dataclasses import dataclass  # noqa: E402
from typing import Optional  # noqa: E402


@dataclass(frozen=True)
class Outcome:
    """An experiment for a notebook, where it came from, and what was passed over."""

    experiment: Optional[Experiment]
    origin: str  # "live", "recorded" or "none"
    message: str


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def _said(experiment) -> str:
    """What a live run's roof sources said (the chain's message), after the outcome's line."""
    return "".join(f" {line}" for line in experiment.said)


def _live(name, backend, progress, options):
    try:
        return run(name, backend, progress, **options), None
    except Exception as exc:  # a failed verification included: an error, never a number
        return None, f"{backend} run failed ({_one_line(exc)})"


#: What an experiment with no CPU version says on a machine without a GPU (no "run failed").
GPU_ONLY = "this experiment needs a GPU"


def _has_cpu_version(name: str) -> bool:
    from rooflinelib.experiments import cpu
    return hasattr(cpu, f"run_{name}")


def experiment_for(mode, name: str, progress=None, **options) -> Outcome:
    """Run ``name`` live on the mode's backend, else load the recorded H200 run, else say why not.

    ``mode`` is a :class:`rooflinelib.modes.RunMode`.  On a GPU, an experiment the GPU backend
    does not have runs on the CPU instead, and the message says so.  Never raises.
    """
    if name not in CATALOGUE:
        raise ValueError(f"experiment: unknown {name!r}; known: {', '.join(CATALOGUE)}")
    reasons = []
    if mode.mode == "gpu" and mode.backend == "numba":
        from rooflinelib.experiments import gpu
        if hasattr(gpu, f"run_{name}"):
            experiment, reason = _live(name, "numba", progress, options.get("gpu", {}))
            if experiment is not None:
                return Outcome(experiment, "live", f"Measured just now on {mode.device} (numba-cuda)."
                               + _said(experiment))
            reasons.append(reason)
        else:
            reasons.append("the GPU backend has no version of this experiment")
    elif mode.mode == "gpu":
        reasons.append(f"the experiments need the numba backend, and this GPU is served by {mode.backend}")
    if mode.live and not _has_cpu_version(name):
        # Expected, not a failure: the recorded run stands in, and the message says so once.
        reasons.append(GPU_ONLY)
    elif mode.live:
        experiment, reason = _live(name, "cpu", progress, options.get("cpu", {}))
        if experiment is not None:
            where = experiment.device.get("name", "this CPU")
            return Outcome(experiment, "live", f"Measured just now on {where} (a CPU, not a GPU)."
                           + (f" Not on the GPU: {'; '.join(reasons)}." if reasons else "")
                           + _said(experiment))
        reasons.append(reason)
    try:
        experiment = recorded_experiments()[name]
    except KeyError:
        reasons.append(f"not recorded yet: {name!r} is recorded by benchmarks/record_pitfalls.sh"
                       if name in PITFALLS_RUN else f"the recorded runs have no {name!r} experiment")
    except ValueError as exc:
        reasons.append(str(exc))
    else:
        return Outcome(experiment, "recorded",
                       f"Recorded on {experiment.device.get('name')} on {experiment.created[:10]} "
                       "and shipped with the course." + (f" ({'; '.join(reasons)})" if reasons else ""))
    return Outcome(None, "none", "Nothing could be measured or loaded for this experiment: "
                   + "; ".join(reasons) + ".")
