"""Helpers shared by the oracle scripts (tools/oracle/weekNN.py): how tensors and
errors are written to oracle.json, and the ramps the C++ tests rebuild."""
import math

import torch


def number(v):
    """JSON has no NaN or infinity: those are written as the strings "nan", "inf", "-inf"."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def values(t):
    """A tensor as {"sizes", "dtype", "values"} (flattened row-major), read by testing::oracle_values."""
    return {"sizes": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "values": [number(float(v)) if t.is_floating_point() else int(v) for v in t.reshape(-1).tolist()]}


def error(fn):
    """The Python type and message of what fn() raises (it must raise)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - we record whatever PyTorch raises
        return {"type": type(e).__name__, "message": str(e)}
    raise AssertionError("expected an error")


def ramp(*shape, scale=7.0, shift=1.5):
    """arange(n).reshape(shape) / scale - shift, float32, requiring grad (testing::oracle_ramp)."""
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float32).reshape(shape) / scale - shift).requires_grad_()


def gout(shape):
    """The gradient fed to backward(): cos(0.7 i) over the output's elements, float32."""
    n = 1
    for s in shape:
        n *= s
    return torch.cos(torch.arange(n, dtype=torch.float32) * 0.7).reshape(shape)
