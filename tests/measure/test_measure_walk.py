"""The walk of one `roofline measure` from the CLI to its result file (benchmarks/measure_walk.py)
enters no module without a reason: the CPU backend reads the CPU's name and its caches once
(it read /proc/cpuinfo again for the result's device block and sysfs again for the copy's
note), and the result enters store.results once on its way in and once on its way out."""
import copy
import sys

import pytest

from rooflinelib.cli import main
from rooflinelib.cli import measure as cli_measure
from rooflinelib.measure import cpu as cpu_lane
from rooflinelib.measure import provenance
from rooflinelib.store import lab_files, results
from support.scripts import load_script



def _walk_module():
    return load_script("benchmarks/measure_walk.py", "measure_walk")


def test_the_cpu_backend_reads_the_cpu_name_and_its_caches_once(monkeypatch):
    pytest.importorskip("numba")
    reads = []

    def counting(real):
        def read_text(path, *args, **kwargs):
            reads.append(str(path))
            return real(path, *args, **kwargs)
        return read_text

    monkeypatch.setattr(cpu_lane, "read_text", counting(cpu_lane.read_text))
    monkeypatch.setattr(provenance, "read_text", counting(provenance.read_text))
    backend = cpu_lane.CpuBackend(repeats=2)
    backend.copy_runs(1 << 20)
    device = backend.finish(backend.start())
    assert reads.count("/proc/cpuinfo") <= 1
    sizes = [p for p in reads if p.endswith("/size")]
    assert len(sizes) == len(set(sizes)), f"a cache size read twice: {sorted(sizes)}"
    assert device["name"] == f"CPU: {provenance.cpu_name()}"


def test_cpu_provenance_takes_the_name_the_caller_holds(monkeypatch):
    monkeypatch.setattr(provenance, "read_text", lambda *a, **k: pytest.fail("read again"))
    assert provenance.cpu_provenance(2, "Some CPU")["name"] == "CPU: Some CPU"


def test_measure_enters_the_result_store_once_in_and_once_out(monkeypatch, tmp_path, capsys):
    walk_module = _walk_module()
    recorded = results.recorded("ceilings", "numba")
    monkeypatch.setenv(lab_files.RESULTS_DIR_ENV, str(tmp_path / "store"))
    # a stand-in Lab 1 that returns its result validated, as the real one does
    monkeypatch.setattr(cli_measure, "measure_ceilings",
                        lambda *a, **k: results.validate(copy.deepcopy(recorded)))
    walk = walk_module.Walk(origins=("__main__", walk_module.__name__, __name__))
    sys.setprofile(walk.hook)
    try:
        code = main(["measure", "--backend", "cpu", "--quiet", "--out", str(tmp_path / "c.json")])
    finally:
        sys.setprofile(None)
    assert code == 0 and (tmp_path / "c.json").is_file()
    into_results = [(c, n) for (c, callee), n in walk.crossings.items()
                    if callee.startswith("rooflinelib.store.results.")]
    assert sorted(into_results) == sorted([(f"{__name__}.<lambda>", 1),  # in: Lab 1's validate
                                           ("rooflinelib.cli.measure._finish", 1)])  # out: save
    summary = walk.summary()
    assert summary["modules"]["rooflinelib.store.results"] == 2
    checks = [n for (c, callee), n in walk.crossings.items()
              if callee == "rooflinelib.store.validation.check"]
    assert sum(checks) == 2  # validated once in, once out
    assert "rooflinelib.store.validation" in summary["callbacks"]  # jsonschema's number test
