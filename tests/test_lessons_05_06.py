"""Notebooks 05 and 06 as lessons: the library behind their figures and statements.

Each test here fails on the code the course issue (item by item) found wrong."""
from __future__ import annotations

import pytest

from rooflinelib.hierarchy import levels as hl, placement as h, results as wsr
from rooflinelib.results import recorded_h200


@pytest.fixture(scope="module")
def recorded():
    return wsr.recorded("h200", "numba")


def test_the_hierarchy_uses_lab_1s_dram_ceiling_the_figure_notebook_07_uses(recorded):
    lab1 = recorded_h200()
    m = h.machine_from_result(recorded, lab1)
    assert m.ceiling("dram").value == lab1.ceiling("dram").value
    sweep_dram = next(lv for lv in h.hierarchy_levels(recorded) if lv.name == "dram")
    # the read-only plateau is named beside it, not used
    assert f"{sweep_dram.gbps:,.0f} GB/s" in m.ceiling("dram").source


def test_the_working_set_model_quotes_the_sweep_on_the_level_that_holds_the_set(recorded):
    # At 441 kB the set lives in the L2; the sweep has no point between the L1's step and the
    # L2-only series' own data, and the nearest size (213 kB) sits on the L1 plateau.
    m = h.machine_from_result(recorded, recorded_h200())
    levels = h.hierarchy_levels(recorded)
    state = h.working_set_state(levels, m, 441e3, 64, 0.25, sweep=h.reference_curve(recorded))
    l1 = levels[0]
    assert state.level == "l2" == state.placement.binding
    assert state.measured_bytes > l1.capacity_bytes
    assert state.measured_gbps < 0.5 * l1.gbps
    assert "nearest working set it measured in the l2 range" in state.text()


def test_a_plateau_that_runs_past_reported_caches_is_not_called_one_level_holding_everything():
    # A noisy CPU sweep: one plateau from 6 kB to 6 MB, no main memory reached.
    sizes = [6e3 * 2 ** (i / 2) for i in range(21)]
    levels = hl.detect_levels(sizes, [17.0] * len(sizes), ends_in_memory=False)
    assert len(levels) == 1 and levels[0].capacity_bytes is None
    table = hl.level_table(levels, {"l1": 32768, "l2": 524288, "l3": 33554432})
    last = table.splitlines()[-1]
    assert "holds everything" not in last
    assert "no step up to" in last and "spans l1 (32.8 kB), l2 (524 kB)" in last and "l3" not in last


def _legend_entries(fig):
    return sum(1 for t in fig.data if t.showlegend is not False)


def test_notebook_05s_figures_keep_their_legends_under_the_plot(recorded):
    pytest.importorskip("plotly")
    from rooflinelib.hierarchy import ncu, plot as hp
    from rooflinelib.plotting import LEGEND_ENTRY_PX, PLOT_PX
    m = h.machine_from_result(recorded, recorded_h200())
    kernels = ncu.load_csv(ncu.recorded_csv())
    placements = [h.place_levels(k.hierarchical(f"kernel {i}"), m) for i, k in enumerate(kernels)]
    for fig in (hp.sweep_figure(recorded),
                hp.hierarchical_figure(m, placements[:3], peaks=kernels[0].peaks().machine())):
        entries = _legend_entries(fig)
        assert entries >= 9
        # under the plot (no legend column squeezing it), with a line of room for each entry
        assert fig.layout.legend.y < 0 and fig.layout.legend.orientation == "v"
        assert fig.layout.margin.b >= LEGEND_ENTRY_PX * entries
        assert fig.layout.height - fig.layout.margin.b - fig.layout.margin.t >= PLOT_PX - 100
