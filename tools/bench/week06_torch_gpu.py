#!/usr/bin/python3
"""The week-6 GPU workloads (grader/bench/gpu/week06_device_bench.cpp) in PyTorch, on the same GPU,
for tools/gpu-bench.

Usage: PYTHON tools/bench/week06_torch_gpu.py
Prints JSON {name: {"seconds": mean seconds per run, ...}, "_config": {...}}. Device work is timed
with CUDA events (one warm-up, then the mean of repeated runs); host-side work (synchronous copies,
allocation, training epochs) with a wall clock around a synchronize. Matrix products run in full
fp32 (torch.backends.cuda.matmul.allow_tf32 = False, PyTorch's default), as cuBLAS does in the
Kindling program.
"""
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")


def on_device(fn, runs=20):
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(runs):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / 1e3 / runs


def wall(fn, runs):
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(runs):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / runs


def main():
    out = {}
    n = 4096
    a, b = torch.rand(n, n, device=dev), torch.rand(n, n, device=dev)
    s = on_device(lambda: torch.mm(a, b), 10)
    out["gemm_4096"] = {"seconds": s, "gflops": 2 * n ** 3 / s / 1e9}

    rows, cols = 16384, 4096
    x, y = torch.rand(rows, cols, device=dev), torch.rand(rows, cols, device=dev)
    z = torch.empty_like(x)
    f = 4.0
    e = rows * cols
    for name, fn, nbytes in [
        ("copy", lambda: z.copy_(x), 2 * f * e),
        ("add", lambda: x + y, 3 * f * e),
        ("sum_rows", lambda: x.sum(1), f * (e + rows)),
        ("softmax_rows", lambda: torch.softmax(x, 1), 2 * f * e),
    ]:
        s = on_device(fn)
        out[name] = {"seconds": s, "gbps": nbytes / s / 1e9}

    for nbytes in (200 * 1000, 64 << 20):
        for pinned in (False, True):
            host = torch.ones(nbytes // 4)
            if pinned:
                host = host.pin_memory()
            d = torch.empty(nbytes // 4, device=dev)
            runs = 200 if nbytes < 1 << 20 else 20
            s = wall(lambda: d.copy_(host, non_blocking=False), runs)
            out[f"h2d_{nbytes}_{'pinned' if pinned else 'pageable'}"] = {"seconds": s, "gbps": nbytes / s / 1e9}

    for nbytes in (4096, 4 << 20):
        def alloc_free():
            t = torch.empty(nbytes, dtype=torch.uint8, device=dev)
            del t
        out[f"alloc_free_cached_{nbytes}"] = {"seconds": wall(alloc_free, 10000)}

    def train(model, xs, ys, batch=64):
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

        def epoch():
            for start in range(0, xs.shape[0] - batch + 1, batch):
                opt.zero_grad()
                F.cross_entropy(model(xs[start:start + batch]), ys[start:start + batch]).backward()
                opt.step()
        return epoch

    torch.manual_seed(5)
    xs, ys = torch.rand(60000, 784, device=dev), torch.randint(0, 10, (60000,), device=dev)
    mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)).to(dev)
    out["mlp_epoch_60k"] = {"seconds": wall(train(mlp, xs, ys), 3)}
    torch.manual_seed(6)
    xs, ys = torch.rand(6400, 1, 28, 28, device=dev), torch.randint(0, 10, (6400,), device=dev)
    cnn = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(32 * 7 * 7, 10)).to(dev)
    out["cnn_epoch_6400"] = {"seconds": wall(train(cnn, xs, ys), 3)}

    out["_config"] = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                      "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
                      "allow_tf32": torch.backends.cuda.matmul.allow_tf32}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
