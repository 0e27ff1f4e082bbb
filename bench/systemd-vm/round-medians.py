#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The desktop figure per round: each cell's p99 over the idle floor of
its own round, then the median over the rounds.

figure.py pools frames over the rounds against a pooled floor, which is
right on a quiet host. Under a host whose load changes (a TCG guest's
time is the host's scheduling of its vCPU threads) the floor moves from
round to round, and the pooled p99 is the worst round's. This reads the
round lines figure.py prints and gives both views' inputs side by side.

Usage: bench/systemd-vm/round-medians.py [build-systemd-vm/figure.txt]
"""
import re
import statistics
import sys

ROUND = re.compile(r"# round (\d+): floor app ([\d.]+) ms, compositor ([\d.]+) ms")
CELL = re.compile(r"#\s+(\S+)\s+(\S+)\s+app\s+([\d.]+) ms\s+compositor\s+([\d.]+) ms"
                  r"(?:.*?managers\+qosd\+bus ([\d.]+) ticks/s)?")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "build-systemd-vm/figure.txt"
    cells, order, floor = {}, [], None
    for line in open(path):
        m = ROUND.search(line)
        if m:
            floor = (float(m.group(2)), float(m.group(3)))
            continue
        m = CELL.search(line)
        if m and floor:
            key = (m.group(1), m.group(2))
            if key not in cells:
                order.append(key)
            cells.setdefault(key, []).append(
                (float(m.group(3)) / floor[0], float(m.group(4)) / floor[1], m.group(5) or "–"))
    if not cells:
        sys.exit(f"{path}: no round lines (figure.py's output with its '# round' lines)")
    print("| load | variant | app, per round | compositor, per round | app median | compositor median "
          "| managers+qosd+bus ticks/s |")
    print("| --- | --- | --- | --- | ---: | ---: | --- |")
    for key in order:
        v = cells[key]
        print(f"| {key[0]} | {key[1]} | {' '.join(f'{a:.2f}' for a, _, _ in v)} | "
              f"{' '.join(f'{c:.2f}' for _, c, _ in v)} | {statistics.median(a for a, _, _ in v):.2f}× | "
              f"{statistics.median(c for _, c, _ in v):.2f}× | {' '.join(h for _, _, h in v)} |")


if __name__ == "__main__":
    main()
