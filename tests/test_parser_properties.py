"""Every parser against hypothesis: formulas, kernel specs, result files, ncu CSVs and exercise
answers.  Each property is the same: a correct value, or a clean error of the module's own
type that names the field; never any other exception, and never a wrong value accepted."""
from __future__ import annotations

import copy
import csv
import io
import json
import math
import re
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rooflinelib.exercises import grading
from rooflinelib.store import results
from rooflinelib.core import sanity
from rooflinelib.core.expr import MAX_ABS, ExpressionError, evaluate
from rooflinelib.hierarchy import ncu
from rooflinelib.core.placement import parse_kernel_spec

FEW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SOME = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Numbers as hostile input writes them: huge and tiny, negative, non-finite, long integers.
hostile_numbers = st.one_of(
    st.integers(min_value=-10 ** 40, max_value=10 ** 40),
    # 4,000 digits: still printable by repr; 5,000-digit ones come as text below
    st.sampled_from([10 ** 400, -10 ** 400, 10 ** 4000, 0, -0.0, 1e300, 1e-300, -1e300, 5e-324]),
    st.floats(allow_nan=True, allow_infinity=True),
)
hostile_text = st.one_of(
    st.text(max_size=80),
    st.sampled_from(["", " ", "nan", "NaN", "inf", "-inf", "1e999", "9" * 400, "1" * 5000,
                     "\x1b[2J", "__import__('os')", "1_000", "1,000", "0x10", "1e-400",
                     "9**9**9**9", "(" * 300, "1/0", "2**1025", "--1", "1 GB/s", "13%"]),
)


# --- formulas --------------------------------------------------------------------------------

@st.composite
def formulas(draw, depth=0):
    """(text, exact value or None for a division by zero) of an arithmetic formula."""
    if depth > 3 or draw(st.booleans()):
        n = draw(st.integers(min_value=0, max_value=10 ** 6))
        return str(n), Fraction(n)
    op = draw(st.sampled_from(["+", "-", "*", "/", "neg", "**"]))
    left_text, left = draw(formulas(depth + 1))
    if op == "neg":
        return f"-({left_text})", None if left is None else -left
    if op == "**":
        exponent = draw(st.integers(min_value=0, max_value=3))
        value = None if left is None else left ** exponent
        return f"({left_text})**{exponent}", value
    right_text, right = draw(formulas(depth + 1))
    text = f"({left_text}){op}({right_text})"
    if left is None or right is None:
        return text, None
    if op == "/":
        return text, None if right == 0 else left / right
    return text, {"+": left + right, "-": left - right, "*": left * right}[op]


@SOME
@given(formulas())
def test_a_formula_has_its_exact_value_or_a_clean_error(case):
    text, exact = case
    try:
        value = evaluate(text, "fld")
    except ExpressionError as exc:
        assert str(exc).startswith("fld: ") and "\n" not in str(exc)
        # refused only when it divides by zero, is too long, or leaves the range
        assert exact is None or len(text) > 200 or abs(exact) > MAX_ABS or "exponent" in str(exc) \
            or "nodes" in str(exc) or "long" in str(exc) or "range" in str(exc)
        return
    assert exact is not None
    assert value == pytest.approx(float(exact), rel=1e-9, abs=1e-9)


@SOME
@given(hostile_text)
def test_any_text_is_a_finite_number_or_an_expression_error(text):
    try:
        value = evaluate(text, "fld")
    except ExpressionError as exc:
        assert str(exc).startswith("fld: ") and "\n" not in str(exc)
        return
    assert math.isfinite(value) and abs(value) <= MAX_ABS


@SOME
@given(hostile_numbers)
def test_the_sanity_rule_accepts_only_sane_numbers(value):
    try:
        x = sanity.number(value, "fld", positive=True, unit="GB/s")
    except sanity.SanityError as exc:
        assert str(exc).startswith("fld: ") and len(str(exc)) < 200
        return
    assert math.isfinite(x) and 1e-6 <= x <= 1e12


# --- kernel specs ----------------------------------------------------------------------------

names = st.text(alphabet=st.characters(codec="ascii", categories=("L", "N")), min_size=1, max_size=20)
amounts = st.floats(min_value=1.0, max_value=1e15, allow_nan=False)


@SOME
@given(names, amounts, amounts)
def test_a_well_formed_kernel_spec_keeps_its_numbers(name, flops, n_bytes):
    try:
        point = parse_kernel_spec(f"{name}, {flops!r}, {n_bytes!r}")
    except ValueError as exc:  # only the ratio may be refused, and it says so
        assert str(exc).startswith(f"--kernel {name!r} intensity:")
        return
    assert (point.name, point.n_flops, point.n_bytes) == (name, flops, n_bytes)


@SOME
@given(st.lists(st.one_of(hostile_text, hostile_numbers.map(repr)), min_size=0, max_size=5))
def test_any_kernel_spec_is_a_point_or_an_error_naming_the_option(fields):
    try:
        point = parse_kernel_spec(", ".join(fields))
    except ValueError as exc:
        assert str(exc).startswith("--kernel") and "\n" not in str(exc)
        return
    assert point.n_flops > 0 and point.n_bytes > 0 and math.isfinite(point.intensity)


# --- result files ----------------------------------------------------------------------------

CEILINGS = results.recorded("ceilings")
SWEEP = results.recorded("sweep")
hostile_values = st.one_of(hostile_numbers, hostile_text, st.none(), st.booleans(),
                           st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
FIELD = re.compile(r"^where: [A-Za-z_\[\]0-9.-]+(: | )")


def _leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, path + (i,))
    else:
        yield path


CEILING_LEAVES = [p for p in _leaves(CEILINGS) if p and p[0] in ("ceilings", "device", "backend", "scope", "kind", "created")]
SWEEP_LEAVES = [p for p in _leaves(SWEEP) if p and p[0] in ("rows", "ridge", "peak_gflops", "peak_gbps")]


def _json_text(document) -> str:
    # json.dumps writes NaN and Infinity, and huge ints in full: the hostile file's own text
    return json.dumps(document, allow_nan=True)


@SOME
@given(st.sampled_from(["ceilings", "sweep"]), st.data(), hostile_values)
def test_a_result_with_one_hostile_field_loads_correctly_or_names_a_field(kind, data, value):
    base, leaves = (CEILINGS, CEILING_LEAVES) if kind == "ceilings" else (SWEEP, SWEEP_LEAVES)
    path = data.draw(st.sampled_from(leaves))
    document = copy.deepcopy(base)
    node = document
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    try:
        loaded = results.loads(_json_text(document), "where")
    except results.ResultError as exc:
        message = str(exc)
        assert FIELD.match(message) or message.startswith("where: not valid JSON"), message
        assert "\n" not in message and len(message) < 600
        return
    # accepted: every roof it would give is a sane one, and it is the value written
    machine = results.to_machine(loaded)
    for ceiling in machine.ceilings:
        assert 1e-6 <= ceiling.value <= 1e12
    reread = loaded
    for step in path:
        reread = reread[step]
    # an integer over 30 digits is read as a float (fileio.MAX_JSON_INT_DIGITS): inf past 1e308
    assert reread == value or (isinstance(value, int) and reread == float(str(value)))


@SOME
@given(st.sampled_from(["ceilings", "sweep"]), st.data(), hostile_values)
def test_a_result_object_from_the_api_is_valid_or_names_a_field(kind, data, value):
    # no JSON in between: the validator sees Python's own ints, of any length
    base, leaves = (CEILINGS, CEILING_LEAVES) if kind == "ceilings" else (SWEEP, SWEEP_LEAVES)
    path = data.draw(st.sampled_from(leaves))
    document = copy.deepcopy(base)
    node = document
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = data.draw(st.one_of(st.just(value), st.sampled_from([10 ** 5000, -10 ** 4400])))
    try:
        results.validate(document, "where")
    except results.ResultError as exc:
        assert FIELD.match(str(exc)), str(exc)
        return
    for ceiling in results.to_machine(document).ceilings:
        assert 1e-6 <= ceiling.value <= 1e12


@SOME
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
                 st.sampled_from(["[" * 5000, '{"a": ' * 3000, "9" * 5000, "NaN", "{}", "[]", "null"])))
def test_any_text_as_a_result_is_a_result_error(text):
    with pytest.raises(results.ResultError) as refused:
        results.loads(text, "where")
    assert str(refused.value).startswith("where: ") and "\n" not in str(refused.value)


# --- ncu CSVs --------------------------------------------------------------------------------

ID_COLUMNS = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Block Size", "Grid Size", "Device"]
UNITS = {"byte": ("byte", "Kbyte", "Mbyte", "nsecond", "inst", "furlong", "", "byte/cycle"),
         "inst": ("inst", "warp", "byte", "second", "", "Kinst"),
         "time": ("nsecond", "usecond", "second", "ns", "byte", "inst", "", "cycle/second")}
METRIC_UNITS = {**{m: "byte" for m in ("l1tex__t_bytes.sum", "lts__t_bytes.sum", "dram__bytes_read.sum", "dram__bytes_write.sum")},
                **{m: "inst" for table in ncu.FLOP_METRICS.values() for m in table},
                ncu.TIME_METRIC: "time"}
cell_values = st.one_of(st.integers(min_value=-10 ** 6, max_value=10 ** 30).map(str),
                        st.floats(min_value=-1e6, max_value=1e30, allow_nan=False).map(repr),
                        st.sampled_from(["n/a", "", "1,234,567", "1,23", "9" * 400, "inf", "nan", "-0", "1e999"]),
                        st.text(max_size=10))


@st.composite
def ncu_csvs(draw):
    n = draw(st.integers(min_value=1, max_value=4))
    metrics = list(METRIC_UNITS)
    units = {m: draw(st.sampled_from(UNITS[METRIC_UNITS[m]])) for m in metrics}
    rows = []
    for i in range(n):
        name = draw(st.one_of(st.just("sweep_kernel(float*)"), st.text(max_size=30)))
        rows.append((str(i) if draw(st.integers(0, 9)) else "0", name, {m: draw(cell_values) for m in metrics}))
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(ID_COLUMNS + metrics)
    w.writerow([""] * len(ID_COLUMNS) + [units[m] for m in metrics])
    for ident, name, values in rows:
        w.writerow([ident, "1", "p", "h", name, "(1,1,1)", "(1,1,1)", "0"] + [values[m] for m in metrics])
    return out.getvalue(), units, rows


@SOME
@given(ncu_csvs())
def test_an_ncu_csv_gives_checked_launches_or_an_error_naming_where(case):
    text, units, rows = case
    try:
        kernels = ncu.parse_csv(text, "prof.csv")
    except ncu.NcuError as exc:
        message = str(exc)
        assert message.startswith("prof.csv: ") and "\n" not in message
        assert re.match(r"prof\.csv: (line \d+: (metric |column |not valid|has )|rows: |header: )", message), message
        return
    for kernel, (_, raw_name, values) in zip(kernels, rows):
        assert kernel.name.isprintable()
        for metric, raw in values.items():
            value = kernel.metrics.get(metric)
            if value is None:
                continue
            factor, dimension = ncu.unit_dimension(units[metric])
            assert dimension in (None, {"byte": "bytes", "inst": "count", "time": "time"}[METRIC_UNITS[metric]])
            assert value >= 0 and math.isfinite(value)
            assert value == pytest.approx(float(raw.replace(",", "")) * factor)
            if metric == ncu.TIME_METRIC:
                assert value > 0
    try:
        table = ncu.kernel_table(kernels)  # the printed table: no ZeroDivisionError, no escapes
    except ncu.NcuError as exc:
        assert "metric" in str(exc) or "FLOP" in str(exc)
        return
    assert "\x1b" not in table and "\r" not in table


hostile_names = st.one_of(
    st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\n\r"), min_size=1, max_size=30),
    st.sampled_from(["k\x1b[2Jill", "\x07bell(float*)", "a\u202eb", "x\x1b]0;title\x07", "\x9bcsi"]))


@SOME
@given(st.lists(hostile_names, min_size=1, max_size=3))
def test_kernel_names_reach_the_terminal_without_control_characters(raw_names):
    good = {m: ("1000", "nsecond" if m == ncu.TIME_METRIC else "") for m in METRIC_UNITS}
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(ID_COLUMNS + list(good))
    w.writerow([""] * len(ID_COLUMNS) + [unit for _, unit in good.values()])
    for i, name in enumerate(raw_names):
        w.writerow([str(i), "1", "p", "h", name, "(1,1,1)", "(1,1,1)", "0"] + [v for v, _ in good.values()])
    try:
        kernels = ncu.parse_csv(out.getvalue(), "prof.csv")
    except ncu.NcuError as exc:  # a name of only control characters is an empty name
        assert "column 'Kernel Name': empty" in str(exc)
        return
    table = ncu.kernel_table(kernels)
    for kernel in kernels:
        assert kernel.name.isprintable() and kernel.short_name.isprintable()
    assert all(line.isprintable() for line in table.splitlines())


@SOME
@given(st.text(max_size=400))
def test_any_text_as_an_ncu_csv_is_launches_or_an_ncu_error(text):
    try:
        ncu.parse_csv(text, "prof.csv")
    except ncu.NcuError as exc:
        assert str(exc).startswith("prof.csv: ") and "\n" not in str(exc)


@FEW
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz/%!() KMGTmunp", max_size=60))
def test_unit_strings_are_converted_or_unknown(unit):
    found = ncu.unit_dimension(unit)
    assert found is None or (math.isfinite(found[0]) and found[0] > 0)


def test_a_unit_nested_thousands_deep_is_unknown_not_a_recursion():
    assert ncu.unit_factor("byte/" * 3000 + "second") is None
    assert ncu.unit_factor("(" * 3000 + "byte" + ")" * 3000) is None


# --- exercise answers ------------------------------------------------------------------------

class _Odd:
    """A student's object whose conversions misbehave in one of several ways."""

    def __init__(self, how):
        self.how = how

    def __float__(self):
        if self.how == "exit":
            raise SystemExit(1)
        return 40.0

    def __repr__(self):
        raise RuntimeError("no repr")

    def __getattr__(self, name):
        raise SystemExit(f"no {name}")


answers = st.one_of(hostile_numbers, hostile_text, st.none(), st.booleans(),
                    st.decimals(allow_nan=True), st.fractions(),
                    st.lists(st.integers(), max_size=2), st.sampled_from([_Odd("exit"), _Odd("value")]))


@SOME
@given(answers, st.floats(min_value=1e-3, max_value=1e6), st.sampled_from(["", "GB/s", "TFLOP/s", "fraction"]))
def test_an_answer_is_graded_and_passes_only_when_it_is_right(answer, expected, unit):
    check = grading.check_number(answer, expected, "q", unit=unit)
    assert check.status in grading.STATUSES and "\n" not in check.message and check.message
    if check.passed:
        value = grading.read_number(answer, "q", unit)
        close = abs(value - expected) <= max(grading.FRACTION_ATOL if unit == "fraction" else 0.0,
                                             grading.DEFAULT_RTOL * expected)
        percent = unit == "fraction" and abs(value - 100 * expected) <= max(
            100 * grading.FRACTION_ATOL, grading.DEFAULT_RTOL * 100 * expected)
        assert close or percent


@SOME
@given(answers)
def test_a_choice_answer_is_graded_and_passes_only_for_its_option(answer):
    check = grading.check_choice(answer, "memory", "q", grading.SIDES)
    assert check.status in grading.STATUSES
    if check.passed:
        assert grading.SIDES.read(answer) == "memory"


class _Endless(float):
    def __float__(self):
        while True:
            pass


def test_a_slow_conversion_is_stopped_and_reported():
    check = grading.check_number(_Endless(40.0), 40.0, "q")
    assert check.status == "invalid" and "took longer than" in check.message


# --- widget values ---------------------------------------------------------------------------

from rooflinelib.views import widget_state  # noqa: E402  (beside the properties that use it)

WIDGET_CALLS = {
    "intensity": lambda v: widget_state.explorer_state("H200", "fp32", v),
    "n_flops": lambda v: widget_state.time_bounds_state(v, 1e9, 1e5, 1e3),
    "peak_gbps": lambda v: widget_state.time_bounds_state(1e9, 1e9, 1e5, v),
    "n": lambda v: widget_state.gemm_state("H200", "fp32", v),
    "s": lambda v: widget_state.attention_state("H200", v, 128),
    "tile": lambda v: widget_state.tile_state(v),
    "machine": lambda v: widget_state.explorer_state(v, "fp32", 1.0),
}


@SOME
@given(st.sampled_from(sorted(WIDGET_CALLS)), st.one_of(hostile_numbers, hostile_text, st.none()))
def test_a_widget_value_gives_a_state_or_an_error_naming_its_field(field, value):
    try:
        state = WIDGET_CALLS[field](value)
    except ValueError as exc:
        assert str(exc).startswith(f"{field}: ") and "\n" not in str(exc) and len(str(exc)) < 300
        return
    text = state.text() if hasattr(state, "text") else state.verdict_text()
    assert text and "nan" not in text.lower().split()
