#!/usr/bin/env python3
"""Writes N generated submissions of mixed quality for one week, to measure ./grade class:

    sample_class.py OUT_DIR --week week01 [-n 20] [--seed 1]

Each student takes every task file of the week from the reference (solutions/) or the
stub (exercises/) at random (a student who did some of the work), and one in five did
all of it and breaks one of the reference files, each kind in turn: an infinite loop, a 16 GiB allocation, a
segfault, or a syntax error. Half are
folders and half zips. Deterministic for a seed.
"""
import argparse
import json
import os
import random
import shutil
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BREAKS = {"segfault": "\n  { volatile int* crash = nullptr; *crash = 1; }",
          "memory": "\n  { std::vector<char> hog(std::size_t{16} << 30, 1); if (hog[0] == 2) return {}; }",
          "hang": "\n  for (volatile int spin = 0;; spin = spin + 1) {}",
          "syntax": "\n  this is not C++;"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--week", default="week01")
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    manifest = json.load(open(os.path.join(ROOT, "grader", "tasks.json")))
    folder = next(w["folder"] for w in manifest["weeks"] if w["id"] == a.week)
    tasks_dir = os.path.join("src", "tasks")
    names = sorted(f for f in os.listdir(os.path.join(ROOT, "solutions", folder, tasks_dir))
                   if f.endswith((".cpp", ".cu")))
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.n):
        student = f"student{i + 1:02d}"
        broken = i % 5 == 4
        done = 1.0 if broken else rng.random()  # how much of the week; a broken student did it all
        files = {}
        for n in names:
            tree = "solutions" if rng.random() < done else "exercises"
            files[n] = open(os.path.join(ROOT, tree, folder, tasks_dir, n)).read()
        if broken:
            n = rng.choice(names)
            kind = sorted(BREAKS)[(i // 5) % len(BREAKS)]  # each kind in turn
            text = open(os.path.join(ROOT, "solutions", folder, tasks_dir, n)).read()
            marker = f"// BEGIN SOLUTION {a.week}.{n[:-4]}"
            if kind == "memory":
                text = "#include <vector>\n" + text
            files[n] = text.replace(marker, marker + BREAKS[kind], 1) if marker in text else text + BREAKS[kind]
            print(f"sample_class: {student} breaks {n} with a {kind}")
        if i % 2:
            with zipfile.ZipFile(os.path.join(a.out, student + ".zip"), "w") as z:
                for n, text in files.items():
                    z.writestr(os.path.join(folder, tasks_dir, n), text)
        else:
            d = os.path.join(a.out, student)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            for n, text in files.items():
                open(os.path.join(d, n), "w").write(text)
    print(f"sample_class: {a.n} submissions of {a.week} in {a.out}")


if __name__ == "__main__":
    main()
