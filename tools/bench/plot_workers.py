#!/usr/bin/env python3
"""Draws lectures/figures/week04-workers.svg: items per second against num_workers
for a dataset that waits 1 ms per item, Kindling (threads) and PyTorch (processes),
with the ideal line, from the two JSON files of the week-4 benchmarks:

  build/solutions/grader/bench/kindling_week04_bench --benchmark_filter=WorkerScaling \
      --benchmark_format=json > kindling.json
  /usr/bin/python3 tools/bench/week04_torch.py > torch.json
  python3 tools/bench/plot_workers.py kindling.json torch.json lectures/figures/week04-workers.svg
"""
import json
import sys

workers = [0, 1, 2, 4, 8]
k = {int(b["run_name"].split("/")[1]): b["items_per_s"] for b in json.load(open(sys.argv[1]))["benchmarks"]
     if b["run_name"].startswith("BM_WorkerScaling") and b.get("aggregate_name", "median") == "median"}
t = json.load(open(sys.argv[2]))
series = [("Kindling (threads)", "#2b7bb9", [k[w] for w in workers]),
          ("PyTorch 1.13 (processes)", "#e08a1e", [t[f"workers_{w}_items_per_s"] for w in workers]),
          ("ideal: 1000 x max(1, workers)", "#999999", [1000.0 * max(1, w) for w in workers])]
W, H, L, B, T, R = 560, 320, 70, 60, 40, 20
top = 9000.0


def x(i):
    return L + (W - L - R) * i / (len(workers) - 1)


def y(v):
    return H - B - (H - B - T) * v / top


svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
       f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">Items per second, 1 ms per item, batch 32</text>']
for v in range(0, int(top) + 1, 2000):
    svg.append(f'<line x1="{L}" y1="{y(v):.1f}" x2="{W - R}" y2="{y(v):.1f}" stroke="#ddd"/>')
    svg.append(f'<text x="{L - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
for i, w in enumerate(workers):
    svg.append(f'<text x="{x(i):.1f}" y="{H - B + 16}" text-anchor="middle">{w}</text>')
svg.append(f'<text x="{W / 2}" y="{H - B + 32}" text-anchor="middle">num_workers</text>')
for j, (name, colour, values) in enumerate(series):
    pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    dash = ' stroke-dasharray="5,4"' if j == 2 else ""
    svg.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
    svg.append(f'<rect x="{L + 10}" y="{T + 8 + 16 * j}" width="12" height="3" fill="{colour}"/>'
               f'<text x="{L + 28}" y="{T + 14 + 16 * j}">{name}</text>')
svg.append("</svg>")
open(sys.argv[3], "w").write("\n".join(svg) + "\n")
print("wrote", sys.argv[3])
