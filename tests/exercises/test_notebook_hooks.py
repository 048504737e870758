"""A check cell run before its answer cell says NOT ANSWERED YET, in a real IPython kernel."""
from __future__ import annotations

import nbformat
import pytest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(cells):
    from nbclient import NotebookClient
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    client = NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    return nb


def _text(cell):
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


@pytest.mark.slow
def test_check_before_answer_says_not_answered_yet_and_other_name_errors_keep_their_traceback():
    exercise = nbformat.read(str(ROOT / "exercises" / "02_classify_kernels.ipynb"), as_version=4)
    code = [c.source for c in exercise.cells if c.cell_type == "code"]
    imports = code[0]
    check = next(c for c in code if "check_ridges(" in c)
    nb = _run([imports, check, "print(undefined_thing + 1)"])
    first, early, other = nb.cells
    assert not [o for o in early.outputs if o.output_type == "error"], early.outputs
    text = _text(early)
    assert text.startswith("[NOT ANSWERED YET] ridge_fp32:") and "Run the answer cell above" in text
    assert [o.ename for o in other.outputs if o.output_type == "error"] == ["NameError"]


def test_install_outside_ipython_does_nothing():
    from rooflinelib.exercises import notebook_hooks
    assert notebook_hooks.install() is False
