"""Datasheet machines: every row of the course's ridge tables, sources, the registry."""
import re

import pytest

from rooflinelib.core import machines, operators
from rooflinelib.core.machines import (A100, DATASHEET_MACHINES, EXAMPLE_120T_3TB, H100_SXM, H200,
                                       MI300X, get_machine, machine_names, register, ridge_table)
from rooflinelib.core.model import Ceiling, Machine

KNOWN_CEILINGS = {"dram", "l2", "shared", "fp32", "fp32-packed", "fp64", "sfu", "fp16-tensor", "bf16-tensor",
                  "tf32-tensor", "fp8-tensor", "fp32-matrix", "fp64-matrix"}


# --- the course's datasheet ridge table, row by row --------------------------------------------

DATASHEET_RIDGE_ROWS = [
    (MI300X, 5_300, "fp32", 81_700, 15.4),
    (MI300X, 5_300, "fp32-matrix", 163_400, 30.8),
    (MI300X, 5_300, "bf16-tensor", 1_307_400, 246.7),
    (MI300X, 5_300, "fp16-tensor", 1_307_400, 246.7),
    (MI300X, 5_300, "fp8-tensor", 2_614_900, 493.4),
    (H100_SXM, 3_350, "fp32", 66_900, 20.0),
    (H100_SXM, 3_350, "tf32-tensor", 494_700, 147.7),
    (H100_SXM, 3_350, "bf16-tensor", 989_400, 295.3),
    (H100_SXM, 3_350, "fp8-tensor", 1_978_900, 590.7),
    (A100, 1_555, "fp32", 19_500, 12.5),  # datasheet
]


@pytest.mark.parametrize("machine, gbps, ceiling, gflops, ridge", DATASHEET_RIDGE_ROWS,
                         ids=[f"{r[0].name}-{r[2]}" for r in DATASHEET_RIDGE_ROWS])
def test_ridge_table_rows(machine, gbps, ceiling, gflops, ridge):
    assert machine.ceiling("dram").value == gbps
    assert machine.ceiling(ceiling).value == gflops
    assert machine.ridge(ceiling) == gflops / gbps
    assert round(machine.ridge(ceiling), 1) == ridge


def test_a100_bf16_ridge_about_201():
    assert round(A100.ridge("bf16-tensor")) == 201
    # "about 16 (A100) or 15 (H100) times higher" than fp32
    assert round(A100.ceiling("bf16-tensor").value / A100.ceiling("fp32").value) == 16
    assert round(H100_SXM.ceiling("bf16-tensor").value / H100_SXM.ceiling("fp32").value) == 15


def test_mi300x_compute_roofs_span_32x():
    values = [c.value for c in MI300X.compute_ceilings if c.name in ("fp32", "fp8-tensor")]
    assert round(max(values) / min(values)) == 32


def test_vector_add_is_2960x_below_mi300x_bf16_ridge():
    gap = MI300X.ridge("bf16-tensor") / operators.vector_add(2 ** 24).intensity
    assert round(gap, -1) == 2960


def test_same_kernel_opposite_verdicts_on_two_ceilings():
    # Exercise 2 row 8: I = 124 against a ridge of 15 and of ~300
    assert MI300X.roofline("fp32").side(124) == "compute"
    assert H100_SXM.roofline("bf16-tensor").side(124) == "memory"


def test_ridge_table_has_one_row_per_compute_ceiling():
    rows = ridge_table()
    assert len(rows) == sum(len(m.compute_ceilings) for m in DATASHEET_MACHINES)
    for row in rows:
        assert set(row) == {"machine", "memory_gbps", "ceiling", "name", "peak_gflops", "ridge"}
        assert row["ridge"] == row["peak_gflops"] / row["memory_gbps"]
    by_key = {(r["machine"], r["name"]): r["ridge"] for r in rows}
    for machine, _, ceiling, _, ridge in DATASHEET_RIDGE_ROWS:
        assert round(by_key[(machine.name, ceiling)], 1) == ridge


def test_ridge_table_against_another_memory_level():
    rows = ridge_table((A100,), memory="shared")
    shared = A100.ceiling("shared").value
    assert all(r["memory_gbps"] == shared for r in rows)


# --- contents and provenance -----------------------------------------------------------------

@pytest.mark.parametrize("machine", DATASHEET_MACHINES, ids=lambda m: m.name)
def test_datasheet_machines_have_provenance(machine):
    assert machine.kind == "datasheet"
    assert machine.source
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", machine.date)
    for c in machine.ceilings:
        assert c.name in KNOWN_CEILINGS
        assert c.source, f"{machine.name} {c.name} has no source"
        assert c.value > 0
    names = [c.name for c in machine.ceilings]
    assert len(names) == len(set(names))
    for required in ("dram", "fp64", "fp32", "tf32-tensor", "bf16-tensor", "fp16-tensor"):
        assert machine.has(required), f"{machine.name} lacks {required}"


def test_every_datasheet_precision_row_exists():
    for name in ("fp32", "fp32-matrix", "bf16-tensor", "fp16-tensor", "fp8-tensor"):
        assert MI300X.has(name)
    for name in ("fp32", "tf32-tensor", "bf16-tensor", "fp8-tensor"):
        assert H100_SXM.has(name)


@pytest.mark.parametrize("machine, sms, clock_ghz", [(A100, 108, 1.41), (H100_SXM, 132, 1.98), (H200, 132, 1.98)],
                         ids=lambda x: getattr(x, "name", str(x)))
def test_derived_nvidia_rows(machine, sms, clock_ghz):
    sfu, shared = machine.ceiling("sfu"), machine.ceiling("shared")
    assert sfu.kind == "compute" and shared.kind == "memory"
    assert sfu.value == pytest.approx(sms * 16 * clock_ghz)  # MUFU results per clock per SM
    assert shared.value == pytest.approx(sms * 128 * clock_ghz)  # 32 banks x 4 bytes
    assert sfu.source.startswith("derived") and shared.source.startswith("derived")


def test_h200_shared_memory_matches_the_measured_card_reference():
    # the H200 notes give 128 B/clock/SM as 33.4 TB/s at 1980 MHz
    assert H200.ceiling("shared").value == pytest.approx(33_400, rel=0.005)  # 33454 GB/s


def test_h200_is_an_h100_with_more_bandwidth():
    assert H200.ceiling("dram").value == 4_800
    for c in H100_SXM.compute_ceilings:
        assert H200.ceiling(c.name).value == c.value
    assert H200.ridge("fp32") < H100_SXM.ridge("fp32")


def test_example_machine_is_the_worked_example():
    assert EXAMPLE_120T_3TB.ridge() == 40.0
    assert EXAMPLE_120T_3TB.kind == "example"


# --- the registry ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("A100", A100), ("a100", A100), ("H100 SXM", H100_SXM), ("h100", H100_SXM),
    ("H100-SXM", H100_SXM), ("  h100   sxm5 ", H100_SXM), ("H200", H200), ("mi300x", MI300X),
])
def test_get_machine_by_name_and_alias(name, expected):
    assert get_machine(name) is expected


def test_unknown_machine_names_the_field_and_lists_known():
    with pytest.raises(KeyError) as info:
        get_machine("B200")
    message = info.value.args[0]
    assert message.startswith("machine:") and "B200" in message and "MI300X" in message


def test_names_cover_the_table():
    names = machine_names()
    for m in DATASHEET_MACHINES + (EXAMPLE_120T_3TB,):
        assert m.name in names


def test_register_a_measured_machine(monkeypatch):
    monkeypatch.setattr(machines, "_REGISTRY", dict(machines._REGISTRY))
    measured = H200.with_ceilings(Ceiling("dram", "memory", 4_250.0, "copy kernel, median of 50"),
                                  name="H200 (measured)", kind="measured",
                                  provenance={"gpu": "H200", "date": "2026-11-29"})
    assert register(measured) is measured
    assert get_machine("h200 (measured)") is measured
    assert get_machine("H200") is H200  # the datasheet entry is kept
    replacement = Machine("H200 (measured)", (Ceiling("dram", "memory", 4_000.0),), kind="measured")
    register(replacement)
    assert get_machine("H200 (measured)") is replacement


def test_mi300x_says_which_fp32_figure_is_which():
    # AMD's data sheet prints 163.4 TFLOP/s as FP32 vector (packed fp32, v_pk_fma_f32) and 81.7
    # as FP64 vector; ordinary unpacked fp32 code peaks at 81.7.  The course's "fp32" roof is the
    # unpacked one, and every derived figure follows from that choice.
    from rooflinelib.core import operators
    from rooflinelib.lessons import pitfalls
    packed, unpacked = MI300X.ceiling("fp32-packed"), MI300X.ceiling("fp32")
    assert packed.value == 163_400 and "packed" in packed.label and "unpacked" not in packed.label
    assert unpacked.value == MI300X.ceiling("fp64").value == 81_700 and "unpacked" in unpacked.label
    assert "FP64 vector" in unpacked.source and "304 CUs x 64 lanes" in unpacked.source
    assert abs(304 * 64 * 2 * 2.1 - unpacked.value) / unpacked.value < 1e-3
    assert round(pitfalls.roof_ratio(MI300X), 1) == 16.0
    assert round(pitfalls.roof_ratio(MI300X, slow="fp32-packed"), 1) == 8.0
    assert operators.smallest_compute_bound_gemm_n(MI300X.ridge("fp32"), "fp32") == 93
    assert operators.smallest_compute_bound_gemm_n(MI300X.ridge("fp32-packed"), "fp32") == 185
