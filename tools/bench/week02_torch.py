#!/usr/bin/python3
"""The week-2 benchmark workloads in PyTorch, for tools/bench-compare.

Usage: PYTHON tools/bench/week02_torch.py [THREADS]
THREADS (else $KINDLING_BENCH_THREADS, $OMP_NUM_THREADS, or the cores) is set with
torch.set_num_threads before anything is timed (see torch_threads.py) and reported as
"threads" (torch.get_num_threads()) in "_config".
Prints JSON {name: median seconds, "_config": {...}}.
"""
import json
import sys

import torch

sys.path.insert(0, __import__("os").path.dirname(__file__))
from torch_threads import config, setup  # noqa: E402
from week01_torch import median_time  # noqa: E402


def tiny():
    x = torch.rand(16, requires_grad=True)

    def step():
        (x * 2 + 1).relu().sum().backward()
        x.grad = None
    return step


def chain_backward(n):
    x = torch.rand(4, requires_grad=True)
    times = []
    import time
    for _ in range(3):
        y = x
        for _ in range(n):
            y = y * 1.0
        loss = y.sum()
        del y
        t0 = time.perf_counter()
        loss.backward()
        times.append(time.perf_counter() - t0)
        del loss
        x.grad = None
    return sorted(times)[1]


def mlp():
    torch.manual_seed(0)
    x = torch.rand(64, 784)
    target = torch.rand(64, 10)
    params = [torch.randn(256, 784) / 28, torch.zeros(256), torch.randn(256, 256) / 16, torch.zeros(256),
              torch.randn(10, 256) / 16, torch.zeros(10)]
    for p in params:
        p.requires_grad_()

    def step():
        h = torch.tanh(torch.addmm(params[1], x, params[0].t()))
        h = torch.tanh(torch.addmm(params[3], h, params[2].t()))
        out = torch.addmm(params[5], h, params[4].t())
        ((out - target) ** 2).mean().backward()
        for p in params:
            p.grad = None
    return step


def main():
    setup()
    results = {"tiny_fwd_bwd": median_time(tiny()), "chain_10000": chain_backward(10_000),
               "chain_100000": chain_backward(100_000), "mlp_fwd_bwd": median_time(mlp()),
               "_config": config()}
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
