#!/usr/bin/env bash
# kit.classroom: `./grade package classroom` writes, for every week, a GitHub Classroom
# workflow that is valid YAML, fits grader/schemas/classroom-workflow.schema.json, and
# gives every task of the week its own step worth its points; tools/classroom/task_passed.py
# passes a task only when the grader's JSON says it passed.
# (Debian's /usr/bin/python3 runs the checks: python3-yaml and python3-jsonschema are its packages.)
#
#   classroom.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: classroom.sh SOURCE_DIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kindling-classroom.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
weeks=$(python3 -c "import json,sys; print(' '.join(w['id'] for w in json.load(open(sys.argv[1]))['weeks']))" \
  "$src/grader/tasks.json")
for week in $weeks week01,week02; do
  "$src/grade" package classroom --weeks "$week" -o "$tmp/$week" > "$tmp/$week.out" 2>&1 ||
    { cat "$tmp/$week.out"; echo "classroom: FAILED: packaging $week" >&2; exit 1; }
  /usr/bin/python3 - "$src" "$tmp/$week/.github/workflows/classroom.yml" "$week" <<'PY'
import json, sys
import jsonschema, yaml
src, path, weeks = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
def fail(msg):
    sys.exit(f"classroom: FAILED: {weeks}: {msg}")
with open(path) as f:
    doc = yaml.safe_load(f)          # YAML 1.1: an unquoted `on` would become True
jsonschema.validate(doc, json.load(open(f"{src}/grader/schemas/classroom-workflow.schema.json")))
manifest = json.load(open(f"{src}/grader/tasks.json"))
tasks = [t for t in manifest["tasks"] if t["id"].split(".")[0] in weeks]
steps = doc["jobs"]["run-autograding-tests"]["steps"]
graders = [s for s in steps if s.get("uses") == "classroom-resources/autograding-command-grader@v1"]
if [s["with"]["test-name"] for s in graders] != [t["id"] for t in tasks]:
    fail("the grader steps are not one per task, in the manifest's order")
for s, t in zip(graders, tasks):
    if s["with"]["max-score"] != t["points"]:
        fail(f"{t['id']} is worth {s['with']['max-score']}, not {t['points']}")
    if not s["with"]["command"].endswith("task_passed.py build/classroom-report.json " + t["id"]):
        fail(f"{t['id']}'s command does not check its own task")
ids = [s["id"] for s in graders]
if len(set(ids)) != len(ids):
    fail("two steps share an id")
reporter = steps[-1]
if reporter["with"]["runners"].split(",") != ids:
    fail("the reporter does not list every grader step")
for i in ids:
    if reporter["env"].get(f"{i.upper()}_RESULTS") != "${{steps.%s.outputs.result}}" % i:
        fail(f"the reporter has no result of {i}")
grade = [s for s in steps if s.get("run", "").startswith("./grade")]
if len(grade) != 1 or "--json build/classroom-report.json" not in grade[0]["run"] or "--no-perf" not in grade[0]["run"]:
    fail("there is not exactly one ./grade step writing the JSON report")
PY
done

# task_passed.py: 0 only for a passed task.
cat > "$tmp/report.json" <<'JSON'
{"score": 5, "max_score": 15, "tasks": [
  {"id": "week01.view", "status": "passed", "points": 5, "max_points": 5, "message": ""},
  {"id": "week01.reshape", "status": "failed", "points": 0, "max_points": 10, "message": "expected [2, 3]"}]}
JSON
tp=$src/tools/classroom/task_passed.py
python3 "$tp" "$tmp/report.json" week01.view > /dev/null || { echo "classroom: FAILED: a passed task was not passed" >&2; exit 1; }
for args in "$tmp/report.json week01.reshape" "$tmp/report.json week01.squeeze" "$tmp/missing.json week01.view"; do
  # shellcheck disable=SC2086
  if python3 "$tp" $args > /dev/null; then echo "classroom: FAILED: task_passed.py $args exited 0" >&2; exit 1; fi
done
echo "classroom: the workflows of $(wc -w <<< "$weeks") weeks are valid and grade per task"
