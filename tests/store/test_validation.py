"""The validator toolkit: the shipped JSON Schemas are valid, other tools can check the shipped
result files with them, and the first problem in document order is the one reported."""
import copy
import fnmatch
import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

from rooflinelib.store import results, validation
from rooflinelib.experiments import record
from rooflinelib.hierarchy import workingset_files as wsr
from rooflinelib.measure import registry

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "rooflinelib" / "data"
FORMATS = ("ceilings", "sweep", "workingset", "experiments", "profiles", "gates")
#: Each shipped result file and the schema it follows.
SHIPPED = {"h200_ceilings_numba.json": "ceilings", "h200_ceilings_cupy.json": "ceilings",
           "h200_sweep_numba.json": "sweep", "h200_sweep_cupy.json": "sweep",
           "h200_workingset_numba.json": "workingset", "h200_experiments_numba.json": "experiments",
           "h200_interconnect_numba.json": "ceilings", "h200_interconnect_cupy.json": "ceilings",
           "h200_pitfalls_numba.json": "experiments", "h200_profiles_numba.json": "profiles",
           "h200_gates_cupy.json": "gates"}


@pytest.mark.parametrize("name", FORMATS)
def test_each_schema_is_valid_json_schema_and_shipped_with_the_package(name):
    path = validation.schema_path(name)
    document = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(document)
    assert document["$schema"].endswith("2020-12/schema") and document["description"]
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["rooflinelib"]
    relative = path.relative_to(ROOT / "rooflinelib").as_posix()
    assert any(fnmatch.fnmatch(relative, p) for p in patterns), f"{relative} is not in package-data"


@pytest.mark.parametrize("file,name", sorted(SHIPPED.items()))
def test_another_tool_can_check_the_shipped_results_with_the_plain_schema(file, name):
    # a stock validator, without rooflinelib's stricter number types or the registry's rows
    data = json.loads((DATA / file).read_text())
    assert list(jsonschema.Draft202012Validator(validation.schema(name)).iter_errors(data)) == []


def test_every_shipped_result_file_has_its_schema():
    shipped = {p.name for p in DATA.glob("*.json")
               if isinstance(json.loads(p.read_text()), dict) and "format" in json.loads(p.read_text())}
    assert shipped == set(SHIPPED)


def test_the_plain_schema_refuses_what_rooflinelib_refuses():
    data = json.loads((DATA / "h200_ceilings_numba.json").read_text())
    data["ceilings"][0]["unit"] = "GiB/s"  # dram is a memory ceiling: GB/s
    errors = list(jsonschema.Draft202012Validator(validation.schema("ceilings")).iter_errors(data))
    assert [list(e.absolute_path) for e in errors] == [["ceilings", 0, "unit"]]


@pytest.mark.parametrize("name", ("ceilings", "sweep", "workingset"))
def test_the_schemas_name_the_backends_of_the_registry(name):
    assert validation.schema(name)["properties"]["backend"]["enum"] == list(registry.BACKENDS)


def test_the_first_problem_in_document_order_is_reported():
    data = results.recorded("ceilings", "numba")
    bad = copy.deepcopy(data)
    bad["ceilings"][2]["value"] = -1.0
    bad["ceilings"][1]["spread"] = "wide"
    bad["ceilings"][1]["verified"] = False
    with pytest.raises(results.ResultError, match=r"^x\.json: ceilings\[1\]\.verified: must be true"):
        results.validate(bad, "x.json")
    bad["created"] = ""  # a header field comes before every ceiling
    with pytest.raises(results.ResultError, match=r"^x\.json: created: missing"):
        results.validate(bad, "x.json")


def test_integers_are_ints_and_numbers_are_finite():
    data = results.recorded("sweep", "numba")
    for field, value, reason in ((("rows", 1, "k"), 1.0, "must be a whole number"),
                                 (("peak_gbps",), float("inf"), "must be a finite number"),
                                 (("version",), True, "must be a whole number")):
        bad = copy.deepcopy(data)
        target = bad
        for key in field[:-1]:
            target = target[key]
        target[field[-1]] = value
        with pytest.raises(results.ResultError, match=reason) as info:
            results.validate(bad)
        assert "\n" not in str(info.value)


def test_a_message_stays_one_line_whatever_the_value():
    data = results.recorded("ceilings", "numba")
    data["ceilings"][0]["name"] = "two\nlines " + "x" * 200
    with pytest.raises(results.ResultError) as info:
        results.validate(data)
    message = str(info.value)
    assert "\n" not in message and message.startswith("result: ceilings[0].name: unknown ceiling")
    assert len(message) < 400


def test_saving_an_invalid_working_set_or_experiment_writes_nothing(tmp_path):
    bad = copy.deepcopy(wsr.recorded())
    bad["series"][0]["rows"][0]["verified"] = False
    with pytest.raises(wsr.HierarchyError, match=r"series\[0\]\.rows\[0\]\.verified"):
        wsr.save(bad, tmp_path / "ws.json")
    experiment = record.Experiment("softmax", "t", "numba", {"name": "GPU"}, "2026-12-01T00:00:00+00:00",
                                   (record.Variant("fused", 1.0, 8.0, 0.0, 0.01, 20),))
    with pytest.raises(ValueError, match=r"softmax\.variants\[0\]\.median_s: must be positive"):
        record.save_experiments([experiment], tmp_path / "e.json")
    assert list(tmp_path.iterdir()) == []


def test_saved_files_load_back_unchanged(tmp_path):
    ws = wsr.recorded()
    assert wsr.load(wsr.save(ws, tmp_path / "ws.json")) == ws
    experiments = record.recorded_experiments()
    loaded = record.load_experiments(record.save_experiments(experiments.values(), tmp_path / "e.json"))
    assert loaded == experiments
