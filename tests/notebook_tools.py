"""Keep the course notebooks committable: canonical format, fixed kernel, only checked outputs.

The notebooks are the source students open, so they are edited in JupyterLab.  Before a
commit, run

    .venv/bin/python tests/notebook_tools.py refresh notebooks/01_derivation.ipynb   # or several

which executes each notebook in a fresh kernel, keeps the plain-text outputs of the cells
tagged ``nbval-check-output`` (nbval compares those in CI), drops every other output and all
widget state, and writes the file in canonical nbformat.  ``strip`` does the same without
executing.  ``check`` lists what is wrong with a notebook; tests/test_notebooks.py runs it.

nbval's markers are cell tags (``nbval-check-output``, ``nbval-ignore-output``, ``nbval-skip``,
``nbval-raises-exception``), never comments a student reads.  ``tags`` moves any comment
marker (``# NBVAL_CHECK_OUTPUT`` as a line of its own) into the cell's tags: a JSON pass that
executes nothing, keeps every output, and changes nothing the second time, so it can be run on
every notebook whenever one is added::

    .venv/bin/python tests/notebook_tools.py tags notebooks/*.ipynb solutions/*.ipynb exercises/*.ipynb

Cells whose output depends on the machine (the measurements of notebooks 03 to 06) cannot be
compared, but a page that shows blank results reads wrong before it is run.  A cell marked
``# stored output: recorded H200 run`` keeps the printed text (stream output only) of a run in
recorded mode: ``refresh`` executes a notebook that has such cells with ``ROOFLINE_MODE=recorded``,
and ``mark`` adds the mark to every unmarked code cell that prints text in that mode.  nbval
never compares these cells (only ``nbval-check-output`` ones), so a live run may print other
numbers.
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
LANGUAGE_INFO = {"name": "python"}
CHECK_TAG = "nbval-check-output"
#: nbval's comment markers and the cell tags that say the same (nbval reads both).
COMMENT_TAGS = {"NBVAL_CHECK_OUTPUT": CHECK_TAG, "NBVAL_IGNORE_OUTPUT": "nbval-ignore-output",
                "NBVAL_SKIP": "nbval-skip", "NBVAL_RAISES_EXCEPTION": "nbval-raises-exception"}
RECORDED_MARK = "# stored output: recorded H200 run"
MAX_BYTES = 1_000_000
#: Output types kept in checked cells: the plain text nbval compares, nothing else.
KEPT_MIMETYPE = "text/plain"
#: Cell metadata a committed notebook keeps.
KEPT_CELL_METADATA = ("nbgrader", "tags")
#: Strings that must never appear in a committed notebook.
FORBIDDEN = {
    "plotly.js inlined": "Plotly.newPlot(",
    "a widget view": "application/vnd.jupyter.widget-view+json",
    "a saved plotly figure": "application/vnd.plotly.v1+json",
    "a pip install": "!pip",
}


def tags_of(cell) -> list:
    return list(cell.get("metadata", {}).get("tags", []))


def is_checked(cell) -> bool:
    return cell.cell_type == "code" and CHECK_TAG in tags_of(cell)


def _comment_marker(line: str):
    stripped = line.strip()
    return stripped.lstrip("#").strip() if stripped.startswith("#") else None


def comment_markers(cell) -> list:
    """nbval markers written as comments in a code cell's source."""
    if cell.cell_type != "code":
        return []
    return [m for m in map(_comment_marker, cell.source.splitlines()) if m in COMMENT_TAGS]


def to_tags(nb) -> int:
    """Move every nbval comment marker into its cell's tags; returns how many cells changed."""
    changed = 0
    for cell in nb.cells:
        markers = comment_markers(cell)
        if not markers:
            continue
        lines = [line for line in cell.source.splitlines(keepends=True)
                 if _comment_marker(line) not in COMMENT_TAGS]
        cell.source = "".join(lines).rstrip("\n") if lines else ""
        tags = tags_of(cell)
        for marker in markers:
            if COMMENT_TAGS[marker] not in tags:
                tags.append(COMMENT_TAGS[marker])
        cell.setdefault("metadata", nbformat.from_dict({}))["tags"] = tags
        changed += 1
    return changed


def tags(path: Path) -> int:
    """``to_tags`` on the file at ``path``, written back only when something moved."""
    nb = nbformat.read(str(path), as_version=4)
    changed = to_tags(nb)
    if changed:
        write(nb, path)
    return changed


def is_recorded(cell) -> bool:
    return cell.cell_type == "code" and RECORDED_MARK in cell.source and not is_checked(cell)


def _plain(output):
    """The output reduced to what nbval compares, or None to drop it."""
    if output.output_type == "stream":
        return nbformat.v4.new_output("stream", name=output.name, text=output.text)
    if output.output_type in ("execute_result", "display_data"):
        text = output.get("data", {}).get(KEPT_MIMETYPE)
        if text is None:
            return None
        if output.output_type == "execute_result":
            return nbformat.v4.new_output("execute_result", data={KEPT_MIMETYPE: text},
                                          execution_count=output.get("execution_count"))
        return nbformat.v4.new_output("display_data", data={KEPT_MIMETYPE: text})
    return None  # errors are never stored: a notebook that raises is not committed


def _recorded_text(output):
    """What a recorded-run cell keeps: printed text, and the plain-text form of a result that
    is not a figure or a widget (whose plain text is only a repr of the object)."""
    if output.output_type == "stream":
        return nbformat.v4.new_output("stream", name=output.name, text=output.text)
    data = output.get("data", {})
    if output.output_type in ("execute_result", "display_data") and KEPT_MIMETYPE in data:
        if any(m.startswith(("application/vnd.plotly", "application/vnd.jupyter.widget"))
               for m in data):
            return None
        return nbformat.v4.new_output("display_data", data={KEPT_MIMETYPE: data[KEPT_MIMETYPE]})
    return None


def canonical(nb):
    """The notebook with the fixed kernelspec, no widget state, and outputs only where checked."""
    nb.metadata = nbformat.from_dict({"kernelspec": dict(KERNELSPEC),
                                      "language_info": dict(LANGUAGE_INFO)})
    for index, cell in enumerate(nb.cells):
        # nbgrader's cell metadata and the cell tags (nbval's markers) are content; the rest
        # (collapsed, scrolled, execution timings) is editor state.
        kept = {k: cell.metadata[k] for k in KEPT_CELL_METADATA if k in cell.metadata}
        cell.metadata = nbformat.from_dict(kept)
        if cell.cell_type != "code":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
            continue
        if is_checked(cell):
            outputs = [kept for kept in (_plain(o) for o in cell.get("outputs", [])) if kept]
            count = 1 if outputs else None
            for output in outputs:
                if output.output_type == "execute_result":
                    output.execution_count = count
            cell.outputs = outputs
            cell.execution_count = count
        elif is_recorded(cell):
            cell.outputs = [kept for kept in (_recorded_text(o) for o in cell.get("outputs", []))
                            if kept]
            # nbval refuses a stored output without an execution count ("unrun reference cell")
            cell.execution_count = 1 if cell.outputs else None
        else:
            cell.outputs = []
            cell.execution_count = None
    nb.nbformat, nb.nbformat_minor = 4, 5
    return nb


def execute(nb, path: Path, timeout: int = 600):
    from nbclient import NotebookClient
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return nb


def write(nb, path: Path) -> None:
    nbformat.validate(nb)
    nbformat.write(nb, str(path))


def _execute_recorded(nb, path: Path):
    """Execute with ROOFLINE_MODE=recorded (the kernel inherits this process's environment)."""
    import os
    before = os.environ.get("ROOFLINE_MODE")
    os.environ["ROOFLINE_MODE"] = "recorded"
    try:
        return execute(nb, path)
    finally:
        if before is None:
            os.environ.pop("ROOFLINE_MODE", None)
        else:
            os.environ["ROOFLINE_MODE"] = before


def refresh(path: Path) -> None:
    nb = nbformat.read(str(path), as_version=4)
    if any(is_recorded(cell) for cell in nb.cells):
        _execute_recorded(nb, path)
    else:
        execute(nb, path)
    write(canonical(nb), path)


def mark(path: Path) -> list:
    """Execute in recorded mode, mark every unmarked code cell that printed text, and keep its
    output.  Returns the indices of the cells it marked."""
    nb = nbformat.read(str(path), as_version=4)
    _execute_recorded(nb, path)
    marked = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or is_checked(cell) or is_recorded(cell):
            continue
        if any(_recorded_text(o) for o in cell.get("outputs", [])):
            cell.source = RECORDED_MARK + "\n" + cell.source
            marked.append(index)
    write(canonical(nb), path)
    return marked


def strip(path: Path) -> None:
    nb = nbformat.read(str(path), as_version=4)
    write(canonical(nb), path)


def check(path: Path) -> list:
    """Everything that keeps ``path`` from being committed, one line each (empty when fine)."""
    problems = []
    text = path.read_text(encoding="utf-8")
    if len(text.encode("utf-8")) >= MAX_BYTES:
        problems.append(f"larger than {MAX_BYTES} bytes")
    for what, needle in FORBIDDEN.items():
        if needle in text:
            problems.append(f"contains {what} ({needle!r})")
    nb = nbformat.reads(text, as_version=4)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        problems.append(f"invalid nbformat: {str(exc).splitlines()[0]}")
    if dict(nb.metadata.get("kernelspec", {})) != KERNELSPEC:
        problems.append(f"kernelspec is {dict(nb.metadata.get('kernelspec', {}))}, not {KERNELSPEC}")
    if "widgets" in nb.metadata:
        problems.append("saved widget state in the notebook metadata")
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if "import *" in cell.source:
            problems.append(f"cell {index}: star import")
        if cell.outputs and not (is_checked(cell) or is_recorded(cell)):
            problems.append(f"cell {index}: outputs stored in a cell nbval does not check")
        if is_recorded(cell) and not cell.outputs:
            problems.append(f"cell {index}: marked {RECORDED_MARK!r} but has no stored output")
        if is_recorded(cell) and any(set(o.get("data", {})) - {KEPT_MIMETYPE} for o in cell.outputs):
            problems.append(f"cell {index}: a recorded-run cell may store plain text only")
        if is_checked(cell) and not cell.outputs:
            problems.append(f"cell {index}: tagged {CHECK_TAG} but has no stored output")
        if comment_markers(cell):
            problems.append(f"cell {index}: nbval marker {comment_markers(cell)[0]} written as a "
                            "comment; make it a tag (run: tests/notebook_tools.py tags FILE)")
        for output in cell.outputs:
            data = output.get("data", {})
            extra = set(data) - {KEPT_MIMETYPE}
            if extra:
                problems.append(f"cell {index}: stored output has {sorted(extra)}")
            if output.output_type == "error":
                problems.append(f"cell {index}: stored error output")
    canonical_text = nbformat.writes(canonical(nbformat.reads(text, as_version=4))) + "\n"
    if canonical_text != text:
        problems.append("not in canonical form (run: tests/notebook_tools.py strip FILE)")
    return problems


def main(argv) -> int:
    if len(argv) < 2 or argv[0] not in ("refresh", "strip", "check", "mark", "tags"):
        print(__doc__)
        return 2
    status = 0
    for name in argv[1:]:
        path = Path(name)
        if argv[0] == "refresh":
            refresh(path)
            print(f"refreshed {path}")
        elif argv[0] == "mark":
            print(f"marked {path}: cells {mark(path)}")
        elif argv[0] == "tags":
            print(f"tagged {path}: {tags(path)} cells moved their nbval markers to tags")
        elif argv[0] == "strip":
            strip(path)
            print(f"stripped {path}")
        else:
            for problem in check(path):
                print(f"{path}: {problem}")
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
