#!/usr/bin/python3
"""The week-1 benchmark workloads in PyTorch 1.13, for tools/bench-compare.

Prints JSON {name: median seconds}. Run with Debian's interpreter and
libopenblas0-pthread installed (without it torch falls back to reference BLAS).
"""
import json
import statistics
import sys
import time

import torch

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
    results["_config"] = {"torch": torch.__version__, "threads": torch.get_num_threads(),
                          "blas": "openblas" if "OpenBLAS" in torch.__config__.show() or "openblas" in torch.__config__.show().lower() else "other"}
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
