"""The exercises under real nbgrader: generate_assignment releases a solution notebook, autograde
scores a filled-in submission full marks and an unanswered one zero, and nbgrader's release
agrees with exercisegen's student copy cell for cell (exercisegen keeps NOT_ANSWERED stubs
where nbgrader writes ``raise NotImplementedError()``)."""
from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from rooflinelib.exercises import generator

pytest.importorskip("nbgrader", reason="nbgrader is in the test extra: pip install -e '.[test]'")

ROOT = Path(__file__).resolve().parents[2]
NAME = "03_attention_intensity"
ASSIGNMENT = "ex03"

pytestmark = pytest.mark.slow


def _nbgrader(course: Path, *args):
    # nbgrader runs alembic from the PATH to create its gradebook
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={course}",
                           f"--CourseDirectory.db_url=sqlite:///{course / 'gradebook.db'}"],
                          capture_output=True, text=True, timeout=600, cwd=course, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    (root / "source" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / f"{NAME}.ipynb", root / "source" / ASSIGNMENT)
    _nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")
    return root


def _meta(cell) -> dict:
    meta = dict(cell.metadata.get("nbgrader", {}))
    meta.pop("checksum", None)  # nbgrader's release adds these two
    meta.pop("cell_type", None)
    return meta


def _names_assigned(source: str) -> set:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
    return names


def _signature_lines(source: str) -> set:
    lines = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines.add(source.splitlines()[node.lineno - 1].strip())
            doc = ast.get_docstring(node, clean=False)
            if doc:
                lines |= {line.strip() for line in doc.splitlines()}
                lines |= {f'"""{line.strip()}"""' for line in doc.splitlines()}
    return lines


def test_every_solution_and_exercise_carries_valid_nbgrader_metadata():
    from nbgrader.nbgraderformat import MetadataValidator, ValidationError
    validator = MetadataValidator()
    for folder in ("solutions", "exercises"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            nb = nbformat.read(str(path), as_version=4)
            graded = [c for c in nb.cells if "nbgrader" in c.metadata]
            assert graded, f"{folder}/{path.name} has no nbgrader cells"
            try:
                validator.validate_nb(nb)
            except ValidationError as exc:
                pytest.fail(f"{folder}/{path.name}: {exc}")
            assert any(c.metadata["nbgrader"]["solution"] for c in graded)
            assert all(c.metadata["nbgrader"].get("points") == generator.TEST_POINTS
                       for c in graded if c.metadata["nbgrader"]["grade"])


def test_release_agrees_with_exercisegen_cell_for_cell(course):
    release = nbformat.read(str(course / "release" / ASSIGNMENT / f"{NAME}.ipynb"), as_version=4)
    ours = nbformat.read(str(ROOT / "exercises" / f"{NAME}.ipynb"), as_version=4)
    solution = nbformat.read(str(ROOT / "solutions" / f"{NAME}.ipynb"), as_version=4)
    assert [c.cell_type for c in release.cells] == [c.cell_type for c in ours.cells]
    strip = lambda text: text.replace(generator.RECORDED_MARK + "\n", "")  # noqa: E731
    for theirs, mine, source in zip(release.cells, ours.cells, solution.cells):
        assert _meta(theirs) == _meta(mine), (_meta(theirs), _meta(mine))
        meta = _meta(mine)
        if meta.get("solution"):
            # Both drop every line of the worked answer; ours binds the same names to the stub.
            answer = generator._solution_lines(source)
            kept = _signature_lines(answer)  # a stub keeps a function's signature and docstring
            for line in filter(str.strip, answer.splitlines()):
                assert line not in theirs.source, line
                assert line not in mine.source or line.strip() in kept, line
            assert "raise NotImplementedError()" in theirs.source
            assert _names_assigned(mine.source) == _names_assigned(answer) - {"_"}, mine.source
            assert generator.SENTINEL in mine.source
        else:
            # Hidden tests gone from both, everything else the same.
            assert strip(theirs.source) == mine.source
            assert "HIDDEN TESTS" not in mine.source


def test_autograde_scores_a_filled_in_submission_full_and_an_unanswered_one_zero(course):
    release = nbformat.read(str(course / "release" / ASSIGNMENT / f"{NAME}.ipynb"), as_version=4)
    solution = nbformat.read(str(ROOT / "solutions" / f"{NAME}.ipynb"), as_version=4)
    answers = {c.metadata["nbgrader"]["grade_id"]: generator._solution_lines(c)
               for c in solution.cells if c.metadata.get("nbgrader", {}).get("solution")}
    filled = nbformat.from_dict(release)
    for cell in filled.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]  # what a student who got it right wrote
    for student, notebook in (("alice", filled),
                              ("bob", nbformat.read(str(ROOT / "exercises" / f"{NAME}.ipynb"), as_version=4))):
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(notebook, str(folder / f"{NAME}.ipynb"))
    _nbgrader(course, "autograde", ASSIGNMENT, "--create", "--force")
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        alice = gradebook.find_submission(ASSIGNMENT, "alice")
        bob = gradebook.find_submission(ASSIGNMENT, "bob")
        checks = sum(1 for c in release.cells if c.metadata.get("nbgrader", {}).get("grade"))
        assert alice.max_score == checks * generator.TEST_POINTS > 0
        assert alice.score == alice.max_score, (alice.score, alice.max_score)
        assert bob.score == 0, bob.score
