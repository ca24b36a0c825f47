#!/usr/bin/python3
"""Expected values for week 3 (modules), produced by PyTorch 1.13 (Debian's python3-torch).

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/week03.py
It writes grader/tests/week03/data/oracle.json. Inputs and weights are ramps
(arange(n).reshape(shape) / scale - shift) that the C++ tests rebuild; the
gradient fed to backward ("gout") is stored with each case.
"""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import error, gout, ramp, values  # noqa: E402

assert torch.__version__.startswith("1.13"), torch.__version__
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "grader", "tests", "week03", "data", "oracle.json")
cases = {}


def run(name, fn, *leaves):
    """Forward fn(), backward with gout, record output, gout and leaf gradients."""
    y = fn()
    g = gout(y.shape)
    y.backward(g)
    cases[name] = {"out": values(y.detach()), "gout": values(g), "grads": [values(t.grad) for t in leaves]}


# ---- Linear ---------------------------------------------------------------------------------------------
W = ramp(3, 4, scale=5.0, shift=1.0)
b = ramp(3, scale=3.0, shift=0.5)
x = ramp(2, 4)
run("linear_2d", lambda: F.linear(x, W, b), x, W, b)
W.grad = b.grad = None
x3 = ramp(2, 2, 4)
run("linear_3d", lambda: F.linear(x3, W, b), x3, W, b)
W.grad = None
x1 = ramp(4)
run("linear_1d_nobias", lambda: F.linear(x1, W), x1, W)
cases["linear_shapes"] = {"weight": list(nn.Linear(4, 3).weight.shape), "bias": list(nn.Linear(4, 3).bias.shape)}
cases["linear_wrong_features"] = error(lambda: nn.Linear(4, 3)(torch.zeros(2, 5)))
# A negative size fails in the weight's allocation, before anything is drawn: the message shows the (out, in) layout.
cases["linear_negative_in"] = error(lambda: nn.Linear(-1, 2))
cases["linear_negative_both"] = error(lambda: nn.Linear(-1, -3))
cases["linear_grad_fn"] = {"name": type(nn.Linear(4, 3)(torch.zeros(2, 4)).grad_fn).__name__}

# ---- reprs ------------------------------------------------------------------------------------------------
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * 4 * 4, 10, bias=False))


reprs = {
    "mlp": nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Dropout(0.25), nn.Linear(3, 2)),
    "net": Net(),
    "conv_basic": nn.Conv2d(3, 8, 3),
    "conv_full": nn.Conv2d(4, 8, (3, 5), stride=2, padding=(1, 2), dilation=2, groups=2, bias=False),
    "convt_dcgan": nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1, bias=False),
    "convt_full": nn.ConvTranspose2d(2, 4, (3, 2), stride=(2, 1), padding=1, output_padding=(1, 0), dilation=(1, 2)),
    "maxpool": nn.MaxPool2d(2),
    "maxpool_full": nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=2, ceil_mode=True),
    "avgpool": nn.AvgPool2d(3, stride=2, padding=1),
    "adaptive": nn.AdaptiveAvgPool2d((1, 1)),
    "adaptive_int": nn.AdaptiveAvgPool2d(3),
    "bn2d": nn.BatchNorm2d(4),
    "bn1d_none": nn.BatchNorm1d(3, eps=1e-3, momentum=None, affine=False),
    "leaky": nn.LeakyReLU(),
    "leaky_02": nn.LeakyReLU(0.2),
    "gelu": nn.GELU(), "softmax": nn.Softmax(dim=1), "flatten": nn.Flatten(), "identity": nn.Identity(),
    "sigmoid": nn.Sigmoid(), "tanh": nn.Tanh(), "dropout": nn.Dropout(), "linear_nobias": nn.Linear(5, 2, bias=False),
    "upsample_scale": nn.Upsample(scale_factor=2, mode="nearest"),
    "upsample_size": nn.Upsample(size=(4, 6), mode="bilinear"),
    "module_list": nn.ModuleList([nn.Linear(2, 2), nn.ReLU()]),
    "module_dict": nn.ModuleDict({"act": nn.ReLU(), "fc": nn.Linear(2, 1)}),
    "empty_sequential": nn.Sequential(),
}
cases["reprs"] = {k: repr(v) for k, v in reprs.items()}

# ---- the registry -------------------------------------------------------------------------------------------
net = Net()
cases["registry"] = {
    "parameters": [n for n, _ in net.named_parameters()],
    "buffers": [n for n, _ in net.named_buffers()],
    "modules": [n for n, _ in net.named_modules()],
    "children": [n for n, _ in net.named_children()],
    "state_dict": list(net.state_dict().keys()),
}
shared = nn.Linear(2, 2)
tied = nn.Sequential(shared, nn.ReLU(), shared)
cases["tied"] = {"parameters": [n for n, _ in tied.named_parameters()], "modules": [n for n, _ in tied.named_modules()],
                 "state_dict": list(tied.state_dict().keys())}
cases["missing_forward"] = error(lambda: nn.ModuleList([nn.ReLU()])(torch.zeros(1)))

# ---- load_state_dict ------------------------------------------------------------------------------------------
def load_error(model, sd, strict=True):
    return error(lambda: model.load_state_dict(sd, strict=strict))


mlp = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
sd = mlp.state_dict()
bad = dict(sd)
del bad["2.bias"]
bad["2.scale"] = torch.zeros(2)
bad["extra"] = torch.zeros(1)
cases["load_missing_unexpected"] = load_error(mlp, bad)
shape_bad = dict(sd)
shape_bad["0.weight"] = torch.zeros(3, 5)
cases["load_size_mismatch"] = load_error(mlp, shape_bad)
both = dict(shape_bad)
del both["0.bias"]
cases["load_all_errors"] = load_error(mlp, both)
r = mlp.load_state_dict(bad, strict=False)
cases["load_non_strict"] = {"missing": list(r.missing_keys), "unexpected": list(r.unexpected_keys)}
cases["load_non_strict_mismatch"] = load_error(mlp, shape_bad, strict=False)
lin = nn.Linear(2, 3)
cases["load_linear_error"] = load_error(lin, {"weight": torch.zeros(3, 2)})

# ---- dropout --------------------------------------------------------------------------------------------------------
cases["dropout_p_high"] = error(lambda: nn.Dropout(1.5))
cases["dropout_p_negative"] = error(lambda: F.dropout(torch.ones(3), p=-0.1))

# ---- activations ------------------------------------------------------------------------------------------------------
for name, fn in {"relu": F.relu, "leaky_relu": lambda t: F.leaky_relu(t, 0.2), "gelu": F.gelu,
                 "sigmoid": torch.sigmoid, "tanh": torch.tanh, "softmax": lambda t: F.softmax(t, dim=1),
                 "flatten": lambda t: torch.flatten(t, 1)}.items():
    a = ramp(2, 3, 4, scale=3.0, shift=4.0)
    run("act_" + name, lambda: fn(a), a)
cases["act_names"] = {"leaky_relu": type(F.leaky_relu(ramp(2), 0.2).grad_fn).__name__,
                      "gelu": type(F.gelu(ramp(2)).grad_fn).__name__}

# ---- convolution --------------------------------------------------------------------------------------------------------
conv_configs = {
    "conv_basic": dict(x=(2, 3, 6, 5), w=(4, 3, 3, 3), bias=True, stride=1, padding=1, dilation=1, groups=1),
    "conv_stride_dilation": dict(x=(2, 2, 9, 8), w=(3, 2, 3, 2), bias=True, stride=(2, 3), padding=(0, 1),
                                 dilation=(2, 1), groups=1),
    "conv_groups": dict(x=(1, 4, 5, 5), w=(6, 2, 2, 2), bias=False, stride=1, padding=0, dilation=1, groups=2),
    "conv_unbatched": dict(x=(3, 5, 5), w=(2, 3, 3, 3), bias=True, stride=2, padding=1, dilation=1, groups=1),
    # Stride 1 with output rows as wide as the input's (the CPU copies whole rows at once): dilated,
    # a wide window, padding taller than the window (rows of zeros), and a batch of 9 images.
    "conv_same_dilated": dict(x=(3, 2, 7, 9), w=(4, 2, 3, 3), bias=True, stride=1, padding=2, dilation=2, groups=1),
    "conv_same_wide": dict(x=(2, 3, 6, 7), w=(5, 3, 3, 5), bias=False, stride=1, padding=(1, 2), dilation=1,
                           groups=1),
    "conv_tall_padding": dict(x=(2, 2, 4, 4), w=(3, 2, 3, 3), bias=True, stride=1, padding=(3, 1), dilation=1,
                              groups=1),
    "conv_batch_groups": dict(x=(9, 4, 5, 5), w=(6, 2, 3, 3), bias=True, stride=1, padding=1, dilation=1, groups=2),
    "conv_row_stride": dict(x=(2, 2, 7, 6), w=(3, 2, 3, 3), bias=True, stride=(2, 1), padding=1, dilation=1, groups=1),
}
for name, c in conv_configs.items():
    cx = ramp(*c["x"], scale=11.0, shift=1.0)
    cw = ramp(*c["w"], scale=13.0, shift=0.8)
    cb = ramp(c["w"][0], scale=2.0, shift=0.5) if c["bias"] else None
    leaves = [cx, cw] + ([cb] if cb is not None else [])
    run(name, lambda: F.conv2d(cx, cw, cb, stride=c["stride"], padding=c["padding"], dilation=c["dilation"],
                               groups=c["groups"]), *leaves)
cases["conv_names"] = {"conv": type(F.conv2d(ramp(1, 1, 3, 3), ramp(1, 1, 2, 2)).grad_fn).__name__}

# ---- transposed convolution ---------------------------------------------------------------------------------------------
convt_configs = {
    "convt_basic": dict(x=(2, 3, 4, 5), w=(3, 2, 3, 3), bias=True, stride=1, padding=0, output_padding=0, dilation=1),
    "convt_dcgan": dict(x=(2, 4, 3, 3), w=(4, 2, 4, 4), bias=False, stride=2, padding=1, output_padding=0,
                        dilation=1),
    "convt_full": dict(x=(1, 2, 3, 4), w=(2, 3, 3, 2), bias=True, stride=(2, 3), padding=(1, 0),
                       output_padding=(1, 2), dilation=(1, 2)),
    "convt_unbatched": dict(x=(2, 3, 3), w=(2, 1, 2, 2), bias=True, stride=2, padding=0, output_padding=1,
                            dilation=1),
}
for name, c in convt_configs.items():
    tx = ramp(*c["x"], scale=11.0, shift=1.0)
    tw = ramp(*c["w"], scale=13.0, shift=0.8)
    tb = ramp(c["w"][1], scale=2.0, shift=0.5) if c["bias"] else None
    leaves = [tx, tw] + ([tb] if tb is not None else [])
    run(name, lambda: F.conv_transpose2d(tx, tw, tb, stride=c["stride"], padding=c["padding"],
                                         output_padding=c["output_padding"], dilation=c["dilation"]), *leaves)
cases["convt_name"] = {"convt": F.conv_transpose2d(ramp(1, 1, 3, 3), ramp(1, 1, 2, 2)).grad_fn.name()}
cases["convt_output_padding"] = error(lambda: F.conv_transpose2d(torch.zeros(1, 1, 3, 3), torch.zeros(1, 1, 3, 3),
                                                                 stride=2, output_padding=2))

cases["conv_wrong_channels"] = error(lambda: F.conv2d(torch.zeros(2, 4, 8, 8), torch.zeros(8, 3, 3, 3)))
cases["conv_wrong_rank"] = error(lambda: F.conv2d(torch.zeros(3, 8), torch.zeros(8, 3, 3, 3)))
cases["conv_kernel_too_big"] = error(lambda: F.conv2d(torch.zeros(1, 3, 2, 2), torch.zeros(8, 3, 3, 3)))
cases["conv_bad_bias"] = error(lambda: F.conv2d(torch.zeros(1, 3, 5, 5), torch.zeros(8, 3, 3, 3), torch.zeros(7)))
cases["conv_bias_dtype"] = error(lambda: F.conv2d(torch.zeros(1, 3, 5, 5), torch.zeros(8, 3, 3, 3),
                                                  torch.zeros(8, dtype=torch.float64)))
cases["conv_groups_divide"] = error(lambda: nn.Conv2d(3, 4, 3, groups=2))
# float64 images into a float32 layer, and the other dtype mistakes, in PyTorch's order (the bias's check first);
# an unbatched input's channels, named with the batch dim PyTorch adds.
_c32 = lambda *s: torch.zeros(*s)
_c64 = lambda *s: torch.zeros(*s, dtype=torch.float64)
cases["conv_dtype_errors"] = {
    "double_input_float_layer": error(lambda: F.conv2d(_c64(1, 3, 8, 8), _c32(8, 3, 3, 3), _c32(8))),  # Conv2d's call
    "double_input_no_bias": error(lambda: F.conv2d(_c64(1, 3, 8, 8), _c32(8, 3, 3, 3))),
    "float_input_double_weight": error(lambda: F.conv2d(_c32(1, 3, 8, 8), _c64(8, 3, 3, 3))),
    "bias_checked_first": error(lambda: F.conv2d(_c32(1, 3, 8, 8), _c64(8, 3, 3, 3), _c64(8))),
    "bias_before_channels": error(lambda: F.conv2d(_c64(1, 4, 8, 8), _c32(8, 3, 3, 3), _c32(8))),
    "long_input_float_bias": error(lambda: F.conv2d(torch.zeros(1, 3, 8, 8, dtype=torch.long), _c32(8, 3, 3, 3),
                                                    _c32(8))),
    "unbatched_channels": error(lambda: F.conv2d(_c32(4, 8, 8), _c32(8, 3, 3, 3))),
    "transposed_double_input": error(lambda: F.conv_transpose2d(_c64(1, 3, 8, 8), _c32(3, 8, 3, 3))),
    "transposed_double_bias": error(lambda: F.conv_transpose2d(_c32(1, 3, 8, 8), _c32(3, 8, 3, 3), _c64(8))),
    "transposed_unbatched_channels": error(lambda: F.conv_transpose2d(_c32(4, 8, 8), _c32(3, 8, 3, 3))),
    # the input's dtype against the weight's comes after the shapes' checks
    "channels_before_weight_dtype": error(lambda: F.conv2d(_c32(1, 4, 8, 8), _c64(8, 3, 3, 3))),
    "bias_size_before_weight_dtype": error(lambda: F.conv2d(_c32(1, 3, 8, 8), _c64(8, 3, 3, 3), _c32(4))),
    "transposed_channels_before_dtype": error(lambda: F.conv_transpose2d(_c32(1, 4, 8, 8), _c64(3, 8, 3, 3))),
}
cases["conv_out_groups_divide"] = error(lambda: nn.Conv2d(4, 3, 3, groups=2))
# output sizes: (in, kernel, stride, padding, dilation, ceil_mode) -> out
sizes = []
for (n, k, s, p, d) in [(28, 3, 1, 1, 1), (28, 5, 1, 0, 1), (28, 3, 2, 1, 1), (7, 3, 2, 0, 1), (10, 3, 1, 0, 3),
                        (9, 2, 2, 0, 1), (1, 1, 1, 0, 1), (32, 4, 4, 2, 1), (13, 3, 3, 1, 2)]:
    out = F.conv2d(torch.zeros(1, 1, n, n), torch.zeros(1, 1, k, k), stride=s, padding=p, dilation=d).shape[-1]
    sizes.append([n, k, s, p, d, 0, out])
for (n, k, s, p, d) in [(5, 2, 2, 0, 1), (6, 3, 2, 1, 1), (7, 2, 3, 0, 1), (8, 3, 2, 1, 2), (4, 2, 3, 1, 1),
                        (10, 3, 4, 1, 1), (5, 3, 2, 0, 1)]:
    for ceil in (False, True):
        out = F.max_pool2d(torch.zeros(1, 1, n, n), k, s, p, d, ceil_mode=ceil).shape[-1]
        sizes.append([n, k, s, p, d, int(ceil), out])
cases["output_sizes"] = sizes

# ---- pooling ------------------------------------------------------------------------------------------------------------
pools = {
    "maxpool_2": lambda t: F.max_pool2d(t, 2),
    "maxpool_3s2p1": lambda t: F.max_pool2d(t, 3, stride=2, padding=1),
    "maxpool_dilation_ceil": lambda t: F.max_pool2d(t, 2, stride=2, dilation=2, ceil_mode=True),
    "avgpool_3s2p1": lambda t: F.avg_pool2d(t, 3, stride=2, padding=1),
    "avgpool_no_pad_count": lambda t: F.avg_pool2d(t, 3, stride=2, padding=1, count_include_pad=False),
    "avgpool_ceil": lambda t: F.avg_pool2d(t, 2, stride=2, ceil_mode=True),
    "adaptive_3x2": lambda t: F.adaptive_avg_pool2d(t, (3, 2)),
    "adaptive_1": lambda t: F.adaptive_avg_pool2d(t, 1),
    "adaptive_up": lambda t: F.adaptive_avg_pool2d(t, (9, 6)),
}
for name, fn in pools.items():
    # a bumpy input so that each window has one clear maximum
    p_in = (torch.sin(torch.arange(2 * 3 * 7 * 5, dtype=torch.float32) * 1.3) * 3).reshape(2, 3, 7, 5).requires_grad_()
    run(name, lambda: fn(p_in), p_in)
# Ties and NaNs decide where max pooling sends the gradient: PyTorch takes the first of equal maxima
# in row-major window order, and every NaN replaces the maximum so far (the last NaN wins). Values
# from {0, 1, 2, nan}, many ties as after a ReLU; 2 x 2 windows (Kindling's fast path), overlapping
# windows (its general path), and ceil_mode on odd sizes (partial windows at the edge).
tie_values = [0.0, float("nan"), 1.0, 1.0, float("nan"), 2.0, 0.0, 2.0, float("nan"), 0.0, 1.0, 0.0, 2.0, 2.0, 0.0]
tie_pools = {
    "maxpool_ties_2": lambda t: F.max_pool2d(t, 2),
    "maxpool_ties_2s1": lambda t: F.max_pool2d(t, 2, stride=1),
    "maxpool_ties_2_ceil": lambda t: F.max_pool2d(t, 2, ceil_mode=True),
}
for name, fn in tie_pools.items():
    t_in = torch.tensor([tie_values[(i * 7) % len(tie_values)] for i in range(2 * 3 * 7 * 5)],
                        dtype=torch.float32).reshape(2, 3, 7, 5).requires_grad_()
    run(name, lambda: fn(t_in), t_in)
# Rows of 19 and 16 windows (a CPU with AVX-512 takes 16 at a time, then the rest of the row).
for name, width in [("maxpool_ties_2_wide", 38), ("maxpool_ties_2_16", 32)]:
    w_in = torch.tensor([tie_values[(i * 7) % len(tie_values)] for i in range(2 * 3 * 6 * width)],
                        dtype=torch.float32).reshape(2, 3, 6, width).requires_grad_()
    run(name, lambda: F.max_pool2d(w_in, 2), w_in)
cases["pool_names"] = {"max": type(F.max_pool2d(ramp(1, 1, 2, 2), 2).grad_fn).__name__,
                       "avg": type(F.avg_pool2d(ramp(1, 1, 2, 2), 2).grad_fn).__name__,
                       "adaptive": type(F.adaptive_avg_pool2d(ramp(1, 1, 2, 2), 1).grad_fn).__name__}
cases["pool_too_small"] = error(lambda: F.max_pool2d(torch.zeros(1, 3, 2, 2), 3))
cases["pool_pad_too_big"] = error(lambda: F.max_pool2d(torch.zeros(1, 1, 8, 8), 2, padding=2))
cases["avgpool_pad_too_big"] = error(lambda: F.avg_pool2d(torch.zeros(1, 1, 8, 8), 2, padding=2))
# The window's checks in PyTorch's order (height, then width; the output size's before the shape check's) and
# each op's words for an input that is not 3-D or 4-D.
_p = torch.zeros(1, 1, 8, 8)
cases["pool_errors"] = {
    "kernel_zero": error(lambda: F.max_pool2d(_p, 0)),
    "kernel_zero_stride_one": error(lambda: F.max_pool2d(_p, 0, 1)),
    "stride_negative": error(lambda: F.avg_pool2d(_p, 2, -1)),
    "dilation_zero": error(lambda: F.max_pool2d(_p, 2, 2, 0, 0)),
    "pad_negative": error(lambda: F.max_pool2d(_p, 2, 2, (0, -1))),
    "pad_width_too_big": error(lambda: F.max_pool2d(_p, (4, 2), 2, (1, 2))),
    "pad_both_too_big": error(lambda: F.avg_pool2d(_p, (2, 4), 2, (2, 3))),
    "max_2d": error(lambda: F.max_pool2d(torch.zeros(8, 8), 0)),
    "max_5d": error(lambda: F.max_pool2d(torch.zeros(1, 1, 1, 8, 8), 2)),
    "avg_2d": error(lambda: F.avg_pool2d(torch.zeros(8, 8), 0)),
    "avg_5d": error(lambda: F.avg_pool2d(torch.zeros(1, 1, 1, 8, 8), 2)),
    "avg_5d_stride_zero": error(lambda: F.avg_pool2d(torch.zeros(1, 1, 1, 8, 8), 0)),
    "adaptive_2d": error(lambda: F.adaptive_avg_pool2d(torch.zeros(8, 8), 2)),
}
bins = {}
for (n, o) in [(7, 3), (5, 2), (10, 4), (3, 5), (6, 6), (1, 1), (13, 5)]:
    eye = torch.eye(n).reshape(n, 1, n)
    member = F.adaptive_avg_pool1d(eye, o).reshape(n, o) > 0  # member[i][j]: input i is in bin j
    bins[f"{n}_{o}"] = [[int(member[:, j].nonzero().min()), int(member[:, j].nonzero().max()) + 1] for j in range(o)]
cases["adaptive_bins"] = bins

# ---- batch norm ------------------------------------------------------------------------------------------------------------
bn = nn.BatchNorm2d(3)
with torch.no_grad():
    bn.weight.copy_(torch.tensor([1.5, -0.5, 2.0]))
    bn.bias.copy_(torch.tensor([0.1, 0.2, -0.3]))
bx = ramp(4, 3, 2, 2, scale=5.0, shift=2.0)
bx_sq = (bx * bx).detach().requires_grad_()  # uneven channel statistics
run("bn2d_train", lambda: bn(bx_sq), bx_sq, bn.weight, bn.bias)
cases["bn2d_train"]["running_mean"] = values(bn.running_mean)
cases["bn2d_train"]["running_var"] = values(bn.running_var)
cases["bn2d_train"]["num_batches_tracked"] = int(bn.num_batches_tracked)
bn.eval()
bn.weight.grad = bn.bias.grad = None
bx_eval = ramp(2, 3, 2, 2, scale=3.0, shift=1.0)
run("bn2d_eval", lambda: bn(bx_eval), bx_eval, bn.weight, bn.bias)
bn1 = nn.BatchNorm1d(3, momentum=None)
b1x = ramp(5, 3, scale=2.0, shift=1.0)
b1x2 = ramp(5, 3, 2, scale=3.0, shift=0.5)
with torch.no_grad():
    bn1(b1x * b1x)
    bn1(b1x2)
cases["bn1d_cumulative"] = {"running_mean": values(bn1.running_mean), "running_var": values(bn1.running_var)}
cases["bn2d_rank"] = error(lambda: nn.BatchNorm2d(3)(torch.zeros(2, 3, 4)))
cases["bn1d_rank"] = error(lambda: nn.BatchNorm1d(3)(torch.zeros(2, 3, 4, 4)))
cases["bn1d_single"] = error(lambda: nn.BatchNorm1d(3)(torch.zeros(1, 3)))
# A per-channel tensor of the wrong length is named: running_mean, running_var, weight, then bias.
_bx = torch.zeros(2, 4, 5, 5)
cases["bn_channel_errors"] = {
    "weight": error(lambda: F.batch_norm(_bx, None, None, torch.ones(3), torch.ones(4), training=True)),
    "bias": error(lambda: F.batch_norm(_bx, None, None, torch.ones(4), torch.ones(3), training=True)),
    "running_var": error(lambda: F.batch_norm(_bx, torch.zeros(4), torch.ones(3), training=True)),
    "running_mean_first": error(lambda: F.batch_norm(_bx, torch.zeros(3), torch.ones(4), torch.ones(3), training=True)),
}

# ---- interpolate --------------------------------------------------------------------------------------------------------
interps = {
    "nearest_size": lambda t: F.interpolate(t, size=(5, 7), mode="nearest"),
    "nearest_scale": lambda t: F.interpolate(t, scale_factor=2, mode="nearest"),
    "nearest_down": lambda t: F.interpolate(t, size=(2, 3), mode="nearest"),
    "bilinear_size": lambda t: F.interpolate(t, size=(5, 7), mode="bilinear", align_corners=False),
    "bilinear_corners": lambda t: F.interpolate(t, size=(5, 7), mode="bilinear", align_corners=True),
    "bilinear_scale": lambda t: F.interpolate(t, scale_factor=1.5, mode="bilinear"),
    "bilinear_down": lambda t: F.interpolate(t, size=(2, 2), mode="bilinear"),
}
for name, fn in interps.items():
    it = ramp(1, 2, 3, 4, scale=3.0, shift=1.0)
    run("interp_" + name, lambda: fn(it * it), it)

# ---- init -----------------------------------------------------------------------------------------------------------------
cases["fans"] = [[list(s), list(nn.init._calculate_fan_in_and_fan_out(torch.empty(*s)))]
                 for s in [(3, 4), (8, 3, 3, 3), (5, 2, 4), (6, 1, 1, 1)]]
cases["gains"] = {k: nn.init.calculate_gain(k) for k in ["linear", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]}
cases["gains"]["leaky_relu_sqrt5"] = nn.init.calculate_gain("leaky_relu", 5 ** 0.5)
cases["fan_error"] = error(lambda: nn.init.kaiming_uniform_(torch.empty(3)))
cases["gain_error"] = error(lambda: nn.init.calculate_gain("swish"))
cases["mode_error"] = error(lambda: nn.init.kaiming_uniform_(torch.empty(3, 3), mode="fan_avg"))
cases["leaf_write_error"] = error(lambda: nn.Linear(2, 2).weight.uniform_())

# ---- week03.fold_conv_bn: torch.nn.utils.fusion.fuse_conv_bn_eval ----------------------------------------------
from torch.nn.utils.fusion import fuse_conv_bn_eval  # noqa: E402

fold_configs = {
    "fold_basic": dict(cin=3, cout=4, k=(3, 3), stride=1, padding=1, dilation=1, groups=1, bias=True, affine=True,
                       eps=1e-5, x=(2, 3, 5, 5)),
    "fold_no_conv_bias": dict(cin=3, cout=4, k=(3, 3), stride=1, padding=1, dilation=1, groups=1, bias=False,
                              affine=True, eps=1e-5, x=(2, 3, 5, 5)),
    "fold_full": dict(cin=4, cout=6, k=(3, 2), stride=2, padding=(1, 2), dilation=2, groups=2, bias=True,
                      affine=True, eps=1e-3, x=(1, 4, 9, 8)),
    "fold_no_affine": dict(cin=2, cout=3, k=(2, 2), stride=1, padding=0, dilation=1, groups=1, bias=True,
                           affine=False, eps=1e-5, x=(2, 2, 4, 4)),
}
for name, c in fold_configs.items():
    with torch.no_grad():
        conv = nn.Conv2d(c["cin"], c["cout"], c["k"], stride=c["stride"], padding=c["padding"],
                         dilation=c["dilation"], groups=c["groups"], bias=c["bias"])
        conv.weight.copy_(ramp(*conv.weight.shape, scale=13.0, shift=0.8))
        if c["bias"]:
            conv.bias.copy_(ramp(c["cout"], scale=2.0, shift=0.5))
        bn = nn.BatchNorm2d(c["cout"], eps=c["eps"], affine=c["affine"])
        if c["affine"]:
            bn.weight.copy_(ramp(c["cout"], scale=4.0, shift=-0.5))  # 0.5, 0.75, ...
            bn.bias.copy_(ramp(c["cout"], scale=3.0, shift=0.4))
        bn.running_mean.copy_(ramp(c["cout"], scale=5.0, shift=0.3))
        bn.running_var.copy_(ramp(c["cout"], scale=2.0, shift=-0.25))  # 0.25, 0.75, ...
        conv.eval()
        bn.eval()
        fx = ramp(*c["x"], scale=11.0, shift=1.0)
        fused = fuse_conv_bn_eval(conv, bn)
        cases[name] = {"out": values(bn(conv(fx))), "weight": values(fused.weight), "bias": values(fused.bias),
                       "folded_out": values(fused(fx))}

# ---- week03.interpolate: source indices (interpolating an arange) and whole outputs ---------------------------
nearest = []
for n_in, n_out, scale in [(3, 7, None), (5, 3, None), (4, 8, None), (4, 8, 2.0), (5, 7, 1.5), (6, 4, None),
                           (7, 3, 0.5), (5, 8, 1.7), (1, 4, None), (3, 3, None)]:
    src = torch.arange(n_in, dtype=torch.float32).view(1, 1, 1, n_in)
    if scale is None:
        got = F.interpolate(src, size=(1, n_out), mode="nearest")
    else:
        got = F.interpolate(src, scale_factor=(1.0, scale), mode="nearest")
        assert got.shape[-1] == n_out, (n_in, scale, got.shape)
    nearest.append({"in": n_in, "out": n_out, "scale": scale, "index": [int(v) for v in got.reshape(-1).tolist()]})
cases["nearest_indices"] = nearest

linear = []
for n_in, n_out, scale, corners in [(2, 4, None, False), (2, 4, None, True), (3, 7, None, False),
                                    (3, 7, None, True), (5, 3, None, False), (5, 3, None, True),
                                    (4, 6, 1.5, False), (4, 8, 2.0, False), (6, 1, None, True), (6, 1, None, False),
                                    (1, 3, None, False), (1, 3, None, True), (7, 2, 0.3, False)]:
    src = torch.arange(n_in, dtype=torch.float32).view(1, 1, 1, n_in)
    if scale is None:
        got = F.interpolate(src, size=(1, n_out), mode="bilinear", align_corners=corners)
    else:
        got = F.interpolate(src, scale_factor=(1.0, scale), mode="bilinear", align_corners=corners)
        assert got.shape[-1] == n_out, (n_in, scale, got.shape)
    linear.append({"in": n_in, "out": n_out, "scale": scale, "align_corners": corners,
                   "position": got.reshape(-1).tolist()})
cases["linear_positions"] = linear

ix = ramp(1, 2, 3, 4, scale=3.0, shift=1.0).detach()
cases["interpolate_outputs"] = {
    "nearest_size": values(F.interpolate(ix, size=(5, 7), mode="nearest")),
    "nearest_scale": values(F.interpolate(ix, scale_factor=2.0, mode="nearest")),
    "nearest_down": values(F.interpolate(ix, size=(2, 3), mode="nearest")),
    "bilinear_size": values(F.interpolate(ix, size=(5, 7), mode="bilinear", align_corners=False)),
    "bilinear_corners": values(F.interpolate(ix, size=(5, 7), mode="bilinear", align_corners=True)),
    "bilinear_scale": values(F.interpolate(ix, scale_factor=1.5, mode="bilinear", align_corners=False)),
    "bilinear_down": values(F.interpolate(ix, size=(2, 2), mode="bilinear", align_corners=False)),
    "upsample_corners": values(nn.Upsample(scale_factor=2.0, mode="bilinear", align_corners=True)(ix)),
}

# ---- week03.module_list: ModuleList and ModuleDict register what they hold; a plain list does not ---------------
class WithList(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)])
        self.heads = nn.ModuleDict({"act": nn.ReLU(), "out": nn.Linear(1, 1)})


class WithPlainList(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = [nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)]  # a Python list: nothing is registered


m = WithList()
before = [n for n, _ in m.named_parameters()]
m.heads["act"] = nn.Tanh()          # replacing keeps the key's place
m.heads["extra"] = nn.Linear(1, 2)  # a new key goes last
m.blocks.append(nn.Linear(1, 4))
cases["module_list"] = {
    "names_before": before,
    "names_after": [n for n, _ in m.named_parameters()],
    "state_dict_keys": list(m.state_dict().keys()),
    "dict_keys": list(m.heads.keys()),
    "children": [n for n, _ in m.named_children()],
    "modules": [n for n, _ in m.named_modules()],
    "plain_list_parameters": len(list(WithPlainList().parameters())),
    "list_index_error": error(lambda: m.blocks[4]),
    "list_negative_error": error(lambda: m.blocks[-5]),
    "dict_key_error": error(lambda: m.heads["fc"]),
    "repr": repr(m),
}

# ---- the notes' "no conv bias before BatchNorm": in training mode the bias gets a zero gradient -----------------
conv = nn.Conv2d(2, 3, 3, padding=1, bias=True)
with torch.no_grad():
    conv.weight.copy_(ramp(3, 2, 3, 3, scale=13.0, shift=0.8))
    conv.bias.copy_(ramp(3, scale=2.0, shift=0.5))
bn = nn.BatchNorm2d(3)
bx = ramp(2, 2, 4, 4, scale=11.0, shift=1.0).detach()
by = bn(conv(bx))
by.backward(gout(list(by.shape)))
cases["conv_bias_before_bn"] = {"bias_grad": values(conv.bias.grad), "weight_grad": values(conv.weight.grad),
                                "bias_grad_max": conv.bias.grad.abs().max().item(),
                                "weight_grad_max": conv.weight.grad.abs().max().item(),
                                "running_mean": values(bn.running_mean), "running_var": values(bn.running_var)}

# ---- week03.linear_layout and week03.init_no_grad: rules a plausible wrong solution skips (audit of survivors) ----
# Kept at the end of the file: the cases above draw from the global generator, and these move none of them.
W = ramp(3, 4, scale=5.0, shift=1.0)
b = ramp(3, scale=3.0, shift=0.5)
x1 = ramp(4)
run("linear_1d", lambda: F.linear(x1, W, b), x1, W, b)  # a 1-d input with a bias: (3,), no batch dim
W1 = ramp(1, 4, scale=5.0, shift=1.0)
b1 = ramp(1, scale=3.0, shift=0.5)
x1 = ramp(4)
run("linear_1d_one_output", lambda: F.linear(x1, W1, b1), x1, W1, b1)  # out_features 1: shape (1,), not ()
W1 = ramp(1, 4, scale=5.0, shift=1.0)
x1 = ramp(4)
run("linear_1d_one_output_nobias", lambda: F.linear(x1, W1), x1, W1)
cases["linear_1d_wrong_features"] = error(lambda: nn.Linear(4, 3)(torch.zeros(5)))
cases["linear_1d_wrong_features_nobias"] = error(lambda: nn.Linear(4, 3, bias=False)(torch.zeros(5)))


def init_record(fill, t):
    fill(t)
    return {"version": t._version, "is_leaf": t.is_leaf, "has_grad_fn": t.grad_fn is not None,
            "requires_grad": t.requires_grad}


init_fills = {"uniform_": nn.init.uniform_, "normal_": nn.init.normal_,
              "constant_": lambda t: nn.init.constant_(t, 0.25), "zeros_": nn.init.zeros_, "ones_": nn.init.ones_}
# On a parameter (a leaf that requires grad): one in-place write, still a leaf, no history.
cases["init_parameter"] = {k: init_record(f, torch.zeros(3, 4, requires_grad=True)) for k, f in init_fills.items()}
# On a plain tensor: requires_grad stays False.
cases["init_plain_tensor"] = {k: init_record(f, torch.zeros(3, 4)) for k, f in init_fills.items()}
# Called under no_grad: grad mode is still off afterwards (the guard restores the mode it found).
grad_mode_after = {}
for k, f in init_fills.items():
    with torch.no_grad():
        f(torch.zeros(3, requires_grad=True))
        grad_mode_after[k] = torch.is_grad_enabled()
cases["init_grad_mode_under_no_grad"] = grad_mode_after

# ---- recurrent layers, Embedding, cumsum (recurrent.hpp) -------------------------------------------------
# Every parameter is a ramp: named_parameters() in order, parameter k gets
# ramp(shape, scale=numel + 3 k, shift=0.5) (the C++ test fills them the same way). The case's
# output is the flattened output, h_n (and c_n) joined, so that one gout covers all of them.
def fill_params(module):
    with torch.no_grad():
        for k, (_, p) in enumerate(module.named_parameters()):
            p.copy_(ramp(*p.shape, scale=float(p.numel() + 3 * k), shift=0.5).detach())
    return [p for _, p in module.named_parameters()]


def joined(*ts):
    return torch.cat([t.reshape(-1) for t in ts])


def rnn_case(name, module, x_shape, with_state):
    params = fill_params(module)
    x = ramp(*x_shape, scale=9.0, shift=1.0)
    leaves = [x]
    is_lstm = isinstance(module, nn.LSTM)
    hx = None
    if with_state:
        batched = len(x_shape) == 3
        batch = (x_shape[0] if module.batch_first else x_shape[1]) if batched else None
        d = (2 if module.bidirectional else 1) * module.num_layers
        shape = (d, batch, module.hidden_size) if batched else (d, module.hidden_size)
        h0 = ramp(*shape, scale=11.0, shift=0.3)
        leaves.append(h0)
        hx = h0
        if is_lstm:
            c0 = ramp(*shape, scale=5.0, shift=0.6)
            leaves.append(c0)
            hx = (h0, c0)

    def fn():
        out, state = module(x, hx)
        return joined(out, *state) if is_lstm else joined(out, state)
    run(name, fn, *(leaves + params))
    cases[name]["names"] = [n for n, _ in module.named_parameters()]


torch.manual_seed(0)
rnn_case("lstm_basic", nn.LSTM(3, 4), (5, 2, 3), False)
rnn_case("lstm_deep", nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True), (2, 5, 3), True)
rnn_case("lstm_unbatched_nobias", nn.LSTM(3, 4, bias=False), (5, 3), True)
rnn_case("gru_basic", nn.GRU(3, 4), (4, 2, 3), True)
rnn_case("gru_deep", nn.GRU(3, 5, num_layers=2, bidirectional=True), (4, 3, 3), False)
rnn_case("rnn_tanh_deep", nn.RNN(3, 4, num_layers=2), (4, 2, 3), True)
rnn_case("rnn_relu_batch_first", nn.RNN(3, 4, nonlinearity="relu", batch_first=True), (2, 4, 3), False)


def cell_case(name, cell, batch):
    params = fill_params(cell)
    x = ramp(*((batch, cell.input_size) if batch else (cell.input_size,)), scale=9.0, shift=1.0)
    hshape = (batch, cell.hidden_size) if batch else (cell.hidden_size,)
    h = ramp(*hshape, scale=11.0, shift=0.3)
    if isinstance(cell, nn.LSTMCell):
        c = ramp(*hshape, scale=5.0, shift=0.6)
        run(name, lambda: joined(*cell(x, (h, c))), x, h, c, *params)
    else:
        run(name, lambda: cell(x, h), x, h, *params)


cell_case("lstm_cell", nn.LSTMCell(3, 4), 2)
cell_case("gru_cell", nn.GRUCell(3, 4), 2)
cell_case("rnn_cell_unbatched", nn.RNNCell(3, 4, nonlinearity="relu"), 0)

# Packed sequences: lengths 3, 5, 2 (not sorted), a bidirectional LSTM; the output padded back.
_lstm = nn.LSTM(3, 4, bidirectional=True)
_params = fill_params(_lstm)
_x = ramp(5, 3, 3, scale=9.0, shift=1.0)


def packed_fn():
    packed = nn.utils.rnn.pack_padded_sequence(_x, torch.tensor([3, 5, 2]), enforce_sorted=False)
    out, (h, c) = _lstm(packed)
    padded, lengths = nn.utils.rnn.pad_packed_sequence(out)
    cases["lstm_packed_meta"] = {"batch_sizes": [packed.batch_sizes.tolist()], "lengths": [lengths.tolist()],
                                 "sorted_indices": [packed.sorted_indices.tolist()],
                                 "padded_sizes": [list(padded.shape)]}
    return joined(padded, h, c)


run("lstm_packed", packed_fn, _x, *_params)

# Embedding, with and without a padding row.
_w = ramp(10, 3, scale=4.0, shift=1.0)
_idx = torch.tensor([[1, 2, 4], [4, 3, 9]])
run("embedding", lambda: F.embedding(_idx, _w), _w)
_w2 = ramp(10, 3, scale=4.0, shift=1.0)
run("embedding_padding", lambda: F.embedding(_idx, _w2, padding_idx=4), _w2)
cases["embedding_float_indices"] = error(lambda: F.embedding(torch.zeros(2), _w))
cases["embedding_out_of_range"] = error(lambda: F.embedding(torch.tensor([10]), _w))

# cumsum, and its gradient.
_c = ramp(3, 4)
run("cumsum_dim1", lambda: torch.cumsum(_c, 1), _c)
_c0 = ramp(3, 4)
run("cumsum_dim0", lambda: torch.cumsum(_c0, 0), _c0)
cases["cumsum_int"] = {"out": values(torch.cumsum(torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.int32), 1))}
cases["cumsum_name"] = {"name": type(torch.cumsum(_c, 0).grad_fn).__name__}

# Errors with PyTorch's words.
cases["lstm_wrong_input_size"] = error(lambda: nn.LSTM(3, 4)(torch.zeros(5, 2, 6)))
cases["lstm_wrong_dims"] = error(lambda: nn.LSTM(3, 4)(torch.zeros(5, 2, 3, 1)))
cases["lstm_wrong_hidden"] = error(
    lambda: nn.LSTM(3, 4, num_layers=2)(torch.zeros(5, 2, 3), (torch.zeros(1, 2, 4), torch.zeros(2, 2, 4))))
cases["gru_wrong_dims"] = error(lambda: nn.GRU(3, 4)(torch.zeros(5, 2, 3, 1)))
cases["rnn_wrong_dims"] = error(lambda: nn.RNN(3, 4)(torch.zeros(5)))
cases["lstm_cell_wrong_input"] = error(lambda: nn.LSTMCell(3, 4)(torch.zeros(2, 5)))
cases["gru_cell_wrong_dims"] = error(lambda: nn.GRUCell(3, 4)(torch.zeros(2, 2, 3)))
cases["rnn_cell_wrong_hidden"] = error(lambda: nn.RNNCell(3, 4)(torch.zeros(2, 3), torch.zeros(3, 4)))
cases["gru_wrong_hidden"] = error(lambda: nn.GRU(3, 4)(torch.zeros(5, 2, 3), torch.zeros(1, 3, 4)))
cases["pack_not_sorted"] = error(
    lambda: nn.utils.rnn.pack_padded_sequence(torch.zeros(5, 3, 2), torch.tensor([3, 5, 2])))
# States of the wrong rank (an LSTM's two checked together) and an LSTM cell's states, both labelled hidden0.
with torch.random.fork_rng():  # the layers' initial weights draw nothing the cases above or below see
    _z = torch.zeros
    cases["rnn_state_errors"] = {
        "lstm_hx_2d": error(lambda: nn.LSTM(3, 4)(_z(5, 2, 3), (_z(2, 4), _z(1, 2, 4)))),
        "lstm_both_2d": error(lambda: nn.LSTM(3, 4)(_z(5, 2, 3), (_z(2, 4), _z(2, 4)))),
        "lstm_unbatched_3d": error(lambda: nn.LSTM(3, 4)(_z(5, 3), (_z(1, 1, 4), _z(1, 1, 4)))),
        "gru_hx_2d": error(lambda: nn.GRU(3, 4)(_z(5, 2, 3), _z(2, 4))),
        "lstm_cell_cx_batch": error(lambda: nn.LSTMCell(3, 4)(_z(2, 3), (_z(2, 4), _z(3, 4)))),
        "lstm_cell_hx_1d": error(lambda: nn.LSTMCell(3, 4)(_z(2, 3), (_z(4), _z(2, 4)))),
    }

cases["rnn_reprs"] = {
    "lstm": repr(nn.LSTM(10, 20, num_layers=2, batch_first=True, bidirectional=True)),
    "gru": repr(nn.GRU(3, 4, num_layers=2, bias=False, dropout=0.5)),
    "rnn": repr(nn.RNN(3, 4, nonlinearity="relu")),
    "lstm_cell": repr(nn.LSTMCell(3, 4)),
    "gru_cell": repr(nn.GRUCell(3, 4, bias=False)),
    "embedding": repr(nn.Embedding(10, 3, padding_idx=0)),
}
_deep = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
cases["lstm_parameters"] = {"names": [n for n, _ in _deep.named_parameters()],
                            "shapes": [list(p.shape) for _, p in _deep.named_parameters()]}

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=1)
print("wrote", OUT, len(cases), "cases")
