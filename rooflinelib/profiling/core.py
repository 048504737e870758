"""``profile``: time a student's kernel and place it on the student's own ceilings.

The five steps of placing a kernel, in one call:

1. the analytic counts, ``n_flops`` and ``n_bytes`` (numbers or formulas, never code);
2. the counted bytes of a Numba launch in the CUDA simulator, and with ``counters=True`` the
   bytes Nsight Compute measured at each level;
3. the roof, from the student's Lab 1 result (stored by ``roofline measure``), measured now if
   there is none, or a datasheet machine when asked;
4. the achieved rate: the median of timed repeats after a warm-up, device events for GPU work;
5. the verdict and the next step, from the course's triage.
"""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from types import SimpleNamespace

from rooflinelib.core.expr import ExpressionError, parse_non_negative, parse_positive
from rooflinelib.core.vocabulary import COMPUTE_DTYPES
from rooflinelib.core.model import ABOVE_ROOF_FRACTION, Ceiling, Machine, checked_positive
from rooflinelib.core.sanity import BANDS, number
from rooflinelib.profiling.profile_result import ProfileError, ProfileResult
from rooflinelib.profiling.function_timing import DEFAULT_TIMEOUT_S, TimingError, time_function

#: Counted and analytic bytes further apart than this are reported.
COUNT_TOLERANCE = 0.10
#: Measured DRAM bytes more than this factor from the analytic count: an access-pattern problem.
ACCESS_PATTERN_FACTOR = 2.0
MAX_NAME_CHARS = 80



def _precisions() -> dict:
    """A dtype chooses its vector row when it has one (fp32, fp64: the FMA a student's kernel
    issues), else its matrix row (tf32, bf16, fp16, fp8); a matrix row whose dtype has a vector
    row is chosen by its own name (``fp32-matrix``)."""
    words = {dtype: (name,) for name, dtype, group, _ in COMPUTE_DTYPES if group == "core"}
    for name, dtype, group, _ in COMPUTE_DTYPES:
        if group == "matrix":
            words[name if dtype in words else dtype] = (name,)
    return words


#: ``precision`` words and the compute ceilings they choose, best first (from the registry).
PRECISIONS = _precisions()
#: ``memory`` words and the DRAM ceiling each judges the share against: ``dram`` is the best of
#: Lab 1's access mixes, the others one mix each (``results.dram_mixes``).
MEMORY_ROOFS = {"dram": "dram", "dram-read": "dram-read", "dram-write": "dram-write", "dram-copy": "dram-copy",
                "read": "dram-read", "write": "dram-write", "copy": "dram-copy"}
#: The clock during the run and the clock the ceilings were measured at further apart than this
#: share: the roof the kernel is scored against has moved (pitfall 8).
CLOCK_WARNING_SHARE = 0.05


def _count(value, field: str, allow_zero: bool, unit: str) -> float:
    """A count of one call, inside its unit's band (``sanity.BANDS``); bytes are at least 1, so
    that no intensity or rate derived from them is infinite."""
    if value is None or value is Ellipsis:
        raise ProfileError(f"{field}: required (a number or a formula such as '8*2**26')")
    try:
        x = parse_non_negative(value, field) if allow_zero else parse_positive(value, field)
    except ExpressionError as exc:
        raise ProfileError(str(exc)) from None
    if x > BANDS[unit][1]:
        raise ProfileError(f"{field}: {x:.3g} is more than any kernel moves or computes (at most "
                           f"{BANDS[unit][1]:g} {unit}); check the units")
    if unit == "bytes" and x < 1:
        raise ProfileError(f"{field}: {x:.3g} is less than one byte; a call moves at least 1 byte")
    return number(x, field, error=ProfileError, unit=unit)


def memory_roof(memory) -> str:
    """The DRAM ceiling ``memory`` names (None: ``dram``, the best access mix), or a
    ProfileError naming ``memory``."""
    if memory is None:
        return "dram"
    if isinstance(memory, str) and memory.strip().lower() in MEMORY_ROOFS:
        return MEMORY_ROOFS[memory.strip().lower()]
    shown = repr(memory) if isinstance(memory, str) and len(memory) <= 40 else type(memory).__name__
    raise ProfileError(f"memory: must be one of {', '.join(MEMORY_ROOFS)}, got {shown}")


def _memory_ceilings(machine, memory: str):
    """``(memory, its GB/s, dram's GB/s)``: the roof the share is taken against and the best
    mix, which the above-roof check keeps using."""
    if not machine.has("dram"):
        raise ProfileError(f"ceilings: {machine.name} has no 'dram' ceiling to place against")
    best = machine.ceiling("dram").value
    if not machine.has(memory):
        there = [name for name in dict.fromkeys(MEMORY_ROOFS.values()) if machine.has(name)]
        raise ProfileError(f"memory: {machine.name} has no {memory!r} roof (it has: {', '.join(there)}); "
                           "Lab 1 measures the mixes, a datasheet has only dram")
    return memory, machine.ceiling(memory).value, best


def _name(name, fn) -> str:
    if name is None:
        name = getattr(fn, "__name__", None) or getattr(getattr(fn, "dispatcher", None), "__name__", None) or "kernel"
    if not isinstance(name, str) or not name.strip():
        raise ProfileError(f"name: must be a non-empty text, got {name!r}")
    clean = "".join(ch for ch in name.strip() if ch.isprintable())
    return clean[:MAX_NAME_CHARS]


# --- the ceilings ----------------------------------------------------------------------------

def _gpu_backend(library: str) -> str:
    return "cupy" if library == "cupy" else "numba"


def resolve_ceilings(ceilings, library: str, mixes: bool = False):
    """``(Machine, one-line source)`` for ``ceilings``: None (the stored Lab 1 result of the
    backend that matches ``library``, else a live Lab 1), a result file's path, a loaded result
    dict, a :class:`~rooflinelib.core.model.Machine`, or a datasheet machine's name.  ``mixes``: a
    Lab 1 result's machine also holds DRAM's access mixes (``results.to_machine``)."""
    from rooflinelib.core.model import Machine
    from rooflinelib.store.results import ResultError, load, to_machine, validate
    if isinstance(ceilings, Machine):
        return ceilings, f"{ceilings.name} (given)"
    if isinstance(ceilings, dict):
        try:
            return to_machine(validate(ceilings, "ceilings"), mixes=mixes), "the Lab 1 result given"
        except ResultError as exc:
            raise ProfileError(f"ceilings: {exc}") from None
    if isinstance(ceilings, Path) or (isinstance(ceilings, str) and (ceilings.endswith(".json") or "/" in ceilings)):
        try:
            result = load(ceilings)
        except (ResultError, OSError) as exc:
            raise ProfileError(f"ceilings: {' '.join(str(exc).split())[:300]}") from None
        if result.get("kind") != "ceilings":
            raise ProfileError(f"ceilings: {ceilings}: kind: is {result.get('kind')!r}, expected 'ceilings'")
        return to_machine(result, mixes=mixes), f"Lab 1 result {ceilings} ({result['device'].get('name', '?')}, {str(result.get('created', '?'))[:10]})"
    if isinstance(ceilings, str):
        from rooflinelib.core.machines import get_machine, machine_names
        try:
            return get_machine(ceilings), f"the {ceilings} datasheet (vendor peaks, not measured)"
        except (KeyError, ValueError):
            shown = ceilings if len(ceilings) <= 40 else ceilings[:40] + "..."
            raise ProfileError(f"ceilings: unknown machine {shown!r}; give a Lab 1 result file or one of: "
                               f"{', '.join(machine_names())}") from None
    if ceilings is not None:
        raise ProfileError(f"ceilings: expected a result file, a result, a Machine or a machine name, "
                           f"got {type(ceilings).__name__}")
    # The one chain (modes.student_ceilings): the stored Lab 1 result, else Lab 1 measured
    # once now and stored, so that every later call, notebook and exercise sees the same ridge.
    # Never a recorded GPU run in place of the student's own machine.
    from rooflinelib.modes import (LAB1_CPU_SIZE_MIB, describe_result, noise_words, shown_path,
                                   student_ceilings)
    backends = ("cpu",) if library == "cpu" else (_gpu_backend(library), "cupy" if library != "cupy" else "numba")
    options = {"size_mib": LAB1_CPU_SIZE_MIB} if library == "cpu" else {"links": False}
    loaded = student_ceilings(None, backend=backends, measure="if-missing", recorded=False, **options)
    machine = to_machine(loaded.result, mixes=True) if mixes and loaded.result else loaded.machine
    if loaded.origin == "file":
        return machine, (f"your stored Lab 1 result {shown_path(loaded.path)} ({describe_result(loaded.result)})"
                                + noise_words(loaded.result))
    if loaded.origin == "live":
        return machine, loaded.message
    raise ProfileError(f"ceilings: {' '.join(loaded.message.split())[:300]}; or pass ceilings= a result file "
                       "or a machine name") from None


def _compute_ceiling(machine, precision) -> str:
    names = {c.name for c in machine.compute_ceilings}
    if precision is None:
        precision = "fp32"
    if not isinstance(precision, str):
        raise ProfileError(f"precision: must be a text such as 'fp32' or 'bf16', got {type(precision).__name__}")
    wanted = PRECISIONS.get(precision, (precision,))
    for name in wanted:
        if name in names:
            return name
    raise ProfileError(f"precision: {machine.name} has no {precision!r} roof (it has: {', '.join(sorted(names))})")


def ceilings_clock(machine, compute: str):
    """The SM clock (MHz) that ``compute`` was measured at: the clock sampled while that
    ceiling ran when the result keeps one per ceiling (``sm_clock_mhz_during``), else the clock
    at the start of the run; None for a datasheet machine or a CPU, which record none."""
    provenance = getattr(machine, "provenance", None) or {}
    during = provenance.get("sm_clock_mhz_during")
    before = provenance.get("before")
    for value in ((during or {}).get(compute) if isinstance(during, dict) else None,
                  before.get("sm_clock_mhz") if isinstance(before, dict) else None):
        if not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) and value > 0:
            return float(value)
    return None


# --- counted and measured bytes --------------------------------------------------------------

def _counted(fn, args, n_bytes: float):
    """count_bytes of ``fn`` when it is one Numba kernel launch small enough to simulate."""
    from rooflinelib.profiling.counting import MAX_THREADS, CountError, count_bytes
    dispatcher = getattr(fn, "dispatcher", None)
    griddim, blockdim = getattr(fn, "griddim", None), getattr(fn, "blockdim", None)
    if dispatcher is None or griddim is None:
        return None, ("counted bytes: not counted (fn is not one Numba kernel launch, kernel[grid, block]); "
                      "call rooflinelib.profiling.count_bytes(kernel, grid, block, *args) at a small size")
    threads = math.prod(griddim) * math.prod(blockdim)
    if threads > MAX_THREADS:
        return None, (f"counted bytes: not counted here ({threads:,} threads is too many to simulate); "
                      "call rooflinelib.profiling.count_bytes(kernel, grid, block, *args) at a small size")
    try:
        counted = count_bytes(dispatcher, tuple(griddim), tuple(blockdim), *args)
    except CountError as exc:
        return None, f"counted bytes: {exc}"
    distinct = counted["unique_read"] + counted["unique_written"]
    note = None
    if abs(distinct - n_bytes) > COUNT_TOLERANCE * n_bytes:
        note = (f"counted bytes: the simulator counted {distinct:,} distinct bytes "
                f"({counted['read'] + counted['written']:,} accesses' worth), {distinct / n_bytes:.2f}x the "
                f"analytic n_bytes: more than {COUNT_TOLERANCE:.0%} apart; check the count")
    return counted, note


def _placement(measured: dict, machine, compute: str):
    """The level-by-level placement from ncu's bytes, against the machine's L1/shared, L2 and
    DRAM ceilings (those it has)."""
    from rooflinelib.hierarchy.level_placement import (HierarchicalKernel, HierarchyError,
                                                       place_levels)
    if machine.has("shared") and not machine.has("l1"):
        # l1tex__t_bytes counts global and local traffic through the L1, not shared memory; the
        # L1 and shared memory are one SRAM per SM, so its roof is the shared-memory rate, but
        # the level is the L1 and the verdict must say so (not "bound by shared memory").
        shared = machine.ceiling("shared")
        machine = machine.with_ceilings(Ceiling(
            "l1", "memory", shared.value, source=f"the L1's SRAM, measured as shared memory: {shared.source}",
            label="L1 (global/local loads; its SRAM's shared-memory rate)"))
    level_map = {"dram": ("dram", measured["dram_read_bytes"] + measured["dram_write_bytes"]),
                 "l2": ("l2", measured["lts_bytes"]), "l1": ("l1", measured["l1_bytes"])}
    levels = {ceiling: n for ceiling, n in level_map.values() if n > 0 and machine.has(ceiling)}
    if not levels:
        return None
    try:
        kernel = HierarchicalKernel(measured["name"], measured["n_flops"], levels, measured["achieved_gflops"])
        placement = place_levels(kernel, machine, compute)
    except HierarchyError as exc:
        return {"verdict": f"not placed: {exc}"}
    return {"binding": placement.binding, "roof_gflops": placement.roof_gflops,
            "fraction_of_roof": placement.fraction_of_roof,
            "levels": {p.level: {"bytes": p.n_bytes, "intensity": p.intensity, "ceiling_gbps": p.ceiling_gbps,
                                 "roof_gflops": p.roof_gflops} for p in placement.points},
            "verdict": placement.verdict()}


# --- the call --------------------------------------------------------------------------------

def profile(fn, *args, n_flops=None, n_bytes=None, name=None, ceilings=None, precision=None,
            repeats=None, counters=False, timeout=DEFAULT_TIMEOUT_S, memory=None, **kwargs) -> ProfileResult:
    """Time ``fn(*args, **kwargs)`` and place it on the roofline of ``ceilings``.

    ``n_flops`` and ``n_bytes`` are the analytic counts of one call (numbers, or formulas such
    as ``"2*4096**3"``); ``n_flops`` may be 0 for pure data movement, which is then scored
    against the bandwidth roof.  ``ceilings``: see :func:`resolve_ceilings`.  ``precision``
    picks the compute roof (``fp32`` by default; ``bf16``, ``fp16``, ``tf32``, ``fp64``, ... or
    a ceiling's name).  ``repeats``: timed calls (default: about 0.3 s of them, 10 to 1000).
    ``counters=True`` also runs ``fn`` under Nsight Compute; ``fn`` must then be a function of
    a module file that defines ``setup()``, returning the arguments (see
    :mod:`rooflinelib.profiling.counters`).  ``timeout``: seconds that the first call, the
    warm-up and the repeats may take together (default 300); a function still running then is
    a :class:`ProfileError` naming it and the limit.  ``memory`` picks the memory roof the share
    is taken against: None or ``dram`` (the best of Lab 1's access mixes), or one mix,
    ``dram-read``, ``dram-write``, ``dram-copy`` (``read``, ``write``, ``copy``), to judge a
    kernel against its own mix; the above-roof (recount) check still uses ``dram``.
    """
    if not callable(fn):
        raise ProfileError(f"fn: must be callable (a function, a kernel launch, a lambda), got {type(fn).__name__}")
    flops = _count(n_flops, "n_flops", allow_zero=True, unit="FLOPs")
    n_bytes_ = _count(n_bytes, "n_bytes", allow_zero=False, unit="bytes")
    wanted_memory = memory_roof(memory)
    label = _name(name, fn)
    if repeats is not None and (isinstance(repeats, bool) or not isinstance(repeats, int) or not 1 <= repeats <= 100_000):
        raise ProfileError(f"repeats: must be a whole number from 1 to 100000, got {repeats!r}")
    if not isinstance(counters, bool):
        raise ProfileError(f"counters: must be True or False, got {counters!r}")
    timeout = number(timeout, "timeout", error=ProfileError, positive=True, unit="s")

    from rooflinelib.measure import provenance
    before = provenance.gpu_snapshot() if _maybe_gpu(fn, args, kwargs) else {}
    started = provenance.now_iso()
    try:
        timed = time_function(fn, args, kwargs, repeats, timeout_s=timeout, what=f"fn: {label}")
    except TimingError as exc:
        raise ProfileError(str(exc)) from None
    gpu = timed.library != "cpu"
    after = provenance.gpu_snapshot() if gpu else {}
    device_facts = ({"name": after.get("name", "GPU"), "kind": "gpu"} if gpu
                    else provenance.cpu_provenance(threads=0))
    device = provenance.finish(device_facts, before if gpu else {}, after, timed.library, started)

    machine, source = resolve_ceilings(ceilings, timed.library, mixes=wanted_memory != "dram")
    compute = _compute_ceiling(machine, precision)
    memory, bandwidth, best_gbps = _memory_ceilings(machine, wanted_memory)
    peak = machine.ceiling(compute).value
    notes = []
    if memory != "dram":
        notes.append(f"memory roof: {memory} ({bandwidth:,.0f} GB/s), as asked; the above-roof check uses "
                     f"dram, the best access mix ({best_gbps:,.0f} GB/s)")

    counted, note = _counted(fn, args, n_bytes_) if timed.library == "numba" and not kwargs else (None, None)
    if note:
        notes.append(note)
    measured = hierarchical = None
    placed_on = _dram_at(machine, memory, bandwidth)
    if counters:
        from rooflinelib.profiling.counters import collect
        measured = collect(fn, label)
        measured_dram = measured["dram_read_bytes"] + measured["dram_write_bytes"]
        ratio = measured_dram / n_bytes_
        measured["dram_over_analytic"] = ratio
        if ratio > ACCESS_PATTERN_FACTOR or ratio < 1 / ACCESS_PATTERN_FACTOR:
            notes.append(f"access pattern: ncu measured {measured_dram:,.0f} DRAM bytes, {ratio:.2f}x the "
                         f"analytic n_bytes (more than {ACCESS_PATTERN_FACTOR:g}x apart): the kernel does not "
                         "move the bytes the model counts; look at coalescing, strides and reuse first")
        measured["n_flops"] = flops if flops > 0 else 0.0
        measured["achieved_gflops"] = flops / timed.median_s / 1e9 if flops > 0 else None
        if flops > 0:
            hierarchical = _placement(measured, placed_on, compute)

    return _verdict(label, flops, n_bytes_, timed, machine, source, compute, memory, peak, bandwidth,
                    device, counted, measured, hierarchical, notes, best_gbps)


def _dram_at(machine, memory: str, bandwidth: float):
    """``machine`` whose ``dram`` level is the ``memory`` roof the kernel is scored against, so
    the level-by-level placement takes its DRAM bytes at the same access mix as its share."""
    if memory == "dram":
        return machine
    best = machine.ceiling("dram").value
    return machine.with_ceilings(Ceiling(
        "dram", "memory", bandwidth, f"Lab 1's {memory} mix (dram, the fastest mix, is {best:,.0f} GB/s)",
        f"main memory (DRAM/HBM), {memory}"))


#: The notes :func:`_verdict` writes itself (a re-placement writes them afresh).
_VERDICT_NOTES = ("n_flops = 0:", "above the ", "memory roof: ")


def on_memory_roof(result: ProfileResult, memory: str, gbps) -> ProfileResult:
    """``result`` placed again on another DRAM roof: ``memory`` ('dram-read', 'dram-write' or
    'dram-copy') at ``gbps`` GB/s.  A stored profile placed on ``dram``, the fastest access mix,
    is judged on the mix the kernel makes (a softmax reads and writes, as a copy does), as
    ``profile(memory=...)`` does when it runs.  The share, the side, the advice and the DRAM
    level of the level-by-level placement follow; the fastest mix stays the above-roof check's,
    and the timing, counts, device and warnings are the result's own."""
    memory = memory_roof(memory)
    try:
        gbps = checked_positive("gbps", gbps)
    except ValueError as exc:
        raise ProfileError(str(exc)) from None
    if result.memory != "dram":
        raise ProfileError(f"result: {result.name} is placed on {result.memory}, not dram, the fastest mix: "
                           "its fastest mix is not known, so it cannot be placed again")
    if memory == "dram":
        return result
    ceilings = [Ceiling(result.compute, "compute", result.peak_gflops), Ceiling("dram", "memory", result.peak_gbps),
                Ceiling(memory, "memory", gbps)]
    levels = (result.hierarchical or {}).get("levels") or {}
    ceilings += [Ceiling(level, "memory", p["ceiling_gbps"]) for level, p in levels.items() if level != "dram"]
    machine = Machine(result.machine, tuple(ceilings))
    timed = SimpleNamespace(median_s=result.seconds, spread=result.spread, first_call_s=result.first_call_s,
                            repeats=result.repeats, library=result.library, clock=result.clock,
                            seconds=result.samples_s)
    notes = [n for n in result.notes if not n.startswith(_VERDICT_NOTES)]
    notes.append(f"memory roof: {memory} ({gbps:,.0f} GB/s), the kernel's access mix; placed on dram, the "
                 f"fastest mix ({result.peak_gbps:,.0f} GB/s), when it was profiled, which the above-roof check keeps")
    hierarchical = result.hierarchical
    if levels and result.measured and result.n_flops > 0:
        hierarchical = _placement(result.measured, _dram_at(machine, memory, gbps), result.compute)
    placed = _verdict(result.name, result.n_flops, result.n_bytes, timed, machine, result.ceilings_source,
                      result.compute, memory, result.peak_gflops, gbps, result.device, result.counted,
                      result.measured, hierarchical, notes, result.peak_gbps)
    return dataclasses.replace(placed, warnings=result.warnings, ceilings_sm_clock_mhz=result.ceilings_sm_clock_mhz)


def _maybe_gpu(fn, args, kwargs) -> bool:
    from rooflinelib.profiling.function_timing import detect_library
    return detect_library(fn, args, kwargs) != "cpu"


def _run_clock(device: dict):
    """The SM clock (MHz) read around the timed run, where it was read: after, else before."""
    for state in (device.get("after"), device.get("before")):
        value = state.get("sm_clock_mhz") if isinstance(state, dict) else None
        if not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) and value > 0:
            return float(value)
    return None


def result_warnings(library: str, machine, device: dict, compute: str) -> list:
    """What makes a placement on ``machine`` untrustworthy, in words: code timed on a CPU scored
    against a GPU's ceilings or the reverse, ceilings measured on another device, a clock
    during the run more than :data:`CLOCK_WARNING_SHARE` from the ceilings' clock."""
    found = []
    ran_on = "cpu" if library == "cpu" else "gpu"
    if ran_on != machine.target:
        found.append(f"a function timed on the {ran_on.upper()} is scored against {machine.name}, a "
                     f"{machine.target.upper()}'s ceilings: its share of that roof says nothing about the "
                     f"{ran_on.upper()} it ran on; place it on a Lab 1 result of that {ran_on.upper()} "
                     "(the default, ceilings=None)")
    measured_on = (machine.provenance or {}).get("name") if machine.kind == "measured" else None
    here = device.get("name")
    if measured_on and here and here not in ("GPU", "CPU") and measured_on != here and ran_on == machine.target:
        found.append(f"the ceilings were measured on {measured_on}, and this run was on {here}: "
                     "run `roofline measure` on this machine")
    theirs, ours = ceilings_clock(machine, compute), _run_clock(device)
    if theirs and ours and abs(ours / theirs - 1) > CLOCK_WARNING_SHARE:
        found.append(f"the SM clock was {ours:,.0f} MHz during the run and {theirs:,.0f} MHz when the "
                     f"{compute} ceiling was measured ({ours / theirs - 1:+.0%}, more than "
                     f"{CLOCK_WARNING_SHARE:.0%}): the roof has moved with the clock (pitfall 8)")
    return found


def _checked_fraction(fraction: float, best_fraction: float, memory: str, notes: list) -> float:
    """The share the triage reads.  Above-roof means a counting error only against ``dram``, the
    best mix, which no kernel exceeds: a kernel above its own mix's roof but within the best is
    at its roof, not told to recount."""
    from rooflinelib.profiling.profile_result import percent
    if best_fraction > ABOVE_ROOF_FRACTION:
        return best_fraction
    if fraction > ABOVE_ROOF_FRACTION:
        notes.append(f"above the {memory} roof ({percent(fraction)}) but {percent(best_fraction)} of dram, the "
                     "best access mix: the counts are not in question; this kernel beats Lab 1's "
                     f"{memory} measurement, so judge it against dram")
        return min(fraction, ABOVE_ROOF_FRACTION)
    return fraction


def _verdict(label, flops, n_bytes, timed, machine, source, compute, memory, peak, bandwidth, device,
             counted, measured, hierarchical, notes, best_gbps=None) -> ProfileResult:
    from rooflinelib.core.model import Roofline
    from rooflinelib.lessons.triage import KernelFacts, triage
    seconds = timed.median_s
    # The advice fits where the code ran (CPU code gets a CPU's levers, as roofline plot gives
    # a CPU result), whatever ceilings it is scored against; a mismatch is a warning.
    target = "cpu" if timed.library == "cpu" else "gpu"
    facts = {"duration_us": seconds * 1e6}
    if measured is not None:
        facts["bytes_ratio"] = measured["dram_over_analytic"]
    if flops > 0:
        roofline = Roofline(peak, bandwidth, target=target)
        verdict = roofline.classify(flops / n_bytes, flops / seconds / 1e9)
        side = "compute" if verdict.side == "compute" else "memory"
        roof, fraction = verdict.roof_gflops, verdict.fraction_of_roof
        best = Roofline(peak, best_gbps or bandwidth, target=target).classify(flops / n_bytes, flops / seconds / 1e9)
        checked = _checked_fraction(fraction, best.fraction_of_roof, memory, notes)
        diagnosis = triage(KernelFacts(fraction_of_roof=checked, side=verdict.side, **facts), target)
    else:  # pure data movement: scored against the bandwidth roof
        side, roof = "memory", 0.0
        fraction = n_bytes / seconds / 1e9 / bandwidth
        checked = _checked_fraction(fraction, n_bytes / seconds / 1e9 / (best_gbps or bandwidth), memory, notes)
        diagnosis = triage(KernelFacts(fraction_of_roof=checked, side="memory", **facts), target)
        notes.append("n_flops = 0: a pure data-movement kernel, scored against the bandwidth roof")
    advice = f"{diagnosis.likely.title}. Next: {diagnosis.likely.next_step}"
    return ProfileResult(
        name=label, n_flops=flops, n_bytes=n_bytes, seconds=seconds, spread=timed.spread,
        first_call_s=timed.first_call_s, repeats=timed.repeats, library=timed.library, clock=timed.clock,
        machine=machine.name, ceilings_source=source, compute=compute, memory=memory, peak_gflops=peak,
        peak_gbps=bandwidth, roof_gflops=roof, side=side, fraction_of_roof=fraction, advice=advice,
        device=device, counted=counted, measured=measured, hierarchical=hierarchical, notes=tuple(notes),
        samples_s=tuple(timed.seconds), ceilings_sm_clock_mhz=ceilings_clock(machine, compute),
        warnings=tuple(result_warnings(timed.library, machine, device, compute)))
