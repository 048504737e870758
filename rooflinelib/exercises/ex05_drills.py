"""Exercise 5: the conceptual drills.

Numbers and choices are checked; prose answers are compared with a model answer that is shown
only after the student has written an attempt of their own (:func:`model_answer`).
"""
from __future__ import annotations

import re

from rooflinelib.core import operators as ops
from rooflinelib.exercises.grading import (BOTH_HINT, SIDES, AnswerError, Choices, check_choice, check_number,
                                           check_side, report, reveal, without_bare_both)
from rooflinelib.core.machines import H200
from rooflinelib.core.model import attainable_gflops, classify, ridge, time_bounds
from rooflinelib.core.vocabulary import BF16_TENSOR, TF32_TENSOR
from rooflinelib.exercises.ex02_classify import FIRST_STEPS, LIMITERS, SMALLER_TYPE_RULE
from rooflinelib.exercises.ex03_attention import (GROWTH, GROWTH_QUADRATIC_HINT,
                                                 GROWTH_UNBOUNDED_HINT)

# Given data of the drills (the problem statements' numbers).
D2_PEAK_GFLOPS, D2_GBPS, D2_INTENSITY = 900_000.0, 3_000.0, 40.0
D3_ACHIEVED_GFLOPS, D3_FLOPS, D3_BYTES = 12_000.0, 4.0e11, 2.0e10
D3_PEAK_GFLOPS, D3_GBPS = 60_000.0, 3_000.0
D4_KERNELS = 5  # elementwise fp32 kernels, one FLOP per element each, one array in, one out
# Drill 4's kernels are fp32 vector code, so their ridge is the fp32 vector roof's: drill 3's GPU
# (60 TFLOP/s fp32, 3 TB/s), never drill 2's bf16 matrix roof (that would be pitfall 4).
D4_PEAK_GFLOPS, D4_GBPS = D3_PEAK_GFLOPS, D3_GBPS
D6_PEAK_GROWTH, D6_BANDWIDTH_GROWTH = 20.0, 3.0
#: Drill 6 gives both growths as "about": 7 (20/3 rounded) or 6.5 must pass, so the factor is
#: checked within 6% instead of the usual 2%.
D6_RTOL = 0.06
D7_HEAD_DIM = 128

#: The two ways to combine the per-resource times.  Only the max is a bound (a lower one, a
#: floor).  The sum is the model's time with no overlap, both units at their peaks; a real kernel
#: can take longer still (stalls, latency), so the sum is no bound.
BOUNDS = Choices({
    "max": ("time >= max(F/P, M/B): the lower bound, reached when arithmetic and traffic overlap "
            "completely",
            ("maximum", "max(f/p, m/b)", "overlap", "perfect overlap", "the max",
             "maximum of the two", "max of the two", "taking the max", "taking the maximum",
             "taking the larger of the two times", "larger of the two times", "larger of the two",
             "longer of the two times", "longer of the two", "taking the longer of the two",
             "the larger time", "the longer time", "the larger", "the longer",
             # the counterparts of the sum's "sum of the two times"
             "max of the two times", "maximum of the two times", "the max of the two times",
             "the larger one", "the longer one", "the largest", "the longest",
             # the same said as a phrase
             "assuming perfect overlap", "assume perfect overlap", "assuming overlap",
             # the library's own name for the max is the overlapped time
             "overlapped", "the overlapped time", "overlapped time",
             # the max written out in words (it was refused as unreadable)
             "max of f/p and m/b", "maximum of f/p and m/b", "max of m/b and f/p",
             "max(m/b, f/p)",
             # more ways to name the larger time
             "the bigger one", "the bigger", "the greater", "the greater one", "greater of the two",
             "max time", "the max time", "maximum time", "the maximum time")),
    "sum": ("F/P + M/B: the model's time with no overlap, both units at their peaks (no bound: "
            "a kernel that stalls takes longer)",
            # The mirror of max's spellings, the page's own gloss ("adding them") included, so
            # a sum answer hears the sum's hint, not "unreadable".
            ("f/p + m/b", "addition", "plus", "serial", "no overlap", "the sum", "add", "adding",
             "add them", "adding them", "sum them", "summing", "summing them", "sum of the two",
             "sum of both", "the sum of both", "sum of the two times", "adding the two times",
             "add the two times", "adding the two", "add the two", "sum the two times",
             "summing the two times", "sum of the times", "adding the times",
             # more ways to say the sum
             "assuming no overlap", "assume no overlap", "no overlap assumed",
             "sum of f/p and m/b", "f/p plus m/b")),
})


class _NoGuessChoices(Choices):
    """A menu whose unreadable answers are never told "did you mean ...?": with two or three
    options the nearest spelling can be the key's ("sum of the two" was told "did you mean
    'max'?").  The message still lists the options."""

    def _read(self, answer):
        try:
            return super()._read(answer)
        except AnswerError as err:
            # Two phrases of one option, joined by a comma ("the ridge moves right, to higher
            # intensity"; "max, assuming perfect overlap") read as that option; phrases naming
            # two options stay unreadable.
            phrases = [p for p in answer.split(",") if p.strip()] if isinstance(answer, str) else []
            if len(phrases) > 1:
                try:
                    named = {super(_NoGuessChoices, self)._read(p) for p in phrases}
                except AnswerError:
                    named = set()
                if len(named) == 1:
                    return named.pop()
            qualified = self._qualified(answer)
            if qualified is not None:
                return qualified
            raise AnswerError(re.sub(r" \(did you mean '[^']*'\?\)$", "", str(err))) from None

    def _qualified(self, answer):
        """An option with a note after it, "<option>
        (<note>)", "<option>: <note>" or "<option>; <note>" ("max (perfect overlap)", "profile
        (ncu)", "memory-bound: 0.625 < 20"), read as the option, as a comma-joined note already
        is; None where the note names another option of this menu, by a spelling of it or by its
        name ("memory-bound (at the ridge)", "max: not the sum"), or the lead is no option."""
        if not isinstance(answer, str):
            return None
        m = re.fullmatch(r"\s*([^(:;]+?)\s*[(:;]\s*(.*?)\s*\)?\s*", answer, flags=re.DOTALL)
        if not m:
            return None
        try:
            option = super()._read(m.group(1))
        except AnswerError:
            return None
        note = m.group(2)
        for piece in [note] + re.split(r"[,;:()]", note):
            if piece.strip():
                try:
                    if super()._read(piece) != option:
                        return None
                except AnswerError:
                    pass
        try:
            if super()._read(note) == option:  # "memory (left of the ridge)": its own words
                return option
        except AnswerError:
            pass
        # another option's name in the note ("memory (near the ridge)") names it; only a hidden
        # option's name inside this option's own description stays ("unmodelled
        # (occupancy/latency)": the menu's unmodelled is "occupancy, latency, stalls")
        own = self.options[option][0].lower()
        for name in self.options:
            said = rf"(?<![\w-]){re.escape(name)}(?![\w-])"
            if name != option and re.search(said, note.lower()) and not (
                    name in self.hidden and re.search(said, own)):
                return None
        return option


#: "min" is read, for its hint, but not offered: a student thinking of min(P, I x B), a min of
#: rates, would otherwise hear only "not one of", which teaches nothing.
BOUNDS = _NoGuessChoices({**BOUNDS.options, "min": (
    "the smaller of the two times", ("minimum", "the min", "min(f/p, m/b)", "min(m/b, f/p)",
                                     "the smaller", "the shorter", "the smaller time",
                                     "the shorter time", "smaller of the two times"))},
    hidden=("min",))
_MIN_HINT = ("the min belongs to the rates, min(P, I x B); of two overlapped times, the run still "
             "takes the longer one, so the bound is the max, not the min")


#: Exercise 3's growth menu, with more spellings of "linear"; no bare "grows"
#: or "grows with s", which a quadratic answer fits as well.
# Drill 7 offers three growths: "unbounded" is read (it has a hint) but hidden, as in exercise 3.
_GROWTH = _NoGuessChoices({**GROWTH.options, "linear": (
    GROWTH.options["linear"][0],
    GROWTH.options["linear"][1] + ("linear growth", "grows linearly with s", "linearly with s",
                                   "linear with s", "linearly in s", "grows linearly in s",
                                   "grows proportionally to s", "linear in the sequence length",
                                   # more ways to say it
                                   "increases linearly", "like s", "proportionally", "s",
                                   "grows like s", "increases linearly with s",
                                   "linearly, without bound", "linearly without bound",
                                   "grows linearly, without bound"))},
    hidden=GROWTH.hidden)

RIDGE_MOVES = _NoGuessChoices({
    "right": ("the ridge moves to higher intensity", ("higher", "up", "increases", "rises",
                                                      "moves right", "to the right",
                                                      "moves to the right", "rightwards",
                                                      "higher intensity", "to higher intensity",
                                                      # more ways to say it
                                                      "grows", "rightward", "moves rightward",
                                                      "to higher arithmetic intensity",
                                                      "higher arithmetic intensity",
                                                      # whole sentences
                                                      "the ridge moves right", "ridge moves right",
                                                      "the ridge moves to the right",
                                                      "it moves right", "it moves to the right",
                                                      "up and to the right", "moves up",
                                                      "the ridge increases", "the ridge grows",
                                                      "the ridge moves to higher intensity",
                                                      # more ways to say it
                                                      "moves to higher intensity", "further right",
                                                      "moves further right", "farther right",
                                                      # the ridge is an intensity: larger is right
                                                      "larger", "gets larger", "up and right")),
    "left": ("the ridge moves to lower intensity", ("lower", "down", "decreases", "falls",
                                                    "moves left", "to the left",
                                                    "moves to the left", "leftwards",
                                                    "lower intensity", "to lower intensity",
                                                    "shrinks", "leftward", "moves leftward",
                                                    "to lower arithmetic intensity",
                                                    "lower arithmetic intensity",
                                                    "the ridge moves left", "ridge moves left",
                                                    "the ridge moves to the left",
                                                    "it moves left", "it moves to the left",
                                                    "down and to the left", "moves down",
                                                    "the ridge decreases", "the ridge shrinks",
                                                    "the ridge moves to lower intensity",
                                                    "smaller", "gets smaller", "down and left")),
    "stays": ("the ridge does not move", ("same", "unchanged", "does not move", "stays put",
                                          "stays the same", "stays", "does not change",
                                          "the ridge stays", "the ridge does not move",
                                          "the ridge stays put", "it does not move")),
})

def _with_descriptions(options: dict, extra: dict = None) -> dict:
    """``options`` with each option's own description, whole and up to its colon, read as that
    option ("memory-bound, left of the ridge" and the first-step table's own
    "look past the roofline first: occupancy, ..." were refused as unreadable); ``extra`` adds
    more spellings by name."""
    extra = extra or {}
    return {name: (desc, tuple(synonyms) + (desc, desc.split(":")[0]) + tuple(extra.get(name, ())))
            for name, (desc, synonyms) in options.items()}


#: The side menu with its descriptions ("at the ridge, both roofs are close"), as exercise 4's.
# "both" alone names no side: read only to be told so, as in exercise 4
_SIDES = _NoGuessChoices(without_bare_both(_with_descriptions(SIDES.options, {"ridge": ("both roofs bind",)})),
                         hidden=("both",))

#: Exercise 2's menus, with the spellings drill 3's answers use (the menu's
#: own "look past the roofline", the profiler's names, the model answer's launch-size check).
_FIRST_STEPS = _NoGuessChoices(_with_descriptions(FIRST_STEPS.options, {"profile": (
    "look past the roofline", "look past the roofline first", "nsight compute", "ncu", "nsight",
    "run the profiler", "check the launch size", "launch size", "check that the launch fills the gpu")}))
#: "ridge" as what bounds drill 3's kernel is read, for its hint, not offered: the kernel sits at
#: the ridge, and the ridge is where it sits, not what stops it.
_LIMITERS = _NoGuessChoices(_with_descriptions({**LIMITERS.options, "ridge": (
    "the ridge: where it sits, not what stops it",
    ("ridge", "ridge point", "at ridge", "on ridge", "both", "both roofs", "balanced"))}),
    hidden=LIMITERS.hidden + ("ridge",))
_RIDGE_AS_LIMIT_HINT = ("the ridge is where it sits, not a limit: at the ridge both roofs allow "
                        "the same rate, and it reaches only a small part of that. Is either roof "
                        "what stops it?")


def _about(answer):
    """A leading "about" (or "roughly", "~") dropped: the drills invite approximate values, on
    every numeric answer ("about 64" as well as "about 5")."""
    if isinstance(answer, str):
        answer = re.sub(r"^\s*(?:about|roughly|approximately|approx\.?|~)\s*", "", answer,
                        flags=re.IGNORECASE)
    return answer


def _percent_as_factor(answer):
    """A ratio written as a percentage ("500%" for 5x) read as the factor it names; grading
    reads a percentage as a fraction, which a ratio of times is not.  A leading "about" is
    dropped (:func:`_about`)."""
    answer = _about(answer)
    if isinstance(answer, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*%\s*", answer)
        if m:
            return float(m.group(1)) / 100
    return answer


def _tflops_slips(key):
    """The same rate in FLOP/s or GFLOP/s: right, but in another unit than the drill asks for."""
    hint = "the question asks for TFLOP/s"
    # a thousandth of the key is the rate in PFLOP/s (or GFLOP/s read as TFLOP/s twice)
    return [(key * 1e12, hint), (key * 1e3, hint),
            (key / 1e3, "off by a factor of 1,000: check the unit prefixes; the question asks for "
                        "TFLOP/s")]


def check_drill1(optimistic, worst_ratio):
    # At the ridge the two bounds are equal, where the serial bound is furthest from the max.
    peak, bandwidth = D2_PEAK_GFLOPS, D2_GBPS
    balanced = time_bounds(peak * 1e9, bandwidth * 1e9, peak, bandwidth)
    return report(
        "Drill 1",
        check_choice(optimistic, "max", "the optimistic step", BOUNDS,
                     # Review 27k2: the sum is no bound, only the no-overlap case
                     hints={"sum": "adding the two times is the no-overlap case, and a kernel that "
                                   "stalls takes longer still: which time is reached only if "
                                   "everything overlaps?",
                            "min": _MIN_HINT}),
        # A ratio of two times: the FMA/copy factor-of-2 hint would mislead here.
        check_number(_percent_as_factor(worst_ratio), balanced.serial_s / balanced.overlapped_s,
                     "largest ratio of the sum (no overlap) to the max", unit="x",
                     factor_hints=False,
                     mistakes=[(1.0, "1 would mean the sum never exceeds the max: where are the "
                                     "two terms equal, and what is their sum there?"),
                               # the max over the sum
                               (0.5, "divide the sum by the max, not the max by the sum")]),
    )


def check_drill2(ridge_point, side, attainable_tflops, fraction_of_peak):
    roof = attainable_gflops(D2_INTENSITY, D2_PEAK_GFLOPS, D2_GBPS)
    key_ridge = ridge(D2_PEAK_GFLOPS, D2_GBPS)
    units = "the ridge is P/B; check the units: TFLOP/s over TB/s"
    # Drill 2 gives P, B and I: nothing is counted, so no FMA/copy factor-of-2 hint on any of its
    # numbers (as for drills 1, 3 and 4).
    return report(
        "Drill 2",
        check_number(_about(ridge_point), key_ridge, "ridge", unit="FLOP/byte", factor_hints=False,
                     mistakes=[(key_ridge * 1000, units), (key_ridge / 1000, units),
                               (1 / key_ridge, "the ridge is P divided by B")]),
        check_side(side, D2_INTENSITY, key_ridge, "side of the ridge", choices=_SIDES,
                   hints={"both": BOTH_HINT}),
        check_number(_about(attainable_tflops), roof / 1000, "attainable rate", unit="TFLOP/s",
                     factor_hints=False,
                     # the hint names no side (it would give the answer of the side check above)
                     mistakes=[(D2_PEAK_GFLOPS / 1000, "that is the compute peak; the attainable "
                                                       "rate is the lower of P and I x B: compute "
                                                       "both"),
                               *_tflops_slips(roof / 1000)]),
        check_number(_about(fraction_of_peak), roof / D2_PEAK_GFLOPS, "fraction of peak compute",
                     unit="fraction", factor_hints=False,
                     # the fraction inverted
                     mistakes=[(D2_PEAK_GFLOPS / roof, "divide the attainable rate by the peak, "
                                                       "not the other way")]),
    )


def check_drill3(intensity, ridge_point, roof_tflops, fraction_of_roof, bound_by, first_check):
    key_intensity = D3_FLOPS / D3_BYTES
    verdict = classify(key_intensity, D3_PEAK_GFLOPS, D3_GBPS, D3_ACHIEVED_GFLOPS)
    limiter = "unmodelled" if verdict.status == "far-below" else verdict.side
    seconds = D3_FLOPS / (D3_ACHIEVED_GFLOPS * 1e9)
    return report(
        "Drill 3",
        # No FMA/copy factor-of-2 hint on any number: the drill gives the FLOPs, the bytes, P
        # and B, so nothing is counted.
        check_number(_about(intensity), key_intensity, "intensity", unit="FLOP/byte", factor_hints=False,
                     mistakes=[(1 / key_intensity, "the intensity is the FLOPs divided by the bytes")]),
        # a prefix slip (TFLOP/s over GB/s) gets drill 2's unit hint
        check_number(_about(ridge_point), verdict.ridge, "ridge", unit="FLOP/byte", factor_hints=False,
                     mistakes=[(1 / verdict.ridge, "the ridge is P divided by B"),
                               *[(verdict.ridge * f, "the ridge is P/B; check the units: TFLOP/s "
                                                     "over TB/s") for f in (1000, 1 / 1000)]]),
        check_number(_about(roof_tflops), verdict.roof_gflops / 1000, "roof at this intensity",
                     unit="TFLOP/s", factor_hints=False,
                     # F / (F/P + M/B) is the rate with no overlap, not the roof
                     mistakes=_tflops_slips(verdict.roof_gflops / 1000)
                     + [(D3_FLOPS / time_bounds(D3_FLOPS, D3_BYTES, D3_PEAK_GFLOPS, D3_GBPS).serial_s
                         / 1e12, "that is the rate with no overlap, F / (F/P + M/B); the roof is "
                                 "min(P, I x B), the overlapped bound")]),
        check_number(_about(fraction_of_roof), verdict.fraction_of_roof, "fraction of the roof",
                     unit="fraction", factor_hints=False,
                     mistakes=[(1 / verdict.fraction_of_roof, "divide the achieved rate by the "
                                                              "roof, not the other way")]),
        # A cache level's bandwidth is one of the limits a chart of HBM bytes cannot show: it is
        # accepted, with what would tell.
        # A bare "latency" is a stall's here: the launch's is ruled out by the run time, so it is
        # accepted, saying so (exercise 2, where either reading fits, hints).
        check_choice(bound_by, {limiter, "cache", "latency"}, "what bounds it", _LIMITERS,
                     # the hint does not confirm where it sits (the ridge is a separate answer)
                     hints={"memory": "compare its rate with its roof: it reaches only a small "
                                      "part of it. Is either roof what stops it?",
                            "compute": "compare its rate with its roof: it reaches only a small "
                                       "part of it. Is either roof what stops it?",
                            "ridge": _RIDGE_AS_LIMIT_HINT,
                            "launch": f"{D3_FLOPS:.1e} FLOPs at {D3_ACHIEVED_GFLOPS / 1000:g} "
                                      f"TFLOP/s take {seconds * 1e3:.0f} ms, thousands of times a "
                                      "launch's cost: the launch cannot be what holds it back"},
                     notes={"cache": "possible: an L2 or L1 limit is one of the causes a chart of "
                                     "HBM bytes cannot show, so the key calls it 'unmodelled'; "
                                     "only bytes counted per level (notebook 05) can tell",
                            "latency": "right, if you mean a stall's latency (too few warps to "
                                       "hide it): the roofline does not model it, so the key "
                                       "calls it 'unmodelled'. Not the launch's: "
                                       f"{seconds * 1e3:.0f} ms of work dwarfs a launch"}),
        check_choice(first_check, "profile", "what to look at first", _FIRST_STEPS,
                     # the launch's arithmetic, as the limiter check gives it
                     hints={"amortize-launch": f"{D3_FLOPS:.1e} FLOPs at "
                                               f"{D3_ACHIEVED_GFLOPS / 1000:g} TFLOP/s take "
                                               f"{seconds * 1e3:.0f} ms, thousands of times a "
                                               "launch's cost: amortizing launches cannot be "
                                               "what helps",
                            "fuse": "changing bytes or FLOPs now would be guessing: the kernel "
                                    "is not near either roof",
                            "overlap": "that is the verdict at the ridge once the kernel is near "
                                       "its roof; it is far from it",
                            "instruction-mix": "checking that P is the right roof comes after the "
                                               "launch size, occupancy and bytes; and this menu "
                                               "item is a change, not a check",
                            "smaller-dtype": "not as the first move: " + SMALLER_TYPE_RULE + ". "
                                             "This kernel is far below its roof, so its bytes are "
                                             "not what holds it back"}),
    )


def _drill4():
    e = ops.dtype_bytes("fp32")
    flops = D4_KERNELS * 1  # per element: one FLOP in each kernel
    bytes_separate = D4_KERNELS * 2 * e  # each kernel reads one array and writes one
    bytes_fused = 2 * e  # the chain reads the input once and writes the result once
    return flops, bytes_separate, bytes_fused


# The hints name what to count, never the count (a hint that gave 8 bytes gave the answer away).
_D4_SEPARATE_BYTES = ("count one kernel's bytes per element: what does it read, and what does it "
                      "write?")
_D4_FUSED_BYTES = ("count the fused kernel's bytes per element: what does it read, and what does "
                   "it write?")


def _byte_slips(key, hint):
    """Half and twice ``key``: drill 4 counts one FLOP per kernel, so a factor of 2 is a byte
    count with the read or the write left out or counted twice."""
    return [(key * 2, hint), (key / 2, hint)]


def _without_still(answer):
    """'still memory-bound' names the memory side: drill 4 asks whether fusion moved it."""
    # the teammate's claim answered first, "no, still memory-bound"
    if isinstance(answer, str):
        answer = re.sub(r"^\s*(?:no|yes)\s*[,;:.]\s*", "", answer, flags=re.IGNORECASE)
    # "memory, 32x left" (the side, then how far from the ridge) names the side
    if isinstance(answer, str):
        m = re.fullmatch(r"\s*([a-z -]+?)\s*[,;(]\s*[0-9.]+\s*(?:x|times)\s+(?:left|right)"
                         r"(?: of (?:the )?ridge)?\s*\)?\s*", answer.lower())
        if m:
            answer = m.group(1)
    # "it stays memory-bound": the side it stays on
    if isinstance(answer, str):
        answer = re.sub(r"^\s*(?:it\s+)?(?:stays|remains)\s+", "", answer, flags=re.IGNORECASE)
    if isinstance(answer, str) and answer.strip().lower().startswith("still "):
        return answer.strip()[len("still "):]
    # "memory-bound still" as well
    if isinstance(answer, str) and answer.strip().lower().endswith(" still"):
        return answer.strip()[:-len(" still")]
    return answer


def check_drill4(intensity_before, intensity_after, side_after, speedup):
    flops, before, after = _drill4()
    memory_before = time_bounds(flops, before, D4_PEAK_GFLOPS, D4_GBPS).overlapped_s
    memory_after = time_bounds(flops, after, D4_PEAK_GFLOPS, D4_GBPS).overlapped_s
    fp32_ridge = ridge(D4_PEAK_GFLOPS, D4_GBPS)
    return report(
        "Drill 4",
        # Drill 4 has no FMA: a factor of 2 here is a byte slip, and its hint says so, ahead of
        # the generic FMA/copy one.
        check_number(_about(intensity_before), flops / before, "intensity of the five separate kernels",
                     unit="FLOP/byte",
                     mistakes=[(1 / (2 * ops.dtype_bytes("fp32")) / D4_KERNELS,
                                "the FLOPs add up across the five kernels, just like the bytes"),
                               *_byte_slips(flops / before, _D4_SEPARATE_BYTES)]),
        check_number(_about(intensity_after), flops / after, "intensity of the fused kernel",
                     unit="FLOP/byte",
                     # one kernel's FLOP over the fused bytes
                     mistakes=[(flops / D4_KERNELS / after, "the fused kernel still does every "
                                                            "kernel's FLOPs; only the bytes shrink"),
                               *_byte_slips(flops / after, _D4_FUSED_BYTES)]),
        check_side(_without_still(side_after), flops / after, fp32_ridge,
                   f"side of the {fp32_ridge:g} FLOP/byte fp32 vector ridge after fusion",
                   hints={"compute": "compare the fused intensity with the ridge again: which "
                                     "is larger?", "both": BOTH_HINT}, choices=_SIDES),
        # A ratio of two times: no FMA/copy factor-of-2 hint. A speedup of 1 is the "same FLOPs,
        # so no gain" reading, which forgets that a memory-bound kernel's time is its bytes'.
        check_number(_percent_as_factor(speedup), memory_before / memory_after, "speedup from fusion", unit="x",
                     factor_hints=False,
                     # the hint names no side (it would give the answer of
                     # the side check above)
                     mistakes=[(1.0, "the FLOPs are the same: which of F/P and M/B sets its "
                                     "time, before and after?"),
                               # the ratio inverted: after over before
                               (memory_after / memory_before, "that is the time after over the "
                                                              "time before: a speedup is the time "
                                                              "before over the time after"),
                               # "80%", the share of the time fusion removes
                               (1 - memory_after / memory_before,
                                "that is the share of the time saved, 1 - after / before; a "
                                "speedup is the time before over the time after")]),
    )


def _without_factor(answer):
    """A direction that also gives the factor ("it moves right by 6.7x") read as the
    direction; the factor is checked on its own."""
    if isinstance(answer, str):
        m = re.fullmatch(r"\s*(.*?)\s+by\s+(?:about\s+|roughly\s+|~\s*)?[0-9.]+(?:\s*/\s*[0-9.]+)?\s*(?:x|times)?\s*",
                         answer, flags=re.IGNORECASE)
        if m:
            return m.group(1)
    return answer


def check_drill6(direction, ridge_factor):
    return report(
        "Drill 6",
        # the misconception this drill exists to catch gets a teaching hint
        check_choice(_without_factor(direction), "right", "where the ridge moves", RIDGE_MOVES,
                     hints={"left": "the ridge is P/B: which grew faster, P or B?",
                            "stays": "the ridge is P/B: P and B grew by different factors"}),
        check_number(_percent_as_factor(ridge_factor), D6_PEAK_GROWTH / D6_BANDWIDTH_GROWTH,
                     "factor by which the ridge grows", unit="x", rtol=D6_RTOL,
                     # Drill 6 divides two given growth factors: nothing is counted, so no
                     # FMA/copy factor-of-2 hint
                     factor_hints=False,
                     mistakes=[(D6_PEAK_GROWTH * D6_BANDWIDTH_GROWTH,
                                "the ridge is P divided by B"),
                               # B's growth over P's
                               (D6_BANDWIDTH_GROWTH / D6_PEAK_GROWTH,
                                "the ridge is P/B: which grew more?")]),
    )


def check_drill7(unfused_limit, fused_growth):
    limit = ops.attention_intensity_limit(D7_HEAD_DIM, fused=False)
    # A factor of 2 here is the score matrices' bytes or a matrix product's FLOPs (an FMA counted
    # as one), not a copy: the hint names both counts.
    scores = ("recount the bytes per score (S and P are each written to HBM and read back) and the "
              "FLOPs per score (2d per matrix-product entry)")
    return report(
        "Drill 7",
        check_number(_about(unfused_limit), limit, f"unfused limit at d = {D7_HEAD_DIM}, bf16",
                     unit="FLOP/byte", mistakes=[(limit * 2, scores), (limit / 2, scores)]),
        check_choice(fused_growth, "linear", "how fused intensity grows with s", _GROWTH,
                     # "constant" is right without the drill's assumption
                     hints={"constant": "the drill assumes the L2 absorbs the re-reads of K and V "
                                        "(without that, the intensity does level off, near the "
                                        "tile size): against HBM, where Q, K, V and O each cross "
                                        "once, how do the bytes and the FLOPs grow with s?",
                            # "unbounded" was read as its near-spelling "bounded" (constant)
                            "unbounded": GROWTH_UNBOUNDED_HINT,
                            # exercise 3's hint for the same answer
                            "quadratic": GROWTH_QUADRATIC_HINT}),
    )


MODEL_ANSWERS = {
    1: ("Each resource puts a floor under the run time: the arithmetic cannot finish in less "
        "than F/P seconds and the data cannot arrive in less than M/B. Either way the kernel "
        "needs at least the longer of the two, max(F/P, M/B), and it reaches that floor only if "
        "the two overlap completely; dividing the work F "
        "by that time caps the rate at min(P, (F/M) x B) = min(P, I x B). Only the max is a bound, "
        "a lower one, and it holds with no assumption about overlap; using it as the time is the hopeful step, "
        "since that floor is reached only with perfect overlap. The sum, F/P + M/B, is the model's time with no overlap, both "
        "units at their peaks; a real kernel can take longer still (stalls, latency: see drill "
        "3), so the sum is no bound. The sum is furthest above the max, twice as long, when the "
        "two terms are equal, at the ridge.",
        ("two lower bounds, one per resource; the larger is the floor",
         "using the max as the time assumes perfect overlap",
         "the sum is the model's no-overlap time, at most 2x the max; it is no bound: a kernel "
         "that stalls takes longer")),
    3: None,  # filled in by _numeric_answers(), from the drill's data
    4: None,
    # Review 35k2 (clarity): the two answers expected first, then the other conventions.
    # Review 40k2 D5-1: the last sentence once said "otherwise 8x almost always comes from the
    # bytes", which read as denying the FLOP-side cases listed just above it.
    5: ("Intensity depends on conventions, so both can be right; until both state their sizes "
        "and conventions, the two numbers cannot be compared.\n"
        "Two answers an interviewer expects:\n"
        "- bytes counted at different levels: HBM traffic versus L2 traffic or every load and store;\n"
        "- the algorithm's ideal bytes versus the profiler's measured bytes, which include what "
        "uncoalesced access wastes (32-byte sectors for 4 useful bytes is exactly 8x).\n"
        "Other conventions that can reach 8x:\n"
        "- the kernel evaluated at different sizes, shapes or data types, a common cause (a "
        "GEMM's intensity grows with N; a working set that fits the L2 cuts the DRAM bytes);\n"
        "- an exp or a divide counted as its instruction sequence, or complex arithmetic (a "
        "complex multiply-add is one operation or 8 real FLOPs);\n"
        "- sparsity: an unstructured sparse kernel's dense-equivalent count differs by 1 / "
        "density, any factor.\n"
        "At one size, a multiply-add as one or two FLOPs changes the count by 2x, and 2:4 "
        "structured sparsity counted or not by 2x. When none of the cases listed above applies, "
        "look first at the bytes for a gap of 8x.",
        ("different memory levels", "ideal versus measured bytes",
         "at one size, a multiply-add as 1 or 2 FLOPs and 2:4 sparsity explain 2x each; "
         "unstructured sparsity (1 / density), instruction sequences or a complex multiply-add "
         "(1 or 8 FLOPs) can reach 8x; when none of these applies, look first at the bytes",
         "the same kernel at another size, shape or data type")),
    6: ("A kernel's intensity belongs to its algorithm and data layout; the GPU only decides "
        "where the ridge, P/B, sits. Over recent generations peak arithmetic, above all on "
        "matrix cores, grew much faster than memory bandwidth, so P/B grew and the ridge moved "
        "right. Kernels that once sat near or past the ridge now sit to its left, although "
        "nothing about them changed.",
        ("intensity is a property of the kernel", "the ridge is P/B",
         "P grew much faster than B")),
    7: ("Unfused attention writes the s x s scores and probabilities to HBM and reads them "
        "back, so its bytes grow like s^2, as fast as its FLOPs, and the ratio levels off at a "
        "constant set by d (about d/2 in bf16). Fused attention keeps those matrices on chip: "
        "if the L2 (or on-chip memory) absorbs the re-reads of K and V by every query tile, its "
        "HBM bytes grow only like s x d while the FLOPs still grow like s^2 x d, so the ratio "
        "grows in proportion to s. That growth rests on the L2 absorbing the re-reads: once K and "
        "V no longer fit it, every query tile reads them from HBM again and the intensity levels "
        "off near the tile size, the number of query rows a tile holds on chip.",
        ("unfused: traffic and FLOPs are both O(s^2)",
         "fused: traffic is O(s d) (the L2 absorbing K and V's re-reads), FLOPs O(s^2 d)")),
    8: None,  # filled in by _numeric_answers(): its ratios come from the H200's ceilings
    9: ("Most of the program's time usually goes into waiting for data to arrive from memory, "
        "not into calculating (or into waiting on something else: the computer's main processor "
        "handing out the work, many tiny tasks, reading files). A chip that calculates twice as "
        "fast finishes its sums sooner and then waits for the same deliveries, so the program "
        "takes as long as before, unless whatever it waits on also gets faster.",
        ("something other than arithmetic sets the time: usually waiting on data, sometimes on "
         "the host, launches or files",
         "faster arithmetic does not shorten the wait")),
}

def drill8_ratios(machine=H200) -> dict:
    """How many times the fp32 vector roof drill 8's tensor-core roofs are, from the machine's
    datasheet ceilings: ``{"bf16": ..., "tf32": ...}`` (the H200: 14.8 and 7.4)."""
    fp32 = machine.ceiling("fp32").value
    return {"bf16": machine.ceiling(BF16_TENSOR).value / fp32,
            "tf32": machine.ceiling(TF32_TENSOR).value / fp32}


def _numeric_answers() -> None:
    verdict = classify(D3_FLOPS / D3_BYTES, D3_PEAK_GFLOPS, D3_GBPS, D3_ACHIEVED_GFLOPS)
    MODEL_ANSWERS[3] = (
        f"Do the arithmetic first: I = {verdict.intensity:g} FLOP/byte, which is exactly the "
        f"ridge, so the roof is the full {verdict.roof_gflops / 1000:g} TFLOP/s and the kernel "
        f"reaches {verdict.fraction_of_roof:.0%} of it. A kernel that far below its roof is "
        "limited by neither roof, and the chart has nothing more to tell you. In order: check "
        "that the launch is big enough to fill the GPU (enough blocks for every SM); look at occupancy and stall "
        "reasons, since too few warps break the overlap the model assumes; compare the "
        "profiler's bytes with the algorithm's, since extra bytes mean an access-pattern bug, and "
        "count the bytes at each level (notebook 05), since the L2 or the L1 may be the limit "
        "that a chart of HBM bytes cannot show; "
        f"and make sure {D3_PEAK_GFLOPS / 1000:g} TFLOP/s is the roof of the instructions "
        "actually used. Only once the kernel is close to its roof does the roofline's verdict, "
        "here 'improve overlap', apply.",
        ("I equals the ridge, so the roof is the full peak", "far below the roof: neither roof "
         "binds", "look at launch size, occupancy, stalls, real bytes and bytes per level before "
                  "touching bytes or FLOPs"))
    flops, before, after = _drill4()
    MODEL_ANSWERS[4] = (
        "Fusing elementwise kernels deletes the intermediates' trips through HBM and leaves the "
        f"arithmetic as it was. The {D4_KERNELS} separate kernels move {before:g} bytes per "
        f"element for {flops:g} FLOPs, {flops / before:g} FLOP/byte; the fused chain moves "
        f"{after:g} bytes for the same FLOPs, {flops / after:g} FLOP/byte. These are fp32 "
        "vector kernels, so the ridge that counts is the fp32 vector roof's, "
        f"{ridge(D4_PEAK_GFLOPS, D4_GBPS):g} FLOP/byte on drill 3's GPU. The separate kernels sit "
        f"{ridge(D4_PEAK_GFLOPS, D4_GBPS) / (flops / before):g} times left of it and the fused one "
        f"{ridge(D4_PEAK_GFLOPS, D4_GBPS) / (flops / after):g} times: the pipeline is still "
        f"memory-bound, {ridge(D4_PEAK_GFLOPS, D4_GBPS) / (flops / after):g}x left of the ridge, "
        "and its verdict has not changed. What fusion bought is a roof "
        f"{before / after:g} times higher, and so that much less run time.",
        ("the intensity rises but stays far below the fp32 vector ridge",
         "the speedup comes from deleted bytes",
         "fusing elementwise kernels rarely changes the verdict (fusion that deletes O(s^2) "
         "traffic, as in attention, can)"))
    # The H200's datasheet ratios, not literals: bf16 989.4 / 66.9 = 14.8, tf32 494.7 / 66.9 = 7.4
    ratios = drill8_ratios()
    MODEL_ANSWERS[8] = (
        "Being at 96% of a roof says the kernel uses that resource well, not that the work is "
        "useful. The roof can be the wrong one: 96% of the fp32 vector roof is poor for a "
        # The tf32 figure first; tf32 changes the precision too, less than bf16
        f"matrix product the tensor cores could run up to about {ratios['tf32']:.1f} times faster in "
        f"tf32 on an H200 ({ratios['bf16']:.1f} in bf16, which changes the precision more: tf32 "
        "rounds the inputs to a 10-bit mantissa, bf16 to a 7-bit one), so "
        "check the instruction mix first. "
        "The bytes can be wasteful: uncoalesced access that moves eight times the bytes it needs "
        "makes the measured intensity and the roof eight times too low, and the kernel then moves junk "
        "efficiently. Or the algorithm is the problem: a worse-complexity method, or a kernel "
        "that need not run at all (a redundant copy or layout change), can sit at its roof and "
        "still be pure waste.",
        ("the roof may be the wrong one (instruction mix: tensor cores, packed ops)",
         "wasted bytes make the roof itself too low",
         "the roofline cannot judge the algorithm or whether the kernel is needed"))

_numeric_answers()

QUESTIONS = {
    1: "derive the roofline from two inequalities",
    3: "the kernel at 12 TFLOP/s: what next",
    4: "fusing five elementwise kernels",
    5: "two intensities 8x apart",
    6: "why a faster GPU makes more kernels memory-bound",
    7: "attention's intensity as s grows",
    8: "a bad kernel at 96% of its roof",
    9: "twice the arithmetic, no speedup",
}


def model_answer(drill, attempt):
    """The model answer to a prose drill, shown only once ``attempt`` holds a real attempt."""
    if drill not in MODEL_ANSWERS:
        raise ValueError(f"drill: prose drills are {sorted(MODEL_ANSWERS)}, got {drill!r}")
    text, points = MODEL_ANSWERS[drill]
    return reveal(attempt, text, f"Drill {drill}: {QUESTIONS[drill]}", key_points=points)
