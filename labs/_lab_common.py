"""What the two terminal labs share: run a ``roofline`` subcommand with a default --out."""
from __future__ import annotations

from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"


def run_lab(command: str, stem: str, argv: list) -> int:
    from rooflinelib.cli import main
    argv = list(argv)
    if "--out" not in argv and not any(a.startswith("--out=") for a in argv):
        backend = "auto"
        for i, a in enumerate(argv):
            if a == "--backend" and i + 1 < len(argv):
                backend = argv[i + 1]
            elif a.startswith("--backend="):
                backend = a.split("=", 1)[1]
        RESULTS_DIR.mkdir(exist_ok=True)
        argv += ["--out", str(RESULTS_DIR / f"{stem}_{backend}.json")]
    return main([command, *argv])
