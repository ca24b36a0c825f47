#!/usr/bin/python3
"""Differential scenarios for autograd, produced by PyTorch 1.13 (Debian's python3-torch).

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/differential.py [--graphs N] [--seed S]
It writes grader/tests/week02/data/differential.json, which
grader/tests/week02/differential_test.cpp replays with no Python:

- "graphs": random small graphs (broadcasting, reductions, matmul, views, indexing),
  each a list of steps over float32 inputs, then loss = (result * weight).sum() and
  backward. Recorded: the result, every input's gradient, and every step's
  grad_fn.name().
- "double": second derivatives. Random graphs as above, replayed in float64; with
  loss = (result * weight).sum(), g = autograd.grad(loss, inputs, create_graph=True) and
  s = sum_i (g_i * u_i).sum() for fixed directions u_i, recorded: each g_i and the
  Hessian-vector products autograd.grad(s, inputs) (zeros where an input is unused or
  s is constant), which is what a backward recorded with create_graph gives.
- "inplace": every combination of an in-place write scenario (what is written: a
  saved output, a saved input, a leaf; through which view; with which op; under
  no_grad or not; with the written tensor's handles alive or dropped before
  backward), with PyTorch's error (type, message, and whether the write or the
  backward raised it) or the gradient.

Each graph carries its own seed, so a failing one can be regenerated alone.
"""
import argparse
import json
import os
import random

import torch

assert torch.__version__.startswith("1.13"), torch.__version__
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "grader", "tests", "week02", "data", "differential.json")


def flat(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def tensor_json(t):
    return {"sizes": list(t.shape), "values": flat(t)}


# ---- random graphs ----------------------------------------------------------------------------------------------
UNARY = ["exp", "tanh", "sigmoid", "relu", "neg", "sin", "square"]
BINARY = ["add", "sub", "mul", "div", "maximum"]
SCALAR = ["add_scalar", "mul_scalar", "rsub_scalar"]
REDUCE = ["sum_dim", "mean_dim", "logsumexp", "softmax", "log_softmax", "sum_all", "mean_all"]
VIEWS = ["transpose", "permute", "reshape", "unsqueeze", "squeeze", "slice", "select", "expand"]


def apply(op, args, x, other=None):
    """The step, in PyTorch. The C++ replay mirrors this function op by op."""
    if op in UNARY:
        return {"exp": torch.exp, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu,
                "neg": torch.neg, "sin": torch.sin, "square": torch.square}[op](x)
    if op == "add":
        return x + other
    if op == "sub":
        return x - other
    if op == "mul":
        return x * other
    if op == "div":
        return x / other
    if op == "maximum":
        return torch.maximum(x, other)
    if op == "add_scalar":
        return x + args["s"]
    if op == "mul_scalar":
        return x * args["s"]
    if op == "rsub_scalar":
        return args["s"] - x
    if op == "sum_dim":
        return x.sum(args["dims"], keepdim=args["keepdim"])
    if op == "mean_dim":
        return x.mean(args["dims"], keepdim=args["keepdim"])
    if op == "logsumexp":
        return x.logsumexp(args["dims"], keepdim=args["keepdim"])
    if op == "softmax":
        return x.softmax(args["dim"])
    if op == "log_softmax":
        return x.log_softmax(args["dim"])
    if op == "sum_all":
        return x.sum()
    if op == "mean_all":
        return x.mean()
    if op == "matmul":
        return x.matmul(other)
    if op == "transpose":
        return x.transpose(args["dim0"], args["dim1"])
    if op == "permute":
        return x.permute(args["dims"])
    if op == "reshape":
        return x.reshape(args["sizes"])
    if op == "unsqueeze":
        return x.unsqueeze(args["dim"])
    if op == "squeeze":
        return x.squeeze(args["dim"])
    if op == "slice":  # aten::slice itself (Python's x[a:b] may record an alias for a full slice)
        return torch.ops.aten.slice(x, args["dim"], args["start"], args["end"], args["step"])
    if op == "select":
        return x.select(args["dim"], args["index"])
    if op == "expand":
        return x.expand(args["sizes"])
    if op == "index_select":
        return x.index_select(args["dim"], torch.tensor(args["index"]))
    raise ValueError(op)


def broadcast_shape(rng, shape):
    """A shape that broadcasts against `shape`: some dims set to 1, maybe fewer leading dims."""
    s = [1 if rng.random() < 0.4 else n for n in shape]
    while s and rng.random() < 0.3:
        s = s[1:]
    return s


def random_split(rng, n):
    """Sizes whose product is n (one to three dims)."""
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    a = rng.choice(divisors)
    rest = n // a
    if rng.random() < 0.5:
        return [a, rest]
    b = rng.choice([d for d in range(1, rest + 1) if rest % d == 0])
    return [a, b, rest // b]


def random_graph(seed):
    rng = random.Random(seed)
    gen = torch.Generator().manual_seed(seed)
    dims = rng.randint(1, 3)
    shape = [rng.randint(1, 4) for _ in range(dims)]
    inputs = [torch.randn(shape, generator=gen).requires_grad_()]
    x = inputs[0]
    steps, names = [], []
    for _ in range(rng.randint(2, 6)):
        shape = list(x.shape)
        kinds = UNARY + SCALAR + BINARY
        if x.dim() >= 1:
            kinds = kinds + REDUCE + VIEWS + ["index_select"]
        if x.dim() == 2:
            kinds = kinds + ["matmul"] * 3
        op = rng.choice(kinds)
        args, other = {}, None
        d = rng.randrange(x.dim()) if x.dim() else 0
        if op in BINARY:
            other_shape = broadcast_shape(rng, shape)
            other = torch.randn(other_shape, generator=gen)
            if op == "div":  # away from zero
                other = other.abs() + 0.5
            other.requires_grad_()
        elif op in SCALAR:
            args["s"] = rng.choice([2.0, -0.5, 1.5])
        elif op in ("sum_dim", "mean_dim", "logsumexp"):
            args["dims"] = sorted(rng.sample(range(x.dim()), rng.randint(1, x.dim())))
            args["keepdim"] = rng.random() < 0.5
        elif op in ("softmax", "log_softmax"):
            args["dim"] = d
        elif op == "matmul":
            other = torch.randn([shape[1], rng.randint(1, 4)], generator=gen).requires_grad_()
        elif op == "transpose":
            if x.dim() < 2:
                continue
            args["dim0"], args["dim1"] = rng.sample(range(x.dim()), 2)
        elif op == "permute":
            perm = list(range(x.dim()))
            rng.shuffle(perm)
            args["dims"] = perm
        elif op == "reshape":
            args["sizes"] = random_split(rng, x.numel()) if x.numel() > 0 else [0]
        elif op == "unsqueeze":
            args["dim"] = rng.randint(0, x.dim())
        elif op == "squeeze":
            ones = [i for i, n in enumerate(shape) if n == 1]
            if not ones:
                continue
            args["dim"] = rng.choice(ones)
        elif op == "slice":
            n = shape[d]
            start = rng.randint(0, n - 1)
            args.update(dim=d, start=start, end=rng.randint(start + 1, n), step=rng.randint(1, 2))
        elif op == "select":
            args.update(dim=d, index=rng.randrange(shape[d]))
        elif op == "expand":
            ones = [i for i, n in enumerate(shape) if n == 1]
            if not ones:
                continue
            sizes = list(shape)
            sizes[rng.choice(ones)] = rng.randint(2, 3)
            args["sizes"] = sizes
        elif op == "index_select":
            args.update(dim=d, index=[rng.randrange(shape[d]) for _ in range(rng.randint(1, 4))])
        step = {"op": op, "args": args}
        if other is not None:
            step["other"] = len(inputs)
            inputs.append(other)
        x = apply(op, args, x, other)
        steps.append(step)
        names.append(x.grad_fn.name() if x.grad_fn is not None else "")
    weight = torch.cos(torch.arange(x.numel(), dtype=torch.float32)).reshape(x.shape)
    (x * weight).sum().backward()
    return {"seed": seed, "inputs": [tensor_json(t) for t in inputs], "steps": steps, "names": names,
            "result": tensor_json(x), "grads": [tensor_json(t.grad) for t in inputs]}


# ---- second derivatives ------------------------------------------------------------------------------------------
def direction(shape, k):
    n = 1
    for d in shape:
        n *= d
    return torch.sin(torch.arange(n, dtype=torch.float64) * 0.7 + k).reshape(shape)


def double_graph(seed):
    g = random_graph(seed)
    inputs = [torch.tensor(t["values"], dtype=torch.float64).reshape(t["sizes"]).requires_grad_() for t in g["inputs"]]
    x = inputs[0]
    for step in g["steps"]:
        other = inputs[step["other"]] if "other" in step else None
        x = apply(step["op"], step["args"], x, other)
    weight = torch.cos(torch.arange(x.numel(), dtype=torch.float64)).reshape(x.shape)
    grads = torch.autograd.grad((x * weight).sum(), inputs, create_graph=True, allow_unused=True)
    s = sum((gi * direction(gi.shape, i)).sum() for i, gi in enumerate(grads) if gi is not None)
    if isinstance(s, torch.Tensor) and s.requires_grad:
        hvp = torch.autograd.grad(s, inputs, allow_unused=True)
    else:
        hvp = [None] * len(inputs)
    zeros = [torch.zeros_like(t) for t in inputs]
    return {"seed": seed, "inputs": g["inputs"], "steps": g["steps"],
            "grads": [tensor_json(gi if gi is not None else z) for gi, z in zip(grads, zeros)],
            "hvp": [tensor_json(h if h is not None else z) for h, z in zip(hvp, zeros)]}


# ---- in-place scenarios -----------------------------------------------------------------------------------------
def ramp23():
    return (torch.arange(6, dtype=torch.float32).reshape(2, 3) / 7 - 0.4).requires_grad_()


def inplace_scenario(base, op, target, view, write, no_grad, drop):
    """x: a leaf that requires grad. a: x itself ("leaf") or x * 1 ("nonleaf"). y = op(a).
    The write goes to `target` (y or a) through `view`, then loss = (y * w).sum() and backward."""
    s = {"base": base, "op": op, "target": target, "view": view, "write": write, "no_grad": no_grad, "drop": drop}
    x = ramp23()
    a = x if base == "leaf" else x * 1
    y = {"exp": torch.exp, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": torch.relu,
         "square": lambda t: t * t, "scale": lambda t: t * 2}[op](a)
    loss_weight = torch.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])
    t = y if target == "y" else a
    try:
        v = {"none": lambda u: u, "slice": lambda u: u[:, 1:], "select": lambda u: u[1],
             "transpose": lambda u: u.t()}[view](t)
        with torch.no_grad() if no_grad else torch.enable_grad():
            v.add_(1.5) if write == "add_" else v.mul_(3.0)
    except RuntimeError as e:
        return dict(s, raises_at="write", type=type(e).__name__, message=str(e))
    loss = (y * loss_weight).sum()
    if drop:  # every handle to what was written goes (x stays: it holds the gradient)
        del v, t
        if target == "y":
            del y
        elif base == "nonleaf":
            del a
    try:
        loss.backward()
    except RuntimeError as e:
        return dict(s, raises_at="backward", type=type(e).__name__, message=str(e))
    return dict(s, raises_at="", grad=tensor_json(x.grad))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--graphs", type=int, default=300, help="how many random graphs")
    parser.add_argument("--seed", type=int, default=1300, help="the first graph's seed")
    parser.add_argument("--double", type=int, default=200, help="how many graphs for second derivatives")
    opts = parser.parse_args()
    graphs = [random_graph(opts.seed + i) for i in range(opts.graphs)]
    double = [double_graph(opts.seed + 10000 + i) for i in range(opts.double)]
    inplace = [inplace_scenario(base, op, target, view, write, no_grad, drop)
               for base in ("leaf", "nonleaf")
               for op in ("exp", "sigmoid", "tanh", "relu", "square", "scale")
               for target in ("y", "a")
               for view in ("none", "slice", "select", "transpose")
               for write in ("add_", "mul_")
               for no_grad in (False, True)
               for drop in (False, True)]
    with open(OUT, "w") as f:
        json.dump({"torch": torch.__version__, "graphs": graphs, "double": double, "inplace": inplace}, f, indent=None)
        f.write("\n")
    raised = sum(1 for s in inplace if s["raises_at"])
    print(f"wrote {len(graphs)} graphs, {len(double)} second-derivative graphs and {len(inplace)} in-place scenarios ({raised} raise) to",
          os.path.normpath(OUT))


if __name__ == "__main__":
    main()
