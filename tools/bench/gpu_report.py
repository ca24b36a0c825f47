#!/usr/bin/python3
"""tools/gpu-bench's report: Kindling's week-6 figures on a GPU (Google Benchmark JSON from
kindling_week06_device_bench) beside PyTorch's on the same device (week06_torch_gpu.py), each
against week 6's target (docs/performance.md, the GPU).

Usage: gpu_report.py KINDLING_JSON TORCH_JSON [RESULTS_JSON]
Prints the report; writes RESULTS_JSON (every figure and whether it meets its target) if given.
A benchmark that failed (no GPU, a CUDA error) is listed as not measured, with its message, and
the figures that need it are left out.
"""
import json
import sys

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def load(path):
    with open(path) as f:
        return json.load(f)


def key(name):
    """"BM_Axpy/min_time:0.300/manual_time" -> "BM_Axpy"; arguments stay ("BM_HostToDevice/200000/1")."""
    return "/".join(p for p in name.split("/") if ":" not in p and p not in ("real_time", "manual_time"))


class Report:
    def __init__(self, kindling, torch):
        runs = [b for b in kindling["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
        self.failed = {key(b["name"]): b.get("error_message", "failed") for b in runs if b.get("error_occurred")}
        self.bench = {key(b["name"]): b for b in runs if not b.get("error_occurred")}
        self.torch = torch
        self.rows = []

    def row(self, figure, value, target=None, met=None):
        self.rows.append({"figure": figure, "value": value, "target": target or "", "met": met})

    def seconds(self, name):
        b = self.bench[name]
        return b["real_time"] * UNIT[b["time_unit"]]

    def section(self, fill):
        """Runs one section; a figure it needs that was not measured leaves that section out."""
        try:
            fill()
        except (KeyError, ZeroDivisionError) as e:
            self.row("not measured", f"missing {e}")

    def gemm(self):
        for name, label in [("BM_GemmCublas", "cuBLAS (direct)"), ("BM_GemmEngineMatmul", "engine matmul (cuBLAS)"),
                            ("BM_GemmNaive", "naive (one thread per output)"), ("BM_GemmTiled", "tiled (week06.tiled_gemm)"),
                            ("BM_RegisterGemmVsCublas", "register-blocked (week06.register_gemm)")]:
            if name in self.failed:
                continue
            b = self.bench[name]
            frac = b["fraction_of_cublas"]
            target, met = {"BM_RegisterGemmVsCublas": (">= 0.50 of cuBLAS", frac >= 0.5),
                           "BM_GemmEngineMatmul": ("at cuBLAS speed (>= 0.95)", frac >= 0.95)}.get(name, (None, None))
            self.row(f"GEMM 4096^2 fp32, {label}", f"{b['gflops']:.0f} GFLOP/s = {frac:.2f} of cuBLAS", target, met)

    def torch_gemm(self):
        t = self.torch["gemm_4096"]
        cublas = self.bench["BM_GemmCublas"]["cublas_gflops"]
        self.row("GEMM 4096^2 fp32, PyTorch torch.mm",
                 f"{t['gflops']:.0f} GFLOP/s = {t['gflops'] / cublas:.2f} of Kindling's cuBLAS")

    def copy(self):
        self.row("device-to-device copy (bytes read + written)",
                 f"{self.bench['BM_CopyDeviceToDevice']['gbps']:.0f} GB/s; "
                 f"PyTorch copy_ {self.torch['copy']['gbps']:.0f}")

    def bandwidth(self):
        for name, label, tname in [("BM_Axpy", "axpy (week06.elementwise_kernel)", None),
                                   ("BM_EngineAdd", "engine x + y", "add"),
                                   ("BM_RowSumsShared", "row sums, shared memory (week06.block_reduce)", None),
                                   ("BM_RowSumsWarp", "row sums, warp shuffles (week06.warp_reduce)", None),
                                   ("BM_EngineSum", "engine x.sum(1)", "sum_rows"),
                                   ("BM_SoftmaxRows", "row softmax (week06.row_softmax)", None),
                                   ("BM_EngineSoftmax", "engine softmax(x, 1)", "softmax_rows")]:
            if name in self.failed:
                continue
            b = self.bench[name]
            extra = f"; PyTorch {self.torch[tname]['gbps']:.0f} GB/s" if tname else ""
            target, met = (None, None) if "softmax" in name.lower() else \
                (">= 0.80 of the copy", b["fraction_of_copy"] >= 0.8)
            self.row(f"{label}, 16384 x 4096 fp32",
                     f"{b['gbps']:.0f} GB/s = {b['fraction_of_copy']:.2f} of the copy{extra}", target, met)

    def host_to_device(self):
        for size, label, want in [(200000, "200 KB", 3), (64 << 20, "64 MiB", 5)]:
            page = self.bench[f"BM_HostToDevice/{size}/0"]["bytes_per_second"]
            pin = self.bench[f"BM_HostToDevice/{size}/1"]["bytes_per_second"]
            tp = self.torch[f"h2d_{size}_pageable"]["gbps"]
            tq = self.torch[f"h2d_{size}_pinned"]["gbps"]
            self.row(f"host to device {label}, cudaMemcpy",
                     f"pageable {page / 1e9:.1f} GB/s, pinned {pin / 1e9:.1f} GB/s = {pin / page:.1f}x; "
                     f"PyTorch {tp:.1f} / {tq:.1f} GB/s = {tq / tp:.1f}x", f">= {want}x", pin / page >= want)

    def tensor_to_cuda(self):
        pageable = self.bench["BM_TensorToCuda/0"]["bytes_per_second"]
        pinned = self.bench["BM_TensorToCuda/1"]["bytes_per_second"]
        self.row("engine x.to(cuda) 64 MiB", f"pageable {pageable / 1e9:.1f} GB/s, pinned non_blocking "
                 f"{pinned / 1e9:.1f} GB/s = {pinned / pageable:.1f}x")

    def allocation(self):
        for size, label in [(4096, "4 KiB"), (4 << 20, "4 MiB")]:
            cached, raw = self.seconds(f"BM_AllocFreeCached/{size}"), self.seconds(f"BM_AllocFreeRaw/{size}")
            tcached = self.torch[f"alloc_free_cached_{size}"]["seconds"]
            self.row(f"allocate + free {label}",
                     f"cached {cached * 1e6:.2f} us, cudaMalloc+cudaFree {raw * 1e6:.1f} us = {raw / cached:.0f}x; "
                     f"PyTorch's cache (torch.empty + del) {tcached * 1e6:.2f} us", ">= 50x", raw / cached >= 50)

    def epochs(self):
        for name, tname, label in [("BM_MlpEpoch60k", "mlp_epoch_60k", "MLP epoch, 60,000 examples"),
                                   ("BM_CnnEpoch6400", "cnn_epoch_6400", "CNN epoch, 6,400 examples")]:
            k, p = self.seconds(name), self.torch[tname]["seconds"]
            self.row(label, f"Kindling {k * 1e3:.0f} ms, PyTorch {p * 1e3:.0f} ms = {k / p:.2f}x PyTorch's time",
                     "<= 1.5x PyTorch", k / p <= 1.5)

    def feed(self):
        """Week 4's pipeline with the GPU in it: L and S alone, the rule ceil(L / S), and the epoch per
        num_workers (no target: the lecture compares the curve with the rule and with the cores)."""
        load = self.bench["BM_FeedLoad"]["ms_per_batch"]
        step = self.bench["BM_FeedStep"]["ms_per_batch"]
        rule = -(-load // step) if step > 0 else float("nan")
        self.row("feed: a batch of 32 images from disk, alone (L) / the GPU step alone (S)",
                 f"L {load:.2f} ms, S {step:.2f} ms: workers_to_feed(L, S) = {rule:.0f}")
        for n in (0, 1, 2, 4, 8, 12):
            b = self.bench[f"BM_FeedPipeline/{n}"]
            self.row(f"feed: epoch, disk to the GPU step, num_workers {n}", f"{b['ms_per_batch']:.2f} ms a batch")


def main():
    kindling, torch = load(sys.argv[1]), load(sys.argv[2])
    report = Report(kindling, torch)
    ctx, cfg = kindling.get("context", {}), torch.get("_config", {})
    print(f"device: {cfg.get('device', '?')}; PyTorch {cfg.get('torch', '?')} (CUDA {cfg.get('cuda', '?')}, "
          f"allow_tf32 {cfg.get('allow_tf32')}); host: {ctx.get('num_cpus', '?')} CPUs, {ctx.get('host_name', '')}")
    print()
    for name, why in sorted(report.failed.items()):
        report.row(f"{name}: not measured", why)
    for fill in [report.gemm, report.torch_gemm, report.copy, report.bandwidth, report.host_to_device,
                 report.tensor_to_cuda, report.allocation, report.epochs, report.feed]:
        report.section(fill)
    width = max(len(r["figure"]) for r in report.rows)
    for r in report.rows:
        mark = "" if r["met"] is None else ("  [met]" if r["met"] else "  [MISSED]")
        target = f"  (target {r['target']})" if r["target"] else ""
        print(f"{r['figure']:<{width}}  {r['value']}{target}{mark}")
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump({"rows": report.rows, "torch": torch, "kindling_context": ctx}, f, indent=1)


if __name__ == "__main__":
    main()
