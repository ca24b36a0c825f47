#!/usr/bin/env bash
# kit.coverage: lectures/README.md's coverage table says, for each concept of the study notes,
# which graded tasks, test suites and lecture sections cover it. This keeps it honest as the kit
# changes: every task id it names must be in grader/tasks.json; every lecture link must point at a
# heading of that lecture (GitHub's anchors, with the slug rules of the grader's own test
# GraderManifest.EveryTaskNamesALectureSectionThatExists); every test file must exist and define
# a TEST( of each suite named after it; each named task's own suite (week01.view -> week01_view)
# must be among the row's suites; a covered row must name a task, a test and a lecture section; a
# partial or missing row must say what is lacking; the quotes must be short (at most 12 words, a
# note id 000-004); and the totals table must agree with the rows. Prints one summary line.
#
#   coverage.sh SOURCE_DIR [TABLE]
#
# TABLE defaults to SOURCE_DIR/lectures/README.md; its relative links are resolved from
# SOURCE_DIR/lectures either way, so a copy elsewhere can be checked against the real tree.
set -euo pipefail
src=${1:?usage: coverage.sh SOURCE_DIR [TABLE]}
table=${2:-$src/lectures/README.md}
[[ -f $table ]] || { echo "coverage: FAILED: no table file $table" >&2; exit 1; }
[[ -f $src/grader/tasks.json ]] || { echo "coverage: FAILED: no $src/grader/tasks.json" >&2; exit 1; }
exec python3 - "$src" "$table" <<'PY'
import json, os, re, sys

src, table = sys.argv[1], sys.argv[2]
lectures = os.path.join(src, "lectures")
tests_root = os.path.normpath(os.path.join(src, "grader", "tests"))
errors = []


def fail(where, msg):
    errors.append(f"coverage: FAILED: {where}: {msg}")


# ---- the grader's slug rules (grader/tests/grader/grader_test.cpp, slug) -------------------------------------------
def slug(heading: bytes) -> str:
    out, i, n = bytearray(), 0, len(heading)
    while i < n:
        c = heading[i]
        # U+2000-U+206F (dashes, quotes) is punctuation too: UTF-8 E2 80 xx and E2 81 xx.
        if c == 0xE2 and i + 2 < n and heading[i + 1] in (0x80, 0x81):
            i += 3
            continue
        if (c < 0x80 and chr(c).isalnum()) or c in b"-_" or c >= 0x80:
            out.append(c + 32 if 0x41 <= c <= 0x5A else c)
        elif c == 0x20:
            out.append(0x2D)
        i += 1
    return out.decode("utf-8", "replace")


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        found, in_code = set(), False
        with open(path, "rb") as f:
            for line in f.read().split(b"\n"):
                if line.startswith(b"```"):
                    in_code = not in_code
                text = len(line) - len(line.lstrip(b"#"))
                if not in_code and 0 < text < len(line) and line[text:text + 1] == b" ":
                    found.add(slug(line[text + 1:]))
        anchor_cache[path] = found
    return anchor_cache[path]


source_cache = {}


def suites_defined(path):
    if path not in source_cache:
        with open(path, encoding="utf-8", errors="replace") as f:
            code = f.read()
        code = re.sub(r"/\*.*?\*/", " ", code, flags=re.S)
        code = re.sub(r"//[^\n]*", " ", code)
        source_cache[path] = set(re.findall(r"\bTEST\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*,", code))
    return source_cache[path]


with open(os.path.join(src, "grader", "tasks.json"), encoding="utf-8") as f:
    task_ids = {t["id"] for t in json.load(f)["tasks"]}

LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
TICK = re.compile(r"`([^`]+)`")
KINDS = ["covered", "partial", "missing", "week 6, not yet"]


def cells(line):
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


def only_dash(text):
    return re.sub(r"[\s,;—-]", "", text) == ""


rows, seen, totals, in_totals = [], set(), [], None
with open(table, encoding="utf-8") as f:
    lines = f.read().split("\n")
for lineno, line in enumerate(lines, 1):
    if not line.lstrip().startswith("|"):
        in_totals = None
        continue
    c = cells(line)
    if c and c[0].lower() == "area":
        in_totals = [h.lower() for h in c[1:]]
        continue
    if in_totals is not None:
        if not re.fullmatch(r"[-:| ]+", line.strip()):
            totals.append((lineno, c, in_totals))
        continue
    if not c or not re.fullmatch(r"\d+", c[0]):
        continue
    n = int(c[0])
    where = f"row {n} (line {lineno})"
    if len(c) != 7:
        fail(where, f"has {len(c)} cells, expected 7 (# | concept | note | tasks | tests | lecture | verdict)")
        continue
    _, concept, note, tasks_cell, tests_cell, lecture_cell, verdict = c
    where = f"row {n} ({concept if len(concept) <= 60 else concept[:59] + '…'})"
    if n in seen:
        fail(where, "the row number is used twice")
    seen.add(n)

    # The note: 000-004, a short quote.
    m = re.fullmatch(r'(00[0-4]): "(.+)"', note)
    if not m:
        fail(where, f'the note cell must read 00N: "quote" with N in 0-4, not {note!r}')
    elif len(m.group(2).split()) > 12:
        fail(where, f"the quote has {len(m.group(2).split())} words, more than 12")

    # Graded tasks.
    tasks = TICK.findall(tasks_cell)
    if not only_dash(TICK.sub("", tasks_cell)):
        fail(where, f"the task cell holds text that is not a `task.id`: {tasks_cell!r}")
    for t in tasks:
        if t not in task_ids:
            fail(where, f"task id `{t}` is not in grader/tasks.json")

    # Tests: [`file.cpp`](../grader/tests/weekNN/file.cpp) `suite`, `suite`; ...
    parts = LINK.split(tests_cell)  # [before, text, target, after, text, target, after, ...]
    if TICK.search(parts[0]) or not only_dash(parts[0]):
        fail(where, f"the tests cell must start with a link to a test file: {tests_cell!r}")
    suites, files = set(), 0
    for i in range(1, len(parts), 3):
        target, after = parts[i + 1], parts[i + 2]
        files += 1
        path = os.path.normpath(os.path.join(lectures, target))
        named = TICK.findall(after)
        suites.update(named)
        if not target.endswith(".cpp") or not path.startswith(tests_root + os.sep):
            fail(where, f"test link {target} is not a .cpp file under grader/tests/")
            continue
        if not os.path.isfile(path):
            fail(where, f"test file {os.path.relpath(path, src)} does not exist")
            continue
        if not named:
            fail(where, f"no suite is named after {os.path.relpath(path, src)}")
        defined = suites_defined(path)
        for s in named:
            if s not in defined:
                fail(where, f"{os.path.relpath(path, src)} has no TEST({s}, ...)")
    for t in tasks:
        suite = t.replace(".", "_", 1)
        if t in task_ids and suite not in suites:
            fail(where, f"task `{t}` is named but its suite `{suite}` is not among the row's tests")

    # Lecture sections: [Title](weekNN-name.md#anchor)
    links = LINK.findall(lecture_cell)
    if not only_dash(LINK.sub("", lecture_cell)):
        fail(where, f"the lecture cell holds text outside links: {lecture_cell!r}")
    for _, target in links:
        file, _, anchor = target.partition("#")
        path = os.path.normpath(os.path.join(lectures, file))
        if not anchor:
            fail(where, f"lecture link {target} has no #anchor")
        elif not re.fullmatch(r"week\d\d-[^/]+\.md", file) or not os.path.isfile(path):
            fail(where, f"lecture link {target} does not name a lecture in lectures/")
        elif anchor not in anchors(path):
            fail(where, f"lecture link {target}: {file} has no heading with the anchor #{anchor}")

    # Verdict.
    kind = next((k for k in KINDS if verdict.lower().startswith(k)), None)
    if kind is None:
        fail(where, f"the verdict must start with one of {', '.join(KINDS)}: {verdict!r}")
    else:
        rest = re.sub(r"[\s:()]", "", verdict[len(kind):])
        if kind in ("partial", "missing") and len(rest) < 10:
            fail(where, f"a {kind} verdict must say what is lacking: {verdict!r}")
        if kind == "covered" and not (tasks and files and links):
            fail(where, "a covered row needs a graded task, a test file and a lecture section")
    rows.append((n, kind))

if not rows:
    fail(table, "no table rows found (a row starts with | N |)")

# ---- totals -----------------------------------------------------------------------------------------------------
def count(selected):
    return {k: sum(1 for _, kind in selected if kind == k) for k in KINDS}


if not totals:
    fail(table, "no totals table (a header | area | covered | partial | missing | ...)")
for lineno, c, header in totals:
    label = c[0].replace("*", "")
    where = f"totals line {lineno} ({label})"
    r = re.search(r"(\d+)\s*[–-]\s*(\d+)", label)
    if r:
        lo, hi = int(r.group(1)), int(r.group(2))
        got = count([row for row in rows if lo <= row[0] <= hi])
    elif "total" in label.lower():
        got = count(rows)
    else:
        fail(where, "the area must name its rows (rows A–B) or be the total")
        continue
    for k in KINDS:
        if k not in header:
            fail(where, f"the totals table has no column {k!r}")
            continue
        i = 1 + header.index(k)
        cell = c[i].replace("*", "").strip() if i < len(c) else ""
        if not cell.isdigit():
            fail(where, f"{k}: {cell!r} is not a number")
        elif int(cell) != got[k]:
            fail(where, f"{k} says {cell}, the rows say {got[k]}")

if errors:
    print("\n".join(errors), file=sys.stderr)
    print(f"coverage: FAILED: {len(errors)} problem(s) in {table}", file=sys.stderr)
    sys.exit(1)
t = count(rows)
print(f"coverage: {len(rows)} rows: {t['covered']} covered, {t['partial']} partial, {t['missing']} missing, "
      f"{t['week 6, not yet']} week 6 (not yet)")
PY
