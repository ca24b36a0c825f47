#!/usr/bin/python3
"""Summarises tools/bench-compare's rounds: median PyTorch/Kindling ratio and range per workload,
one section per thread count, and writes every number to a JSON file.

  report.py --raw DIR --rounds R --weeks 1,2 --threads 1,2 --torch-info INFO.json \\
            --min-time 0.3s --json results.json

DIR holds t{N}/kindling{W}-{r}.json (Google Benchmark JSON) and t{N}/torch{W}-{r}.json (a weekNN_torch.py
run) for each thread count N, week W and round r; INFO.json is `torch_threads.py info`. Needs no torch.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
RECORDS = []  # every PyTorch/Kindling comparison, for the JSON file


def summary(values):
    return statistics.median(values), min(values), max(values)


def seconds(b):
    return b["real_time"] * UNIT[b["time_unit"]]


def cpu_model():
    keys = ("model name", "Hardware", "Processor", "cpu model", "uarch")
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in keys and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class Section:
    """The rounds of one thread count: per week, Kindling's median records by run name and PyTorch's timings."""

    def __init__(self, raw, threads, rounds, weeks):
        self.threads, self.rounds = threads, rounds
        self.kindling, self.torch, self.context = {}, {}, None
        for w in weeks:
            self.kindling[w], self.torch[w] = [], []
            for r in range(1, rounds + 1):
                with open(f"{raw}/t{threads}/kindling{w}-{r}.json") as f:
                    k = json.load(f)
                self.context = self.context or k["context"]
                self.kindling[w].append({b["run_name"]: b for b in k["benchmarks"] if b.get("aggregate_name") == "median"})
                with open(f"{raw}/t{threads}/torch{w}-{r}.json") as f:
                    self.torch[w].append(json.load(f))
        self.check()

    def check(self):
        """Refuses to report a section whose two sides ran at different thread counts."""
        problems = []
        self.kindling_reported = set()
        for w in self.kindling:
            for r, (k, t) in enumerate(zip(self.kindling[w], self.torch[w]), 1):
                cfg = t.get("_config", {})
                if cfg.get("threads") != self.threads:
                    problems.append(f"week {w} round {r}: torch.get_num_threads() = {cfg.get('threads')}")
                if cfg.get("blas_threads") not in (None, self.threads):
                    problems.append(f"week {w} round {r}: OpenBLAS threads = {cfg.get('blas_threads')}")
                for b in k.values():
                    if "kindling_threads" in b:
                        self.kindling_reported.add(int(round(b["kindling_threads"])))
        if self.kindling_reported - {self.threads}:
            problems.append(f"Kindling's kindling_threads counter = {sorted(self.kindling_reported)}")
        if problems:
            sys.exit(f"report: thread counts differ from {self.threads} (OMP_NUM_THREADS / torch.set_num_threads): "
                     + "; ".join(problems))

    def compare(self, week, rows, unit, width, kindling_value=seconds, extra=None):
        """One line per (label, Kindling run name, PyTorch key): median PyTorch/Kindling ratio, range and times."""
        scale = {"us": 1e6, "ms": 1e3}[unit]
        for label, kn, tn in rows:
            ks = [kindling_value(k[kn]) for k in self.kindling[week]]
            ts = [t[tn] for t in self.torch[week]]
            m, lo, hi = summary([t / k for k, t in zip(ks, ts)])
            kt, tt = statistics.median(ks), statistics.median(ts)
            RECORDS.append({"threads": self.threads, "week": week, "workload": label, "kindling_benchmark": kn,
                            "pytorch_key": tn, "ratio": m, "ratio_min": lo, "ratio_max": hi,
                            "ratios": [t / k for k, t in zip(ks, ts)], "kindling_s": kt, "pytorch_s": tt,
                            "kindling_s_rounds": ks, "pytorch_s_rounds": ts})
            print(f"  {label:<{width}} {m:5.2f}  (range {lo:.2f}-{hi:.2f}; "
                  f"Kindling {kt * scale:.4g} {unit}, PyTorch {tt * scale:.4g} {unit}){extra(tn, kt, tt) if extra else ''}")


# ---- week 1: tensors -------------------------------------------------------------------------------
def week1(s):
    runs = [{name: seconds(b) for name, b in k.items()} for k in s.kindling[1]]
    print("\nWeek 1, within Kindling (same process): A / B time")
    pairs = [("view of 100M elements / view of 100", "BM_ViewHuge", "BM_ViewTiny"),
             ("reshape of a transpose / clone of contiguous", "BM_ReshapeOfTranspose", "BM_CloneContiguous"),
             ("reshape of a transpose / memcpy (pre-faulted)", "BM_ReshapeOfTranspose", "BM_MemcpySameBytes"),
             ("sum of a transpose / sum of contiguous", "BM_SumTransposed", "BM_SumContiguous"),
             ("naive loop over a transpose / over contiguous", "BM_NaiveLoopTransposed", "BM_NaiveLoopContiguous")]
    for label, a, b in pairs:
        m, lo, hi = summary([k[a] / k[b] for k in runs])
        print(f"  {label:<48} {m:5.2f}x  (range {lo:.2f}-{hi:.2f})")

    print("\nWeek 1, PyTorch time / Kindling time, same workloads (>1: Kindling is faster)")
    rows = [("view of 100M elements", "BM_ViewHuge", "view_huge"), ("clone 4096x4096 fp32", "BM_CloneContiguous", "clone"),
            ("t().reshape(-1) 4096x4096", "BM_ReshapeOfTranspose", "reshape_of_transpose"),
            ("sum 4096x4096", "BM_SumContiguous", "sum"), ("t().sum() 4096x4096", "BM_SumTransposed", "sum_transposed"),
            ("(x*2+1).relu().sum(), 16 fp32", "BM_TinyOpChain", "tiny_op_chain")]
    rows += [(f"mm fp32 {n}", f"BM_Mm/{n}/real_time", f"mm_{n}") for n in (512, 1024, 2048)]

    def gflops(tn, kt, tt):
        if not tn.startswith("mm_"):
            return ""
        n = int(tn[3:])
        return f"  ({2 * n**3 / kt / 1e9:.0f} vs {2 * n**3 / tt / 1e9:.0f} GFLOP/s, medians)"
    s.compare(1, rows, "ms", 28, extra=gflops)


# ---- week 2: autograd ----------------------------------------------------------------------------
def week2(s):
    print("\nWeek 2, PyTorch time / Kindling time (>1: Kindling is faster)")
    rows = [("(x*2+1).relu().sum() fwd+bwd", "BM_TinyForwardBackward", "tiny_fwd_bwd"),
            ("backward, 10,000-node chain", "BM_ChainBackward/10000/real_time", "chain_10000"),
            ("backward, 100,000-node chain", "BM_ChainBackward/100000/real_time", "chain_100000"),
            ("3-layer MLP b64 fwd+bwd", "BM_MlpForwardBackward", "mlp_fwd_bwd")]
    s.compare(2, rows, "us", 30)
    print("\nWeek 2, linearity of the chain backward (Kindling)")
    per_node = {}
    for n in (10000, 100000, 1000000):
        b = [k[f"BM_ChainBackward/{n}/real_time"] for k in s.kindling[2] if f"BM_ChainBackward/{n}/real_time" in k]
        if not b:
            continue
        per_node[n] = statistics.median(x['ns_per_node'] * 1e9 for x in b)
        print(f"  {n:>7} nodes: {per_node[n]:.0f} ns/node, "
              f"{statistics.median(x['graph_bytes_per_node'] for x in b):.0f} graph bytes/node")
    if per_node:
        print(f"  spread (slowest / fastest ns per node): {max(per_node.values()) / min(per_node.values()):.2f}"
              " (target: at most 1.2)")


# ---- week 3: modules -------------------------------------------------------------------------------
def week3(s):
    print("\nWeek 3, PyTorch time / Kindling time (>1: Kindling is faster)")
    rows = [("Linear 784->256 b64 fwd+bwd", "BM_LinearForwardBackward/real_time", "linear_fwd_bwd"),
            ("small CNN b64 28x28 forward", "BM_CnnForward/real_time", "cnn_fwd"),
            ("small CNN b64 28x28 fwd+bwd", "BM_CnnForwardBackward/real_time", "cnn_fwd_bwd")]
    s.compare(3, rows, "ms", 30)
    ratio = statistics.median(k["BM_LinearModuleVsDirect/real_time"]["ratio"] for k in s.kindling[3])
    print(f"  Linear module / direct addmm (Kindling): {ratio:.2f}")


# ---- week 4: data ------------------------------------------------------------------------------------
def week4(s):
    runs4, torch4 = s.kindling[4], s.torch[4]
    print("\nWeek 4, PyTorch time / Kindling time (>1: Kindling is faster)")
    rows = [("WeightedRandomSampler 1e6 of 1e6, replacement", "BM_WeightedSampler/1000000/1/real_time",
             "weighted_replacement"),
            ("WeightedRandomSampler 1e6 of 1e6, no replacement", "BM_WeightedSampler/1000000/0/real_time",
             "weighted_no_replacement")]
    s.compare(4, rows, "ms", 48)
    rows = [(f"DataLoader per batch, 60000x784, {w} workers", f"BM_PerBatchOverhead/{w}/real_time",
             f"per_batch_{w}") for w in (0, 2)]
    s.compare(4, rows, "us", 48, kindling_value=lambda b: b["us_per_batch"])
    scan = statistics.median(seconds(k["BM_WeightedLinearScan/10000/real_time"]) for k in runs4)
    table = statistics.median(seconds(k["BM_WeightedSampler/10000/1/real_time"]) for k in runs4)
    print(f"  10^4 draws from 10^4 weights: linear scan per draw / alias table = {scan / table:.0f}x")
    print("\nWeek 4, DataLoader (PyTorch uses worker processes, Kindling threads)")
    for w in (0, 1, 2, 4, 8):
        k_rate = statistics.median(k[f"BM_WorkerScaling/{w}/real_time"]["items_per_s"] for k in runs4)
        t_rate = statistics.median(t[f"workers_{w}_items_per_s"] for t in torch4)
        ideal = 1000.0 * max(1, w)
        print(f"  1 ms/item, batch 32, {w} workers: Kindling {k_rate:7.0f} items/s ({k_rate / ideal:.2f} of ideal), "
              f"PyTorch {t_rate:7.0f} ({t_rate / ideal:.2f})")
    m, lo, hi = summary([k["BM_PerBatchOverhead/2/real_time"]["us_per_batch"] / k["BM_PerBatchOverhead/0/real_time"]["us_per_batch"]
                         for k in runs4])
    print(f"  Kindling per batch, 2 workers / 0 workers: {m:.2f} (range {lo:.2f}-{hi:.2f}; goal <= 1: no slowdown)")
    pinned = statistics.median(seconds(k["BM_StagingPinnedRecycled/real_time"]) for k in runs4)
    pageable = statistics.median(seconds(k["BM_StagingPageableFresh/real_time"]) for k in runs4)
    fresh_pinned = statistics.median(seconds(k["BM_StagingPinnedFresh/real_time"]) for k in runs4)
    print(f"  staging a 64x784 batch: recycled pinned {pinned * 1e6:.1f} us, fresh pageable {pageable * 1e6:.1f} us, "
          f"freshly locked {fresh_pinned * 1e6:.1f} us")


# ---- week 5: training ----------------------------------------------------------------------------------
def week5(s):
    runs5 = s.kindling[5]
    k_threads = int(statistics.median(k["BM_MlpEpoch60k/real_time"]["kindling_threads"] for k in runs5))
    t_threads = s.torch[5][0]["_config"]["threads"]
    print(f"\nWeek 5, PyTorch time / Kindling time (>1: Kindling is faster); threads: Kindling {k_threads} "
          f"(counter kindling_threads), PyTorch {t_threads} (torch.get_num_threads())")
    rows = [("MLP 784-256-10 epoch, 60k, b64, SGD", "BM_MlpEpoch60k/real_time", "mlp_epoch_60k"),
            ("small CNN, 6,400 examples, b64, SGD", "BM_CnnEpoch6400/real_time", "cnn_epoch_6400"),
            ("SGD momentum step, 10M params", "BM_SgdMomentumStep10M/real_time", "sgd_step_10m"),
            ("Adam step, 10M params", "BM_AdamStep10M/real_time", "adam_step_10m"),
            ("10M floats: copy_", "BM_CopyBandwidth/real_time", "copy_10m")]
    s.compare(5, rows, "ms", 38)
    pieces(s)
    copy_gbs = statistics.median(k["BM_CopyBandwidth/real_time"]["GB/s"] for k in runs5) / 1e9
    for name, bench in (("SGD momentum", "BM_SgdMomentumStep10M/real_time"), ("Adam", "BM_AdamStep10M/real_time")):
        gbs = statistics.median(k[bench]["GB/s"] for k in runs5) / 1e9
        print(f"  {name} step: {gbs:.1f} GB/s of the bytes it must move, {gbs / copy_gbs:.2f} of the engine's copy_ at "
              f"these threads ({copy_gbs:.1f} GB/s; goal >= 0.6)")


# The week-5 steps piece by piece (BM_StepPiece in week05_bench.cpp, PIECES in week05_torch.py).
PIECES = {"MLP": [("Linear 784->256", "mlp_linear1"), ("ReLU 64x256", "mlp_relu"), ("Linear 256->10", "mlp_linear2"),
                  ("cross-entropy 64x10", "loss"), ("SGD momentum step", "mlp_sgd")],
          "CNN": [("conv 1->16 3x3 28x28", "cnn_conv1"), ("ReLU 64x16x28x28", "cnn_relu1"),
                  ("MaxPool2d(2) 64x16x28x28", "cnn_pool1"), ("conv 16->32 3x3 14x14", "cnn_conv2"),
                  ("ReLU 64x32x14x14", "cnn_relu2"), ("MaxPool2d(2) 64x32x14x14", "cnn_pool2"),
                  ("Flatten + Linear 1568->10", "cnn_head"), ("cross-entropy 64x10", "loss"),
                  ("SGD momentum step", "cnn_sgd")]}
STEPS = {"MLP": ("BM_MlpEpoch60k/real_time", "mlp_epoch_60k", 60000 // 64),
         "CNN": ("BM_CnnEpoch6400/real_time", "cnn_epoch_6400", 6400 // 64)}


def piece_run(p):
    """A piece's key: its run name without what Google Benchmark adds (BM_StepPiece/loss/min_time:0.100/real_time)."""
    return f"BM_StepPiece/{p}"


def pieces(s):
    """Each model's step piece by piece: ratios, then the pieces' sum beside one step (epoch / steps)."""
    runs5 = s.kindling[5]
    for k in runs5:
        for name in [n for n in k if n.startswith("BM_StepPiece/")]:
            k[piece_run(name.split("/")[1])] = k[name]
    if not all(piece_run("loss") in k for k in runs5):
        return  # a bench built before the pieces
    for model, rows in PIECES.items():
        print(f"\nWeek 5, the {model} step piece by piece (batch 64, each layer forward + backward alone)")
        s.compare(5, [(f"{model} step: {label}", piece_run(key), f"piece_{key}")
                      for label, key in rows], "us", 42)
        bench, key, steps = STEPS[model]
        k_sum = statistics.median(sum(seconds(k[piece_run(p)]) for _, p in rows)
                                  for k in runs5)
        t_sum = statistics.median(sum(t[f"piece_{p}"] for _, p in rows) for t in s.torch[5])
        k_step = statistics.median(seconds(k[bench]) for k in runs5) / steps
        t_step = statistics.median(t[key] for t in s.torch[5]) / steps
        print(f"  the pieces add up to Kindling {k_sum * 1e6:.0f} us, PyTorch {t_sum * 1e6:.0f} us; one step "
              f"(epoch / {steps}): Kindling {k_step * 1e6:.0f} us, PyTorch {t_step * 1e6:.0f} us")


WEEK_REPORTS = {1: week1, 2: week2, 3: week3, 4: week4, 5: week5}


def dpkg_version(package):
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
        return out.stdout.strip() or None if out.returncode == 0 else None
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", required=True)
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--weeks", default="1,2,3,4,5")
    ap.add_argument("--threads", required=True)
    ap.add_argument("--torch-info", required=True)
    ap.add_argument("--min-time", default="", help="the --benchmark_min_time value the Kindling benches ran with")
    ap.add_argument("--kindling-openmp", default="unknown", help="whether the bench binaries link an OpenMP runtime")
    ap.add_argument("--json", help="where to write every number")
    ap.add_argument("--commit", default="unknown",
                    help="the kit's commit the benches were built from ('-dirty': with uncommitted changes)")
    ap.add_argument("--load-at-start", default="unknown", help="the 1-minute load average before the first round")
    a = ap.parse_args()
    weeks = [int(w) for w in a.weeks.split(",")]
    thread_counts = [int(n) for n in a.threads.split(",")]
    with open(a.torch_info) as f:
        tinfo = json.load(f)
    sections = [Section(a.raw, n, a.rounds, weeks) for n in thread_counts]
    ctx = sections[0].context
    gbench = ctx.get("library_version") or (f"{dpkg_version('libbenchmark-dev')} (Debian package)"
                                            if dpkg_version("libbenchmark-dev") else "unknown version")
    form = "unit suffix" if a.min_time.endswith("s") else "plain number"
    week5_checked = 5 in weeks and all(s.kindling_reported for s in sections)
    listed = ", ".join(map(str, thread_counts))
    blas = tinfo["blas"]
    machine = {"cores": cores(), "cpus_online": os.cpu_count(), "cpu_model": cpu_model(),
               "gbench_num_cpus": ctx.get("num_cpus"), "mhz_per_cpu": ctx.get("mhz_per_cpu"),
               "host": platform.node(), "kernel": platform.release(),
               "loadavg_at_start": a.load_at_start,
               "loadavg_at_report": os.getloadavg() if hasattr(os, "getloadavg") else None}

    print("bench-compare: PyTorch time / Kindling time per workload (>1: Kindling is faster)")
    print(f"  Kindling commit:  {a.commit}")
    print(f"  load average:     {a.load_at_start} before the first round, "
          f"{machine['loadavg_at_report'][0] if machine['loadavg_at_report'] else 'unknown'} at the report")
    print(f"  cores:            {machine['cores']} available to this process ({machine['cpus_online']} online)")
    print(f"  CPU model:        {machine['cpu_model']} (Google Benchmark: {ctx.get('num_cpus')} CPUs at "
          f"{ctx.get('mhz_per_cpu')} MHz)")
    print(f"  Kindling threads: {listed} (OMP_NUM_THREADS; "
          + ("the week-5 bench's kindling_threads counter agrees" if week5_checked else "not reported by weeks 1-4")
          + f"); OpenMP runtime linked: {a.kindling_openmp}")
    print(f"  PyTorch threads:  {listed} (torch.set_num_threads, checked with torch.get_num_threads(); "
          f"interop 1); torch's own default here: {tinfo['default_threads']} intra-op, "
          f"{tinfo['default_interop_threads']} inter-op")
    print(f"  torch:            {tinfo['torch']} at {tinfo['python']} (Python {tinfo['python_version']})")
    print(f"  BLAS:             {blas['summary']}"
          + ("; its thread count set to match" if blas.get("openblas_library") else ""))
    print(f"  Google Benchmark: {gbench}; --benchmark_min_time={a.min_time} ({form})")
    print(f"  runs:             {a.rounds} alternating round(s) per thread count, median of 3 repetitions each; "
          f"weeks {','.join(map(str, weeks))}")

    for s in sections:
        print(f"\n=== threads: Kindling {s.threads} (OMP_NUM_THREADS={s.threads}), "
              f"PyTorch {s.threads} (torch.get_num_threads() = {s.threads}) ===")
        for w in weeks:
            WEEK_REPORTS[w](s)

    if len(sections) > 1:
        print("\nPyTorch time / Kindling time by thread count (medians; >1: Kindling is faster)")
        labels = list(dict.fromkeys((r["week"], r["workload"]) for r in RECORDS))
        head = "".join(f"{n:>8}" for n in thread_counts)
        print(f"  {'week  workload':<56}{head}")
        for week, label in labels:
            by_n = {r["threads"]: r["ratio"] for r in RECORDS if (r["week"], r["workload"]) == (week, label)}
            print(f"  {week}     {label:<50}" + "".join(f"{by_n[n]:8.2f}" for n in thread_counts))

    if a.json:
        result = {
            "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "kindling_commit": a.commit,
            "machine": machine,
            "kindling": {"threads_source": "OMP_NUM_THREADS", "openmp_linked": a.kindling_openmp,
                         "google_benchmark": gbench, "benchmark_min_time": a.min_time,
                         "kindling_threads_reported": {str(s.threads): sorted(s.kindling_reported) for s in sections}},
            "pytorch": {k: tinfo[k] for k in ("torch", "python", "python_version", "default_threads",
                                              "default_interop_threads", "blas")},
            "rounds": a.rounds, "weeks": weeks, "thread_counts": thread_counts,
            "sections": [{"threads": {"kindling": s.threads, "pytorch": s.threads},
                          "workloads": [r for r in RECORDS if r["threads"] == s.threads]} for s in sections],
        }
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
