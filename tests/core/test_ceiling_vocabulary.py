"""The dtype -> ceiling vocabulary has one home: rooflinelib/core/vocabulary.py, whose fields
(dtype, group, gemm) the registry's rows carry.  The five tables that retyped it are derived
from it and equal what they were; the charts dash a roof by its row's group, not its name."""
import ast
from pathlib import Path

import pytest

from rooflinelib.core import operators
from rooflinelib.lessons import pitfalls, step_roofs
from rooflinelib.views import plotting
from rooflinelib.measure import matrix, registry
from rooflinelib.core import vocabulary
from rooflinelib.core.model import Ceiling
from rooflinelib.profiling import core

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "rooflinelib"
HOME = PACKAGE / "core" / "vocabulary.py"
#: "bf16-tensor"-style names: the ceilings of matrix units.
MATRIX_NAMES = {name for name, _, group, _ in vocabulary.COMPUTE_DTYPES if group == "matrix"}


# --- each derived table is what it was (the literals the modules held before) -------------------

def test_gemm_ceiling_is_what_it_was_in_the_same_order():
    assert list(operators.GEMM_CEILING.items()) == [
        ("fp64", "fp64-matrix"), ("fp32", "fp32"), ("tf32", "tf32-tensor"), ("bf16", "bf16-tensor"),
        ("fp16", "fp16-tensor"), ("fp8", "fp8-tensor")]


def test_precisions_are_what_they_were():
    assert core.PRECISIONS == {
        "fp32": ("fp32",), "fp64": ("fp64",),
        "bf16": ("bf16-tensor",), "fp16": ("fp16-tensor",), "tf32": ("tf32-tensor",),
        "fp8": ("fp8-tensor",), "fp32-matrix": ("fp32-matrix",), "fp64-matrix": ("fp64-matrix",)}


def test_matrix_ceilings_are_what_they_were_in_the_same_order():
    assert list(matrix.MATRIX_CEILINGS.items()) == [
        ("fp64-matrix", ("fp64", matrix.CUDA_R_64F, matrix.CUBLAS_COMPUTE_64F, 8, 1e-12)),
        ("fp32-matrix", ("fp32", matrix.CUDA_R_32F, matrix.CUBLAS_COMPUTE_32F, 4, 1e-5)),
        ("tf32-tensor", ("tf32", matrix.CUDA_R_32F, matrix.CUBLAS_COMPUTE_32F_FAST_TF32, 4, 5e-3)),
        ("fp16-tensor", ("fp16", matrix.CUDA_R_16F, matrix.CUBLAS_COMPUTE_32F, 2, 5e-3)),
        ("bf16-tensor", ("bf16", matrix.CUDA_R_16BF, matrix.CUBLAS_COMPUTE_32F, 2, 2e-2))]


def test_training_steps_compute_preference_is_what_it_was():
    assert step_roofs.COMPUTE_PREFERENCE == ("bf16-tensor", "fp16-tensor", "tf32-tensor", "fp32-matrix", "fp32")


def test_pitfall_spans_are_what_they_were():
    assert pitfalls.SPAN_CEILINGS == ("fp32", "fp32-packed", "fp32-matrix", "tf32-tensor", "bf16-tensor",
                                      "fp16-tensor", "fp8-tensor")
    defaults = pitfalls.roof_ratio.__defaults__
    assert defaults == ("bf16-tensor", "fp32")


# --- the registry's rows carry the vocabulary ----------------------------------------------------

def test_every_compute_row_of_the_vocabulary_is_a_registry_row_with_its_fields():
    for name, dtype, group, gemm in vocabulary.COMPUTE_DTYPES:
        spec = registry.get(name)
        assert (spec.kind, spec.dtype, spec.group, spec.gemm) == ("compute", dtype, group, gemm), name
    typed = {s.name for s in registry.specs() if s.dtype is not None}
    assert typed == {row[0] for row in vocabulary.COMPUTE_DTYPES}


def test_one_gemm_roof_per_dtype():
    gemm_dtypes = [dtype for _, dtype, _, gemm in vocabulary.COMPUTE_DTYPES if gemm]
    assert sorted(gemm_dtypes) == sorted(set(gemm_dtypes)) == sorted(operators.DTYPE_BYTES)


def test_a_row_with_a_dtype_must_be_a_compute_row_with_one():
    with pytest.raises(ValueError, match=r"^dtype: l9 is a memory ceiling; only compute rows have a dtype$"):
        registry.CeilingSpec("l9", "memory", "L9", "#000000", dtype="fp32")
    with pytest.raises(ValueError, match=r"^gemm: int4-mma is a GEMM roof but names no dtype$"):
        registry.CeilingSpec("int4-mma", "compute", "int4", "#000000", gemm=True)
    with pytest.raises(ValueError, match=r"^group: must be one of core, matrix, got 'link'$"):
        vocabulary.compute_ceiling("fp32", "link")
    with pytest.raises(KeyError, match="computes in no dtype"):
        vocabulary.row_fields("dram")


def test_charts_dash_a_roof_by_its_rows_group_not_its_name():
    registry.register(registry.CeilingSpec("int8-mma", "compute", "int8 MMA", "#000000", group="matrix"))
    try:
        assert plotting._is_matrix_roof(Ceiling("int8-mma", "compute", 1000.0))  # no 'tensor' in it
    finally:
        registry.unregister("int8-mma")
    # a roof the registry lacks is drawn solid, whatever its name says
    assert not plotting._is_matrix_roof(Ceiling("tensor-ish", "compute", 1000.0))
    for spec in registry.specs():
        if spec.kind == "compute":
            assert plotting._is_matrix_roof(Ceiling(spec.name, "compute", 1000.0)) == (spec.group == "matrix")


# --- the names are spelled in one place -----------------------------------------------------------

def _literals(path: Path):
    """(line, text) of every string literal of ``path``, docstrings and f-strings' parts included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def test_no_module_but_the_vocabulary_spells_a_matrix_ceiling_name():
    # the derived tables' modules, the registry, the datasheets, the exercises' keys: all name
    # these ceilings through the vocabulary's constants (tests, data files and docs may spell them)
    found = [f"{path.relative_to(ROOT)}:{line}: {text!r}" for path in sorted(PACKAGE.rglob("*.py"))
             if path != HOME for line, text in _literals(path) if text in MATRIX_NAMES]
    assert not found, "spelled outside core/vocabulary.py:\n" + "\n".join(found)


def test_the_vocabulary_spells_every_matrix_name_once():
    spelled = [text for _, text in _literals(HOME) if text in MATRIX_NAMES]
    assert sorted(spelled) == sorted(MATRIX_NAMES)
    assert len(MATRIX_NAMES) == 6  # the check above would pass on an empty vocabulary
