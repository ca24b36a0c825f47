#!/usr/bin/python3
"""Summarises tools/bench-compare's rounds: median ratio and range per workload."""
import json
import statistics
import sys

out, rounds = sys.argv[1], int(sys.argv[2])
WEEKS = {int(w) for w in (sys.argv[3] if len(sys.argv) > 3 else "1,2,3,4,5").split(",")}
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def kindling(r):
    k = json.load(open(f"{out}/kindling-{r}.json"))
    return k["context"], {b["run_name"]: b["real_time"] * UNIT[b["time_unit"]]
                          for b in k["benchmarks"] if b.get("aggregate_name") == "median"}


def summary(values):
    return statistics.median(values), min(values), max(values)


if 1 in WEEKS:
    runs = [kindling(r) for r in range(1, rounds + 1)]
    torch = [json.load(open(f"{out}/torch-{r}.json")) for r in range(1, rounds + 1)]
    ctx = runs[0][0]
    print(f"machine: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz; torch {torch[0]['_config']['torch']}; "
          f"{rounds} alternating rounds, median of 3 repetitions each\n")




    print("Within Kindling (same process): A / B time")
    pairs = [("view of 100M elements / view of 100", "BM_ViewHuge", "BM_ViewTiny"),
             ("reshape of a transpose / clone of contiguous", "BM_ReshapeOfTranspose", "BM_CloneContiguous"),
             ("reshape of a transpose / memcpy (pre-faulted)", "BM_ReshapeOfTranspose", "BM_MemcpySameBytes"),
             ("sum of a transpose / sum of contiguous", "BM_SumTransposed", "BM_SumContiguous"),
             ("naive loop over a transpose / over contiguous", "BM_NaiveLoopTransposed", "BM_NaiveLoopContiguous")]
    for label, a, b in pairs:
        m, lo, hi = summary([k[a] / k[b] for _, k in runs])
        print(f"  {label:<48} {m:5.2f}x  (range {lo:.2f}-{hi:.2f})")

    print("\nPyTorch time / Kindling time, same workloads (>1: Kindling is faster)")
    rows = [("view of 100M elements", "BM_ViewHuge", "view_huge"), ("clone 4096x4096 fp32", "BM_CloneContiguous", "clone"),
            ("t().reshape(-1) 4096x4096", "BM_ReshapeOfTranspose", "reshape_of_transpose"),
            ("sum 4096x4096", "BM_SumContiguous", "sum"), ("t().sum() 4096x4096", "BM_SumTransposed", "sum_transposed"),
            ("(x*2+1).relu().sum(), 16 fp32", "BM_TinyOpChain", "tiny_op_chain")]
    rows += [(f"mm fp32 {n}", f"BM_Mm/{n}/real_time", f"mm_{n}") for n in (512, 1024, 2048)]
    for label, kn, tn in rows:
        m, lo, hi = summary([t[tn] / k[kn] for (_, k), t in zip(runs, torch)])
        kt = statistics.median(k[kn] for _, k in runs)
        tt = statistics.median(t[tn] for t in torch)
        extra = ""
        if tn.startswith("mm_"):
            n = int(tn[3:])
            extra = f"  ({2 * n**3 / kt / 1e9:.0f} vs {2 * n**3 / tt / 1e9:.0f} GFLOP/s, medians)"
        print(f"  {label:<28} {m:5.2f}  (range {lo:.2f}-{hi:.2f}; Kindling {kt * 1e3:.4g} ms, PyTorch {tt * 1e3:.4g} ms){extra}")



# ---- week 2: autograd ----------------------------------------------------------------------------
def week_runs(week):
    """Per round: Kindling's median benchmark records by run name, and PyTorch's timings, of one week."""
    kindling_rounds, torch_rounds = [], []
    for r in range(1, rounds + 1):
        k = json.load(open(f"{out}/kindling{week}-{r}.json"))
        kindling_rounds.append({b["run_name"]: b for b in k["benchmarks"] if b.get("aggregate_name") == "median"})
        torch_rounds.append(json.load(open(f"{out}/torch{week}-{r}.json")))
    return kindling_rounds, torch_rounds


if 2 in WEEKS:
    runs2, torch2 = week_runs(2)


def seconds(b):
    return b["real_time"] * UNIT[b["time_unit"]]


def compare(rows, kindling_rounds, torch_rounds, unit, width):
    """One line per (label, Kindling run name, PyTorch key): median PyTorch/Kindling ratio, range and times."""
    scale = {"us": 1e6, "ms": 1e3}[unit]
    for label, kn, tn in rows:
        m, lo, hi = summary([t[tn] / seconds(k[kn]) for k, t in zip(kindling_rounds, torch_rounds)])
        kt = statistics.median(seconds(k[kn]) for k in kindling_rounds)
        tt = statistics.median(t[tn] for t in torch_rounds)
        print(f"  {label:<{width}} {m:5.2f}  (range {lo:.2f}-{hi:.2f}; "
              f"Kindling {kt * scale:.4g} {unit}, PyTorch {tt * scale:.4g} {unit})")


if 2 in WEEKS:
    print("\nWeek 2, PyTorch time / Kindling time (>1: Kindling is faster)")
    rows2 = [("(x*2+1).relu().sum() fwd+bwd", "BM_TinyForwardBackward", "tiny_fwd_bwd"),
             ("backward, 10,000-node chain", "BM_ChainBackward/10000/real_time", "chain_10000"),
             ("backward, 100,000-node chain", "BM_ChainBackward/100000/real_time", "chain_100000"),
             ("3-layer MLP b64 fwd+bwd", "BM_MlpForwardBackward", "mlp_fwd_bwd")]
    compare(rows2, runs2, torch2, "us", 30)
    print("\nWeek 2, linearity of the chain backward (Kindling)")
    for n in (10000, 100000):
        b = [k[f"BM_ChainBackward/{n}/real_time"] for k in runs2]
        print(f"  {n:>7} nodes: {statistics.median(x['ns_per_node'] * 1e9 for x in b):.0f} ns/node, "
              f"{statistics.median(x['graph_bytes_per_node'] for x in b):.0f} graph bytes/node")


# ---- week 3: modules -------------------------------------------------------------------------------
if 3 in WEEKS:
    runs3, torch3 = week_runs(3)
    print("\nWeek 3, PyTorch time / Kindling time (>1: Kindling is faster)")
    rows3 = [("Linear 784->256 b64 fwd+bwd", "BM_LinearForwardBackward/real_time", "linear_fwd_bwd"),
             ("small CNN b64 28x28 forward", "BM_CnnForward/real_time", "cnn_fwd"),
             ("small CNN b64 28x28 fwd+bwd", "BM_CnnForwardBackward/real_time", "cnn_fwd_bwd")]
    compare(rows3, runs3, torch3, "ms", 30)
    ratio = statistics.median(k["BM_LinearModuleVsDirect/real_time"]["ratio"] for k in runs3)
    print(f"  Linear module / direct addmm (Kindling): {ratio:.2f}")


# ---- week 4: data ------------------------------------------------------------------------------------
if 4 in WEEKS:
    runs4, torch4 = week_runs(4)
    print("\nWeek 4, PyTorch time / Kindling time (>1: Kindling is faster)")
    rows4 = [("WeightedRandomSampler 1e6 of 1e6, replacement", "BM_WeightedSampler/1000000/1/real_time",
              "weighted_replacement"),
             ("WeightedRandomSampler 1e6 of 1e6, no replacement", "BM_WeightedSampler/1000000/0/real_time",
              "weighted_no_replacement")]
    compare(rows4, runs4, torch4, "ms", 48)
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
    for w in (0, 2):
        kt = statistics.median(k[f"BM_PerBatchOverhead/{w}/real_time"]["us_per_batch"] for k in runs4)
        tt = statistics.median(t[f"per_batch_{w}"] for t in torch4)
        print(f"  60000x784 in memory, batch 64, shuffled, {w} workers: Kindling {kt * 1e6:.0f} us/batch, "
              f"PyTorch {tt * 1e6:.0f} us/batch ({tt / kt:.1f}x)")
    m, lo, hi = summary([k["BM_PerBatchOverhead/2/real_time"]["us_per_batch"] / k["BM_PerBatchOverhead/0/real_time"]["us_per_batch"]
                         for k in runs4])
    print(f"  Kindling per batch, 2 workers / 0 workers: {m:.2f} (range {lo:.2f}-{hi:.2f}; goal <= 1: no slowdown)")
    pinned = statistics.median(seconds(k["BM_StagingPinnedRecycled/real_time"]) for k in runs4)
    pageable = statistics.median(seconds(k["BM_StagingPageableFresh/real_time"]) for k in runs4)
    fresh_pinned = statistics.median(seconds(k["BM_StagingPinnedFresh/real_time"]) for k in runs4)
    print(f"  staging a 64x784 batch: recycled pinned {pinned * 1e6:.1f} us, fresh pageable {pageable * 1e6:.1f} us, "
          f"freshly locked {fresh_pinned * 1e6:.1f} us")


# ---- week 5: training ----------------------------------------------------------------------------------
if 5 in WEEKS:
    runs5, torch5 = week_runs(5)
    k_threads = int(statistics.median(k["BM_MlpEpoch60k/real_time"]["kindling_threads"] for k in runs5))
    t_threads = torch5[0]["_config"]["threads"]
    print(f"\nWeek 5, PyTorch time / Kindling time (>1: Kindling is faster); threads: Kindling {k_threads}, "
          f"PyTorch {t_threads} (torch.set_num_threads)")
    rows5 = [("MLP 784-256-10 epoch, 60k, b64, SGD", "BM_MlpEpoch60k/real_time", "mlp_epoch_60k"),
             ("small CNN, 6,400 examples, b64, SGD", "BM_CnnEpoch6400/real_time", "cnn_epoch_6400"),
             ("SGD momentum step, 10M params", "BM_SgdMomentumStep10M/real_time", "sgd_step_10m"),
             ("Adam step, 10M params", "BM_AdamStep10M/real_time", "adam_step_10m"),
             ("copy of 10M floats", "BM_CopyBandwidth/real_time", "copy_10m")]
    compare(rows5, runs5, torch5, "ms", 38)
    copy_gbs = statistics.median(k["BM_CopyBandwidth/real_time"]["GB/s"] for k in runs5) / 1e9
    for name, bench in (("SGD momentum", "BM_SgdMomentumStep10M/real_time"), ("Adam", "BM_AdamStep10M/real_time")):
        gbs = statistics.median(k[bench]["GB/s"] for k in runs5) / 1e9
        print(f"  {name} step: {gbs:.1f} GB/s of the bytes it must move, {gbs / copy_gbs:.2f} of a measured copy "
              f"({copy_gbs:.1f} GB/s; goal >= 0.6)")
