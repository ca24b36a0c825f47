#!/usr/bin/env python3
"""Grades a whole class: ./grade class SUBMISSIONS_DIR --weeks week01[,week02] [--jobs N]

Each entry of SUBMISSIONS_DIR is one student: a folder (a git checkout is a folder too;
its .git is ignored) or a .zip. Every submission is graded by the Gradescope
autograder's own run_autograder (tools/autograder/), in a folder of its own under
OUT/work/<student> with its own build, all sharing ccache, and under limits:
  - the whole grading of one student: --student-timeout seconds (each task's tests also
    have the grader's own --timeout);
  - memory: RLIMIT_DATA of --memory-mb per process (the compiler included);
  - output: RLIMIT_FSIZE of --output-mb per file written;
  - processes: RLIMIT_NPROC of --processes (not enforced for root, which the summary says);
  - network: none, through `unshare -n` (or `unshare -rn` without root), when it works here;
    the summary says plainly when it does not.
A broken or hostile submission costs only its own student. Zips are checked before
they are unpacked (no absolute paths, no `..`, at most 2,000 files and 20 MB).

It writes OUT/gradebook.csv (student, status, total, per week, per task, performance
counters, and the tasks whose performance points need a GPU that grading did not have), OUT/reports/<student>.html, OUT/integrity.csv (task code identical across
students after whitespace and comments are removed, and kit files a student changed, such
as a test; neither is proof of anything, both are worth a look), and keeps OUT/cache.json: a student whose task
files and kit are unchanged (SHA-256 of both) is not graded again. A progress line with
an ETA is shown on a terminal.
"""
import argparse
import concurrent.futures
import csv
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_FILES, MAX_BYTES = 2000, 20 << 20


class Refused(Exception):
    """A submission that is not graded (its reason goes to the gradebook)."""


def kit_id(weeks):
    """What a grade depends on besides the student's files: the kit's tracked files and the weeks."""
    h = hashlib.sha256(("weeks=" + ",".join(weeks) + "\n").encode())
    try:
        files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True, capture_output=True).stdout
        names = sorted(n for n in files.decode().split("\0") if n)
    except (OSError, subprocess.CalledProcessError):
        names = sorted(os.path.relpath(os.path.join(d, f), ROOT) for d, _, fs in os.walk(ROOT)
                       if "/build" not in d and "/.git" not in d for f in fs)
    for n in names:
        path = os.path.join(ROOT, n)
        if os.path.isfile(path):
            h.update(n.encode() + b"\0" + hashlib.sha256(open(path, "rb").read()).digest())
    return h.hexdigest()


def task_files(weeks):
    manifest = json.load(open(os.path.join(ROOT, "grader", "tasks.json")))
    folders = {w["id"]: w["folder"] for w in manifest["weeks"]}
    names = set()
    for w in weeks:
        d = os.path.join(ROOT, "exercises", folders[w], "src", "tasks")
        names.update(f for f in os.listdir(d) if f.endswith((".cpp", ".cu")))  # week 6's kernels are .cu
    tasks = [t for t in manifest["tasks"] if t["id"].split(".")[0] in weeks]
    return names, tasks


def unpack(entry, dest):
    """The submission's files into dest (a fresh folder); Refused when it is unsafe."""
    os.makedirs(dest)
    if os.path.isdir(entry):
        count = size = 0
        for d, dirs, files in os.walk(entry):
            dirs[:] = [x for x in dirs if x != ".git"]
            for f in files:
                src = os.path.join(d, f)
                if os.path.islink(src) or not os.path.isfile(src):
                    continue
                count += 1
                size += os.path.getsize(src)
                if count > MAX_FILES or size > MAX_BYTES:
                    raise Refused(f"more than {MAX_FILES} files or {MAX_BYTES >> 20} MB")
                rel = os.path.relpath(src, entry)
                os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
                shutil.copyfile(src, os.path.join(dest, rel))
        return
    try:
        with zipfile.ZipFile(entry) as z:
            infos = [i for i in z.infolist() if not i.is_dir()]
            if len(infos) > MAX_FILES or sum(i.file_size for i in infos) > MAX_BYTES:
                raise Refused(f"the zip holds more than {MAX_FILES} files or {MAX_BYTES >> 20} MB")
            for i in infos:
                name = i.filename.replace("\\", "/")
                parts = name.split("/")
                if name.startswith("/") or ".." in parts or ":" in parts[0]:
                    raise Refused(f"the zip holds an unsafe path: {i.filename}")
                if (i.external_attr >> 16) & 0o170000 == 0o120000:
                    raise Refused(f"the zip holds a symbolic link: {i.filename}")
            for i in infos:
                target = os.path.join(dest, i.filename.replace("\\", "/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with z.open(i) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out, 1 << 16)
    except zipfile.BadZipFile as e:
        raise Refused(f"not a readable zip ({e})")


def content_hash(sub, names, kit):
    """SHA-256 of the files run_autograder would take (by name), and of the kit."""
    h = hashlib.sha256(kit.encode())
    for d, _, files in sorted(os.walk(sub)):
        for f in sorted(files):
            if f in names:
                path = os.path.join(d, f)
                h.update(os.path.relpath(path, sub).encode() + b"\0" + hashlib.sha256(open(path, "rb").read()).digest())
    return h.hexdigest()


def network_isolation():
    """The command prefix that takes the network away, and what the summary says of it."""
    for cmd in (["unshare", "-n"], ["unshare", "-rn"]):
        try:
            if subprocess.run(cmd + ["true"], capture_output=True, timeout=10).returncode == 0:
                return cmd, f"no network ({' '.join(cmd)})"
        except (OSError, subprocess.TimeoutExpired):
            pass
    return [], "NETWORK NOT ISOLATED: unshare -n does not work here (no root, no user namespaces)"


def limits(args):
    """prlimit's prefix for one student's grading (a command, not preexec_fn: this runs in threads)."""
    mb = 1 << 20
    return ["prlimit", f"--data={args.memory_mb * mb}", f"--fsize={args.output_mb * mb}", f"--nproc={args.processes}",
            "--core=0", "--"]


def grade_one(student, entry, args, template, names, kit, cache, net):
    work = os.path.join(args.out, "work", student)
    root = os.path.join(work, "autograder")
    sub = os.path.join(root, "submission")
    shutil.rmtree(sub, ignore_errors=True)
    os.makedirs(root, exist_ok=True)
    try:
        unpack(entry, sub)
    except Refused as e:
        return {"status": "refused", "reason": str(e), "hash": None}
    digest = content_hash(sub, names, kit)
    old = cache.get(student)
    if old and old.get("hash") == digest and old.get("status") == "graded":
        return dict(old, status="graded", cached=True)
    source = os.path.join(root, "source")
    stamp = os.path.join(root, "template.id")
    if not os.path.exists(stamp) or open(stamp).read() != kit:
        shutil.rmtree(source, ignore_errors=True)
        subprocess.run(["unzip", "-q", template, "-d", source], check=True)  # keeps the scripts' modes
        open(stamp, "w").write(kit)
    results = os.path.join(root, "results", "results.json")
    if os.path.exists(results):
        os.remove(results)
    env = dict(os.environ, KINDLING_AUTOGRADER_ROOT=root)
    log = open(os.path.join(work, "grade.log"), "wb")
    start = time.time()
    try:
        p = subprocess.Popen(limits(args) + net + [os.path.join(source, "run_autograder")], cwd=root, env=env,
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            p.wait(timeout=args.student_timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            p.wait()
            return {"status": "timed_out", "reason": f"grading took more than {args.student_timeout} s", "hash": digest}
    finally:
        log.close()
    try:
        r = json.load(open(results))
    except (OSError, ValueError):
        return {"status": "error", "reason": "no results.json (see work/%s/grade.log)" % student, "hash": digest}
    reports = sorted(glob.glob(os.path.join(source, "build", "grade-*", "report.html")), key=os.path.getmtime)
    if reports:
        os.makedirs(os.path.join(args.out, "reports"), exist_ok=True)
        shutil.copyfile(reports[-1], os.path.join(args.out, "reports", student + ".html"))
    return {"status": "graded", "hash": digest, "seconds": round(time.time() - start, 1), "score": r.get("score", 0),
            "tasks": {t["number"]: t["score"] for t in r.get("tests", [])},
            "perf": {b["name"]: b["value"] for b in r.get("leaderboard", [])},
            "needs_gpu": [t["number"] for t in r.get("tests", [])
                          if (t.get("extra_data") or {}).get("perf_status") == "needs_gpu"]}


def regions(text):
    """The student's code in a task file: what lies between `// BEGIN TASK` and `// END TASK`
    (or the whole file when the markers are gone), with comments and whitespace removed."""
    body = re.findall(r"//\s*BEGIN TASK[^\n]*\n(.*?)//\s*END TASK", text, re.S) or [text]
    code = "\n".join(body)
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", code, flags=re.S)
    return re.sub(r"\s+", "", code)


def integrity(out, students, names, weeks):
    """OUT/integrity.csv: task files whose code is identical across students (after
    whitespace and comments), and kit files a student changed but may not edit."""
    manifest = json.load(open(os.path.join(ROOT, "grader", "tasks.json")))
    folders = [w["folder"] for w in manifest["weeks"] if w["id"] in weeks]
    stubs = {}
    for folder in folders:
        d = os.path.join(ROOT, "exercises", folder, "src", "tasks")
        for f in os.listdir(d):
            if f.endswith((".cpp", ".cu")):
                stubs[f] = regions(open(os.path.join(d, f), errors="replace").read())
    kit_files = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True).stdout.split()
    by_code, rows = {}, []
    for student in students:
        sub = os.path.join(out, "work", student, "autograder", "submission")
        for d, _, files in os.walk(sub):
            for f in files:
                path = os.path.join(d, f)
                rel = os.path.relpath(path, sub)
                text = open(path, "rb").read()
                if f in names:
                    code = regions(text.decode(errors="replace"))
                    if code and code != stubs.get(f):
                        by_code.setdefault((f, hashlib.sha256(code.encode()).hexdigest()), []).append(student)
                    continue
                # Not a task file: is it one of the kit's files, changed?
                for k in kit_files:
                    same = rel == k or rel.endswith("/" + k) or ("/" in rel and k.endswith("/" + rel))
                    if same and os.path.isfile(os.path.join(ROOT, k)):
                        if open(os.path.join(ROOT, k), "rb").read() != text:
                            rows.append(["edited_kit_file", student, rel, k])
                        break
    for (f, _), who in sorted(by_code.items()):
        if len(who) > 1:
            rows.append(["identical_code", " ".join(sorted(who)), f, f"{len(who)} students"])
    with open(os.path.join(out, "integrity.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["finding", "students", "file", "detail"])
        w.writerows(rows)
    return rows


def write_gradebook(path, students, results, tasks, weeks):
    perf_names = sorted({n for r in results.values() for n in r.get("perf", {})})
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "status", "total", "max"] + weeks + [t["id"] for t in tasks] + perf_names +
                   ["needs_gpu", "note"])
        for s in students:
            r = results.get(s, {})
            scores = r.get("tasks", {})
            row = [s, r.get("status", "?"), r.get("score", 0), sum(t["points"] for t in tasks)]
            row += [sum(scores.get(t["id"], 0) for t in tasks if t["id"].startswith(wk + ".")) for wk in weeks]
            row += [scores.get(t["id"], 0) for t in tasks]
            row += [r.get("perf", {}).get(n, "") for n in perf_names]
            row.append(" ".join(r.get("needs_gpu", [])))  # performance points left out: no GPU graded them
            row.append(r.get("reason", ""))
            w.writerow(row)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("submissions")
    ap.add_argument("--weeks", required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "class"))
    ap.add_argument("--timeout", type=int, default=60, help="seconds each task's tests may run")
    ap.add_argument("--student-timeout", type=int, default=1800, help="seconds for one student in all")
    ap.add_argument("--memory-mb", type=int, default=4096)
    ap.add_argument("--output-mb", type=int, default=256)
    ap.add_argument("--processes", type=int, default=512)
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    weeks = args.weeks.split(",")
    if not os.path.isdir(args.submissions):
        sys.exit(f"class: {args.submissions} is not a folder")
    entries = sorted(e for e in os.listdir(args.submissions) if not e.startswith("."))
    students = {}
    for e in entries:
        name = e[:-4] if e.endswith(".zip") else e
        path = os.path.join(args.submissions, e)
        if os.path.isdir(path) or e.endswith(".zip"):
            students[name] = path
    if not students:
        sys.exit(f"class: no submissions (folders or .zip files) in {args.submissions}")
    os.makedirs(args.out, exist_ok=True)
    names, tasks = task_files(weeks)
    kit = kit_id(weeks)
    template = os.path.join(args.out, "autograder-" + kit[:16] + ".zip")
    if not os.path.exists(template):
        subprocess.run([os.path.join(ROOT, "tools", "autograder", "package"), "gradescope", "--weeks", args.weeks,
                        "--timeout", str(args.timeout), "-o", template], check=True, stdout=subprocess.DEVNULL)
    cache_path = os.path.join(args.out, "cache.json")
    try:
        cache = json.load(open(cache_path))
    except (OSError, ValueError):
        cache = {}
    net, net_note = network_isolation()
    root_note = " (RLIMIT_NPROC is not enforced for root: run as another user to limit processes)" \
        if os.geteuid() == 0 else ""
    print(f"class: {len(students)} submissions, weeks {args.weeks}, {args.jobs} at a time; {net_note}; "
          f"limits: {args.student_timeout} s per student, {args.timeout} s per task, {args.memory_mb} MB, "
          f"{args.output_mb} MB per file, {args.processes} processes{root_note}")
    results, lock, done, start = {}, threading.Lock(), [0, 0], time.time()
    tty = sys.stdout.isatty()

    def finished(student, r):
        with lock:
            results[student] = r
            done[0] += 1
            done[1] += bool(r.get("cached"))
            if r.get("hash"):
                cache[student] = {k: v for k, v in r.items() if k != "cached"}
                with open(cache_path + ".tmp", "w") as f:
                    json.dump(cache, f, indent=1)
                os.replace(cache_path + ".tmp", cache_path)
            elapsed = time.time() - start
            graded = done[0] - done[1]
            eta = (elapsed / graded) * (len(students) - done[0]) if graded else 0
            what = "cached" if r.get("cached") else r["status"]
            line = (f"[{done[0]}/{len(students)}] {student}: {what} {r.get('score', '')}"
                    f"  elapsed {elapsed:.0f} s, ETA {eta:.0f} s")
            print(("\r\033[K" + line) if tty else line, end="" if tty else "\n", flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(grade_one, s, p, args, template, names, kit, cache, net): s
                   for s, p in students.items()}
        for fut in concurrent.futures.as_completed(futures):
            s = futures[fut]
            try:
                r = fut.result()
            except Exception as e:  # a bug here must not lose the other students
                r = {"status": "error", "reason": f"{type(e).__name__}: {e}", "hash": None}
            finished(s, r)
    if tty:
        print()
    gradebook = os.path.join(args.out, "gradebook.csv")
    write_gradebook(gradebook, list(students), results, tasks, weeks)
    findings = integrity(args.out, [s for s in students if results.get(s, {}).get("status") != "refused"], names, weeks)
    print(f"class: {len(findings)} integrity finding(s) in {os.path.join(args.out, 'integrity.csv')} "
          "(identical task code after whitespace and comments; kit files a student changed)")
    graded = sum(1 for r in results.values() if r["status"] == "graded" and not r.get("cached"))
    elapsed = time.time() - start
    rate = f", {3600 * graded / elapsed:.0f} students per hour" if graded else ""
    print(f"class: wrote {gradebook} and {os.path.join(args.out, 'reports')}/ "
          f"({graded} graded, {done[1]} unchanged, {sum(1 for r in results.values() if r['status'] != 'graded')} "
          f"not graded) in {elapsed:.0f} s{rate}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
