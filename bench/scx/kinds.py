#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The table of guest-kinds.sh's QOS-KINDS lines: per variant, medians over
the rounds of the two frame loops' p99 over the round's floor (the loops
alone), the background hogs' work against EEVDF's, and the share of it
done on the efficient CPUs 2-3; then scx_qos's placement counters.

Usage: kinds.py RESULTS.txt...   (several runs: their rounds pooled)
"""
import statistics
import sys

from results import result_lines

VARIANTS = [("eevdf", "EEVDF + qosd's classes"), ("alike", "scx_qos, all CPUs alike"),
            ("kinds", "scx_qos, CPUs 2-3 efficient")]


def main():
    cells, counters = {}, []
    for run, w in result_lines(sys.argv[1:]):
        if len(w) >= 3 and w[0] == "QOS-KINDS":
            cells[(f"{run}.{w[1]}", w[2])] = dict(zip(w[3::2], (float(x) for x in w[4::2])))
        elif w and w[0] == "QOS-KINDS-SCX":
            kv = dict(x.split("=", 1) for x in w[3:] if "=" in x)
            counters.append((f"{run}.{w[1]}", w[2], kv))
    rounds = sorted({k[0] for k in cells})
    if not rounds:
        print("no QOS-KINDS lines (see the console log)")
        return 1
    print(f"4 vCPUs; 2 user-interactive frame loops beside 2 background hogs; {len(rounds)} rounds, medians")
    print()
    print("| scheduler | frame p99 / floor | hogs' work vs EEVDF | of it on the efficient CPUs 2-3 |")
    print("| --- | ---: | ---: | ---: |")
    for v, name in VARIANTS:
        over, work, eff = [], [], []
        for r in rounds:
            c, floor, base = cells.get((r, v)), cells.get((r, "floor")), cells.get((r, "eevdf"))
            if not c or not floor:
                continue
            over.append(c["frame_p99_us"] / floor["frame_p99_us"])
            work.append(c["hog_units"] / base["hog_units"] if base and base["hog_units"] else 0)
            eff.append(c["hog_efficient_pct"])
        if over:
            print(f"| {name} | {statistics.median(over):.2f}× | {statistics.median(work) * 100:.0f}% "
                  f"| {statistics.median(eff):.0f}% |")
    print()
    print("scx_qos's counters per round: background wake-ups put on an idle efficient CPU, "
          "user-class ones on an idle performance CPU, background guard runs")
    for r, v, kv in counters:
        print(f"  round {r} {v}: bg_efficient {kv.get('bg_efficient', '?')} "
              f"ui_performance {kv.get('ui_performance', '?')} guard_bg {kv.get('guard_bg', '?')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
