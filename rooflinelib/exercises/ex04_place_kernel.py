"""Exercise 4: place your own kernels on the ceilings you measured.

Two kernels are given, verified and timed on whatever this machine can measure:

- a **reduction**, ``sum(x)`` over float32 values, accumulated in float64;
- an **FMA-heavy kernel**, ``y = x`` after :data:`FMA_STEPS` identity multiply-adds per element
  (Lab 3's sweep kernel at one fixed K).

The student writes the FLOP and byte accounting and places both kernels on the ceilings the
notebook loaded.  Every check reads those ceilings and those timings from the :class:`Setup`
that :func:`prepare` returned, never from constants, so the verdict on the FMA kernel is the
verdict for *this* hardware: at 16 FLOP/byte it sits near the fp32 ridge of an HBM data-centre GPU
(about 10-30 FLOP/byte), is memory-bound on a GDDR GPU, whose ridge is several times higher, and on a
CPU sits wherever that CPU's measured ridge puts it (wide-vector server CPUs can have a ridge near
an HBM GPU's).  Each kernel is judged against the DRAM roof of its own access mix (notebook 03's
rule): the reduction only reads (Lab 1's ``dram-read``), the FMA kernel reads x and writes y
(``dram-copy``); and against the compute roof of its own arithmetic: fp32 for the FMA kernel,
fp64 for the reduction, whose adds are float64 (Lab 1's ``fp64``).

Where the kernels run: live on the GPU (Numba-CUDA or CuPy) when there is one, live on this
CPU (Numba's parallel target) when there is not, and otherwise the H200 runs recorded below,
against the H200 ceilings shipped with the course.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Optional

from rooflinelib.core import operators as ops, sanity
from rooflinelib.store.fileio import read_text
from rooflinelib.exercises.grading import (_FACTOR_HINTS, BOTH_HINT, SIDES, AnswerError, Check, Choices,
                                           NotAnsweredError, Table, check_function, check_number,
                                           check_side, is_unanswered, read_number, report, reveal,
                                           without_bare_both)
from rooflinelib.core.model import (RIDGE_TOLERANCE as RIDGE_BAND, Machine, attainable_gflops,
                                    side_of_ridge, Ceiling)
from rooflinelib.measure.accounting import sweep_work
from rooflinelib.measure.errors import VerificationError
from rooflinelib.measure.protocol import NOISY_IQR, measure_run
from rooflinelib.measure.sweep import sweep_point
from rooflinelib.measure.backend import open_backend
from rooflinelib.measure.provenance import gpu_snapshot, now_iso
from rooflinelib.measure.registry import label_of
from rooflinelib.store.results import ResultError, dram_mixes, recorded as recorded_result
from rooflinelib.views.plotting import roofline_figure
from rooflinelib.core.machines import H200

#: Identity multiply-adds per element in the FMA kernel: 2 * 64 FLOPs per 8 bytes = 16 FLOP/byte.
FMA_STEPS = 64
#: How far an answer to the FMA kernel's FLOPs(n) may be off: its count is an exact integer per
#: element, so one multiply-add more or fewer (1.6%) must fail, while a count written to four
#: figures passes.
FMA_FLOPS_RTOL = 0.001
#: How far Part B's FMA intensity may be off: it is exact too (2K FLOPs per 8 bytes), and one
#: multiply-add more or fewer moves it 1.6% (15.75, 16.25), so those must fail as Part A's count
#: does; 0.5% still lets the slips' hints match answers written to three figures (10.7, 15.8).
FMA_INTENSITY_RTOL = 0.005
#: The least relative uncertainty of a measured ridge: Lab 1's copy mix measured again on the
#: H200 moved by 0.6% (4,281 GB/s on 2026-12-01 13:36 UTC, 4,256 at 23:30), more than one run's
#: fp32 and DRAM spreads together may say.
RIDGE_SPREAD_FLOOR = 0.01
#: ... and at most this: past it the ceilings are too noisy to place anything finely.
RIDGE_SPREAD_CAP = 0.5
_SPREAD = re.compile(r"spread (\d+(?:\.\d+)?)%")
#: Buffer sizes: far larger than the last-level cache, small enough for a notebook cell.
GPU_BUFFER_MIB = 512
CPU_BUFFER_MIB = 512


class KernelError(RuntimeError):
    """A given kernel could not run or gave a wrong answer: no time is reported for it."""


@dataclass(frozen=True)
class KernelRun:
    """One verified, timed kernel: ``n`` float32 elements in ``seconds`` (the median)."""

    name: str
    n: int
    seconds: float
    spread: float
    repeats: int
    verified: bool
    kernel: str
    where: str

    def __post_init__(self):
        if not self.verified:
            raise KernelError(f"{self.name}: not verified, so its time is not a measurement")
        if not (self.n > 0 and self.seconds > 0):
            raise KernelError(f"{self.name}: n and seconds must be positive")


@dataclass(frozen=True)
class Setup:
    """The ceilings this notebook loaded and the two kernels timed against them."""

    machine: Machine
    reduction: KernelRun
    fma: KernelRun
    origin: str  # "live", "file", "recorded" or "datasheet"
    message: str
    notes: tuple = field(default_factory=tuple)
    #: Lab 1's dram-read ceiling (GB/s) of the same run, when it measured the access mixes: the
    #: roof of a kernel that only reads, as notebook 03 judges each kernel against its own mix.
    dram_read_gbps: Optional[float] = None
    #: ... and its dram-copy ceiling: the roof of a kernel that reads and writes equally, as the
    #: FMA kernel does (x read, y written).
    dram_copy_gbps: Optional[float] = None
    #: Those two ceilings' relative spreads (the IQR over the median where the result keeps it, as
    #: Lab 1's table prints it), or None where the ceilings measured the mix but kept no spread
    #: for it (the recording): a ridge P / R or P / C is known to its own mix's spread, not B's.
    dram_read_spread: Optional[float] = None
    dram_copy_spread: Optional[float] = None
    #: The names of the Lab 1 ceilings that judged their own trials noisy (its NOISY flag,
    #: :mod:`rooflinelib.measure.protocol`), such as "dram-read"; empty for the recording.
    noisy: tuple = ()

    @property
    def peak_gflops(self) -> float:
        return self.machine.ceiling("fp32").value

    @property
    def fp64_gflops(self) -> Optional[float]:
        """The fp64 compute roof of the loaded ceilings (Lab 1 measures it), or None."""
        return self.machine.ceiling("fp64").value if self.machine.has("fp64") else None

    @property
    def reduction_peak_gflops(self) -> float:
        """The compute roof the reduction's adds meet: they run in float64 (both kernels
        accumulate in double), so the fp64 roof; the fp32 P only where the ceilings hold no fp64
        row (then an upper bound on it)."""
        return self.fp64_gflops or self.peak_gflops

    @property
    def peak_gbps(self) -> float:
        return self.machine.ceiling("dram").value

    @property
    def best_mix(self) -> Optional[str]:
        """The access mix B (``dram``) came from, as the loaded ceilings label it ("DRAM (write)"
        on the recorded H200, "DRAM (read)" on the shipped CPU mixes), or None where they do not
        say (review 21k2 K4-1: not always the write)."""
        label = self.machine.ceiling("dram").label or ""
        if label.startswith("DRAM (") and label.endswith(")"):
            mix = label[len("DRAM ("):-1].strip()
            return mix if mix in ("read", "write", "copy") else None
        return None

    @property
    def b_words(self) -> str:
        """B named as these ceilings give it: "B, Lab 1's best access mix (a write)" with the
        run's own mix, or "B, Lab 1's DRAM ceiling" where the ceilings do not name one."""
        return self.b_name()

    def b_name(self, noun: str = "best access mix") -> str:
        mix = self.best_mix
        return f"B, Lab 1's {noun} (a {mix})" if mix else "B, Lab 1's DRAM ceiling"

    @property
    def read_gbps(self) -> float:
        """The ceiling the reduction (a pure read) is scored against: Lab 1's dram-read, or the
        DRAM ceiling B when the ceilings hold no read mix."""
        return self.dram_read_gbps or self.peak_gbps

    @property
    def copy_gbps(self) -> float:
        """The ceiling the FMA kernel (x read, y written) is judged against: Lab 1's dram-copy,
        or the DRAM ceiling B when the ceilings hold no copy mix."""
        return self.dram_copy_gbps or self.peak_gbps

    @property
    def ridge(self) -> float:
        return self.machine.ridge("fp32", "dram")

    @property
    def read_ridge(self) -> float:
        """The reduction's ridge: the fp64 roof of its float64 adds over the read ceiling."""
        return self.reduction_peak_gflops / self.read_gbps

    @property
    def read_ridge_name(self) -> str:
        """The reduction's ridge as the hints name it: P64 / R, or P / R where the ceilings hold
        no fp64 row (review 23k K4-6)."""
        return f"{'P64' if self.fp64_gflops else 'P'} / R"

    @property
    def copy_ridge(self) -> float:
        """The FMA kernel's ridge: P over the copy ceiling."""
        return self.peak_gflops / self.copy_gbps

    def _stated_spread(self, name: str) -> Optional[float]:
        found = _SPREAD.search(self.machine.ceiling(name).source or "")
        return float(found.group(1)) / 100 if found else None

    def _spread_with(self, memory_spread: Optional[float], compute: str = "fp32") -> float:
        peak = self._stated_spread(compute) if self.machine.has(compute) else None
        if peak is None:  # an fp64 row kept without its spread: the fp32 FMA's, measured alike
            peak = self._stated_spread("fp32")
        if peak is None and memory_spread is None:
            return 0.0  # datasheet figures state no spread
        # A noisy Lab 1 (on a busy machine) can state spreads past 100%; the side is then
        # accepted within half the ridge either way, and the ceilings say they are NOISY.
        return min(RIDGE_SPREAD_CAP, max(RIDGE_SPREAD_FLOOR, (peak or 0.0) + (memory_spread or 0.0)))

    @property
    def ridge_spread(self) -> float:
        """The relative uncertainty of the ridge P / B: the fp32 and DRAM ceilings' measured
        spreads added (as their sources state them), at least :data:`RIDGE_SPREAD_FLOOR`; 0 for
        datasheet figures, which state none."""
        return self._spread_with(self._stated_spread("dram"))

    @property
    def read_ridge_spread(self) -> float:
        """The uncertainty of the reduction's ridge P64 / R: the fp64 roof's spread (fp32's where
        the fp64 row keeps none) and the read ceiling's own, the DRAM ceiling's when there is no
        read mix; a read mix kept without its spread counts the compute roof's alone, at least
        the floor."""
        compute = "fp64" if self.fp64_gflops else "fp32"
        return self._spread_with(self.dram_read_spread if self.dram_read_gbps
                                 else self._stated_spread("dram"), compute)

    @property
    def copy_ridge_spread(self) -> float:
        """The uncertainty of the FMA kernel's ridge P / C: fp32's spread and the copy ceiling's
        own, P / B's when there is no copy mix. The recording keeps no spread for its copy
        ceiling, so its band is fp32's spread, at least :data:`RIDGE_SPREAD_FLOOR` (the copy mix
        measured again moved by 0.6%); it borrows no other ceiling's spread."""
        if not self.dram_copy_gbps:
            return self.ridge_spread
        return self._spread_with(self.dram_copy_spread)

    def describe(self) -> Table:
        rows = [("ceilings", self.machine.name), ("origin", self.message),
                ("fp32 roof", f"{self.peak_gflops:,.1f} GFLOP/s"),
                ("fp64 roof", f"{self.fp64_gflops:,.1f} GFLOP/s (fp64 FMA; the reduction's float64 "
                              f"adds, 1 FLOP each, reach at most half: {self.fp64_gflops / 2:,.0f})"
                 if self.fp64_gflops else "none loaded: the reduction's float64 adds are placed "
                                          "under the fp32 roof, an upper bound on theirs"),
                ("DRAM roof", f"{self.peak_gbps:,.1f} GB/s ({self.machine.ceiling('dram').label})"),
                ("DRAM read ceiling", f"{self.read_gbps:,.1f} GB/s" + (
                    " (no read mix measured: the DRAM roof)" if not self.dram_read_gbps else
                    f" (spread not recorded: {'P64' if self.fp64_gflops else 'P'} / R taken as known "
                    f"to {self.read_ridge_spread:.0%})"
                    if self.dram_read_spread is None else "")),
                ("DRAM copy ceiling", f"{self.copy_gbps:,.1f} GB/s" + (
                    " (no copy mix measured: the DRAM roof)" if not self.dram_copy_gbps else
                    f" (spread not recorded: P / C taken as known to {self.copy_ridge_spread:.0%})"
                    if self.dram_copy_spread is None else "")),
                # Review 19k2 K4-4: each kernel's own ridge by name; P / B judges neither;
                # review 23k K4-6: where the ceilings hold no mix, the labels say so
                ("FMA kernel ridge", f"{self.copy_ridge:.3g} FLOP/byte " + (
                    "(P / C, its copy mix)" if self.dram_copy_gbps else
                    "(P / C, C being the DRAM roof: no copy mix measured)")),
                ("reduction ridge", f"{self.read_ridge:.3g} FLOP/byte ({self.read_ridge_name}" + (
                    ", its read mix)" if self.dram_read_gbps else
                    ", R being the DRAM roof: no read mix measured)")),
                ("ridge P / B", f"{self.ridge:.3g} FLOP/byte " + self._b_ridge_use())]
        for run in (self.reduction, self.fma):
            rows.append((run.name, f"{run.n:,} elements in {run.seconds * 1e3:.4g} ms (median of "
                                   f"{run.repeats}, spread {run.spread:.1%}), verified; "
                                   f"{run.kernel} on {run.where}"))
        rows += [("note", note) for note in self.notes]
        # Review 58 k45 item 2: the origin's noise advice, at its end, is shown whole (the
        # default cut, for a student's value, fell in the middle of a noisy run's message)
        return Table(("what", "value"), tuple(rows), title="Exercise 4: what this notebook loaded",
                     cell_chars=max(200, *(len(str(value)) for _, value in rows)))

    def _b_ridge_use(self) -> str:
        """What P / B is to the two kernels (review 23k K4-6: a kernel whose mix is not loaded is
        judged against it, and the reduction too where no fp64 row is)."""
        users = ([] if self.dram_copy_gbps else ["the FMA kernel's ridge: no copy mix measured"]) + (
            [] if self.dram_read_gbps or self.fp64_gflops else
            ["the reduction's ridge: no read mix measured, no fp64 row"])
        if users:
            return f"(used as {'; and as '.join(users)})"
        if self.dram_read_gbps and self.dram_copy_gbps:
            # Review 58 k45 item 3: B can be a kernel's own mix (a CPU's best is often the copy
            # or the read); its own ceiling row is then the same figure
            if self.best_mix == "copy":
                return "(the same as P / C: B is the copy here, the FMA kernel's own mix)"
            if self.best_mix == "read":
                return ("(not used: B is the read here, the reduction's own mix, but its adds are "
                        "float64: its ridge is P64 / R)" if self.fp64_gflops else
                        "(the same as P / R: B is the read here, the reduction's own mix)")
            return "(not used: B is neither kernel's mix)"
        return "(not used: neither kernel's ridge)"

    def _repr_html_(self):
        return self.describe()._repr_html_()

    def __str__(self):
        return str(self.describe())


# --- the keys: what each kernel does ---------------------------------------------------------

def reduction_cost(n: int):
    """FLOPs and bytes of the reduction: one add per element, n float32 read, one float64 scalar
    out (review 26k2: the kernel's output is ``float64[::1]``, 8 bytes, not a float32's 4)."""
    cost = ops.reduction(n, "fp32")
    return replace(cost, n_bytes=cost.n_bytes - ops.dtype_bytes("fp32") + ops.dtype_bytes("fp64"),
                   note="1 FLOP and 1 float32 read per element, 1 float64 scalar out")


def fma_cost(n: int):
    """FLOPs and bytes of the FMA kernel: Lab 3's sweep accounting at K = FMA_STEPS."""
    return sweep_work(n, FMA_STEPS)


# --- running both kernels --------------------------------------------------------------------

def run_kernels(backend="cpu", progress=None) -> tuple:
    """Run, verify and time both kernels by the verified-run protocol; ``backend`` is a name
    or a backend object.  Returns ``(reduction, fma)`` as KernelRuns."""
    b = open_backend(backend, progress) if isinstance(backend, str) else backend
    mib = CPU_BUFFER_MIB if b.scope == "cpu" else GPU_BUFFER_MIB
    buffers = b.sweep_buffers(mib * 2 ** 20)
    where = b.device_name
    n = 4 * buffers.n_vec
    try:
        m = measure_run(b, "reduction", "memory", b.reduction_run(buffers))
    except VerificationError as exc:
        raise KernelError(f"reduction on {where}: {exc}; no time reported") from None
    reduction = KernelRun("reduction", n, m.seconds, m.timing.spread, m.timing.repeats, True, m.kernel, where)
    if progress:
        progress(f"  reduction: {n:,} elements in {m.seconds * 1e3:.3g} ms, verified")
    m = sweep_point(b, FMA_STEPS, buffers)
    fma = KernelRun("fma", n, m.seconds, m.timing.spread, m.timing.repeats, m.verified,
                    f"{m.kernel} (Lab 3's sweep kernel)", where)
    if progress:
        progress(f"  fma: {n:,} elements in {fma.seconds * 1e3:.3g} ms, verified")
    del buffers
    b.release()
    return reduction, fma


# --- recorded runs on the H200 ---------------------------------------------------------------

#: Both kernels and the two ceilings, measured on the course's H200 in one session by
#: :func:`record` (numba backend), for students with nothing to measure on.  The kernels are
#: scored against the ceilings of the same session, so the recording is self-consistent.
RECORDED_H200 = {
    "where": "NVIDIA H200 (recorded)",
    "created": "2026-12-02T00:02:11+00:00",
    "device": {"name": "NVIDIA H200", "sm_count": 132, "compute_capability": "9.0",
               "driver": "580.159.04", "cuda_driver": "13.0", "sm_clock_mhz": 1980,
               "mem_clock_mhz": 3201, "sm_clock_drift": 0.0,
               "libraries": {"numpy": "2.4.6", "numba": "0.68.0", "numba-cuda": "0.30.4",
                             "python": "3.12.3"}},
    # Lab 1's dram is its best access mix, the write (docs/measurements/h200_mixes_b/ex03_recording.json)
    "ceilings": {"dram": {"value": 4679.5, "spread": 0.013},
                 "fp32": {"value": 66074.4, "spread": 0.0}},
    # the same Lab 1's dram-read, the best of its four configurations
    # (docs/measurements/h200_mixes_b/ex03_record.log, [1/11]): the reduction's own access mix
    "dram_read_gbps": 4506.7,
    # ... and its dram-copy, the best of its four configurations (the same log, [3/11]): the FMA
    # kernel's own access mix (x read, y written)
    "dram_copy_gbps": 4276.9,
    # ... and its fp64 FMA ceiling (the same log, [8/11]; one configuration, its spread not kept):
    # the roof of the reduction's float64 adds
    "fp64_gflops": 33423.3,
    "reduction": {"name": "reduction", "n": 134217728, "seconds": 0.00012308799847960474,
                  "spread": 0.013518765354133943, "repeats": 20, "verified": True,
                  "kernel": "gpu_sum (Numba-CUDA, 16-byte loads, float64 partial sums)"},
    "fma": {"name": "fma", "n": 134217728, "seconds": 0.00031641599535942077,
            "spread": 0.006573604106333876, "repeats": 20, "verified": True,
            "kernel": "sweep_pipelined<64> (Lab 3's sweep kernel)"},
}


def recorded_runs(recording: dict = None) -> tuple:
    recording = recording or RECORDED_H200
    where = recording["where"]
    return tuple(KernelRun(**dict(recording[name], where=where)) for name in ("reduction", "fma"))


def recorded_provenance(recording: dict = None) -> str:
    recording = recording or RECORDED_H200
    d = recording["device"]
    return (f"{d['name']}, driver {d['driver']} (CUDA {d['cuda_driver']}), SM clock "
            f"{d['sm_clock_mhz']} MHz, memory clock {d['mem_clock_mhz']} MHz, numba-cuda "
            f"{d['libraries']['numba-cuda']}, recorded {recording['created'][:10]}")


def against_notebook_03(recording: dict = None) -> Optional[float]:
    """The largest relative difference between the recording's fp32, DRAM, read and copy
    ceilings and those of the Lab 1 run notebook 03 shows (the shipped numba ceilings), or None
    when that run is not shipped: the two are separate Lab 1 sessions on the same H200."""
    recording = recording or RECORDED_H200
    try:
        lab1 = recorded_result("ceilings")
    except ResultError:
        return None
    theirs = {c["name"]: c["value"] for c in lab1["ceilings"]}
    mixes = dram_mixes(lab1)
    pairs = [(recording["ceilings"]["fp32"]["value"], theirs.get("fp32")),
             (recording["ceilings"]["dram"]["value"], theirs.get("dram")),
             (recording.get("dram_read_gbps"), mixes.get("read")),
             (recording.get("dram_copy_gbps"), mixes.get("copy"))]
    gaps = [abs(ours / other - 1) for ours, other in pairs if ours and other]
    return max(gaps) if gaps else None


def recorded_machine(recording: dict = None) -> Machine:
    """The recording's own ceilings, as a measured Machine with its provenance."""
    recording = recording or RECORDED_H200
    where = f"measured {recording['created'][:10]}, numba backend"
    labels = {"dram": "DRAM (write)", "fp32": "fp32 FMA"}
    kinds = {"dram": "memory", "fp32": "compute"}
    ceilings = tuple(Ceiling(name, kinds[name], c["value"],
                             f"{where}, spread {100 * c['spread']:.1f}%", labels[name])
                     for name, c in recording["ceilings"].items())
    if recording.get("fp64_gflops"):
        ceilings += (Ceiling("fp64", "compute", recording["fp64_gflops"],
                             f"{where}, spread not recorded", "fp64 FMA"),)
    return Machine(name=recording["where"], ceilings=ceilings, source=where,
                   date=recording["created"][:10], kind="measured", notes="GPU roofline",
                   provenance=dict(recording["device"], created=recording["created"]))


def record(progress=None) -> dict:
    """Measure the two ceilings and time both kernels on this machine's GPU, in one session:
    the data of RECORDED_H200.  ``python -m rooflinelib.exercises.ex04_place_kernel`` prints
    it as JSON (progress goes to stderr)."""
    from dataclasses import asdict

    from rooflinelib.measure import measure_ceilings
    backend = open_backend("numba", progress)
    started, before = now_iso(), gpu_snapshot()
    result = measure_ceilings(backend, matrix=False, progress=progress)
    reduction, fma = run_kernels(backend, progress)
    after = gpu_snapshot()
    facts = backend.provenance()
    drift = None
    if before.get("sm_clock_mhz") and after.get("sm_clock_mhz"):
        drift = after["sm_clock_mhz"] / before["sm_clock_mhz"] - 1
    device = {"name": facts["name"], "sm_count": facts["sm_count"],
              "compute_capability": facts["compute_capability"],
              "driver": before.get("driver", "?"), "cuda_driver": facts.get("cuda_driver", "?"),
              "sm_clock_mhz": before.get("sm_clock_mhz", "?"),
              "mem_clock_mhz": before.get("mem_clock_mhz", "?"), "sm_clock_drift": drift,
              "libraries": {k: v for k, v in result["device"].get("libraries", {}).items()
                            if k in ("numpy", "numba", "numba-cuda", "python")}}
    ceilings = {c["name"]: {"value": round(c["value"], 1), "spread": round(c["spread"], 3)}
                for c in result["ceilings"] if c["name"] in ("dram", "fp32")}
    read = [round(c["value"], 1) for c in result["ceilings"] if c["name"] == "dram-read"]
    fp64 = [round(c["value"], 1) for c in result["ceilings"] if c["name"] == "fp64"]
    copy = [round(c["value"], 1) for c in result["ceilings"] if c["name"] == "dram-copy"]
    runs = {name: {k: v for k, v in asdict(run).items() if k != "where"}
            for name, run in (("reduction", reduction), ("fma", fma))}
    return {"where": f"{backend.device_name} (recorded)", "created": started, "device": device,
            "ceilings": ceilings, **({"dram_read_gbps": read[0]} if read else {}),
            **({"dram_copy_gbps": copy[0]} if copy else {}),
            **({"fp64_gflops": fp64[0]} if fp64 else {}), **runs}


# --- what the notebook calls first -----------------------------------------------------------

def prepare(mode: Optional[str] = None, ceilings_file=None, progress=print) -> Setup:
    """Load ceilings and time both kernels on the same hardware.

    ``mode`` is ``"auto"`` (default, or ``$ROOFLINE_MODE``), ``"gpu"``, ``"cpu"`` or
    ``"recorded"``.  In a live mode the ceilings are ``ceilings_file`` when that is a Lab 1
    result from this same kind of device, else the stored Lab 1 result, else measured once now
    and stored (:func:`rooflinelib.modes.student_ceilings`), and the kernels run here.
    Otherwise the recorded H200 ceilings and kernel runs are used.
    """
    from rooflinelib.modes import LAB1_CPU_SIZE_MIB, detect_mode, student_ceilings

    run_mode = detect_mode(mode)
    notes = [line for line in run_mode.describe().splitlines()[1:]]
    if run_mode.live:
        backend_name = run_mode.backend
        # The one chain of ceilings: the file given, else the stored Lab 1 result (notebook 03
        # stores it), else Lab 1 measured once now and stored; so the ridge here is the one
        # notebook 03, roofline profile and roofline plot show.
        loaded = None
        if ceilings_file is not None:
            loaded = student_ceilings(run_mode, path=ceilings_file, measure="never", recorded=False)
            scope = (loaded.result or {}).get("scope")
            if loaded.origin != "file" or scope != run_mode.mode:
                notes.append(f"{ceilings_file} is not a Lab 1 result from this {run_mode.mode}; "
                             "using your stored one instead")
                loaded = None
        if loaded is None:
            if progress:
                progress(f"Lab 1's ceilings on {run_mode.device}: your stored result, or measured now...")
            loaded = student_ceilings(run_mode, measure="if-missing", progress=progress,
                                      **({"size_mib": LAB1_CPU_SIZE_MIB} if run_mode.mode == "cpu"
                                         else {"matrix": False}))
        if loaded.origin in ("live", "file"):
            if progress:
                progress(f"Running the two kernels on {run_mode.device}...")
            reduction, fma = run_kernels(backend_name, progress)
            mixes = dram_mixes(loaded.result) if loaded.result else {}
            spreads = _mix_spreads(loaded.result) if loaded.result else {}
            noisy = tuple(c["name"] for c in (loaded.result or {}).get("ceilings", ())
                          if isinstance(c, dict) and c.get("noisy") and "name" in c)
            return Setup(loaded.machine, reduction, fma, loaded.origin, loaded.message,
                         tuple(notes), mixes.get("read"), mixes.get("copy"),
                         spreads.get("read"), spreads.get("copy"), noisy)
        notes.append(loaded.message)
    reduction, fma = recorded_runs()
    gap = against_notebook_03()
    # A student coming from notebook 03 sees a second set of "the H200's" ceilings: say why.
    if gap is not None:
        notes.append("A Lab 1 session of its own, recorded with the two kernels so that they are "
                     f"scored against ceilings of the same session: within {max(gap, 0.001):.1%} "
                     "of notebook 03's.")
    return Setup(recorded_machine(), reduction, fma, "recorded",
                 "Ceilings and kernel times recorded in one session on the course's H200: "
                 + recorded_provenance() + ".", tuple(notes), RECORDED_H200.get("dram_read_gbps"),
                 RECORDED_H200.get("dram_copy_gbps"))


def _mix_spreads(result: dict) -> dict:
    """``{mix: relative spread}`` of a ceilings result's read and copy rows: the IQR over the
    median where the row keeps it (the figure Lab 1's table prints), else max - min over it."""
    rows = {c["name"]: c for c in result.get("ceilings", ())}
    return {mix: float(rows[name].get("iqr", rows[name].get("spread", 0.0)))
            for mix, name in (("read", "dram-read"), ("copy", "dram-copy")) if name in rows}


def _source_of(path, name: str) -> str:
    """The source of the function ``name`` in the file ``path``, read without importing it
    (importing the GPU kernels would need numba-cuda)."""
    import ast
    from pathlib import Path

    text = read_text(path, ValueError, "a Python source file")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            first = node.body[0]
            if not (len(node.body) > 1 and isinstance(first, ast.Expr)
                    and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)):
                return ast.get_source_segment(text, node, padded=True)
            # Review 12b CK4-2: the docstring (pitfalls, chunk layout) is more than the student's
            # byte and FLOP accounting needs, so the shown source is the code alone
            lines = text.splitlines(keepends=True)
            kept = lines[node.lineno - 1:first.lineno - 1] + lines[first.end_lineno:node.end_lineno]
            return textwrap.dedent("".join(kept)).rstrip("\n")
    return f"# ({name} is not in {Path(path).name} in this version of the course)"


def kernel_sources(setup=None) -> str:
    """The source of both kernels as they ran for ``setup`` (CPU or GPU; both when None)."""
    from pathlib import Path

    here = Path(__file__).resolve().parent
    measure = here.parent / "measure"
    # Lab 3 times two forms of the CPU sweep at this K and keeps the faster; show the one that ran
    cpu_form = "_sweep_elementwise" if setup is not None and "(elementwise)" in setup.fma.kernel else "_sweep_lanes"
    on_cpu = [("Reduction, CPU (Numba parallel)", _source_of(measure / "cpu.py", "cpu_sum")),
              (f"FMA kernel, CPU (Lab 3's sweep at K = {FMA_STEPS})",
               _source_of(measure / "cpu.py", cpu_form))]
    gpu_sweep = "sweep_kernel"
    if setup is None or "pipelined" in setup.fma.kernel:
        gpu_sweep = "sweep_pipelined_kernel"
    on_gpu = [("Reduction, GPU (Numba-CUDA)", _source_of(measure / "kernels_numba.py", "gpu_sum")),
              (f"FMA kernel, GPU (Lab 3's sweep at K = {FMA_STEPS})",
               _source_of(measure / "kernels_numba.py", gpu_sweep))]
    if setup is None:
        parts = on_cpu + on_gpu
    else:
        parts = on_cpu if setup.reduction.kernel.startswith("cpu_") else on_gpu
    return "\n\n".join(f"# ---- {title} " + "-" * max(0, 70 - len(title)) + f"\n{code}"
                       for title, code in parts)


# --- the checks ------------------------------------------------------------------------------

SAMPLES = (dict(n=4096), dict(n=2 ** 20), dict(n=2 ** 27))


def _with_unit(function, unit: str):
    """``function`` whose text results are read with ``unit`` ("B" or "FLOP"), so that a count
    returned as "16392 B" or "4 KB" is read as the page promises numbers may carry a unit (review
    31k2 item 5); anything else is passed on as it is."""
    if not callable(function) or is_unanswered(function):
        return function

    def read(**point):
        # positionally (review 40k2 item 3): a student's def f(N) is as good as the stub's def f(n)
        result = function(*point.values())
        if isinstance(result, str) and not is_unanswered(result):
            try:
                return read_number(result, "its result", unit)
            except AnswerError as exc:
                where = ", ".join(f"{k}={v}" for k, v in point.items())
                raise AnswerError(f"at {where} it returned something unusable: {exc}") from None
        return result
    return read


def _unit_factor_slips(reference) -> list:
    """A count returned in GB, GFLOP, MB or KB (4 * n / 1e9): grading's unit hints, either way, so
    Part A names the factor as Part B does, not only "too low" (review 41k2, key 4, item 1)."""
    return [(lambda n, scale=scale: reference(n) * scale, hint)
            for factor, _, hint in _FACTOR_HINTS if factor in (1e3, 1e6, 1e9)
            for scale in (1 / factor, factor)]


def _gib_slip(reference) -> tuple:
    """A byte count given in GiB (4 * n / 2**30): named, as Part B names the GiB reading (review 51k2,
    key 4, item 2)."""
    return (lambda n: reference(n) / 2 ** 30, "that is the count in GiB (2^30 bytes): give it in bytes")


def check_accounting(reduction_flops, reduction_bytes, fma_flops, fma_bytes):
    """The four counting functions of n, at several n."""
    reduction_flops, fma_flops = _with_unit(reduction_flops, "FLOP"), _with_unit(fma_flops, "FLOP")
    reduction_bytes, fma_bytes = _with_unit(reduction_bytes, "B"), _with_unit(fma_bytes, "B")
    e = ops.dtype_bytes("fp32")
    return report(
        "The accounting",
        check_function(reduction_flops, lambda n: reduction_cost(n).n_flops, SAMPLES,
                       "reduction FLOPs(n)",
                       mistakes=[(lambda n: 2 * n, "one add per element: an add is 1 FLOP, only a "
                                                   "multiply-add counts 2"),
                                 *_unit_factor_slips(lambda n: reduction_cost(n).n_flops)]),
        _per_block_bytes(reduction_bytes, check_function(
                       reduction_bytes, lambda n: reduction_cost(n).n_bytes, SAMPLES,
                       "reduction bytes(n)",
                       # Review 19g2 K4-1: 8 bytes per element is the float64 accumulator's
                       # size as often as a write per element: the hint names both
                       mistakes=[(lambda n: 2 * e * n, "8 bytes per element: a reduction reads "
                                                       "each float32 (4 bytes) once and writes one "
                                                       "number; the float64 is the accumulator, "
                                                       "in registers"),
                                 (lambda n: n, "float32 is 4 bytes per element"),
                                 # Review 19k2 K4-8
                                 (lambda n: 8 * reduction_cost(n).n_bytes, "that is bits: one byte is "
                                                                           "8 bits"),
                                 _gib_slip(lambda n: reduction_cost(n).n_bytes),
                                 *_unit_factor_slips(lambda n: reduction_cost(n).n_bytes)])),
        # Review 35k2 item 1: the count is an exact integer per element, so ±2% let 126n (63
        # multiply-adds) pass; 0.1% still reads a count written to a few figures ("17.18 GFLOPs")
        check_function(fma_flops, lambda n: fma_cost(n).n_flops, SAMPLES, "FMA kernel FLOPs(n)",
                       rtol=FMA_FLOPS_RTOL,
                       mistakes=[(lambda n: FMA_STEPS * n, "each multiply-add counts as 2 FLOPs"),
                                 (lambda n: 2 * n, "each element gets FMA_STEPS multiply-adds, "
                                                   "not one"),
                                 *[(lambda n, k=k: 2 * k * n, "count the multiply-adds in the loop: "
                                                              f"K = {FMA_STEPS}")
                                   for k in (FMA_STEPS - 1, FMA_STEPS + 1)],
                                 # review 51k2 item 2: 4 FLOPs per multiply-add
                                 (lambda n: 4 * FMA_STEPS * n, "twice the count: a multiply-add "
                                                               "is 2 FLOPs, one multiply and one "
                                                               "add"),
                                 *_unit_factor_slips(lambda n: fma_cost(n).n_flops)]),
        check_function(fma_bytes, lambda n: fma_cost(n).n_bytes, SAMPLES, "FMA kernel bytes(n)",
                       mistakes=[(lambda n: e * n, "the kernel reads x and writes y: both cross "
                                                   "memory"),
                                 (lambda n: 2 * n, "float32 is 4 bytes per element"),
                                 # review 33k2 item 3: y read before it is written
                                 (lambda n: 3 * e * n, "12 bytes per element counts a read of y as "
                                                       "well: the kernel reads x and only writes y "
                                                       "(a CPU without streaming stores reads y's "
                                                       "lines first: DRAM traffic the write-allocate "
                                                       "policy adds, which this course's count, like "
                                                       "Lab 1's copy ceiling, leaves out)"),
                                 (lambda n: 8 * fma_cost(n).n_bytes, "that is bits: one byte is 8 bits"),
                                 # review 51k2 item 2: float32 taken as 8 bytes
                                 (lambda n: 4 * e * n, "16 bytes per element counts a float32 as "
                                                       "8 bytes (a float64's size): float32 is 4"),
                                 _gib_slip(lambda n: fma_cost(n).n_bytes),
                                 *_unit_factor_slips(lambda n: fma_cost(n).n_bytes)]),
    )


#: Review 36k2 item 5: a fixed count of extra bytes at every n, such as 8 bytes per block of a
#: resident grid, is traffic that stays on chip.
_PER_BLOCK_HINT = ("the same extra bytes at every n, such as a partial sum per block? The blocks' "
                   "atomic adds meet in the L2; only the one 8-byte result reaches DRAM")


def _per_block_bytes(reduction_bytes, check: Check) -> Check:
    """``check`` (the reduction's bytes(n)), or, where it failed because the answer is 4n plus
    the same extra bytes at every test size, :data:`_PER_BLOCK_HINT`."""
    if check.status != "fail" or not check.message.startswith("wrong at"):
        return check
    try:
        extra = [float(reduction_bytes(**point)) - ops.dtype_bytes("fp32") * point["n"]
                 for point in SAMPLES]
    except Exception:  # the check above has already said what is wrong with it
        return check
    if min(extra) > ops.dtype_bytes("fp64") and max(extra) - min(extra) <= 1e-6 * max(extra):
        return Check(check.question, "fail", _PER_BLOCK_HINT)
    return check


def _keys(setup: Setup) -> dict:
    """Each kernel against the roofs of its own work: the DRAM roof of its access mix (notebook
    03's rule), the reduction against the read ceiling R, the FMA kernel (x read, y written)
    against the copy ceiling C; and the compute roof of its arithmetic, the fp64 one for the
    reduction's float64 adds, the fp32 P for the FMA kernel.  ``side_b`` and ``roof_b`` are the
    same against B, Lab 1's best mix, for hints."""
    keys = {}
    for run, cost, gbps_mix, peak in (
            (setup.reduction, reduction_cost(setup.reduction.n), setup.read_gbps, setup.reduction_peak_gflops),
            (setup.fma, fma_cost(setup.fma.n), setup.copy_gbps, setup.peak_gflops)):
        intensity = cost.n_flops / cost.n_bytes
        achieved = cost.n_flops / run.seconds / 1e9
        roof = attainable_gflops(intensity, peak, gbps_mix)
        ridge = peak / gbps_mix
        # The reduction's float64 adds: P64 (a DFMA peak) bounds their roof, and adds alone reach
        # half of it (1 FLOP per DADD); an answer against either roof is right (review 15b).
        adds = (peak / 2 if run is setup.reduction and setup.fp64_gflops else peak)
        keys[run.name] = dict(intensity=intensity, achieved=achieved, roof=roof, ridge=ridge, peak=peak,
                              adds_peak=adds, adds_roof=attainable_gflops(intensity, adds, gbps_mix),
                              adds_ridge=adds / gbps_mix,
                              side=side_of_ridge(intensity, ridge),
                              side_b=side_of_ridge(intensity, peak / setup.peak_gbps),
                              roof_b=attainable_gflops(intensity, peak, setup.peak_gbps),
                              fraction=achieved / roof,
                              gbps=cost.n_bytes / run.seconds / 1e9)
    return keys


def _mix_mistake(key: float, wrong: float, hint: str) -> list:
    """A mistake entry for an answer computed with B instead of the kernel's own mix, when the
    two differ by more than the 2% an answer may be off."""
    return [(wrong, hint)] if abs(wrong / key - 1) > 0.02 else []


def _or_adds_alone(check, against_adds, differ: bool):
    """``check`` against the fp64 roof P64; where it fails and the reduction's adds alone (half of
    P64, an add being 1 FLOP) give another key, ``against_adds()`` may pass it, saying why."""
    if not differ or check.status != "fail":
        return check
    alt = against_adds()
    if not alt.passed:
        return check
    return Check(check.question, "pass", "correct against its adds' own roof, half of P64 (an add is "
                                         "1 FLOP, P64 counts an FMA as 2); the key's P64 is an upper "
                                         "bound on it")


#: grading's generic factor-2 hint: "one fused multiply-add is 2 FLOPs, and a copy both reads and
#: writes". Review 23k K4-1: it fits neither the reduction (no multiply-add, no write stream) nor
#: a fraction taken against the fp64 roof.
_FACTOR_2_HINT = next(hint for factor, _, hint in _FACTOR_HINTS if factor == 2.0)


def _no_factor_2(grade) -> Check:
    """``grade(factor_hints)``, a check_number call, with grading's generic hints (units: 1,000,
    10^9, bits) but not its factor-2 one (FMA, copy), for a check where neither cause can explain
    a factor of 2 (review 23k K4-1, K4-4): such an answer gets the direction alone."""
    check = grade(True)
    if check.status == "fail" and check.message == _FACTOR_2_HINT:
        return grade(False)
    return check


#: The 8-bytes-per-element slip on the sum (review 19k2 K4-2): it halves the intensity and doubles
#: the GB/s.
_EIGHT_BYTES = "x is float32, 4 bytes per element; the float64 is the accumulator, in registers"


def _reduction_roof_slips(red: dict) -> list:
    """The sum's roof with its intensity's slips in it, where its roof is I x R (review 23k K4-1):
    2 FLOPs per add doubles it, 8 bytes per element halves it.  Each only where the slip's roof
    would still be I x R, below the compute roof it met."""
    slips = []
    if red["roof"] >= 0.999 * red["peak"]:  # compute-bound: no slip in I moves the roof
        return slips
    if 2 * red["roof"] < 0.98 * red["peak"]:
        slips.append((2 * red["roof"], "did you count 2 FLOPs per add? A sum does one add per element, "
                                       "and an add is 1 FLOP (only a fused multiply-add counts 2)"))
    if abs(red["roof"] / 2 / red["adds_peak"] - 1) > 0.02:
        slips.append((red["roof"] / 2, "did you count 8 bytes per element? " + _EIGHT_BYTES))
    return slips


def _reduction_roof_bandwidths(setup, red: dict, answer=None) -> list:
    """The sum's roof against a bandwidth other than R (review 31k2 item 3): I x C, the copy
    ceiling, and, on an H200, I x its datasheet bandwidth; each only where it is more than 2% from
    the key's roof, the compute roofs and I x B, which have hints of their own.  Review 40k2 item 1:
    where the GiB reading of I x R lies within 2% of one of them (I x C on the recorded H200), the
    reading nearer ``answer`` comes first, as for the fraction; and the fp32 P, with no min taken,
    is named as that slip (review 40k2 item 2)."""
    named = [red["roof"], red["peak"], red["adds_peak"], red["roof_b"]]
    slips = []
    if setup.fp64_gflops and all(abs(setup.peak_gflops / w - 1) > 0.02 for w in named):
        slips.append((setup.peak_gflops, "that is the fp32 roof P alone: the sum's adds are float64, "
                                          "and its roof is the min of its compute roof and I x R, "
                                          "which at this intensity is far lower"))
        named.append(setup.peak_gflops)
    for gbps, hint in (
            (setup.dram_copy_gbps, "that is I x C, the copy ceiling; the reduction only reads: its "
                                   "roof is I x R"),
            (H200.ceiling("dram").value if "H200" in setup.machine.name else None,
             "that is I x the datasheet bandwidth; the reduction's roof is I x R, the read ceiling "
             "Lab 1 measured")):
        wrong = red["intensity"] * gbps if gbps else None
        if wrong and wrong < red["peak"] and all(abs(wrong / w - 1) > 0.02 for w in named):
            slips.append((wrong, hint))
            named.append(wrong)
    return _gib_reading(red["roof"], slips, answer, unit="GFLOP/s")


def _fma_wrong_roofs(setup, fma: dict) -> list:
    """``(roof, name)`` of the roofs an FMA fraction is often taken against by mistake: I x C
    alone (above P), P alone (review 23k K4-5: the slip where the kernel is memory-bound,
    16C < P), the roof against B and I x B alone (review 35k2 item 2: where the roof against B is
    P, I x B without the min); each only where it is more than 3% from the key's roof and from
    those before it (where the roof against B is P itself, P is named once)."""
    kept = []
    for wrong, name in ((fma["intensity"] * setup.copy_gbps, "I x C alone"),
                        (setup.peak_gflops, "P alone"), (fma["roof_b"], "the roof against B"),
                        (fma["intensity"] * setup.peak_gbps, "I x B alone")):
        if abs(fma["roof"] / wrong - 1) > 0.03 and all(abs(w / wrong - 1) > 0.03 for w, _ in kept):
            kept.append((wrong, name))
    return kept


def _fp64_fraction_slip(setup, fma: dict) -> list:
    """The FMA kernel's achieved rate over the fp64 roof P64, where the ceilings hold one and it
    gives another fraction (review 23k K4-1): a wrong roof, and above 1 a roof the kernel cannot
    be under."""
    if not setup.fp64_gflops:
        return []
    wrong = fma["achieved"] / setup.fp64_gflops
    if abs(wrong / fma["fraction"] - 1) <= 0.03:
        return []
    return [(wrong, "that is against the fp64 roof, P64; this kernel's FMAs are fp32: divide by its "
                    "roof, min(P, I x C)" + ("; a fraction above 1 means the roof divided by is not "
                                             "the kernel's" if wrong > 1 else ""))]


def _band_hint(intensity: float, ridge: float, ridge_name: str, why: str = "") -> str:
    """Review 16b (exercise 4): a "memory" or "compute" answer for an intensity inside the band of
    the right ridge misses the band, whatever ridge it was judged against: the hint says so."""
    # Review 19k2 K4-6: the hint names the band, not which side of it the intensity takes
    return (f"compare I = {intensity:.3g} FLOP/byte with {ridge_name} = {ridge:.3g}{why}, and with the "
            f"band around it: an intensity from ridge / {1 + RIDGE_BAND:g} to {1 + RIDGE_BAND:g} x ridge "
            "counts as at the ridge")


#: Review 19k2 K4-5, 23k K4-2: the menu's own description of each side ("memory-bound, left of
#: the ridge", "compute-bound, right of the ridge", "at the ridge, both roofs are close"), which the
#: model answer prints, reads as that side.
class _NoGuessChoices(Choices):
    """A menu whose unreadable answers are never told "did you mean ...?" (review 31k2 item 4:
    "compute-bound (at the ridge)" was told "did you mean 'compute'?" where the key is the
    ridge), as exercise 5's menus; the message still lists the options."""

    def _read(self, answer):
        try:
            return super()._read(answer)
        except AnswerError as err:
            raise AnswerError(re.sub(r" \(did you mean '[^']*'\?\)$", "", str(err))) from None


# Review 36k2 item 4: "near the ridge" (and the band's own name) read as the ridge; a side with
# "(at the ridge)" after it stays unreadable, since it names two answers
# "both" alone names no side: it is read only to be told so (a hidden option with its own hint)
_SIDES = _NoGuessChoices(without_bare_both({
    name: (desc, synonyms + (desc,) + (("both roofs bind", "at ridge both roofs bind", "near the ridge",
                                        "close to the ridge", "around the ridge", "in the ridge band",
                                        "within the ridge band", "ridge band") if name == "ridge" else ()))
    for name, (desc, synonyms) in SIDES.options.items()}), hidden=("both",))


def _reduction_side_hints(red: dict, ridge_name: str = "P64 / R") -> dict:
    """The reduction's side hints: the band where its intensity lies inside the band of its ridge
    (``ridge_name``: P64 / R, or P / R where the ceilings hold no fp64 row, review 23k K4-6);
    else grading's default side hints, in R's name, not B's (review 19k2 K4-7)."""
    if red["side"] == "ridge":
        return {**{s: _band_hint(red["intensity"], red["ridge"], ridge_name) for s in ("memory", "compute")},
                "both": BOTH_HINT}
    return {"both": BOTH_HINT, "memory": f"compare the intensity with {ridge_name} again: the memory side is where I x R is "
                      "below the compute roof",
            "compute": f"compare the intensity with {ridge_name} again: the compute side is where I x R "
                       "exceeds the compute roof"}


def _fma_side_hints(fma: dict, b_hint: str, copy_mix: bool = True) -> dict:
    """The FMA kernel's side hints: the band where its intensity lies inside the band of P / C;
    the B hint only for an answer right against B and wrong against C outside that band."""
    hints = {"both": BOTH_HINT}
    for s in ("memory", "compute", "ridge"):
        if fma["side"] == "ridge" and s != "ridge":
            # Review 26k2 K4-4: with no copy mix loaded the ridge is P / B, and the hint says so
            hints[s] = (_band_hint(fma["intensity"], fma["ridge"], "P / C",
                                   " (C, the copy ceiling: it reads x and writes y)") if copy_mix else
                        _band_hint(fma["intensity"], fma["ridge"], "P / B",
                                   " (B, the DRAM roof: these ceilings hold no copy mix)"))
        elif s == fma["side_b"] != fma["side"]:
            hints[s] = b_hint + ": compare its intensity with P / C"
        else:
            hints[s] = (f"compare {fma['intensity']:g} FLOP/byte with this kernel's ridge, "
                        "P / C from the ceilings loaded above (it reads x and writes y: the copy mix)")
    return hints


def _require_setup(setup):
    if not isinstance(setup, Setup):
        raise TypeError("setup: pass the Setup that ex.prepare() returned")


def check_placement(setup, reduction_intensity, reduction_gflops, reduction_roof,
                    reduction_side, reduction_fraction_of_dram, fma_intensity, fma_gflops,
                    fma_roof, fma_side, fma_fraction_of_roof):
    """Both kernels on the loaded ceilings: intensity, achieved and roof (GFLOP/s), side, score."""
    _require_setup(setup)
    k = _keys(setup)
    red, fma = k["reduction"], k["fma"]
    time_hint = "achieved GFLOP/s = FLOPs / seconds / 1e9, with this run's n and median time"
    roof_hint = ("the roof is min(P, I x C): this notebook's fp32 ceiling and the DRAM ceiling of the "
                 "kernel's own access mix, the copy")
    b_hint = (f"that is against {setup.b_words}; this kernel reads x and writes "
              "y, so judge it against the copy ceiling C, as notebook 03 judges each kernel")
    # Review 10b K4-2: a roof cannot exceed the compute roof, whatever the slope gave
    above_p = (setup.peak_gflops, "attainable is the min of the two roofs, min(P, I x the DRAM "
                                  "ceiling of the kernel's own mix): it cannot exceed the compute "
                                  "roof P")
    # The reduction's adds are float64: its compute roof is the fp64 one, P64
    above_p64 = (red["peak"], "attainable is the min of the two roofs, min(P64, I x R): it cannot "
                              "exceed the compute roof of its float64 adds, the fp64 one"
                 if setup.fp64_gflops else
                 # review 23k K4-6: no fp64 row loaded: the key's roof is the fp32 P
                 "attainable is the min of the two roofs, min(P, I x R): these ceilings hold no "
                 "fp64 row, so it cannot exceed the fp32 P, an upper bound on its float64 adds' roof")
    return report(
        f"Placement on {setup.machine.name}",
        # Review 10b K4-1: the generic factor-2 hint (FMAs, copies) does not fit a sum
        check_number(reduction_intensity, red["intensity"], "reduction intensity",
                     unit="FLOP/byte",
                     mistakes=[(2 * red["intensity"], "an add is 1 FLOP, only a fused multiply-add "
                                                      "counts 2: a sum does one add per element and "
                                                      "reads each 4-byte element once"),
                               # Review 19k2 K4-2: 8 bytes per element, the accumulator's size
                               (red["intensity"] / 2, _EIGHT_BYTES)]),
        # Review 12b K4-1: nor does it fit the achieved rate; its slips are the intensity's
        # Review 23k K4-4: the unit hints (x 1e3, x 1e9) kept, only the factor-2 one dropped
        _no_factor_2(lambda factor_hints: check_number(
            reduction_gflops, red["achieved"], "reduction achieved rate",
            unit="GFLOP/s", factor_hints=factor_hints,
            mistakes=[(red["gbps"], "that is its GB/s; the question asks for GFLOP/s"),
                      (2 * red["achieved"], "did you count 2 FLOPs per add? A sum does one "
                                            "add per element, and an add is 1 FLOP (only a "
                                            "fused multiply-add counts 2)"),
                      (red["achieved"] / 2, "did you count fewer FLOPs than elements, or "
                                            "a longer time? The sum does n adds, one per "
                                            "element, in the measured time")])),
        # Review 23k K4-1: no generic FMA/copy factor-2 hint on the sum's roof; its own slips,
        # 2 FLOPs per add and 8 bytes per element, carried from the intensity, are named instead
        _or_adds_alone(_achieved_as_roof(reduction_roof, red, _no_factor_2(lambda factor_hints: check_number(
                           reduction_roof, red["roof"], "reduction roof", unit="GFLOP/s",
                           factor_hints=factor_hints,
                           mistakes=[(wrong, (("that is the compute roof of its float64 adds; "
                                               if wrong != red["peak"] else
                                               # review 39k2: P64 itself is a DFMA peak
                                               "that is the fp64 roof (an FMA peak; adds alone "
                                               "reach half); ")
                                              if setup.fp64_gflops else
                                              # review 37k2 K4-4: no fp64 row: the roof is P
                                              "that is the compute roof P (these ceilings hold no "
                                              "fp64 row); ")
                                             + "at this intensity I x R is far lower")
                                     for wrong in sorted({red["peak"], red["adds_peak"]})
                                     if abs(wrong / red["roof"] - 1) > 0.02]
                           # review 19k2 K4-7: where I x B equals a peak within 2%, the
                           # peak's hint alone (two hints ran together without a break)
                           + [m for m in _mix_mistake(red["roof"], red["roof_b"],
                                                      f"that is I x {setup.b_words}; the "
                                                      "reduction only reads: its roof is I x R")
                              if all(abs(m[0] / p - 1) > 0.02
                                     for p in (red["peak"], red["adds_peak"]))]
                           + _reduction_roof_slips(red)
                           + _reduction_roof_bandwidths(setup, red, reduction_roof),
                           at_most=above_p64))),
                       lambda: check_number(reduction_roof, red["adds_roof"], "reduction roof",
                                            unit="GFLOP/s"),
                       red["roof"] != red["adds_roof"]),
        _or_adds_alone(check_side(reduction_side, red["intensity"], red["ridge"],
                                  "reduction side of the ridge", spread=setup.read_ridge_spread,
                                  choices=_SIDES, hints=_reduction_side_hints(red, setup.read_ridge_name)),
                       lambda: check_side(reduction_side, red["intensity"], red["adds_ridge"],
                                          "reduction side of the ridge", spread=setup.read_ridge_spread,
                                          choices=_SIDES, hints={"both": BOTH_HINT}),
                       red["ridge"] != red["adds_ridge"]),
        # Judged against its own access mix (notebook 03): the reduction only reads.
        # Review 23k K4-1: no generic FMA/copy factor-2 hint (the sum reads only); 8 bytes per
        # element, which doubles its GB/s, is named instead
        # review 34k2 item 1: a round 1.0 or "100%" for 0.968 hears the rounding first
        _rounded_fraction(reduction_fraction_of_dram, red["gbps"] / setup.read_gbps,
                          _no_factor_2(lambda factor_hints: check_number(
            reduction_fraction_of_dram, red["gbps"] / setup.read_gbps,
            "reduction bandwidth as a fraction of the DRAM read ceiling", unit="fraction",
            rtol=0.02, factor_hints=factor_hints,
            mistakes=(_gib_reading(red["gbps"] / setup.read_gbps,
                                   [(red["gbps"] / gbps,
                                     # review 19g2 K4-4: a datasheet figure near B lands here too;
                                     # review 31k2 item 2: at 2% the H200's datasheet 4,800 GB/s
                                     # is named on its own
                                     f"that is against {setup.b_words}, or a "
                                     "bandwidth near it such as a datasheet's; the reduction only "
                                     "reads: score it against the read ceiling, setup.read_gbps")
                                    for gbps in [setup.peak_gbps]
                                    + ([H200.ceiling("dram").value]
                                       if "H200" in setup.machine.name else [])],
                                   reduction_fraction_of_dram)
                      if abs(setup.read_gbps / setup.peak_gbps - 1) > 0.03 else [])
            + ([(2 * red["gbps"] / setup.read_gbps, _EIGHT_BYTES)]
               if abs(2 * setup.peak_gbps / setup.read_gbps - 1) > 0.03 else [])
            # review 33k2 item 3: against the copy ceiling, where it is its own figure
            + ([(red["gbps"] / setup.copy_gbps,
                 "that is against the copy ceiling C; the reduction only reads: score it against "
                 "the read ceiling, setup.read_gbps")]
               if setup.dram_copy_gbps and all(abs(setup.copy_gbps / g - 1) > 0.03
                                               for g in (setup.read_gbps, setup.peak_gbps,
                                                         2 * setup.peak_gbps))
               else [])))),
        # Review 36k2 items 1 and 3: the exact intensity held as tightly as Part A's count, and
        # its slips named as Part A names them
        _exact_intensity(check_number(fma_intensity, fma["intensity"], "FMA kernel intensity",
                                      unit="FLOP/byte", rtol=FMA_INTENSITY_RTOL,
                                      mistakes=_fma_intensity_slips())),
        check_number(fma_gflops, fma["achieved"], "FMA kernel achieved rate", unit="GFLOP/s",
                     mistakes=[(fma["achieved"] / 2, time_hint + "; each multiply-add is 2 FLOPs"),
                               # review 36k2 item 2: grading's generic factor-2 hint speaks of a
                               # copy's read and write, which no rate has
                               (2 * fma["achieved"], "did you count 4 FLOPs per multiply-add, or "
                                                     "half the time? One multiply-add is 2 FLOPs; "
                                                     + time_hint),
                               (fma["gbps"], "that is its GB/s; the question asks for GFLOP/s")]),
        _fma_roof_readings(setup, fma_roof, fma, b_hint, _achieved_as_roof(fma_roof, fma, check_number(fma_roof, fma["roof"], "FMA kernel roof", unit="GFLOP/s",
                     mistakes=([(fma["intensity"] * setup.copy_gbps, roof_hint + ": I x C alone is "
                                                                     "above the compute roof")]
                               if fma["intensity"] * setup.copy_gbps > setup.peak_gflops else
                               [(setup.peak_gflops, roof_hint)])
                     # review 21k2 K4-2: where the roof against B is P itself (16C < P <= 16B),
                     # the roof hint alone, which names the copy (two hints ran together)
                     + [m for m in _mix_mistake(fma["roof"], fma["roof_b"], b_hint)
                        if fma["intensity"] * setup.copy_gbps > setup.peak_gflops
                        or abs(m[0] / setup.peak_gflops - 1) > 0.02]
                     # review 21k2 K4-3: the fp64 roof is no factor-2 slip in FLOPs or bytes
                     # review 36k2 item 3: the roof at I = 8, a multiply-add counted as 1 FLOP
                     + _fma_roof_half_intensity(setup, fma)
                     + ([(setup.fp64_gflops, "that is the fp64 roof; this kernel's FMAs are fp32: "
                                             "its compute roof is P, the fp32 one")]
                        if setup.fp64_gflops and abs(setup.fp64_gflops / fma["roof"] - 1) > 0.02
                        and abs(setup.fp64_gflops / setup.peak_gflops - 1) > 0.02 else []),
                     at_most=above_p), mix="C")),
        check_side(fma_side, fma["intensity"], fma["ridge"], "FMA kernel side of the ridge",
                   hints=_fma_side_hints(fma, b_hint, bool(setup.dram_copy_gbps)), spread=setup.copy_ridge_spread,
                   choices=_SIDES),
        # Review 11b K4-1: a fraction against I x C alone (above P) is a wrong roof, not a rounding
        _fma_fraction_readings(setup, fma_fraction_of_roof, fma, _rounded_fraction(fma_fraction_of_roof, fma["fraction"], check_number(
                     fma_fraction_of_roof, fma["fraction"], "FMA kernel fraction of its roof",
                     unit="fraction", rtol=0.02,
                     # review 19k2 K4-7: achieved / (I x C) is also GB/s over C: both named
                     mistakes=[(fma["achieved"] / wrong, "divide the achieved GFLOP/s by the roof you "
                                                         "found above, min(P, I x C), not by " + name
                                                         + (f" (the same as GB/s over {name[4]})"
                                                            if name.endswith(" alone") and name[0] == "I"
                                                            else ""))
                               for wrong, name in _fma_wrong_roofs(setup, fma)]
                     # review 23k K4-1: against the fp64 roof is a wrong roof, not a factor-2 recount
                     + _fp64_fraction_slip(setup, fma)))),
    )


def _fraction_value(answer, question: str):
    """A fraction answer as check_number reads it (a bare number above 1.5 is a percentage), or
    None where it cannot be read: the readings below only add to a check already made."""
    try:
        value = read_number(answer, question, "fraction")
    except (AnswerError, NotAnsweredError):
        return None
    if value > 1.5 and not (isinstance(answer, str) and "%" in answer):
        value /= 100
    return value


def _fma_fraction_readings(setup, answer, fma: dict, check: Check) -> Check:
    """Review 58 k45 items 5 and 6: two readings of the FMA fraction that grading's value alone
    misses.  A pass nearer the fraction of the H200 datasheet's fp32 peak than of the loaded P
    gets the note the roof gets; a miss that is also the fraction of a student who counted each
    multiply-add as 1 FLOP in the rate and the roof alike, (achieved / 2) / min(P, I / 2 x C),
    hears that each is 2 FLOPs (on the recorded H200 it is the fraction against I x C alone)."""
    value = _fraction_value(answer, check.question)
    if value is None:
        return check
    datasheet = H200.ceiling("fp32").value if "H200" in setup.machine.name else None
    if check.passed and datasheet and fma["roof"] == setup.peak_gflops:
        wrong = fma["achieved"] / datasheet
        if abs(wrong / fma["fraction"] - 1) > 0.005 and abs(value - wrong) < abs(value - fma["fraction"]):
            said = ("is the fraction of the H200 datasheet's fp32 peak, not of" if abs(value / wrong - 1) < 0.001
                    else f"is nearer the fraction of the H200 datasheet's fp32 peak ({wrong:.3g}) than of")
            return Check(check.question, "pass",
                         f"{check.message}; note: {value:.3g} {said} the roof on these ceilings, the "
                         f"measured P ({fma['fraction']:.3g}): divide by the roof, min(P, I x C)")
    half = fma["achieved"] / 2 / attainable_gflops(fma["intensity"] / 2, setup.peak_gflops, setup.copy_gbps)
    if (check.status == "fail" and abs(half / fma["fraction"] - 1) > 0.02
            and abs(value / half - 1) <= 0.02):
        said = ("if you counted each multiply-add as 1 FLOP, in the rate and in the roof alike: "
                "each is 2 FLOPs")
        generic = check.message.startswith("not within")
        return Check(check.question, "fail", said[0].upper() + said[1:] if generic
                     else f"{check.message}; or, {said}")
    return check


def _gib_reading(key: float, divisors: list, answer, unit: str = "fraction") -> list:
    """The wrong-divisor slips ``divisors`` ((fraction, hint) pairs: B, a datasheet's bandwidth),
    with the GiB reading where it lies among them.  Review 37k2 K4-1: a fraction whose GB/s were
    converted with GiB (bytes / 2^30) is key / 1.074; where a divisor's fraction lies within 2% of
    it, grading's tight GiB hint never runs, so the GiB reading is named too.  Review 39k2: the
    reading nearer the answer comes first (0.909, the H200 datasheet's 4,800 GB/s, hears the
    divisor first; 0.901 hears GiB first)."""
    gib = key * 1e9 / 2 ** 30
    if not any(abs(wrong / gib - 1) <= 0.02 for wrong, _ in divisors):
        return list(divisors)
    gib_text = ("did you convert with GiB (2^30 bytes)? This course uses decimal GB (10^9 bytes), "
                "and GiB gives about 7% less")
    try:
        value = read_number(answer, unit, unit)
    except (AnswerError, NotAnsweredError):
        value = gib
    off_gib = abs(value / gib - 1)
    if off_gib <= 0.02 and min(abs(value / wrong - 1) for wrong, _ in divisors) < off_gib:
        return [(wrong, hint + ".") for wrong, hint in divisors] + [(gib, "Or " + gib_text + ".")]
    return [(gib, gib_text[0].lower() + gib_text[1:] + ". Otherwise:")] + list(divisors)


def _achieved_as_roof(answer, red: dict, check: Check, mix: str = "R") -> Check:
    """Review 37k2 K4-2: the achieved rate given as the roof hears so, not a wrong-ceiling hint
    that happens to lie within 2% of it (I x C on the recorded H200); only where the answer is
    nearer the achieved rate than any other reading it failed on.  ``mix`` names the kernel's
    bandwidth roof (R for the sum, C for the FMA kernel: review 38k2, the same slip on both)."""
    if check.status != "fail":
        return check
    try:
        value = read_number(answer, check.question, "GFLOP/s")
    except (AnswerError, NotAnsweredError):
        return check
    if abs(value / red["achieved"] - 1) > 0.005:
        return check
    return Check(check.question, "fail", "that is the achieved rate, not the roof: the roof is "
                                         "what the kernel could reach at its intensity, min of "
                                         f"the compute roof and I x {mix}")


def _fma_roof_readings(setup, answer, fma: dict, b_hint: str, check: Check) -> Check:
    """Review 46k2, key 4: two readings of the FMA roof that grading's value alone misses.
    A pass nearer the H200 datasheet's fp32 peak than the loaded P still passes (within ±2%), with
    a note that the roof is this notebook's measured P; I x B above P, refused by the min, also
    hears that B is the wrong bandwidth for this kernel's mix."""
    try:
        value = read_number(answer, check.question, "GFLOP/s")
    except (AnswerError, NotAnsweredError):
        return check
    datasheet = H200.ceiling("fp32").value if "H200" in setup.machine.name else None
    if (check.passed and datasheet and fma["roof"] == setup.peak_gflops
            and abs(datasheet / fma["roof"] - 1) > 0.005
            and abs(value - datasheet) < abs(value - fma["roof"])):
        said = ("is the H200 datasheet's fp32 peak, not" if abs(value / datasheet - 1) < 0.001
                else f"is nearer the H200 datasheet's fp32 peak ({datasheet:,.0f}) than")
        return Check(check.question, "pass",
                     f"{check.message}; note: {value:,.0f} {said} the measured P these ceilings "
                     f"hold ({setup.peak_gflops:,.0f}): the roof on these ceilings is "
                     "setup.peak_gflops")
    wrong_b = fma["intensity"] * setup.peak_gbps
    # Review 58 k45 item 1: B against C, a bandwidth against a bandwidth (the old guard divided
    # I x B, a GFLOP/s, by C, so it always held): where B is the copy, I x B is I x C, which
    # check_number's own min hint names
    if (check.status == "fail" and wrong_b > setup.peak_gflops
            and abs(setup.peak_gbps / setup.copy_gbps - 1) > 0.02 and abs(value / wrong_b - 1) <= 0.02):
        return Check(check.question, "fail", f"{b_hint}; and attainable is the min of the two roofs, "
                                             "min(P, I x C): it cannot exceed the compute roof P")
    return check


def _exact_intensity(check: Check) -> Check:
    """Review 37k2 K4-3: the FMA intensity is exact (128 FLOPs over 8 bytes): grading's near-miss
    text, "keep three significant figures", misleads for 15.9, which has three."""
    if check.status == "fail" and check.message.endswith("keep three significant figures"):
        return Check(check.question, "fail",
                     check.message.rsplit(";", 1)[0] + "; the intensity is exact here: FLOPs per "
                     "element over bytes per element, no rounding")
    return check


def _fma_intensity_slips() -> list:
    """The FMA kernel's intensity with Part A's slips in it (review 36k2 items 1 and 3): one
    multiply-add more or fewer, a read of y counted (12 bytes per element), a multiply-add counted
    as 1 FLOP, and only x's bytes counted."""
    e = ops.dtype_bytes("fp32")
    return ([(2 * k / (2 * e), f"count the multiply-adds in the loop: K = {FMA_STEPS}")
             for k in (FMA_STEPS - 1, FMA_STEPS + 1)]
            + [(2 * FMA_STEPS / (3 * e), "12 bytes per element counts a read of y as well: the "
                                         "kernel reads x and only writes y"),
               (FMA_STEPS / (2 * e), "each multiply-add counts as 2 FLOPs"),
               (2 * FMA_STEPS / e, "the kernel reads x and writes y: both cross memory")])


def _fma_roof_half_intensity(setup, fma: dict) -> list:
    """The FMA roof read off at half the intensity, I x C with a multiply-add counted as 1 FLOP
    (review 36k2 item 3), where that is below P and more than 2% from the key's roof and P."""
    wrong = fma["intensity"] / 2 * setup.copy_gbps
    if wrong >= 0.98 * setup.peak_gflops or abs(wrong / fma["roof"] - 1) <= 0.02:
        return []
    return [(wrong, "that is I x C at I = 8, a multiply-add counted as 1 FLOP: each is 2 FLOPs")]


def _plausible_rounding(value: float, key: float) -> bool:
    """Review 33k2 item 1: whether a fraction can be the key rounded, 0.8 or 80% for 0.822: written
    to at most two significant figures (as a fraction or a percentage), and within 2.5
    percentage points of the key, or the key rounded to one figure."""
    if value != _rounded_sig(value, 2) and 100 * value != _rounded_sig(100 * value, 2):
        return False
    return abs(value - key) <= 0.025 or value == _rounded_sig(key, 1)


def _rounded_sig(value: float, digits: int) -> float:
    return float(f"{value:.{digits - 1}e}") if value else 0.0


#: The wrong-divisor hints a fraction that is also a plausible rounding of its key may hear:
#: ``(how the hint starts, the divisor it names, the right one)``; None takes the divisor from the
#: hint's own "not by ...".  The FMA kernel's wrong roofs (review 33k2 item 1) and the reduction's
#: copy ceiling (review 34k2 item 1); each hint starts only one check's messages.
_ROUNDING_SLIPS = (
    ("divide the achieved GFLOP/s", None, "divide by the roof you found above, min(P, I x C)"),
    ("that is against the copy ceiling C", "the copy ceiling C (the reduction only reads)",
     "divide its GB/s by the read ceiling, setup.read_gbps"),
)


def _rounded_fraction(answer, key: float, check: Check) -> Check:
    """A wrong-roof hint heard by a fraction that is also a plausible rounding of the key (review
    33k2 item 1: 0.8 lies within 2% of the fraction against I x C alone, 0.793) names both
    readings, rounding first, rather than a slip the student may not have made; the hints it
    applies to are :data:`_ROUNDING_SLIPS`."""
    slip_redo = next(((slip, redo) for starts, slip, redo in _ROUNDING_SLIPS
                      if check.message.startswith(starts)), None)
    if check.status != "fail" or slip_redo is None:
        return check
    slip, redo = slip_redo
    value = _fraction_value(answer, check.question)
    if value is None:
        return check
    if not _plausible_rounding(value, key):
        return check
    if slip is None:
        slip = check.message.split("not by ", 1)[1] if "not by " in check.message else "another roof"
    return Check(check.question, "fail",
                 "too far from the key to pass (±2% or ±0.5 percentage points): if you rounded, give "
                 f"two more figures; or did you divide by {slip}? ({redo})")


def _usable_rate(rate):
    """A student's achieved rate as a positive float to draw, or None (drawn on its roof)."""
    if rate is None or is_unanswered(rate):
        return None
    try:
        value = read_number(rate, "achieved rate", "GFLOP/s")
    except (AnswerError, NotAnsweredError):
        return None
    return value if sanity.in_band(value, "GFLOP/s") else None


@dataclass(frozen=True)
class _MixPoint:
    """A kernel as the figure places it: judged against ``memory_ceiling``, the DRAM roof of its
    own access mix (what :func:`rooflinelib.views.plotting.own_roofline` reads)."""

    name: str
    n_flops: float
    n_bytes: float
    achieved_gflops: Optional[float]
    memory_ceiling: str


def mix_machine(setup) -> tuple:
    """``(machine, fma_roof, reduction_roof)``: ``setup``'s ceilings with Lab 1's copy and read
    mixes beside ``dram``, and the name of the DRAM roof each kernel is judged against (``dram``
    where the ceilings hold no such mix), as the checks judge them."""
    _require_setup(setup)
    machine, names = setup.machine, {}
    for kernel, name, gbps in (("fma", "dram-copy", setup.dram_copy_gbps),
                               ("reduction", "dram-read", setup.dram_read_gbps)):
        if gbps and not machine.has(name):
            machine = replace(machine, ceilings=machine.ceilings + (
                Ceiling(name, "memory", gbps, f"the same Lab 1 as {setup.machine.name}'s ceilings",
                        label_of(name)),))
        names[kernel] = name if machine.has(name) else "dram"
    return machine, names["fma"], names["reduction"]


def placement_figure(setup, reduction_gflops=None, fma_gflops=None):
    """Both kernels on the loaded roofline, at the student's achieved rates (or their roofs),
    each under the DRAM roof of its own access mix: the copy for the FMA kernel, whose ridge
    P / C the chart draws, and the read for the reduction."""
    machine, fma_roof, reduction_roof = mix_machine(setup)
    points = []
    for run, cost, rate, roof in ((setup.reduction, reduction_cost(setup.reduction.n), reduction_gflops,
                                   reduction_roof),
                                  (setup.fma, fma_cost(setup.fma.n), fma_gflops, fma_roof)):
        points.append(_MixPoint(run.name, cost.n_flops, cost.n_bytes, _usable_rate(rate), roof))
    memory = [fma_roof] + ([reduction_roof] if reduction_roof != fma_roof else [])
    return roofline_figure(machine, points, compute="fp32", memory=memory,
                           title=f"Your two kernels on {setup.machine.name}, each under its own mix's roof")


def _on_cpu(setup) -> bool:
    """Whether the loaded ceilings were measured on a CPU (their provenance says so)."""
    provenance = setup.machine.provenance or {}
    return provenance.get("kind") == "cpu" or provenance.get("backend") == "cpu"


def _rate(value: float) -> str:
    """A rate for the model answer: whole units with thousands separators from 100 up (an
    H200's), else three significant figures (review 58 k45 item 4: a CPU's 2.155 GFLOP/s
    printed as 2)."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _reduction_roof_note(setup, red) -> tuple:
    """The model answer's notes on the reduction's compute roof, from the numbers the key used
    (review 19k2, clarity: two asides, the roof and the conversions, not one 90-word bullet)."""
    if not setup.fp64_gflops:
        return ("The reduction's compute roof: its adds run in float64 (it accumulates in double), "
                "so it is the fp64 one; these ceilings hold no fp64 row, so the key places it under the fp32 "
                f"P, an upper bound on that roof; at {red['intensity']:.3g} FLOP/byte its roof is I x R "
                "either way.",)
    # Review 15b (exercise 4): P64 is the DFMA peak, 2 FLOPs per instruction; a DADD is 1, so the
    # adds alone reach at most half of it, and P64 / R is an upper bound on the ridge.
    on_cpu = _on_cpu(setup)
    return (("The reduction's compute roof: its adds run in float64, so "
            f"it is at most the fp64 one, P64 = {_rate(setup.fp64_gflops)} GFLOP/s, and half "
            f"that for adds alone (P64 counts an FMA as 2 FLOPs, an add is 1): its ridge is at most "
            f"P64 / R = {red['ridge']:.3g} FLOP/byte ({red['ridge'] / 2:.3g} for adds alone), and "
            f"its roof is "
            # Review 19g2 K4-3: where the adds alone bind below I x R, the roof is theirs
            + (f"I x R = {_rate(red['roof'])} GFLOP/s. " if red["adds_roof"] >= red["roof"] else
               f"min(P64 / 2, I x R) = P64 / 2 = {_rate(red['adds_roof'])} GFLOP/s for adds alone "
               f"(I x R = {_rate(red['roof'])}). ")
            # Review 19k2 K4-1: a GPU with 1/64-rate fp64 brings that ridge down to 0.25; review
            # 23k K4-3: a GPU's fp64 rate is off-topic where the ceilings are a CPU's
            + ("" if on_cpu else
               # Review 27k2 item 1: where the loaded GPU's own fp64 is slow (P64 < P / 16), its
               # own numbers, not "a GPU with 1/64-rate fp64" as if another machine
               (f"On this GPU fp64 runs at 1/{setup.peak_gflops / setup.fp64_gflops:.0f} of the fp32 "
                f"rate: its adds-alone ridge, {red['ridge'] / 2:.3g} FLOP/byte, is "
                f"{red['ridge'] / 2 / red['intensity']:.2g} times the sum's intensity"
                + (" (and the conversions may bring it lower)." if red["ridge"] / 2 > red["intensity"]
                   else ".")
                if setup.fp64_gflops < setup.peak_gflops / 16 else
               # Review 26k2 K4-3: on common 1/64-rate parts P64 / 2 over R is about 0.3-0.8
               # review 39k2 (clarity): the conversions' own rate is the next note's
               "A float64 sum is memory-bound on a GPU with full- or half-rate fp64; with 1/64-rate "
               "fp64 its adds-alone ridge comes within a small factor of its intensity."))
            ).rstrip(),
            # Review 16b (exercise 4): each element's float32 -> float64 conversion (one F2F) has a
            # rate of its own, not recorded here, that may bind below P64 / 2; the measured rate
            # shows no compute limit binds below I x R on this run.  Review 23k K4-3: F2F is a GPU
            # (SASS) instruction; a CPU's is named by what it does.
            "P64 is an upper bound: each element's float32 -> float64 conversion "
            f"({'one conversion instruction' if on_cpu else 'one F2F instruction'}) "
            "has a rate of its own that may bind lower. "
            # review 34k2 item 4: where P64 / 2 lies below I x R, the run is told against it
            + (f"The run reached {_rate(red['achieved'])} GFLOP/s, "
               f"{red['achieved'] / red['adds_roof']:.0%} of P64 / 2, the adds-alone roof that lies "
               "below its memory roof here."
               if red["adds_roof"] < red["roof"] else
               f"The verdict holds either way: the run reached {_rate(red['achieved'])} GFLOP/s, "
               f"{red['fraction']:.0%} of I x R, so no compute limit binds appreciably below its memory "
               "roof."
               if red["fraction"] >= 0.9 else
               "Whether it binds on this run, the conversions' issue rate against their peak (a "
               "profiler counter) would decide."))


def _reduction_sides(red: dict) -> str:
    """The reduction's verdict for the model answer's lead: against its ridge P64 / R, or, where
    its adds alone (half of P64) put it on another side, both verdicts, the adds-alone one first
    (review 31k2 item 1: the lead stated the looser verdict as the answer)."""
    adds_side = side_of_ridge(red["intensity"], red["adds_ridge"])
    if adds_side == red["side"]:
        return f"{SIDES.options[red['side']][0]} here (its ridge: {red['ridge']:.3g} FLOP/byte)"
    return (f"{SIDES.options[adds_side][0]} for its float64 adds alone (their ridge, P64 / 2 / R: "
            f"{red['adds_ridge']:.3g} FLOP/byte), and {SIDES.options[red['side']][0]} only against the "
            f"upper bound P64 / R ({red['ridge']:.3g})")


#: The question Part C asks first, which the model answer's first word answers.
PART_C_QUESTION = "the same verdict on the H200's datasheet as on these ceilings?"


def model_verdict(setup, attempt):
    """The model answer on whether the FMA kernel's verdict depends on the hardware."""
    _require_setup(setup)
    k = _keys(setup)
    fma, red = k["fma"], k["reduction"]
    h200_ridge = H200.ridge("fp32", "dram")
    if _on_cpu(setup):
        # Review 19k2 K4-3: the ridge the FMA kernel was judged against (P / C), not P / B
        cpu = (f"This notebook measured this CPU: the FMA kernel's ridge is {fma['ridge']:.3g} FLOP/byte, "
               "and that, not a rule of thumb, places the kernel on a CPU; a server CPU with wide "
               "vectors and few memory channels per core can have a ridge as high as a GPU's. ")
    else:
        cpu = ("Run this notebook with ROOFLINE_MODE=cpu to measure a CPU's ridge: a wide-vector "
               "server CPU's can sit as far right as an HBM GPU's. ")
    intensity = fma["intensity"]
    rec_copy = RECORDED_H200["dram_copy_gbps"]
    rec_ridge = RECORDED_H200["ceilings"]["fp32"]["value"] / rec_copy

    def where(ridge):
        past = intensity / ridge - 1
        # Review 33k2 item 2: far from the ridge a ratio, not a percentage ("83% left" read as a
        # distance when the intensity is 17% of the ridge)
        if max(intensity / ridge, ridge / intensity) >= 1.5:
            if past > 0:
                return f"{intensity / ridge:.2g}× right of it, outside the ±{RIDGE_BAND:.0%} band"
            return (f"{ridge / intensity:.2g}× left of it (its intensity is {intensity / ridge:.0%} "
                    f"of the ridge), outside the ±{RIDGE_BAND:.0%} band")
        if side_of_ridge(intensity, ridge) == "ridge":
            return f"{abs(past):.0%} {'right' if past >= 0 else 'left'} of it, inside the ±{RIDGE_BAND:.0%} band"
        return f"{abs(past):.0%} {'right' if past > 0 else 'left'} of it, outside the ±{RIDGE_BAND:.0%} band"

    overlap = ("At the ridge only full overlap of loads and math reaches the roof (the model's "
               "reading; no counter here measured the overlap)."
               if fma["side"] == "ridge" else "")
    also = []
    ridge_name = "P / C" if setup.dram_copy_gbps else "P / B"
    if setup.dram_copy_gbps:
        fma_text = (f"The FMA kernel ({intensity:g} FLOP/byte) reads x and writes y, a copy: against this machine's copy ridge "
                    f"P / C = {fma['ridge']:.3g} FLOP/byte it sits "
                    f"{where(fma['ridge'])}: {SIDES.options[fma['side']][0]}; it reaches "
                    f"{fma['fraction']:.0%} of its roof. ")
        if fma["side_b"] != fma["side"]:
            also.append(f"Against {setup.b_name('best mix')}, the ridge would be {setup.ridge:.3g} "
                        f"and the verdict {SIDES.options[fma['side_b']][0].split(',')[0]}: the mix "
                        "decides.")
    else:
        fma_text = (f"The FMA kernel ({intensity:g} FLOP/byte) meets a ridge of {setup.ridge:.3g} FLOP/byte on these ceilings "
                    f"(they hold no copy mix, so B stands in for it): it sits {where(setup.ridge)}: "
                    f"{SIDES.options[fma['side']][0]}; it reaches {fma['fraction']:.0%} of its roof. ")
    read = (f"the read: {red['gbps'] / setup.read_gbps:.0%} of "
            f"{_rate(setup.read_gbps)} GB/s" if setup.dram_read_gbps else
            f"the DRAM ceiling (these ceilings hold no read mix): {red['gbps'] / setup.read_gbps:.0%}")
    # Review 19k2 (clarity, cell 15): the direct answer to Part C's question (the datasheet against
    # the loaded ceilings) opens the answer; then the two key points and the two verdicts; every
    # aside goes to the "Also" list.
    datasheet_side = side_of_ridge(intensity, h200_ridge)
    # Review 35k2 (clarity): the datasheet ridge stated once, in this answer, with its figures;
    # the course's measured H200 only where the loaded ceilings are another machine's
    # Review 58 k45 item 7: reveal() titles this answer with the question Part C asks first
    # (PART_C_QUESTION: the same verdict against the datasheet and the loaded ceilings?), and it
    # opens with the word that answers it, "Yes" or "No" as the two verdicts agree (round 51's
    # "Yes, it depends on the hardware" answered the heading, and read as "the same verdict")
    loaded_side = SIDES.options[fma['side']][0].split(',')[0]
    agree = datasheet_side == fma['side']
    same = (f"{loaded_side} too; a machine with another ridge can give another verdict"
            if agree else f"{loaded_side}")
    direct = (("Yes, the same verdict" if agree else "No, a different verdict") + ": against the H200's datasheet "
              f"ridge, {h200_ridge:.3g} FLOP/byte ({H200.ceiling('fp32').value / 1e3:.1f} TFLOP/s "
              f"over {H200.ceiling('dram').value / 1e3:.1f} TB/s, a bandwidth no access mix "
              f"reached), the FMA kernel is {SIDES.options[datasheet_side][0].split(',')[0]} "
              f"({where(h200_ridge)}); on the ceilings loaded here ({fma['ridge']:.3g}), "
              f"{same}."
              + ("" if setup.origin == "recorded" else
                 f" The course's H200, measured, has a copy ridge of {rec_ridge:.3g} (C = "
                 f"{rec_copy:,.0f} GB/s): {SIDES.options[side_of_ridge(intensity, rec_ridge)][0]}."))
    text = (direct + " Two points decide both verdicts: the intensity belongs to the kernel and the ridge "
            "to the machine, and each kernel meets the DRAM roof of its own access mix. " + fma_text +
            # Review 19k2 K4-1: not "on any machine": on a GPU with 1/64-rate fp64 its float64
            # adds' roof comes down to its intensity (the note in "Also" says so)
            f"The reduction ({red['intensity']:.3g} FLOP/byte) is {_reduction_sides(red)}; score its "
            f"bandwidth against {read}.")
    over = red["gbps"] / setup.read_gbps
    flagged = "dram-read" in setup.noisy
    if over > 1 + NOISY_IQR or (over > 1 and flagged):
        # Review 58 k45 item 2: far past the ceiling (a busy machine's Lab 1), the ceiling is
        # suspect, not beaten: measure it again
        also.append(f"Above 100% means the reduction read faster than Lab 1's own read kernels did. "
                    f"At {over:.0%}" + (f", more than {NOISY_IQR:.0%} past it," if over > 1 + NOISY_IQR else "")
                    + " the read ceiling looks wrong, not beaten"
                    + (": Lab 1 flagged it NOISY" if flagged else "")
                    + ". Re-run `roofline measure` when no other program is busy, then this notebook, "
                      "before trusting this fraction.")
    elif over > 1:
        also.append("Above 100% means the reduction read faster than Lab 1's own read kernels did: "
                    "a ceiling is the best rate Lab 1 reached, not a law, and a kernel can pass it "
                    "by a few percent.")
    if overlap:
        also.append(overlap)
    also += [cpu.strip(), *_reduction_roof_note(setup, red)]
    return reveal(attempt, text, PART_C_QUESTION,
                  key_points=("intensity belongs to the kernel, the ridge to the machine",
                              "judge each kernel against the DRAM roof of its own access mix: "
                              "the FMA kernel against the copy, the reduction against the read",
                              # Review 26k2 K4-1: the loaded ceilings' ridge, not "near a
                              # GPU's": a GDDR GPU's fp32 ridge is several times 16
                              f"{intensity:g} FLOP/byte against the loaded ridge, "
                              f"{ridge_name} = {fma['ridge']:.3g} FLOP/byte: "
                              f"{SIDES.options[fma['side']][0]}; near an HBM data-centre GPU's "
                              "fp32 ridge (about 10-30 FLOP/byte); memory-bound on a GDDR GPU; "
                              "a CPU's must be measured"),
                  also=also)


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps(record(progress=lambda line: print(line, file=sys.stderr)), indent=1))
