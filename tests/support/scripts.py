"""Load a repository script (course.py, a lab, a benchmark, conftest.py) as a module by its path:
the scripts are not importable by name, and their main() runs only under __main__."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_script(relative: str, name: str = None):
    """The module defined by ``ROOT / relative`` (functions and constants only)."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(name or path.stem.replace("-", "_") + "_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
