"""Experiment results: what one run measured, and a versioned JSON file of several.

An :class:`Experiment` is a list of :class:`Variant` rows (``naive``, ``tiled``, ...), each
with its counted FLOPs and bytes, the median of its timed repeats and their spread.  Rates are
derived from those, never stored twice.  Only verified variants exist: a kernel whose output
was wrong raises before a row is made.

File format (``rooflinelib-experiments``, version 1)::

    {"format": "rooflinelib-experiments", "version": 1, "created": "...", "backend": "numba",
     "device": {"name": "NVIDIA H200", ...},
     "experiments": [{"name": "softmax", "title": "...", "variants": [{"name": "3-pass",
        "n_flops": ..., "n_bytes": ..., "median_s": ..., "spread": ..., "repeats": 20,
        "verified": true, "extra": {}}, ...], "notes": [], "extra": {}}, ...]}

The format is declared as a JSON Schema, ``rooflinelib/store/schemas/experiments.schema.json``.
Saving and loading check every field a reader uses and raise ``ValueError`` with a one-line
message that names the file and the field; nothing half-loaded is returned.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from rooflinelib.core import sanity
from rooflinelib.store import validation
from rooflinelib.store.fileio import parse_json, read_text, write_atomic
from rooflinelib.store.recorded import recorded_file

FORMAT = "rooflinelib-experiments"
VERSION = 1


@dataclass(frozen=True)
class Variant:
    """One verified, timed variant of an experiment."""

    name: str
    n_flops: float  # counted FLOPs of one run
    n_bytes: float  # counted bytes of one run (the useful bytes, for strided reads)
    median_s: float
    spread: float  # (slowest - fastest) / median of the timed repeats
    repeats: int
    verified: bool = True
    extra: dict = field(default_factory=dict)

    @property
    def gflops(self) -> float:
        return self.n_flops / self.median_s / 1e9

    @property
    def gbps(self) -> float:
        return self.n_bytes / self.median_s / 1e9

    @property
    def intensity(self) -> float:
        return self.n_flops / self.n_bytes if self.n_bytes else math.inf


@dataclass(frozen=True)
class Experiment:
    name: str
    title: str
    backend: str  # "cpu" or "numba"
    device: dict
    created: str
    variants: tuple
    notes: tuple = ()
    extra: dict = field(default_factory=dict)
    #: What the run's roof sources said (the chain's message: where its Lab 1 result came from,
    #: whether it was measured now and stored), for the notebook's message line.  Not saved: it
    #: names the student's own files, which a shipped recorded run must not.
    said: tuple = field(default=(), compare=False)

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(f"variant: {self.name} has no {name!r}; it has "
                       f"{', '.join(v.name for v in self.variants)}")

    def ratio(self, slow: str, fast: str) -> float:
        """How many times faster ``fast`` ran than ``slow`` (ratio of median times)."""
        return self.variant(slow).median_s / self.variant(fast).median_s

    def as_dict(self) -> dict:
        out = asdict(self)
        del out["said"]
        out["variants"] = [asdict(v) for v in self.variants]
        out["notes"] = list(self.notes)
        return out


@lru_cache(maxsize=None)
def _checker():
    return validation.validator(validation.schema("experiments"))


def validate(document, where: str = "experiments") -> dict:
    """Check an experiments document against ``rooflinelib/store/schemas/experiments.schema.json``;
    returns it unchanged or raises a one-line ``ValueError`` naming the field (an experiment's
    fields are named by the experiment: ``softmax.variants[0].median_s``)."""
    validation.check(document, _checker(), where, ValueError, named=("experiments",))
    # What a schema cannot say: each variant's counts, time and rates are physical ones.
    for experiment in document["experiments"]:
        for i, v in enumerate(experiment["variants"]):
            field = f"{where}: {experiment['name']}.variants[{i}]"
            flops = sanity.number(v["n_flops"], f"{field}.n_flops", error=ValueError, unit="FLOPs")
            n_bytes = sanity.number(v["n_bytes"], f"{field}.n_bytes", error=ValueError, unit="bytes")
            seconds = sanity.number(v["median_s"], f"{field}.median_s", error=ValueError, unit="s")
            # Only the top of the rate bands: a toy variant may be slow, no device is faster.
            for rate, unit, what in ((flops / seconds / 1e9, "GFLOP/s", "n_flops"),
                                     (n_bytes / seconds / 1e9, "GB/s", "n_bytes")):
                if rate > sanity.BANDS[unit][1]:
                    validation.fail(ValueError, where, f"{experiment['name']}.variants[{i}].{what}",
                                    f"{what} / median_s = {rate:g} {unit} is above "
                                    f"{sanity.BANDS[unit][1]:g} {unit}; check the units")
    return document


def _experiment(data) -> Experiment:
    """An Experiment from one validated entry of a document's ``experiments``."""
    variants = tuple(Variant(v["name"], float(v["n_flops"]), float(v["n_bytes"]), float(v["median_s"]),
                             float(v["spread"]), v["repeats"], True, dict(v.get("extra") or {}))
                     for v in data["variants"])
    return Experiment(data["name"], data["title"], data["backend"], dict(data["device"]),
                      data["created"], variants, tuple(data.get("notes") or ()),
                      dict(data.get("extra") or {}))


def save_experiments(experiments, path) -> Path:
    """Validate, then write experiments (all from one machine and backend) as one JSON file,
    atomically (a crash never leaves a half-written file)."""
    experiments = list(experiments)
    if not experiments:
        raise ValueError("experiments: nothing to save")
    first = experiments[0]
    document = {"format": FORMAT, "version": VERSION, "created": first.created,
                "backend": first.backend, "device": first.device,
                "experiments": [e.as_dict() for e in experiments]}
    validate(document)
    return write_atomic(path, json.dumps(document, indent=1, allow_nan=False) + "\n", ValueError)


def load_experiments(path) -> dict:
    """{name: Experiment} from a file, or a one-line ``ValueError`` naming the problem."""
    where = str(Path(path))
    document = validate(parse_json(read_text(path, ValueError, "an experiments file", "result"), where, ValueError), where)
    return {e.name: e for e in map(_experiment, document["experiments"])}


def recorded_path(backend: str = "numba", device: str = "h200") -> Path:
    return recorded_file(f"{device}_experiments_{backend}.json")


def pitfalls_path(backend: str = "numba", device: str = "h200") -> Path:
    """The later run of the pitfall measurements (benchmarks/record_pitfalls.sh): the empty
    launch, the wrong ceiling, the sustained load, and the algorithm race again."""
    return recorded_file(f"{device}_pitfalls_{backend}.json")


def recorded_experiments(backend: str = "numba", device: str = "h200") -> dict:
    """The experiments recorded on the H200 and shipped with the course (ValueError if none).
    Where the pitfalls run is shipped too, its experiments are added, and replace an older
    run's experiment of the same name."""
    path = recorded_path(backend, device)
    if not path.exists():
        raise ValueError(f"{path.name}: file: no recorded experiments for {device} with {backend} "
                         "are shipped yet")
    found = load_experiments(path)
    later = pitfalls_path(backend, device)
    if later.exists():
        found.update(load_experiments(later))
    return found
