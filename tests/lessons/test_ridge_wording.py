"""Near the ridge one roof still sets min(P, I x B); the other is only close, so overlap decides
which the kernel feels (notebook 01's wording, review 37a). Every surface that names the ridge
side says so, instead of the older "both roofs bind", which a careful reader takes to mean both
limits are active at once."""
import inspect
import json
from pathlib import Path

from rooflinelib.core.model import ADVICE, CPU_ADVICE, RIDGE_TOLERANCE, Ceiling, Machine
from rooflinelib.core.placement import decision_rows
from rooflinelib.hierarchy import level_placement
from rooflinelib.exercises.grading import SIDES
from rooflinelib.views.widget_state import explorer_state

OLD = "roofs bind"


def _machine():
    return Machine("toy", (Ceiling("fp32", "compute", 1000.0), Ceiling("dram", "memory", 100.0)),
                   kind="example")


def test_advice_and_decision_table_say_the_roofs_are_close():
    for table in (ADVICE, CPU_ADVICE):
        assert table["ridge"].startswith("Both roofs are close: overlap loads with math")
        assert OLD not in table["ridge"].lower()
    ridge_rows = [row for row in decision_rows() if row["next"] == ADVICE["ridge"]]
    assert [row["meaning"] for row in ridge_rows] == ["both roofs are close"]


def test_explorer_text_at_the_ridge_says_the_roofs_are_within_the_tolerance_of_each_other():
    state = explorer_state(_machine(), intensity=10.0)  # the ridge itself: 1000 / 100
    text = state.verdict_text()
    assert OLD not in text
    assert f"the two roofs are within {100 * RIDGE_TOLERANCE:.0f}% of each other here" in text
    # review 41a: overlap does not choose the roof; it decides how near the roof the kernel gets
    assert text.endswith("so how well loads and math overlap decides how near the roof it gets.")


def test_the_side_menu_shows_the_new_wording_and_still_reads_the_old_one():
    assert SIDES.options["ridge"][0] == "at the ridge, both roofs are close"
    assert SIDES.read("at the ridge, both roofs bind") == "ridge"
    assert SIDES.read("at the ridge, both roofs are close") == "ridge"


def test_the_level_table_footer_and_the_notebooks_drop_the_old_wording():
    assert "so both bind" not in inspect.getsource(level_placement)
    assert "so both are close" in inspect.getsource(level_placement)
    root = Path(__file__).resolve().parents[2]
    for name in ("03_ceilings", "05_hierarchical"):
        page = json.loads((root / "notebooks" / f"{name}.ipynb").read_text())
        text = json.dumps(page).lower()
        assert OLD not in text and "so both bind" not in text, name
