#!/usr/bin/python3
"""The week-3 benchmark workloads in PyTorch, for tools/bench-compare.

Usage: PYTHON tools/bench/week03_torch.py [THREADS]
THREADS (else $KINDLING_BENCH_THREADS, $OMP_NUM_THREADS, or the cores) is set with
torch.set_num_threads before anything is timed (see torch_threads.py) and reported as
"threads" (torch.get_num_threads()) in "_config".
Prints JSON {name: median seconds, "_config": {...}}.
"""
import json
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(__file__))
from torch_threads import config, setup  # noqa: E402
from week01_torch import median_time  # noqa: E402


def linear():
    torch.manual_seed(3)
    lin = nn.Linear(784, 256)
    x = torch.rand(64, 784)

    def step():
        lin(x).sum().backward()
        lin.zero_grad(set_to_none=True)
    return step


def small_cnn():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(32 * 7 * 7, 10))


def cnn_forward():
    torch.manual_seed(4)
    net = small_cnn()
    x = torch.rand(64, 1, 28, 28)

    def step():
        with torch.no_grad():
            net(x)
    return step


def cnn_forward_backward():
    torch.manual_seed(4)
    net = small_cnn()
    x = torch.rand(64, 1, 28, 28)

    def step():
        net(x).sum().backward()
        net.zero_grad(set_to_none=True)
    return step


def main():
    setup()
    results = {"linear_fwd_bwd": median_time(linear()), "cnn_fwd": median_time(cnn_forward()),
               "cnn_fwd_bwd": median_time(cnn_forward_backward()),
               "_config": config()}
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
