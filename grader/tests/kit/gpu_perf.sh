#!/usr/bin/env bash
# kit.gpu_perf_points: week06.register_gemm's performance points on a machine that has a GPU.
# The tests run on the simulator; where a GPU is present (KINDLING_GPU=1 says so here) the grader
# runs the GPU build's benchmark, kindling_week06_device_bench, for them. On this machine:
#   - with a GPU and the benchmark built: the points are measured (perf_status "measured");
#   - otherwise (no nvcc, or nvcc and no device, as on CI): they stay needs_gpu, with the reason
#     naming the GPU benchmark, never lost;
#   - with KINDLING_GPU=0: plain needs_gpu, the GPU benchmark not tried.
#
#   gpu_perf.sh BUILD_DIR [GRADER_OPTION...]   (--memory-mb 0 under a sanitizer, as CMake passes it)
set -euo pipefail
build=${1:?usage: gpu_perf.sh BUILD_DIR [GRADER_OPTION...]}
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kindling-gpu-perf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
grade() {
  KINDLING_GPU=$1 "$build/grader/kindling-grade" --build-dir "$build" --tree solutions --no-build --no-color \
    "${@:2}" --json "$tmp/$1.json" week06.register_gemm > "$tmp/$1.out" 2>&1 || { cat "$tmp/$1.out"; exit 1; }
}
field() { python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['tasks'][0]; print(t[sys.argv[2]])" "$tmp/$1.json" "$2"; }
fail() { echo "gpu_perf: FAILED: $*" >&2; cat "$tmp"/*.out >&2; exit 1; }

grade 0 "$@"
[ "$(field 0 perf_status)" = needs_gpu ] || fail "KINDLING_GPU=0: perf_status $(field 0 perf_status)"
case "$(field 0 perf_message)" in *device_bench*) fail "KINDLING_GPU=0 tried the GPU benchmark" ;; esac

grade 1 "$@"
status=$(field 1 perf_status)
message=$(field 1 perf_message)
if [ -n "$(ls -A /proc/driver/nvidia/gpus 2> /dev/null)" ] && [ -x "$build/grader/kindling_week06_device_bench" ]; then
  [ "$status" = measured ] || fail "a GPU is present, but the points were not measured: $message"
  echo "gpu_perf: measured on this machine's GPU: $message"
else
  [ "$status" = needs_gpu ] || fail "no GPU here, but perf_status is $status: $message"
  case "$message" in *kindling_week06_device_bench*) ;; *) fail "the reason does not name the GPU benchmark: $message" ;; esac
  echo "gpu_perf: no GPU here; the points stay needs_gpu: $message"
fi
