"""A result is validated once on its way in (when Lab 1 or Lab 3 makes it) and once on its way
out (before it is written): `roofline measure --out F --csv C` checked the same dict three
times, once more for the CSV written beside the JSON."""
import copy

import pytest

from rooflinelib.store import lab_files, results, validation
from rooflinelib.cli import main
from rooflinelib.cli import measure as cli_measure


@pytest.fixture
def checks(monkeypatch, tmp_path):
    """The kinds of the dicts validated, in order, while a stand-in Lab 1 returns the recorded
    ceilings validated, as the real one does."""
    recorded = results.recorded("ceilings", "numba")  # read (and checked) before the count starts
    seen = []
    real = validation.check

    def counting(data, checker, where, error):
        seen.append(data.get("kind") if isinstance(data, dict) else None)
        return real(data, checker, where, error)

    monkeypatch.setattr(validation, "check", counting)
    monkeypatch.setenv(lab_files.RESULTS_DIR_ENV, str(tmp_path / "store"))
    monkeypatch.setattr(cli_measure, "measure_ceilings",
                        lambda *a, **k: results.validate(copy.deepcopy(recorded)))
    return seen


def test_measure_with_out_and_csv_validates_once_in_and_once_out(checks, tmp_path, capsys):
    out, csv = tmp_path / "c.json", tmp_path / "c.csv"
    assert main(["measure", "--backend", "cpu", "--out", str(out), "--csv", str(csv), "--quiet"]) == 0
    assert checks == ["ceilings", "ceilings"]  # was three: the CSV validated it again
    saved = results.load(out)
    assert csv.read_text() == lab_files.to_csv(saved)


def test_measure_with_only_a_csv_still_validates_it_on_the_way_out(checks, tmp_path, capsys):
    csv = tmp_path / "c.csv"
    assert main(["measure", "--backend", "cpu", "--no-save", "--csv", str(csv), "--quiet"]) == 0
    assert checks == ["ceilings", "ceilings"]
    assert csv.read_text().startswith(",".join(lab_files.CEILING_COLUMNS))


def test_write_csv_validates_unless_told_the_result_was_checked_on_its_way_out(tmp_path):
    bad = results.recorded("ceilings", "numba")
    bad["ceilings"][0]["value"] = -1.0
    with pytest.raises(results.ResultError, match="value"):
        lab_files.write_csv(bad, tmp_path / "bad.csv")
    assert not (tmp_path / "bad.csv").exists()
    good = results.recorded("ceilings", "numba")
    path = lab_files.write_csv(good, tmp_path / "good.csv", checked=True)
    assert path.read_text() == lab_files.to_csv(good)
