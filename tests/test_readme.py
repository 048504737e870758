"""README.md is the front door: short, with the sections a newcomer looks for, and every file it
links or names exists.  (The quick start's two commands are checked in test_packaging.py.)"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 180
SECTIONS = ("Quick start", "Three modes", "What is where", "Exercises", "The `roofline` command",
            "Place your own kernel")
DOCS = ("README.md", "docs/install.md", "docs/testing.md", "docs/instructors.md",
        "benchmarks/README.md", "benchmarks/REPORT.md")


def readme():
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_is_short():
    assert len(readme().splitlines()) <= MAX_LINES


def test_readme_has_the_front_door_sections():
    headings = re.findall(r"^## (.+)$", readme(), flags=re.M)
    assert [s for s in SECTIONS if s not in headings] == []


def test_readme_says_how_the_course_tells_its_mode():
    modes = readme().split("## Three modes", 1)[1].split("\n## ", 1)[0]
    assert "always says which" in modes
    assert all(m in modes for m in ("live GPU", "live CPU", "recorded H200"))


def links(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)\)", text):
        if not re.match(r"[a-z]+://", target):
            yield (ROOT / path).parent / target
    # paths written as code: `notebooks/`, `labs/my_kernel.py`, `docs/...md`
    for name in re.findall(r"`((?:notebooks|labs|exercises|solutions|docs|benchmarks|rooflinelib|tests)"
                           r"/[\w./-]*)`", text):
        if not any(c in name for c in "<>*"):
            yield ROOT / name


def test_every_link_and_path_in_the_front_pages_exists():
    missing = [f"{doc}: {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}"
               for doc in DOCS for target in links(doc) if not target.resolve().exists()]
    assert missing == []


def test_the_link_check_can_fail(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[a](nowhere.md) and `labs/nowhere.py`", encoding="utf-8")
    found = [p.name for p in links(page)]  # an absolute path: ROOT / page stays the page
    assert found == ["nowhere.md", "nowhere.py"]
