"""Plain-text tables for the notebooks: the course's figures, aligned and deterministic."""
import pytest

from rooflinelib.core import operators
from rooflinelib.views import tables
from rooflinelib.core.machines import A100, H100_SXM, H200, MI300X


def test_render_aligns_columns_under_a_rule():
    rows = [{"a": "x", "b": 1.5}, {"a": "longer", "b": 12345.0}]
    text = tables.render(rows, (tables.Column("a", "name", align="<"),
                                tables.Column("b", "value", tables.number)))
    lines = text.splitlines()
    assert lines == ["name     value", "------  ------", "x          1.5", "longer  12,345"]


def test_operator_table_matches_the_course():
    by_name = {r["operator"]: r["intensity"] for r in tables.operator_rows()}
    assert by_name["vector add"] == pytest.approx(1 / 12)
    assert by_name["3-pass softmax"] == pytest.approx(0.25)
    assert by_name["fused softmax"] == pytest.approx(0.625)
    assert by_name["GEMM"] == pytest.approx(8192 / 6)
    assert by_name["attention (fused)"] == pytest.approx(4136, abs=0.5)


def test_place_rows_use_the_ceiling_of_each_dtype():
    rows = {r["operator"]: r for r in tables.place_rows(operators.demo_kernels(), MI300X)}
    unfused = rows["unfused attention bf16 s=8192"]
    assert unfused["ceiling"] == "bf16-tensor" and unfused["side"] == "memory-bound"
    assert rows["GEMM fp32 N=8192"]["ceiling"] == "fp32"
    assert rows["vector add"]["ridge_over_i"] == pytest.approx(81_700 / 5_300 * 12)


def test_gemm_thresholds_reproduce_the_course_table():
    rows = {r["ceiling"]: r["smallest_n"] for r in tables.gemm_threshold_rows(MI300X)}
    assert (rows["fp32"], rows["fp32-matrix"], rows["bf16-tensor"], rows["fp8-tensor"]) == (93, 185, 741, 741)
    a100 = {r["ceiling"] for r in tables.gemm_threshold_rows(A100)}
    assert "fp8-tensor" not in a100 and "fp32-matrix" not in a100  # no such roof on the A100
    assert [r["dtype"] for r in tables.gemm_threshold_rows(MI300X, dtypes=(("fp32", "fp32-matrix"),))] == ["fp32"]


def test_attention_crossovers():
    rows = {r["machine"]: r for r in tables.attention_crossover_rows()}
    assert all(r["unfused_s"] is None for r in rows.values())
    assert 480 <= rows["MI300X"]["fused_s"] <= 500
    text = tables.render(list(rows.values()), tables.CROSSOVER_COLUMNS)
    assert "never" in text


def test_tile_rows_mark_the_roof_from_the_tile_model():
    trio = [A100, H100_SXM, H200]
    rows = {r["tile"]: r for r in tables.tile_rows(trio)}
    assert rows[32]["A100 side"] == "memory" and rows[64]["A100 side"] == "compute"
    assert rows[64]["H100 SXM side"] == "memory" and rows[128]["H100 SXM side"] == "compute"
    assert rows[1]["A100"] == pytest.approx(389, rel=0.005)
    text = tables.render(list(rows.values()), tables.tile_columns(trio))
    assert text.splitlines()[-1].count("ROOF") == 3


# --- Lab 1 and Lab 3 tables (roofline measure / sweep print them) ---------------------------

def _ceilings_columns(text):
    header = next(line for line in text.splitlines() if line.strip().startswith("ceiling"))
    rows = {line.split()[0]: line.split() for line in text.splitlines()
            if line.startswith("  ") and line.split() and line.split()[0] in ("dram", "fp32", "l2")}
    return header.split(), rows


def test_ceilings_table_says_which_timing_rule_each_rate_uses():
    from rooflinelib.store import results
    recorded = results.recorded("ceilings", "numba")
    header, rows = _ceilings_columns(tables.ceilings_table(recorded))
    assert rows["dram"][header.index("rule")] == "median"  # the GPU's rule, as the run recorded it
    older = dict(recorded, details=[{k: v for k, v in d.items() if k != "rule"} for d in recorded["details"]])
    header, _ = _ceilings_columns(tables.ceilings_table(older))
    assert "rule" not in header  # a result recorded before the rule was stored: the old columns
    with_rules = dict(recorded, details=[dict(d, rule="best" if d["name"] == "dram" else "median")
                                         for d in recorded["details"]])
    text = tables.ceilings_table(with_rules)
    header, rows = _ceilings_columns(text)
    spread = "IQR" if "IQR" in header else "spread"  # the IQR over the median, where recorded
    assert header[header.index(spread) + 1] == "rule"
    assert rows["dram"][5] == "best" and rows["fp32"][5] == "median" and rows["l2"][5] == "median"


def test_sweep_tables_read_the_ridge_off_the_sweep():
    from rooflinelib.store import results
    sweep = results.recorded("sweep", "numba")
    text = tables.sweep_tables(sweep)
    assert f"ridge = P/B = {sweep['ridge']:.2f} FLOP/byte" in text
    assert text.count("  yes") == len(sweep["rows"])


def test_compare_rows_say_which_datasheet_figures_are_derived_not_printed():
    # The H200 datasheet prints neither the shared-memory nor the SFU figure: they are derived.
    basis = {r["name"]: r["basis"] for r in tables.compare_rows(H200, H200)}
    assert basis["shared"] == basis["sfu"] == "derived (SMs x per-SM rate x 1980 MHz)"
    assert basis["dram"] == "printed"
    # the H200 datasheet prints 67 TFLOP/s and its tensor figures only with sparsity: the dense
    # 66,900 and 989,400 come from the H100 SXM white paper (review 12b T03-1)
    assert basis["fp32"] == basis["bf16-tensor"] == "H100 SXM white paper (same chip, clocks)"
    printed = tables.render(tables.compare_rows(H200, H200), tables.COMPARE_COLUMNS)
    assert "derived (SMs x per-SM rate x 1980 MHz)" in printed
