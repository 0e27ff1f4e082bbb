#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The scx_qos figure's table from the QOS-FIGURE lines guest-figure.sh
wrote: per load and scheduler, the medians over the rounds of the frame
and audio loops' p99 over that scheduler's own idle floor (the same
round), the hogs' throughput under scx_qos against EEVDF+qosd, and the
background hogs' longest stall, over the whole cell and from a second
after the loops started; the loops' p99 and wake-up p99 in milliseconds;
then scx_qos's counters per round.

Usage: figure.py RESULTS.txt...   (several runs: their rounds pooled)
"""
import statistics
import sys

from results import result_lines


def ms_table(cells, rounds, title, frame_key, audio_key):
    print()
    print(title)
    print("| load | sched | frame | audio |")
    print("| --- | --- | ---: | ---: |")
    for load in ("idle", "bg4", "util4"):
        for sched in ("eevdf", "scx"):
            fr, au = [], []
            for r in rounds:
                c = cells.get((r, sched, load))
                if c and frame_key in c:
                    fr.append(c[frame_key] / 1e3)
                    au.append(c[audio_key] / 1e3)
            if fr:
                print(f"| {load} | {sched} | {statistics.median(fr):.2f} | {statistics.median(au):.2f} |")


def main():
    cells, counters = {}, []
    for run, w in result_lines(sys.argv[1:]):
        if w and w[0] == "QOS-FIGURE" and len(w) >= 4:
            r, sched, load = f"{run}.{w[1]}", w[2], w[3]
            kv = dict(zip(w[4::2], (float(x) for x in w[5::2])))
            cells[(r, sched, load)] = kv
        elif w and w[0] == "QOS-FIGURE-SCX":
            counters.append(f"{run}." + " ".join(w[1:]))
    if not cells:
        print("no figure lines (see the console log)")
        return 1
    rounds = sorted({k[0] for k in cells})
    print(f"{len(rounds)} rounds; medians; p99 over the same scheduler's idle floor")
    print("| load | sched | frame p99 | audio p99 | frame floor ms | audio floor ms | hogs' work vs EEVDF "
          "| background's longest stall ms (all / steady) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for load in ("bg4", "util4"):
        for sched in ("eevdf", "scx"):
            fr, au, ff, af, work, gap, steady = [], [], [], [], [], [], []
            for r in rounds:
                c, idle = cells.get((r, sched, load)), cells.get((r, sched, "idle"))
                base = cells.get((r, "eevdf", load))
                if not c or not idle:
                    continue
                fr.append(c["frame_p99_us"] / max(idle["frame_p99_us"], 1))
                au.append(c["audio_p99_us"] / max(idle["audio_p99_us"], 1))
                ff.append(idle["frame_p99_us"] / 1e3)
                af.append(idle["audio_p99_us"] / 1e3)
                if base and base["hog_units"]:
                    work.append(c["hog_units"] / base["hog_units"])
                if load == "bg4":
                    gap.append(c["hog_max_gap_ms"])
                    if "hog_steady_gap_ms" in c:
                        steady.append(c["hog_steady_gap_ms"])
            if not fr:
                continue
            med = statistics.median
            stall = "-"
            if gap:
                stall = f"{med(gap):.0f} / " + (f"{med(steady):.0f}" if steady else "-")
            print(f"| {load} | {sched} | {med(fr):.2f}x | {med(au):.2f}x | {med(ff):.2f} | {med(af):.2f} | "
                  f"{med(work) * 100:.0f}% | {stall} |")
    # In milliseconds too: under host load one cell's floor can be hit by
    # the host alone, and a ratio over it says nothing.
    ms_table(cells, rounds, "loops' p99 ms (release to end of work), medians", "frame_p99_us", "audio_p99_us")
    ms_table(cells, rounds, "wake-up p99 ms (release to running), medians", "frame_wake_p99_us",
             "audio_wake_p99_us")
    for c in counters:
        print(f"scx_qos counters, round and load {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
