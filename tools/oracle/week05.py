#!/usr/bin/python3
"""Expected values for week 5 (losses, optimizers, schedulers, gradient clipping), produced by
PyTorch 1.13 (Debian's python3-torch).

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/week05.py
It writes grader/tests/week05/data/oracle.json. Random inputs come from torch.manual_seed(1505) and are
stored in full, so running the script twice gives byte-identical output.

Losses: out = F.<fn>(input, target, weight=..., pos_weight=..., **options); the gradient fed to backward
("gout") is cos(0.7 * arange(n)) reshaped to out's shape (1.0 for a 0-d out) and stored with each case.

Optimizers: two float32 parameters, p0 of shape (3, 4) and p1 of shape (4,), start from the stored "init".
Before optimizer.step() number t (t = 1..100) the gradient of parameter k (k = 0 for p0, 1 for p1) is set to

    p.grad[i] = float32(math.sin(0.1 * t + 0.3 * i + 0.5 * k))    for i in 0..numel-1 (row-major)

i.e. the sine is computed in double precision by Python's math.sin and then rounded to float32; the C++
tests rebuild the gradients the same way. The parameters are recorded after steps 10, 20, ..., 100. Every
optimizer is built with foreach=False (the single-tensor implementations); foreach is not part of "options".

Schedulers: SGD over one dummy parameter with lr 0.1; lrs[0] is the lr right after the scheduler is built,
lrs[s] is scheduler.get_last_lr()[0] after s rounds of optimizer.step(); scheduler.step().
"""
import json
import math
import os
import struct
import sys
import warnings
from collections import Counter
import zlib

import torch
import torch.nn.functional as F
import torch.optim.lr_scheduler as lr_scheduler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import error, gout, number, values  # noqa: E402

assert torch.__version__.startswith("1.13"), torch.__version__
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "grader", "tests", "week05", "data", "oracle.json")
torch.manual_seed(1505)
cases = {}


def optional(t):
    return None if t is None else values(t)


# ---- losses ------------------------------------------------------------------------------------------------
losses = []


def loss(name, fn, x, target, weight=None, pos_weight=None, **options):
    """Record F.<fn>(x, target, ...) with x a float32 leaf requiring grad, then backward with gout."""
    assert x.is_leaf and x.requires_grad and x.dtype == torch.float32
    assert name not in {c["name"] for c in losses}, name
    kwargs = dict(options)
    if weight is not None:
        kwargs["weight"] = weight
    if pos_weight is not None:
        kwargs["pos_weight"] = pos_weight
    y = getattr(F, fn)(x, target, **kwargs)
    g = gout(y.shape)
    y.backward(g)
    losses.append({"name": name, "fn": fn, "input": values(x.detach()), "target": values(target),
                   "weight": optional(weight), "pos_weight": optional(pos_weight), "options": options,
                   "out": values(y.detach()), "gout": values(g), "grad": values(x.grad)})


def logits(*shape):
    return (torch.randn(*shape) * 2).requires_grad_()


def positive(*shape):
    return torch.rand(*shape) + 0.5


# cross_entropy with class-index targets; targets contain the ignored class 1 more than once
IDX = torch.tensor([1, 0, 3, 1, 2])
for red in ("none", "mean", "sum"):
    loss("ce_index_" + red, "cross_entropy", logits(5, 4), IDX, reduction=red)
loss("ce_index_weight_mean", "cross_entropy", logits(5, 4), IDX, weight=positive(4), reduction="mean")
loss("ce_index_weight_none", "cross_entropy", logits(5, 4), IDX, weight=positive(4), reduction="none")
loss("ce_index_weight_sum", "cross_entropy", logits(5, 4), IDX, weight=positive(4), reduction="sum")
loss("ce_index_ignore_mean", "cross_entropy", logits(5, 4), IDX, reduction="mean", ignore_index=1)
loss("ce_index_ignore_none", "cross_entropy", logits(5, 4), IDX, reduction="none", ignore_index=1)
loss("ce_index_weight_ignore_mean", "cross_entropy", logits(5, 4), IDX, weight=positive(4), reduction="mean",
     ignore_index=1)
loss("ce_index_smooth01_mean", "cross_entropy", logits(5, 4), IDX, reduction="mean", label_smoothing=0.1)
loss("ce_index_smooth03_mean", "cross_entropy", logits(5, 4), IDX, reduction="mean", label_smoothing=0.3)
loss("ce_index_smooth03_none", "cross_entropy", logits(5, 4), IDX, reduction="none", label_smoothing=0.3)
loss("ce_index_smooth01_weight_mean", "cross_entropy", logits(5, 4), IDX, weight=positive(4), reduction="mean",
     label_smoothing=0.1)
loss("ce_index_smooth03_weight_sum", "cross_entropy", logits(5, 4), IDX, weight=positive(4), reduction="sum",
     label_smoothing=0.3)
loss("ce_index_smooth01_ignore_mean", "cross_entropy", logits(5, 4), IDX, reduction="mean", ignore_index=1,
     label_smoothing=0.1)
loss("ce_index_smooth01_ignore_none", "cross_entropy", logits(5, 4), IDX, reduction="none", ignore_index=1,
     label_smoothing=0.1)
loss("ce_index_smooth01_weight_ignore_mean", "cross_entropy", logits(5, 4), IDX, weight=positive(4),
     reduction="mean", ignore_index=1, label_smoothing=0.1)
loss("ce_unbatched_mean", "cross_entropy", logits(4), torch.tensor(2), reduction="mean")
loss("ce_unbatched_none", "cross_entropy", logits(4), torch.tensor(3), reduction="none")
SPATIAL = torch.tensor([[[0, 2], [1, 1]], [[2, 0], [1, 2]]])
loss("ce_spatial_mean", "cross_entropy", logits(2, 3, 2, 2), SPATIAL, reduction="mean")
loss("ce_spatial_none", "cross_entropy", logits(2, 3, 2, 2), SPATIAL, reduction="none")
loss("ce_spatial_weight_ignore_mean", "cross_entropy", logits(2, 3, 2, 2), SPATIAL, weight=positive(3),
     reduction="mean", ignore_index=1)

# cross_entropy with class-probability targets
def probs(*shape):
    return torch.softmax(torch.randn(*shape), dim=-1)


for red in ("mean", "sum", "none"):
    loss("ce_prob_" + red, "cross_entropy", logits(5, 4), probs(5, 4), reduction=red)
loss("ce_prob_weight_mean", "cross_entropy", logits(5, 4), probs(5, 4), weight=positive(4), reduction="mean")
loss("ce_prob_weight_none", "cross_entropy", logits(5, 4), probs(5, 4), weight=positive(4), reduction="none")
loss("ce_prob_smooth02_mean", "cross_entropy", logits(5, 4), probs(5, 4), reduction="mean", label_smoothing=0.2)
loss("ce_prob_smooth02_weight_sum", "cross_entropy", logits(5, 4), probs(5, 4), weight=positive(4),
     reduction="sum", label_smoothing=0.2)

# cross_entropy with huge logits: the log-sum-exp must be stable
for red in ("none", "mean"):
    huge = torch.tensor([[1e4, -1e4, 0.0], [-1e4, 1e4, 5.0]]).requires_grad_()
    loss("huge_ce_" + red, "cross_entropy", huge, torch.tensor([0, 2]), reduction=red)


# nll_loss: the input is the log-probabilities tensor itself (a leaf)
def log_probs(*shape):
    return torch.log_softmax(torch.randn(*shape) * 2, dim=-1).detach().requires_grad_()


for red in ("none", "mean", "sum"):
    loss("nll_" + red, "nll_loss", log_probs(5, 4), IDX, reduction=red)
loss("nll_weight_mean", "nll_loss", log_probs(5, 4), IDX, weight=positive(4), reduction="mean")
loss("nll_weight_none", "nll_loss", log_probs(5, 4), IDX, weight=positive(4), reduction="none")
loss("nll_ignore_mean", "nll_loss", log_probs(5, 4), IDX, reduction="mean", ignore_index=1)
loss("nll_weight_ignore_sum", "nll_loss", log_probs(5, 4), IDX, weight=positive(4), reduction="sum", ignore_index=1)

# regression losses
for fn, short in (("mse_loss", "mse"), ("l1_loss", "l1")):
    for red in ("none", "mean", "sum"):
        loss(short + "_" + red, fn, logits(3, 4), torch.randn(3, 4) * 2, reduction=red)


def near(x, threshold):
    """A target whose distance to x is sometimes below and sometimes above threshold."""
    diff = (torch.rand(x.shape) * 2 - 1) * 2.5 * threshold
    assert (diff.abs() < threshold).any() and (diff.abs() > threshold).any()
    return x.detach() + diff


for fn, short, key, t in (("smooth_l1_loss", "smooth_l1", "beta", 1.0), ("smooth_l1_loss", "smooth_l1", "beta", 0.5),
                          ("huber_loss", "huber", "delta", 1.0), ("huber_loss", "huber", "delta", 2.0)):
    for red in ("mean", "none"):
        x = logits(3, 4)
        loss("%s_%s%s_%s" % (short, key, str(t).replace(".", ""), red), fn, x, near(x, t), reduction=red, **{key: t})
x = logits(3, 4)
loss("smooth_l1_beta0_mean", "smooth_l1_loss", x, near(x, 1.0), reduction="mean", beta=0.0)


# binary cross entropy on probabilities
def prob_leaf(*shape):
    return torch.sigmoid(torch.randn(*shape)).detach().requires_grad_()


for red in ("mean", "none", "sum"):
    loss("bce_" + red, "binary_cross_entropy", prob_leaf(3, 4), torch.rand(3, 4), reduction=red)
loss("bce_weight_mean", "binary_cross_entropy", prob_leaf(3, 4), torch.rand(3, 4), weight=positive(3, 4),
     reduction="mean")
loss("bce_weight_none", "binary_cross_entropy", prob_leaf(3, 4), torch.rand(3, 4), weight=positive(3, 4),
     reduction="none")


# binary cross entropy with logits
def wide_logits(*shape):
    return (torch.randn(*shape) * 3).requires_grad_()


for red in ("mean", "none", "sum"):
    loss("bce_logits_" + red, "binary_cross_entropy_with_logits", wide_logits(3, 4), torch.rand(3, 4), reduction=red)
loss("bce_logits_pos_weight_mean", "binary_cross_entropy_with_logits", wide_logits(3, 4), torch.rand(3, 4),
     pos_weight=positive(4), reduction="mean")
loss("bce_logits_pos_weight_none", "binary_cross_entropy_with_logits", wide_logits(3, 4), torch.rand(3, 4),
     pos_weight=positive(4), reduction="none")
loss("bce_logits_weight_mean", "binary_cross_entropy_with_logits", wide_logits(3, 4), torch.rand(3, 4),
     weight=positive(3, 4), reduction="mean")
loss("bce_logits_weight_pos_weight_sum", "binary_cross_entropy_with_logits", wide_logits(3, 4), torch.rand(3, 4),
     weight=positive(3, 4), pos_weight=positive(4), reduction="sum")
huge = torch.tensor([[100.0, -100.0, 100.0, -100.0], [-100.0, 100.0, 50.0, -50.0]]).requires_grad_()
loss("huge_bce_logits_none", "binary_cross_entropy_with_logits", huge, torch.rand(2, 4), pos_weight=positive(4),
     reduction="none")
cases["losses"] = losses

cases["loss_errors"] = {
    "ce_target_out_of_bounds": error(lambda: F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))),
    "ce_batch_mismatch": error(lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1]))),
    "nll_wrong_target_dtype": error(lambda: F.nll_loss(torch.randn(2, 3), torch.tensor([0.0, 1.0]))),
    "bce_target_size": error(lambda: F.binary_cross_entropy(torch.rand(2, 3), torch.rand(3, 2))),
    "bce_with_logits_size": error(lambda: F.binary_cross_entropy_with_logits(torch.randn(2, 3), torch.rand(3, 2))),
    # logits where probabilities belong, class labels where float targets belong, and each check's place in line
    "bce_input_range": error(lambda: F.binary_cross_entropy(torch.tensor([1.5, -0.2]), torch.tensor([1.0, 0.0]))),
    "bce_input_nan": error(lambda: F.binary_cross_entropy(torch.tensor([float("nan"), 0.2]), torch.tensor([1.0, 0.0]))),
    "bce_long_target": error(lambda: F.binary_cross_entropy(torch.tensor([1.5, -0.2]), torch.tensor([1, 0]))),
    "bce_double_target": error(lambda: F.binary_cross_entropy(torch.tensor([0.5, 0.5]),
                                                              torch.tensor([1.0, 0.0], dtype=torch.float64))),
    "bce_with_logits_long_target": error(lambda: F.binary_cross_entropy_with_logits(torch.tensor([0.5, 0.5]),
                                                                                    torch.tensor([1, 1]))),
    "bce_with_logits_int_target": error(lambda: F.binary_cross_entropy_with_logits(
        torch.tensor([0.5, 0.5], dtype=torch.float64), torch.tensor([1, 1], dtype=torch.int32))),
    "smooth_l1_negative_beta": error(lambda: F.smooth_l1_loss(torch.ones(2), torch.zeros(2), beta=-1.0)),
    "huber_zero_delta": error(lambda: F.huber_loss(torch.ones(2), torch.zeros(2), delta=0.0)),
}
# nll_loss's shape errors, whose words follow the input's rank (its code paths), and cross_entropy's,
# which are nll_loss's: a column of labels (N, 1), a target for one image, a weight of the wrong length.
_lp = torch.linspace(-2, 2, 15).reshape(3, 5).log_softmax(1)  # no draw: the cases after it keep their RNG
_long = lambda *s: torch.zeros(*s, dtype=torch.long)
cases["nll_shape_errors"] = {
    "column_target": error(lambda: F.nll_loss(_lp, torch.tensor([[1], [0], [4]]))),
    "unbatched_target": error(lambda: F.nll_loss(torch.zeros(5), torch.tensor([1]))),
    "weight_length": error(lambda: F.nll_loss(_lp, torch.tensor([1, 0, 2]), weight=torch.ones(3))),
    "target_3d_input": error(lambda: F.nll_loss(torch.zeros(3, 5, 4), _long(3))),
    "target_4d_input_rank": error(lambda: F.nll_loss(torch.zeros(3, 5, 4, 2), _long(3, 4))),
    "target_4d_input_size": error(lambda: F.nll_loss(torch.zeros(3, 5, 4, 2), _long(3, 4, 3))),
    "weight_3d_input": error(lambda: F.nll_loss(torch.zeros(3, 5, 4), _long(3, 4), weight=torch.ones(2))),
    "ce_column_target": error(lambda: F.cross_entropy(torch.zeros(3, 5), torch.tensor([[1], [0], [4]]))),
    "ce_weight_length": error(lambda: F.cross_entropy(torch.zeros(3, 5), torch.tensor([1, 0, 2]), weight=torch.ones(3))),
    "ce_unbatched_weight_length": error(lambda: F.cross_entropy(torch.zeros(5), torch.tensor(1), weight=torch.ones(3))),
    "weight_4d_before_size": error(lambda: F.nll_loss(torch.zeros(3, 5, 4, 2), _long(3, 4, 3), weight=torch.ones(2))),
}
# A 1-D input with a 1-D target of its length is a batch, not a mistake.
cases["nll_one_example_batch"] = {"loss": float(F.nll_loss(torch.zeros(1), torch.tensor([0])))}

# ---- one_hot ---------------------------------------------------------------------------------------------------
one_hot = []
for target, k in ((torch.tensor([0, 2, 1, 4]), 5), (torch.tensor([[1, 0], [3, 1], [2, 2]]), -1),
                  (torch.tensor([2, 0, 1]), -1), (torch.tensor(1), 3)):
    one_hot.append({"target": values(target), "num_classes": k, "out": values(F.one_hot(target, k))})
cases["one_hot"] = one_hot
cases["one_hot_errors"] = {"too_small": error(lambda: F.one_hot(torch.tensor([0, 3]), 3)),
                           "negative": error(lambda: F.one_hot(torch.tensor([-1, 0]), 3))}

# ---- optimizers --------------------------------------------------------------------------------------------------
INIT = [torch.randn(3, 4), torch.randn(4)]


def grad_at(t, k, p):
    return torch.tensor([math.sin(0.1 * t + 0.3 * i + 0.5 * k) for i in range(p.numel())],
                        dtype=torch.float32).reshape(p.shape)


OPTIMIZERS = {"SGD": torch.optim.SGD, "Adam": torch.optim.Adam, "AdamW": torch.optim.AdamW,
              "RMSprop": torch.optim.RMSprop, "Adagrad": torch.optim.Adagrad}
optim_configs = [
    ("sgd", "SGD", [({"lr": 0.1}, [0, 1])]),
    ("sgd_momentum", "SGD", [({"lr": 0.1, "momentum": 0.9}, [0, 1])]),
    ("sgd_momentum_dampening", "SGD", [({"lr": 0.1, "momentum": 0.9, "dampening": 0.1}, [0, 1])]),
    ("sgd_nesterov", "SGD", [({"lr": 0.1, "momentum": 0.9, "nesterov": True}, [0, 1])]),
    ("sgd_momentum_weight_decay", "SGD", [({"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01}, [0, 1])]),
    ("sgd_maximize_momentum", "SGD", [({"lr": 0.1, "momentum": 0.5, "maximize": True}, [0, 1])]),
    ("sgd_two_groups", "SGD", [({"lr": 0.1, "momentum": 0.9}, [0]), ({"lr": 0.05, "momentum": 0.5}, [1])]),
    ("adam", "Adam", [({"lr": 0.01}, [0, 1])]),
    ("adam_amsgrad", "Adam", [({"lr": 0.01, "amsgrad": True}, [0, 1])]),
    ("adam_weight_decay", "Adam", [({"lr": 0.01, "weight_decay": 0.1}, [0, 1])]),
    ("adam_betas_eps", "Adam", [({"lr": 0.01, "betas": [0.8, 0.99], "eps": 1e-6}, [0, 1])]),
    ("adam_maximize", "Adam", [({"lr": 0.01, "maximize": True}, [0, 1])]),
    ("adam_two_groups", "Adam", [({"lr": 0.01, "betas": [0.9, 0.999]}, [0]), ({"lr": 0.05, "betas": [0.5, 0.9]}, [1])]),
    ("adamw", "AdamW", [({"lr": 0.01, "weight_decay": 0.1}, [0, 1])]),
    ("adamw_amsgrad", "AdamW", [({"lr": 0.01, "amsgrad": True, "weight_decay": 0.05}, [0, 1])]),
    ("rmsprop", "RMSprop", [({"lr": 0.01}, [0, 1])]),
    ("rmsprop_momentum_centered", "RMSprop", [({"lr": 0.01, "momentum": 0.9, "centered": True}, [0, 1])]),
    ("rmsprop_alpha_weight_decay", "RMSprop", [({"lr": 0.01, "alpha": 0.9, "weight_decay": 0.1, "eps": 1e-6}, [0, 1])]),
    ("rmsprop_maximize", "RMSprop", [({"lr": 0.01, "maximize": True}, [0, 1])]),
    ("adagrad", "Adagrad", [({"lr": 0.1}, [0, 1])]),
    ("adagrad_decay_init", "Adagrad", [({"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.05,
                                         "initial_accumulator_value": 0.1}, [0, 1])]),
    ("adagrad_maximize", "Adagrad", [({"lr": 0.1, "maximize": True}, [0, 1])]),
]
optim = []
for name, kind, groups in optim_configs:
    params = [p.clone().requires_grad_() for p in INIT]
    torch_groups = []
    for options, idx in groups:
        g = {k: (tuple(v) if k == "betas" else v) for k, v in options.items()}
        g["params"] = [params[i] for i in idx]
        torch_groups.append(g)
    defaults = {"lr": groups[0][0]["lr"]} if kind == "SGD" else {}
    opt = OPTIMIZERS[kind](torch_groups, foreach=False, **defaults)
    trajectory = {}
    for t in range(1, 101):
        for k, p in enumerate(params):
            p.grad = grad_at(t, k, p)
        opt.step()
        if t % 10 == 0:
            trajectory[str(t)] = [values(p.detach()) for p in params]
    optim.append({"name": name, "optimizer": kind, "groups": [{"options": o, "params": i} for o, i in groups],
                  "init": [values(p) for p in INIT], "steps": 100, "trajectory": trajectory})
cases["optim"] = optim

# ---- schedulers ----------------------------------------------------------------------------------------------------
def one_cycle(**options):
    return lambda o: lr_scheduler.OneCycleLR(o, **options)


scheduler_configs = {
    "step": lambda o: lr_scheduler.StepLR(o, step_size=30, gamma=0.1),
    "multistep": lambda o: lr_scheduler.MultiStepLR(o, milestones=[30, 80], gamma=0.1),
    "exponential": lambda o: lr_scheduler.ExponentialLR(o, gamma=0.95),
    "cosine": lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=50, eta_min=0.001),
    "cosine_no_min": lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=100),
    "linear": lambda o: lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=10),
    "linear_decay": lambda o: lr_scheduler.LinearLR(o, start_factor=1.0, end_factor=0.0, total_iters=100),
    "warmup_cosine": lambda o: lr_scheduler.SequentialLR(
        o, [lr_scheduler.LinearLR(o, start_factor=0.01, total_iters=10),
            lr_scheduler.CosineAnnealingLR(o, T_max=90, eta_min=0.0)], milestones=[10]),
}
# OneCycleLR: (optimizer, options). The optimizer is "SGD" (lr 0.1, momentum 0: torch's SGD always has a momentum
# option, which the schedule cycles), "SGD2" (two groups, lr 0.1 and 0.05) or "Adam" (lr 0.1: the schedule cycles
# betas[0]). Its cases also hold "all_lrs" and "momentums" (every group's lr and momentum or betas[0], per step).
ONE_CYCLE = {
    "onecycle_cos": ("SGD", {"max_lr": 1.0, "total_steps": 100}),
    "onecycle_linear_epochs": ("SGD", {"max_lr": 0.5, "epochs": 10, "steps_per_epoch": 10, "pct_start": 0.25,
                                       "anneal_strategy": "linear"}),
    "onecycle_three_phase": ("SGD", {"max_lr": 1.0, "total_steps": 100, "three_phase": True, "div_factor": 10.0,
                                     "final_div_factor": 100.0}),
    "onecycle_three_phase_linear": ("SGD", {"max_lr": 0.8, "total_steps": 100, "three_phase": True, "pct_start": 0.2,
                                            "anneal_strategy": "linear", "base_momentum": 0.8,
                                            "max_momentum": 0.9}),
    "onecycle_no_momentum": ("SGD", {"max_lr": 0.3, "total_steps": 120, "pct_start": 0.4, "cycle_momentum": False}),
    "onecycle_two_groups": ("SGD2", {"max_lr": [1.0, 0.3], "total_steps": 100, "base_momentum": [0.8, 0.85],
                                     "max_momentum": 0.95}),
    "onecycle_adam": ("Adam", {"max_lr": 0.01, "total_steps": 100, "base_momentum": 0.8, "max_momentum": 0.9}),
}
for name, (kind, options) in ONE_CYCLE.items():
    scheduler_configs[name] = one_cycle(**options)


def scheduler_optimizer(name):
    kind = ONE_CYCLE[name][0] if name in ONE_CYCLE else "SGD"
    if kind == "SGD2":
        return torch.optim.SGD([{"params": [torch.zeros(1, requires_grad=True)]},
                                {"params": [torch.zeros(1, requires_grad=True)], "lr": 0.05}], lr=0.1)
    if kind == "Adam":
        return torch.optim.Adam([torch.zeros(1, requires_grad=True)], lr=0.1)
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)


def group_momentum(group):
    return group["betas"][0] if "betas" in group else group["momentum"]


def flat_state(state, prefix=""):
    """A scheduler's state_dict() as Kindling's SchedulerState: {"numbers": {key: [values]}, "strings": {key: text},
    "skipped": [keys]}. A number is a list of one, a bool 0 or 1, a Counter its sorted elements; a list of dicts
    (SequentialLR's _schedulers, OneCycleLR's _schedule_phases) is flattened as "<key>.<i>.<subkey>"; functions
    (OneCycleLR's anneal_func, a bound method) are skipped."""
    out = {"numbers": {}, "strings": {}, "skipped": []}
    for key, v in state.items():
        k = prefix + key
        if isinstance(v, str):
            out["strings"][k] = v
        elif isinstance(v, bool):
            out["numbers"][k] = [int(v)]
        elif isinstance(v, (int, float)):
            out["numbers"][k] = [number(v)]
        elif isinstance(v, Counter):
            out["numbers"][k] = sorted(v.elements())
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for i, sub in enumerate(v):
                inner = flat_state(sub, "%s.%d." % (k, i))
                for part in out:
                    out[part].update(inner[part]) if part != "skipped" else out[part].extend(inner[part])
        elif isinstance(v, (list, tuple)):
            assert all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v), (k, v)
            out["numbers"][k] = [number(x) for x in v]
        elif callable(v):
            out["skipped"].append(k)
        else:
            raise AssertionError("unexpected state entry %s: %r" % (k, v))
    return out


STATE_AT = 37
# At its milestone SequentialLR calls the next scheduler's step(0), which uses that scheduler's closed form and
# warns that the epoch argument is deprecated; the warning says nothing about the values, so it is silenced.
warnings.filterwarnings("ignore", message="The epoch parameter in `scheduler.step\\(\\)` was not necessary")
schedulers = []
for name, make in scheduler_configs.items():
    opt = scheduler_optimizer(name)
    sched = make(opt)
    lrs = [opt.param_groups[0]["lr"]]
    all_lrs = [[g["lr"] for g in opt.param_groups]]
    momentums = [[group_momentum(g) for g in opt.param_groups]]
    for s in range(1, 101):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
        all_lrs.append(list(sched.get_last_lr()))
        momentums.append([group_momentum(g) for g in opt.param_groups])
        if s == STATE_AT:
            state = flat_state(sched.state_dict())
    assert all(isinstance(v, float) and math.isfinite(v) for v in lrs), name
    case = {"name": name, "base_lr": 0.1, "lrs": lrs, "state_at": STATE_AT, "state": state}
    if name in ONE_CYCLE:
        case.update({"optimizer": ONE_CYCLE[name][0], "options": ONE_CYCLE[name][1], "all_lrs": all_lrs,
                     "momentums": momentums})
    schedulers.append(case)
cases["schedulers"] = schedulers

opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
sched = lr_scheduler.StepLR(opt, step_size=30)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    sched.step()
caught = [w for w in caught if issubclass(w.category, UserWarning)]
assert len(caught) == 1, caught
cases["scheduler_warning"] = {"message": str(caught[0].message)}
cases["linear_errors"] = {
    "start": error(lambda: lr_scheduler.LinearLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1),
                                                 start_factor=1.5)),
    "end": error(lambda: lr_scheduler.LinearLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1),
                                               end_factor=-0.5)),
    # accepted by the constructor; the first step divides by total_iters * start_factor
    "start_zero": error(lambda: lr_scheduler.LinearLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1),
                                                      start_factor=0.0).step()),
}
# SequentialLR with no scheduler: PyTorch 1.13 has no check of its own, so its count check reports 0 and 0.
cases["sequential_empty_error"] = error(
    lambda: lr_scheduler.SequentialLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), [], []))


# ---- OneCycleLR's errors: SGD (momentum 0) over one parameter, or two groups where named -------------------------
def sgd_groups(n):
    return torch.optim.SGD([{"params": [torch.zeros(1, requires_grad=True)]} for _ in range(n)], lr=0.1)


def step_past_the_end():
    opt = sgd_groups(1)
    sched = lr_scheduler.OneCycleLR(opt, 1.0, total_steps=10)
    for _ in range(11):
        opt.step()
        sched.step()


cases["onecycle_errors"] = {
    "no_total_steps": error(lambda: lr_scheduler.OneCycleLR(sgd_groups(1), 1.0)),
    "total_steps_zero": error(lambda: lr_scheduler.OneCycleLR(sgd_groups(1), 1.0, total_steps=0)),
    "epochs_zero": error(lambda: lr_scheduler.OneCycleLR(sgd_groups(1), 1.0, epochs=0, steps_per_epoch=3)),
    "steps_per_epoch_negative": error(lambda: lr_scheduler.OneCycleLR(sgd_groups(1), 1.0, epochs=2,
                                                                      steps_per_epoch=-3)),
    "epochs_without_steps_per_epoch": error(lambda: lr_scheduler.OneCycleLR(sgd_groups(1), 1.0, epochs=2)),
    "pct_start_above_one": error(lambda: lr_scheduler.OneCycleLR(sgd_groups(1), 1.0, total_steps=10, pct_start=1.5)),
    "pct_start_negative": error(lambda: lr_scheduler.OneCycleLR(sgd_groups(1), 1.0, total_steps=10, pct_start=-0.1)),
    "anneal_strategy": error(lambda: lr_scheduler.OneCycleLR(sgd_groups(1), 1.0, total_steps=10,
                                                             anneal_strategy="exp")),
    "max_lr_count": error(lambda: lr_scheduler.OneCycleLR(sgd_groups(2), [1.0, 2.0, 3.0], total_steps=10)),
    "max_momentum_count": error(lambda: lr_scheduler.OneCycleLR(sgd_groups(2), 1.0, total_steps=10,
                                                                max_momentum=[0.9, 0.9, 0.9])),
    "no_momentum": error(lambda: lr_scheduler.OneCycleLR(
        torch.optim.Adagrad([torch.zeros(1, requires_grad=True)], lr=0.1), 1.0, total_steps=10)),
    "empty_phase": error(lambda: lr_scheduler.OneCycleLR(sgd_groups(1), 1.0, total_steps=10, pct_start=0.1)),
    "step_past_the_end": error(step_past_the_end),
}


# ---- ReduceLROnPlateau's state_dict() after 37 epochs, with the rates over 100 ----------------------------------
def plateau_state_metric(t):
    """Falls for 20 epochs, then wobbles on a plateau (the "plateau" section's metric)."""
    return 1.0 / (1 + t) if t < 20 else 1.0 / 21 + 0.002 * math.sin(0.7 * t)


plateau_state = []
for name, kwargs in (("plateau_state_min", {"patience": 2, "cooldown": 3, "factor": 0.5, "threshold": 0.01}),
                     ("plateau_state_max_abs", {"mode": "max", "patience": 4, "factor": 0.3, "threshold_mode": "abs",
                                                "threshold": 0.001, "min_lr": 0.002})):
    sign = -1 if kwargs.get("mode") == "max" else 1
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    sched = lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    metrics = [sign * plateau_state_metric(t) for t in range(100)]
    lrs = [opt.param_groups[0]["lr"]]
    for t in range(100):
        opt.step()
        sched.step(metrics[t])
        lrs.append(opt.param_groups[0]["lr"])
        if t + 1 == STATE_AT:
            state = flat_state(sched.state_dict())
    plateau_state.append({"name": name, "options": kwargs, "metrics": metrics, "lrs": lrs, "state_at": STATE_AT,
                          "state": state})
cases["plateau_state"] = plateau_state


# ---- gradient clipping ------------------------------------------------------------------------------------------------
def clip_case(name, grads, max_norm, norm_type):
    params = [torch.zeros(g.shape if g is not None else (2,), requires_grad=True) for g in grads]
    for p, g in zip(params, grads):
        p.grad = None if g is None else g.clone()
    total = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
    return {"name": name, "grads": [optional(g) for g in grads], "max_norm": max_norm,
            "norm_type": number(float(norm_type)), "total_norm": number(float(total)),
            "clipped": [optional(p.grad) for p in params]}


GRADS = [torch.randn(3, 4) * 3, torch.randn(4) * 3]
cases["clip_grad_norm"] = [
    clip_case("l2", GRADS, 1.0, 2.0),
    clip_case("l1", GRADS, 1.0, 1.0),
    clip_case("inf", GRADS, 1.0, float("inf")),
    clip_case("no_clip", GRADS, 100.0, 2.0),
    clip_case("none_grad", [torch.randn(3, 4) * 3, None, torch.randn(4) * 3], 1.0, 2.0),
]


def nonfinite():
    p0, p1 = torch.zeros(3, requires_grad=True), torch.zeros(2, requires_grad=True)
    p0.grad = torch.tensor([1.0, float("inf"), 2.0])
    p1.grad = torch.tensor([0.5, -0.5])
    torch.nn.utils.clip_grad_norm_([p0, p1], 1.0, error_if_nonfinite=True)


cases["clip_grad_norm_nonfinite"] = error(nonfinite)

value_grads = [torch.randn(3, 4), torch.randn(4)]
value_params = [torch.zeros(g.shape, requires_grad=True) for g in value_grads]
for p, g in zip(value_params, value_grads):
    p.grad = g.clone()
torch.nn.utils.clip_grad_value_(value_params, 0.5)
cases["clip_grad_value"] = {"grads": [values(g) for g in value_grads], "clip_value": 0.5,
                            "clipped": [values(p.grad) for p in value_params]}

# ---- ReduceLROnPlateau: the rate after each step(metric) over 100 epochs --------------------------------------------
def plateau_metric(t):
    """Falls for 20 epochs, then wobbles on a plateau (so that the rate is cut, repeatedly)."""
    return 1.0 / (1 + t) if t < 20 else 1.0 / 21 + 0.002 * math.sin(0.7 * t)


plateau_configs = {
    "plateau_default": ({}, 1),
    "plateau_patience_cooldown": ({"patience": 2, "cooldown": 3, "factor": 0.5, "threshold": 0.01}, 1),
    "plateau_abs_min_lr": ({"patience": 3, "threshold_mode": "abs", "threshold": 0.001, "min_lr": 0.002}, 1),
    "plateau_max": ({"mode": "max", "patience": 4, "factor": 0.3}, -1),
}
plateau = []
for name, (kwargs, sign) in plateau_configs.items():
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    sched = lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    lrs = [opt.param_groups[0]["lr"]]
    for t in range(100):
        opt.step()
        sched.step(sign * plateau_metric(t))
        lrs.append(opt.param_groups[0]["lr"])
    plateau.append({"name": name, "options": kwargs, "sign": sign, "lrs": lrs,
                    "metrics": [sign * plateau_metric(t) for t in range(100)]})
cases["plateau"] = plateau
cases["plateau_factor_error"] = error(
    lambda: lr_scheduler.ReduceLROnPlateau(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), factor=1.0))

# ---- checkpoints: a safetensors file written here, by the format's specification ------------------
# (Debian has no safetensors package; the format is 8 bytes of little-endian header
# length, a JSON header padded with spaces to 8 bytes, then the raw data.) The C++
# test reads this file and compares with the values recorded below.
SAFETENSORS = os.path.join(os.path.dirname(OUT), "python_written.safetensors")
ST_DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.int32: "I32",
             torch.uint8: "U8", torch.bool: "BOOL"}


def write_safetensors(path, tensors, metadata):
    header, data = {}, b""
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        raw = t.numpy().tobytes()  # little-endian on every machine torch runs on here
        header[name] = {"dtype": ST_DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


st_tensors = {
    "weight": torch.randn(2, 3),
    "index": torch.tensor([5, -1, 7], dtype=torch.int64),
    "scale": torch.tensor(2.5, dtype=torch.float64),
    "mask": torch.tensor([[True, False], [False, True]]),
    "bytes": torch.tensor([0, 128, 255], dtype=torch.uint8),
    "empty": torch.zeros(0, 4),
}
write_safetensors(SAFETENSORS, st_tensors, {"format": "pt", "written_by": "tools/oracle/week05.py"})
cases["python_safetensors"] = {name: values(t.to(torch.float64) if t.dtype == torch.bool else t)
                               for name, t in st_tensors.items()}
cases["python_safetensors_dtypes"] = {name: ST_DTYPES[t.dtype] for name, t in st_tensors.items()}

# ---- a training checkpoint written by PyTorch: the model and optimizer.state_dict() in Kindling's layout --------
# (tensors "model.<key>" and "optimizer.state.<i>.<buffer>", "step" as a 0-d float64; metadata
# "optimizer.param_groups" = json of state_dict()["param_groups"], and the CRC-32 Kindling checks:
# zlib's crc32 of the padded header, with the CRC's 8 digits as zeros, followed by the data.)
# The C++ test loads it into a fresh Linear and Adam, takes 5 more steps on the same data, and must
# land where PyTorch landed.
PY_CHECKPOINT = os.path.join(os.path.dirname(OUT), "python_checkpoint.safetensors")


def write_kindling_checkpoint(path, tensors, metadata):
    header, data = {}, b""
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        raw = t.numpy().tobytes()
        header[name] = {"dtype": ST_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header["__metadata__"] = dict(metadata, **{"kindling.crc32": "00000000"})
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    crc = zlib.crc32(data, zlib.crc32(text.encode()))
    text = text.replace('"kindling.crc32":"00000000"', '"kindling.crc32":"%08x"' % crc)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text.encode() + data)


def ckpt_batch(t):
    x = torch.tensor([[math.sin(0.37 * t + 0.11 * i + 0.7 * j) for j in range(4)] for i in range(6)])
    y = torch.tensor([[math.cos(0.23 * t + 0.5 * i + 0.3 * j) for j in range(3)] for i in range(6)])
    return x, y


torch.manual_seed(11)
ck_model = torch.nn.Linear(4, 3)
ck_opt = torch.optim.Adam([{"params": [ck_model.weight], "lr": 0.05, "amsgrad": True, "weight_decay": 0.01},
                           {"params": [ck_model.bias], "lr": 0.02, "betas": (0.8, 0.99)}], foreach=False)


def ck_step(t):
    x, y = ckpt_batch(t)
    ck_opt.zero_grad()
    F.mse_loss(ck_model(x), y).backward()
    ck_opt.step()


for t in range(5):
    ck_step(t)
sd = ck_opt.state_dict()
ck_tensors = {"model." + k: v.detach().clone() for k, v in ck_model.state_dict().items()}
for index, st in sd["state"].items():
    for name, v in st.items():
        ck_tensors["optimizer.state.%d.%s" % (index, name)] = (v.to(torch.float64) if name == "step" else v).clone()
write_kindling_checkpoint(PY_CHECKPOINT, ck_tensors,
                          {"epoch": "5", "optimizer.param_groups": json.dumps(sd["param_groups"]),
                           "written_by": "tools/oracle/week05.py"})
for t in range(5, 10):
    ck_step(t)
two_groups_sd = ck_opt.state_dict()
one_group = torch.optim.Adam(torch.nn.Linear(4, 3).parameters())
cases["optimizer_state_errors"] = {
    "group_count": error(lambda: one_group.load_state_dict(two_groups_sd)),
    "group_size": error(lambda: torch.optim.Adam([{"params": [torch.zeros(1, requires_grad=True)] * 1},
                                                  {"params": [torch.zeros(2, requires_grad=True),
                                                              torch.zeros(3, requires_grad=True)]}]
                                                 ).load_state_dict(two_groups_sd)),
}
cases["python_checkpoint"] = {"weight": values(ck_model.weight), "bias": values(ck_model.bias),
                              "param_groups": sd["param_groups"]}

# Quantised tensors (week05.quantize): torch.quantize_per_tensor's integers and dequantize()'s
# floats for random and chosen inputs (ties at .5, values past the range, NaN, infinities, a value
# too large for int64), and the exact integer products of a Linear layer. Its own generator, so
# that the cases above keep their values.
qg = torch.Generator()
qg.manual_seed(69)
special = torch.tensor([0.05, 0.15, 0.25, 0.35, -0.05, -0.15, 0.125, 0.375, -0.375, 1e20, -1e20, 3e9, -3e9,
                        float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 12.75, -12.85,
                        # these round one way after v * (1 / scale) in float32 and the other after v / scale
                        1.5499999523162842, 1.9499999284744263, -12.149999618530273, -1.3170498609542847,
                        -4.396349906921387, 3.0999999046325684,
                        # past 2^24 the zero point's float32 addition rounds (qint32 with an odd zero point)
                        16777216.0, -16777216.0, 33554436.0])
QD = {"quint8": torch.quint8, "qint8": torch.qint8, "qint32": torch.qint32}
quantize = []
for k, (scale, zp, dt) in enumerate([(0.1, 10, "quint8"), (0.1, 0, "qint8"), (0.25, -3, "qint8"), (0.0371, 37, "quint8"),
                                     (0.0371, -5, "qint8"), (0.0371, 1234, "qint32"), (1e-3, 128, "quint8"),
                                     (2.5, 255, "quint8"), (0.2, -128, "qint8"), (0.05, 0, "qint32"),
                                     (1.0, 1, "qint32")]):
    x = torch.cat([special, torch.randn(77, generator=qg) * (3 if k % 2 else 12)]).reshape(106)
    if k == 3:
        x = x[:96].reshape(8, 12)
    q = torch.quantize_per_tensor(x, scale, zp, QD[dt])
    quantize.append({"x": values(x), "scale": scale, "zero_point": zp, "dtype": dt,
                     "int_repr": q.int_repr().reshape(-1).tolist(), "dequantized": values(q.dequantize())})
cases["quantize"] = quantize
cases["quantize_errors"] = {
    "above": error(lambda: torch.quantize_per_tensor(torch.ones(3), 0.1, 300, torch.quint8)),
    "below": error(lambda: torch.quantize_per_tensor(torch.ones(3), 0.1, -1, torch.quint8)),
    "qint8_above": error(lambda: torch.quantize_per_tensor(torch.ones(3), 0.1, 128, torch.qint8)),
    "double": error(lambda: torch.quantize_per_tensor(torch.ones(3, dtype=torch.float64), 0.1, 0, torch.quint8)),
}
int_matmul = []
for (m, n, kk, sa, za, da, sb, zb, db) in [(6, 5, 300, 0.02, 130, "quint8", 0.001, 3, "qint8"),
                                           (3, 4, 7, 0.1, 0, "qint8", 0.1, 0, "qint8"),
                                           (2, 3, 2000, 1e-4, 0, "quint8", 1e-4, -128, "qint8")]:
    a = torch.quantize_per_tensor(torch.randn(m, kk, generator=qg) * 2, sa, za, QD[da])
    b = torch.quantize_per_tensor(torch.randn(n, kk, generator=qg) * 0.1, sb, zb, QD[db])
    ai = a.int_repr().to(torch.int64)
    bi = b.int_repr().to(torch.int64)
    if kk == 2000:  # the largest products: every sum near 2000 x 255 x 255
        ai = torch.full((m, kk), 255, dtype=torch.int64) - torch.arange(m).reshape(m, 1)
        bi = torch.full((n, kk), 127, dtype=torch.int64) - torch.arange(n).reshape(n, 1)
    product = (ai - za) @ (bi - zb).T
    assert product.abs().max() < 2**31
    int_matmul.append({"a": ai.reshape(-1).tolist(), "a_shape": [m, kk], "a_scale": sa, "a_zero_point": za, "a_dtype": da,
                       "b": bi.reshape(-1).tolist(), "b_shape": [n, kk], "b_scale": sb, "b_zero_point": zb, "b_dtype": db,
                       "product": product.reshape(-1).tolist()})
cases["int_matmul"] = int_matmul

# optimizer.state_dict()'s layout after 3 steps (week05.sgd, week05.adam): state keyed by parameter
# index (a parameter that never had a gradient has none), each with its buffers and, for Adam, its
# step; param_groups with every option and the parameters as indices. The same INIT and gradients
# as the trajectories above; parameter 2 never gets a gradient.
state_dicts = []
for name, kind, groups in [("sgd_momentum", "SGD", [({"lr": 0.1, "momentum": 0.9}, [0, 1, 2])]),
                           ("sgd_two_groups", "SGD", [({"lr": 0.1, "momentum": 0.9}, [0, 2]),
                                                      ({"lr": 0.05, "momentum": 0.5, "nesterov": True}, [1])]),
                           ("adam", "Adam", [({"lr": 0.01}, [0, 1, 2])]),
                           ("adam_amsgrad_two_groups", "Adam", [({"lr": 0.01, "amsgrad": True}, [1]),
                                                                ({"lr": 0.05, "betas": [0.5, 0.9]}, [2, 0])]),
                           ("adamw", "AdamW", [({"lr": 0.01, "weight_decay": 0.1}, [0, 1, 2])])]:
    params = [p.clone().requires_grad_() for p in INIT] + [torch.zeros(2, requires_grad=True)]
    torch_groups = []
    for options, idx in groups:
        g = {k: (tuple(v) if k == "betas" else v) for k, v in options.items()}
        g["params"] = [params[i] for i in idx]
        torch_groups.append(g)
    defaults = {"lr": groups[0][0]["lr"]} if kind == "SGD" else {}
    opt = OPTIMIZERS[kind](torch_groups, foreach=False, **defaults)
    for t in range(1, 4):
        for k, p in enumerate(params[:2]):
            p.grad = grad_at(t, k, p)
        opt.step()
    sd = opt.state_dict()
    state = {}
    for index, st in sd["state"].items():
        entry = {"buffers": {}}
        for key, v in st.items():
            if key == "step":
                entry["step"] = float(v)
            else:
                entry["buffers"][key] = values(v)
        state[str(index)] = entry
    state_dicts.append({"name": name, "optimizer": kind, "groups": [{"options": o, "params": i} for o, i in groups],
                        "init": [values(p) for p in INIT] + [values(torch.zeros(2))], "steps": 3, "state": state,
                        "param_groups": sd["param_groups"]})
cases["optimizer_state_dicts"] = state_dicts

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=1)
print("wrote", OUT, len(cases), "cases")
