"""The ceiling registry: one row per ceiling, as BabelStream keeps one table of its kernels.

A row says what the ceiling is (name, kind, label, unit, chart colour), which backends measure
it, and how: ``measure(backend, options) -> Measurement``.  A compute row also says its number
type (``dtype``), by its ``group`` whether vector units or matrix units run it, and whether a
GEMM in its dtype is scored against it (``gemm``): these come from :mod:`.vocabulary`, the one
table from a dtype to a ceiling name.  Planning (Lab 1), validation of
result files, the labels of measured machines and the chart colours all read this table, so
adding a ceiling means writing its kernel (a backend method that returns
:class:`~rooflinelib.measure.protocol.Run` objects), its FLOP/byte count
(:mod:`.accounting`) and one row passed to :func:`register`.

Importing this module loads no numba, cupy or numpy: a row's ``measure`` is called only when a
measurement starts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from rooflinelib.core.vocabulary import compute_ceiling, row_fields
from rooflinelib.measure.protocol import measure_best, Measurement
from rooflinelib.measure.matrix import cupy_gpu_available, measure_matrix

UNITS = {"memory": "GB/s", "compute": "GFLOP/s"}
#: The backends a row may name, in the one vocabulary the CLI, the modes and the results use.
BACKENDS = ("numba", "cupy", "cpu")
GPU_BACKENDS = ("numba", "cupy")


@dataclass
class Options:
    """What Lab 1 was asked for, as every row's ``measure`` receives it."""

    size_bytes: int  # each DRAM buffer
    matrix_n: int = 8192
    groups: tuple = ("core", "matrix")  # which groups of rows to measure
    progress: Optional[Callable[[str], None]] = None
    notes: list = field(default_factory=list)  # a row may add a line for the result's notes
    #: what this plan has measured so far, by ceiling name: ``dram`` takes the best of its
    #: access mixes from here instead of measuring them twice
    measured: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CeilingSpec:
    """One ceiling: what it is, where it can be measured, and how."""

    name: str
    kind: str  # "memory" or "compute"
    label: str  # in words, for charts and tables
    colour: str  # chart colour (hex)
    backends: tuple = ()  # backends that measure it; empty: a datasheet-only ceiling
    measure: Optional[Callable] = None  # (backend, Options) -> Measurement
    #: None when it can be measured with this backend here, else the reason it cannot
    available: Optional[Callable] = None
    #: a failure other than a verification error becomes a note (a dtype a GPU lacks)
    optional: bool = False
    #: "core"; "matrix" for the rows matrix units run (the cuBLAS rows, which ``--no-matrix``
    #: leaves out, and the datasheet's fp8 tensor roof); "link" for the
    #: host <-> device rows, which ``--links`` adds
    group: str = "core"
    #: the ceiling this one is a part of (``dram`` for its access mixes ``dram-read``,
    #: ``dram-write``, ``dram-copy``): result files and Lab 1's table hold it, a machine made
    #: from a result keeps only the whole unless asked (:func:`rooflinelib.store.results.to_machine`)
    part_of: Optional[str] = None
    #: the number type a compute row computes in ("fp32", "bf16", ...), from
    #: :data:`.vocabulary.COMPUTE_DTYPES`; None for the SFU and the memory rows
    dtype: Optional[str] = None
    #: the roof a GEMM in ``dtype`` is scored against (one row per dtype)
    gemm: bool = False

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name or len(self.name) > 40:
            raise ValueError(f"name: must be a short non-empty string, got {self.name!r:.50}")
        if self.kind not in UNITS:
            raise ValueError(f"kind: must be 'memory' or 'compute', got {self.kind!r:.20}")
        unknown = [b for b in self.backends if b not in BACKENDS]
        if unknown:
            raise ValueError(f"backends: unknown {unknown[0]!r:.20}; known: {', '.join(BACKENDS)}")
        if self.backends and self.measure is None:
            raise ValueError(f"measure: {self.name} names backends but no way to measure it")
        if (self.dtype is not None or self.gemm) and self.kind != "compute":
            raise ValueError(f"dtype: {self.name} is a memory ceiling; only compute rows have a dtype")
        if self.gemm and self.dtype is None:
            raise ValueError(f"gemm: {self.name} is a GEMM roof but names no dtype")

    @property
    def unit(self) -> str:
        return UNITS[self.kind]


_ROWS: dict = {}


def register(spec: CeilingSpec, replace: bool = False) -> CeilingSpec:
    """Add a row (at the end of the plan order).  A name already registered is refused unless
    ``replace``."""
    if not isinstance(spec, CeilingSpec):
        raise TypeError(f"spec: must be a CeilingSpec, got {type(spec).__name__}")
    if spec.name in _ROWS and not replace:
        raise ValueError(f"name: ceiling {spec.name!r} is already registered")
    _ROWS[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    _ROWS.pop(name, None)


def get(name: str) -> CeilingSpec:
    try:
        return _ROWS[name]
    except KeyError:
        raise KeyError(f"ceiling: unknown {name!r:.40}; known: {', '.join(_ROWS)}") from None


def specs() -> tuple:
    return tuple(_ROWS.values())


def names(kind: str = None) -> tuple:
    return tuple(s.name for s in _ROWS.values() if kind is None or s.kind == kind)


def kind_of(name: str) -> Optional[str]:
    spec = _ROWS.get(name)
    return spec.kind if spec else None


def group_of(name: str) -> Optional[str]:
    """The row's group ("core", "matrix", "link"), or None for a name the registry lacks."""
    spec = _ROWS.get(name)
    return spec.group if spec else None


def label_of(name: str) -> str:
    spec = _ROWS.get(name)
    return spec.label if spec else name


def colour_of(name: str, default: str = "#444444") -> str:
    spec = _ROWS.get(name)
    return spec.colour if spec else default


def parts_of(name: str) -> tuple:
    """The names of the rows that are parts of ``name`` (``dram``: its access mixes)."""
    return tuple(s.name for s in _ROWS.values() if s.part_of == name)


def plan(backend, groups=("core", "matrix")) -> tuple:
    """``(specs to measure, notes)`` for ``backend``, in registry order: every row of ``groups``
    that names the backend and can be measured here; each row left out for another reason is
    a note."""
    chosen, notes = [], []
    for spec in _ROWS.values():
        if backend.name not in spec.backends or spec.group not in groups:
            continue
        reason = spec.available(backend) if spec.available else None
        if reason:
            notes.append(f"{spec.name} not measured: {reason}")
            continue
        chosen.append(spec)
    return chosen, notes


# ---------------------------------------------------------------------------------------------
# the built-in ceilings


def _best(name: str, kind: str, runs_of: Callable, repeats: int = None):
    def measure(backend, options: Options):
        m = measure_best(backend, name, kind, runs_of(backend, options), options.progress, repeats)
        options.measured[name] = m
        return m
    return measure


#: DRAM's access mixes: (row, mix, label, colour, what a backend measures).  The read and the
#: write streams each cover two buffers' worth, the bytes the copy of two buffers moves.
DRAM_MIXES = (
    ("dram-read", "read", "DRAM read only", "#6baed6", lambda b, o: b.read_runs(2 * o.size_bytes)),
    ("dram-write", "write", "DRAM write only", "#08519c", lambda b, o: b.write_runs(2 * o.size_bytes)),
    ("dram-copy", "copy", "DRAM copy (read + write)", "#3182bd", lambda b, o: b.copy_runs(o.size_bytes)),
)
MIX_OF = {row: mix for row, mix, _, _, _ in DRAM_MIXES}


def _best_mix(backend, options: Options):
    """``dram``: the fastest of its access mixes, measured earlier in the plan (or now, when
    the plan left them out), as its own row.  Its details say which mix it is (``mix``) and
    what each mix reached (``mixes``, GB/s); the kernel and timing are that mix's."""
    parts = []
    for row, mix, _, _, _ in DRAM_MIXES:
        m = options.measured.get(row) or get(row).measure(backend, options)
        parts.append((mix, m))
    mix, top = max(parts, key=lambda p: (p[1].value, -p[1].seconds))
    # the mix's own notes stay on its row: Lab 1 lists each row's note once
    extra = {k: v for k, v in top.extra.items() if k != "note"}
    extra.update(mix=mix, mix_ceiling=f"dram-{mix}", mixes={name: m.value for name, m in parts})
    m = Measurement("dram", "memory", top.work, top.timing, top.verified, top.first_call_s,
                    top.kernel, dict(top.config), extra)
    options.measured["dram"] = m
    if options.progress:
        options.progress(f"  dram = dram-{mix}: {m.value:,.1f} {m.unit}")
    return m


def footprint_text(n_bytes) -> str:
    """A working set in words: '15.7 MB'."""
    return f"{n_bytes / 1e6:.1f} MB"


def _l2_footprint(backend, options: Options):
    """The L2 ceiling, with the footprint it holds for: ``footprint_bytes`` in its details, and
    a line in the result's notes naming the working sets read and the one kept."""
    m = _best("l2", "memory", lambda b, o: b.l2_runs())(backend, options)
    sets = sorted(t["working_set_bytes"] for t in m.extra.get("configs_tried", ()) if "working_set_bytes" in t)
    footprint = m.config.get("working_set_bytes")
    if footprint:
        m.extra["footprint_bytes"] = footprint
        l2 = m.config.get("reported_l2_bytes")
        of = f" (the device reports an L2 of {l2 / 2 ** 20:.0f} MiB)" if l2 else ""
        options.notes.append(
            f"l2: read from working sets of {footprint_text(sets[0])} to {footprint_text(sets[-1])}{of}; "
            f"the rate is the best, at {footprint_text(footprint)}. It holds for sets of about that size: "
            "smaller ones read faster at the SMs (requests merge before the L2), larger ones fall "
            "towards DRAM.")
    return m


def _cublas(backend) -> Optional[str]:
    return None if cupy_gpu_available() else "CuPy with a GPU is not available for cuBLAS"


def _matrix(name: str):
    def measure(backend, options: Options):
        return measure_matrix(backend, name, n=options.matrix_n, progress=options.progress)
    return measure


_CORE = tuple(
    CeilingSpec(row, "memory", label, colour, BACKENDS, _best(row, "memory", runs_of), part_of="dram")
    for row, _, label, colour, runs_of in DRAM_MIXES) + (
    # The roof of main memory: the best of the three mixes, so that no stream a kernel can
    # run, counted right, lands above it.  Which mix sets it differs by machine (a CPU's
    # stores first read each line; HBM turns the bus around between reads and writes).
    CeilingSpec("dram", "memory", "DRAM (best access mix)", "#1f77b4", BACKENDS, _best_mix),
    # The L2 holds its rate only for a range of footprints: Lab 1 reads sets of 1/4 to 2/5 of
    # the L2 the device reports (16-25 MB on the H200) and names the one it kept
    # (_l2_footprint).  Smaller sets read faster at the SMs as requests merge before the L2's
    # slices; larger ones spill to DRAM (benchmarks/REPORT.md, "L2 by footprint").
    CeilingSpec("l2", "memory", "L2 (read)", "#17becf", GPU_BACKENDS, _l2_footprint),
    CeilingSpec("shared", "memory", "shared memory (read)", "#2ca02c", GPU_BACKENDS,
                _best("shared", "memory", lambda b, o: b.shared_runs())),
    CeilingSpec("fp32", "compute", "fp32 FMA", "#d62728", BACKENDS,
                _best("fp32", "compute", lambda b, o: b.fma_runs("fp32")), **row_fields("fp32")),
    CeilingSpec("fp64", "compute", "fp64 FMA", "#8c564b", BACKENDS,
                _best("fp64", "compute", lambda b, o: b.fma_runs("fp64")), **row_fields("fp64")),
    CeilingSpec("sfu", "compute", "exp2 (SFU)", "#393b79", GPU_BACKENDS,
                _best("sfu", "compute", lambda b, o: b.sfu_runs())),
    # Host <-> device over the GPU's link (PCIe on the H200): the best of pinned and pageable
    # host memory, which is the pinned one; the pageable rate stays in configs_tried.  Their own
    # group, which Lab 1 measures on a GPU unless told not to (``--no-links``).
    CeilingSpec("pcie-h2d", "memory", "host to device (PCIe)", "#6b6ecf", GPU_BACKENDS,
                _best("pcie-h2d", "memory", lambda b, o: b.link_runs("h2d"), repeats=5), group="link"),
    CeilingSpec("pcie-d2h", "memory", "device to host (PCIe)", "#9c9ede", GPU_BACKENDS,
                _best("pcie-d2h", "memory", lambda b, o: b.link_runs("d2h"), repeats=5), group="link"),
)
#: cuBLAS through CuPy on either GPU backend, by dtype: each row is the vocabulary's matrix
#: ceiling of its dtype.  fp32's is SGEMM on the CUDA cores on NVIDIA parts that have no fp32
#: tensor path (Hopper among them).
_MATRIX = (
    ("fp64", "fp64 GEMM (cuBLAS)", "#8c564b"),
    ("fp32", "fp32 GEMM (cuBLAS, CUDA cores)", "#e377c2"),
    ("tf32", "tf32 tensor (cuBLAS)", "#9467bd"),
    ("fp16", "fp16 tensor (cuBLAS)", "#bcbd22"),
    ("bf16", "bf16 tensor (cuBLAS)", "#ff7f0e"),
)

for _spec in _CORE:
    register(_spec)
for _dtype, _label, _colour in _MATRIX:
    _name = compute_ceiling(_dtype, "matrix")
    register(CeilingSpec(_name, "compute", _label, _colour, GPU_BACKENDS, _matrix(_name),
                         available=_cublas, optional=True, **row_fields(_name)))
#: Datasheet-only: no backend measures it here, but result files and charts know it.
_name = compute_ceiling("fp8", "matrix")
register(CeilingSpec(_name, "compute", "fp8 tensor", "#7f7f7f", **row_fields(_name)))
#: Measured by ``python -m rooflinelib.measure.allreduce`` across two or more GPUs, not by Lab 1
#: (one GPU has nothing to all-reduce with): NCCL's bus bandwidth at large messages.
register(CeilingSpec("nvlink-allreduce", "memory", "all-reduce bus bandwidth (NCCL)", "#e377c2"))
