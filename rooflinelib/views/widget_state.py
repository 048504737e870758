"""What every course widget shows, computed without a widget: state in, numbers and text out.

Each widget in :mod:`rooflinelib.views.widgets` reads its controls, calls one function here, and
copies the result into its text and its figure.  Keeping the arithmetic and the wording here
means the tests check exactly what a student sees, with no browser and no Plotly involved.

Standard library and rooflinelib only.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from rooflinelib.core import operators, sanity, interconnect
from rooflinelib.views.ascii_plot import format_number
from rooflinelib.core.machines import get_machine, machine_names
from rooflinelib.core.vocabulary import BF16_TENSOR
from rooflinelib.core.model import RIDGE_TOLERANCE, Machine, Roofline, time_bounds
from rooflinelib.lessons.triage import KernelFacts

# --- shared helpers --------------------------------------------------------------------------


def as_machine(machine) -> Machine:
    """A :class:`Machine` from a machine or its registered name (``ValueError`` naming the
    field ``machine`` if unknown)."""
    if isinstance(machine, Machine):
        return machine
    if not isinstance(machine, str):
        raise ValueError(f"machine: must be a Machine or a machine's name, got {sanity.show(machine)}")
    try:
        return get_machine(machine)
    except KeyError:
        raise ValueError(f"machine: unknown {sanity.show(machine)}; known: "
                         f"{', '.join(machine_names())}") from None


def positive(value, field: str, unit: str = None) -> float:
    """``value`` as a positive finite float (inside ``unit``'s band of
    :data:`rooflinelib.core.sanity.BANDS` when given), or a one-line ``ValueError`` naming ``field``.
    Text such as ``"1e3"`` is read as a number."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise ValueError(f"{field}: must be a number, got {sanity.show(value)}") from None
    return sanity.number(value, field, error=ValueError, positive=True, unit=unit)


def whole(value, field: str, minimum: int = 1) -> int:
    """``value`` as a whole number of at most :data:`rooflinelib.core.sanity.MAX_INT_DIGITS`
    digits and at least ``minimum``, or a one-line ``ValueError`` naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{field}: must be a whole number, got {sanity.show(value)}")
    number = sanity.number(value, field, error=ValueError, integer=True)
    if number < minimum:
        raise ValueError(f"{field}: must be at least {minimum}, got {sanity.show(value)}")
    return int(value)


def gflops_text(gflops: float) -> str:
    """'66,900 GFLOP/s' with TFLOP/s alongside from 1000 GFLOP/s up."""
    text = f"{format_number(gflops)} GFLOP/s"
    return text + (f" ({gflops / 1000:.3g} TFLOP/s)" if gflops >= 1000 else "")


def intensity_text(intensity: float) -> str:
    """An intensity for reading, not for parsing: '0.0833', '13.9', '1,176'."""
    return f"{intensity:,.0f}" if intensity >= 1000 else f"{intensity:.3g}"


def seconds_text(seconds: float, digits: int = 3) -> str:
    """A time with the unit that keeps it readable: s, ms, us or ns, to ``digits`` significant figures."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.{digits}g} {unit}"
    return f"{seconds / 1e-9:.{digits}g} ns"


BOUND_WORDS = {"memory": "memory-bound", "compute": "compute-bound", "ridge": "at the ridge"}


def precision_options(machine) -> list:
    """(label, ceiling name) for every compute ceiling of ``machine``, in the machine's order."""
    machine = as_machine(machine)
    return [(f"{c.name}: {c.title}" if c.label and c.label != c.name else c.name, c.name)
            for c in machine.compute_ceilings]


def log_grid(low: float, high: float, per_decade: int = 24) -> list:
    """Points spaced evenly on a log axis from ``low`` to ``high``, both included."""
    steps = max(1, round(per_decade * math.log10(high / low)))
    return [low * (high / low) ** (i / steps) for i in range(steps + 1)]


# --- the intensity explorer ------------------------------------------------------------------

#: The explorer's slider range in FLOP/byte: from below vector add (1/12) to beyond every
#: datasheet ridge in the course (fp8 tensor on the H100 sits at 591).
EXPLORER_MIN_INTENSITY = 2.0 ** -6
EXPLORER_MAX_INTENSITY = 2.0 ** 12
#: The explorer's fixed x axis (FLOP/byte), so that the axes stay put while the point moves.
EXPLORER_X_RANGE = (1e-2, 1e4)


@dataclass(frozen=True)
class ExplorerState:
    """One position of the intensity explorer."""

    machine: str
    precision: str  # the compute ceiling's name
    memory: str  # the memory ceiling's name
    intensity: float  # FLOP/byte
    peak_gflops: float
    peak_gbps: float
    ridge: float  # FLOP/byte
    attainable_gflops: float
    side: str  # "memory", "ridge" or "compute"
    # what the verdict line calls the memory roof: its label's first part ("HBM3e"), not the
    # ceiling's internal name ("dram"), which a student never reads in the lessons
    memory_label: str = ""

    @property
    def bound(self) -> str:
        return BOUND_WORDS[self.side]

    @property
    def fraction_of_peak(self) -> float:
        return self.attainable_gflops / self.peak_gflops

    def verdict_text(self) -> str:
        """One or two sentences: the side of the ridge and where the attainable rate comes from."""
        head = (f"{self.bound}: I = {intensity_text(self.intensity)} FLOP/byte, ridge = {self.ridge:.3g} "
                f"FLOP/byte ({self.precision} against {self.memory_label or self.memory} on {self.machine}).")
        rate = gflops_text(self.attainable_gflops)
        if self.side == "memory":
            return (f"{head} Attainable rate = I x B = {rate}, {100 * self.fraction_of_peak:.3g}% "
                    f"of the {self.precision} peak; doubling I doubles it.")
        if self.side == "compute":
            return (f"{head} Attainable rate = P = {rate}; more reuse no longer helps, a faster "
                    "instruction mix does.")
        return (f"{head} Attainable rate = {rate}: the two roofs are within "
                f"{100 * RIDGE_TOLERANCE:.0f}% of each other here, so how well loads and math overlap "
                "decides how near the roof it gets.")


def explorer_state(machine, precision: str = "fp32", intensity: float = 1.0,
                   memory: str = "dram") -> ExplorerState:
    """Where a kernel of ``intensity`` FLOP/byte sits on ``machine``'s ``precision`` roofline."""
    machine = as_machine(machine)
    intensity = positive(intensity, "intensity")
    try:
        roofline = machine.roofline(precision, memory)
    except KeyError as exc:
        raise ValueError(f"precision: {exc.args[0]}") from None
    return ExplorerState(
        machine=machine.name, precision=roofline.compute_name, memory=roofline.memory_name,
        intensity=intensity, peak_gflops=roofline.peak_gflops, peak_gbps=roofline.peak_gbps,
        ridge=roofline.ridge, attainable_gflops=roofline.attainable_gflops(intensity),
        side=roofline.side(intensity),
        memory_label=machine.ceiling(roofline.memory_name).label.split(",")[0].strip(),
    )


# --- the two time bounds (F, M, P, B) --------------------------------------------------------

@dataclass(frozen=True)
class TimeBoundsState:
    n_flops: float
    n_bytes: float
    peak_gflops: float
    peak_gbps: float
    compute_s: float  # F / P
    memory_s: float  # M / B
    overlapped_s: float  # max(F/P, M/B)
    serial_s: float  # F/P + M/B

    @property
    def intensity(self) -> float:
        return self.n_flops / self.n_bytes

    @property
    def ridge(self) -> float:
        return self.peak_gflops / self.peak_gbps

    @property
    def limiter(self) -> str:
        return "compute" if self.compute_s >= self.memory_s else "memory"

    @property
    def overlapped_gflops(self) -> float:
        """F over the overlapped time: equals min(P, I x B)."""
        return self.n_flops / self.overlapped_s / 1e9

    def bars(self) -> list:
        """(label, seconds) for the four bars, in drawing order."""
        return [("F / P  (arithmetic)", self.compute_s), ("M / B  (memory)", self.memory_s),
                ("max: full overlap (roofline)", self.overlapped_s),
                ("sum: no overlap (serial)", self.serial_s)]

    def text(self) -> str:
        return (f"F/P = {seconds_text(self.compute_s)}, M/B = {seconds_text(self.memory_s)}: "
                f"{self.limiter} time is the larger. Overlapped bound max = "
                f"{seconds_text(self.overlapped_s)}, i.e. {gflops_text(self.overlapped_gflops)} = "
                f"min(P, I x B) with I = {self.intensity:.3g} and ridge {self.ridge:.3g} FLOP/byte. "
                f"Serial bound sum = {seconds_text(self.serial_s)}, "
                f"{self.serial_s / self.overlapped_s:.3g}x the overlapped one.")


def time_bounds_state(n_flops, n_bytes, peak_gflops, peak_gbps) -> TimeBoundsState:
    """Both time bounds for F FLOPs and M bytes on a machine of P GFLOP/s and B GB/s."""
    f = positive(n_flops, "n_flops", "FLOPs")
    m = positive(n_bytes, "n_bytes", "bytes")
    p = positive(peak_gflops, "peak_gflops", "GFLOP/s")
    b = positive(peak_gbps, "peak_gbps", "GB/s")
    t = time_bounds(f, m, p, b)
    return TimeBoundsState(f, m, p, b, t.compute_s, t.memory_s, t.overlapped_s, t.serial_s)


# --- GEMM size and precision -----------------------------------------------------------------

GEMM_SIZES = sorted({int(2 ** e) for e in range(4, 15)} | {int(1.5 * 2 ** e) for e in range(4, 14)})


@dataclass(frozen=True)
class GemmState:
    machine: str
    dtype: str
    ceiling: str  # the compute ceiling this dtype's GEMM is scored against
    n: int
    intensity: float
    ridge: float
    attainable_gflops: float
    side: str
    smallest_n: int  # smallest square N whose perfect-reuse GEMM reaches the ridge

    def text(self) -> str:
        return (f"N = {self.n}, {self.dtype}: I = 2N/(3s) = {self.intensity:.4g} FLOP/byte against "
                f"the {self.ceiling} ridge of {self.ridge:.4g} on {self.machine}: "
                f"{BOUND_WORDS[self.side]}, attainable {gflops_text(self.attainable_gflops)}. "
                f"The smallest N that reaches the ridge is {self.smallest_n}.")


def gemm_dtypes(machine) -> list:
    """The GEMM dtypes ``machine`` has a compute ceiling for."""
    machine = as_machine(machine)
    return [d for d, ceiling in operators.GEMM_CEILING.items() if machine.has(ceiling)]


def gemm_state(machine, dtype: str = "fp32", n: int = 1024, memory: str = "dram") -> GemmState:
    machine = as_machine(machine)
    n = whole(n, "n")
    ceiling = operators.GEMM_CEILING.get(dtype)
    if ceiling is None:
        raise ValueError(f"dtype: unknown {dtype!r}; known: {', '.join(operators.GEMM_CEILING)}")
    if not machine.has(ceiling):
        raise ValueError(f"dtype: {machine.name} has no {ceiling} ceiling for {dtype} GEMMs")
    roofline = machine.roofline(ceiling, memory)
    intensity = operators.gemm(n, dtype).intensity
    return GemmState(machine.name, dtype, ceiling, n, intensity, roofline.ridge,
                     roofline.attainable_gflops(intensity), roofline.side(intensity),
                     operators.smallest_compute_bound_gemm_n(roofline.ridge, dtype))


def gemm_curve(dtype: str, sizes=None) -> tuple:
    """(N values, intensities) of the perfect-reuse GEMM, for the widget's line."""
    sizes = list(GEMM_SIZES if sizes is None else sizes)
    return sizes, [operators.gemm(n, dtype).intensity for n in sizes]


# --- attention: fused against unfused --------------------------------------------------------

ATTENTION_LENGTHS = [2 ** e for e in range(4, 18)]  # 16 .. 131072 tokens
ATTENTION_HEAD_DIMS = (64, 128, 256)


@dataclass(frozen=True)
class AttentionState:
    machine: str
    dtype: str
    ceiling: str
    s: int
    d: int
    ridge: float
    fused_intensity: float
    unfused_intensity: float
    fused_side: str
    unfused_side: str
    fused_crossover_s: int  # smallest s at which fused attention reaches the ridge
    unfused_limit: float  # unfused intensity as s grows without bound
    unfused_crossover_s: object  # int, or None when unfused never reaches the ridge

    def text(self) -> str:
        if self.unfused_crossover_s is None:
            unfused_end = (f"unfused tends to {self.unfused_limit:.4g} FLOP/byte and never "
                           f"reaches the ridge")
        else:
            unfused_end = (f"unfused tends to {self.unfused_limit:.4g} FLOP/byte and crosses the "
                           f"ridge at s = {self.unfused_crossover_s}")
        return (f"s = {self.s}, d = {self.d}, {self.dtype} on {self.machine} (ridge "
                f"{self.ridge:.4g} FLOP/byte): unfused I = {self.unfused_intensity:.4g} "
                f"({BOUND_WORDS[self.unfused_side]}), fused I = {self.fused_intensity:.4g} "
                f"({BOUND_WORDS[self.fused_side]}). Fused crosses the ridge at "
                f"s = {self.fused_crossover_s}; {unfused_end}.")


def attention_state(machine, s: int = 1024, d: int = 128, dtype: str = "bf16",
                    memory: str = "dram") -> AttentionState:
    machine = as_machine(machine)
    s, d = whole(s, "s"), whole(d, "d")
    ceiling = operators.GEMM_CEILING.get(dtype)
    if ceiling is None or not machine.has(ceiling):
        raise ValueError(f"dtype: {machine.name} has no matrix ceiling for {dtype!r}")
    roofline = machine.roofline(ceiling, memory)
    fused = operators.attention(s, d, fused=True, dtype=dtype).intensity
    unfused = operators.attention(s, d, fused=False, dtype=dtype).intensity
    cross = operators.attention_fusion_crossover(roofline.ridge, d, dtype)
    return AttentionState(machine.name, dtype, ceiling, s, d, roofline.ridge, fused, unfused,
                          roofline.side(fused), roofline.side(unfused), cross["fused_s"],
                          cross["unfused_limit"], cross["unfused_s"])


def attention_curves(d: int, dtype: str = "bf16", lengths=None) -> dict:
    """Intensity against s for both forms: {'s': [...], 'fused': [...], 'unfused': [...]}."""
    lengths = list(ATTENTION_LENGTHS if lengths is None else lengths)
    return {
        "s": lengths,
        "fused": [operators.attention(s, d, fused=True, dtype=dtype).intensity for s in lengths],
        "unfused": [operators.attention(s, d, fused=False, dtype=dtype).intensity for s in lengths],
    }


# --- the tile-size animation (notebook 02) ---------------------------------------------------

TILE_SIZES = [2 ** e for e in range(8)]  # 1, 2, 4, ..., 128
TILE_MACHINES = ("A100", "H100 SXM", "H200")
TILE_GEMM_N = 4096
TILE_TENSOR_CEILING = BF16_TENSOR  # the dashed roof: what tensor cores would demand


@dataclass(frozen=True)
class TileRow:
    machine: str
    tile: int
    intensity: float
    ridge: float
    attainable_gflops: float
    side: str
    smallest_tile: object  # exact smallest b reaching the fp32 ridge, or None
    smallest_tile_pow2: object
    tensor_ridge: object  # ridge of the dashed bf16 tensor roof (FLOP/byte), None if absent


@dataclass(frozen=True)
class TileState:
    tile: int
    n: int
    rows: tuple

    def text(self) -> str:
        parts = [f"b = {self.tile}: I = {self.rows[0].intensity:.3g} FLOP/byte (GEMM {self.n}^3, fp32)."]
        for row in self.rows:
            parts.append(f"{row.machine}: {gflops_text(row.attainable_gflops)}, "
                         f"{BOUND_WORDS[row.side]} (ridge {row.ridge:.3g}, roof reached from "
                         f"b = {row.smallest_tile_pow2}).")
        return " ".join(parts)


def tile_state(tile: int, n: int = TILE_GEMM_N, machines=TILE_MACHINES, compute: str = "fp32",
               memory: str = "dram") -> TileState:
    """One frame of the animation: the b x b tiled GEMM on each machine's fp32 roofline."""
    tile, n = whole(tile, "tile"), whole(n, "n")
    op = operators.gemm_tiled(n, tile, "fp32")
    rows = []
    for machine in machines:
        machine = as_machine(machine)
        roofline = machine.roofline(compute, memory)
        smallest = operators.smallest_tile(roofline.ridge, n, "fp32")
        tensor = machine.ridge(TILE_TENSOR_CEILING, memory) if machine.has(TILE_TENSOR_CEILING) else None
        rows.append(TileRow(machine.name, tile, op.intensity, roofline.ridge,
                            roofline.attainable_gflops(op.intensity), roofline.side(op.intensity),
                            smallest["exact"], smallest["power_of_two"], tensor))
    return TileState(tile, n, tuple(rows))


# --- a measured sweep, walked one K at a time ------------------------------------------------

@dataclass(frozen=True)
class SweepPointState:
    k: int
    intensity: float
    gflops: float
    gbps: float
    roof_gflops: float
    side: str
    fraction_of_roof: float
    verified: bool

    def text(self) -> str:
        check = "verified" if self.verified else "NOT verified: this rate is not a result"
        return (f"K = {self.k}: I = {self.intensity:.3g} FLOP/byte, measured "
                f"{gflops_text(self.gflops)} and {format_number(self.gbps)} GB/s; roof "
                f"{gflops_text(self.roof_gflops)}, {BOUND_WORDS[self.side]}, "
                # one decimal, as the sweep table prints it (99.9% must not read 100%)
                f"{100 * self.fraction_of_roof:.1f}% of roof ({check}).")


def sweep_point_state(rows, k: int, roofline: Roofline) -> SweepPointState:
    """The sweep row for ``k`` placed on ``roofline``.

    ``rows`` are the sweep result's rows: dicts with ``k``, ``intensity``, ``gbps``, ``gflops``
    and ``verified``.  K = 0 (no arithmetic) is placed by bandwidth alone.
    """
    for row in rows:
        if row["k"] == k:
            break
    else:
        raise ValueError(f"k: no sweep row for K = {k!r}; have {', '.join(str(r['k']) for r in rows)}")
    intensity = float(row["intensity"])
    roof = roofline.attainable_gflops(intensity)
    if intensity > 0:
        side = roofline.side(intensity)
        fraction = float(row["gflops"]) / roof
    else:
        side = "memory"
        fraction = float(row["gbps"]) / roofline.peak_gbps
    return SweepPointState(int(row["k"]), intensity, float(row["gflops"]), float(row["gbps"]),
                           roof, side, fraction, bool(row.get("verified", False)))


# --- pitfall 9: a step on three roofs ---------------------------------------------------------

LINK_SCENARIOS = ("stream the batch from the host", "all-reduce the gradients")
#: Model sizes (parameters) and tokens per step offered by the widget's sliders.
MODEL_SIZES = tuple(int(round(m * 10 ** e)) for e in range(6, 11) for m in (1, 2, 5)) + (10 ** 11,)
STEP_TOKENS = tuple(2 ** e for e in range(4, 21))
GPU_COUNTS = (2, 4, 8)


@dataclass(frozen=True)
class LinkStepState:
    scenario: str
    step: object  # interconnect.StepCost
    bounds: object  # interconnect.StepBounds
    device: str
    compute_name: str
    peak_gflops: float
    hbm_gbps: float
    link: object  # step_roofs.LinkRoof
    overlap: bool

    @property
    def device_s(self) -> float:
        """What the device's own roofline bounds the step by: max(F/P, M/B)."""
        return max(self.bounds.compute_s, self.bounds.hbm_s)

    @property
    def device_side(self) -> str:
        return "compute" if self.bounds.compute_s >= self.bounds.hbm_s else "memory"

    @property
    def step_s(self) -> float:
        """The step's bound: the three overlapped (the max), or in sequence (the sum) when the
        communication waits for the computation, as a step without overlap does."""
        return self.bounds.overlapped_s if self.overlap else self.device_s + self.bounds.link_s

    @property
    def communication_share(self) -> float:
        """The share of the step the GPU spends waiting on the link."""
        return max(0.0, self.step_s - self.device_s) / self.step_s

    @property
    def device_gflops(self) -> float:
        return self.step.n_flops / self.device_s / 1e9

    @property
    def step_gflops(self) -> float:
        return self.step.n_flops / self.step_s / 1e9

    @property
    def link_bound(self) -> bool:
        return self.bounds.link_s > self.device_s

    def triage_facts(self):
        """The triage's facts for this step, every one computed from the measured roofs: the
        step's rate over the device roof (what a timeline would show) and its waiting share."""
        return KernelFacts(fraction_of_roof=self.step_gflops / self.device_gflops, side=self.device_side,
                           communication_share=self.communication_share)

    def text(self) -> str:
        b = self.bounds
        device = (f"The device roofline sees {self.step.hbm_intensity:.4g} FLOP/byte on HBM: "
                  f"{self.device_side}-bound at {gflops_text(self.device_gflops)}, "
                  f"{self.device_gflops / self.peak_gflops:.0%} of the {self.compute_name} roof, "
                  "a bound that holds only if every kernel of the step runs at its roof. ")
        if self.bounds.compute_s < SHORT_STEP_S:
            device += (f"With {seconds_text(self.bounds.compute_s)} of arithmetic a step, shared among "
                       "the step's kernels, each lasts microseconds, likely too short to reach its roof "
                       "(pitfall 1): the real step is slower still. ")
        times = (f"Per step: compute {seconds_text(b.compute_s)}, HBM {seconds_text(b.hbm_s)}, "
                 f"{self.link.label} {seconds_text(b.link_s)} ({self.step.link_intensity:.4g} FLOP "
                 f"per byte sent, at {self.link.gbps:.4g} GB/s). ")
        way = "overlapped with the computation" if self.overlap else "after the computation"
        if self.link_bound or (not self.overlap and self.communication_share >= 0.05):
            verdict = (f"With the link {way}, the step runs at {gflops_text(self.step_gflops)}: the GPU waits "
                       f"{self.communication_share:.0%} of the time, which no kernel's roofline shows.")
        else:
            verdict = (f"With the link {way}, the step keeps {self.step_gflops / self.device_gflops:.0%} "
                       "of the device's rate: communication is not what limits it.")
        return device + times + verdict


#: A step whose arithmetic at the compute roof takes less than this is split among kernels of
#: a few microseconds each, no longer than a launch (pitfall 1 of notebook 06).
SHORT_STEP_S = 1e-3


def link_step_state(roofs, scenario: str = LINK_SCENARIOS[0], n_params=10 ** 7, tokens=4096,
                    bytes_per_token=768, n_gpus: int = 8, link: str = "pcie-measured",
                    overlap: bool = True) -> LinkStepState:
    """A training step placed on ``roofs`` (a :class:`rooflinelib.lessons.step_roofs.StepRoofs`):
    its batch streamed from the host, or its gradients all-reduced over ``link``."""
    if scenario not in LINK_SCENARIOS:
        raise ValueError(f"scenario: must be one of {', '.join(LINK_SCENARIOS)}, got {scenario!r}")
    if not isinstance(overlap, bool):
        raise ValueError(f"overlap: must be True or False, got {overlap!r}")
    p = whole(n_params, "n_params")
    t = whole(tokens, "tokens")
    roof = roofs.link(link)
    if scenario == LINK_SCENARIOS[0]:
        step = interconnect.streamed_training_step(p, t, whole(bytes_per_token, "bytes_per_token"))
    else:
        step = interconnect.data_parallel_step(p, t, whole(n_gpus, "n_gpus", minimum=2))
    bounds = step.place(roofs.peak_gflops, roofs.hbm_gbps, roof.gbps)
    return LinkStepState(scenario, step, bounds, roofs.device, roofs.compute_name, roofs.peak_gflops,
                         roofs.hbm_gbps, roof, overlap)


def link_step_curves(state: LinkStepState, low: float = 1e-1, high: float = 1e7) -> dict:
    """The three roofs against intensity, for the chart: ``{name: (x, y)}`` in FLOP/byte and
    GFLOP/s, with each roof drawn against the bytes it carries (HBM or link)."""
    xs = log_grid(low, high, per_decade=4)
    return {
        f"{state.compute_name} roof": (xs, [state.peak_gflops] * len(xs)),
        f"HBM roof ({state.hbm_gbps:,.0f} GB/s)": (xs, [min(state.peak_gflops, x * state.hbm_gbps) for x in xs]),
        f"link roof: {state.link.label} ({state.link.gbps:.4g} GB/s)": (xs, [min(state.peak_gflops, x * state.link.gbps) for x in xs]),
    }
