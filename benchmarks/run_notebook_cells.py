"""Run a notebook's code cells in order, in one namespace, without Jupyter (the GPU machine has
none), and print what each printed: a smoke test of a notebook's live GPU path.  Cells that need
a display library the machine lacks (plotly, ipywidgets) are reported and skipped; any other
error fails the run.

    python3 benchmarks/run_notebook_cells.py notebooks/07_place_your_kernel.ipynb
"""
import json
import sys
import time
import traceback

DISPLAY_ONLY = ("plotly", "ipywidgets", "anywidget", "IPython")


def main(path: str) -> int:
    with open(path, encoding="utf-8") as f:
        cells = [c for c in json.load(f)["cells"] if c["cell_type"] == "code"]
    namespace = {"display": lambda *shown, **kw: None, "__name__": "__main__"}
    failed = 0
    for i, cell in enumerate(cells):
        source = "".join(cell["source"])
        print(f"--- cell {i}: {source.splitlines()[0][:80] if source.strip() else ''}", flush=True)
        t0 = time.perf_counter()
        try:
            exec(compile(source, f"{path}:cell{i}", "exec"), namespace)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] in DISPLAY_ONLY:
                print(f"    skipped: {exc.name} is not installed here (display only)")
                continue
            traceback.print_exc()
            failed += 1
        except Exception:
            traceback.print_exc()
            failed += 1
        print(f"    ({time.perf_counter() - t0:.1f} s)", flush=True)
    print(f"{len(cells)} code cells, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
