#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Statistics for run-focus-bench.sh.

tail FLOOR FOCUSED UNFOCUSED N: the p99 frame time of the floor and of the
last N frames of the focused app, their ratio, and the share of those
frames in which the focused app had nice -20 and the unfocused one 0.
table RESULTS: the medians over the rounds, as Markdown tables."""
import statistics
import sys


def frames(path):
    rows = []
    with open(path) as f:
        for line in f:
            nice, us = line.split()
            rows.append((int(nice), int(us)))
    return rows


def p99(values):
    values = sorted(values)
    return values[min(len(values) - 1, (len(values) * 99) // 100)]


def tail(floor, focused, unfocused, n):
    fl = [us for _, us in frames(floor)[30:]]  # the first half second settles
    fo = frames(focused)[-n:]
    un = frames(unfocused)[-n:]
    granted = sum(1 for nice, _ in fo if nice == -20) / len(fo)
    held = sum(1 for nice, _ in un if nice == 0) / len(un)
    f99, o99 = p99(fl), p99([us for _, us in fo])
    print(f"{f99} {o99} {o99 / f99:.2f} {granted:.3f} {held:.3f}")


def table(path):
    lat, fr = {}, {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 3:
                continue
            if w[1] == "frames":
                fr.setdefault(w[0], []).append([float(x) for x in w[2:7]])
            else:
                lat.setdefault((w[0], w[1]), []).append([float(x) for x in w[2:6]])
    med = lambda rows, i: statistics.median(r[i] for r in rows)
    print("| load | source | p50 ms | p99 ms | max ms | missed | rounds |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for (load, source), rows in sorted(lat.items()):
        print(f"| {load} | {source} | {med(rows, 0) / 1000:.2f} | {med(rows, 1) / 1000:.2f} | "
              f"{med(rows, 2) / 1000:.2f} | {med(rows, 3):.0f} | {len(rows)} |")
    print()
    print("| load | floor p99 ms | focused p99 ms | ratio | focused granted | unfocused held | rounds |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for load, rows in sorted(fr.items()):
        ratios = sorted(r[2] for r in rows)
        print(f"| {load} | {med(rows, 0) / 1000:.2f} | {med(rows, 1) / 1000:.2f} | {med(rows, 2):.2f} "
              f"({ratios[0]:.2f}–{ratios[-1]:.2f}) | {med(rows, 3) * 100:.0f}% | {med(rows, 4) * 100:.0f}% | {len(rows)} |")


if __name__ == "__main__":
    if sys.argv[1] == "tail":
        tail(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif sys.argv[1] == "table":
        table(sys.argv[2])
    else:
        sys.exit(__doc__)
