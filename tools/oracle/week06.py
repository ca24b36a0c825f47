#!/usr/bin/python3
"""Expected texts and values for week 6 (the GPU), produced by PyTorch 1.13 (Debian's python3-torch).

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/week06.py
It writes grader/tests/week06/data/oracle.json.

Debian's PyTorch has no CUDA, so the device rule of elementwise ops is recorded with the "meta"
device in CUDA's place: PyTorch's TensorIterator raises the same error for any pair of devices,
naming the op's device first; the C++ tests read "meta" as "cuda:0". The values of elementwise
ops on the device are checked against Kindling's own CPU results, which week 1's tests hold to
PyTorch's.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import error  # noqa: E402

assert torch.__version__.startswith("1.13"), torch.__version__
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "grader", "tests", "week06", "data", "oracle.json")
cases = {}

# torch.device(spec): what it parses to ({"type", "index"}: index None -> -1), or its error.
devices = []
for spec in ["cpu", "cuda", "cuda:0", "cuda:1", "cuda:12", "cpu:0", "gpu", "CUDA", "cuda:-1", "cuda:x", "cuda:0:1",
             "cuda: 1", "cuda:01", "cuda:", ""]:
    try:
        d = torch.device(spec)
        devices.append({"spec": spec, "type": d.type, "index": -1 if d.index is None else d.index, "str": str(d)})
    except Exception as e:  # noqa: BLE001
        devices.append({"spec": spec, "error": {"type": type(e).__name__, "message": str(e)}})
cases["devices"] = devices
cases["device_equality"] = {"cuda_vs_cuda0": torch.device("cuda") == torch.device("cuda:0"),
                            "cpu_vs_cpu0": torch.device("cpu") == torch.device("cpu:0")}

# The device rule, with "meta" standing for cuda:0.
dev = torch.ones(2, 3, device="meta")
cpu = torch.ones(2, 3)
cpu0 = torch.tensor(2.0)
cases["mixed"] = {
    "device_plus_cpu": error(lambda: dev + cpu),
    "cpu_plus_device": error(lambda: cpu + dev),
    "cpu_inplace_device": error(lambda: cpu.add_(dev)),
    "device_mul_cpu": error(lambda: torch.mul(dev, cpu)),
    "device_plus_cpu_0d_ok": str((dev + cpu0).device),
    "cpu_0d_plus_device_ok": str((cpu0 + dev).device),
}

# Row softmax (the task week06.row_softmax): float32 inputs and torch.softmax(x, dim=1). The
# inputs are rounded to float32 in Python so that the C++ test reads exactly these values.
g = torch.Generator().manual_seed(6)
softmax_rows = []
for name, rows, cols, scale, shift in [("one column", 2, 1, 1.0, 0.0), ("five columns", 3, 5, 1.0, 0.0),
                                       ("a block's width", 2, 256, 3.0, 0.0), ("wider than a block", 2, 300, 3.0, 0.0),
                                       ("a thousand columns", 1, 1000, 5.0, 0.0), ("many rows", 70, 10, 2.0, 0.0),
                                       ("large inputs (exp overflows without the max)", 2, 40, 10.0, 1000.0),
                                       ("very negative inputs (exp underflows without the max)", 2, 40, 10.0, -1000.0)]:
    x = (torch.randn(rows, cols, generator=g) * scale + shift).float()
    softmax_rows.append({"name": name, "rows": rows, "cols": cols, "x": x.flatten().tolist(),
                         "y": torch.softmax(x, dim=1).flatten().tolist()})
special = torch.tensor([[1.0, float("nan"), 2.0], [float("-inf"), float("-inf"), float("-inf")],
                        [float("-inf"), 0.0, 1.0]])
softmax_rows.append({"name": "NaN, a row of -inf only, and some -inf", "rows": 3, "cols": 3,
                     "x": [str(v) for v in special.flatten().tolist()],
                     "y": [str(v) for v in torch.softmax(special, dim=1).flatten().tolist()]})
cases["softmax_rows"] = softmax_rows

# The row softmax's own cases: a row's largest value far past the first warp's 32 columns (a
# maximum over one warp misses it), and +inf in a row (PyTorch: NaN where x is +inf, as
# exp(inf - inf) is NaN, and the row's sum with it).
far = torch.zeros(2, 300)
far[0, 200] = 120.0
far[1, 299] = 95.0
far[1, 3] = 1.0
softmax_rows.append({"name": "the largest value past the first warp's columns", "rows": 2, "cols": 300,
                     "x": far.flatten().tolist(), "y": torch.softmax(far, dim=1).flatten().tolist()})
inf_rows = torch.tensor([[1.0, float("inf"), 2.0, 0.5], [float("inf"), float("inf"), 0.0, -1.0]])
softmax_rows.append({"name": "+inf in a row", "rows": 2, "cols": 4,
                     "x": [str(v) for v in inf_rows.flatten().tolist()],
                     "y": [str(v) for v in torch.softmax(inf_rows, dim=1).flatten().tolist()]})

# Tensor.to(device)'s layout: memory_format=torch.preserve_format keeps the strides of a
# non-overlapping, dense tensor and makes any other one contiguous. Debian's PyTorch has no CUDA,
# but every copying `to` goes through the same function (aten::_to_copy), whose layout rule does
# not look at the device: `to(torch.float64)` and `to("cpu", copy=True)` stand in for the move.
# Each source is a view of arange(base) given by sizes, strides and storage offset.
to_layouts = []
for name, base, sizes, strides, offset in [
        ("a transpose", 12, [4, 3], [1, 4], 0),
        ("a permute of 3 dims", 24, [4, 2, 3], [1, 12, 4], 0),
        ("channels last (a permute of 4 dims)", 24, [1, 3, 2, 4], [24, 1, 12, 3], 0),
        ("a contiguous view at an offset", 20, [2, 3], [3, 1], 5),
        ("a transpose at an offset", 20, [3, 2], [1, 3], 2),
        ("a step slice (gaps)", 24, [4, 3], [6, 2], 0),
        ("a step slice of a transpose (gaps, column-major order)", 24, [3, 4], [2, 6], 0),
        ("a column (gaps)", 12, [3, 1], [4, 1], 1),
        ("an expand (stride 0)", 3, [3, 4], [1, 0], 0),
        ("a transpose with a dim of size 1", 6, [1, 6, 1], [6, 1, 1], 0),
        ("size-1 dims with any strides", 4, [4, 1, 1], [1, 7, 3], 0),
        ("no elements", 0, [0, 3], [1, 0], 0),
        ("a scalar", 5, [], [], 4),
        ("a column of a transpose", 12, [4], [3], 1)]:
    x = torch.arange(max(base, 1), dtype=torch.float32).as_strided(sizes, strides, offset)
    as_double = x.to(torch.float64)
    copied = x.to("cpu", copy=True)
    to_layouts.append({"name": name, "base": base, "sizes": sizes, "strides": strides, "offset": offset,
                       "to_dtype_strides": list(as_double.stride()), "to_copy_strides": list(copied.stride()),
                       "to_dtype_offset": as_double.storage_offset()})
cases["to_layouts"] = to_layouts

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=None)
    f.write("\n")
