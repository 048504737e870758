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

Loading checks every field a reader uses and raises ``ValueError`` with a one-line message that
names the file and the field; nothing half-loaded is returned.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

FORMAT = "rooflinelib-experiments"
VERSION = 1
DATA_DIR = Path(__file__).resolve().parent.parent / "data"


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
        out["variants"] = [asdict(v) for v in self.variants]
        out["notes"] = list(self.notes)
        return out


def _fail(where: str, field_name: str, reason: str):
    raise ValueError(f"{where}: {field_name}: {reason}")


def _number(where, name, value, positive=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        _fail(where, name, f"must be a finite number, got {value!r:.30}")
    if value < 0 or (positive and value == 0):
        _fail(where, name, f"must be {'positive' if positive else 'non-negative'}, got {value!r}")
    return value


def experiment_from_dict(data, where: str = "experiment") -> Experiment:
    if not isinstance(data, dict):
        _fail(where, "experiment", "must be an object")
    for key in ("name", "title", "backend", "created"):
        if not isinstance(data.get(key), str) or not data[key]:
            _fail(where, key, "missing")
    if not isinstance(data.get("device"), dict) or not data["device"].get("name"):
        _fail(where, f"{data['name']}.device.name", "missing")
    raw = data.get("variants")
    if not isinstance(raw, list) or not raw:
        _fail(where, f"{data['name']}.variants", "must be a non-empty list")
    variants = []
    for i, v in enumerate(raw):
        f = f"{data['name']}.variants[{i}]"
        if not isinstance(v, dict) or not isinstance(v.get("name"), str):
            _fail(where, f, "must be an object with a name")
        if v.get("verified") is not True:
            _fail(where, f"{f}.verified", "must be true: an unverified time is not a result")
        repeats = v.get("repeats")
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
            _fail(where, f"{f}.repeats", f"must be a whole number >= 1, got {repeats!r:.20}")
        variants.append(Variant(v["name"], float(_number(where, f"{f}.n_flops", v.get("n_flops"))),
                                float(_number(where, f"{f}.n_bytes", v.get("n_bytes"))),
                                float(_number(where, f"{f}.median_s", v.get("median_s"), True)),
                                float(_number(where, f"{f}.spread", v.get("spread"))),
                                repeats, True, dict(v.get("extra") or {})))
    return Experiment(data["name"], data["title"], data["backend"], dict(data["device"]),
                      data["created"], tuple(variants), tuple(data.get("notes") or ()),
                      dict(data.get("extra") or {}))


def save_experiments(experiments, path) -> Path:
    """Write experiments (all from one machine and backend) as one JSON file."""
    experiments = list(experiments)
    if not experiments:
        raise ValueError("experiments: nothing to save")
    first = experiments[0]
    document = {"format": FORMAT, "version": VERSION, "created": first.created,
                "backend": first.backend, "device": first.device,
                "experiments": [e.as_dict() for e in experiments]}
    path = Path(path)
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return path


def load_experiments(path) -> dict:
    """{name: Experiment} from a file, or a one-line ``ValueError`` naming the problem."""
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: file: not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: file: cannot be read ({type(exc).__name__})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON (truncated?): {exc.msg} at line {exc.lineno}") from None
    where = str(path)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        _fail(where, "format", f"not a {FORMAT} file")
    if document.get("version") != VERSION:
        _fail(where, "version", f"must be {VERSION}, got {document.get('version')!r:.20}")
    raw = document.get("experiments")
    if not isinstance(raw, list) or not raw:
        _fail(where, "experiments", "must be a non-empty list")
    found = {}
    for item in raw:
        experiment = experiment_from_dict(item, where)
        found[experiment.name] = experiment
    return found


def recorded_path(backend: str = "numba", device: str = "h200") -> Path:
    return DATA_DIR / f"{device}_experiments_{backend}.json"


def recorded_experiments(backend: str = "numba", device: str = "h200") -> dict:
    """The experiments recorded on the H200 and shipped with the course (ValueError if none)."""
    path = recorded_path(backend, device)
    if not path.exists():
        raise ValueError(f"{path.name}: file: no recorded experiments for {device} with {backend} "
                         "are shipped yet")
    return load_experiments(path)
