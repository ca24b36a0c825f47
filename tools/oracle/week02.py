#!/usr/bin/python3
"""Expected values for week 2 (autograd), produced by PyTorch 1.13 (Debian's python3-torch).

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/week02.py
It writes grader/tests/week02/data/oracle.json. The C++ tests build the same graphs
from the same inputs (the formulas for the inputs are repeated next to each test).
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import error, gout, ramp, values  # noqa: E402

assert torch.__version__.startswith("1.13"), torch.__version__
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "grader", "tests", "week02", "data", "oracle.json")
cases = {}


# ---- node names -------------------------------------------------------------------------------
x = ramp(2, 3)
w = ramp(4, 3, scale=5.0, shift=1.0)
names = {
    "add": x + x, "add_scalar": x + 1, "sub": x - x, "mul": x * x, "mul_scalar": x * 2, "div": x / 2,
    "neg": -x, "pow_scalar": x ** 2, "pow_tensor": x ** x, "exp": x.exp(), "log": x.log(), "sigmoid": x.sigmoid(),
    "tanh": x.tanh(), "relu": x.relu(), "abs": x.abs(), "sqrt": x.sqrt(), "sum": x.sum(), "sum_dim": x.sum(1),
    "mean": x.mean(), "mean_dim": x.mean(0), "max": x.max(), "max_dim": x.max(1)[0], "softmax": x.softmax(1),
    "log_softmax": x.log_softmax(1), "logsumexp": x.logsumexp(1), "mm": x.mm(w.t()), "t": w.t(),
    "transpose": x.transpose(0, 1), "view": x.view(6), "reshape": x.reshape(3, 2), "permute": x.permute(1, 0),
    "unsqueeze": x.unsqueeze(0), "squeeze": x.unsqueeze(0).squeeze(), "squeeze_dim": x.unsqueeze(0).squeeze(0),
    "expand": x[0:1].expand(4, 3), "select": x[1], "slice": x[:, 1:], "narrow": x.narrow(1, 0, 2),
    "addmm": torch.addmm(w[:, 0], x, w.t()), "cat": torch.cat([x, x]), "stack": torch.stack([x, x]),
    "index_select": x.index_select(1, torch.tensor([2, 0])), "masked_fill": x.masked_fill(x > 0, 0.0),
    "where": torch.where(x > 0, x, x * 2), "clone": x.clone(), "clamp": x.clamp(-1, 1), "maximum": torch.maximum(x, x),
    "matmul_vec": x.matmul(x[0]), "dot": x[0].dot(x[1]), "mv": x.mv(x[0]), "bmm": torch.bmm(x[None], w.t()[None]),
    "contiguous": x.t().contiguous(), "prod": x.prod(), "to_double": x.double(),
    "rsub_scalar": 2.0 - x, "sub_scalar": x - 2.0, "reshape_copy": x.t().reshape(-1),
    "reshape_copy_after_matmul": x.matmul(w.t()).t().reshape(-1), "matmul_3d_2d": x[None].matmul(w.t()),
    "matmul_3d_1d": x[None].matmul(x[0]), "matmul_3d_3d": x[None].matmul(w.t()[None]),
    "matmul_broadcast": x[None].expand(2, 2, 3).matmul(w.t()[None]),
    "full_slice": x[:], "squeeze_negative_dim": x.unsqueeze(-1).squeeze(-1),
}
# Node.name(), which is what Kindling's Node::name() returns (for CopySlices and AccumulateGrad it is the
# C++ class name, "torch::autograd::CopySlices", where type(node).__name__ would say "CopySlices").
cases["node_names"] = {k: v.grad_fn.name() for k, v in names.items()}
cases["accumulate_grad_name"] = x.sum().grad_fn.next_functions[0][0].name()

# ---- error messages ------------------------------------------------------------------------------
cases["leaf_inplace"] = error(lambda: ramp(3).add_(1))
cases["view_of_leaf_inplace"] = error(lambda: ramp(3)[0:2].mul_(2))


def leaf_that_is_a_view_written():
    t = torch.tensor([1.0, 2.0, 3.0, 4.0]).reshape(2, 2).requires_grad_()  # a view, and a leaf
    t.add_(1)


cases["leaf_view_inplace"] = error(leaf_that_is_a_view_written)
cases["detach_view_inplace"] = error(lambda: (ramp(3) * 1)[0:2].detach_())
cases["implicit_scalar"] = error(lambda: (ramp(3) * 2).backward())
cases["no_grad_fn"] = error(lambda: torch.ones(3).sum().backward())
cases["int_requires_grad"] = error(lambda: torch.ones(3, dtype=torch.int64).requires_grad_())
cases["nonleaf_requires_grad_false"] = error(lambda: (ramp(3) * 2).requires_grad_(False))
cases["hook_without_grad"] = error(lambda: torch.ones(3).register_hook(lambda g: g))
cases["retain_grad_without_grad"] = error(lambda: torch.ones(3).retain_grad())
cases["gradient_shape_mismatch"] = error(lambda: (ramp(3) * 2).backward(torch.ones(2)))


def second_backward():
    y = ramp(3).exp().sum()
    y.backward()
    y.backward()


cases["second_backward"] = error(second_backward)


def sigmoid_modified():
    y = ramp(3).sigmoid()
    y.mul_(2)
    y.sum().backward()


cases["version_output"] = error(sigmoid_modified)


# The same rule when the last handle to the saved output is gone before backward: the
# saved variable keeps the version counter, so the write still counts.
def output_modified_then_dropped(op, writes):
    x = ramp(3)
    y = getattr(x, op)()
    z = y.sum()
    for w in writes:
        if w == "add_":
            y.add_(1)
        else:
            y.mul_(2)
    del y
    z.backward()


cases["version_output_dropped"] = {
    f"{op}/{'+'.join(writes)}": error(lambda op=op, writes=writes: output_modified_then_dropped(op, writes))
    for op in ("exp", "sigmoid", "tanh", "relu")
    for writes in (("add_",), ("mul_",), ("mul_", "add_"))
}


def input_modified():
    a = ramp(2, 2) * 1
    b = a * a
    a.add_(1)
    b.sum().backward()


cases["version_input"] = error(input_modified)


def input_modified_through_a_view():
    a = ramp(2, 2) * 1
    b = a * a
    a[0].mul_(2)  # a's producer is now CopySlices
    b.sum().backward()


cases["version_input_through_view"] = error(input_modified_through_a_view)


def leaf_saved_modified_under_no_grad():
    p = ramp(3)
    y = (p * p).sum()
    with torch.no_grad():
        p.mul_(2)
    y.backward()


cases["version_leaf"] = error(leaf_saved_modified_under_no_grad)


# The same check when every handle to the saved input is gone before backward: the message
# still names the producer the input had when its last handle died. (PyTorch keeps the input
# alive for this; Kindling keeps it weakly, so that `x.add_(x * v)` leaves no cycle behind.)
def input_modified_then_dropped(saved, writes):
    a = ramp(2, 2) * 1
    x = a[0] if saved == "view" else a
    b = x * x
    for w in writes:
        if w == "add_":
            a.add_(1)
        elif w == "mul_":
            a.mul_(2)
        elif w == "row":
            a[1].mul_(2)
        elif w == "self":
            x.mul_(2)
        else:  # "detached": a write that records nothing
            a.detach().mul_(2)
    del x, a
    b.sum().backward()


cases["version_input_dropped"] = {
    f"{saved}/{'+'.join(writes)}": error(lambda saved=saved, writes=writes: input_modified_then_dropped(saved, writes))
    for saved, writes in (
        ("base", ("add_",)),
        ("base", ("mul_", "add_")),
        ("base", ("row",)),
        ("base", ("add_", "row")),
        ("base", ("row", "add_")),
        ("base", ("detached",)),
        ("base", ("add_", "detached")),
        ("view", ("add_",)),
        ("view", ("row",)),
        ("view", ("self",)),
        ("view", ("detached",)),
    )
}


# a.mul_(w2) needs a's value from before the write for w2's gradient: PyTorch keeps a copy.
a0 = ramp(3)
a = a0 * 1
w2 = ramp(3, scale=3.0)
a.mul_(w2)
a.div_(w2 + 2)
a.sum().backward()
cases["inplace_mul_div"] = {"grads": [values(a0.grad), values(w2.grad)]}

# ---- gradients of composite graphs ----------------------------------------------------------------
def grads(*ts):
    return [values(t.grad) for t in ts]


# x = x + 1 makes a new tensor (the name now points to it); x += 1 writes into the old one.
a = ramp(3)
b = a * 2
b_ptr = b.data_ptr()
b = b + 1
c = a * 2
c_ptr = c.data_ptr()
c += 1
cases["rebind_vs_inplace"] = {"rebind_same_storage": b.data_ptr() == b_ptr, "inplace_same_storage": c.data_ptr() == c_ptr,
                              "inplace_name": type(c.grad_fn).__name__, "rebind_name": type(b.grad_fn).__name__}

# the MLP of the lecture: tanh(x W1^T + b1) W2^T + b2, mean squared error
xin = ramp(4, 3, scale=3.0, shift=2.0).detach()
w1 = ramp(5, 3, scale=11.0, shift=0.7)
b1 = ramp(5, scale=13.0, shift=0.2)
w2 = ramp(2, 5, scale=9.0, shift=0.5)
b2 = ramp(2, scale=4.0, shift=0.1)
target = ramp(4, 2, scale=5.0, shift=0.9).detach()
out = torch.tanh(xin.mm(w1.t()) + b1).mm(w2.t()) + b2
loss = ((out - target) ** 2).mean()
loss.backward()
cases["mlp"] = {"loss": loss.item(), "grads": grads(w1, b1, w2, b2)}

# cross entropy with log_softmax and index_select
logits = ramp(3, 4, scale=2.0, shift=2.5)
labels = torch.tensor([1, 3, 0])
lp = logits.log_softmax(1)
picked = torch.stack([lp[i].index_select(0, labels[i:i + 1]) for i in range(3)])
ce = -picked.mean()
ce.backward()
cases["cross_entropy"] = {"loss": ce.item(), "grads": grads(logits)}

# broadcasting: (3,1) * (1,4) + (4,), then a weighted sum
p = ramp(3, 1)
q = ramp(1, 4, scale=3.0)
r = ramp(4, scale=2.0, shift=0.3)
((p * q + r) * torch.arange(12.0).reshape(3, 4)).sum().backward()
cases["broadcast"] = {"grads": grads(p, q, r)}

# backward(gradient): the vector-Jacobian product of y = x^2 * [1, 2, 3]
v = ramp(3)
y = v * v * torch.tensor([1.0, 2.0, 3.0])
y.backward(torch.tensor([1.0, 0.5, -1.0]))
cases["vjp"] = {"grads": grads(v)}

# in-place on a view of a non-leaf: CopySlices
u = ramp(2, 3)
m = u * 2
m[0].mul_(3)
m[:, 1].add_(m[:, 2])
(m * m).sum().backward()
cases["inplace_view"] = {"grads": grads(u), "base_name": m.grad_fn.name(), "view_name": m[0].grad_fn.name()}
mm = u * 2
vv = mm[0]
vv.mul_(3)
cases["inplace_view"]["modified_view_name"] = vv.grad_fn.name()
# Printing shows the Python type name (CopySlices), not Node.name() (torch::autograd::CopySlices).
pr = torch.tensor([1.0, 1.0, 1.0], requires_grad=True) * 1
pr[0].mul_(2)
cases["print_copyslices"] = repr(pr)

# reductions, softmax, logsumexp, max, where, masked_fill, cat, stack
t = ramp(2, 4, scale=3.0)
s1 = t.softmax(1)[:, 0].sum() + t.logsumexp(1).sum() * 0.5 + t.max(1)[0].sum() + t.max() * 2
s2 = torch.where(t > 0, t * t, -t).sum() + t.masked_fill(t < -0.5, 3.0).pow(3).sum()
s3 = (torch.cat([t, t * 2], 1) * torch.arange(16.0).reshape(2, 8)).sum() + torch.stack([t, t.exp()]).prod(0).sum()
(s1 + s2 + s3).backward()
cases["reductions"] = {"grads": grads(t)}

# hooks: double the gradient of an intermediate; retain_grad sees the hooked gradient
h = ramp(3)
k = h * 3
k.retain_grad()
k.register_hook(lambda g: g * 2)
(k * k).sum().backward()
cases["hooks"] = {"grads": grads(h), "retained": values(k.grad)}

# A leaf adopts a gradient that nothing else holds as its .grad (same memory), and
# copies one that something else keeps (here a hook that stores it): PyTorch's
# AccumulateGrad compares the gradient's use count with the references it expects.
adopt = ramp(3)
seen_ptrs = []
adopt.register_hook(lambda g: seen_ptrs.append(g.data_ptr()))
(adopt * 2).sum().backward()
adopted = adopt.grad.data_ptr() == seen_ptrs[0]
adopt.grad = None
kept = []
adopt.register_hook(lambda g: kept.append(g))
(adopt * 2).sum().backward()
kept_adopted = adopt.grad.data_ptr() == kept[0].data_ptr()
# ... and what it keeps has no history, even when a hook returned a tensor that requires grad.
hooked = ramp(3)
hooked.register_hook(lambda g: torch.ones_like(g).requires_grad_())
(hooked * 2).sum().backward()
# nn.Linear's weight gradient reaches the leaf as .t() of a product (the transpose's node hands on a
# view): nothing else holds it, so it is adopted too, and .grad is not a view.
linear = torch.nn.Linear(4, 3)
linear_seen = []
linear.weight.register_hook(lambda g: linear_seen.append((g.data_ptr(), g._is_view())))
linear(ramp(2, 4)).sum().backward()
cases["leaf_adopts_gradient"] = {"unshared_adopted": adopted, "kept_adopted": kept_adopted,
                                 "hook_result_grad_requires_grad": hooked.grad.requires_grad,
                                 "hook_result_grad": values(hooked.grad),
                                 "linear_weight_hook_sees_view": linear_seen[0][1],
                                 "linear_weight_adopted": linear.weight.grad.data_ptr() == linear_seen[0][0],
                                 "linear_weight_grad_is_view": linear.weight.grad._is_view()}

# Tensor op Scalar on float64 and on a transposed float32 input: values, gradients, node names.
s64 = ramp(2, 3).double().detach().requires_grad_()
st = ramp(3, 2)
y64 = ((s64 + 0.1) * 3.3 - 1.7) / 0.7
yt = ((st.t() + 0.1) * 3.3 - 1.7) / 0.7
(y64.sum() + yt.sum()).backward()
_names, _fn = [], y64.grad_fn
while _fn is not None and _fn.name() != "torch::autograd::AccumulateGrad":
    _names.append(_fn.name())
    _fn = _fn.next_functions[0][0]
cases["scalar_ops"] = {"y64": values(y64), "yt": values(yt), "grads": grads(s64, st), "names": _names}

# accumulation: two backward calls add up
acc = ramp(3)
(acc * acc).sum().backward()
(acc * 3).sum().backward()
cases["accumulate"] = {"grads": grads(acc)}

# expand then transpose, then a view chain
e = ramp(3)
ee = e.expand(2, 3).t().reshape(6)
(ee * torch.arange(6.0)).sum().backward()
cases["expand_view"] = {"grads": grads(e)}

# matmul broadcasting: (2, 3, 4) @ (4, 2)
ma = ramp(2, 3, 4, scale=10.0)
mb = ramp(4, 2, scale=3.0)
(ma.matmul(mb) ** 2).sum().backward()
cases["matmul_batched"] = {"grads": grads(ma, mb)}

# mm and addmm hand an operand stored column-major (strides (1, rows), as Linear's W.t() is) a
# gradient in the same layout (mm_mat1_backward / mm_mat2_backward); a transposed operand whose
# leading dimension is longer than its rows, or a row-major one, gets a row-major gradient. The
# strides each operand's hook sees, and the leaves' gradients, for every pair of layouts.
def operand(layout, rows, cols, scale, shift):
    """A (rows, cols) view of a new leaf: "row" contiguous, "col" the transpose of a contiguous
    (cols, rows) matrix, "col_ld" the transpose of the first rows columns of a (cols, rows + 2) one."""
    if layout == "row":
        leaf = ramp(rows, cols, scale=scale, shift=shift)
        return leaf, leaf * 1
    if layout == "col":
        leaf = ramp(cols, rows, scale=scale, shift=shift)
        return leaf, (leaf * 1).t()
    leaf = ramp(cols, rows + 2, scale=scale, shift=shift)
    return leaf, (leaf * 1)[:, :rows].t()


mm_layouts = []
for op in ["mm", "addmm"]:
    for l1 in ["row", "col", "col_ld"]:
        for l2 in ["row", "col", "col_ld"]:
            leaf1, m1 = operand(l1, 3, 4, 5.0, 1.0)
            leaf2, m2 = operand(l2, 4, 5, 3.0, 0.5)
            seen = {}
            m1.register_hook(lambda g: seen.__setitem__("mat1", list(g.stride())))
            m2.register_hook(lambda g: seen.__setitem__("mat2", list(g.stride())))
            bias = ramp(5, scale=2.0, shift=0.3)
            y = m1.mm(m2) if op == "mm" else torch.addmm(bias, m1, m2, beta=0.5, alpha=2.0)
            y.backward(gout(y.shape))
            mm_layouts.append({"op": op, "mat1": l1, "mat2": l2, "mat1_strides": seen["mat1"],
                               "mat2_strides": seen["mat2"], "grads": grads(leaf1, leaf2)})
cases["mm_gradient_layout"] = mm_layouts
lin = torch.nn.Linear(6, 4)
lin_seen = []
lin.weight.register_hook(lambda g: lin_seen.append(list(g.stride())))
lin(ramp(3, 6).detach()).backward(gout((3, 4)))
cases["linear_weight_gradient_strides"] = lin_seen[0]


# ---- week02.dynamic_graph: the autograd tutorial's while loop --------------------------------------
def doubling(xv, limit, v):
    x = torch.tensor(xv, requires_grad=True)
    y = x * 2
    n = 1
    while y.norm() < limit:
        y = y * 2
        n += 1
    names = []
    fn = y.grad_fn
    while fn is not None:
        names.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
    y.backward(torch.tensor(v))
    return {"y": values(y.detach()), "doublings": n, "grad": values(x.grad), "chain": names}


cases["dynamic_graph_small"] = doubling([0.3, -1.2, 0.05], 1000.0, [0.1, 1.0, 0.0001])
cases["dynamic_graph_large"] = doubling([30.0, -120.0, 5.0], 1000.0, [0.1, 1.0, 0.0001])
cases["dynamic_graph_once"] = doubling([3.0, 4.0], 2.0, [1.0, -1.0])

# ---- week02.running_loss: .item() on a loss, and a weighted running mean ----------------------------
# (Python's .item() on two elements raises ValueError "only one element tensors can be converted to Python
# scalars"; LibTorch's C++ Tensor::item(), which Kindling follows, says "a Tensor with 2 elements cannot be
# converted to Scalar".)
rl_total, rl_count = 0.0, 0
for k in range(1, 6):
    step_loss = ((ramp(4, 3) * k - 0.5) ** 2).mean()
    rl_total += step_loss.item() * (k + 1)
    rl_count += k + 1
cases["running_loss"] = {"total": rl_total, "count": rl_count, "mean": rl_total / rl_count}

# ---- week02.deep_copy: x = x + c against x += c, and clone().detach() --------------------------------
def facts(t, before_ptr=None):
    out = {"requires_grad": t.requires_grad, "is_leaf": t.is_leaf, "version": t._version,
           "grad_fn": t.grad_fn.name() if t.grad_fn is not None else None}
    if before_ptr is not None:
        out["same_data_ptr"] = t.data_ptr() == before_ptr
    return out


w = ramp(2, 3)
ptr = w.data_ptr()
r = w + 1  # x = x + 1 on a parameter, with autograd on
cases["rebind_leaf"] = {"result": facts(r, ptr), "w_after": facts(w)}
cases["inplace_leaf_error"] = error(lambda: w.add_(1))
with torch.no_grad():
    r = w + 1  # what `p = p - lr * g` does in an optimizer: a new tensor that is not a parameter any more
    cases["rebind_leaf_no_grad"] = facts(r, ptr)
    w.add_(1)  # what `p -= lr * g` does: the parameter itself, one version later
    cases["inplace_leaf_no_grad"] = facts(w, ptr)
w = ramp(2, 3)
h = w * 2
hptr = h.data_ptr()
h.add_(1)
cases["inplace_nonleaf"] = facts(h, hptr)
h.backward(gout([2, 3]))
cases["inplace_nonleaf"]["grad"] = values(w.grad)
a = torch.arange(6.0)
v = a.view(2, 3)
a.add_(1)
after_inplace = values(v)
a = a + 1
cases["alias_sees_inplace_not_rebind"] = {"after_inplace": after_inplace, "after_rebind": values(v),
                                          "a": values(a)}

deep = []
w = ramp(2, 3)
for name, src in [("leaf", w), ("nonleaf_transposed", (w * 3).t()), ("step_slice", (w * 1)[:, ::2]),
                  ("plain", torch.arange(6.0).reshape(2, 3)[1])]:
    c = src.clone().detach()
    d = src.detach()
    cl = src.clone()
    deep.append({"name": name, "copy": dict(facts(c, src.data_ptr()), strides=list(c.stride()),
                                            offset=c.storage_offset(), values=values(c)),
                 "detach_shares": d.data_ptr() == src.data_ptr(),
                 "clone_grad_fn": cl.grad_fn.name() if cl.grad_fn is not None else None})
cases["deep_copy"] = deep

# ---- week02.relu_backward: ReLU's gradient from its output; relu_ in place; hand-written ReLUs ----------
x = torch.tensor([-1.0, 0.0, 2.0, -0.0, 3.0, -0.5], requires_grad=True)
hand = {}
for name, f in [("relu", torch.relu), ("clamp_min", lambda t: t.clamp(min=0)), ("mul_mask", lambda t: t * (t > 0)),
                ("where", lambda t: torch.where(t > 0, t, torch.zeros(()))), ("abs_mean", lambda t: (t + t.abs()) / 2),
                ("maximum", lambda t: torch.maximum(t, torch.zeros(())))]:
    x.grad = None
    y = f(x)
    y.backward(gout([6]))
    hand[name] = {"out": values(y.detach()), "grad": values(x.grad)}
cases["relu_hand"] = hand
w = ramp(3, 4)
h = w * 2 + 1  # some elements positive, some negative
torch.relu_(h)
cases["relu_inplace"] = {"grad_fn": h.grad_fn.name(), "version": h._version, "out": values(h.detach())}
h.backward(gout([3, 4]))
cases["relu_inplace"]["grad"] = values(w.grad)
cases["relu_inplace_leaf_error"] = error(lambda: torch.relu_(ramp(3)))
# A NaN input: relu lets it through, and its gradient passes grad on (threshold_backward zeroes only where
# the result is <= 0, and NaN is not).
x = torch.tensor([float("nan"), -1.0, 0.0, 2.0, float("nan")], requires_grad=True)
y = torch.relu(x)
y.backward(gout([5]))
cases["relu_nan"] = {"out": values(y.detach()), "grad": values(x.grad), "gout": values(gout([5]))}


def relu_then_write():
    hw = ramp(3, 4) * 2 + 1
    torch.relu_(hw)
    hw.mul_(2)  # overwrites what ReluBackward0 saved
    hw.sum().backward()


cases["relu_inplace_then_write_error"] = error(relu_then_write)

# pow with a Scalar exponent on float64: PyTorch takes exponent - 1 in double.
_xg = torch.tensor([0.3, 1.7, 2.9], dtype=torch.float64, requires_grad=True)
torch.pow(_xg, 0.1).sum().backward()
cases["scalar_f64_pow_grad"] = values(_xg.grad)

# ---- double backward (grad.hpp) and custom functions (custom_function.hpp) ----------------------------------------
def d(*shape, scale=7.0, shift=1.5):
    """ramp()'s values computed in float64, a leaf that requires grad."""
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float64).reshape(shape) / scale - shift).requires_grad_()


def dir64(shape, k=0.0):
    """A fixed direction: cos(0.7 i + k) over the elements, float64."""
    n = 1
    for s in shape:
        n *= s
    return torch.cos(torch.arange(n, dtype=torch.float64) * 0.7 + k).reshape(shape)


_x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
_g, = torch.autograd.grad(_x.pow(3).sum(), _x, create_graph=True)
cases["double_pow3"] = {"first": values(_g.detach()), "first_name": _g.grad_fn.name(),
                        "second": values(torch.autograd.grad(_g.sum(), _x)[0])}


def graph_names(t):
    """The names of t's graph, depth first from t.grad_fn, each node followed by its inputs'."""
    out = []

    def walk(fn):
        if fn is not None:
            out.append(fn.name())
            for nf, _ in fn.next_functions:
                walk(nf)
    walk(t.grad_fn)
    return out


# The graphs of recorded gradients: PyTorch's own formulas multiply by a C++ Scalar (mul.Scalar,
# MulBackward1), where Python's x * 3 wraps the number in a tensor (mul.Tensor, MulBackward0).
_x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
cases["double_graph_names"] = {
    "pow3": graph_names(torch.autograd.grad(_x.pow(3).sum(), _x, create_graph=True)[0]),
    "sqrt": graph_names(torch.autograd.grad(_x.sqrt().sum(), _x, create_graph=True)[0]),
    "times3": graph_names(torch.autograd.grad((_x * 3).pow(2).sum(), _x, create_graph=True)[0]),
}

_x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
(_x ** 3).sum().backward(create_graph=True)
_name1 = _x.grad.grad_fn.name()
(_x ** 3).sum().backward(create_graph=True)
_second, = torch.autograd.grad(_x.grad.sum(), _x)
cases["double_backward_grad"] = {"first_name": _name1, "second_name": _x.grad.grad_fn.name(),
                                 "grad": values(_x.grad.detach()), "second": values(_second)}

# A Hessian-vector product: a two-layer tanh network's loss, its gradient recorded, dotted with v.
_w1, _b1, _w2, _in = d(4, 3), d(4, scale=5.0), d(2, 4, scale=3.0, shift=0.5), d(5, 3, scale=4.0)
_loss = ((_in.mm(_w1.t()) + _b1).tanh().mm(_w2.t())).pow(2).mean()
_grads = torch.autograd.grad(_loss, [_w1, _b1, _w2], create_graph=True)
_dot = sum((g * dir64(g.shape, k)).sum() for k, g in enumerate(_grads))
_hv = torch.autograd.grad(_dot, [_w1, _b1, _w2])
cases["double_hvp"] = {"w1": values(_hv[0]), "b1": values(_hv[1]), "w2": values(_hv[2]),
                       "grad_w1": values(_grads[0].detach())}

# A gradient penalty (WGAN-GP): the critic's gradient norm at the inputs pushed towards 1.
_w, _pts = d(3, 4, scale=6.0), d(5, 4, scale=9.0, shift=0.3)
_critic = (_pts.mm(_w.t())).tanh().sum()
_gx, = torch.autograd.grad(_critic, _pts, create_graph=True)
_penalty = ((_gx * _gx).sum(1).sqrt() - 1).pow(2).mean()
_penalty.backward()
cases["double_penalty"] = {"penalty": values(_penalty.detach()), "w_grad": values(_w.grad)}

_x = d(3)
cases["grad_unused"] = error(lambda: torch.autograd.grad((_x * 2).sum(), [_x, d(2)]))
cases["grad_not_requiring"] = error(lambda: torch.autograd.grad((_x * 2).sum(), [torch.ones(2)]))
cases["grad_count"] = error(lambda: torch.autograd.grad([(_x * 2).sum(), (_x * 3).sum()], [_x],
                                                          [torch.tensor(1.0, dtype=torch.float64)]))
_unused = torch.autograd.grad((_x * 2).sum(), [_x, d(2)], allow_unused=True)
cases["grad_allow_unused"] = {"first": values(_unused[0]), "second_is_none": _unused[1] is None}


class LinearFunction(torch.autograd.Function):
    """LibTorch's documented example (torch/csrc/api docs), in Python."""

    @staticmethod
    def forward(ctx, input, weight, bias):
        ctx.save_for_backward(input, weight, bias)
        return input.mm(weight.t()) + bias.unsqueeze(0).expand(input.shape[0], weight.shape[0])

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        return grad_output.mm(weight), grad_output.t().mm(input), grad_output.sum(0)


class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, constant):
        ctx.constant = constant
        return x * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class ShapedGrad(torch.autograd.Function):
    """Returns a gradient of a given shape: PyTorch sums one the input's shape expands to back to that shape,
    and refuses any other."""

    @staticmethod
    def forward(ctx, x, shape):
        ctx.shape = shape
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return torch.ones(ctx.shape, dtype=grad_output.dtype), None


_shaped = []
for _xs, _gs in (((2,), (3, 2)), ((2, 1), (2, 3)), ((), (3,)), ((2,), (3,)), ((2,), (1,)), ((2, 3), (6,)),
                 ((2, 3), (3,))):
    _sx = torch.zeros(_xs, dtype=torch.float64, requires_grad=True)
    try:
        ShapedGrad.apply(_sx, _gs).sum().backward()
        _shaped.append({"x": list(_xs), "grad": list(_gs), "x_grad": values(_sx.grad)})
    except RuntimeError as _e:
        _shaped.append({"x": list(_xs), "grad": list(_gs), "error_tail": str(_e)[str(_e).index(" returned"):]})
cases["custom_grad_shapes"] = _shaped

_in, _wt, _bias = d(4, 3), d(2, 3, scale=5.0), d(2, scale=3.0)
_out = LinearFunction.apply(_in, _wt, _bias)
_out.backward(dir64([4, 2]))
_y = MulConstant.apply(_in, 5.5)
_yg, = torch.autograd.grad(_y.pow(2).sum(), _in, create_graph=True)
_yg2, = torch.autograd.grad(_yg.sum(), _in)
cases["custom_function"] = {"linear_out": values(_out.detach()), "linear_grad_input": values(_in.grad),
                            "linear_grad_weight": values(_wt.grad), "linear_grad_bias": values(_bias.grad),
                            "mul_out": values(_y.detach()), "mul_grad": values(_yg.detach()),
                            "mul_second": values(_yg2)}


def custom_saved_then_modified():
    a = d(3)
    b = a * 1  # a non-leaf input
    out = LinearFunction.apply(b.view(1, 3), d(2, 3), d(2))
    b.add_(1)
    out.sum().backward()


cases["custom_saved_modified"] = error(custom_saved_then_modified)

# week02.custom_function: fake quantisation (torch.fake_quantize_per_tensor_affine), its values and
# its straight-through gradient, for inputs with ties at .5, values past the range and random ones.
fq_gen = torch.Generator()
fq_gen.manual_seed(30)
fake_quantize = []
for scale, zp, qmin, qmax in [(0.1, 3, 0, 20), (0.05, 0, -128, 127), (0.0371, 128, 0, 255), (1.0, 0, -8, 7),
                              (0.25, -2, -4, 3)]:
    # The last five round one way after x * (1 / scale) in float32 and the other after x / scale.
    special = torch.tensor([0.05, 0.15, 0.25, 0.35, -0.05, -0.35, 2.0, -3.0, 0.0, 100.0, -100.0, 1.5, -1.5,
                            1.5499999523162842, -6.074999809265137, -5.574999809265137, -4.618949890136719,
                            -4.581849575042725,
                            # inside the range once rounded, outside before: the mask is the rounded value's
                            1.72, -0.33])
    x = torch.cat([special, torch.randn(40, generator=fq_gen) * 2]).requires_grad_()
    y = torch.fake_quantize_per_tensor_affine(x, scale, zp, qmin, qmax)
    g = torch.cos(0.7 * torch.arange(x.numel(), dtype=torch.float32))
    y.backward(g)
    fake_quantize.append({"scale": scale, "zero_point": zp, "quant_min": qmin, "quant_max": qmax,
                          "x": values(x.detach()), "y": values(y.detach()), "gout": values(g),
                          "grad": values(x.grad)})
cases["fake_quantize"] = fake_quantize
cases["fake_quantize_errors"] = {
    "min_above_max": error(lambda: torch.fake_quantize_per_tensor_affine(torch.ones(3), 0.1, 3, 20, 0)),
    "zero_point_outside": error(lambda: torch.fake_quantize_per_tensor_affine(torch.ones(3), 0.1, 30, 0, 20)),
}

with open(OUT, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1, sort_keys=True)
print("wrote", len(cases), "cases to", os.path.normpath(OUT))
