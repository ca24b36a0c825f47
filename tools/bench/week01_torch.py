#!/usr/bin/python3
"""The week-1 benchmark workloads in PyTorch, for tools/bench-compare.

Usage: PYTHON tools/bench/week01_torch.py [THREADS]
THREADS (else $KINDLING_BENCH_THREADS, $OMP_NUM_THREADS, or the cores) is set with
torch.set_num_threads before anything is timed (see torch_threads.py) and reported as
"threads" (torch.get_num_threads()) in "_config".
Prints JSON {name: median seconds, "_config": {...}}. With Debian's torch 1.13 install
libopenblas0-pthread (without it torch falls back to reference BLAS).
"""
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_threads import config, setup  # noqa: E402

SIDE = 4096


def median_time(fn, min_time=0.3, repetitions=3):
    fn()  # warm up
    medians = []
    for _ in range(repetitions):
        runs, start = [], time.perf_counter()
        while True:
            t0 = time.perf_counter()
            fn()
            runs.append(time.perf_counter() - t0)
            if time.perf_counter() - start > min_time and len(runs) >= 3:
                break
        medians.append(statistics.median(runs))
    return statistics.median(medians)


def main():
    setup()
    torch.manual_seed(0)
    results = {}
    tiny = torch.zeros(100)
    huge = torch.zeros(100_000_000)
    x = torch.rand(SIDE, SIDE)
    results["view_tiny"] = median_time(lambda: tiny.view(10, -1))
    results["view_huge"] = median_time(lambda: huge.view(10_000, -1))
    results["clone"] = median_time(lambda: x.clone())
    results["reshape_of_transpose"] = median_time(lambda: x.t().reshape(-1))
    results["sum"] = median_time(lambda: x.sum())
    results["sum_transposed"] = median_time(lambda: x.t().sum())
    small = torch.rand(16)
    results["tiny_op_chain"] = median_time(lambda: (small * 2 + 1).relu().sum().item())
    for n in (512, 1024, 2048):
        a, b = torch.rand(n, n), torch.rand(n, n)
        results[f"mm_{n}"] = median_time(lambda: torch.mm(a, b))
    results["_config"] = config()
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
