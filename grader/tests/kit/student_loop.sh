#!/usr/bin/env bash
# The student's loop, in a fresh clone that has already run ./grade once
# (fresh_clone.sh calls this): progressive hints, the HTML report, one broken
# task that costs only that task, and ./grade watch driven through tmux.
#
#   student_loop.sh CLONE_DIR OUT_DIR
set -euo pipefail
dir=${1:?usage: student_loop.sh CLONE_DIR OUT_DIR}
out=${2:?usage: student_loop.sh CLONE_DIR OUT_DIR}
cd "$dir"
export KINDLING_LANG=en  # the checks below read the English words, whatever this machine's locale
fail() {
  echo "student_loop: FAILED: $*" >&2
  for f in "$out"/loop-*.out; do
    # A tmux pane ends in blank rows: drop them, so that what the pane showed is what gets printed.
    [ -f "$f" ] && { echo "---- ${f##*/} (last 40 lines)"; sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$f" | tail -n 40; }
  done >&2
  exit 1
}
step() { echo "student_loop: $*"; }
status_of() {  # status_of TASK JSON: the task's status in the grader's JSON report
  awk -v id="\"id\": \"$1\"" 'index($0, id) { on = 1 } on && /"status":/ { gsub(/.*"status": "|".*/, ""); print; exit }' "$2"
}

# ---- progressive hints ----------------------------------------------------------------------------
./grade hint week01.view > "$out/loop-hint1.out" 2>&1 || fail "./grade hint week01.view exited with $?"
grep -q '^Hint 1 of 3: ' "$out/loop-hint1.out" || fail "the first ./grade hint did not show hint 1 of 3"
./grade hint week01.view > "$out/loop-hint2.out" 2>&1 || fail "the second ./grade hint exited with $?"
grep -q '^Hint 2 of 3: ' "$out/loop-hint2.out" || fail "the second ./grade hint did not show hint 2 of 3"
step "hints come one at a time"

# ---- the report of the earlier ./grade --------------------------------------------------------------
report=build/grade-exercises/report.html
[ -s "$report" ] || fail "./grade wrote no $report"
grep -q 'data-task="week01.view" data-status="not_implemented"' "$report" || fail "$report does not show week01.view"
step "./grade wrote $report"

# ---- one broken task file costs that task only --------------------------------------------------------
# infer_size: the reference code plus a loop on one line (GCC's -Wmisleading-indentation,
# which must stay a warning). view: a syntax error.
tasks=exercises/week01_tensors/src/tasks
cp solutions/week01_tensors/src/tasks/infer_size.cpp "$tasks/infer_size.cpp"
printf '\nnamespace {\n[[maybe_unused]] int one_line(int n) {\n  int s = 0;\n  for (int i = 0; i < n; ++i) s += i; s *= 2;\n  return s;\n}\n}  // namespace\n' >> "$tasks/infer_size.cpp"
printf '\nthis is not C++;\n' >> "$tasks/view.cpp"
./grade week01 --json "$out/loop-broken.json" > "$out/loop-broken.out" 2>&1 || fail "./grade week01 exited with $?"
[ "$(status_of week01.view "$out/loop-broken.json")" = build_error ] ||
  fail "week01.view (which does not compile) is not build_error"
grep -q 'exercises/week01_tensors/src/tasks/view.cpp:[0-9]*:[0-9]*: error:' "$out/loop-broken.json" ||
  fail "the build_error does not quote the compiler's error in view.cpp"
[ "$(status_of week01.infer_size "$out/loop-broken.json")" = passed ] ||
  fail "week01.infer_size (reference code with a warning) did not pass beside a broken task"
n=$(grep -c '"status": "build_error"' "$out/loop-broken.json")
[ "$n" -eq 1 ] || fail "$n tasks report build_error; only week01.view should"
git checkout -q -- "$tasks"
step "a task that does not compile costs that task only; warnings never fail the build"

# ---- ./grade watch, through tmux ---------------------------------------------------------------------
if ! command -v tmux > /dev/null; then
  step "tmux is not installed: watch mode not checked (./test installs it)"
  exit 0
fi
sock="kindling-test-$$"
tmux -L "$sock" kill-server 2> /dev/null || true
trap 'tmux -L "$sock" kill-server 2> /dev/null || true' EXIT
tmux -L "$sock" new-session -d -s watch -x 160 -y 50 \
  "cd '$dir' && ./grade watch week01.contiguous_strides week01.is_contiguous; echo WATCH-EXITED; sleep 600"
# Everything watch prints, in order (the pane shows only its last screen): for the failure report.
tmux -L "$sock" pipe-pane -t watch -o "cat >> '$out/loop-watch.out'"
wait_for() {  # wait_for SECONDS PATTERN: until the pane shows PATTERN
  local limit=$1 pattern=$2 i
  for ((i = 0; i < limit * 2; i++)); do
    tmux -L "$sock" capture-pane -p -t watch > "$out/loop-pane.out" 2>&1 || true
    grep -Eq -- "$pattern" "$out/loop-pane.out" && return 0
    sleep 0.5
  done
  return 1
}
wait_for 600 'task: +week01\.contiguous_strides' || fail "watch never showed the first task"
grep -q 'not_implemented' "$out/loop-pane.out" || fail "watch does not show the first task as not_implemented"
grep -Eq 'progress: 0/2 tasks' "$out/loop-pane.out" || fail "watch does not show the progress"
step "watch shows the first task, not implemented"
cp solutions/week01_tensors/src/tasks/contiguous_strides.cpp "$tasks/contiguous_strides.cpp"
wait_for 300 'task: +week01\.is_contiguous' || fail "saving a solved task did not move watch on to the next task"
grep -Eq 'progress: 1/2 tasks' "$out/loop-pane.out" || fail "watch's progress did not count the solved task"
step "saving the solved task re-graded it, and watch moved on"
tmux -L "$sock" send-keys -t watch h
wait_for 30 'Hint 1 of 3: ' || fail "pressing h showed no hint"
tmux -L "$sock" send-keys -t watch q
wait_for 30 'WATCH-EXITED' || fail "pressing q did not quit watch"
git checkout -q -- "$tasks"
step "h shows a hint, q quits"
