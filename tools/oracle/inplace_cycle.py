#!/usr/bin/python3
"""How much memory `x += f(x)` leaves behind in PyTorch 1.13 when its backward fails.

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/inplace_cycle.py
The lecture (lectures/week02-autograd.md, "The notes say: x = x + 1 and x += 1 are the same")
quotes what it prints. The product x * v saves x itself; x.add_ then gives x a node that leads
back to the product, a ring of references no handle can break. Each round here leaves x and
the product behind (8 MB for a million floats): a weak reference to x outlives its last handle
in every round. Written out of place, none does.
"""

import gc
import weakref

import torch

assert torch.__version__.startswith("1.13"), torch.__version__

N, ROUNDS = 1_000_000, 50


def resident_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def rounds(in_place):
    w = torch.ones(N).requires_grad_()
    v = torch.ones(N).requires_grad_()
    alive = []
    for _ in range(ROUNDS):
        x = w * 2
        if in_place:
            x.add_(x * v)
            try:
                x.sum().backward()
            except RuntimeError:
                pass
        else:
            x = x + x * v
            x.sum().backward()
        alive.append(weakref.ref(x))
        del x
    gc.collect()
    return sum(r() is not None for r in alive)


for in_place in (False, True):
    before = resident_mb()
    left = rounds(in_place)
    print(f"{'x.add_(x * v)' if in_place else 'x = x + x * v'}: {ROUNDS} rounds of {N:,} floats, "
          f"{left} x still alive after del x, resident set {resident_mb() - before:+.0f} MB")
