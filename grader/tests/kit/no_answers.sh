#!/usr/bin/env bash
# kit.no_answers: the worksheet's engine gives away no week-6 task. The reference engine's
# kernels do what the tasks ask (a tiled GEMM, block trees, warp shuffles, a two-pass softmax);
# their regions are marked REFERENCE ONLY in solutions/, and the generator puts a plainer form
# in exercises/. This checks the generated kernels for each task's telltale lines.
#
#   no_answers.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: no_answers.sh SOURCE_DIR}
kernels="$src/exercises/week06_cuda/src/kernels"
status=0
check() {  # check PATTERN TASK: no line of the worksheet's engine kernels matches
  local hits
  hits=$(grep -nE -- "$1" "$kernels"/*.cu | grep -v '/fixtures.cu:' || true)
  if [ -n "$hits" ]; then
    echo "no_answers: the worksheet's engine holds $2's algorithm:"
    echo "$hits"
    status=1
  fi
}
check 'half /= 2|half > 0' 'week06.block_reduce (a tree in shared memory)'
check 'delta /= 2|shuffle_down\(acc' 'week06.warp_reduce (a warp shuffle fold)'
check 'KINDLING_SHARED\([^)]*\]\[' 'week06.tiled_gemm (shared-memory tiles)'
for f in gemm.cu reduce.cu; do
  grep -q 'The reference engine does this as task' "$kernels/$f" ||
    { echo "no_answers: $f has no worksheet region: is it still generated from a REFERENCE ONLY region?"; status=1; }
done
[ "$status" -eq 0 ] && echo "no_answers: exercises/week06_cuda/src/kernels holds no task's algorithm"
exit "$status"
