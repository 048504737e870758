"""benchmarks/ holds maintained scripts only: each is listed in benchmarks/README.md and has its
latest figure, dated and with its machine, in benchmarks/REPORT.md, and every path the course
cites into benchmarks/ or docs/measurements/ exists."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
MEASUREMENTS = ROOT / "docs" / "measurements"
SCRIPT_SUFFIXES = (".py", ".sh", ".c")
# A cited path: a folder name, then path characters; templates (<machine>, {numba,cupy}, *)
# name a family of files, not one, and are left out.
CITED = re.compile(r"(?<![\w/.])(benchmarks|docs/measurements)/([\w./<>{},*-]*)")


def scripts():
    return sorted(p.name for p in BENCH.iterdir() if p.is_file() and p.suffix in SCRIPT_SUFFIXES)


def listed_in_readme():
    text = (BENCH / "README.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([\w.]+\.(?:py|sh|c))`", row.split("|")[1])}


def report_sections():
    text = (BENCH / "REPORT.md").read_text(encoding="utf-8")
    return re.split(r"^## ", text, flags=re.M)[1:]


def test_benchmarks_holds_scripts_and_its_two_pages_only():
    others = sorted(p.name for p in BENCH.iterdir()
                    if p.name not in ("README.md", "REPORT.md", "__pycache__")
                    and p.suffix not in SCRIPT_SUFFIXES)
    assert others == [], f"per-run outputs and folders go to docs/measurements/ or the history: {others}"


def test_every_script_is_listed_in_the_readme_and_every_listed_script_exists():
    assert set(scripts()) == listed_in_readme()


def test_every_script_has_a_current_figure_with_date_and_machine_in_the_report():
    sections = report_sections()
    assert sections, "REPORT.md has no sections"
    for name in scripts():
        if name.endswith(".c"):
            continue  # a reference program, built and run by the script beside it
        own = [s for s in sections if f"`{name}`" in s.splitlines()[0]]
        assert own, f"{name}: no section of REPORT.md names it in its heading"
    for section in sections:
        heading = section.splitlines()[0]
        assert re.search(r"\b20\d\d-\d\d-\d\d\b", section), f"{heading}: no date"
        assert re.search(r"\bH200\b|2-core VM", section), f"{heading}: no machine"
        cited = [m.group(0) for m in CITED.finditer(section)] + re.findall(r"`([\w/]+\.json)`", section)
        assert cited, f"{heading}: names no result file"


def cited_paths():
    sources = [ROOT / "README.md", ROOT / "STYLE.md", ROOT / "REFERENCES.md", ROOT / "course.py",
               BENCH / "README.md", BENCH / "REPORT.md", ROOT / ".ci" / "run"]
    sources += sorted(BENCH.glob("*.py")) + sorted(BENCH.glob("*.sh"))
    sources += sorted((ROOT / "rooflinelib").rglob("*.py")) + sorted((ROOT / "rooflinelib").rglob("*.json"))
    sources += sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "labs").glob("*"))
    sources += sorted(p for p in (ROOT / "tests").rglob("*.py") if "__pycache__" not in p.parts)
    for folder in ("notebooks", "solutions", "exercises"):
        sources += sorted((ROOT / folder).glob("*.ipynb"))
    for path in sources:
        if not path.is_file() or path == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in CITED.finditer(text):
            rest = match.group(2).rstrip(".,:;)")
            if any(c in rest for c in "<>{}*") or rest.endswith(("/...", "PATH")):
                continue
            yield path.relative_to(ROOT), f"{match.group(1)}/{rest}"


def test_every_path_cited_into_benchmarks_or_measurements_exists():
    missing = sorted({f"{where}: {cited}" for where, cited in cited_paths() if not (ROOT / cited).exists()})
    assert missing == []


def test_the_cited_path_check_can_fail(tmp_path):
    # the same pattern does find a path, so an empty list above is not vacuous
    found = [m.group(0) for m in CITED.finditer("see `benchmarks/h200_run16.sh` and docs/measurements/x.json.")]
    assert found == ["benchmarks/h200_run16.sh", "docs/measurements/x.json."]
    assert not (ROOT / "benchmarks" / "h200_run16.sh").exists()


def test_the_history_names_the_commit_that_holds_the_removed_runs():
    text = (MEASUREMENTS / "history.md").read_text(encoding="utf-8")
    # it names the commit that still holds the per-run files that left the tree
    assert re.search(r"git show [0-9a-f]{7,}:benchmarks/", text)


LOCAL_PATH = re.compile(r"(?<![\w$.])/(?:root|tmp|work)/|\.\./shared")


def test_no_machine_local_path_in_benchmarks_or_measurements():
    found = []
    for path in sorted(BENCH.rglob("*")) + sorted(MEASUREMENTS.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            text = path.read_bytes().decode("utf-8", errors="replace")
            found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in LOCAL_PATH.finditer(text)]
    assert found == []
    assert LOCAL_PATH.search('cache = Path("/tmp/x")') and not LOCAL_PATH.search("$OUT/run17")


def test_gate_targets_checks_both_files_before_it_measures_or_writes(tmp_path):
    # issue 26: a command that writes two files checks both first; gate_targets wrote --out,
    # then failed on --record and left --out replaced
    out = tmp_path / "out.json"
    out.write_text("kept\n")
    script = ROOT / "benchmarks" / "gate_targets.py"
    done = subprocess.run([sys.executable, str(script), "--backend", "cpu", "--n", "1", "--out", str(out),
                           "--record", "/proc/no-such-folder/gates.json"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode != 0
    assert "/proc/no-such-folder/gates.json" in done.stderr and "Traceback" not in done.stderr
    assert out.read_text() == "kept\n"
    same = subprocess.run([sys.executable, str(script), "--backend", "cpu", "--out", str(out),
                           "--record", str(out)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert same.returncode != 0 and "same file as --out" in same.stderr and out.read_text() == "kept\n"
