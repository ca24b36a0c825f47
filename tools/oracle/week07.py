#!/usr/bin/python3
"""Expected values for week 7 (training across processes), produced by PyTorch 1.13 (Debian's python3-torch).

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/week07.py
It writes grader/tests/week07/data/oracle.json: torch.randperm's values for a seeded CPU generator,
and DistributedSampler's indices with shuffle for every rank, seed, epoch and drop_last asked, so
that a Kindling rank reads the examples a PyTorch rank would; DDP's bucket assignment
(torch.distributed._compute_bucket_assignment_by_size) for tensors of random sizes and dtypes;
ZeroRedundancyOptimizer's partition of parameters over the ranks; and the error a DDP model with a
parameter that got no gradient raises at its next forward (a real one-rank Gloo group).
"""
import json
import os
import random
import sys
import tempfile

import torch
import torch.distributed as dist
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.utils.data import DistributedSampler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import error  # noqa: E402

assert torch.__version__.startswith("1.13"), torch.__version__
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "grader", "tests", "week07", "data", "oracle.json")
cases = {}

perms = []
for n in (0, 1, 2, 3, 5, 10, 17, 100, 1000, 10007):
    # 2**32 + 5: the generator keeps the seed's low 32 bits (the same permutation as seed 5).
    for seed in (0, 1, 5, 42, 2**31 + 11, 2**32 + 5):
        g = torch.Generator()
        g.manual_seed(seed)
        perms.append({"n": n, "seed": seed, "perm": torch.randperm(n, generator=g).tolist()})
cases["randperm"] = perms

samplers = []
for n in (1, 5, 10, 11, 17, 100):
    for replicas in (1, 2, 3, 4):
        for seed in (0, 7):
            for epoch in (0, 1, 5):
                for drop in (False, True):
                    ranks = []
                    for rank in range(replicas):
                        s = DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=True, seed=seed,
                                               drop_last=drop)
                        s.set_epoch(epoch)
                        ranks.append(list(s))
                    samplers.append({"n": n, "replicas": replicas, "seed": seed, "epoch": epoch, "drop_last": drop,
                                     "ranks": ranks, "len": len(DistributedSampler(range(n), num_replicas=replicas,
                                                                                      rank=0, drop_last=drop))})
cases["distributed_sampler"] = samplers
cases["rank_too_big"] = error(lambda: DistributedSampler(range(5), num_replicas=2, rank=2))
cases["rank_negative"] = error(lambda: DistributedSampler(range(5), num_replicas=2, rank=-1))

# DDP's buckets: sizes from the tensors, in the order given; a bucket closes once it holds at least
# its limit (so the tensor that crosses the limit stays in it); limits are used in turn, the last
# one for every later bucket; dtypes never share a bucket.
rng = random.Random(7)
DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64, "int32": torch.int32}
buckets = []
for case in range(60):
    n = rng.randint(1, 12)
    names = ["float32"] if case < 30 else [rng.choice(["float32", "float64", "int32"]) for _ in range(2)]
    tensors = []
    for _ in range(n):
        numel = rng.choice([0, 1, 3, 16, 100, 256, 1000, 4096, 65536, 262144, 300000])
        tensors.append((numel, rng.choice(names)))
    limits = rng.choice([[1024], [400, 4000], [1024 * 1024, 25 * 1024 * 1024], [100, 1000, 10000], [1]])
    # With indices (the order the gradients became ready, as DDP's rebuild passes them), the buckets
    # are not sorted afterwards, and those of different dtypes come out in a hash table's order:
    # one dtype only there.
    with_indices = case % 2 == 1 and len(set(d for _, d in tensors)) == 1
    indices = list(range(n))[::-1] if with_indices else []
    if with_indices and case % 4 == 3:
        indices = list(range(n))
        rng.shuffle(indices)
    ts = [torch.empty(numel, dtype=DTYPES[d]) for numel, d in tensors]
    got, got_limits = dist._compute_bucket_assignment_by_size(ts, limits, [], indices)
    buckets.append({"tensors": [[numel, d] for numel, d in tensors], "limits": limits, "indices": indices,
                    "buckets": got, "bucket_limits": got_limits})
cases["bucket_assignment"] = buckets
cases["first_bucket_bytes"] = dist._DEFAULT_FIRST_BUCKET_BYTES


# ZeroRedundancyOptimizer's partition (_partition_parameters, PyTorch's own code): the largest
# parameter first, each to the rank with the fewest elements so far (the lowest such rank).
def zero_partition(numels, world_size):
    z = ZeroRedundancyOptimizer.__new__(ZeroRedundancyOptimizer)
    params = [torch.empty(k) for k in numels]
    z.param_groups = [{"params": params}]
    z.world_size = world_size
    z._partition_parameters_cache = []
    per_rank = z._partition_parameters()
    ids = {id(p): i for i, p in enumerate(params)}
    return [[ids[id(p)] for group in groups for p in group["params"]] for groups in per_rank]


zero = []
for case in range(30):
    n = rng.randint(1, 10)
    numels = [rng.choice([1, 2, 5, 10, 10, 64, 100, 512, 1000]) for _ in range(n)]
    for world in (1, 2, 3, 4):
        zero.append({"numels": numels, "world_size": world, "ranks": zero_partition(numels, world)})
cases["zero_partition"] = zero


# A parameter that gets no gradient: DDP's next forward refuses to start (one rank over Gloo).
class TwoHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.used = torch.nn.Linear(3, 2)
        self.unused = torch.nn.Linear(3, 2)

    def forward(self, x):
        return self.used(x)


with tempfile.TemporaryDirectory() as d:
    dist.init_process_group("gloo", init_method="file://" + os.path.join(d, "store"), rank=0, world_size=1)
    ddp = torch.nn.parallel.DistributedDataParallel(TwoHeads())
    ddp(torch.ones(4, 3)).sum().backward()
    cases["unused_parameter"] = error(lambda: ddp(torch.ones(4, 3)))
    cases["zero_no_parameters"] = error(lambda: ZeroRedundancyOptimizer([], optimizer_class=torch.optim.SGD, lr=0.1))
    dist.destroy_process_group()

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=None)
print("wrote", OUT, len(cases), "cases")
