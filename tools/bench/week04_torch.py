#!/usr/bin/python3
"""The week-4 benchmark workloads in PyTorch, for tools/bench-compare.

Usage: PYTHON tools/bench/week04_torch.py [THREADS]
THREADS (else $KINDLING_BENCH_THREADS, $OMP_NUM_THREADS, or the cores) is set with
torch.set_num_threads before anything is timed (see torch_threads.py) and reported as
"threads" (torch.get_num_threads()) in "_config".
Prints JSON {name: median seconds, "_config": {...}}.
"""
import json
import os
import sys
import time

import torch
from torch.utils.data import WeightedRandomSampler

sys.path.insert(0, os.path.dirname(__file__))
from torch_threads import config, setup  # noqa: E402
from week01_torch import median_time  # noqa: E402


def weighted(replacement):
    torch.manual_seed(1)
    sampler = WeightedRandomSampler(torch.rand(10**6, dtype=torch.double), 10**6, replacement=replacement)
    # What a DataLoader does with it: one multinomial call per epoch, then the indices as a list.
    return lambda: list(iter(sampler))


class Sleepy(torch.utils.data.Dataset):
    """Items that take 1 ms to load, as in grader/bench/week04_bench.cpp."""

    def __len__(self):
        return 32 * 16

    def __getitem__(self, i):
        time.sleep(0.001)
        return torch.full((4,), float(i))


def worker_scaling(workers):
    loader = torch.utils.data.DataLoader(Sleepy(), batch_size=32, num_workers=workers)
    t = median_time(lambda: [b for b in loader], min_time=0.5, repetitions=3)
    return 32 * 16 / t  # items per second, worker start-up included (once per epoch, as in training)


def per_batch(workers):
    torch.manual_seed(0)
    ds = torch.utils.data.TensorDataset(torch.rand(60000, 784), torch.randint(10, (60000,)))
    loader = torch.utils.data.DataLoader(ds, batch_size=64, shuffle=True, num_workers=workers)
    t = median_time(lambda: [b for b in loader], min_time=0.5, repetitions=3)
    return t / len(loader)
# Staging copies are compared within Kindling only: Debian's CPU-only torch cannot pin memory
# ("Could not run 'aten::_pin_memory' with arguments from the 'CUDA' backend").


def main():
    setup()
    results = {"weighted_replacement": median_time(weighted(True), repetitions=3),
               "weighted_no_replacement": median_time(weighted(False), repetitions=3),
               "per_batch_0": per_batch(0), "per_batch_2": per_batch(2),
               "_config": config()}
    for w in (0, 1, 2, 4, 8):
        results[f"workers_{w}_items_per_s"] = worker_scaling(w)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
