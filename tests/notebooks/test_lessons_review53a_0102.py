"""Review 53a, notebooks 01 and 02 (and review 58a, notebook 00's learning path row for 05): only the low-precision tensor peaks assume the 1.83 GHz clock
(the fp64 tensor peak is taken at the 1.98 GHz boost, as the fp32 one is), and notebook 04 tests the
fused softmax's predicted 2.5x rather than measuring it (its recorded ratio is larger). Each test
fails on the text before the fix; neither notebook's markdown grew."""
from test_lessons_03 import cells, markdown, words

from rooflinelib.core.machines import FP64_MATRIX, H200

NB01, NB02 = "01_derivation.ipynb", "02_operator_intensities.ipynb"


def _markdown_words(name):
    return sum(len(c.source.split()) for c in cells(name) if c.cell_type == "markdown")


def test_53a_0102_did_not_grow():
    assert _markdown_words(NB01) <= 2367 and _markdown_words(NB02) <= 2194


def test_53a_01_the_clock_sentence_names_the_low_precision_tensor_peaks_only():
    prose = words(markdown(NB01))
    low_ghz = H200.ceiling("bf16-tensor").value / (132 * 4096)
    fp64_tensor_ghz = H200.ceiling(FP64_MATRIX).value / (132 * 256)
    fp32_ghz = H200.ceiling("fp32").value / (132 * 128 * 2)
    assert round(fp64_tensor_ghz, 2) == round(fp32_ghz, 2) != round(low_ghz, 2)
    assert "the H200's tensor peaks assume" not in prose
    assert f"the H200's low-precision tensor peaks assume {low_ghz:.2f} GHz" in prose


def test_53a_02_notebook_04_tests_the_prediction_it_does_not_measure_it():
    prose = words(markdown(NB02))
    assert "Notebook 04 measures the 2.5x" not in prose
    assert "Notebook 04 tests the 2.5x." in prose


def test_58a_00_the_learning_path_row_for_05_says_what_05_teaches_and_its_drill():
    path = next(c.source for c in cells("00_start_here.ipynb")
                if c.cell_type == "markdown" and c.source.startswith("## The learning path"))
    row = next(line for line in path.splitlines() if "(05_hierarchical.ipynb)" in line)
    assert "shared memory as ceilings" not in row and "AMD" not in row  # 05 draws no shared-memory roof, names no AMD
    assert "L1, L2 and HBM roofs, from a working-set sweep and Nsight Compute" in row
    # notebook 04 sends the student back to exercise 1 for a falling bandwidth roof, not the sweep's curve
    assert "exercise 1 again |" in path and "on the sweep's curve" not in path
    assert row.rstrip().endswith("| exercise 5, drill 5 |")
    fifth = " ".join(markdown("05_hierarchical.ipynb").split())
    assert "Now do exercise 5, drill 5" in fifth and "Nsight Compute" in fifth and "AMD" not in fifth
