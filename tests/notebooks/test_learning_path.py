"""Exercises and labs are numbered in the order a student meets them on notebook 00's learning
path, and every place that names one (file name, title, answer-key module, the notebooks'
links and mentions) carries the same number.  Numbering by topic had exercise 4 first, after
notebook 01, and the labs met as 1, 3, 2, 4."""
import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
EXERCISE_LINK = re.compile(r"\[exercise (\d+)[^\]]*\]\(\.\./exercises/([^)]+\.ipynb)\)", re.I)
ANY_EXERCISE_LINK = re.compile(r"\]\(\.\./exercises/([^)]+\.ipynb)\)")
LAB = re.compile(r"\bLabs? (\d)(?: and (\d))?\b")


def _markdown(path: Path) -> list:
    return [cell.source for cell in nbformat.read(str(path), as_version=4).cells
            if cell.cell_type == "markdown"]


def _learning_path() -> str:
    cells = [s for s in _markdown(ROOT / "notebooks" / "00_start_here.ipynb")
             if s.startswith("## The learning path")]
    assert len(cells) == 1, "notebook 00 has one learning-path cell"
    return cells[0]


def _table_rows(text: str) -> list:
    return [line for line in text.splitlines() if re.match(r"\| \d+ \|", line)]


def test_the_learning_path_links_the_exercises_in_number_order_to_their_files():
    links = EXERCISE_LINK.findall(_learning_path())
    numbers = [int(number) for number, _ in links]
    assert numbers == list(range(1, len(numbers) + 1)), f"exercises met in the order {numbers}"
    files = [name for _, name in links]
    assert files == sorted(p.name for p in (ROOT / "exercises").glob("*.ipynb"))
    for number, name in links:
        assert name.startswith(f"{int(number):02d}_"), f"exercise {number} links {name}"


def test_each_lesson_sends_the_student_to_the_exercise_the_path_lists_after_it():
    path = {}
    for row in _table_rows(_learning_path()):
        lesson = re.search(r"\]\((\d\d_[a-z_]+\.ipynb)\)", row)
        if lesson:
            path[lesson.group(1)] = [name for _, name in EXERCISE_LINK.findall(row)]
    for lesson, exercises in path.items():
        text = "\n".join(_markdown(ROOT / "notebooks" / lesson))
        linked = ANY_EXERCISE_LINK.findall(text)
        for name in exercises:
            assert name in linked, f"{lesson} does not link {name}"
        for number, name in EXERCISE_LINK.findall(text):
            assert name.startswith(f"{int(number):02d}_"), f"{lesson}: exercise {number} links {name}"


def test_each_exercise_and_its_answer_key_module_carry_the_number_of_its_file():
    for folder in ("solutions", "exercises"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            number = int(path.name[:2])
            cells = nbformat.read(str(path), as_version=4).cells
            assert cells[0].source.startswith(f"# Exercise {number}"), f"{folder}/{path.name}"
            for module in re.findall(r"rooflinelib\.exercises import (ex\d\d)_", cells[1].source):
                assert module == f"ex{number:02d}", f"{folder}/{path.name} imports {module}"
    modules = sorted(p.stem for p in (ROOT / "rooflinelib" / "exercises").glob("ex*.py"))
    assert [int(m[2:4]) for m in modules] == list(range(1, len(modules) + 1))


def test_the_lessons_meet_the_labs_in_number_order():
    # notebook 00 lists them all up front; from notebook 01 on, the first mention of each lab
    # is where the student meets it
    first = []
    for path in sorted((ROOT / "notebooks").glob("0[1-9]_*.ipynb")):
        for source in _markdown(path):
            for match in LAB.finditer(source):
                for number in filter(None, match.groups()):
                    if int(number) not in first:
                        first.append(int(number))
    assert first == sorted(first) == list(range(1, len(first) + 1)), f"labs met as {first}"
    rows = [n for row in _table_rows(_learning_path()) for m in LAB.finditer(row)
            for n in map(int, filter(None, m.groups()))]
    assert rows == list(range(1, 5)), f"notebook 00's path names the labs as {rows}"


def test_each_lab_file_is_titled_with_the_numbers_in_its_name():
    for path in sorted((ROOT / "labs").glob("lab*")):
        if path.suffix not in (".md", ".py") or path.name == "lab4_target.py":
            continue  # lab4_target.py is the program Lab 4 profiles, not a lab
        numbers = re.findall(r"lab(\d)", path.stem)
        head = "\n".join(path.read_text(encoding="utf-8").splitlines()[:3])
        titled = [n for m in LAB.finditer(head) for n in filter(None, m.groups())]
        assert titled[:len(numbers)] == numbers, f"labs/{path.name} is titled {titled}"
