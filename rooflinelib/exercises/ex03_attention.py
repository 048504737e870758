"""Exercise 3: the arithmetic intensity of attention, fused and unfused.

One head, sequence length ``s``, head dimension ``d``, bf16.  The keys come from
:func:`rooflinelib.core.operators.attention` and its helpers; the student's formulas are Python
functions checked at several ``(s, d)`` points.
"""
from __future__ import annotations

import math
import re

from rooflinelib.core import operators as ops
from rooflinelib.exercises.grading import (BOTH_HINT, DEFAULT_RTOL, SIDES, AnswerError, Check, Choices,
                                           NotAnsweredError, Table, YES_NO, without_bare_both,
                                           check_choice, check_function, check_number, check_side,
                                           guarded, is_unanswered, read_number, report, reveal,
                                           run_student)
from rooflinelib.core.machines import H200, MI300X
from rooflinelib.core.vocabulary import BF16_TENSOR

DTYPE = "bf16"
HEAD_DIM = 128
SEQ_LEN = 8192  # the sequence length of parts B and D
GQA_GROUP = 8  # query heads per KV head in part D

#: (s, d) points at which the student's functions are compared with the key.  Small d makes
#: the softmax's 5 FLOPs per score visible next to the 4d of the two GEMMs: at d = 4 one FLOP
#: per score is 1/21 = 4.8% of the count, past the 2% tolerance, so 4 or 6 per score fail and
#: get their hint (review 19k1 K3-1: at d = 16 alone, 1/69 = 1.4%, they passed).
SAMPLES = (dict(s=512, d=16), dict(s=1024, d=64), dict(s=8192, d=128), dict(s=3000, d=256),
           dict(s=100, d=128), dict(s=256, d=4))

GROWTH = Choices({
    # Review 19g1 K3-1: each option's own description, and the near phrasings, are synonyms.
    "constant": ("tends to a constant", ("converges", "saturates", "flat", "bounded", "const",
                                         "plateaus", "levels off", "o(1)", "constant in s",
                                         "tends to a constant", "approaches a constant",
                                         "constant (about d/2)", "constant about d/2",
                                         # the limit named without "about": "constant (d/2)"
                                         "constant d/2", "constant ~d/2", "approaches d/2",
                                         "tends to d/2", "converges to d/2", "levels off at d/2",
                                         "approaches about d/2", "tends to about d/2",
                                         "goes to a constant", "converges to a constant",
                                         # review 53k1 K3-2: a plateau, an asymptote
                                         "plateau", "plateaus at d/2", "plateau at d/2",
                                         "asymptotes", "asymptotic", "asymptotes to d/2",
                                         "asymptotes to a constant", "constant ~ d/2",
                                         "d/2", "~d/2", "~ d/2", "about d/2")),
    # Review 7b K3-1: no bare "grows", which a quadratic answer fits as well.
    "linear": ("grows in proportion to s", ("grows linearly", "proportional", "linearly",
                                            "o(s)", "proportional to s",
                                            "in proportion to s", "linear in s",
                                            "grows in proportion to s", "linear growth",
                                            "grows proportionally to s",
                                            # review 46k1, key 3, item 2: "increases linearly"
                                            "increases linearly", "increases linearly with s",
                                            "grows linearly with s", "rises linearly",
                                            "linearly increasing", "linear increase",
                                            # review 53k1 K3-2: the word order turned, and the
                                            # fused intensity written as its growth (about s/2)
                                            "linearly with s", "grows with s linearly",
                                            "s/2", "~s/2", "~ s/2", "about s/2", "like s/2",
                                            "grows like s/2",
                                            # s to the first power, in the page's own idiom
                                            # ("grows like s squared" is the quadratic option)
                                            "grows like s", "goes like s", "grows as s",
                                            "like s", "~s", "~ s", "increases like s",
                                            "scales like s", "scales linearly",
                                            "scales linearly with s", "grows linearly in s",
                                            "linearly in s", "proportional to sequence length",
                                            "linear in sequence length")),
    "quadratic": ("grows like s squared", ("o(s^2)", "s squared", "squared", "quadratically",
                                           "grows like s squared", "grows like s^2",
                                           "quadratic growth", "grows quadratically")),
    # Review 19k2 (drill 7): "unbounded" was read as its near-spelling "bounded" (constant).  It
    # is right that the intensity does not level off, but it says not how fast: its own option,
    # answered by GROWTH_UNBOUNDED_HINT.
    "unbounded": ("grows without bound: say how fast", ("without bound", "grows without bound",
                                                        "does not level off", "keeps growing",
                                                        "unlimited", "infinite",
                                                        "goes to infinity",
                                                        # review 46k1, key 3, item 1: growth
                                                        # without its rate hears "how fast?"
                                                        "grows with s", "increases with s",
                                                        "grows", "increases")),
}, hidden=("unbounded",))  # the page offers three growths: "unbounded" is read for its hint only
#: Part B's menu (review 56k1, key 3, item 3): the unfused intensity rises with s and only tends
#: to its limit, so the page offers "levels off" (tends to a constant); every spelling of GROWTH's
#: "constant", the word itself included, still reads as it, and so does the page's whole label.
PART_B_GROWTH = Choices({
    "levels off": (GROWTH.options["constant"][0],
                   ("constant", *GROWTH.options["constant"][1], "levels off (tends to a constant)")),
    **{name: GROWTH.options[name] for name in GROWTH.options if name != "constant"},
}, hidden=GROWTH.hidden)
#: The hint for "unbounded" where the key is "linear" (the fused intensity).
GROWTH_UNBOUNDED_HINT = "right that it does not level off: how fast does it grow with s?"
#: The hint for "quadratic" where the key is "linear" (the fused intensity; drill 7 too).
GROWTH_QUADRATIC_HINT = "the FLOPs grow like s^2, but the bytes grow like s too"
#: The hint for "unbounded" where the key is "constant" (the unfused intensity).
GROWTH_UNBOUNDED_ON_CONSTANT = ("the unfused traffic has an s^2 term, just like the FLOPs: does "
                                "the ratio keep growing?")


def _e() -> int:
    return ops.dtype_bytes(DTYPE)


# --- Part A: FLOPs and bytes ------------------------------------------------------------------

def _flops(s, d):
    return ops.attention(s, d, fused=True, dtype=DTYPE).n_flops


def _unfused_bytes(s, d):
    return ops.attention(s, d, fused=False, dtype=DTYPE).n_bytes


def _fused_bytes(s, d):
    return ops.attention(s, d, fused=True, dtype=DTYPE).n_bytes


def check_flops(attention_flops):
    softmax = ops.SOFTMAX_FLOPS_PER_ELEMENT
    return check_function(
        attention_flops, _flops, SAMPLES, "attention FLOPs(s, d)",
        mistakes=[
            # Review 40k1 K3-1: the softmax counted per output element (c s d) is within the
            # tolerance of leaving it out at every test point, and so is a count per row (c s),
            # so one hint names all three
            (lambda s, d: _flops(s, d) - softmax * s * s,
             "the softmax is missing, or counted per row (s) or per output element (s x d): it "
             "costs a few FLOPs for every score, s x s of them (max, subtract, exp, sum, divide)"),
            # Review 10b K3-C1: the GEMMs right and the softmax miscounted (3 FLOPs per score is
            # the usual slip) differ from the key by a multiple of s^2: name the softmax
            # (review 19k1 K3-1: at c = 1 the softmax is counted as 1 FLOP, not left out)
            # Review 19g1 K3-2: 2d - 1 FLOPs per dot product (d multiplies, d - 1 adds) lands
            # on c = 3 too, so the hint names both counts, not the softmax alone
            *[(lambda s, d, c=c: 4 * s * s * d + c * s * s,
               "the s^2 term is off: check the softmax's FLOPs per score (max, subtract, exp, "
               "sum and divide, 1 each: 5 in all) and each of a dot product's d multiply-adds "
               "(2 FLOPs each: 2d per score, not 2d - 1)") for c in (1, 2, 3, 4, 6, 7, 8, 10)],
            (lambda s, d: 2 * s * s * d + softmax * s * s,
             "you have half the matrix work: there are two GEMMs (Q K^T and P V), and each "
             "multiply-add counts 2 FLOPs"),
            (lambda s, d: 2 * s * s * d,
             "you have half the matrix work, and no softmax: two GEMMs of s x s x d "
             "multiply-adds, 2 FLOPs each, plus a few FLOPs per score"),
        ])


def check_unfused_bytes(unfused_bytes):
    e = _e()
    return check_function(
        unfused_bytes, _unfused_bytes, SAMPLES, "unfused bytes(s, d)",
        mistakes=[
            (lambda s, d: _unfused_bytes(s, d) / e, "bf16 is 2 bytes per element: you counted "
                                                    "elements"),
            (lambda s, d: _unfused_bytes(s, d) * 2, "this exercise is in bf16: 2 bytes per "
                                                    "element, not 4"),
            (lambda s, d: e * (4 * s * d + 2 * s * s),
             "two s x s matrices cross HBM, the scores and the probabilities, and each is "
             "written once and read back once"),
            (lambda s, d: e * (4 * s * d + 3 * s * s),
             "count each s x s matrix: the scores are written and read back, and so are the "
             "probabilities"),
            (lambda s, d: e * 4 * s * s, "Q, K and V are read and O is written too"),
            # Review 26k1 K3-2: O left out gets its own hint, as in the fused count
            (lambda s, d: e * (3 * s * d + 4 * s * s), "the output O is written to HBM too"),
        ])


def check_fused_bytes(fused_bytes):
    e = _e()
    return check_function(
        fused_bytes, _fused_bytes, SAMPLES, "fused bytes(s, d)",
        mistakes=[
            # Review 19k1 K3-3: 4sd is elements, or two of the four s x d matrices in bytes
            (lambda s, d: _fused_bytes(s, d) / e, "bf16 is 2 bytes per element (did "
                                                  "you count elements?), and Q, K and V are read "
                                                  "and O is written: check both"),
            (lambda s, d: _fused_bytes(s, d) * 2, "this exercise is in bf16: 2 bytes per "
                                                  "element, not 4"),
            (lambda s, d: e * 3 * s * d, "the output O is written to HBM too"),
            (lambda s, d: _unfused_bytes(s, d), "that is the unfused count: a fused kernel "
                                                "keeps the s x s matrices on chip"),
            # Review 40k1 K3-3: the log-sum-exp per row (bf16 or fp32) that a training kernel
            # writes for its backward pass; the page's count is Q, K, V in and O out
            *[(lambda s, d, c=c: _fused_bytes(s, d) + c * s,
               "this count holds only Q, K and V read and O written: leave out the per-row "
               "log-sum-exp a training kernel also writes") for c in sorted({e, 4})],
        ])


def check_part_a(attention_flops, unfused_bytes, fused_bytes):
    return report("Part A: FLOPs and bytes", check_flops(attention_flops),
                  check_unfused_bytes(unfused_bytes), check_fused_bytes(fused_bytes))


def _safe_ratio(flops_function, bytes_function, s, d):
    """The student's intensity at (s, d), or None when either function is not usable yet."""
    def ratio():
        n_flops, n_bytes = flops_function(s, d), bytes_function(s, d)
        if is_unanswered(n_flops) or is_unanswered(n_bytes):
            return None
        return read_number(n_flops) / read_number(n_bytes)

    try:  # the student's code: a table of their values must never crash or hang
        return run_student(ratio, "your functions")
    except (AnswerError, NotAnsweredError):
        return None


def intensity_table(attention_flops, unfused_bytes, fused_bytes, d: int = HEAD_DIM,
                    lengths=(128, 512, 2048, 8192, 32768)) -> Table:
    """The student's own intensities at several s: a dash where their functions give nothing."""
    rows = []
    for s in lengths:
        unfused = _safe_ratio(attention_flops, unfused_bytes, s, d)
        fused = _safe_ratio(attention_flops, fused_bytes, s, d)
        rows.append((s, "—" if unfused is None else f"{unfused:.4g}",
                     "—" if fused is None else f"{fused:.4g}"))
    return Table(("s", "unfused FLOP/byte", "fused FLOP/byte"), tuple(rows),
                 title=f"Your intensities at d = {d}, {DTYPE}")


def given_machines() -> Table:
    rows = []
    for machine in (MI300X, H200):
        rows.append((machine.name, f"{machine.ceiling(BF16_TENSOR).value / 1000:g} TFLOP/s",
                     f"{machine.ceiling('dram').value / 1000:g} TB/s"))
    return Table(("GPU", "bf16 matrix peak", "HBM bandwidth"), tuple(rows),
                 title="Datasheet ceilings for Part C")


# --- Part B: the limits -----------------------------------------------------------------------

#: Review 56k1 (key 3, item 1): the unit the question itself names, FLOP/byte per token, written
#: out after the number: "0.505 FLOP/byte per token", "0.505 FLOP/B per token", "0.505 per token",
#: "0.505 FLOP/byte/token".  Only after a number or FLOP/byte (FLOP/B): "0.505 bytes per token"
#: keeps its unknown unit.
_PER_TOKEN = re.compile(r"^(?P<head>.*?(?:\d|\bflops?\s*/\s*(?:byte|b)))\s*(?:per\s+token|/\s*token)\s*$",
                        re.IGNORECASE | re.DOTALL)


def _without_per_token(answer):
    """``answer`` with a trailing "per token" or "/token" dropped where it follows the number or
    FLOP/byte; anything else as it is."""
    if isinstance(answer, str) and (match := _PER_TOKEN.match(answer)):
        return match.group("head")
    return answer


#: An option followed by a comment: "linear (grows in proportion to s)", "memory, far below the ridge".
_WITH_COMMENT = re.compile(r"^\s*(?P<head>[^(),]+?)\s*(?:\((?P<paren>[^()]*)\)|,\s*(?P<comma>[^()]+?))\s*$")
#: The constant option with its value: "levels off at about 64", "constant at ~64", "approaches 64.6".
_AT_VALUE = re.compile(r"^\s*(?P<head>.*?)\s*(?:\b(?:at|to|near|around)\b)?\s*(?:about|roughly|approximately|~|≈)?"
                       r"\s*(?P<value>\d+(?:\.\d+)?)\s*$", re.IGNORECASE)
#: The limit's own verbs, read as the constant option when a value follows them.
_LIMIT_VERBS = ("approaches", "tends", "tends to", "converges", "converges to", "saturates", "saturates at",
                "approaching", "tending to")


#: A comment naming the hidden "unbounded" ("linear (does not level off)", "linear, keeps growing")
#: says what a growing option already says: it agrees, so the option stands.
_COMMENT_AGREES = {"unbounded": ("linear", "quadratic")}


def _read_option(answer, choices: Choices, question: str, *, levels_off=None, value=None):
    """Exercise 1's reading of a choice with a comment: "<option> (<anything>)" and "<option>,
    <anything>" read as the option when the comment names no other option (one that does is
    refused, naming both); where ``levels_off`` names the constant option, "<it> at <number>" reads
    as it, and with ``value=(key, what)`` (where it is the right answer) only when the number is
    within ±2% of ``key``.  Returns the answer to grade, or a failed Check."""
    if not isinstance(answer, str):
        return answer
    try:
        choices._read(answer)
        return answer
    except AnswerError:
        pass
    paired = _WITH_COMMENT.match(answer)
    if paired:
        try:
            option = choices._read(paired.group("head"))
        except AnswerError:
            return answer
        comment = paired.group("paren") if paired.group("paren") is not None else paired.group("comma")
        if option == levels_off and (at := _AT_VALUE.match(comment)) and (
                not at.group("head") or at.group("head").strip().lower() in _LIMIT_VERBS):
            # "levels off (about 64)", "levels off, at 64": the value is read, as after "at"
            return _level_value(answer, option, float(at.group("value")), value, question)
        try:
            other = choices._read(comment)
        except AnswerError:
            return option
        if other == option or option in _COMMENT_AGREES.get(other, ()):
            return option
        return Check(question, "fail", f"{answer.strip()!r}: the words after {paired.group('head').strip()!r} "
                                       f"name {other!r}, another option: keep one")
    at = _AT_VALUE.match(answer) if levels_off else None
    if at and at.group("head"):
        head = at.group("head").strip()
        try:
            option = choices._read("constant" if head.lower() in _LIMIT_VERBS else head)
        except AnswerError:
            return answer
        if option != levels_off:
            return answer  # only the constant has a value to level off at ("grows like s2" is no reading)
        return _level_value(answer, option, float(at.group("value")), value, question)
    return answer


def _level_value(answer: str, option: str, number: float, value, question: str):
    """The constant option read with the value it levels off at: right within ±2% of ``value``'s
    key (where given: the slot whose right answer it is), refused otherwise."""
    if value is None or abs(number - value[0]) <= DEFAULT_RTOL * value[0]:
        return option
    return Check(question, "fail", f"{answer.strip()!r}: it does level off, but not at {number:g}: "
                                   f"work out {value[1]} (the next question) again")


def _graded(reading, grade) -> Check:
    """``grade(reading)``, or ``reading`` itself where it is already a verdict."""
    return reading if isinstance(reading, Check) else grade(reading)


def check_limits(unfused_growth, fused_growth, unfused_limit, fused_per_token):
    limit = ops.attention_intensity_limit(HEAD_DIM, fused=False, dtype=DTYPE)
    per_token = ops.attention(SEQ_LEN, HEAD_DIM, fused=True, dtype=DTYPE).intensity / SEQ_LEN
    return report(
        "Part B: the limits as s grows",
        _graded(_read_option(unfused_growth, PART_B_GROWTH, "unfused intensity as s grows",
                             levels_off="levels off", value=(limit, f"the limit at d = {HEAD_DIM}")),
                lambda answer: check_choice(
                    answer, "levels off", "unfused intensity as s grows", PART_B_GROWTH,
                    hints={"linear": "the unfused traffic has an s^2 term, just like the "
                                     "FLOPs: what happens to the ratio?",
                           "unbounded": GROWTH_UNBOUNDED_ON_CONSTANT,
                           "quadratic": "the intensity is a ratio: both FLOPs and bytes grow "
                                        "like s^2"})),
        _graded(_read_option(fused_growth, PART_B_GROWTH, "fused intensity as s grows",
                             levels_off="levels off"),
                lambda answer: check_choice(
                    answer, "linear", "fused intensity as s grows", PART_B_GROWTH,
                    hints={"levels off": "the fused traffic has no s^2 term, but the FLOPs do",
                           "unbounded": GROWTH_UNBOUNDED_HINT,
                           "quadratic": GROWTH_QUADRATIC_HINT})),
        check_number(unfused_limit, limit, f"unfused limit at d = {HEAD_DIM}", unit="FLOP/byte",
                     factor_hints=False,
                     mistakes=[(limit * 2, "the score matrices cost 2 bytes per element in "
                                           "bf16, for 4 accesses: divide by 8 per score"),
                               # Review 19k1 K3-3: 4-byte elements halve it too
                               (limit / 2, "each multiply-add (in Q K^T and in "
                                           "P V) is 2 FLOPs, and a bf16 element is 2 bytes, not "
                                           "4: check both")]),
        # Review 12b K3-1: attention has no copy, so the generic factor-2 hint does not fit
        check_number(_without_per_token(fused_per_token), per_token,
                     f"fused intensity per token at d = {HEAD_DIM}",
                     unit="FLOP/byte", factor_hints=False,
                     mistakes=[(per_token / 2, "check 2 FLOPs per multiply-add, and "
                                               "2 bytes (not 4) per bf16 element"),
                               (per_token * 2, "the fused kernel reads Q, K and V "
                                               "and writes O, s x d bf16 elements of 2 bytes "
                                               "each: count all four"),
                               # review 39k1: the intensity at s = 8192, not divided by s
                               (per_token * SEQ_LEN, f"that is the intensity itself (at s = "
                                                     f"{SEQ_LEN}): divide by s")]),
    )


# --- Part C: where fusion changes the verdict -------------------------------------------------

#: How far above the key an answer for the crossover s may be (see _check_smallest_s).
CROSSOVER_RTOL = 0.02


def _crossover_slips(fused_s) -> list:
    """The slips that double or halve the crossover s: a multiply-add counted as 1 FLOP, or the
    elements given 4 bytes (or 1) instead of bf16's 2."""
    hint = ("off by a factor of 2: a multiply-add is 2 FLOPs, and each bf16 element of Q, K, V and O "
            "is 2 bytes; check both")
    return [(2 * fused_s, hint), (fused_s / 2, hint)]


def crossover_floor(crossover: dict) -> float:
    """The smallest crossover answer that passes: the exact crossover, or it written to one or two
    decimals where that rounds down (488.6 for 488.63 on the MI300X; 408.26 for 408.263 on the
    H200, review 28k1 K3-1)."""
    exact = crossover["fused_estimate"]
    return min(exact, round(exact, 1), round(exact, 2))


def _check_smallest_s(answer, crossover: dict, gpu: str, own_ridge=None, key_ridge=None) -> Check:
    """The smallest s at which fused attention reaches the ridge: the key, or up to
    ``CROSSOVER_RTOL`` above it, since the usual shortcut, I = s/2 (dropping the softmax's 5 FLOPs
    per score against the 4d of the two GEMMs), rounded up, lands 1.0% above (494 against 489 on
    the MI300X).  Review 27k1 K3-1: one rule for every answer, integer or not: anything from the
    exact crossover (488.6 on the MI300X; written to one decimal, or exactly) up to the key plus
    ``CROSSOVER_RTOL`` passes, as the page says ("Give the smallest whole s (up to 2% above it
    passes); the exact crossover passes too").  An answer below the exact crossover does not reach the ridge, however close (review 11b
    K3-1: 480 passed on the MI300X); a sequence length has no byte prefix, so no generic KiB/GiB
    hint (review 6b, K3-1).  ``own_ridge``: the student's answer for this GPU's ridge; where it is
    wrong and the s follows from it, the reply says so and sends them to the ridge (the error
    carried forward), not to a recount of the intensity."""
    question = f"smallest s that reaches the {gpu} ridge (fused)"
    carried = _carried_crossover(own_ridge, key_ridge)
    key, exact = crossover["fused_s"], crossover["fused_estimate"]
    floor = crossover_floor(crossover)

    def grade() -> Check:
        # Review 31k1 K3-1: "489 tokens" names the page's own unit for s
        value = read_number(answer, question, "tokens")
        if key <= value <= key * (1 + CROSSOVER_RTOL):
            return Check(question, "pass", f"correct (the key, {key}, or up to "
                                           f"{CROSSOVER_RTOL * 100:g}% above it)")
        if floor <= value < key:
            # Review 27k1 K3-1: the exact crossover passes too, integer or not (one rule)
            return Check(question, "pass", f"correct: at or above the exact crossover ({exact:.4g}) "
                                           f"and below the key; s counts tokens, so the "
                                           f"whole-number answer is {key}")
        if carried is not None and crossover_floor(carried) <= value <= carried["fused_s"] * (1 + CROSSOVER_RTOL):
            return Check(question, "fail", f"consistent with your ridge of {carried['ridge']:.4g}, but that "
                                           "ridge is wrong (see above): fix the ridge first, then "
                                           "find s again")
        for wrong, hint in _crossover_slips(key):
            if abs(value - wrong) <= CROSSOVER_RTOL * wrong:
                return Check(question, "fail", hint)
        if value < floor:
            # Review 19g1 K3-4: a ridge rounded down gives an s just under the key
            return Check(question, "fail", f"at s = {value:g} the fused intensity is still below the "
                                           "ridge: the smallest s that reaches it is larger (round "
                                           "up, and use the ridge unrounded)")
        return Check(question, "fail", f"more than {CROSSOVER_RTOL * 100:g}% above the key: a smaller "
                                       "s already reaches the ridge")

    return guarded(question, grade)


def _carried_crossover(own_ridge, key: float):
    """The crossover that follows from the student's ridge where that ridge reads as a positive
    number and is wrong (outside the ridge check's ±2%), with the ridge under 'ridge'; else None."""
    if own_ridge is None or key is None or is_unanswered(own_ridge):
        return None
    try:
        ridge = read_number(own_ridge, "ridge", unit="FLOP/byte")
    except (AnswerError, NotAnsweredError):
        return None
    if not math.isfinite(ridge) or ridge <= 0 or abs(ridge - key) <= DEFAULT_RTOL * key:
        return None
    return {**ops.attention_fusion_crossover(ridge, HEAD_DIM, DTYPE), "ridge": ridge}


def _ridge_slips(key: float) -> list:
    """Review 19g1 K3-3: the inverted ridge (B / P), as exercises 1 and 2 hint it.  Twice the key
    hears exercise 2's neutral factor-of-2 hint (review 39k1): given_machines() shows only the
    dense peak, so "not the figure with sparsity" fitted only a student who had read a datasheet
    (nothing is counted, so grading's FMA-or-copy hint would not fit either)."""
    return [(1 / key, "that is B / P, bytes per FLOP: the ridge is the compute roof over the "
                      "bandwidth"),
            (2 * key, "off by a factor of 2: the ridge is P / B, from the table's two numbers"),
            # a bandwidth converted with binary prefixes (TB/s as TiB/s, or by 1,024).  The
            # 1,024 slip sits 2.4% from the key: matched at the key's 2% it caught every ridge
            # 2-4% off (a rounded 200 for 206.1, a rounding), so it is matched within 0.3%, as
            # grading matches its prefix factors near 1.
            *[(key * f, _RIDGE_IN_TIB) for f in (1e12 / 2 ** 40, 2 ** 40 / 1e12)],
            *[(key * f, _RIDGE_IN_KIB, 0.003) for f in (1 / 1.024, 1.024)]]


_RIDGE_IN_TIB = ("off by about 9%: binary (TiB, 2^40 bytes) and decimal (TB, 10^12 bytes) prefixes "
                 "mixed up? This course uses decimal TB")
_RIDGE_IN_KIB = ("off by 2.4%: a factor of 1,024 for 1,000 (binary and decimal prefixes mixed up)? "
                 "This course uses decimal TB")


#: "Does it ever get there?": "never" answers it as plainly as "no" (review 39k1).
_EVER = Choices({"yes": YES_NO.options["yes"],
                 "no": (YES_NO.options["no"][0], YES_NO.options["no"][1] + ("never", "no never"))})


#: Review 56k1 (key 3, item 2): a yes or no qualified by the head dimension it holds for:
#: "no at d=128", "no, at d = 128", "no (d=128)".
_AT_HEAD_DIM = re.compile(r"^\s*(?P<answer>[^,:;()]+?)\s*[,:;]?\s*\(?\s*(?:at|for|with)?\s*"
                          r"d\s*=\s*(?P<d>\d+)\s*\)?\s*$", re.IGNORECASE)


def _check_ever(answer, key: str, question: str) -> Check:
    """Part C's yes or no.  A qualifier naming the question's own d (128) is dropped; one naming
    another d answers a question not asked, so it never passes."""
    if isinstance(answer, str) and (qualified := _AT_HEAD_DIM.match(answer)):
        try:
            _EVER._read(qualified.group("answer"))
        except AnswerError:
            pass  # not a yes or no with a d after it: read as typed
        else:
            if int(qualified.group("d")) != HEAD_DIM:
                return Check(question, "fail", f"{answer.strip()!r}: the question asks at "
                                               f"d = {HEAD_DIM}; answer for that d")
            answer = qualified.group("answer")
    return check_choice(answer, key, question, _EVER,
                        hints={"yes": "compare the unfused limit with the ridge"})


def check_crossover(ridge_mi300x, s_mi300x, unfused_ever, ridge_h200, s_h200):
    mi_ridge = MI300X.ridge(BF16_TENSOR)
    h_ridge = H200.ridge(BF16_TENSOR)
    mi = ops.attention_fusion_crossover(mi_ridge, HEAD_DIM, DTYPE)
    h = ops.attention_fusion_crossover(h_ridge, HEAD_DIM, DTYPE)
    return report(
        "Part C: the sequence length where fusion changes the verdict",
        check_number(ridge_mi300x, mi_ridge, "MI300X bf16 ridge", unit="FLOP/byte",
                     factor_hints=False, mistakes=_ridge_slips(mi_ridge)),
        _check_smallest_s(s_mi300x, mi, "MI300X", own_ridge=ridge_mi300x, key_ridge=mi_ridge),
        _check_ever(unfused_ever, "yes" if mi["unfused_ever_compute_bound"] else "no",
                    "does unfused attention ever get there on MI300X?"),
        check_number(ridge_h200, h_ridge, "H200 bf16 ridge", unit="FLOP/byte",
                     factor_hints=False, mistakes=_ridge_slips(h_ridge)),
        _check_smallest_s(s_h200, h, "H200", own_ridge=ridge_h200, key_ridge=h_ridge),
    )


# --- Part D (stretch): causal, decode, grouped-query ------------------------------------------

#: The decode side's menu: a bare "both" names no side and hears BOTH_HINT.
_DECODE_SIDES = Choices(without_bare_both(SIDES.options), hidden=("both",))


def _decode_slips(key: float) -> list:
    """Review 11b K3-2: decode copies nothing, so the generic factor-2 hint ("a copy both reads
    and writes") does not fit; its slips are one of K and V left out, or a multiply-add as 1 FLOP."""
    # Review 27k1 K3-2: elements counted instead of bytes land on exactly twice the key too
    return [(2 * key, "bf16 is 2 bytes per element (did you count elements?), and "
                      "decode reads all of K and all of V (s x d elements each), each once: check "
                      "both"),
            # Review 26k1 K3-1: 4-byte elements land on half the key too
            (key / 2, "each multiply-add (in q K^T and in P V) is 2 FLOPs, and a "
                      "bf16 element is 2 bytes, not 4: check both")]


def check_stretch(causal_intensity, decode_intensity, decode_side_h200, gqa_decode_intensity):
    full = ops.attention(SEQ_LEN, HEAD_DIM, fused=True, dtype=DTYPE)
    causal = ops.attention(SEQ_LEN, HEAD_DIM, fused=True, dtype=DTYPE, causal=True)
    decode = ops.attention(SEQ_LEN, HEAD_DIM, fused=True, dtype=DTYPE, queries=1)
    gqa = ops.attention(SEQ_LEN, HEAD_DIM, fused=True, dtype=DTYPE, queries=1,
                        heads_per_kv=GQA_GROUP)
    return report(
        "Part D: causal, decode and grouped-query attention",
        # Review 19k1 K3-2: no copy here, so no generic factor-2 hint; half the key is a
        # multiply-add as 1 FLOP, or 4-byte elements
        check_number(causal_intensity, causal.intensity, "causal prefill intensity (fused)",
                     unit="FLOP/byte", factor_hints=False,
                     # Review 27k1 K3-2: the full intensity is twice the key, where elements
                     # counted instead of bytes land too: the hint names both
                     mistakes=[(full.intensity, "causal masking skips the (query, "
                                                "key) pairs above the diagonal (fewer FLOPs, same "
                                                "bytes), and bf16 is 2 bytes per element (did you "
                                                "count elements?): check both"),
                               (causal.intensity / 2, "each multiply-add (in Q K^T "
                                                      "and in P V) is 2 FLOPs, and a bf16 element "
                                                      "is 2 bytes, not 4: check both")]),
        # a factor of 8 here is the group size, never bits and bytes: no generic factor hints,
        # and the group-size slips named
        check_number(decode_intensity, decode.intensity, "decode intensity (one query)",
                     unit="FLOP/byte", factor_hints=False,
                     mistakes=[(full.intensity, "in decode only one query row meets the s keys: "
                                                "recount the FLOPs"),
                               (gqa.intensity, f"that is the grouped-query value ({GQA_GROUP} query "
                                               "heads per K and V): plain decode has one query head"),
                               (decode.intensity / GQA_GROUP,
                                f"off by the group size, {GQA_GROUP}: plain decode has one query "
                                "head reading its own K and V, so no group factor enters it")]
                     + _decode_slips(decode.intensity)),
        _graded(_read_option(decode_side_h200, _DECODE_SIDES, "decode against the H200 bf16 ridge"),
                lambda answer: check_side(answer, decode.intensity, H200.ridge(BF16_TENSOR),
                                          "decode against the H200 bf16 ridge", choices=_DECODE_SIDES,
                                          hints={"both": BOTH_HINT})),
        check_number(gqa_decode_intensity, gqa.intensity,
                     f"decode intensity with {GQA_GROUP} query heads per KV head",
                     unit="FLOP/byte", factor_hints=False,
                     mistakes=[(decode.intensity, "the K and V reads are now shared by several "
                                                  "query heads: the FLOPs multiply, the bytes "
                                                  "barely change"),
                               (gqa.intensity * GQA_GROUP,
                                f"the group factor applies once: {GQA_GROUP} heads' FLOPs over K "
                                "and V read once")]
                     + _decode_slips(gqa.intensity)),
    )


# --- The take-away, once the student has written theirs -----------------------------------------

def model_takeaway(takeaway):
    """The exercise's conclusions (Parts B to D), revealed after the student's own attempt, as
    exercise 1's model conclusion is: stated on the page, they would answer the checks before the
    student does (review 44k1, key 3)."""
    ridge = H200.ridge(BF16_TENSOR)
    limit = ops.attention_intensity_limit(HEAD_DIM, fused=False, dtype=DTYPE)
    # the smallest head dimension whose unfused limit passes the ridge (at the ridge itself, the
    # limit is only approached, never reached)
    rescued = next(d for d in range(1, 100_000)
                   if ops.attention_intensity_limit(d, fused=False, dtype=DTYPE) > ridge)
    crossovers = {name: ops.attention_fusion_crossover(machine.ridge(BF16_TENSOR), HEAD_DIM, DTYPE)["fused_s"]
                  for name, machine in (("H200", H200), ("MI300X", MI300X))}
    decode = ops.attention(SEQ_LEN, HEAD_DIM, fused=True, dtype=DTYPE, queries=1).intensity
    share = ops.exp_time_over_matrix_time(HEAD_DIM, H200)
    text = (f"- Unfused attention's intensity saturates near `d / 2` because its traffic grows as fast as "
            f"its FLOPs: at d = {HEAD_DIM} no sequence length brings it to the matrix cores' ridge (its "
            f"limit, (4d + 5) / 8 = {limit:g}, which it only approaches as s grows, exceeds the H200's "
            f"bf16 ridge of {ridge:.0f} only for d ≥ {rescued}).\n"
            f"- Fusion removes the `s^2` traffic, and the intensity then grows with `s`: fused attention "
            f"reaches the tensor ridge at a few hundred tokens ({crossovers['H200']} on the H200, "
            f"{crossovers['MI300X']} on the MI300X) and is compute-bound beyond it. So fusion is not a "
            f"speed-up of the same kernel: it turns an operator that is memory-bound at every length "
            f"into one whose sequence length decides. That is the whole argument for FlashAttention, "
            f"in two byte counts.\n"
            f"- Decode reads the whole KV cache for one query, so it lands near {decode:.0f} FLOP/byte, "
            f"memory-bound; sharing `K` and `V` across query heads multiplies the FLOPs per byte by "
            f"the group size.")
    also = (f"The tensor roof is not the only compute roof: every score also costs one `exp` on the "
            f"transcendental unit, and on the H200 at d = {HEAD_DIM} that takes "
            f"{'half' if share == 0.5 else f'{share:.2f} times'} as long as the score's two GEMMs, "
            f"counted in SM clocks per score (notebook 02 computes it). A fused kernel that does not "
            f"overlap the two takes {1 + share:g} times the tensor time, so it reaches at most "
            f"1/{1 + share:g} ≈ {1 / (1 + share):.0%} of the tensor roof on the H200 (pitfall 5; "
            f"FlashAttention-3's reason to overlap them).",)
    return reveal(takeaway, text, "the take-away", also=also,
                  key_points=("unfused intensity levels off as s grows: its bytes grow like its FLOPs",
                              "fused intensity grows with s, so fusion decides the verdict",
                              "decode is memory-bound: each K and V element read serves one query"))
