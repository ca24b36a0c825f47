#!/usr/bin/env python3
"""Draws the week-3 layout figure (lectures/figures/week03-layout.svg) from the
JSON of the layout benchmark, without plotting libraries:

  build/solutions/grader/bench/kindling_week03_bench --benchmark_filter=BM_LayoutSpeedup \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_format=json > layout.json
  python3 tools/bench/plot_layout.py layout.json lectures/figures/week03-layout.svg
"""
import json
import sys

rows = []
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") == "median":
        n = int(b["run_name"].split("/")[1])
        rows.append((n, b["gflops_out_in"], b["gflops_in_out"], b["speedup"]))
rows.sort()
W, H, L, B, T = 560, 300, 60, 50, 40
top = max(r[1] for r in rows) * 1.25
bar = 36
group = (W - L - 20) / len(rows)
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
       f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">Plain triple loop, x (32, n) times W (n, n): GFLOP/s</text>']
y0 = H - B
for tick in range(0, int(top) + 1, 2):
    y = y0 - (y0 - T) * tick / top
    svg.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - 20}" y2="{y:.1f}" stroke="#ddd"/>')
    svg.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>')
for i, (n, out_in, in_out, speedup) in enumerate(rows):
    x = L + i * group + group / 2 - bar
    for j, (v, colour) in enumerate([(out_in, "#2b7bb9"), (in_out, "#e08a1e")]):
        h = (y0 - T) * v / top
        svg.append(f'<rect x="{x + j * bar:.1f}" y="{y0 - h:.1f}" width="{bar - 4}" height="{h:.1f}" fill="{colour}"/>')
    svg.append(f'<text x="{x + bar:.1f}" y="{y0 + 16}" text-anchor="middle">n = {n}</text>')
    svg.append(f'<text x="{x + bar:.1f}" y="{y0 - (y0 - T) * out_in / top - 6:.1f}" text-anchor="middle">'
               f'{speedup:.1f}x</text>')
svg.append(f'<rect x="{L + 10}" y="{H - 22}" width="12" height="12" fill="#2b7bb9"/>'
           f'<text x="{L + 26}" y="{H - 12}">W stored (out, in): inner loop contiguous</text>')
svg.append(f'<rect x="{L + 290}" y="{H - 22}" width="12" height="12" fill="#e08a1e"/>'
           f'<text x="{L + 306}" y="{H - 12}">W stored (in, out): stride n</text>')
svg.append("</svg>")
open(sys.argv[2], "w").write("\n".join(svg) + "\n")
print("wrote", sys.argv[2])
