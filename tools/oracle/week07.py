#!/usr/bin/python3
"""Expected values for week 7 (training across processes), produced by PyTorch 1.13 (Debian's python3-torch).

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/week07.py
It writes grader/tests/week07/data/oracle.json: torch.randperm's values for a seeded CPU generator,
and DistributedSampler's indices with shuffle for every rank, seed, epoch and drop_last asked, so
that a Kindling rank reads the examples a PyTorch rank would.
"""
import json
import os
import sys

import torch
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

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=None)
print("wrote", OUT, len(cases), "cases")
