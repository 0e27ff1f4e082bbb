#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Read the results each kernel-matrix run wrote (the lines are described
in run-tests.sh and report-kernel.sh; init adds QOS-BOOTED SECONDS,
boot.sh QOS-TIMEOUT SECONDS, check-kernels.sh QOS-TIME SECONDS and
QOS-NOT-BUILT REASON for a kernel that is not there, which counts as one
skip; init adds QOS-SCX WORDS... where it loads scx_qos around the tests:
"loaded", or "failed WHY", then "end STATE OPS" read from sysfs after the
tests, where anything but "end enabled qos" is a failure), print a summary line per kernel and the
failures, write the kernel x knob table as Markdown, and end with the
total "N passed, N failed, N skipped" line. A kernel whose run did not
finish (no QOS-DONE) counts as one more failure.

Usage: summarize.py TABLE.md RESULTS...   (RESULTS named KERNEL.txt)
Exit status 0 when nothing failed.
"""
import os
import sys

KNOBS = ["slice", "uclamp", "ramp-up", "ioprio", "timer-slack"]
FEATURES = ["autogroup", "cpu.idle", "cpu.uclamp", "sched_ext", "proc-connector"]


def parse(path):
    r = {"name": os.path.basename(path)[:-len(".txt")], "tests": [], "logs": [],
         "knobs": {}, "features": {}, "done": None, "release": "?", "cgroup": "?",
         "seconds": None, "booted": None, "timeout": None, "not_built": None,
         "scx": []}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            word, _, rest = line.partition(" ")
            if word == "QOS-KERNEL":
                r["release"] = rest
            elif word == "QOS-CGROUP":
                r["cgroup"] = rest
            elif word == "QOS-CLASSES":
                # "| KNOB VALUE VALUE VALUE VALUE ON THIS KERNEL..."
                fields = rest[2:].split(None, 5)
                if len(fields) == 6 and fields[0] in KNOBS:
                    r["knobs"][fields[0]] = fields[5]
            elif word == "QOS-FEATURE":
                name, _, value = rest.partition(" ")
                r["features"][name] = value
            elif word == "QOS-TEST":
                name, suite, result, secs = rest.split()
                r["tests"].append((name, suite, result, float(secs)))
            elif word == "QOS-LOG":
                r["logs"].append(rest)
            elif word == "QOS-DONE":
                r["done"] = [int(n) for n in rest.split()]
            elif word == "QOS-TIME":
                r["seconds"] = float(rest)
            elif word == "QOS-BOOTED":
                r["booted"] = float(rest)
            elif word == "QOS-TIMEOUT":
                r["timeout"] = rest
            elif word == "QOS-NOT-BUILT":
                r["not_built"] = rest
            elif word == "QOS-SCX":
                r["scx"].append(rest)
    return r


def tally(r):
    return [sum(t[2] == w for t in r["tests"]) for w in ("PASS", "FAIL", "SKIP")]


def problem(r):
    """Why a run's results cannot be trusted whole, or None."""
    if r["not_built"]:
        return None
    if r["timeout"]:
        return f"timed out after {r['timeout']}s"
    if r["done"] is None:
        return "did not finish (see its console log)"
    if r["done"] != tally(r):
        return f"counted {r['done']} passed/failed/skipped, but its result lines say {tally(r)}"
    if r["scx"] and r["scx"][-1] != "end enabled qos":
        return "lost scx_qos during the tests: " + "; ".join(r["scx"])
    return None


def counts(r):
    if r["not_built"]:
        return 0, 0, 1
    p, f, s = tally(r)
    return p, f + (1 if problem(r) else 0), s


def cell(value):
    return value.replace("|", "\\|") if value else "?"


def table(runs):
    head = ["kernel"] + KNOBS + FEATURES + ["tests passed"]
    rows = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in runs:
        p, f, s = counts(r)
        tests = f"{p}/{p + f + s}" + (f", {s} skipped" if s else "")
        if r["not_built"]:
            tests = "not built (make kernel-ext)"
        row = [f"{r['name']} ({r['release']}, cgroup {r['cgroup']})"]
        row += [cell(r["knobs"].get(k)) for k in KNOBS]
        row += [cell(r["features"].get(k)) for k in FEATURES]
        row.append(tests)
        rows.append("| " + " | ".join(row) + " |")
    return "\n".join(rows) + "\n"


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    runs = [parse(p) for p in paths]
    total = [0, 0, 0]
    for r in runs:
        p, f, s = counts(r)
        total = [total[0] + p, total[1] + f, total[2] + s]
        took = f", {r['seconds']:.0f}s" if r["seconds"] is not None else ""
        if r["booted"] is not None:
            took += f" (booted in {r['booted']:.1f}s)"
        if r["not_built"]:
            print(f"kernel {r['name']}: skipped, not built ({r['not_built']})")
            continue
        print(f"kernel {r['name']} ({r['release']}): {p} passed, {f} failed, {s} skipped{took}")
        if r["scx"]:
            print(f"  scx_qos: {'; '.join(r['scx'])}")
        for name, _, result, _ in r["tests"]:
            if result == "FAIL":
                print(f"  FAIL {name}")
        for line in r["logs"]:
            print(f"    {line}")
        if problem(r):
            print(f"  the run {problem(r)}")
    with open(out, "w") as f:
        f.write(table(runs))
    print(f"{total[0]} passed, {total[1]} failed, {total[2]} skipped")
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main())
