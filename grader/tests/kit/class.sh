#!/usr/bin/env bash
# kit.class: `./grade class` grades a class of four submissions of week 1, two at a time:
#   alice  a folder with the reference task files in their week folder: full score;
#   bob    a zip of the reference with a segfault in one task: that task lost, the rest kept;
#   carol  a git checkout with every reference file but squeeze.cpp: squeeze (and what needs it) lost;
#          she also changed a test, which integrity.csv reports, with the code the three share;
#   mallory a zip that tries to write outside its folder (../): refused, nothing unpacked.
# It checks the CSV gradebook and the HTML reports, that a second run grades nobody again,
# and that changing one student's file re-grades that student only.
#
#   class.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: class.sh SOURCE_DIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kindling-class.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "class: FAILED: $*" >&2
  for f in "$tmp"/*.out "$tmp"/out/work/*/grade.log; do
    [ -f "$f" ] && { echo "---- ${f#"$tmp"/} (last 30 lines)"; tail -n 30 "$f"; }
  done >&2
  exit 1
}
folder=week01_tensors
subs=$tmp/submissions
mkdir -p "$subs/alice/$folder/src/tasks" "$tmp/bob/$folder/src/tasks" "$subs/carol"
cp "$src/solutions/$folder/src/tasks/"*.cpp "$subs/alice/$folder/src/tasks/"
cp "$src/solutions/$folder/src/tasks/"*.cpp "$tmp/bob/$folder/src/tasks/"
sed -i 's|// BEGIN SOLUTION week01.expand|&\n  { volatile int* crash = nullptr; *crash = 1; }|' "$tmp/bob/$folder/src/tasks/expand.cpp"
(cd "$tmp/bob" && zip -qr "$subs/bob.zip" .)
cp "$src/solutions/$folder/src/tasks/"*.cpp "$subs/carol/"
rm "$subs/carol/squeeze.cpp"
mkdir -p "$subs/carol/grader/tests/week01"  # and a kit file she may not edit, changed
sed 's/EXPECT_EQ/EXPECT_NE/' "$src/grader/tests/week01/view_test.cpp" > "$subs/carol/grader/tests/week01/view_test.cpp"
git -C "$subs/carol" init -q && git -C "$subs/carol" add . &&
  git -C "$subs/carol" -c user.name=carol -c user.email=carol@example.com commit -qm work
mkdir -p "$tmp/mallory/x"
echo "int evil;" > "$tmp/mallory/evil.cpp"
(cd "$tmp/mallory/x" && zip -q "$subs/mallory.zip" ../evil.cpp)

run() {  # run NAME: grades the class, output in $tmp/NAME.out
  "$src/grade" class "$subs" --weeks week01 --jobs 2 --timeout 15 --out "$tmp/out" > "$tmp/$1.out" 2>&1 ||
    fail "$1: ./grade class exited non-zero"
}
row() {  # row STUDENT COLUMN: one cell of the gradebook
  python3 -c "import csv,sys; print(next(r[sys.argv[3]] for r in csv.DictReader(open(sys.argv[1])) if r['student'] == sys.argv[2]))" \
    "$tmp/out/gradebook.csv" "$1" "$2"
}
points() { python3 -c "import json,sys; print([t['points'] for t in json.load(open(sys.argv[1]))['tasks'] if t['id'] == sys.argv[2]][0])" "$src/grader/tasks.json" "$1"; }

run first
grep -q "no network (unshare" "$tmp/first.out" || grep -q "NETWORK NOT ISOLATED" "$tmp/first.out" || fail "the summary does not say whether the network is isolated"
same() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) == float(sys.argv[2]) else 1)" "$1" "$2"; }
[ "$(row alice status)" = graded ] || fail "alice was not graded"
same "$(row alice total)" "$(row alice max)" || fail "alice did not get full marks"
[ "$(row bob week01.expand)" = 0.0 ] || fail "bob's crashing task scored"
python3 -c "import sys; sys.exit(0 if 0 < float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$(row bob total)" "$(row bob max)" ||
  fail "bob did not keep the tasks the crash does not reach"
[ "$(row carol week01.squeeze)" = 0.0 ] || fail "carol's missing file scored"
same "$(row carol week01.view)" "$(points week01.view)" || fail "carol lost a task that does not need squeeze"
python3 -c "import sys; sys.exit(0 if 0 < float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$(row carol total)" "$(row carol max)" ||
  fail "carol's total is not strictly between 0 and the maximum"
[ "$(row mallory status)" = refused ] || fail "mallory's zip was not refused"
grep -q "unsafe path" <<< "$(row mallory note)" || fail "mallory's refusal does not say why"
for f in "$tmp/evil.cpp" "$tmp/out/work/evil.cpp" "$tmp/out/work/mallory/autograder/evil.cpp"; do
  [ ! -e "$f" ] || fail "mallory's zip wrote $f"
done
for s in alice bob carol; do [ -s "$tmp/out/reports/$s.html" ] || fail "no HTML report for $s"; done
# Integrity: all three hand in the reference view.cpp, alice and carol the same expand.cpp
# (bob's crashes); carol changed a test.
grep -q '^identical_code,alice bob carol,view.cpp,' "$tmp/out/integrity.csv" || fail "identical code was not reported"
grep -q '^identical_code,alice carol,expand.cpp,' "$tmp/out/integrity.csv" || fail "bob's changed expand.cpp was grouped"
grep -q '^edited_kit_file,carol,grader/tests/week01/view_test.cpp,' "$tmp/out/integrity.csv" ||
  fail "carol's changed test was not reported"
grep -q '^identical_code,alice bob,squeeze.cpp,' "$tmp/out/integrity.csv" || fail "squeeze.cpp (not carol's) was misgrouped"

run second
grep -q "0 graded, 3 unchanged" "$tmp/second.out" || fail "a second run graded someone again"

rm "$subs/alice/$folder/src/tasks/slice.cpp"
run third
grep -q "1 graded, 2 unchanged" "$tmp/third.out" || fail "changing alice's files did not re-grade alice alone"
[ "$(row alice week01.slice)" = 0.0 ] || fail "alice's removed file still scored"
echo "class: four submissions graded, refused, cached and re-graded as they should"
tail -n 1 "$tmp/first.out"
