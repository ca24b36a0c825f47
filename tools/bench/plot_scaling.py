#!/usr/bin/env python3
"""Draws the scaling chart of docs/performance.md from tools/bench-compare's results.json files:
speed-up against threads (each library's 1-thread time over its N-thread time) for
sum 4096², mm 2048, the small CNN's forward + backward, the MLP epoch and the CNN epoch, Kindling
and PyTorch on the same axes, with the machine named. No plotting library needed.

  tools/bench-compare --weeks 1 --threads 1,2 --out build/bc1      # and --weeks 3, --weeks 5
  python3 tools/bench/plot_scaling.py docs.svg build/bc1/results.json build/bc3/results.json build/bc5/results.json
"""
import json
import sys

PANELS = [("sum 4096x4096", "sum 4096²"), ("mm fp32 2048", "mm fp32 2048"),
          ("small CNN b64 28x28 fwd+bwd", "small CNN fwd+bwd, b64"),
          ("MLP 784-256-10 epoch, 60k, b64, SGD", "MLP epoch, 60k, b64"),
          ("small CNN, 6,400 examples, b64, SGD", "CNN epoch, 6,400, b64")]


def main():
    out, inputs = sys.argv[1], sys.argv[2:]
    times = {}  # workload -> threads -> (kindling s, pytorch s)
    machine, torch = None, None
    for path in inputs:
        r = json.load(open(path))
        machine = machine or r["machine"]
        torch = torch or r["pytorch"]["torch"]
        for section in r["sections"]:
            for w in section["workloads"]:
                times.setdefault(w["workload"], {})[w["threads"]] = (w["kindling_s"], w["pytorch_s"])
    panels = [(key, title) for key, title in PANELS if key in times and 1 in times[key]]
    if not panels:
        sys.exit("plot_scaling: none of the chart's workloads is in the results (need weeks 1, 3 and 5, and 1 thread)")
    threads = sorted({t for key, _ in panels for t in times[key]})
    W, H, L, B, T, gap = 250, 230, 44, 44, 48, 18
    width = len(panels) * (W + gap) + gap
    top = max(threads)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{H + 40}" font-family="sans-serif" '
           'font-size="11">',
           f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14">Speed-up against threads '
           f'(1-thread time / N-thread time): Kindling and PyTorch {torch}</text>',
           f'<text x="{width / 2}" y="34" text-anchor="middle" fill="#555">{machine["cores"]} cores, {machine["cpu_model"]}'
           f' ({machine.get("mhz_per_cpu", "?")} MHz); dashed: ideal</text>']
    for i, (key, title) in enumerate(panels):
        x0 = gap + i * (W + gap) + L
        plot_w, plot_h = W - L - 10, H - T - B + 20
        y0 = T + plot_h

        def px(t):
            return x0 + (plot_w * (t - 1) / (top - 1) if top > 1 else plot_w / 2)

        def py(s):
            return y0 - plot_h * s / (top + 0.6)

        svg.append(f'<text x="{x0 + plot_w / 2}" y="{T - 4}" text-anchor="middle" font-size="12">{title}</text>')
        svg.append(f'<rect x="{x0}" y="{T}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#999"/>')
        for t in threads:
            svg.append(f'<text x="{px(t):.1f}" y="{y0 + 14}" text-anchor="middle">{t}</text>')
        for s in range(0, top + 1):
            svg.append(f'<text x="{x0 - 6}" y="{py(s) + 4:.1f}" text-anchor="end">{s}x</text>')
        svg.append(f'<line x1="{px(1):.1f}" y1="{py(1):.1f}" x2="{px(top):.1f}" y2="{py(top):.1f}" stroke="#aaa" '
                   'stroke-dasharray="4 3"/>')
        for j, (name, colour) in enumerate([("Kindling", "#2b7bb9"), ("PyTorch", "#e08a1e")]):
            base = times[key][1][j]
            pts = [(t, base / times[key][t][j]) for t in threads if t in times[key]]
            svg.append('<polyline fill="none" stroke="{}" stroke-width="2" points="{}"/>'.format(
                colour, " ".join(f"{px(t):.1f},{py(s):.1f}" for t, s in pts)))
            for t, s in pts:
                svg.append(f'<circle cx="{px(t):.1f}" cy="{py(s):.1f}" r="3" fill="{colour}"/>')
            t, s = pts[-1]
            svg.append(f'<text x="{x0 + 6}" y="{T + 14 + 14 * j}" fill="{colour}">{name}: {s:.2f}x at {t}</text>')
        svg.append(f'<text x="{x0 + plot_w / 2}" y="{y0 + 30}" text-anchor="middle">threads</text>')
    svg.append("</svg>")
    open(out, "w").write("\n".join(svg) + "\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
