"""The ceiling registry: a new ceiling is its kernel, its accounting and one row.

The test below registers a ceiling that no module of the package knows, and follows it
through everything a ceiling goes through: Lab 1 plans and measures it on the CPU backend, the
result validates, saves, loads, becomes a measured machine and is drawn with the row's label
and colour.  No other module is edited for it.
"""
import pytest

from rooflinelib.measure import registry


def _host_sum_ceiling(backend, options):
    """A made-up memory ceiling: numpy summing 8 MiB of float32, verified exactly."""
    import numpy as np

    from rooflinelib.measure.accounting import Work
    from rooflinelib.measure.protocol import Run, measure_best
    x = (np.arange(2 ** 21) % 7).astype(np.float32)
    want = float(np.sum(x, dtype=np.float64))
    got = {}

    def launch():
        got["sum"] = float(np.sum(x, dtype=np.float64))

    run = Run(launch, lambda: None if got.get("sum") == want else f"sum {got.get('sum')}, expected {want}",
              Work(0.0, float(x.nbytes)), "numpy float64 sum", {"bytes": int(x.nbytes)},
              poison=got.clear)
    return measure_best(backend, "host-sum", "memory", [run], options.progress)


@pytest.fixture
def host_sum_row():
    row = registry.register(registry.CeilingSpec(
        "host-sum", "memory", "host sum (numpy)", "#123456", ("cpu",), _host_sum_ceiling))
    yield row
    registry.unregister("host-sum")


@pytest.mark.slow
def test_a_registered_ceiling_is_measured_validated_saved_loaded_and_drawn(host_sum_row, tmp_path):
    pytest.importorskip("numba")
    from rooflinelib.views import plotting
    from rooflinelib.store import results
    from rooflinelib.measure import measure_ceilings
    result = measure_ceilings("cpu", size_mib=8, repeats=2)
    names = [c["name"] for c in result["ceilings"]]
    assert names[-1] == "host-sum" and {"dram", "fp32", "fp64"} <= set(names)
    row = result["ceilings"][-1]
    assert row["kind"] == "memory" and row["unit"] == "GB/s" and row["verified"] and row["value"] > 0
    path = results.save(result, tmp_path / "ceilings.json")
    machine = results.to_machine(results.load(path))
    ceiling = machine.ceiling("host-sum")
    assert ceiling.label == "host sum (numpy)" and ceiling.value == pytest.approx(row["value"])
    fig = plotting.roofline_figure(machine, memory=["dram", "host-sum"])
    trace = plotting.find_trace(fig, plotting.memory_id("host-sum"))
    assert trace is not None and trace.line.color == "#123456"


def test_an_unregistered_name_is_refused_and_a_gpu_only_row_is_not_planned_on_the_cpu(host_sum_row):
    from rooflinelib.store import results
    from rooflinelib.measure.cpu import CpuBackend
    good = {"format": results.FORMAT, "version": 1, "kind": "ceilings", "backend": "cpu", "scope": "cpu",
            "created": "2026-12-01T00:00:00+00:00", "device": {"name": "CPU"},
            "ceilings": [{"name": "host-sum", "kind": "memory", "value": 10.0, "unit": "GB/s",
                          "verified": True, "spread": 0.01}]}
    assert results.validate(good) is good
    wrong_kind = dict(good, ceilings=[dict(good["ceilings"][0], kind="compute", unit="GFLOP/s")])
    with pytest.raises(results.ResultError, match=r"ceilings\[0\]\.kind: host-sum is a memory ceiling"):
        results.validate(wrong_kind)
    registry.unregister("host-sum")
    with pytest.raises(results.ResultError, match=r"ceilings\[0\]\.name: unknown ceiling 'host-sum'"):
        results.validate(good)
    registry.register(host_sum_row)
    planned, notes = registry.plan(CpuBackend(), ("core",))
    assert [s.name for s in planned] == ["dram-read", "dram-write", "dram-copy", "dram", "fp32", "fp64",
                                        "host-sum"] and notes == []


def test_rows_refuse_bad_fields_in_one_line():
    with pytest.raises(ValueError, match="kind: must be 'memory' or 'compute'"):
        registry.CeilingSpec("x", "speed", "x", "#000000")
    with pytest.raises(ValueError, match="backends: unknown 'tpu'"):
        registry.CeilingSpec("x", "memory", "x", "#000000", ("tpu",), lambda b, o: None)
    with pytest.raises(ValueError, match="measure: x names backends but no way to measure it"):
        registry.CeilingSpec("x", "memory", "x", "#000000", ("cpu",))
    with pytest.raises(ValueError, match="name: ceiling 'dram' is already registered"):
        registry.register(registry.CeilingSpec("dram", "memory", "x", "#000000"))
    with pytest.raises(KeyError, match="ceiling: unknown 'nope'"):
        registry.get("nope")


def test_the_registry_is_the_one_list_of_ceiling_names():
    """Planning, validation, labels and colours read the rows: every built-in row has a
    label and a colour, and a measured row names at least one backend."""
    names = registry.names()
    assert names[:9] == ("dram-read", "dram-write", "dram-copy", "dram", "l2", "shared", "fp32", "fp64", "sfu")
    assert {"fp32-matrix", "bf16-tensor", "fp8-tensor"} <= set(names)
    for spec in registry.specs():
        assert spec.label and spec.colour.startswith("#")
        assert registry.label_of(spec.name) == spec.label and registry.colour_of(spec.name) == spec.colour
    assert registry.kind_of("l2") == "memory" and registry.kind_of("sfu") == "compute"
    assert registry.get("fp8-tensor").backends == ()  # datasheet only


def test_dram_is_planned_after_its_three_mixes_on_every_backend():
    """dram-read, -write and -copy are parts of dram, measured first by every backend; dram
    then takes their best (measure/registry._best_mix) rather than measuring again."""
    assert registry.parts_of("dram") == ("dram-read", "dram-write", "dram-copy")
    assert registry.MIX_OF == {"dram-read": "read", "dram-write": "write", "dram-copy": "copy"}
    order = registry.names()
    for row in registry.parts_of("dram"):
        spec = registry.get(row)
        assert spec.part_of == "dram" and spec.kind == "memory" and spec.backends == registry.BACKENDS
        assert order.index(row) < order.index("dram")
    assert registry.get("dram").part_of is None and registry.get("dram").backends == registry.BACKENDS


def test_dram_takes_the_best_mix_measured_and_names_it():
    from rooflinelib.measure.protocol import Measurement
    from rooflinelib.measure.timing import Timing
    from rooflinelib.core.model import Work

    def fake(name, seconds):
        return Measurement(name, "memory", Work(0.0, 1e9), Timing((seconds,)), True, 0.1,
                           f"{name} kernel", {"block": 1}, {"note": f"{name} note"})

    options = registry.Options(2 ** 20)
    options.measured.update({"dram-read": fake("dram-read", 0.5e-3), "dram-write": fake("dram-write", 0.4e-3),
                             "dram-copy": fake("dram-copy", 0.6e-3)})
    m = registry.get("dram").measure(object(), options)  # nothing is measured again
    assert m.name == "dram" and m.value == pytest.approx(2500.0) and m.kernel == "dram-write kernel"
    assert m.extra["mix"] == "write" and m.extra["mix_ceiling"] == "dram-write"
    assert m.extra["mixes"] == {"read": pytest.approx(2000.0), "write": pytest.approx(2500.0),
                                "copy": pytest.approx(1e9 / 0.6e-3 / 1e9)}
    assert "note" not in m.extra and options.measured["dram"] is m


def test_the_recorded_l2_names_its_footprint_and_dram_its_mix():
    """The shipped H200 ceilings: the L2 roof's label says the working set it was read from,
    the DRAM roof's label its access mix; the mixes stay apart from the machine's roofs."""
    from rooflinelib.store import results
    for backend in ("numba", "cupy"):
        r = results.recorded("ceilings", backend)
        machine = results.to_machine(r)
        footprint = results.l2_footprint(r)
        assert 10e6 < footprint < 30e6
        assert machine.ceiling("l2").label == f"L2 (read, {footprint / 1e6:.1f} MB set)"
        assert machine.ceiling("dram").label == f"DRAM ({results.dram_mix(r)})"
        mixes = results.dram_mixes(r)
        assert set(mixes) == {"read", "write", "copy"}
        assert machine.ceiling("dram").value == max(mixes.values())
        assert not any(c.name.startswith("dram-") for c in machine.ceilings)


def test_a_stream_at_its_own_mix_rate_is_never_above_the_recorded_h200_dram_roof():
    """Issue 25: a read-only kernel counted right (torch.sum over 4 GiB) was placed above the
    copy-based roof and told to recount.  Against dram, the best mix, every mix's own rate is
    at or under the roof; against the copy alone the read stream is past the above-roof flag."""
    from rooflinelib.store import results
    from rooflinelib.core.model import ABOVE_ROOF_FRACTION, Roofline
    r = results.recorded("ceilings", "numba")
    machine = results.to_machine(r)
    mixes = results.dram_mixes(r)
    roof = machine.roofline("fp32", "dram")
    for mix, gbps in mixes.items():
        verdict = roof.classify(0.25, achieved_gflops=0.25 * gbps)  # a sum: 1 add per float
        assert verdict.status != "above-roof" and verdict.fraction_of_roof <= 1 + 1e-12, mix
    copy_only = Roofline(machine.ceiling("fp32").value, mixes["copy"])
    assert copy_only.classify(0.25, achieved_gflops=0.25 * mixes["read"]).status == "above-roof"
    assert mixes["read"] / mixes["copy"] > ABOVE_ROOF_FRACTION
