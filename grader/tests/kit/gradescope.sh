#!/usr/bin/env bash
# kit.gradescope: `./grade package gradescope` builds a zip that follows Gradescope's
# autograder specification, and its run_autograder grades four submissions correctly
# in a simulated /autograder (KINDLING_AUTOGRADER_ROOT):
#   1. the reference task files (flat, with a stray file): full score, the stray file ignored;
#   2. nothing: zero, every task listed as not implemented;
#   3. the reference with one task that segfaults and one that hangs: partial score,
#      results.json still written;
#   4. the stubs with one task that does not compile: zero, the compiler's message shown;
# then a package with hidden tests, and week 6 (its .cu kernel files, needs_gpu, a kernel that
# does not compile) on the simulator.
#
#   gradescope.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: gradescope.sh SOURCE_DIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kindling-gradescope.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "gradescope: FAILED: $*" >&2
  for f in "$tmp"/autograder/results/grade.log "$tmp"/*.out; do
    [ -f "$f" ] && { echo "---- ${f##*/} (last 40 lines)"; tail -n 40 "$f"; }
  done >&2
  exit 1
}
week=week01
folder=week01_tensors
timeout=15

# The package.
"$src/grade" package gradescope --weeks "$week" --timeout "$timeout" -o "$tmp/autograder.zip" > "$tmp/package.out" 2>&1 ||
  fail "packaging"
listing=$(unzip -Z1 "$tmp/autograder.zip")
for f in setup.sh run_autograder autograder.conf grade grader/tasks.json "exercises/$folder/src/tasks/view.cpp"; do
  grep -qx "$f" <<< "$listing" || fail "the zip has no $f at its root"
done
! grep -q '^build/' <<< "$listing" || fail "the zip holds a build folder"
[ -x "$(command -v unzip)" ] || fail "unzip missing"

root=$tmp/autograder
mkdir -p "$root/source" "$root/submission" "$root/results"
unzip -q "$tmp/autograder.zip" -d "$root/source"
[ -x "$root/source/run_autograder" ] || fail "run_autograder is not executable in the zip"
KINDLING_AUTOGRADER_ROOT=$root bash "$root/source/setup.sh" > "$tmp/setup.out" 2>&1 || fail "setup.sh"

# The week's tasks and points, from the manifest.
max=$(python3 -c "import json,sys; print(sum(t['points'] for t in json.load(open(sys.argv[1]))['tasks'] if t['id'].startswith(sys.argv[2] + '.')))" \
  "$src/grader/tasks.json" "$week")
count=$(python3 -c "import json,sys; print(sum(1 for t in json.load(open(sys.argv[1]))['tasks'] if t['id'].startswith(sys.argv[2] + '.')))" \
  "$src/grader/tasks.json" "$week")

submit() {  # submit NAME: runs the autograder on what is in $root/submission
  rm -f "$root/results/results.json"
  (cd "$root" && KINDLING_AUTOGRADER_ROOT=$root "$root/source/run_autograder") > "$tmp/$1.out" 2>&1 ||
    fail "$1: run_autograder exited non-zero"
  [ -s "$root/results/results.json" ] || fail "$1: no results.json"
  cp "$root/results/results.json" "$tmp/$1.json"
}
check() {  # check NAME PYTHON-EXPRESSION MESSAGE: the expression over r (results.json) must be true
  python3 - "$tmp/$1.json" "$2" <<'PY' || fail "$1: $3"
import json, sys
r = json.load(open(sys.argv[1]))
tests = {t["number"]: t for t in r["tests"]}
ok = eval(sys.argv[2])
if not ok:
    print(json.dumps(r, indent=1)[:3000], file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
clear_submission() { rm -rf "$root/submission" && mkdir -p "$root/submission"; }

# 1. The reference files, flat, and a file that is not a task.
clear_submission
cp "$src/solutions/$folder/src/tasks/"*.cpp "$root/submission/"
echo "my notes" > "$root/submission/notes.txt"
submit reference
check reference "r['score'] == $max and len(r['tests']) == $count" "the reference files did not get $max points"
check reference "all(t['status'] == 'passed' and t['visibility'] == 'visible' for t in r['tests'])" "a test is not passed/visible"
check reference "'ignored notes.txt' in r['output'] and 'took    view.cpp' in r['output']" "the file list is not in the output"

# 2. Nothing submitted.
clear_submission
submit empty
check empty "r['score'] == 0 and len(r['tests']) == $count" "an empty submission did not get 0 with every task listed"
check empty "all('not_implemented' in t['output'] for t in r['tests'])" "a task is not reported as not implemented"

# 3. A segfault in one task, a hang in another, the rest from the reference.
clear_submission
mkdir -p "$root/submission/$folder/src/tasks"
cp "$src/solutions/$folder/src/tasks/"*.cpp "$root/submission/$folder/src/tasks/"
sed -i 's|// BEGIN SOLUTION week01.expand|&\n  { volatile int* crash = nullptr; *crash = 1; }|' "$root/submission/$folder/src/tasks/expand.cpp"
sed -i 's|// BEGIN SOLUTION week01.squeeze|&\n  for (volatile int spin = 0;; spin = spin + 1) {}|' "$root/submission/$folder/src/tasks/squeeze.cpp"
submit broken
check broken "tests['week01.expand']['score'] == 0 and 'crashed' in tests['week01.expand']['output']" \
  "the segfault is not reported as a crash"
check broken "tests['week01.squeeze']['score'] == 0 and 'timed_out' in tests['week01.squeeze']['output']" \
  "the hang is not reported as a time-out"
check broken "0 < r['score'] < $max and r['score'] == sum(t['score'] for t in r['tests'] if t['status'] == 'passed')" \
  "the score is not the sum of the passed tasks, strictly between 0 and $max"
check broken "tests['week01.view']['status'] == 'passed' and tests['week01.transpose']['status'] == 'passed'" \
  "tasks whose tests reach neither the crash nor the hang did not pass"

# 4. The stubs, with one task file that does not compile.
clear_submission
cp "$src/exercises/$folder/src/tasks/squeeze.cpp" "$root/submission/"
echo "this is not C++;" >> "$root/submission/squeeze.cpp"
submit uncompilable
check uncompilable "r['score'] == 0 and len(r['tests']) == $count" "an uncompilable submission did not get 0 with every task listed"
check uncompilable "'error' in tests['week01.squeeze']['output'] and 'squeeze.cpp' in tests['week01.squeeze']['output']" \
  "the compiler's message is not in the output"

# 5. Hidden tests: a package with the instructor's private test, which the reference
#    fails on purpose, so that its message proves it ran (and counted) there.
mkdir -p "$tmp/hidden/week01"
cat > "$tmp/hidden/week01/private_test.cpp" <<'CPP'
#include <gtest/gtest.h>
TEST(week01_squeeze, HiddenFromStudents) { FAIL() << "the instructor's hidden test ran"; }
CPP
"$src/grade" package gradescope --weeks "$week" --timeout "$timeout" --hidden "$tmp/hidden" -o "$tmp/hidden.zip" \
  > "$tmp/package-hidden.out" 2>&1 || fail "packaging with --hidden"
# A here-string, not `unzip | grep -q`: grep exits at its first match, unzip then dies of
# SIGPIPE on its next write, and pipefail fails the check (1 run in 7 here).
grep -qx "grader/tests/week01/hidden_private_test.cpp" <<< "$(unzip -Z1 "$tmp/hidden.zip")" ||
  fail "the hidden test is not in the zip"
[ ! -e "$src/grader/tests/week01/hidden_private_test.cpp" ] || fail "the hidden test leaked into the kit"
rm -rf "$root/source" && mkdir -p "$root/source" && unzip -q "$tmp/hidden.zip" -d "$root/source"
clear_submission
cp "$src/solutions/$folder/src/tasks/"*.cpp "$root/submission/"
submit hidden
check hidden "tests['week01.squeeze']['score'] == 0 and \"hidden test ran\" in tests['week01.squeeze']['output']" \
  "the hidden test did not count"
check hidden "r['score'] == $max - tests['week01.squeeze']['max_score']" "the hidden test changed other tasks"

# 6. Week 6 on the simulator: the reference's .cpp and .cu task files get every point that does
#    not need a GPU, and week06.register_gemm's performance points show as needs_gpu (neither lost
#    nor counted); then a kernel file that does not compile costs its own task only.
"$src/grade" package gradescope --weeks week06 --timeout 60 -o "$tmp/week06.zip" > "$tmp/package-week06.out" 2>&1 ||
  fail "packaging week06"
grep -qx "exercises/week06_cuda/src/tasks/block_reduce.cu" <<< "$(unzip -Z1 "$tmp/week06.zip")" ||
  fail "the week06 zip has no block_reduce.cu"
rm -rf "$root/source" && mkdir -p "$root/source" && unzip -q "$tmp/week06.zip" -d "$root/source"
max6=$(python3 -c "import json,sys; print(sum(t['points'] for t in json.load(open(sys.argv[1]))['tasks'] if t['id'].startswith('week06.')))" \
  "$src/grader/tasks.json")
clear_submission
cp "$src/solutions/week06_cuda/src/tasks/"*.cpp "$src/solutions/week06_cuda/src/tasks/"*.cu "$root/submission/"
submit week06
check week06 "r['score'] == $max6 and all(t['status'] == 'passed' for t in r['tests'])" \
  "the week-6 reference did not get $max6 points on the simulator"
check week06 "'took    block_reduce.cu' in r['output'] and 'CUDA tasks ran on: simulator' in open('$tmp/week06.out').read()" \
  "the .cu files were not taken, or the run does not say where the kernels ran"
check week06 "tests['week06.register_gemm']['extra_data']['perf_status'] == 'needs_gpu' and \
  tests['week06.register_gemm']['max_score'] == tests['week06.register_gemm']['score'] and \
  'needs_gpu' in tests['week06.register_gemm']['output']" "register_gemm's GPU points are not needs_gpu"
echo "this is not CUDA;" >> "$root/submission/warp_reduce.cu"
submit week06_broken
check week06_broken "tests['week06.warp_reduce']['score'] == 0 and 'warp_reduce.cu' in tests['week06.warp_reduce']['output']" \
  "the kernel that does not compile is not reported with its file"
check week06_broken "r['score'] == $max6 - tests['week06.warp_reduce']['max_score']" \
  "a kernel that does not compile cost other tasks"

echo "gradescope: the zip, four submissions, a hidden test and week 6 behave (max $max points over $count tasks)"
