#!/usr/bin/python3
"""Allocation against arrival, one line per policy, from `schedkit fgd run --out DIR`.

Usage: fgd_figure.py DIR [--out FILE]   (default DIR/allocation.svg)

Reads DIR/curve.csv (docs/fgd.md) and draws, for each policy, the mean over seeds of the
allocated GPU % at each whole percent of arrived GPU request, as a self-contained SVG (no
plotting library needed; the same input gives byte-identical output). Exit 1 with one line
naming the file (and line) on bad input.
"""
import argparse
import csv
import sys

COLUMNS = ["policy", "seed", "pods_arrived", "pods_placed", "arrived_gpu_pct",
           "allocated_gpu_pct", "frag_gpu_pct"]
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f"]
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 720, 440, 60, 160, 20, 50


class InputError(Exception):
    pass


def read_runs(path):
    """{policy: {seed: [(arrived, allocated), ...]}} in file order."""
    try:
        f = open(path, newline="")
    except OSError as e:
        raise InputError("%s: cannot read (%s)" % (path, e.strerror))
    runs = {}
    with f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != COLUMNS:
            raise InputError("%s:1: expected the header %s" % (path, ",".join(COLUMNS)))
        for line, row in enumerate(reader, start=2):
            if len(row) != len(COLUMNS):
                raise InputError("%s:%d: expected %d fields" % (path, line, len(COLUMNS)))
            try:
                arrived, allocated = float(row[4]), float(row[5])
            except ValueError:
                raise InputError("%s:%d: arrived/allocated is not a number" % (path, line))
            runs.setdefault(row[0], {}).setdefault(row[1], []).append((arrived, allocated))
    if not runs:
        raise InputError("%s: no rows after the header" % path)
    return runs


def mean_curve(seeds):
    """[(k, mean allocated at the first point with arrived >= k)] for k every run reaches."""
    top = min(int(points[-1][0]) for points in seeds.values())
    curve = []
    for k in range(1, top + 1):
        values = [next(a for (arr, a) in points if arr >= k) for points in seeds.values()]
        curve.append((k, sum(values) / len(values)))
    return curve


def svg(curves):
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    x_max = max(max(k for k, _ in c) for c in curves.values() if c)
    x_max = max(10, (x_max + 9) // 10 * 10)
    sx = lambda x: LEFT + plot_w * x / x_max
    sy = lambda y: TOP + plot_h * (1 - y / 100.0)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (WIDTH, HEIGHT),
           '<rect width="100%" height="100%" fill="white"/>']
    for x in range(0, x_max + 1, 10):
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   % (sx(x), TOP, sx(x), TOP + plot_h))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>'
                   % (sx(x), TOP + plot_h + 16, x))
    for y in range(0, 101, 10):
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (LEFT, sy(y), LEFT + plot_w, sy(y)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%d</text>' % (LEFT - 6, sy(y) + 4, y))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">arrived GPU request (%% of capacity)'
               '</text>' % (LEFT + plot_w / 2, HEIGHT - 12))
    out.append('<text transform="translate(16,%.1f) rotate(-90)" text-anchor="middle">'
               'allocated GPU (%%)</text>' % (TOP + plot_h / 2))
    for i, (policy, curve) in enumerate(curves.items()):
        color = COLORS[i % len(COLORS)]
        points = " ".join("%.1f,%.1f" % (sx(k), sy(a)) for k, a in curve)
        out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>'
                   % (color, points))
        y = TOP + 14 + 18 * i
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                   % (LEFT + plot_w + 12, y - 4, LEFT + plot_w + 32, y - 4, color))
        final = ("%.2f" % curve[-1][1]) if curve else "-"
        out.append('<text x="%d" y="%d">%s (%s)</text>' % (LEFT + plot_w + 38, y, policy, final))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    out = args.out or args.dir + "/allocation.svg"
    try:
        runs = read_runs(args.dir + "/curve.csv")
        text = svg({policy: mean_curve(seeds) for policy, seeds in runs.items()})
        with open(out, "w") as f:
            f.write(text)
    except InputError as e:
        print("fgd_figure: %s" % e, file=sys.stderr)
        return 1
    except OSError as e:
        print("fgd_figure: %s: cannot write (%s)" % (out, e.strerror), file=sys.stderr)
        return 1
    print("fgd_figure: %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
