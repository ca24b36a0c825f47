#!/usr/bin/python3
"""The week-4 benchmark workloads in PyTorch 1.13, for tools/bench-compare.

Prints JSON {name: median seconds}. Run with Debian's interpreter.
"""
import json
import os
import sys

import torch
from torch.utils.data import WeightedRandomSampler

sys.path.insert(0, os.path.dirname(__file__))
from week01_torch import median_time  # noqa: E402


def weighted(replacement):
    torch.manual_seed(1)
    sampler = WeightedRandomSampler(torch.rand(10**6, dtype=torch.double), 10**6, replacement=replacement)
    # What a DataLoader does with it: one multinomial call per epoch, then the indices as a list.
    return lambda: list(iter(sampler))


def main():
    results = {"weighted_replacement": median_time(weighted(True), repetitions=3),
               "weighted_no_replacement": median_time(weighted(False), repetitions=3),
               "_config": {"torch": torch.__version__, "threads": torch.get_num_threads()}}
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
