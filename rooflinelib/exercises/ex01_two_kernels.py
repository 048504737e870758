"""Exercise 1: place two kernels on one roofline, then again after the bandwidth drops.

The course's worked example: 120 TFLOP/s of the relevant arithmetic and 3 TB/s of HBM, then the same
compute with 2 TB/s.  Two kernels, at 20 and 80 FLOP/byte.  The keys come from
:mod:`rooflinelib.core.model`; the figure is checked by reading the traces of
:func:`rooflinelib.views.plotting.roofline_figure`.
"""
from __future__ import annotations

import re

from rooflinelib.exercises.grading import (DEFAULT_RTOL, SIDES, AnswerError, Check, Choices,
                                           NotAnsweredError,
                                           Table, check_number, check_side, guarded, is_unanswered,
                                           read_number, report, reveal)
from rooflinelib.core.machines import EXAMPLE_120T_3TB
from rooflinelib.core.model import attainable_gflops, ridge

PEAK_GFLOPS = EXAMPLE_120T_3TB.ceiling("fp32").value
BANDWIDTHS_GBPS = (EXAMPLE_120T_3TB.ceiling("dram").value, 2_000.0)  # before and after the drop
INTENSITIES = (20.0, 80.0)


# Notebook 01 calls this GPU's compute roof "its fp32 roof" (review 11a, K-01-2), and so may the
# answer; a bandwidth named by its figure is not a synonym of "memory", as "3 TB/s" for a 2 TB/s
# case would pass: _check_active_roof reads it against the case's own bandwidth.
_COMPUTE_WORDS = ("fp32", "fp32 compute", "fp32 fma", "fp32 fmas", "fp32 vector",
                  f"{PEAK_GFLOPS / 1000:g} tflop/s", f"{PEAK_GFLOPS / 1000:g} tflops",
                  # review 31k1 (key 1, item 2): "compute roof (fp32)", "compute bound (flat roof)"
                  "compute fp32", "compute flat", "flat compute", "horizontal", "compute horizontal",
                  # review 44k1 (key 1, item 1): the compute roof named by its peak
                  "peak compute", "compute peak", "peak flop/s", "peak flops", "compute throughput")
_MEMORY_WORDS = ("memory sloped", "memory slanted", "sloped memory")


class _PageChoices(Choices):
    """The sides, read as before, but an unreadable answer hears the page's two answers only:
    cell 5 offers 'memory' or 'compute', not 'ridge' (review 31k1, key 1, item 2)."""

    def _listing(self) -> str:
        return " or ".join(repr(n) for n in self.options if n != "ridge")


_SIDES = _PageChoices({**SIDES.options,
                       "memory": (SIDES.options["memory"][0], SIDES.options["memory"][1] + _MEMORY_WORDS),
                       "compute": (SIDES.options["compute"][0], SIDES.options["compute"][1] + _COMPUTE_WORDS)},
                      what="roof")


def _case_name(intensity: float, bandwidth: float) -> str:
    return f"{intensity:g} FLOP/byte at {bandwidth / 1000:g} TB/s"


# This exercise gives every count, so the generic factor-of-2 hint (FMAs, copies: "recount") would
# send a student to count what is given (review 10a, K-1); its numbers pass factor_hints=False and
# keep only the slip that fits here, a unit prefix.
_PREFIX_HINT = "off by a factor of 1,000: check the unit prefixes (T vs G in TFLOP/s, GFLOP/s, TB/s, GB/s)"


#: A bandwidth converted with 2^40 bytes to the TB: 3 TB/s read as 3 TiB/s, or the reverse.
_TIB_HINT = ("off by about 9%: binary (TiB, 2^40 bytes) and decimal (TB, 10^12 bytes) prefixes mixed "
             "up? This course uses decimal TB")


#: A unit converted with 1,024 G to the T (3 TB/s as 3,072 GB/s): 2.4% off, just past the
#: ±2%, so matched within 0.3% (exercise 3's ridge check has the same slip).
_KIB_TB_HINT = ("off by 2.4%: T is 1,000 G here (decimal prefixes), not 1,024: convert TB/s to GB/s "
                "and TFLOP/s to GFLOP/s with 1,000")


def _prefix_slips(key: float, bandwidth: bool = True) -> list:
    """The unit slips of a key: 1,000x always; TiB for TB, and 1,024 GB to the TB, where a bandwidth
    enters it."""
    tib = [(key * 1e12 / 2 ** 40, _TIB_HINT), (key * 2 ** 40 / 1e12, _TIB_HINT),
           (key * 1000 / 1024, _KIB_TB_HINT, 0.003), (key * 1024 / 1000, _KIB_TB_HINT, 0.003)] if bandwidth else []
    return [(key * 1000, _PREFIX_HINT), (key / 1000, _PREFIX_HINT), *tib]


#: Review 15e, 1: the ridge inverted, B / P, is a common slip.
_INVERTED_RIDGE = "that is B / P; the ridge is P / B, FLOP per byte"
#: Review 56k1 (key 1, item 4): twice or half the ridge, as exercise 2's ridge check names it.
_RIDGE_TWICE_OR_HALF = ("off by a factor of 2: the ridge is P / B, the compute roof over this "
                        "bandwidth, with no factor of 2 in it")


def check_ridges(ridge_at_3, ridge_at_2):
    before, after = BANDWIDTHS_GBPS
    return report(
        "The ridge points",
        check_number(ridge_at_3, ridge(PEAK_GFLOPS, before), "ridge at 3 TB/s", unit="FLOP/byte",
                     mistakes=[(1 / ridge(PEAK_GFLOPS, before), _INVERTED_RIDGE),
                               # review 19g1: the two answers swapped
                               (ridge(PEAK_GFLOPS, after), f"that is the ridge at {after / 1000:g} "
                                                           f"TB/s: this one uses {before / 1000:g} TB/s"),
                               (2 * ridge(PEAK_GFLOPS, before), _RIDGE_TWICE_OR_HALF),
                               (ridge(PEAK_GFLOPS, before) / 2, _RIDGE_TWICE_OR_HALF),
                               *_prefix_slips(ridge(PEAK_GFLOPS, before))], factor_hints=False),
        check_number(ridge_at_2, ridge(PEAK_GFLOPS, after), "ridge at 2 TB/s", unit="FLOP/byte",
                     mistakes=[(ridge(PEAK_GFLOPS, before), "the bandwidth changed, so the ridge "
                                                            "moved: recompute P / B"),
                               (1 / ridge(PEAK_GFLOPS, after), _INVERTED_RIDGE),
                               (2 * ridge(PEAK_GFLOPS, after), _RIDGE_TWICE_OR_HALF),
                               (ridge(PEAK_GFLOPS, after) / 2, _RIDGE_TWICE_OR_HALF),
                               *_prefix_slips(ridge(PEAK_GFLOPS, after))], factor_hints=False),
    )


def check_predictions(tflops_20_at_3, tflops_80_at_3, tflops_20_at_2, tflops_80_at_2):
    answers = {(20.0, BANDWIDTHS_GBPS[0]): tflops_20_at_3, (80.0, BANDWIDTHS_GBPS[0]): tflops_80_at_3,
               (20.0, BANDWIDTHS_GBPS[1]): tflops_20_at_2, (80.0, BANDWIDTHS_GBPS[1]): tflops_80_at_2}
    checks = []
    for (intensity, bandwidth), answer in answers.items():
        key = attainable_gflops(intensity, PEAK_GFLOPS, bandwidth) / 1000
        mistakes = []
        if intensity * bandwidth > PEAK_GFLOPS:
            mistakes.append((intensity * bandwidth / 1000, "that is the bandwidth product I x B "
                                                           "alone; the compute roof caps it"))
        else:
            mistakes.append((PEAK_GFLOPS / 1000, "that is the compute roof; at this intensity "
                                                 "the bandwidth product I x B is lower"))
        # The likeliest slip after the drop: the 3 TB/s answer copied into the 2 TB/s row.
        before = attainable_gflops(intensity, PEAK_GFLOPS, BANDWIDTHS_GBPS[0]) / 1000
        if bandwidth != BANDWIDTHS_GBPS[0] and before != key:
            mistakes.append((before, f"that is the rate at {BANDWIDTHS_GBPS[0] / 1000:g} TB/s; "
                                     f"the bandwidth changed, so recompute I x B with "
                                     f"{bandwidth / 1000:g} TB/s"))
        # the compound slip: the 3 TB/s bandwidth product, neither updated nor capped
        uncapped_before = intensity * BANDWIDTHS_GBPS[0] / 1000
        if bandwidth != BANDWIDTHS_GBPS[0] and uncapped_before not in (key, before):
            mistakes.append((uncapped_before, f"that is I x B at {BANDWIDTHS_GBPS[0] / 1000:g} TB/s, "
                                              f"uncapped: use the new bandwidth, {bandwidth / 1000:g} "
                                              "TB/s, then cap at the compute roof"))
        checks.append(check_number(answer, key, f"predicted TFLOP/s, {_case_name(intensity, bandwidth)}",
                                   unit="TFLOP/s",
                                   mistakes=mistakes + _prefix_slips(key, intensity * bandwidth <= PEAK_GFLOPS)
                                   + [(key * 1e12, "that is in FLOP/s: the answer is in TFLOP/s")],
                                   factor_hints=False))
    return report("Predicted rates", *checks)


def check_active_roofs(roof_20_at_3, roof_80_at_3, roof_20_at_2, roof_80_at_2):
    answers = {(20.0, BANDWIDTHS_GBPS[0]): roof_20_at_3, (80.0, BANDWIDTHS_GBPS[0]): roof_80_at_3,
               (20.0, BANDWIDTHS_GBPS[1]): roof_20_at_2, (80.0, BANDWIDTHS_GBPS[1]): roof_80_at_2}
    return report("Active roofs", *[_check_active_roof(answer, intensity, bandwidth)
                                    for (intensity, bandwidth), answer in answers.items()])


#: A bandwidth roof named by its figure: "2 TB/s", "the 3 TB/s roof" (review 40k1, key 1, item 1),
#: or in GB/s, the unit of the page's Ceiling: "3000 GB/s", "3,000 GB/s" (review 44k1, key 1, item 1).
_BANDWIDTH_ROOF = re.compile(r"^\s*(?:the\s+)?(\d[\d,_]*(?:\.\d+)?)\s*([tg])b/s"
                             r"(?:\s+(?:hbm|bandwidth|memory))?(?:\s+(?:roof|ceiling))?\s*$", re.IGNORECASE)
_BANDWIDTH_UNIT_GBPS = {"t": 1000.0, "g": 1.0}


def _named_gbps(named) -> float:
    """The GB/s a _BANDWIDTH_ROOF match names."""
    return float(re.sub(r"[,_]", "", named.group(1))) * _BANDWIDTH_UNIT_GBPS[named.group(2).lower()]


#: A rate typed in the roof slot: "60 TFLOP/s", "120000 GFLOP/s" (review 41k1, key 1, item 1).
_RATE = re.compile(r"^\s*(?:the\s+)?(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*([gtp]?)flop(?:/s|s)"
                   r"(?:\s+(?:roof|ceiling))?\s*$", re.IGNORECASE)
_RATE_PREFIX_GFLOPS = {"": 1e-9, "g": 1.0, "t": 1e3, "p": 1e6}
#: A side with its roof in parentheses: "memory (3 TB/s)", "compute (120 TFLOP/s)" (review 41k1,
#: key 1, item 2); "compute (fp32)" already reads through the side's synonyms.
_SIDE_WITH_ROOF = re.compile(r"^\s*([^()]+?)\s*\(\s*([^()]+?)\s*\)\s*$")


def _rate_gflops(text: str):
    """The GFLOP/s a rate names, or None when the text is not one number with a FLOP/s unit."""
    rate = _RATE.match(text)
    return None if rate is None else float(rate.group(1)) * _RATE_PREFIX_GFLOPS[rate.group(2).lower()]


def _check_active_roof(answer, intensity: float, bandwidth: float) -> Check:
    """One case's active roof.  A bandwidth roof named by its figure is read as the memory roof
    when it is this case's bandwidth; another case's figure hears which roof it names, so that
    "3 TB/s" in a 2 TB/s case does not pass as "memory".  A side followed by its own roof in
    parentheses is read as that roof; a rate other than the compute roof hears the ridge hint,
    not a fuzzy "did you mean" (a kernel's rate is not a roof)."""
    question = f"active roof, {_case_name(intensity, bandwidth)}"
    typed = answer
    commented = False
    if isinstance(answer, str):
        answer = _as_side_with_parenthesis(answer)
    if isinstance(answer, str) and (paired := _SIDE_WITH_ROOF.match(answer)):
        try:
            side = _SIDES._read(paired.group(1))
        except AnswerError:
            side = None
        inner = paired.group(2)
        part = "the part in parentheses" if "(" in typed else "the words after the side"
        if side == "memory" and (ceiling := _CEILING_NAME.match(inner)):
            gbps = _CEILING_NAMES_GBPS[ceiling.group(1).lower()]
            if abs(gbps - bandwidth) > 1e-9 * bandwidth:
                # the page's name for the other case's ceiling is that case's bandwidth
                if check_side(side, intensity, ridge(PEAK_GFLOPS, bandwidth), question, choices=_SIDES).passed:
                    return Check(question, "fail", f"{typed.strip()!r}: 'memory' is right, but the "
                                                   f"ceiling {ceiling.group(1).lower()!r} is "
                                                   f"{gbps / 1000:g} TB/s, the other case's; this "
                                                   f"case has {bandwidth / 1000:g} TB/s")
        if side == "memory" and (named := _BANDWIDTH_ROOF.match(inner)):
            gbps = _named_gbps(named)
            if (abs(gbps - bandwidth) > 1e-9 * bandwidth and check_side(
                    side, intensity, ridge(PEAK_GFLOPS, bandwidth), question, choices=_SIDES).passed):
                # review 56k1 (key 1, item 2): the side is right and only its bandwidth is off
                return Check(question, "fail", f"{typed.strip()!r}: 'memory' is right, but "
                                               f"{_not_this_bandwidth(gbps, bandwidth)}")
            return _check_active_roof(inner, intensity, bandwidth)
        if side in ("memory", "compute"):
            agrees = _parenthesis_agrees(side, inner, intensity, bandwidth)
            if agrees is True or agrees == "comment":
                answer = side
                commented = agrees == "comment"
            elif agrees is False:
                if check_side(side, intensity, ridge(PEAK_GFLOPS, bandwidth), question, choices=_SIDES).passed:
                    # the side is right and only the parentheses are off: say so, or the student
                    # may switch sides
                    return Check(question, "fail", f"{typed.strip()!r}: '{side}' is right, but "
                                                   f"{_wrong_parenthesis(side, inner, intensity, bandwidth, part)}")
                return Check(question, "fail", f"{typed.strip()!r}: {part} do{'es' if '(' in typed else ''} "
                                               f"not fit the '{side}' roof; "
                                               f"{_ridge_hint(intensity, bandwidth)}")
    rate = _rate_gflops(answer) if isinstance(answer, str) else None
    if rate is not None:
        if abs(rate - PEAK_GFLOPS) <= 1e-9 * PEAK_GFLOPS:
            answer = "compute"
        else:
            return Check(question, "fail", f"{answer.strip()!r} is a rate, not a roof: "
                                           f"{_ridge_hint(intensity, bandwidth)}")
    named = _BANDWIDTH_ROOF.match(answer) if isinstance(answer, str) else None
    if named is None:
        check = check_side(answer, intensity, ridge(PEAK_GFLOPS, bandwidth), question,
                           choices=_SIDES, hints={"ridge": _ridge_hint(intensity, bandwidth)})
        if commented and check.passed:
            # a comment is not graded ("memory, since 20 > 40" names the right side with a
            # false reason): the pass says what it covers
            return Check(question, "pass", f"correct: '{answer}' is right (only the side is "
                                           "graded, not the words after it)")
        return check
    gbps = _named_gbps(named)
    if abs(gbps - bandwidth) > 1e-9 * bandwidth:
        return Check(question, "fail", f"{_not_this_bandwidth(gbps, bandwidth)}: is the active "
                                       "roof 'memory' or 'compute'?")
    check = check_side("memory", intensity, ridge(PEAK_GFLOPS, bandwidth), question, choices=_SIDES)
    reading = f"read {answer.strip()!r} as this case's bandwidth roof, 'memory'"
    if check.passed:
        return Check(question, "pass", f"correct: {reading}")
    return Check(question, check.status, f"{reading}: {check.message}")


def _not_this_bandwidth(gbps: float, bandwidth: float) -> str:
    """A bandwidth named for a case that has another one."""
    other = ("the roof of the other case's bandwidth" if any(
        abs(gbps - b) <= 1e-9 * b for b in BANDWIDTHS_GBPS) else "no roof of this exercise")
    return f"{gbps / 1000:g} TB/s is {other}; this case has {bandwidth / 1000:g} TB/s"


#: A bandwidth or a rate at the end of an answer, after a side: "memory roof at 3 TB/s",
#: "memory 2 TB/s", "compute roof at 120 TFLOP/s".
_TRAILING_BANDWIDTH = re.compile(r"\s+(?:roof\s+|ceiling\s+)?(?:at\s+|of\s+|on\s+)?"
                                 r"(\d[\d,_]*(?:\.\d+)?\s*[tg]b/s"
                                 r"|\d+(?:\.\d+)?(?:e[+-]?\d+)?\s*[gtp]?flop(?:/s|s))\s*$", re.IGNORECASE)
#: A case named in a compute side's qualifier: "at 3 TB/s", "in the 2 TB/s case", "3 TB/s".
_CASE_QUALIFIER = re.compile(r"^\s*(?:(?:at|in|for|with|on)\s+)?(?:the\s+)?(\d[\d,_]*(?:\.\d+)?)\s*([tg])b/s"
                             r"(?:\s+(?:case|hbm|bandwidth|memory))?\s*$", re.IGNORECASE)
#: A roof or ceiling named in a qualifier: a bandwidth there names the memory roof.
_ROOF_WORD = re.compile(r"\b(?:roof|ceiling)s?\b", re.IGNORECASE)
#: The page's names for the figure's two memory ceilings, and their bandwidths (GB/s).
_CEILING_NAMES_GBPS = {"dram": BANDWIDTHS_GBPS[0], "dram-2tbs": BANDWIDTHS_GBPS[1]}
_CEILING_NAME = re.compile(r"^\s*(?:the\s+)?[\"'`]?(dram(?:-2tbs)?)[\"'`]?(?:\s+(?:ceiling|roof))?\s*$",
                           re.IGNORECASE)
#: A number alone, with or without one unit word: not a comment, so never waved through as one.
_BARE_NUMBER = re.compile(r"^\s*[\d.,_]+(?:e[+-]?\d+)?\s*[a-zµ/]*\s*$", re.IGNORECASE)


def _as_side_with_parenthesis(answer: str) -> str:
    """Review 53k1 (key 1, item 2): "<side> at <bandwidth>", "<side> <bandwidth>" and
    "<side>, <text>" are written as "<side> (<bandwidth or text>)", which the parenthesis rule
    then reads; an answer whose first part is not a side is left as it is."""
    if _SIDE_WITH_ROOF.match(answer):
        return answer
    head, tail = None, None
    if (trailing := _TRAILING_BANDWIDTH.search(answer)):
        head, tail = answer[:trailing.start()], trailing.group(1)
    elif "," in answer:
        head, tail = (part.strip() for part in answer.split(",", 1))
    if not head or not tail:
        return answer
    try:
        side = _SIDES._read(head)
    except AnswerError:
        return answer
    return f"{head} ({tail})" if side in ("memory", "compute") else answer


def _parenthesis_agrees(side: str, inner: str, intensity: float, bandwidth: float):
    """Whether the parentheses after a side agree with it (review 46k1, key 1, item 1): True for
    the side's roof or the kernel's own rate on it ("memory (60 TFLOP/s)") or a name or position of
    that side ("memory (dram)", "memory-bound (left of the ridge)"); False for the other side's
    roof, its name or a rate this side does not give; "comment" for words that name none of these
    (not graded); None when the parentheses cannot be read, and the answer stays unreadable.  The side itself is graded afterwards, as a bare side is."""
    rate = _rate_gflops(inner)
    if rate is not None:
        own = PEAK_GFLOPS if side == "compute" else intensity * bandwidth
        return abs(rate - own) <= DEFAULT_RTOL * own
    if side == "compute" and (case := _CASE_QUALIFIER.match(inner)):
        # the case the row names ("compute-bound at 3 TB/s"), not a roof: right only when it is
        # this case's bandwidth
        return abs(_named_gbps(case) - bandwidth) <= 1e-9 * bandwidth
    if _BANDWIDTH_ROOF.match(inner):
        return side == "memory"
    try:
        named = _SIDES._read(inner)
    except AnswerError:
        # review 53k1 (key 1, item 2): words that are neither a rate, a bandwidth nor a side
        # ("20 < 60", the figure's own ceiling name "dram-2tbs") are a comment on the side;
        # a bare number stays unreadable
        return None if _BARE_NUMBER.match(inner) else "comment"
    return {side: True, "ridge": None}.get(named, False)


def _wrong_parenthesis(side: str, inner: str, intensity: float, bandwidth: float,
                       part: str = "the part in parentheses") -> str:
    """What is wrong with the parentheses after a right side: a rate it does not give (another
    case's, say), another case's bandwidth, or a name of the other roof.  ``part`` names what
    follows the side as the student wrote it (no parentheses they did not type)."""
    rate = _rate_gflops(inner)
    if side == "compute" and (case := _CASE_QUALIFIER.match(inner)):
        gbps = _named_gbps(case)
        other = ("the other case's bandwidth" if any(abs(gbps - b) <= 1e-9 * b for b in BANDWIDTHS_GBPS)
                 else "no bandwidth of this exercise")
        return f"{gbps / 1000:g} TB/s is {other}; this case has {bandwidth / 1000:g} TB/s"
    if side == "compute" and (named := _BANDWIDTH_ROOF.match(inner)):
        return (f"{_named_gbps(named) / 1000:g} TB/s is a memory roof; the compute roof is "
                f"{PEAK_GFLOPS / 1000:g} TFLOP/s")
    if rate is None:
        return f"{part} names the other side: drop it, or make it agree"
    if side == "compute":
        return (f"the compute roof is {PEAK_GFLOPS / 1000:g} TFLOP/s, not {rate / 1000:g}: "
                "this kernel runs at the compute roof")
    other = [b for b in BANDWIDTHS_GBPS if b != bandwidth and abs(rate - intensity * b) <= DEFAULT_RTOL * intensity * b]
    if other:
        return (f"{rate / 1000:g} TFLOP/s is this kernel's rate at {other[0] / 1000:g} TB/s, not at "
                f"{bandwidth / 1000:g} TB/s")
    return (f"{rate / 1000:g} TFLOP/s is not this kernel's rate on that roof: work out I x B at "
            f"{bandwidth / 1000:g} TB/s again")


def _ridge_hint(intensity: float, bandwidth: float) -> str:
    """'ridge' (or 'balanced') as an active roof: cell 5 offers only 'memory' or 'compute' and
    never defines grading's band around the ridge, so the hint compares the intensity with this
    case's ridge instead (review 39k1)."""
    r = ridge(PEAK_GFLOPS, bandwidth)
    where = "below" if intensity < r else "above"
    return (f"{intensity:g} FLOP/byte is {where} this GPU's ridge of {r:g} at "
            f"{bandwidth / 1000:g} TB/s: which roof does it sit under?")


def check_table(tflops_20_at_3, tflops_80_at_3, tflops_20_at_2, tflops_80_at_2,
                roof_20_at_3, roof_80_at_3, roof_20_at_2, roof_80_at_2):
    """The whole table at once: the four predicted rates and the four active roofs."""
    return report("The table",
                  check_predictions(tflops_20_at_3, tflops_80_at_3, tflops_20_at_2, tflops_80_at_2),
                  check_active_roofs(roof_20_at_3, roof_80_at_3, roof_20_at_2, roof_80_at_2))


_PERCENT = re.compile(r"(%|\bpercent)\s*$", re.IGNORECASE)
#: "1.5x slower", "1.5 times slower": the factor with its word; "33% slower" keeps its % reading.
#: "33% lower", "33% less", "33% drop", "33% loss": the same share of the rate lost, in other words.
_SLOWER = re.compile(r"(x|%|\btimes|\bpercent)\s+(?:slower|lower|less|drop|loss)\s*$", re.IGNORECASE)
#: "none", "no change": no slowdown, old rate / new rate = 1.
_NO_CHANGE = re.compile(r"^\s*(?:none|no change|unchanged|no slowdown|no loss|(?:the )?same|unaffected|"
                        r"no effect|no difference)\s*$", re.IGNORECASE)
#: "x1.5", "× 1.5": the factor written with its sign first, read as "1.5".
_LEADING_TIMES = re.compile(r"^\s*[x×]\s*(?=\d)", re.IGNORECASE)

#: "50% longer": the run time's increase, which the key's "how much longer the run takes" hint
#: answers; read as a unit it was "unknown unit '% longer'" (review 46k1, key 1, item 2).
_LONGER = re.compile(r"(%|\bpercent)\s+longer\s*$", re.IGNORECASE)
_NO_LONGER = re.compile(r"^\s*0+(?:\.0*)?\s*(?:%|percent)\s+longer\s*$", re.IGNORECASE)
_TIMES_AS_LONG = re.compile(r"(x|×|\btimes)\s+(?:longer|as\s+long|as\s+slow)\s*$", re.IGNORECASE)
_LONGER_HINT = ("that is how much longer the run takes, as a share of the old time; the question "
                "asks old rate / new rate, as a factor of 1 or more (a percentage here is the "
                "share of the rate lost)")

#: The slowdown's ±2%, its edge included (review 15e, 4): 1.47 for 1.5 sits on the edge, and
#: "32%" (1 / 0.68 = 1.4706) inside it; without the margin, rounding in the subtraction refused
#: 1.47 alone. Both forms are graded by this one rule on the factor.
_SLOWDOWN_RTOL = DEFAULT_RTOL * (1 + 1e-9)


def _check_slowdown(answer, key: float, question: str, mistakes) -> Check:
    """Old rate / new rate, as a factor; a percentage is read as the share of the rate lost
    ("33%": the new rate is 67% of the old, so old / new = 1 / (1 - 0.33)), the figure the
    model conclusion quotes."""
    if isinstance(answer, str):
        # "0% longer" is no change; "1.5x longer", "1.5x as long", "1.5 times as slow": the run
        # time's factor, new time / old time, which is old rate / new rate
        answer = _NO_LONGER.sub("1", answer)
        answer = _TIMES_AS_LONG.sub(r"\1", answer)
    if isinstance(answer, str) and _LONGER.search(answer):
        return Check(question, "fail", f"{answer.strip()!r}: {_LONGER_HINT}")
    if isinstance(answer, str):
        # review 40k1, key 1, item 3: "1.5x slower" reads as "1.5x" (old rate / new rate)
        answer = _SLOWER.sub(r"\1", answer)
        answer = _NO_CHANGE.sub("1", answer)
        answer = _LEADING_TIMES.sub("", answer)
    if not (isinstance(answer, str) and _PERCENT.search(answer.strip())):
        return check_number(answer, key, question, unit="x", rtol=_SLOWDOWN_RTOL, mistakes=mistakes,
                            factor_hints=False)

    def grade() -> Check:
        # "-33%" is the same answer written as a change of rate
        loss = abs(read_number(answer, question, "fraction"))
        if loss >= 1:
            return Check(question, "fail", f"read {answer.strip()!r} as the share of the rate lost, "
                                           "which lies from 0% (no change) to under 100%; the "
                                           "question asks for old rate / new rate, as a factor")
        factor = 1 / (1 - loss)
        slips = list(mistakes)
        if 1 < key < 2:
            # "50% slower" for run time x 1.5: the everyday reading, which this exercise does not use
            slips.append((1 / (2 - key), f"{(key - 1):.0%} is how much longer the run takes; this "
                                         "exercise reads a percentage as the share of the rate "
                                         "lost, which is less: 1 - new rate / old rate"))
        if key > 1:
            # review 15e, 2: "66.7%", the new rate as a share of the old, read as a loss
            slips.append((key / (key - 1), f"{1 / key:.1%} is the new rate as a share of the old; "
                                           "this exercise reads a percentage as the share of the "
                                           "rate lost: 1 - new rate / old rate"))
        inner = check_number(factor, key, question, unit="x", rtol=_SLOWDOWN_RTOL, mistakes=slips,
                             factor_hints=False)
        reading = (f"read as a loss of {loss:.0%} of the rate, old / new = 1 / (1 - {loss:g}) "
                   f"= {factor:.3g}x")
        if inner.passed:
            return Check(question, "pass", f"correct, {reading} (within ±2%)")
        return Check(question, "fail", f"{reading}: {inner.message}")

    return guarded(question, grade)


def check_slowdowns(slowdown_20, slowdown_80):
    """Old rate / new rate for each kernel (1 means no change); a percentage is a loss."""
    before, after = BANDWIDTHS_GBPS
    checks = []
    for intensity, answer in zip(INTENSITIES, (slowdown_20, slowdown_80)):
        key = attainable_gflops(intensity, PEAK_GFLOPS, before) / attainable_gflops(intensity, PEAK_GFLOPS, after)
        # "0" for no change (review 10a, K-2): a ratio of rates is 1 then
        mistakes = [(0.0, "old rate / new rate is 1 when nothing changes, not 0")]
        if key != before / after:
            mistakes.append((before / after, "that is how much the bandwidth fell; does this "
                                              "kernel feel it?"))
        if key != 1:
            mistakes.append((1 / key, "you gave new rate / old rate; the question asks old "
                                      "rate / new rate, which is 1 or more"))
            mistakes.append((key - 1, "that is how much longer the run takes, as a fraction of "
                                      "the old time; the question asks old rate / new rate, "
                                      "which is 1 or more"))
            # review 15e, 2: a bare share of the rate lost, 0.33 for 33%
            mistakes.append((1 - 1 / key, "a share of the rate lost? Write it with %, as "
                                          f"'{1 - 1 / key:.0%}'; as a bare number the question "
                                          "asks old rate / new rate, which is 1 or more"))
            # review 56k1 (key 1, item 3): the same share in percent, without its % sign
            mistakes.append((100 * (1 - 1 / key), "a share of the rate lost, in percent? Write it "
                                                  f"with %, as '{1 - 1 / key:.0%}'; as a bare number "
                                                  "the question asks old rate / new rate, which is "
                                                  "1 or more"))
        checks.append(_check_slowdown(answer, key, f"slowdown of the {intensity:g} FLOP/byte kernel",
                                      mistakes))
    return report("What the bandwidth drop costs", *checks)


def prediction_table(tflops_20_at_3, tflops_80_at_3, tflops_20_at_2, tflops_80_at_2,
                     roof_20_at_3, roof_80_at_3, roof_20_at_2, roof_80_at_2) -> Table:
    """The student's own table: predicted rates and active roofs, a dash where unanswered."""
    rows = (
        ("20", "3 TB/s", tflops_20_at_3, roof_20_at_3),
        ("80", "3 TB/s", tflops_80_at_3, roof_80_at_3),
        ("20", "2 TB/s", tflops_20_at_2, roof_20_at_2),
        ("80", "2 TB/s", tflops_80_at_2, roof_80_at_2),
    )
    return Table(("FLOP/byte", "bandwidth", "predicted TFLOP/s", "active roof"), rows,
                 title="Your predictions")


# --- the figure -------------------------------------------------------------------------------

def _slope_of(trace) -> float:
    x, y = list(trace.x), list(trace.y)
    return y[0] / x[0]


def _near(value, target: float) -> bool:
    return value is not None and abs(value - target) <= 0.02 * target


_HOVER_RIDGE = re.compile(r"ridge ([0-9.eE+-]+) FLOP/byte\)")


def _hover(trace) -> str:
    return " ".join(str(h) for h in (trace.hovertext or ()))


def _hover_ridge(trace):
    """The ridge of the roofline a kernel's hover verdict was taken against, in FLOP/byte."""
    match = _HOVER_RIDGE.search(_hover(trace))
    try:
        return float(match.group(1)) if match else None
    except ValueError:
        return None


def _judged_on(trace, memory_roofs: dict):
    """The name of the memory ceiling a kernel's hover verdict was taken against (the hover text
    reads "(compute vs memory, ridge ...)"), or None; the longest name that fits wins."""
    text = _hover(trace)
    names = [name for name in memory_roofs if f" vs {name}, ridge " in text]
    return max(names, key=len) if names else None


def _ceiling_target(bandwidth: float, memory_roofs: dict) -> str:
    """What a point on the ``bandwidth`` roof needs: memory_ceiling set to that roof's name."""
    own = [n for n, slope in memory_roofs.items() if _near(slope, bandwidth)]
    if own:
        return f"memory_ceiling={own[0]!r}, your {bandwidth / 1000:g} TB/s ceiling"
    return f"a memory_ceiling that names your {bandwidth / 1000:g} TB/s ceiling"


def _coincident_hint(bandwidth: float, intensity: float, memory_roofs: dict) -> str:
    """A point missing because it coincides with the other bandwidth's (review 15a, case 1): the
    one point drawn there is judged against the other roof, so "re-judge it" would loop."""
    other = next(b for b in BANDWIDTHS_GBPS if b != bandwidth)
    return (f"no point for {_case_name(intensity, bandwidth)}: it coincides with the one at "
            f"{other / 1000:g} TB/s, but draw it too, as a fourth point, judged against your "
            f"{bandwidth / 1000:g} TB/s roof ({_ceiling_target(bandwidth, memory_roofs)})")


#: A TiB is 2**40 bytes, 1.0995 TB: a bandwidth typed in TiB/s, or converted to it, is off by that.
_TIB_PER_TB = 2 ** 40 / 1e12


def _meant_for(bandwidth: float, kernels, memory_roofs: dict):
    """The memory ceiling drawn for ``bandwidth`` at a wrong value, when that can be told: the
    other bandwidth's roof is drawn and this one is not (in GB/s or TB/s), and of the ceilings
    left once one at the other bandwidth is set aside (the default one first) exactly one
    remains.  Where two ceilings share the other bandwidth's value (one copied from the other),
    the copy is the one the points drawn at this bandwidth's own prediction are judged against,
    when none drawn at the other's prediction is, else the one set aside last when a point names
    it and none at the other's prediction does.  Returns its name, or None."""
    other = next(b for b in BANDWIDTHS_GBPS if b != bandwidth)
    slopes = memory_roofs.values()
    if (any(_near(s, bandwidth) or _near(s, bandwidth / 1000) for s in slopes)
            or not any(_near(s, other) for s in slopes)):
        return None
    at_other = [n for n, s in memory_roofs.items() if _near(s, other)]
    kept = next((n for n in memory_roofs if n in at_other), None)  # the default one first
    rest = [n for n in memory_roofs if n != kept]
    if len(rest) != 1:
        return None
    name = rest[0]
    if not _near(memory_roofs[name], other):
        return name
    # a copy: read which of the two the points put at this bandwidth
    own, others = set(), set()
    for intensity in INTENSITIES:
        rates = {b: attainable_gflops(intensity, PEAK_GFLOPS, b) for b in BANDWIDTHS_GBPS}
        if _near(rates[bandwidth], rates[other]):
            continue  # coincident predictions tell the two cases apart by nothing
        for t in kernels:
            judged = _judged_on(t, memory_roofs)
            if judged in at_other and _near(t.x[0], intensity):
                if _near(t.y[0], rates[bandwidth]):
                    own.add(judged)
                elif _near(t.y[0], rates[other]):
                    others.add(judged)
    meant = own - others
    if len(meant) == 1:
        return meant.pop()
    # else the copy, when a point names it (one of the coincident ones) and none at the other's
    # own prediction does
    if name not in others and any(_judged_on(t, memory_roofs) == name for t in kernels):
        return name
    return None


def _value_hint(name: str, slope: float, bandwidth: float) -> str:
    """A memory ceiling drawn for ``bandwidth`` at the wrong value: its name, its value, the
    value the case states, and the likely slip (TiB for TB, 1,024 GB per TB, a copied value)."""
    tbs = f"{bandwidth / 1000:g}"
    hint = (f"your {name!r} ceiling is at {slope:,.0f} GB/s, not the {bandwidth:,.0f} GB/s "
            f"({tbs} TB/s) the case states")
    other = next(b for b in BANDWIDTHS_GBPS if b != bandwidth)
    ratio = slope / bandwidth

    def fits(factor):
        return abs(ratio - factor) <= 0.005 * factor

    if _near(slope, other):
        hint += (f": that is your {other / 1000:g} TB/s ceiling's value, copied from it? Set "
                 f"{name!r} to {bandwidth:_.0f}")
    elif fits(_TIB_PER_TB):
        hint += (f": TiB for TB? {tbs} TiB/s is {bandwidth * _TIB_PER_TB:,.0f} GB/s, and {tbs} TB/s "
                 f"is {bandwidth:,.0f} GB/s: write {bandwidth:_.0f}")
    elif fits(1 / _TIB_PER_TB):
        hint += (f": TiB for TB? {tbs} TB/s is {bandwidth / 1000 / _TIB_PER_TB:.3g} TiB/s, but a "
                 f"memory Ceiling's value is in GB/s: write {bandwidth:_.0f}")
    elif fits(1.024):
        hint += f": 1,024 GB per TB? A TB is 1,000 GB: write {bandwidth:_.0f}"
    return hint


def _wrong_roof_hint(bandwidth: float, cases: list, used, memory_roofs: dict, meant=None) -> str:
    """Points that belong on the ``bandwidth`` roof but are judged against the other one, ``used``
    (a ceiling's name, None when the hover names none drawn); ``memory_roofs`` is in drawing
    order, so its first name is the one a point without memory_ceiling gets."""
    other = next(b for b in BANDWIDTHS_GBPS if b != bandwidth)
    default = next(iter(memory_roofs), None)
    plural = len(cases) > 1
    roof = f"your {other / 1000:g} TB/s roof" + (f" ({used!r})" if used is not None else "")
    if used is not None:
        roof += (", the one a point without memory_ceiling gets" if used == default
                 else ", the one its memory_ceiling names")
    target = _ceiling_target(bandwidth, memory_roofs)
    if meant is not None:
        # its ceiling is drawn, at a wrong value that a hint of its own names
        target = f"memory_ceiling={meant!r}, your {bandwidth / 1000:g} TB/s ceiling once its value is right"
    elif not any(_near(slope, bandwidth) for slope in memory_roofs.values()):
        # Review 26k1 K1-2: the roof is not drawn (roofline_figure's memory= can leave it out),
        # so a point whose memory_ceiling already names it is judged against the default roof
        # too: the fix is to draw the ceiling, and name it where a point does not yet (review
        # 36k1 K1-2: the target says both, so no clause about such a point, which may not exist)
        target = (f"a memory_ceiling that names your {bandwidth / 1000:g} TB/s ceiling, if it has "
                  f"none, and draw that ceiling in the figure (roofline_figure's memory= argument "
                  f"can leave it out)")
    hint = (f"the point{'s' if plural else ''} for {' and '.join(cases)} "
            f"{'are' if plural else 'is'} judged against {roof}: give {'each' if plural else 'it'} "
            f"{target}")
    # A point without memory_ceiling is judged against "dram": renaming the 3 TB/s ceiling to it
    # also fixes the 3 TB/s points, when no ceiling has that name yet.
    if bandwidth == BANDWIDTHS_GBPS[0] and used == default and "dram" not in memory_roofs:
        hint += ', or name that ceiling "dram"'
    return hint


def _off_its_prediction(kernels, intensity: float, rate: float, bandwidth: float,
                        memory_roofs: dict) -> list:
    """The rates of points drawn at ``intensity`` and judged against the ``bandwidth`` roof but
    not at its prediction ``rate`` (review 16a: such a point is the fourth point, at the wrong
    height, so "draw it too" would send the student to add a point they have)."""
    rates = []
    for t in kernels:
        name = _judged_on(t, memory_roofs)
        if (_near(t.x[0], intensity) and not _near(t.y[0], rate) and name is not None
                and _near(memory_roofs[name], bandwidth)):
            rates.append(t.y[0])
    return rates


#: The unit a rate sits in when it reads that many times the GFLOP/s it should be.
_ABOVE_UNITS = {1e3: "MFLOP/s", 1e9: "FLOP/s"}


def _unit_factor_above(off_prediction) -> "float | None":
    """The factor (1e3 or 1e9) by which every point off its prediction sits above it, when all
    of the exercise's points are and share one factor; else None."""
    if len(off_prediction) != len(BANDWIDTHS_GBPS) * len(INTENSITIES):
        return None
    ratios = [drawn / attainable_gflops(intensity, PEAK_GFLOPS, bandwidth)
              for bandwidth, intensity, drawn in off_prediction]
    return next((f for f in _ABOVE_UNITS if all(_near(r, f) for r in ratios)), None)


def _off_prediction_hint(bandwidth: float, intensity: float, drawn: float) -> str:
    rate = attainable_gflops(intensity, PEAK_GFLOPS, bandwidth)
    hint = (f"the point for {_case_name(intensity, bandwidth)} sits at {drawn:,.0f} GFLOP/s, but its "
            f"prediction is min(P, I x B) = {rate:,.0f} GFLOP/s")
    other = next(b for b in BANDWIDTHS_GBPS if b != bandwidth)
    if drawn > rate and _near(rate, PEAK_GFLOPS):
        hint += ": cap it at the compute roof"
    elif _near(drawn, attainable_gflops(intensity, PEAK_GFLOPS, other)):
        hint += (f": that is the prediction at {other / 1000:g} TB/s; use this point's own "
                 f"bandwidth")
    return hint


def _swapped(off_prediction, memory_roofs: dict) -> tuple:
    """Review 44k1 (key 1, item 3): the two points at one intensity, each at the other bandwidth's
    prediction, are one slip (their memory_ceilings swapped), not two points at the wrong height.
    Returns (the hints for the swapped pairs, the off_prediction entries left)."""
    hints, left = [], list(off_prediction)
    for intensity in INTENSITIES:
        pair = [(b, i, drawn) for b, i, drawn in off_prediction if i == intensity
                and _near(drawn, attainable_gflops(intensity, PEAK_GFLOPS,
                                                   next(o for o in BANDWIDTHS_GBPS if o != b)))]
        if len(pair) != len(BANDWIDTHS_GBPS):
            continue
        left = [entry for entry in left if entry not in pair]
        names = {b: next((n for n, slope in memory_roofs.items() if _near(slope, b)), None)
                 for b in BANDWIDTHS_GBPS}
        judged = "; ".join(
            f"the one at {drawn:,.0f} GFLOP/s (the {next(o for o in BANDWIDTHS_GBPS if o != b) / 1000:g} "
            f"TB/s prediction) is judged against your {b / 1000:g} TB/s ceiling"
            + (f" ({names[b]!r})" if names[b] else "") for b, _, drawn in pair)
        hints.append(f"the two points at {intensity:g} FLOP/byte have their memory ceilings swapped: "
                     f"{judged}: swap their memory_ceiling")
    return hints, left


def _coincides(intensity: float, drawn: int) -> bool:
    """True when the predictions for ``intensity`` at the two bandwidths are one point and fewer
    points than cases are drawn there: the other case took the one point, so this one is missing."""
    rates = [attainable_gflops(intensity, PEAK_GFLOPS, b) for b in BANDWIDTHS_GBPS]
    return all(_near(r, rates[0]) for r in rates) and drawn < len(BANDWIDTHS_GBPS)


def _above_the_roofs(kernels, off_prediction) -> list:
    """Review 27k1 K1-1: a point drawn above the roofs (the compute roof, or the faster bandwidth
    roof at its intensity) is a counting error wherever it sits, an extra fifth point included.
    Points already named as off their prediction (uncapped, say) have their own hint."""
    problems = []
    for t in kernels:
        x, y = (t.x[0] if len(t.x) else None), (t.y[0] if len(t.y) else None)
        if x is None or y is None or not (x > 0):
            continue
        roof = min(PEAK_GFLOPS, x * max(BANDWIDTHS_GBPS))
        if y <= roof * 1.02:
            continue
        if any(_near(x, intensity) and _near(y, drawn) for _, intensity, drawn in off_prediction):
            continue
        which = ("the compute roof" if roof == PEAK_GFLOPS else
                 f"the {max(BANDWIDTHS_GBPS) / 1000:g} TB/s bandwidth roof")
        problems.append(f"a point at {x:.3g} FLOP/byte is drawn at {y:,.0f} GFLOP/s, above {which} "
                        f"({roof:,.0f} GFLOP/s there): no kernel runs above its roof; draw only the "
                        f"four cases, each at its prediction")
    return problems


def _extras(roofs, slopes, kernels) -> list:
    """Review 28k1 K1-1: what the figure holds beyond one compute ceiling, two memory ceilings
    and four points, named in one line (called once everything asked for is there)."""
    extra = []
    others = [r for r in roofs if not _near(r, PEAK_GFLOPS)]
    if len(roofs) > 1:
        extra.append("a compute ceiling at " + " and ".join(f"{r:,.0f}" for r in (others or roofs[1:]))
                     + " GFLOP/s")
    others = [s for s in slopes if not any(_near(s, b) for b in BANDWIDTHS_GBPS)]
    if len(slopes) > len(BANDWIDTHS_GBPS):
        extra.append("a memory ceiling at " + " and ".join(f"{s:,.0f}" for s in
                                                           (others or slopes[len(BANDWIDTHS_GBPS):]))
                     + " GB/s")
    if len(kernels) > len(BANDWIDTHS_GBPS) * len(INTENSITIES):
        stray = [t for t in kernels if not any(
            _near(t.x[0], i) and _near(t.y[0], attainable_gflops(i, PEAK_GFLOPS, b))
            for i in INTENSITIES for b in BANDWIDTHS_GBPS)]
        extra.append(" and ".join(f"a point at {t.x[0]:.3g} FLOP/byte, {t.y[0]:,.0f} GFLOP/s" for t in stray)
                     if stray else f"{len(kernels) - len(BANDWIDTHS_GBPS) * len(INTENSITIES)} point(s) "
                                   "more than the four cases")
    if not extra:
        return []
    # Review 40k1 K1-2: the page asks for exactly these (cells 0 and 10 say so), so an extra
    # point below the roofs is refused by what the page says, not by an unstated rule.
    return ["the figure holds more than the page asks (exactly one compute ceiling, two memory "
            "ceilings and four points): remove " + "; ".join(extra)]


def _unknown_ceiling(points, memory_roofs: dict):
    """Review 36k1 K1-1: a point whose memory_ceiling names no memory ceiling the figure draws
    ("dram2" for "dram-2tbs") is judged against the default roof without a word from
    roofline_figure; the figure does not record the name asked for, so it is read off the points.
    One line naming the field and the valid names, or None."""
    if points is None or is_unanswered(points) or isinstance(points, (str, bytes)):
        return None
    try:
        points = list(points)
    except TypeError:
        return None
    for point in points:
        name = getattr(point, "memory_ceiling", None)
        if isinstance(name, str) and name not in memory_roofs:
            valid = " or ".join(repr(n) for n in memory_roofs)
            return (f"memory_ceiling={name!r} (point {getattr(point, 'name', '?')!r}) names no memory "
                    f"ceiling of your figure: use {valid}")
    return None


def check_figure(figure, points=None):
    """The figure must hold the 120 TFLOP/s roof, both bandwidth roofs and all four points;
    ``points``, the KernelPoints drawn, lets it refuse a memory_ceiling that names no ceiling."""
    question = "the roofline figure"

    def grade() -> Check:
        if is_unanswered(figure):
            raise NotAnsweredError()
        if figure is None:
            raise AnswerError("the figure is None: assign the figure that roofline_figure returns")
        data = getattr(figure, "data", None)
        if data is None or not hasattr(figure, "layout"):
            raise AnswerError(f"expected a Plotly figure from rooflinelib.views.plotting.roofline_figure, "
                              f"got a {type(figure).__name__}")
        metas = [str(getattr(t, "meta", "")) for t in data]
        if not any(m.startswith(("roof:", "mem:", "kernel:")) for m in metas):
            raise AnswerError("this figure has no roofline traces: build it with "
                              "rooflinelib.views.plotting.roofline_figure")
        problems = []
        roofs = [t.y[0] for t, m in zip(data, metas) if m.startswith("roof:")]
        if any(_near(r, PEAK_GFLOPS / 1000) for r in roofs) and not any(_near(r, PEAK_GFLOPS) for r in roofs):
            problems.append(f"your compute roof is at {PEAK_GFLOPS / 1000:g} GFLOP/s: a compute "
                            f"Ceiling's value is in GFLOP/s, so {PEAK_GFLOPS / 1000:g} TFLOP/s is "
                            f"{PEAK_GFLOPS:_.0f}")
        elif not any(_near(r, PEAK_GFLOPS) for r in roofs):
            problems.append("the compute roof is missing or not at the given peak (the y axis is "
                            "in GFLOP/s)")
        slopes = [_slope_of(t) for t, m in zip(data, metas) if m.startswith("mem:")]
        kernels = [t for t, m in zip(data, metas) if m.startswith("kernel:")]
        memory_roofs = {m[len("mem:"):]: _slope_of(t) for t, m in zip(data, metas) if m.startswith("mem:")}
        # Review 56k1 (key 1, item 1): a bandwidth's ceiling drawn at a wrong value (2,200 for
        # 2 TB/s, or the other's 3,000 copied) is named with its value; the points judged against
        # it are then that ceiling's problem, not a memory_ceiling missing or ignored.
        meant = {b: _meant_for(b, kernels, memory_roofs) for b in BANDWIDTHS_GBPS}
        for bandwidth in BANDWIDTHS_GBPS:
            tbs = f"{bandwidth / 1000:g}"
            if any(_near(s, bandwidth) for s in slopes):
                continue
            if meant[bandwidth] is not None:
                problems.append(_value_hint(meant[bandwidth], memory_roofs[meant[bandwidth]], bandwidth))
                continue
            if any(_near(s, bandwidth / 1000) for s in slopes):
                problems.append(f"your memory roof is at {tbs} GB/s: a memory Ceiling's value is in "
                                f"GB/s, so {tbs} TB/s is {bandwidth:_.0f}")
            else:
                problems.append(f"no memory roof at {tbs} TB/s (the slope is GB/s)")
        # Only once both bandwidth roofs are drawn: a point naming a ceiling left out of the
        # figure is the missing roof's problem, named above.
        unknown = None if problems else _unknown_ceiling(points, memory_roofs)
        if unknown:
            return Check(question, "fail", unknown)
        ceiling_problem = bool(problems)
        missing, thousandfold = [], 0
        coincident = []   # (bandwidth, intensity): its one point there is the other case's
        off_prediction = []  # (bandwidth, intensity, drawn rate): the point, at the wrong height
        wrong_roof = {}   # (right bandwidth, roof used) -> cases: judged against the other bandwidth
        off_ridge = []    # (case, hover ridge): judged against neither key's roofline
        for bandwidth in BANDWIDTHS_GBPS:
            other = next(b for b in BANDWIDTHS_GBPS if b != bandwidth)
            for intensity in INTENSITIES:
                rate = attainable_gflops(intensity, PEAK_GFLOPS, bandwidth)
                at = [t for t in kernels if _near(t.x[0], intensity) and _near(t.y[0], rate)]
                case = _case_name(intensity, bandwidth)
                if not at:
                    # Review 26k1 K1-1: a point judged against this roof but drawn at the wrong
                    # height (the other bandwidth's rate, I x B uncapped) hears which slip
                    elsewhere = _off_its_prediction(kernels, intensity, rate, bandwidth, memory_roofs)
                    if elsewhere and not any(_near(y, rate / 1000) for y in elsewhere):
                        off_prediction.append((bandwidth, intensity, elsewhere[0]))
                        continue
                    missing.append(case)
                    thousandfold += any(_near(t.x[0], intensity) and _near(t.y[0], rate / 1000)
                                        for t in kernels)
                    continue
                if any(_near(_hover_ridge(t), ridge(PEAK_GFLOPS, bandwidth)) for t in at):
                    continue
                # Which bandwidth roof it was judged on: the slope of the memory ceiling its hover
                # names, or, when it names none drawn, its ridge (review 11a, K-01-1: the ridge
                # alone blamed the bandwidth roof for a compute roof typed in TFLOP/s).  Points
                # may coincide (80 FLOP/byte at either bandwidth), so any of them may be this one.
                used = [_judged_on(t, memory_roofs) for t in at]
                if meant[bandwidth] is not None and meant[bandwidth] in used:
                    continue  # judged against its ceiling, whose value is named above
                used_slopes = [memory_roofs[n] for n in used if n is not None]
                elsewhere = _off_its_prediction(kernels, intensity, rate, bandwidth, memory_roofs)
                if elsewhere and not any(_near(slope, bandwidth) for slope in used_slopes):
                    off_prediction.append((bandwidth, intensity, elsewhere[0]))
                    continue
                if any(_near(slope, bandwidth) for slope in used_slopes):
                    off_ridge.append((case, _hover_ridge(at[0])))
                elif any(_near(slope, bandwidth / 1000) for slope in used_slopes):
                    # a point names this bandwidth's ceiling, typed in TB/s: the unit problem above
                    # is the fault, not its memory_ceiling (review 19g1, 1)
                    continue
                elif any(_near(slope, other) for slope in used_slopes) and _coincides(intensity, len(at)):
                    coincident.append((bandwidth, intensity))
                elif any(_near(slope, other) for slope in used_slopes):
                    name = next(n for n in used if n is not None and _near(memory_roofs[n], other))
                    wrong_roof.setdefault((bandwidth, name), []).append(case)
                elif (not used_slopes and any(_near(_hover_ridge(t), ridge(PEAK_GFLOPS, other)) for t in at)
                      and _coincides(intensity, len(at))):
                    coincident.append((bandwidth, intensity))
                elif not used_slopes and any(_near(_hover_ridge(t), ridge(PEAK_GFLOPS, other)) for t in at):
                    wrong_roof.setdefault((bandwidth, None), []).append(case)
                else:
                    off_ridge.append((case, _hover_ridge(at[0])))
        if missing and thousandfold == len(missing):
            problems.append("your points sit 1,000 times below the predictions: achieved_gflops is "
                            "in GFLOP/s, so multiply your TFLOP/s by 1000")
        else:
            problems += [f"no point at the prediction for {case}" for case in missing]
        problems += [_coincident_hint(bandwidth, intensity, memory_roofs) for bandwidth, intensity in coincident]
        # Review 53k1 (key 1, item 1): every point the same power of 1,000 above its prediction is
        # one unit slip (MFLOP/s or FLOP/s typed into achieved_gflops), not four missing caps.
        above = _unit_factor_above(off_prediction) if not missing else None
        if above is not None:
            problems.append(f"your points sit {above:,.0f} times above the predictions: achieved_gflops "
                            f"is in GFLOP/s, so divide your {_ABOVE_UNITS[above]} by {above:,.0f}")
        swapped, unswapped = _swapped(off_prediction if above is None else [], memory_roofs)
        problems += swapped
        problems += [_off_prediction_hint(bandwidth, intensity, drawn)
                     for bandwidth, intensity, drawn in unswapped]
        problems += [_wrong_roof_hint(bandwidth, cases, used, memory_roofs, meant[bandwidth])
                     for (bandwidth, used), cases in wrong_roof.items()]
        problems += _above_the_roofs(kernels, off_prediction)
        # A ridge that is neither key's comes from a roof at the wrong value, which the checks
        # above name when it is the compute roof or a bandwidth roof; otherwise say where to look.
        if off_ridge and not ceiling_problem:
            for unread in (False, True):
                group = [case for case, r in off_ridge if (r is None) == unread]
                if not group:
                    continue
                which = f"the hover text of the point{'s' if len(group) > 1 else ''} for {' and '.join(group)}"
                if unread:  # a hover text the student replaced: there is no verdict to read
                    problems.append(f"{which} names no ridge: keep the hover text roofline_figure writes")
                    continue
                seen = sorted({r for case, r in off_ridge if case in group})
                keys = " nor ".join(f"{ridge(PEAK_GFLOPS, b):g}" for b in BANDWIDTHS_GBPS)
                problems.append(f"{which} gives a ridge of {' and '.join(f'{r:.3g}' for r in seen)} "
                                f"FLOP/byte, neither {keys}: check the values and units (GFLOP/s, GB/s) "
                                f"of the ceilings named there; a point is judged against the compute "
                                f'ceiling named "fp32" if there is one, else the first you listed')
        if not problems:
            # Review 28k1 K1-1: the page asks for one compute ceiling, two memory ceilings and
            # four points; a stray extra (below the roofs too) is not "this GPU"
            problems += _extras(roofs, slopes, kernels)
        if problems:
            return Check(question, "fail", "; ".join(problems))
        return Check(question, "pass", "both bandwidth roofs, the compute roof and all four "
                                       "predictions are on it")

    return guarded(question, grade)


def model_conclusion(conclusion):
    """The model conclusion, once the student has written their own."""
    before, after = BANDWIDTHS_GBPS
    low, high = INTENSITIES
    r_before, r_after = ridge(PEAK_GFLOPS, before), ridge(PEAK_GFLOPS, after)
    rate = {(i, b): attainable_gflops(i, PEAK_GFLOPS, b) / 1000 for i in INTENSITIES
            for b in BANDWIDTHS_GBPS}
    text = (f"At {before / 1000:g} TB/s the ridge is {r_before:g} FLOP/byte: the {low:g} FLOP/byte "
            f"kernel sits left of it under the bandwidth roof at {rate[low, before]:g} TFLOP/s, "
            f"and the {high:g} FLOP/byte kernel sits right of it under the compute roof at "
            f"{rate[high, before]:g} TFLOP/s. When bandwidth falls to {after / 1000:g} TB/s the "
            f"ridge moves right to {r_after:g}. The {low:g} FLOP/byte kernel stays on the bandwidth "
            f"roof and loses {1 - rate[low, after] / rate[low, before]:.0%} of its rate, down to "
            f"{rate[low, after]:g} TFLOP/s; the "
            f"{high:g} FLOP/byte kernel is still right of the new ridge, so the compute roof "
            f"stays active and its prediction does not change. Only a kernel whose active roof "
            f"after the drop is the bandwidth roof feels it: here the {low:g} FLOP/byte kernel. "
            f"A kernel between the old and the new ridge ({r_before:g} to {r_after:g} FLOP/byte) "
            f"would switch from the compute roof to the bandwidth roof and slow down too.")
    return reveal(conclusion, text, "the conclusion",
                  key_points=("name the active roof in all four cases",
                              "the ridge moves right when bandwidth falls",
                              "a kernel slows down only if it is left of the new ridge"))
