"""Device-event timing has one home, rooflinelib/measure/timing.py: one maker of events per
library (numba, cupy, torch) and two timed loops, which Lab 1's kernels, a student's function,
the all-reduce, the training step and the graph-launch experiment all use.

The loops keep their shapes: Lab 1's warm-up, then an untimed launch before each start event
and a wait after each end event; a student's function queued back to back behind one untimed
call, with one wait at the end.  The Numba paths run in the CUDA simulator, whose events read
-1 ms; the child process makes them read a fixed time so that the loop's plumbing can be
checked end to end.
"""
import json
import re
from pathlib import Path

import pytest

from support import simulated
from rooflinelib.measure import timing

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "rooflinelib"
HOME = PACKAGE / "measure" / "timing.py"

#: Making a device event or reading one pair's time: numba's cuda.event( and
#: event_elapsed_time, cupy.cuda.Event( and get_elapsed_time, torch.cuda.Event(.
EVENT_CODE = re.compile(r"\bcuda\.(event|Event)\b|elapsed_time\b")


def test_event_timing_is_written_only_in_measure_timing():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == HOME:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if EVENT_CODE.search(line.split("#")[0]):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "device events outside measure/timing.py:\n" + "\n".join(found)


def test_the_home_itself_makes_events_for_each_library():
    # the grep above would pass on a package that timed nothing: the makers must be here
    text = HOME.read_text(encoding="utf-8")
    assert "cuda.event" in text and "cupy.cuda.Event" in text and "torch.cuda.Event(enable_timing=True)" in text
    assert set(timing.EVENT_MAKERS) == {"numba", "cupy", "torch"}


def test_an_unknown_library_is_one_line_naming_it():
    with pytest.raises(ValueError, match=r"^library: no device events for 'opencl'; known: numba, cupy, torch$"):
        timing.device_events("opencl")


class _Log:
    """Pretend events that write what happens, in order, to one log."""

    def __init__(self, ms=2.0):
        self.log, self.ms, self.made = [], ms, 0

    def events(self):
        log = self.log

        class Event:
            def __init__(self, n):
                self.n = n

            def record(self, stream=None):
                log.append(f"record {self.n}" + (f" on {stream}" if stream is not None else ""))

            def synchronize(self):
                log.append(f"wait {self.n}")

        def new():
            self.made += 1
            log.append(f"new {self.made}")
            return Event(self.made)

        return timing.DeviceEvents("fake", new, lambda s, e: self.ms, lambda: log.append("sync all"))


def test_lab1_loop_warms_up_then_primes_each_repeat_and_waits_for_it():
    fake = _Log(ms=4.0)
    t = timing.time_with_events(lambda: fake.log.append("launch"), fake.events(), repeats=2, warmup=2,
                                prime=lambda: fake.log.append("prime"))
    assert fake.log == ["launch", "launch",
                        "new 1", "new 2", "prime", "record 1", "launch", "record 2", "wait 2",
                        "new 3", "new 4", "prime", "record 3", "launch", "record 4", "wait 4"]
    assert t.samples_s == (4e-3, 4e-3) and t.rule == "median"


def test_lab1_loop_records_on_the_stream_it_is_given():
    fake = _Log()
    timing.time_with_events(lambda: fake.log.append("launch"), fake.events(), 1, 0, stream="s1")
    assert fake.log == ["new 1", "new 2", "record 1 on s1", "launch", "record 2 on s1", "wait 2"]


def test_lab1_loop_refuses_a_clock_that_reads_no_time():
    with pytest.raises(timing.TimingUnavailable, match="no time"):
        timing.time_with_events(lambda: None, _Log(ms=-1.0).events(), 3, 0)


def test_queued_loop_makes_its_events_first_primes_once_and_waits_once_at_the_end():
    fake = _Log(ms=1.5)
    seconds = timing.time_queued(lambda: fake.log.append("launch"), fake.events(), 2,
                                 prime=lambda: fake.log.append("prime"))
    assert fake.log == ["new 1", "new 2", "new 3", "new 4", "prime",
                        "record 1", "launch", "record 2", "record 3", "launch", "record 4", "wait 4"]
    assert seconds == (1.5e-3, 1.5e-3)
    assert timing.time_queued(lambda: None, fake.events(), 0) == ()


def test_the_all_reduce_times_its_repeats_queued_behind_its_warm_up():
    from rooflinelib.measure import allreduce as ar

    fake = _Log(ms=3.0)

    class Comm:  # one rank's communicator, without NCCL: a sum over one rank is the buffer
        world, events = 1, fake.events()

        def buffer(self, n):
            return ar.fill_host(n, 0)

        def allreduce(self, buf):
            fake.log.append("all-reduce")

        def synchronize(self):
            fake.log.append("sync all")

        def host(self, buf):
            return buf

        def refill(self, buf):
            pass

    out = ar._measure_sizes(Comm(), [1024], repeats=3)
    assert out == {"times": {"1024": [3e-3] * 3}, "verified": {"1024": True}}
    timed = fake.log.index("new 1")
    assert fake.log[:timed] == ["all-reduce", "sync all"] + ["all-reduce"] * ar.WARMUP + ["sync all"]
    assert fake.log[timed:timed + 12] == [f"new {i}" for i in range(1, 7)] + [
        "record 1", "all-reduce", "record 2", "record 3", "all-reduce", "record 4"]


_SIM_FIXED_MS = 0.25
_SIM_CODE = r"""
import json
import numpy as np
from numba import cuda
from numba.cuda.simulator import api
api.Event.elapsed_time = lambda self, other: %r  # the simulator's events read -1 ms

from rooflinelib.measure import gpu_backends as engine
from rooflinelib.measure.timing import device_events, numba_events
from rooflinelib.profiling.function_timing import time_function


@cuda.jit
def bump(x):
    x[0] += 1


x = cuda.to_device(np.zeros(1, np.int64))
gpu = object.__new__(engine.NumbaGpu)  # the engine's timer only, without a device to read
gpu.repeats, gpu.warmup = 3, 2
lab1 = gpu.time(lambda: bump[1, 1](x))
lab1_calls = int(x.copy_to_host()[0])

y = cuda.to_device(np.zeros(1, np.int64))
timed = time_function(lambda arr: bump[1, 1](arr), args=(y,), repeats=4)
print(json.dumps({"lab1": lab1.as_dict(), "lab1_calls": lab1_calls, "library": device_events("numba").library,
                  "profile": {"library": timed.library, "clock": timed.clock, "seconds": list(timed.seconds),
                              "warmup_calls": timed.warmup_calls},
                  "profile_calls": int(y.copy_to_host()[0])}))
""" % _SIM_FIXED_MS


@pytest.fixture(scope="module")
def simulated_numba():
    pytest.importorskip("numba_cuda")
    done = simulated.run(code=_SIM_CODE, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_lab1s_numba_timer_uses_the_shared_events_in_the_simulator(simulated_numba):
    lab1 = simulated_numba["lab1"]
    assert lab1["repeats"] == 3 and lab1["median_s"] == pytest.approx(_SIM_FIXED_MS / 1e3)
    assert lab1["rule"] == "median" and lab1["spread"] == 0
    # the warm-up (2), then an untimed launch and the timed one per repeat (3 x 2)
    assert simulated_numba["lab1_calls"] == 2 + 3 * 2
    assert simulated_numba["library"] == "numba"


def test_a_students_numba_function_is_timed_with_the_shared_events_in_the_simulator(simulated_numba):
    profile = simulated_numba["profile"]
    assert profile["library"] == "numba" and profile["clock"] == "device events"
    assert profile["seconds"] == [pytest.approx(_SIM_FIXED_MS / 1e3)] * 4
    # the first call, the warm-up, one untimed call before the first start event, four timed
    assert simulated_numba["profile_calls"] == 1 + profile["warmup_calls"] + 1 + 4
