"""Notebook 00 names GEMM before using the word: its first use (the start page's tiled kernel) spells
it out, so the course never uses the abbreviation before defining it (review 41a, clarity)."""
import json
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "notebooks" / "00_start_here.ipynb"


def _markdown() -> str:
    cells = json.loads(PAGE.read_text())["cells"]
    return " ".join(" ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown").split())


def test_00_spells_out_gemm_at_its_first_use():
    text = _markdown()
    first = text.index("GEMM")
    assert text[first - len("matrix multiply ("):first] == "matrix multiply ("
    assert "A tiled matrix multiply (GEMM) at 90 FLOP/byte sits right of the ridge" in text
