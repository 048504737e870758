#!/usr/bin/env bash
# Execute the course notebooks on the GPU machine (which has no Jupyter) and keep the results.
#
#   here:  bash benchmarks/gpu_notebooks.sh fetch         # wheels for Python 3.12 into .whl/
#   there: bash benchmarks/gpu_notebooks.sh run [NB ...]  # default: notebooks/*.ipynb
#
# "there" is the device tool's command, with `.whl` carried; executed copies and a log go to
# $OUT (at most 8 files come back, so name the notebooks if there are more than 7).
# The numpy 2.4.6 wheel is among them: numba-cuda 0.30.4 cannot compile with numpy 2.5.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
fetch)
    python3 -m pip download --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 --platform any -d .whl \
        numpy==2.4.6 nbclient nbformat ipykernel plotly ipywidgets anywidget
    ;;
run)
    shift
    python3 -m pip install -q --no-index --no-deps --target /tmp/nbsite .whl/*.whl
    export PYTHONPATH=/tmp/nbsite:$PWD PYTHONUNBUFFERED=1 ROOFLINE_MODE=gpu
    out=${OUT:-/tmp/nbout}
    mkdir -p "$out"
    notebooks=("$@")
    [ ${#notebooks[@]} -eq 0 ] && notebooks=(notebooks/*.ipynb)
    python3 - "$out" "${notebooks[@]}" <<'PY' 2>&1 | tee "$out/notebooks.log"
import sys, time
from pathlib import Path
import nbformat
from nbclient import NotebookClient
out, paths = Path(sys.argv[1]), sys.argv[2:]
failed = 0
for path in paths:
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(Path(path).parent)}}).execute()
        status = "ok"
    except Exception as exc:
        failed += 1
        status = f"FAILED: {' '.join(str(exc).split())[:300]}"
    nb.metadata.pop("widgets", None)  # no saved widget state
    nbformat.write(nb, str(out / Path(path).name))
    print(f"{path}: {status} ({time.perf_counter() - t0:.0f} s)", flush=True)
sys.exit(1 if failed else 0)
PY
    ;;
*)
    sed -n '2,9p' "$0"; exit 2 ;;
esac
