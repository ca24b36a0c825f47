#!/usr/bin/python3
"""tools/gpu-bench's report: Kindling's week-6 figures on a GPU (Google Benchmark JSON from
kindling_week06_device_bench) beside PyTorch's on the same device (week06_torch_gpu.py), each
against issue 31's target.

Usage: gpu_report.py KINDLING_JSON TORCH_JSON [RESULTS_JSON]
Prints the report; writes RESULTS_JSON (every figure and whether it meets its target) if given.
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    kin = load(sys.argv[1])
    torch = load(sys.argv[2])
    def key(name):  # "BM_Axpy/min_time:0.300/manual_time" -> "BM_Axpy"; arguments stay
        return "/".join(p for p in name.split("/") if ":" not in p and p not in ("real_time", "manual_time"))

    bench = {key(b["name"]): b for b in kin["benchmarks"] if b.get("run_type", "iteration") == "iteration"}
    failed = {k: b.get("error_message", "failed") for k, b in bench.items() if b.get("error_occurred")}
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}

    def seconds(name):
        b = bench[name]
        return b["real_time"] * unit[b["time_unit"]]

    rows = []  # (figure, value text, target text, met or None)

    def row(what, value, target=None, met=None):
        rows.append({"figure": what, "value": value, "target": target or "", "met": met})

    ctx = kin.get("context", {})
    cfg = torch.get("_config", {})
    print(f"device: {cfg.get('device', '?')}; PyTorch {cfg.get('torch', '?')} (CUDA {cfg.get('cuda', '?')}, "
          f"allow_tf32 {cfg.get('allow_tf32')}); host: {ctx.get('num_cpus', '?')} CPUs, {ctx.get('host_name', '')}")
    print()
    for name, why in sorted(failed.items()):
        row(f"{name}: not measured", why)
    try:
        cub = bench["BM_GemmCublas"]
    except (KeyError, NameError, ZeroDivisionError) as e:  # a benchmark that failed has no counters
        row("not measured", f"missing {e}")
    try:
        for name, label in [("BM_GemmCublas", "cuBLAS (direct)"), ("BM_GemmEngineMatmul", "engine matmul (cuBLAS)"),
                            ("BM_GemmNaive", "naive (one thread per output)"), ("BM_GemmTiled", "tiled (week06.tiled_gemm)"),
                            ("BM_RegisterGemmVsCublas", "register-blocked (week06.register_gemm)")]:
            b = bench[name]
            if name in failed:
                continue
            frac = b["fraction_of_cublas"]
            target, met = None, None
            if name == "BM_RegisterGemmVsCublas":
                target, met = ">= 0.50 of cuBLAS", frac >= 0.5
            if name == "BM_GemmEngineMatmul":
                target, met = "at cuBLAS speed (>= 0.95)", frac >= 0.95
            row(f"GEMM 4096^2 fp32, {label}", f"{b['gflops']:.0f} GFLOP/s = {frac:.2f} of cuBLAS", target, met)
    except (KeyError, NameError, ZeroDivisionError) as e:  # a benchmark that failed has no counters
        row("not measured", f"missing {e}")
    try:
        t = torch["gemm_4096"]
        row("GEMM 4096^2 fp32, PyTorch torch.mm", f"{t['gflops']:.0f} GFLOP/s = {t['gflops'] / cub['cublas_gflops']:.2f} "
            "of Kindling's cuBLAS")
    except (KeyError, NameError, ZeroDivisionError) as e:  # a benchmark that failed has no counters
        row("not measured", f"missing {e}")
    try:
        copy = bench["BM_CopyDeviceToDevice"]
        row("device-to-device copy (bytes read + written)", f"{copy['gbps']:.0f} GB/s; PyTorch copy_ {torch['copy']['gbps']:.0f}")
    except (KeyError, NameError, ZeroDivisionError) as e:  # a benchmark that failed has no counters
        row("not measured", f"missing {e}")
    try:
        for name, label, tname in [("BM_Axpy", "axpy (week06.elementwise_kernel)", None),
                                   ("BM_EngineAdd", "engine x + y", "add"),
                                   ("BM_RowSumsShared", "row sums, shared memory (week06.block_reduce)", None),
                                   ("BM_RowSumsWarp", "row sums, warp shuffles (week06.warp_reduce)", None),
                                   ("BM_EngineSum", "engine x.sum(1)", "sum_rows"),
                                   ("BM_SoftmaxRows", "row softmax (week06.row_softmax)", None),
                                   ("BM_EngineSoftmax", "engine softmax(x, 1)", "softmax_rows")]:
            b = bench[name]
            if name in failed:
                continue
            extra = f"; PyTorch {torch[tname]['gbps']:.0f} GB/s" if tname else ""
            target, met = (">= 0.80 of the copy", b["fraction_of_copy"] >= 0.8) if "softmax" not in name.lower() else (None, None)
            row(f"{label}, 16384 x 4096 fp32", f"{b['gbps']:.0f} GB/s = {b['fraction_of_copy']:.2f} of the copy{extra}",
                target, met)
    except (KeyError, NameError, ZeroDivisionError) as e:  # a benchmark that failed has no counters
        row("not measured", f"missing {e}")
    try:
        for size, label in [(200000, "200 KB"), (64 << 20, "64 MiB")]:
            page = bench[f"BM_HostToDevice/{size}/0"]["bytes_per_second"]
            pin = bench[f"BM_HostToDevice/{size}/1"]["bytes_per_second"]
            tp = torch[f"h2d_{size}_pageable"]["gbps"]
            tq = torch[f"h2d_{size}_pinned"]["gbps"]
            want = 3 if size == 200000 else 5
            row(f"host to device {label}, cudaMemcpy", f"pageable {page / 1e9:.1f} GB/s, pinned {pin / 1e9:.1f} GB/s "
                f"= {pin / page:.1f}x; PyTorch {tp:.1f} / {tq:.1f} GB/s = {tq / tp:.1f}x", f">= {want}x", pin / page >= want)
    except (KeyError, NameError, ZeroDivisionError) as e:  # a benchmark that failed has no counters
        row("not measured", f"missing {e}")
    try:
        tc0, tc1 = bench.get("BM_TensorToCuda/0"), bench.get("BM_TensorToCuda/1")
    except (KeyError, NameError, ZeroDivisionError) as e:  # a benchmark that failed has no counters
        row("not measured", f"missing {e}")
    try:
        if tc0 and tc1:
            row("engine x.to(cuda) 64 MiB", f"pageable {tc0['bytes_per_second'] / 1e9:.1f} GB/s, pinned non_blocking "
                f"{tc1['bytes_per_second'] / 1e9:.1f} GB/s = {tc1['bytes_per_second'] / tc0['bytes_per_second']:.1f}x")
    except (KeyError, NameError, ZeroDivisionError) as e:  # a benchmark that failed has no counters
        row("not measured", f"missing {e}")
    try:
        for size, label in [(4096, "4 KiB"), (4 << 20, "4 MiB")]:
            cached, raw = seconds(f"BM_AllocFreeCached/{size}"), seconds(f"BM_AllocFreeRaw/{size}")
            tcached = torch[f"alloc_free_cached_{size}"]["seconds"]
            row(f"allocate + free {label}", f"cached {cached * 1e6:.2f} us, cudaMalloc+cudaFree {raw * 1e6:.1f} us = "
                f"{raw / cached:.0f}x; PyTorch's cache (torch.empty + del) {tcached * 1e6:.2f} us", ">= 50x", raw / cached >= 50)
    except (KeyError, NameError, ZeroDivisionError) as e:  # a benchmark that failed has no counters
        row("not measured", f"missing {e}")
    try:
        for name, tname, label in [("BM_MlpEpoch60k", "mlp_epoch_60k", "MLP epoch, 60,000 examples"),
                                   ("BM_CnnEpoch6400", "cnn_epoch_6400", "CNN epoch, 6,400 examples")]:
            k, p = seconds(name), torch[tname]["seconds"]
            row(label, f"Kindling {k * 1e3:.0f} ms, PyTorch {p * 1e3:.0f} ms = {k / p:.2f}x PyTorch's time",
                "<= 1.5x PyTorch", k / p <= 1.5)
    except (KeyError, NameError, ZeroDivisionError) as e:  # a benchmark that failed has no counters
        row("not measured", f"missing {e}")
    width = max(len(r["figure"]) for r in rows)
    for r in rows:
        mark = "" if r["met"] is None else ("  [met]" if r["met"] else "  [MISSED]")
        tgt = f"  (target {r['target']})" if r["target"] else ""
        print(f"{r['figure']:<{width}}  {r['value']}{tgt}{mark}")
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump({"rows": rows, "torch": torch, "kindling_context": ctx}, f, indent=1)


if __name__ == "__main__":
    main()
