"""The CPU lane side by side with STREAM, in one run: `python benchmarks/cpu_lane.py STREAM_SRC`.

STREAM_SRC is STREAM's public source: a ``stream.c``, a folder holding one, or a bare git mirror
of jeffhammond/STREAM.  It is built into a temporary folder with this machine's C compiler
(``-O3 -fopenmp``, one thread per Numba thread) and never copied into the repository.

One run does, on this machine:

1. the evidence for the size effect: the course's copy at several buffer sizes; the same copy
   with glibc's non-temporal threshold moved (``GLIBC_TUNABLES``) so that the same size takes
   the other store path; without transparent huge pages; and a first call against a later one;
2. ``--rounds`` interleaved rounds of: STREAM at 4 x LLC per array (STREAM's own rule), the
   course's ``dram`` ceiling at its default size, a calibrated clock and FMA-throughput probe
   (own C source, below), the course's ``fp32`` and ``fp64`` ceilings, and STREAM at
   2 x LLC per array (the course's own buffer size);
3. every figure and ratio, the load at each step, and the ceiling each timing rule (best,
   second best, median of the trials) would have given, into ``docs/measurements/cpu_lane.json``.

Peak formula: cores x SIMD lanes x FMA units x 2 x clock, with the FMA units and the clock
measured by the probe in the same round (see ``PROBE_C``).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MIB = 2 ** 20

#: The clock and FMA probe.  Each burst is short (about 5 ms) and repeated many times: a
#: neighbour can only take time away from a burst, so the largest reading of each is the
#: machine's own.
#: - clock: a chain of dependent register-register adds, one per cycle on every x86 core
#:   since the P6 (an add of an immediate would not do: Golden Cove's renamer folds those);
#: - clock under AVX-512 load: the same add chain, 12 adds long, interleaved with 16
#:   independent zmm FMAs; the chain is the longer path, so it still counts cycles while the
#:   FMA units are busy two thirds of the time (and any AVX-512 clock licence is in force);
#: - FMA throughput: 12 independent zmm FMA chains, more than 2 units x 4 cycles of latency;
#:   FMA units per core = that throughput / the clock under load.
PROBE_C = r"""
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <omp.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define A8 "add %[one],%[x]\n\tadd %[one],%[x]\n\tadd %[one],%[x]\n\tadd %[one],%[x]\n\t" \
           "add %[one],%[x]\n\tadd %[one],%[x]\n\tadd %[one],%[x]\n\tadd %[one],%[x]\n\t"
#define A4 "add %[one],%[x]\n\tadd %[one],%[x]\n\tadd %[one],%[x]\n\tadd %[one],%[x]\n\t"
#define F(r) "vfmadd132ps %[a], %[b], %[" #r "]\n\t"
static double add_clock(long n){
  long x=0, one=1; double t=now();
  for(long i=0;i<n;i++) __asm__ volatile(A8 A8 : [x]"+r"(x) : [one]"r"(one));
  t=now()-t; if(x!=16*n) abort(); return 16.0*n/t/1e9;
}
static double fma_rate(long n, float *sink){
  __m512 a=_mm512_set1_ps(1.0f), b=_mm512_set1_ps(0.0f);
  __m512 v0=_mm512_set1_ps(0),v1=_mm512_set1_ps(1),v2=_mm512_set1_ps(2),v3=_mm512_set1_ps(3),
         v4=_mm512_set1_ps(4),v5=_mm512_set1_ps(5),v6=_mm512_set1_ps(6),v7=_mm512_set1_ps(7),
         v8=_mm512_set1_ps(8),v9=_mm512_set1_ps(9),v10=_mm512_set1_ps(10),v11=_mm512_set1_ps(11);
  double t=now();
  for(long i=0;i<n;i++)
    __asm__ volatile(F(v0)F(v1)F(v2)F(v3)F(v4)F(v5)F(v6)F(v7)F(v8)F(v9)F(v10)F(v11)
      : [v0]"+v"(v0),[v1]"+v"(v1),[v2]"+v"(v2),[v3]"+v"(v3),[v4]"+v"(v4),[v5]"+v"(v5),
        [v6]"+v"(v6),[v7]"+v"(v7),[v8]"+v"(v8),[v9]"+v"(v9),[v10]"+v"(v10),[v11]"+v"(v11)
      : [a]"v"(a),[b]"v"(b));
  t=now()-t;
  __m512 s=_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(v0,v1),_mm512_add_ps(v2,v3)),
                         _mm512_add_ps(_mm512_add_ps(v4,v5),_mm512_add_ps(v6,v7)));
  s=_mm512_add_ps(s,_mm512_add_ps(_mm512_add_ps(v8,v9),_mm512_add_ps(v10,v11)));
  *sink+=_mm512_reduce_add_ps(s);
  return 12.0*n/t/1e9;
}
static double loaded_clock(long n, float *sink){
  __m512 a=_mm512_set1_ps(1.0f), b=_mm512_set1_ps(0.0f);
  __m512 v0=_mm512_set1_ps(0),v1=_mm512_set1_ps(1),v2=_mm512_set1_ps(2),v3=_mm512_set1_ps(3),
         v4=_mm512_set1_ps(4),v5=_mm512_set1_ps(5),v6=_mm512_set1_ps(6),v7=_mm512_set1_ps(7);
  long x=0, one=1; double t=now();
  for(long i=0;i<n;i++){
    __asm__ volatile(F(v0)F(v1)F(v2)F(v3)F(v4)F(v5)F(v6)F(v7) A4
      : [v0]"+v"(v0),[v1]"+v"(v1),[v2]"+v"(v2),[v3]"+v"(v3),[v4]"+v"(v4),[v5]"+v"(v5),
        [v6]"+v"(v6),[v7]"+v"(v7),[x]"+r"(x) : [a]"v"(a),[b]"v"(b),[one]"r"(one));
    __asm__ volatile(F(v0)F(v1)F(v2)F(v3)F(v4)F(v5)F(v6)F(v7) A8
      : [v0]"+v"(v0),[v1]"+v"(v1),[v2]"+v"(v2),[v3]"+v"(v3),[v4]"+v"(v4),[v5]"+v"(v5),
        [v6]"+v"(v6),[v7]"+v"(v7),[x]"+r"(x) : [a]"v"(a),[b]"v"(b),[one]"r"(one));
  }
  t=now()-t; if(x!=12*n) abort();
  __m512 s=_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(v0,v1),_mm512_add_ps(v2,v3)),
                         _mm512_add_ps(_mm512_add_ps(v4,v5),_mm512_add_ps(v6,v7)));
  *sink+=_mm512_reduce_add_ps(s);
  return 12.0*n/t/1e9;
}
static int cmpd(const void*p,const void*q){double x=*(const double*)p,y=*(const double*)q;return x<y?-1:x>y;}
int main(int argc,char**argv){
  int bursts=argc>1?atoi(argv[1]):40;
  #pragma omp parallel
  { enum{RMAX=400}; double c[RMAX],f[RMAX],l[RMAX]; float sink=0; int R=bursts<RMAX?bursts:RMAX;
    for(int r=0;r<R;r++){ c[r]=add_clock(1000000); f[r]=fma_rate(1000000,&sink); l[r]=loaded_clock(1000000,&sink); }
    /* identity FMAs leave the seeds as they were: 16 lanes of (0+..+11) + (0+..+7) a burst */
    if(sink!=16.0f*94.0f*(float)R) { fprintf(stderr,"probe: wrong FMA sums %g\n",sink); exit(3); }
    qsort(c,R,8,cmpd); qsort(f,R,8,cmpd); qsort(l,R,8,cmpd);
    #pragma omp critical
    printf("{\"thread\": %d, \"bursts\": %d, \"clock_ghz_max\": %.4f, \"clock_ghz_median\": %.4f, "
           "\"loaded_clock_ghz_max\": %.4f, \"loaded_clock_ghz_median\": %.4f, "
           "\"zmm_fma_per_ns_max\": %.4f, \"zmm_fma_per_ns_median\": %.4f}\n",
           omp_get_thread_num(),R,c[R-1],c[R/2],l[R-1],l[R/2],f[R-1],f[R/2]);
  }
  return 0;
}
"""

RULES = ("best", "second", "median")


def now_iso():
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def stream_source(path: Path) -> str:
    """STREAM's stream.c, from a file, a folder or a bare git mirror."""
    if path.is_file():
        return path.read_text()
    if (path / "stream.c").is_file():
        return (path / "stream.c").read_text()
    done = subprocess.run(["git", "--git-dir", str(path), "show", "HEAD:stream.c"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"stream source: no stream.c in {path} ({done.stderr.strip()})")
    return done.stdout


def compile_c(cc, src: Path, out: Path, flags):
    cmd = [cc, *flags, str(src), "-o", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"build failed: {' '.join(cmd)}\n{done.stderr}")
    return " ".join(cmd)


def build_stream(cc, source: str, tmp: Path, elements: int):
    src = tmp / "stream.c"
    src.write_text(source)
    exe = tmp / f"stream_{elements}"
    flags = ["-O3", "-fopenmp", f"-DSTREAM_ARRAY_SIZE={elements}", "-DNTIMES=10"]
    if 3 * 8 * elements >= 2 ** 31:  # static arrays past 2 GiB need the medium code model
        flags.insert(2, "-mcmodel=medium")
    return exe, compile_c(cc, src, exe, flags)


_STREAM_LINE = re.compile(r"^(Copy|Scale|Add|Triad):\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")


def run_stream(exe: Path, threads: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    before = load1()
    done = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=600)
    if done.returncode != 0 or "Solution Validates" not in done.stdout:
        sys.exit(f"STREAM failed or did not validate:\n{done.stdout}\n{done.stderr}")
    out = {"load_before": before}
    for line in done.stdout.splitlines():
        m = _STREAM_LINE.match(line)
        if m:
            out[m.group(1).lower()] = {"best_mbps": float(m.group(2)), "avg_s": float(m.group(3)),
                                       "min_s": float(m.group(4)), "max_s": float(m.group(5))}
    out["copy_best_gbps"] = out["copy"]["best_mbps"] / 1e3  # STREAM's MB is 1e6 bytes
    return out


def run_probe(exe: Path, threads: int, bursts: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    before = load1()
    done = subprocess.run([str(exe), str(bursts)], capture_output=True, text=True, env=env,
                          timeout=300)
    if done.returncode != 0:
        sys.exit(f"probe failed:\n{done.stdout}\n{done.stderr}")
    per_thread = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    clock = max(t["clock_ghz_max"] for t in per_thread)
    loaded = max(t["loaded_clock_ghz_max"] for t in per_thread)
    fma_ns = max(t["zmm_fma_per_ns_max"] for t in per_thread)
    return {"load_before": before, "threads": per_thread, "clock_ghz": clock,
            "loaded_clock_ghz": loaded, "zmm_fma_per_ns": fma_ns,
            "fma_per_cycle": fma_ns / loaded}


def rule_values(m) -> dict:
    """The ceiling each timing rule would give from this measurement's trials."""
    samples = sorted(m.timing.samples_s)
    times = {"best": samples[0], "second": samples[min(1, len(samples) - 1)],
             "median": statistics.median(samples)}
    rate = m.work.gbps if m.kind == "memory" else m.work.gflops
    return {rule: rate(t) for rule, t in times.items()}


def lab1_ceiling(backend, name: str, size_bytes: int):
    """One ceiling exactly as Lab 1 measures it: its registry row on this backend."""
    from rooflinelib.measure import registry
    return registry.get(name).measure(backend, registry.Options(int(size_bytes)))


def course_record(m, before) -> dict:
    return {"value": m.value, "unit": m.unit, "rules": rule_values(m), "spread": m.timing.spread,
            "samples_s": list(m.timing.samples_s), "config": m.config,
            "n_bytes": m.work.n_bytes, "n_flops": m.work.n_flops, "verified": m.verified,
            "load_before": before}


# A fresh interpreter for the runs that need another environment (glibc tunables, no THP).
_COPY_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from rooflinelib.measure import registry
from rooflinelib.measure.cpu import CpuBackend
m = registry.get("dram-copy").measure(CpuBackend(repeats=10), registry.Options(int(sys.argv[2])))
print(json.dumps({"best": m.value, "median": m.extra["median_value"], "spread": m.timing.spread}))
"""


def copy_in_child(size_bytes: int, env_extra: dict) -> dict:
    env = dict(os.environ, **env_extra)
    done = subprocess.run([sys.executable, "-c", _COPY_CHILD, str(ROOT), str(size_bytes)],
                          capture_output=True, text=True, env=env, timeout=300)
    if done.returncode != 0:
        sys.exit(f"copy child failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def first_touch(n_bytes: int) -> dict:
    """Copy into a never-touched destination, then into the same one again."""
    import numpy as np
    from rooflinelib.measure.cpu import _copy
    kernel = _copy()
    small = np.ones(4096, np.float32)
    kernel(small, np.empty_like(small))  # compiled before anything is timed
    n = n_bytes // 4
    src = np.arange(n, dtype=np.float32)
    dst = np.empty_like(src)
    t0 = time.perf_counter()
    kernel(src, dst)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    kernel(src, dst)
    second = time.perf_counter() - t0
    if not np.array_equal(src.view(np.uint32), dst.view(np.uint32)):
        sys.exit("first-touch copy differs")
    return {"bytes": n_bytes, "first_call_gbps": 8 * n / first / 1e9,
            "second_call_gbps": 8 * n / second / 1e9}


def glibc_facts() -> dict:
    """glibc's version and the cache figures it derived its copy thresholds from."""
    out = {"libc": " ".join(platform.libc_ver())}
    for loader in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-x86-64.so.2"):
        if os.path.exists(loader):
            done = subprocess.run([loader, "--list-diagnostics"], capture_output=True, text=True)
            for line in done.stdout.splitlines():
                key, _, value = line.partition("=")
                if key.endswith(("non_temporal_threshold", "rep_movsb_threshold",
                                 "rep_movsb_stop_threshold", "shared_cache_size")):
                    out[key.rsplit(".", 1)[-1]] = int(value, 16)
            break
    return out


def machine_facts(threads: int) -> dict:
    from rooflinelib.measure.cpu import dram_buffer_bytes, last_level_cache_bytes
    info = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "cpu family", "model", "stepping", "cpu MHz") and key not in info:
                info[key] = value.strip()
            if key == "flags" and "flags" not in info:
                flags = value.split()
                info["flags"] = sorted(f for f in flags if f.startswith(("avx", "fma")))
    thp = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    llc = last_level_cache_bytes()
    return {"cpu": info, "logical_cpus": os.cpu_count(), "numba_threads": threads,
            "hypervisor": "hypervisor" in open("/proc/cpuinfo").read(),
            "llc_bytes": llc, "course_dram_buffer_bytes": dram_buffer_bytes(threads),
            "transparent_hugepage": thp.read_text().strip() if thp.exists() else None,
            "glibc": glibc_facts(), "python": platform.python_version()}


def size_evidence(backend, threads: int, progress) -> dict:
    """One round of the size evidence: the copy at several sizes, the store path moved by
    glibc's tunable, no huge pages, and a first touch."""
    from rooflinelib.measure.cpu import dram_buffer_bytes
    default = dram_buffer_bytes(threads)
    sizes = sorted({128 * MIB, 256 * MIB, 512 * MIB, default, 1024 * MIB})
    out = {"sizes": [], "tunables": [], "hugepages": [], "first_touch": None}
    for size in sizes:
        before = load1()
        m = lab1_ceiling(backend, "dram-copy", size)
        out["sizes"].append({"buffer_bytes": size, "bytes_per_thread": size // threads,
                             "best_gbps": m.value, "median_gbps": m.extra["median_value"],
                             "spread": m.timing.spread, "load_before": before})
    # The same two sizes with glibc's switch to streaming stores moved below and above them.
    for size, threshold in ((128 * MIB, 32 * MIB), (default, 16 * 2 ** 30)):
        r = copy_in_child(size, {"GLIBC_TUNABLES": f"glibc.cpu.x86_non_temporal_threshold={threshold:#x}"})
        out["tunables"].append(dict(r, buffer_bytes=size, non_temporal_threshold=threshold))
    r = copy_in_child(default, {"NUMPY_MADVISE_HUGEPAGE": "0"})
    out["hugepages"].append(dict(r, buffer_bytes=default, numpy_madvise_hugepage="0"))
    out["first_touch"] = first_touch(default)
    progress("  sizes " + ", ".join(f"{x['buffer_bytes'] // MIB}: {x['best_gbps']:.1f}"
                                    for x in out["sizes"])
             + " | tunable " + ", ".join(f"{x['buffer_bytes'] // MIB}@{x['non_temporal_threshold'] // MIB}MiB: "
                                         f"{x['best']:.1f}" for x in out["tunables"])
             + f" | no THP {out['hugepages'][0]['best']:.1f}"
             + f" | first touch {out['first_touch']['first_call_gbps']:.1f} then "
               f"{out['first_touch']['second_call_gbps']:.1f} GB/s")
    return out


def evidence_summary(rounds) -> dict:
    """Best and median over the rounds of every evidence figure."""
    def stats(values):
        return {"best": max(values), "median": statistics.median(values), "values": values}
    ev = [r["evidence"] for r in rounds]
    out = {"sizes": {}, "tunables": {}, "no_thp": None, "first_touch": None}
    for i, row in enumerate(ev[0]["sizes"]):
        out["sizes"][f"{row['buffer_bytes'] // MIB} MiB"] = dict(
            stats([e["sizes"][i]["best_gbps"] for e in ev]), bytes_per_thread=row["bytes_per_thread"])
    for i, row in enumerate(ev[0]["tunables"]):
        out["tunables"][f"{row['buffer_bytes'] // MIB} MiB, threshold {row['non_temporal_threshold'] // MIB} MiB"] = \
            stats([e["tunables"][i]["best"] for e in ev])
    out["no_thp"] = stats([e["hugepages"][0]["best"] for e in ev])
    out["first_touch"] = {"first_call": stats([e["first_touch"]["first_call_gbps"] for e in ev]),
                          "second_call": stats([e["first_touch"]["second_call_gbps"] for e in ev])}
    return out


def rule_stability(rounds, key) -> dict:
    """Across rounds, how far each rule's ceiling moved: (max - min) / median."""
    out = {}
    for rule in RULES:
        values = [r[key]["rules"][rule] for r in rounds]
        out[rule] = {"values": values, "median": statistics.median(values),
                     "range_over_median": (max(values) - min(values)) / statistics.median(values)}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stream_src", type=Path, help="stream.c, a folder with it, or a bare git mirror")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10, help="trials per course ceiling (STREAM: 10)")
    ap.add_argument("--bursts", type=int, default=60, help="probe bursts per round and thread")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "measurements" / "cpu_lane.json")
    args = ap.parse_args(argv)

    from rooflinelib.measure.cpu import (CEILING_RULE, UNCONTENDED_TRIALS, WINDOW_PER_REPEAT_S,
                                         CpuBackend, dram_buffer_bytes, fma_lanes)

    def progress(msg):
        print(msg, file=sys.stderr, flush=True)

    backend = CpuBackend(repeats=args.repeats)
    threads = backend.threads
    machine = machine_facts(threads)
    llc = machine["llc_bytes"]
    started = now_iso()
    tmp = Path(tempfile.mkdtemp(prefix="cpu_lane_"))
    try:
        source = stream_source(args.stream_src)
        rule_elems = -(-4 * llc // 8)  # STREAM: each array at least 4 x the caches
        own_elems = -(-dram_buffer_bytes(threads) // 8)  # the course's buffer size, in doubles
        stream_rule, cmd_rule = build_stream(args.cc, source, tmp, rule_elems)
        stream_own, cmd_own = build_stream(args.cc, source, tmp, own_elems)
        (tmp / "probe.c").write_text(PROBE_C)
        probe = tmp / "probe"
        cmd_probe = compile_c(args.cc, tmp / "probe.c", probe, ["-O2", "-mavx512f", "-fopenmp"])
        progress(f"built STREAM ({rule_elems:,} and {own_elems:,} doubles per array) and the probe in {tmp}")

        size = dram_buffer_bytes(threads)
        rounds = []
        for r in range(args.rounds):
            rec = {"round": r, "started": now_iso()}
            rec["stream_rule"] = run_stream(stream_rule, threads)
            before = load1()
            # the copy mix, which STREAM's copy is compared with (Lab 1's dram is the best of three mixes)
            rec["dram"] = course_record(lab1_ceiling(backend, "dram-copy", size), before)
            rec["probe"] = run_probe(probe, threads, args.bursts)
            for dtype in ("fp32", "fp64"):
                before = load1()
                rec[dtype] = course_record(lab1_ceiling(backend, dtype, size), before)
            rec["stream_own"] = run_stream(stream_own, threads)
            rec["evidence"] = size_evidence(backend, threads, progress)
            p = rec["probe"]
            units = round(p["fma_per_cycle"])
            lanes32 = 16  # a 512-bit register holds 16 float32, 8 float64
            rec["theory"] = {"cores": threads, "fma_units": units, "clock_ghz": p["clock_ghz"],
                             "fp32_gflops": threads * lanes32 * units * 2 * p["clock_ghz"],
                             "fp64_gflops": threads * 8 * units * 2 * p["clock_ghz"]}
            stream_best = max(rec["stream_rule"]["copy_best_gbps"], rec["stream_own"]["copy_best_gbps"])
            rec["ratios"] = {"dram_over_stream_copy": rec["dram"]["value"] / stream_best,
                             "fp32_over_theory": rec["fp32"]["value"] / rec["theory"]["fp32_gflops"],
                             "fp64_over_theory": rec["fp64"]["value"] / rec["theory"]["fp64_gflops"]}
            rec["load_after"] = load1()
            rounds.append(rec)
            progress(f"round {r}: STREAM copy {rec['stream_rule']['copy_best_gbps']:.1f} / "
                     f"{rec['stream_own']['copy_best_gbps']:.1f}, dram {rec['dram']['value']:.1f} GB/s "
                     f"(x{rec['ratios']['dram_over_stream_copy']:.3f}); clock {p['clock_ghz']:.3f} "
                     f"(loaded {p['loaded_clock_ghz']:.3f}) GHz, {p['fma_per_cycle']:.2f} FMA/cycle; "
                     f"fp32 {rec['fp32']['value']:.1f} of {rec['theory']['fp32_gflops']:.1f} "
                     f"(x{rec['ratios']['fp32_over_theory']:.3f}); load {rec['load_after']:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    stream_copy = [max(r["stream_rule"]["copy_best_gbps"], r["stream_own"]["copy_best_gbps"])
                   for r in rounds]
    top_clock = max(r["probe"]["clock_ghz"] for r in rounds)
    units = max(r["theory"]["fma_units"] for r in rounds)
    theory32 = threads * 16 * units * 2 * top_clock
    theory64 = threads * 8 * units * 2 * top_clock
    dram = [r["dram"]["value"] for r in rounds]
    fp32 = [r["fp32"]["value"] for r in rounds]
    fp64 = [r["fp64"]["value"] for r in rounds]
    summary = {
        "rule": (f"{CEILING_RULE} of >= {args.repeats} trials in a window of >= "
                 f"{args.repeats * WINDOW_PER_REPEAT_S:g} s (until {UNCONTENDED_TRIALS} had the cores)"),
        "stream_best_copy_gbps": max(stream_copy),
        "dram_ceiling_gbps": max(dram), "dram_ceiling_median_of_rounds": statistics.median(dram),
        "dram_over_stream": max(dram) / max(stream_copy),
        "dram_over_stream_per_round_median": statistics.median(
            r["ratios"]["dram_over_stream_copy"] for r in rounds),
        "peak_formula": "cores x SIMD lanes x FMA units x 2 x clock",
        "cores": threads, "fp32_lanes": 16, "fp64_lanes": 8, "fma_units": units,
        "clock_ghz": top_clock, "fp32_theory_gflops": theory32, "fp64_theory_gflops": theory64,
        "fp32_gflops": max(fp32), "fp32_over_theory": max(fp32) / theory32,
        "fp32_over_theory_per_round_median": statistics.median(
            r["ratios"]["fp32_over_theory"] for r in rounds),
        "fp64_gflops": max(fp64), "fp64_over_theory": max(fp64) / theory64,
        "fp32_kernel_lanes": fma_lanes("fp32"),
        "targets": {"dram >= 0.95 x STREAM best Copy": max(dram) / max(stream_copy) >= 0.95,
                    "fp32 >= 0.90 x theory": max(fp32) / theory32 >= 0.90},
        "rule_stability": {name: rule_stability(rounds, name) for name in ("dram", "fp32", "fp64")},
        "load_range": [min(r["stream_rule"]["load_before"] for r in rounds),
                       max(r["load_after"] for r in rounds)],
    }
    result = {"benchmark": "cpu_lane", "started": started, "finished": now_iso(),
              "machine": machine,
              "builds": {"stream_rule": cmd_rule, "stream_own": cmd_own, "probe": cmd_probe,
                         "stream_rule_elements": rule_elems, "stream_own_elements": own_elems},
              "course_dram_buffer_bytes": size, "evidence": evidence_summary(rounds), "rounds": rounds,
              "summary": summary}
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    progress(json.dumps(summary["targets"]) + f"  -> {args.out}")
    print(json.dumps({k: v for k, v in summary.items() if k != "rule_stability"}, indent=1))


if __name__ == "__main__":
    main()
