#!/usr/bin/env python3
"""Thread counts for the PyTorch side of tools/bench-compare.

In a weekNN_torch.py script:

    from torch_threads import setup, config
    setup()                      # before anything is timed
    ...
    results["_config"] = config()

setup() takes the thread count from the script's first argument, else $KINDLING_BENCH_THREADS,
else $OMP_NUM_THREADS, else the cores this process may run on (what Kindling's OpenMP uses by
default), and sets it with torch.set_num_threads(N), torch.set_num_interop_threads(1) and, when
torch's BLAS is OpenBLAS, openblas_set_num_threads(N): torch.set_num_threads does not reach
OpenBLAS, which otherwise uses every core for torch.mm whatever torch's own count is.

As a command (no torch needed for "check"):

    torch_threads.py info                      JSON: torch version, interpreter, torch's default
                                               thread counts, BLAS, cores
    torch_threads.py coretype                  the OPENBLAS_CORETYPE to set before torch loads, or
                                               nothing (see openblas_coretype below)
    torch_threads.py check N TORCH_JSON [KINDLING_JSON]
                                               exits 1 with a message unless the PyTorch run's
                                               "_config" reports N threads (and N BLAS threads when
                                               known) and a Kindling run's "kindling_threads"
                                               counters, when present, are all N
"""
import json
import os
import re
import sys

_requested = None


def cores():
    """The processors this process may run on (what OpenMP and `nproc` count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _positive(value, source):
    try:
        n = int(str(value).split(",")[0])  # OMP_NUM_THREADS may be a per-level list: "4,2"
    except ValueError:
        n = 0
    if n < 1:
        sys.exit(f"torch_threads: {source} must be a positive thread count, not {value!r}")
    return n


def requested_threads(argv=None):
    argv = sys.argv if argv is None else argv
    if len(argv) > 1:
        return _positive(argv[1], "the first argument")
    for name in ("KINDLING_BENCH_THREADS", "OMP_NUM_THREADS"):
        if os.environ.get(name):
            return _positive(os.environ[name], name)
    return cores()


def _openblas():
    """The loaded OpenBLAS library (ctypes handle) and its path, or (None, None)."""
    import ctypes
    paths = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split()
                if len(fields) >= 6 and "openblas" in fields[-1].lower() and ".so" in fields[-1]:
                    if fields[-1] not in paths:
                        paths.append(fields[-1])
    except OSError:
        return None, None
    for path in sorted(paths, key=lambda p: "libopenblas" not in p):  # the real library first
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        if hasattr(lib, "openblas_get_num_threads"):
            return lib, path
    return None, None


def blas_info():
    """What torch says about its BLAS, and what is actually loaded (Debian's torch says "generic")."""
    import torch
    shown = torch.__config__.show()
    info = {"blas_info": None, "config_mentions_openblas": "openblas" in shown.lower(),
            "config_mentions_mkl": "BLAS_INFO=mkl" in shown or "Intel(R) oneAPI Math Kernel" in shown
            or "Intel(R) Math Kernel" in shown}
    match = re.search(r"BLAS_INFO=([^,\s]+)", shown)
    info["blas_info"] = match.group(1) if match else None
    torch.mm(torch.ones(8, 8), torch.ones(8, 8))  # some builds load their BLAS lazily
    lib, path = _openblas()
    if lib is not None:
        import ctypes
        info["openblas_library"] = path
        if hasattr(lib, "openblas_get_config"):
            lib.openblas_get_config.restype = ctypes.c_char_p
            info["openblas_config"] = lib.openblas_get_config().decode(errors="replace").strip()
        info["openblas_threads"] = lib.openblas_get_num_threads()
        if hasattr(lib, "openblas_get_corename"):
            lib.openblas_get_corename.restype = ctypes.c_char_p
            info["openblas_core"] = lib.openblas_get_corename().decode(errors="replace").strip()
        info["openblas_coretype_env"] = os.environ.get("OPENBLAS_CORETYPE")
    if lib is not None:
        info["summary"] = f"OpenBLAS ({info.get('openblas_config', path)})"
        if info["openblas_coretype_env"]:
            info["summary"] += f", OPENBLAS_CORETYPE={info['openblas_coretype_env']}"
    elif info["config_mentions_mkl"]:
        info["summary"] = "MKL"
    else:
        info["summary"] = info["blas_info"] or "unknown"
    info["summary"] += (f"; torch.__config__.show() BLAS_INFO={info['blas_info']}, "
                        f"mentions OpenBLAS: {'yes' if info['config_mentions_openblas'] else 'no'}")
    return info


# OpenBLAS's kernel sets (DYNAMIC_ARCH core names) for x86-64, by the vector instructions they
# use: a core of a lower rank than the CPU's flags allow is a fallback.
_CORE_RANK = {"prescott": 0, "core2": 0, "penryn": 0, "dunnington": 0, "nehalem": 0, "atom": 0,
              "opteron": 0, "opteron_sse3": 0, "barcelona": 0, "bobcat": 0, "sandybridge": 1,
              "bulldozer": 1, "piledriver": 1, "steamroller": 1, "excavator": 2, "haswell": 2,
              "zen": 2, "skylakex": 3, "cooperlake": 4, "sapphirerapids": 5}


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def openblas_coretype(core, flags):
    """The OPENBLAS_CORETYPE for a CPU with these /proc/cpuinfo flags when OpenBLAS chose `core`,
    a set of lower rank than the flags allow, else None. An OpenBLAS older than the CPU falls back
    to its SSE3 "Prescott" kernels: Debian 12's 0.3.21 does so on a Xeon of family 6, model 207,
    where a 1024^2 torch.mm at 1 thread ran at 30-37 GFLOP/s, and at 144-220 with its AVX-512
    kernels. Comparing with such a PyTorch would flatter Kindling, whose build uses the CPU's
    widest vectors."""
    if not core or core.lower() not in _CORE_RANK:
        return None  # not x86-64, or a core this table does not know: leave OpenBLAS's choice
    if {"avx512f", "avx512dq", "avx512vl", "avx512bw"} <= flags:
        best = "Cooperlake" if "avx512_bf16" in flags else "SkylakeX"
    elif {"avx2", "fma"} <= flags:
        best = "Haswell"
    elif "avx" in flags:
        best = "Sandybridge"
    else:
        return None
    return best if _CORE_RANK[core.lower()] < _CORE_RANK[best.lower()] else None


def setup(argv=None):
    """Sets torch's thread counts to the requested N (see the module doc); returns N."""
    global _requested
    import torch
    n = requested_threads(argv)
    torch.set_num_threads(n)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set, or inter-op work already started
        pass
    lib, _ = _openblas()
    if lib is not None and hasattr(lib, "openblas_set_num_threads"):
        lib.openblas_set_num_threads(n)
    if torch.get_num_threads() != n:
        sys.exit(f"torch_threads: asked torch for {n} threads, torch.get_num_threads() says {torch.get_num_threads()}")
    _requested = n
    return n


def config():
    """The "_config" entry of a torch script's results."""
    import torch
    lib, _ = _openblas()
    return {"torch": torch.__version__, "python": sys.executable, "requested_threads": _requested,
            "threads": torch.get_num_threads(), "interop_threads": torch.get_num_interop_threads(),
            "blas_threads": lib.openblas_get_num_threads() if lib is not None else None}


def info():
    """Torch's defaults, before setup() changes anything."""
    import torch
    return {"torch": torch.__version__, "python": sys.executable,
            "python_version": sys.version.split()[0], "default_threads": torch.get_num_threads(),
            "default_interop_threads": torch.get_num_interop_threads(), "cores": cores(),
            "cuda": bool(torch.cuda.is_available()) if hasattr(torch, "cuda") else False,
            "blas": blas_info()}


def check(n, torch_json, kindling_json=None):
    """Problems (strings) if a run did not use n threads on both sides."""
    problems = []
    with open(torch_json) as f:
        cfg = json.load(f).get("_config", {})
    if cfg.get("threads") != n:
        problems.append(f"PyTorch ran with torch.get_num_threads() = {cfg.get('threads')}, not {n} ({torch_json})")
    if cfg.get("blas_threads") not in (None, n):
        problems.append(f"PyTorch's OpenBLAS ran with {cfg['blas_threads']} threads, not {n} ({torch_json})")
    if kindling_json:
        with open(kindling_json) as f:
            # stddev and cv aggregates carry the counter's spread (0), not its value
            reported = {b["kindling_threads"] for b in json.load(f)["benchmarks"]
                        if "kindling_threads" in b and b.get("aggregate_name", "median") in ("mean", "median")}
        bad = sorted(int(round(t)) for t in reported if int(round(t)) != n)
        if bad:
            problems.append(f"Kindling reported kindling_threads = {bad[0]} with OMP_NUM_THREADS={n} "
                            f"({kindling_json}); a build without OpenMP always reports 1")
    return problems


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "info":
        json.dump(info(), sys.stdout, indent=1)
        print()
    elif len(sys.argv) == 2 and sys.argv[1] == "coretype":
        core = blas_info().get("openblas_core")
        suggested = openblas_coretype(core, _cpu_flags()) if not os.environ.get("OPENBLAS_CORETYPE") else None
        if suggested:
            print(suggested)
            print(f"torch_threads: OpenBLAS chose its {core} kernels on this CPU, whose flags allow "
                  f"{suggested}", file=sys.stderr)
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "check":
        problems = check(_positive(sys.argv[2], "N"), *sys.argv[3:])
        for p in problems:
            print(f"bench-compare: thread counts differ: {p}", file=sys.stderr)
        sys.exit(1 if problems else 0)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
