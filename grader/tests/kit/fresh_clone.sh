#!/usr/bin/env bash
# kit.fresh_clone: the README's first commands work on a brand-new `git clone`
# (no build/ folder, nothing made by hand). The clone is of the committed HEAD,
# which is what a newcomer gets.
#
#   fresh_clone.sh SOURCE_DIR
#
# It checks that the README's quick start still begins with ./grade and ./test,
# then runs in the clone: `./grade --list`, `./grade week01.view` (the worksheet's
# first task, which must report "not implemented" cleanly) and
# `./grade --tree solutions week01.view` (which must pass), and then
# student_loop.sh there (hints, the report, a broken task, watch mode). Exit 77 (skipped) when
# SOURCE_DIR is not a git checkout.
set -euo pipefail
src=${1:?usage: fresh_clone.sh SOURCE_DIR}
if ! git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
  echo "skipped: $src is not a git checkout"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kindling-fresh-clone.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "fresh_clone: FAILED: $*" >&2
  for f in "$tmp"/*.out; do
    # (without trailing blank rows: a tmux pane's capture ends in them)
    [ -f "$f" ] && { echo "---- ${f##*/} (last 40 lines)"; sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$f" | tail -n 40; }
  done >&2
  exit 1
}

git clone -q "$src" "$tmp/kindling"
cd "$tmp/kindling"
[ ! -e build ] || fail "a fresh clone already has build/"

# The quick start is the first ```sh block of the README: its commands, in order.
mapfile -t quick < <(awk '/^```sh$/ { on = 1; next } on && /^```/ { exit } on { sub(/ *#.*/, ""); if ($0 != "") print }' README.md)
[ "${quick[0]:-}" = "./grade" ] || fail "the README's first command is '${quick[0]:-}', not ./grade"
[ "${quick[1]:-}" = "./test" ] || fail "the README's second command is '${quick[1]:-}', not ./test"

run() {  # run NAME CMD...: runs CMD in the clone, its output in $tmp/NAME.out
  local name=$1
  shift
  echo "fresh_clone: \$ $*"
  local start=$SECONDS
  "$@" > "$tmp/$name.out" 2>&1 || fail "'$*' exited with status $?"
  echo "fresh_clone:   ok in $((SECONDS - start)) s"
}

run list ./grade --list
grep -q 'week01\.view' "$tmp/list.out" || fail "./grade --list does not list week01.view"
[ -d build ] || fail "./grade --list left no build/ folder"

run exercises ./grade week01.view --json "$tmp/exercises.json"
grep -Eq '"status": *"not_implemented"' "$tmp/exercises.json" ||
  fail "./grade week01.view on the untouched worksheet is not 'not_implemented'"

run solutions ./grade --tree solutions week01.view --json "$tmp/solutions.json"
grep -Eq '"status": *"passed"' "$tmp/solutions.json" || fail "./grade --tree solutions week01.view did not pass"
echo "fresh_clone: the README's commands work on a fresh clone"

# The rest of the student's loop in the same clone: hints, the report, a broken task, watch mode.
bash "$(dirname "$0")/student_loop.sh" "$tmp/kindling" "$tmp" || fail "the student's loop (student_loop.sh)"
