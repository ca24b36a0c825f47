#!/usr/bin/env python3
"""Draws tools/bench-compare's chart (build/bench-compare/ratios.svg) from its results.json, without
plotting libraries: PyTorch time / Kindling time per workload against the thread count (Kindling's
OMP_NUM_THREADS = PyTorch's torch.set_num_threads), one panel per week, one line per workload, a
log-scale y axis, the range over rounds as a vertical bar, and a dashed line at 1.0 (same speed).

  python3 tools/bench/plot_ratios.py build/bench-compare/results.json build/bench-compare/ratios.svg
"""
import json
import math
import sys
from html import escape

COLOURS = ["#2b7bb9", "#e08a1e", "#3a9a4a", "#c8403a", "#8b63b8", "#8c564b", "#d662b0", "#7f7f7f",
           "#b5b32a", "#1fb1c4"]
DASHES = ["", "6,3", "2,3"]  # after the colours run out
WIDTH, L, PW = 960, 64, 420  # least width, left margin, plot width
LEGEND_X = L + PW + 24
TOP, PANEL_GAP, AXIS = 56, 34, 34  # title space, space between panels, x tick labels below a panel
STEPS = [1, 2, 5]


def ticks(lo, hi):
    """1-2-5 ticks covering [lo, hi], always including 1."""
    lo, hi = min(lo, 1.0), max(hi, 1.0)
    out = []
    for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        out += [s * 10.0 ** e for s in STEPS]
    below = [t for t in out if t <= lo * 1.0001]
    above = [t for t in out if t >= hi / 1.0001]
    first, last = max(below), min(above)
    return [t for t in out if first <= t <= last]


def fmt(v):
    return f"{v:g}" if v >= 0.1 else f"{v:.2g}"


def main():
    res = json.load(open(sys.argv[1]))
    threads = res["thread_counts"]
    records = [r for s in res["sections"] for r in s["workloads"]]
    weeks = sorted({r["week"] for r in records})
    series = {w: list(dict.fromkeys(r["workload"] for r in records if r["week"] == w)) for w in weeks}
    values = [v for r in records for v in (r["ratio_min"], r["ratio_max"], r["ratio"]) if v > 0]
    ys = ticks(min(values), max(values))
    ylo, yhi = math.log10(ys[0]), math.log10(ys[-1])

    def x(n):
        i = threads.index(n)
        return L + PW / 2 if len(threads) == 1 else L + 20 + (PW - 40) * i / (len(threads) - 1)

    heights = {w: max(190, 16 * len(series[w]) + 40) for w in weeks}
    longest = max(len(name) + 6 * len(threads) + 2 for w in weeks for name in series[w])
    W = max(WIDTH, LEGEND_X + 30 + int(6.3 * longest))  # 11 px sans-serif: about 6.3 px per character
    H = TOP + sum(heights[w] + AXIS + PANEL_GAP for w in weeks) - PANEL_GAP + 26
    m, pt = res["machine"], res["pytorch"]
    title = "PyTorch time / Kindling time (above 1: Kindling is faster), by thread count"
    sub = (f"{m['cpu_model']}, {m['cores']} cores; torch {pt['torch']} ({pt['python']}); "
           f"{res['rounds']} round(s); bars: range over rounds")
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>',
           f'<text x="{W / 2}" y="38" text-anchor="middle" fill="#555">{escape(sub)}</text>']
    top = TOP
    for w in weeks:
        ph = heights[w]

        def y(v):
            return top + ph - ph * (math.log10(v) - ylo) / (yhi - ylo)
        svg.append(f'<text x="{L}" y="{top - 8}" font-size="13" font-weight="bold">Week {w}</text>')
        for t in ys:
            one = abs(t - 1.0) < 1e-9
            style = 'stroke="#555" stroke-dasharray="5,4"' if one else 'stroke="#ddd"'
            svg.append(f'<line x1="{L}" y1="{y(t):.1f}" x2="{L + PW}" y2="{y(t):.1f}" {style}/>')
            svg.append(f'<text x="{L - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{fmt(t)}</text>')
        svg.append(f'<rect x="{L}" y="{top}" width="{PW}" height="{ph}" fill="none" stroke="#999"/>')
        for n in threads:
            svg.append(f'<text x="{x(n):.1f}" y="{top + ph + 16}" text-anchor="middle">{n}</text>')
        svg.append(f'<text x="{L + PW / 2}" y="{top + ph + 30}" text-anchor="middle" fill="#555">threads '
                   f'(Kindling OMP_NUM_THREADS = PyTorch torch.set_num_threads)</text>')
        for j, name in enumerate(series[w]):
            colour, dash = COLOURS[j % len(COLOURS)], DASHES[j // len(COLOURS) % len(DASHES)]
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            rs = {r["threads"]: r for r in records if r["week"] == w and r["workload"] == name}
            pts = [(x(n), y(rs[n]["ratio"])) for n in threads if n in rs]
            if len(pts) > 1:
                svg.append(f'<polyline points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in pts)}" fill="none" '
                           f'stroke="{colour}" stroke-width="2"{dash_attr}/>')
            for n in threads:
                if n not in rs:
                    continue
                r = rs[n]
                svg.append(f'<line x1="{x(n):.1f}" y1="{y(r["ratio_min"]):.1f}" x2="{x(n):.1f}" '
                           f'y2="{y(r["ratio_max"]):.1f}" stroke="{colour}" stroke-opacity="0.5" stroke-width="5"/>')
                svg.append(f'<circle cx="{x(n):.1f}" cy="{y(r["ratio"]):.1f}" r="3.5" fill="{colour}">'
                           f'<title>{escape(name)}, {n} threads: {r["ratio"]:.2f} (range {r["ratio_min"]:.2f}-'
                           f'{r["ratio_max"]:.2f}); Kindling {r["kindling_s"] * 1e3:.4g} ms, PyTorch '
                           f'{r["pytorch_s"] * 1e3:.4g} ms</title></circle>')
            ly = top + 14 + 16 * j
            label = f"{name}: " + " / ".join(f"{rs[n]['ratio']:.2f}" for n in threads if n in rs)
            svg.append(f'<line x1="{LEGEND_X}" y1="{ly - 4}" x2="{LEGEND_X + 18}" y2="{ly - 4}" stroke="{colour}" '
                       f'stroke-width="2"{dash_attr}/><circle cx="{LEGEND_X + 9}" cy="{ly - 4}" r="3" fill="{colour}"/>'
                       f'<text x="{LEGEND_X + 24}" y="{ly}" font-size="11">{escape(label)}</text>')
        top += ph + AXIS + PANEL_GAP
    svg.append(f'<text x="{LEGEND_X}" y="{H - 8}" font-size="11" fill="#555">legend: ratio at threads '
               f'{" / ".join(map(str, threads))}; dashed grey line: 1.0 (same speed)</text>')
    svg.append("</svg>")
    open(sys.argv[2], "w").write("\n".join(svg) + "\n")
    print("wrote", sys.argv[2])


if __name__ == "__main__":
    main()
