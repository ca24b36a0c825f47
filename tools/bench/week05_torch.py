#!/usr/bin/python3
"""The week-5 benchmark workloads (grader/bench/week05_bench.cpp) in PyTorch, for tools/bench-compare.

Usage: PYTHON tools/bench/week05_torch.py [THREADS]
THREADS (else $KINDLING_BENCH_THREADS, $OMP_NUM_THREADS, or the cores) is set with
torch.set_num_threads before anything is timed (see torch_threads.py) and reported as
"threads" (torch.get_num_threads()) in "_config".
tools/bench-compare passes Kindling's thread count (OMP_NUM_THREADS, which the Kindling bench
reports as the counter "kindling_threads") and checks that the two agree.
Prints JSON {name: median seconds, "_config": {...}}.
"""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from torch_threads import config, setup  # noqa: E402
from week01_torch import median_time  # noqa: E402


def train_steps(model, opt, x, y, batch):
    for start in range(0, x.shape[0] - batch + 1, batch):
        opt.zero_grad()
        F.cross_entropy(model(x[start:start + batch]), y[start:start + batch]).backward()
        opt.step()


def mlp_epoch():
    torch.manual_seed(5)
    x, y = torch.rand(60000, 784), torch.randint(0, 10, (60000,))
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return lambda: train_steps(model, opt, x, y, 64)


def cnn_epoch():
    torch.manual_seed(6)
    x, y = torch.rand(6400, 1, 28, 28), torch.randint(0, 10, (6400,))
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(32 * 7 * 7, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return lambda: train_steps(model, opt, x, y, 64)


# One step piece by piece, as grader/bench/week05_bench.cpp's BM_StepPiece: each layer forward and
# backward alone at the step's shapes with a given output gradient, parameters' gradients zeroed (not
# set to none, as the epoch's zero_grad in 1.13), the input's dropped; the loss; the SGD step.
def layer_piece(shape, input_grad, *layers):
    m = nn.Sequential(*layers)
    x = torch.rand(*shape, requires_grad=input_grad)
    with torch.no_grad():
        g = torch.rand(m(x).shape)

    def step():
        m(x).backward(g)
        m.zero_grad(set_to_none=False)
        x.grad = None
    return step


def loss_piece():
    logits = torch.rand(64, 10, requires_grad=True)
    y = torch.randint(0, 10, (64,))

    def step():
        F.cross_entropy(logits, y).backward()
        logits.grad = None
    return step


def sgd_piece(model):
    for p in model.parameters():
        p.grad = torch.rand(p.shape)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    opt.step()
    return opt.step


def conv(i, o):
    return nn.Conv2d(i, o, 3, padding=1)


def cnn():
    return (conv(1, 16), nn.ReLU(), nn.MaxPool2d(2), conv(16, 32), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(32 * 7 * 7, 10))


PIECES = {
    "mlp_linear1": lambda: layer_piece((64, 784), False, nn.Linear(784, 256)),
    "mlp_relu": lambda: layer_piece((64, 256), True, nn.ReLU()),
    "mlp_linear2": lambda: layer_piece((64, 256), True, nn.Linear(256, 10)),
    "loss": loss_piece,
    "mlp_sgd": lambda: sgd_piece(nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))),
    "cnn_conv1": lambda: layer_piece((64, 1, 28, 28), False, conv(1, 16)),
    "cnn_relu1": lambda: layer_piece((64, 16, 28, 28), True, nn.ReLU()),
    "cnn_pool1": lambda: layer_piece((64, 16, 28, 28), True, nn.MaxPool2d(2)),
    "cnn_conv2": lambda: layer_piece((64, 16, 14, 14), True, conv(16, 32)),
    "cnn_relu2": lambda: layer_piece((64, 32, 14, 14), True, nn.ReLU()),
    "cnn_pool2": lambda: layer_piece((64, 32, 14, 14), True, nn.MaxPool2d(2)),
    "cnn_head": lambda: layer_piece((64, 32, 7, 7), True, nn.Flatten(), nn.Linear(32 * 7 * 7, 10)),
    "cnn_sgd": lambda: sgd_piece(nn.Sequential(*cnn())),
}


N = 10_000_000


def optimizer_step(make):
    torch.manual_seed(7)
    p = torch.rand(N, requires_grad=True)
    p.grad = torch.rand(N)
    opt = make([p])
    opt.step()  # creates the state
    return opt.step


def copy():
    a, b = torch.ones(N), torch.full((N,), 2.0)
    return lambda: b.copy_(a)


def main():
    setup()
    results = {
        "mlp_epoch_60k": median_time(mlp_epoch(), min_time=0.0, repetitions=3),
        "cnn_epoch_6400": median_time(cnn_epoch(), min_time=0.0, repetitions=3),
        "copy_10m": median_time(copy()),
        "sgd_step_10m": median_time(optimizer_step(lambda ps: torch.optim.SGD(ps, lr=1e-3, momentum=0.9))),
        "adam_step_10m": median_time(optimizer_step(lambda ps: torch.optim.Adam(ps))),
        "_config": config(),
    }
    for name, make in PIECES.items():
        torch.manual_seed(9)
        results["piece_" + name] = median_time(make(), min_time=0.1)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
