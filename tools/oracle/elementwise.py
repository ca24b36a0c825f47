#!/usr/bin/python3
"""Elementwise ops and full reductions on every dtype and special value, produced by PyTorch 1.13.

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/elementwise.py
It writes grader/tests/week01/data/elementwise.json, which grader/tests/week01/elementwise_test.cpp
replays with no Python. Each dtype has a fixed list of values: for floats 0, -0.0, +-inf, NaN,
halves (rounding), tiny and huge magnitudes; for integers their extremes. A case is one op over
one dtype's list (unary, reduction), one op over every pair of two lists (binary, tensor-tensor),
one op of a list with one Scalar (scalar), or clamp with Scalar bounds (clamp). Recorded: the
result's dtype and values (NaN, inf and -0.0 as strings), or PyTorch's error.

One value is left out, on purpose: log1p of 3e38 in float32, which PyTorch 1.13's vectorised
kernel returns as inf (log1p(3e38) is 88.6). And the test accepts a zero of either sign from
maximum and minimum between 0.0 and -0.0: PyTorch's answer there depends on whether its
vectorised or its scalar loop ran.
"""
import json
import math
import os

import torch

assert torch.__version__.startswith("1.13"), torch.__version__
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "grader", "tests", "week01", "data", "elementwise.json")

FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-30, 1e30, 3.0e38, math.inf, -math.inf, math.nan,
          88.7, -88.7, 100.0, -100.0, 0.1]
VALUES = {
    "float32": FLOATS,
    "float64": FLOATS,
    "int64": [0, 1, -1, 2, -2, 7, -7, 127, -128, 255, 2**31 - 1, -2**31, 2**62, -2**63],
    "int32": [0, 1, -1, 2, -2, 7, -7, 127, -128, 255, 2**31 - 1, -2**31],
    "uint8": [0, 1, 2, 7, 127, 128, 255],
    "bool": [False, True],
}
UNARY = ["abs", "ceil", "cos", "exp", "floor", "isfinite", "isnan", "log", "log1p", "logical_not", "neg", "reciprocal",
         "relu", "round", "rsqrt", "sigmoid", "sign", "sin", "sqrt", "square", "tanh"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge"]
SCALAR_OPS = ["add", "sub", "mul", "div", "pow", "eq", "lt", "ge"]
SCALARS = [2, -1, 0, 0.5, -0.5, 3, -2, -2.5, True]
REDUCE = ["sum", "mean", "prod", "max", "min", "argmax", "argmin"]
# clamp(x, min, max) with Scalar bounds, None for an absent one (no NaN bound: PyTorch 1.13 ignores
# one, as its max(x, NaN) keeps x; the kit's clamp gives NaN, as later PyTorch does).
CLAMPS = [(-1, 1), (0, None), (None, 0), (-1.5, 2.5), (3, 1), (0.5, None), (True, True), (False, None), (None, True)]


def number(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v == 0 and math.copysign(1.0, v) < 0:
            return "-0"
    return v


def record(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - PyTorch's error is the expected result
        return {"error": {"type": type(e).__name__, "message": str(e)}}
    return {"dtype": str(r.dtype).replace("torch.", ""), "sizes": list(r.shape),
            "values": [number(v) for v in r.reshape(-1).tolist()]}


def values_of(dtype, op=None):
    v = VALUES[dtype]
    if op == "log1p" and dtype == "float32":
        v = [x for x in v if x != 3.0e38]
    return torch.tensor(v, dtype=getattr(torch, dtype))


cases = []
for op in UNARY:
    for d in VALUES:
        cases.append({"kind": "unary", "op": op, "dtype": d, "values": [number(v) for v in values_of(d, op).tolist()],
                      "out": record(lambda: getattr(torch, op)(values_of(d, op)))})
for op in BINARY:
    for da in VALUES:
        for db in VALUES:
            a, b = values_of(da), values_of(db)
            # every pair: a[i] with each b[j], as a's list repeated element by element against b's list
            cases.append({"kind": "binary", "op": op, "a": da, "b": db,
                          "out": record(lambda: getattr(torch, op)(a.repeat_interleave(len(b)), b.repeat(len(a))))})
for op in SCALAR_OPS:
    for d in VALUES:
        for s in SCALARS:
            cases.append({"kind": "scalar", "op": op, "dtype": d, "scalar": s,
                          "out": record(lambda: getattr(torch, op)(values_of(d), s))})
for lo, hi in CLAMPS:
    for d in VALUES:
        cases.append({"kind": "clamp", "op": "clamp", "dtype": d, "min": lo, "max": hi,
                      "out": record(lambda: torch.clamp(values_of(d), lo, hi))})
for op in REDUCE:
    for d in VALUES:
        cases.append({"kind": "reduce", "op": op, "dtype": d, "out": record(lambda: getattr(torch, op)(values_of(d)))})

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump({"torch_version": torch.__version__, "values": {d: [number(v) for v in VALUES[d]] for d in VALUES},
               "cases": cases}, f, separators=(",", ":"))
    f.write("\n")
print("wrote", os.path.normpath(OUT), len(cases), "cases")
