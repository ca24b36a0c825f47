#!/usr/bin/env python3
"""Exit 0 when TASK passed in the grader's JSON report (./grade --json F), else 1.

    task_passed.py REPORT.json TASK

GitHub Classroom's command grader awards a step's points when its command exits 0,
so the generated workflow grades the week once and gives each task its own step:
points per task, not all or nothing. Prints the task's status and message either way.
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    path, task = sys.argv[1], sys.argv[2]
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{task}: no grader report ({e}); did the build fail? See the Grade step's log.")
        return 1
    for t in report.get("tasks", []):
        if t.get("id") == task:
            print(f"{task}: {t.get('status')} ({t.get('points')}/{t.get('max_points')} points)"
                  + (f"\n{t['message']}" if t.get("message") else ""))
            return 0 if t.get("status") == "passed" else 1
    print(f"{task}: not in the report")
    return 1


if __name__ == "__main__":
    sys.exit(main())
