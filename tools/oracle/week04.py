#!/usr/bin/python3
"""Expected values for week 4 (data), produced by PyTorch 1.13 (Debian's python3-torch).

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/week04.py
It writes grader/tests/week04/data/oracle.json: exact index sequences of the
deterministic samplers, lengths, and error messages. Random samplers are checked
statistically in the tests: Kindling's generator is not PyTorch's.
"""
import json
import os
import sys

import torch

from torch.utils.data import (BatchSampler, DataLoader, DistributedSampler, RandomSampler, SequentialSampler,
                              TensorDataset, WeightedRandomSampler)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import error, values  # noqa: E402

assert torch.__version__.startswith("1.13"), torch.__version__
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "grader", "tests", "week04", "data", "oracle.json")
cases = {}


cases["sequential"] = {"indices": list(SequentialSampler(range(7))), "len": len(SequentialSampler(range(7)))}
batches = []
for n in (0, 1, 5, 10, 11):
    for bs in (1, 3, 5, 12):
        for drop in (False, True):
            b = BatchSampler(SequentialSampler(range(n)), bs, drop)
            batches.append({"n": n, "batch_size": bs, "drop_last": drop, "batches": list(b), "len": len(b)})
cases["batch_sampler"] = batches
dist = []
for n in (0, 1, 5, 10, 11, 17):
    for replicas in (1, 2, 3, 4):
        for drop in (False, True):
            ranks = []
            for rank in range(replicas):
                s = DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop)
                ranks.append({"indices": list(s), "len": len(s)})
            dist.append({"n": n, "replicas": replicas, "drop_last": drop, "ranks": ranks})
cases["distributed"] = dist
cases["random_len"] = {"default": len(RandomSampler(range(5))),
                       "replacement": len(RandomSampler(range(5), replacement=True, num_samples=7)),
                       "more_than_n": len(RandomSampler(range(5), num_samples=12))}
cases["weighted_num_samples"] = error(lambda: WeightedRandomSampler([1.0, 2.0], 0))
cases["random_num_samples"] = error(lambda: RandomSampler(range(5), num_samples=0))
# TensorDataset indexes its tensors: a negative index counts from the end, one out of range is theirs to refuse.
_tds = TensorDataset(torch.arange(3.0), torch.arange(3))
cases["tensor_dataset_index"] = {"last": float(_tds[-1][0]), "too_big": error(lambda: _tds[5]),
                                 "too_negative": error(lambda: _tds[-4])}
# An empty dataset with num_samples given: PyTorch fails when the epoch starts (Kindling at construction).
cases["random_empty_replacement"] = error(lambda: list(RandomSampler(range(0), replacement=True, num_samples=5)))
cases["random_empty"] = error(lambda: list(RandomSampler(range(0), num_samples=5)))
cases["weighted_negative"] = error(lambda: list(WeightedRandomSampler([1.0, -2.0], 3)))
cases["weighted_nan"] = error(lambda: list(WeightedRandomSampler([1.0, float("nan")], 3)))
cases["weighted_inf"] = error(lambda: list(WeightedRandomSampler([1.0, float("inf")], 3)))
cases["weighted_all_zero"] = error(lambda: list(WeightedRandomSampler([0.0, 0.0], 3)))
cases["weighted_too_many"] = error(lambda: list(WeightedRandomSampler([1.0, 2.0], 3, replacement=False)))
# The order of the checks. With replacement, weight by weight (sign, then finiteness), then the sum; without,
# num_samples first, then one check for inf, NaN and negative weights, then the sum.
cases["weighted_inf_before_negative"] = error(lambda: list(WeightedRandomSampler([float("inf"), -1.0], 1)))
cases["weighted_nan_before_inf"] = error(lambda: list(WeightedRandomSampler([float("nan"), float("inf")], 1)))
cases["weighted_no_replacement_negative"] = error(lambda: list(WeightedRandomSampler([1.0, -2.0], 1, replacement=False)))
cases["weighted_no_replacement_nan"] = error(lambda: list(WeightedRandomSampler([1.0, float("nan")], 1, replacement=False)))
cases["weighted_no_replacement_inf"] = error(lambda: list(WeightedRandomSampler([1.0, float("inf")], 1, replacement=False)))
cases["weighted_no_replacement_all_zero"] = error(lambda: list(WeightedRandomSampler([0.0, 0.0], 1, replacement=False)))
cases["weighted_too_many_before_weights"] = error(lambda: list(WeightedRandomSampler([-1.0, 1.0], 3, replacement=False)))
cases["weighted_too_many_before_sum"] = error(lambda: list(WeightedRandomSampler([0.0, 0.0], 3, replacement=False)))
cases["weighted_shape"] = error(lambda: WeightedRandomSampler(torch.ones(1, 2), 2))
cases["batch_size_zero"] = error(lambda: BatchSampler(SequentialSampler(range(5)), 0, False))
cases["rank_too_big"] = error(lambda: DistributedSampler(range(5), num_replicas=2, rank=2))
cases["rank_negative"] = error(lambda: DistributedSampler(range(5), num_replicas=2, rank=-1))
# Without replacement, zero-weight categories come last (PyTorch: the exponential race in multinomial).
cases["weighted_zero_last"] = {"indices": sorted(WeightedRandomSampler([1.0, 0.0, 0.0, 2.0], 2, replacement=False))}

# ---- DataLoader ---------------------------------------------------------------------------------------------
ds = TensorDataset(torch.arange(10.0), torch.arange(10))
cases["loader_errors"] = {
    "num_workers": error(lambda: DataLoader(ds, num_workers=-1)),
    "timeout": error(lambda: DataLoader(ds, timeout=-1)),
    "prefetch_factor": error(lambda: DataLoader(ds, prefetch_factor=4)),
    "persistent_workers": error(lambda: DataLoader(ds, persistent_workers=True)),
    "sampler_shuffle": error(lambda: DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)),
    "batch_sampler": error(lambda: DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 2, False),
                                              batch_size=3)),
    "batch_size_none": error(lambda: DataLoader(ds, batch_size=None, drop_last=True)),
    "batch_size_zero": error(lambda: DataLoader(ds, batch_size=0)),
}
cases["loader_len"] = {"keep": len(DataLoader(ds, batch_size=3)), "drop": len(DataLoader(ds, batch_size=3, drop_last=True))}
cases["tensor_dataset_mismatch"] = error(lambda: TensorDataset(torch.zeros(3), torch.zeros(4)))


# ---- DataLoader failures: a dataset that raises at one index, with and without workers ------------------------
class Failing(torch.utils.data.Dataset):
    KINDS = {"ValueError": ValueError, "IndexError": IndexError, "TypeError": TypeError,
             "RuntimeError": RuntimeError}

    def __init__(self, n, bad, kind):
        self.n, self.bad, self.kind = n, bad, kind

    def __getitem__(self, i):
        if i == self.bad:
            raise self.KINDS[self.kind](f"bad item {i}")
        return torch.tensor(i)

    def __len__(self):
        return self.n


def loader_failure(n, bad, kind, workers, batch_size):
    delivered = []
    try:
        for b in DataLoader(Failing(n, bad, kind), batch_size=batch_size, num_workers=workers):
            delivered.append(b.tolist())
    except Exception as e:  # noqa: BLE001 - the kind is what we record
        return {"n": n, "bad": bad, "kind": kind, "num_workers": workers, "batch_size": batch_size,
                "type": type(e).__name__, "first_line": str(e).split("\n")[0], "delivered": delivered}
    raise AssertionError("the loader did not fail")


cases["loader_failures"] = [loader_failure(n, bad, kind, workers, bs)
                            for kind in Failing.KINDS
                            for (n, bad, workers, bs) in ((12, 10, 2, 2), (12, 5, 3, 2), (9, 0, 1, 4), (20, 13, 0, 3))]

# ---- week04.csv_dataset: a Dataset written by hand over a CSV of tiny images, Compose(ToTensor, Normalize),
# and next(iter(loader)). The file is written here (deterministic) and shipped next to oracle.json.
CSV = os.path.join(os.path.dirname(OUT), "tiny_images.csv")
os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(CSV, "w", newline="") as f:
    f.write("label," + ",".join("pixel%d" % (j + 1) for j in range(6)) + "\n")
    for i in range(5):
        f.write(",".join([str((3 * i + 1) % 10)] + [str((i * 37 + j * 11 + 5) % 256) for j in range(6)]) + "\n")


class TinyImages(torch.utils.data.Dataset):
    """The study notes' pattern: read everything in __init__, answer __len__ and __getitem__."""

    def __init__(self, path, transform):
        with open(path) as f:
            rows = [line.strip().split(",") for line in f.readlines()[1:] if line.strip()]
        self.labels = torch.tensor([int(r[0]) for r in rows])
        self.pixels = torch.tensor([[float(v) for v in r[1:]] for r in rows])
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        image = self.pixels[i].view(2, 3).to(torch.uint8)
        return self.transform(image), self.labels[i]


def to_tensor(image):  # torchvision.transforms.ToTensor for an (H, W) uint8 image
    return image.unsqueeze(2).permute(2, 0, 1).contiguous().to(torch.float32).div(255)


def normalize(mean, std):  # torchvision.transforms.Normalize for a (C, H, W) float tensor
    return lambda t: (t - torch.tensor(mean).view(-1, 1, 1)) / torch.tensor(std).view(-1, 1, 1)


def compose(*fs):
    def run_all(x):
        for fn in fs:
            x = fn(x)
        return x
    return run_all


tiny = TinyImages(CSV, compose(to_tensor, normalize([0.5], [0.25])))
first_images, first_labels = next(iter(DataLoader(tiny, batch_size=2)))
cases["csv_first_batch"] = {"len": len(tiny), "images": values(first_images), "labels": values(first_labels),
                            "features": values(tiny.pixels), "all_labels": values(tiny.labels)}

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=None)
print("wrote", OUT, len(cases), "cases")
