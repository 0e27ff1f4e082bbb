#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Background on the efficient CPUs, inside the systemd VM (4 vCPUs;
run-placement.sh starts it).

A 60 Hz frame loop (3 ms of work per frame, user-interactive by its rule)
in an app scope, beside 4 CPU hogs (`yes`, background by their rule), each
an app scope of its own. Variants:
  untouched   no qosd
  classes     qosd, one kind of CPU: the hogs idle, on every CPU
  placed      qosd with EfficientCPUs=2-3: the hogs also only on CPUs 2-3
Per variant: the frame's p99 over its idle floor (frames pooled over the
rounds), the hogs' CPU time against untouched (median of the rounds), the
CPUs their masks allow, and the CPUs they were seen on (/proc/PID/stat
field 39, sampled every 50 ms while the frame ran).
"""
import os
import statistics
import subprocess
import sys
import threading
import time

USER, UID = "alice", 1000
UMGR = f"/sys/fs/cgroup/user.slice/user-{UID}.slice/user@{UID}.service"
SECONDS = 10
HOGS = 4
ENV = ["env", f"XDG_RUNTIME_DIR=/run/user/{UID}"]
VARIANTS = ["untouched", "classes", "placed"]


def sh(*argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout


def scope(unit, argv, **kw):
    return subprocess.Popen(["runuser", "-u", USER, "--"] + ENV +
                            ["systemd-run", "--user", "--scope", "--quiet", f"--unit={unit}"] + argv, **kw)


def wait(pred, tenths=200):
    for _ in range(tenths):
        if pred():
            return True
        time.sleep(0.1)
    return False


def procs(unit):
    try:
        return [int(p) for p in open(f"{UMGR}/app.slice/{unit}.scope/cgroup.procs").read().split()]
    except OSError:
        return []


def qosd(variant):
    # alice sits at no seat: no foreground gate, as on a desktop whose
    # user is at it.
    with open("/etc/qos/qosd.conf", "w") as f:
        f.write("[Daemon]\nForegroundGate=no\n")
        if variant == "placed":
            f.write("EfficientCPUs=2-3\n")
    if variant != "untouched":
        sh("systemctl", "start", "qosd")


def stat(pid):
    return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()


def ticks(pids):
    t = 0
    for p in pids:
        try:
            f = stat(p)
            t += int(f[11]) + int(f[12])
        except (OSError, IndexError):
            pass
    return t


def allowed(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("Cpus_allowed_list:"):
                return line.split()[1]
    except OSError:
        pass
    return "?"


def seen_on(pids, stop, out):
    """The CPUs the hogs were last on (stat field 39), every 50 ms."""
    while not stop.is_set():
        for p in pids:
            try:
                out.add(int(stat(p)[36]))
            except (OSError, IndexError, ValueError):
                pass
        time.sleep(0.05)


def hogs():
    pids = []
    for i in range(HOGS):
        scope(f"app-hog{i}", ["/usr/local/bin/qos-hog"], stdin=subprocess.DEVNULL,
              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait(lambda: all(procs(f"app-hog{i}") for i in range(HOGS)))
    for i in range(HOGS):
        pids += procs(f"app-hog{i}")
    return pids


def probe():
    out = "/tmp/frame.txt"
    if os.path.exists(out):
        os.unlink(out)
    p = scope("app-frame", ["/usr/local/bin/qos-frame-app", "--period", "16.667", "--work", "3",
                            "--seconds", str(SECONDS), "--out", out],
              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdout.readline()  # "ready"
    time.sleep(0.5)
    p.stdin.write("go\n")
    p.stdin.flush()
    p.wait(timeout=SECONDS * 5)
    return [float(line.split()[0]) / 1000.0 for line in open(out)]


def stop_all():
    for u in ["app-frame"] + [f"app-hog{i}" for i in range(HOGS)]:
        sh("runuser", "-u", USER, "--", *ENV, "systemctl", "--user", "stop", f"{u}.scope")
    sh("systemctl", "stop", "qosd")


def p99(v):
    v = sorted(v)
    return v[min(len(v) - 1, int(0.99 * len(v)))]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    stop_all()
    probe()  # warm-up
    frames, ratio, masks, seen = {}, {}, {}, {}
    for r in range(rounds):
        qosd("untouched")
        frames.setdefault("floor", []).extend(probe())
        base = None
        for variant in VARIANTS:
            qosd(variant)
            pids = hogs()
            time.sleep(3)
            now_allowed = set(allowed(p) for p in pids)
            masks.setdefault(variant, set()).update(now_allowed)
            stop, on = threading.Event(), set()
            watcher = threading.Thread(target=seen_on, args=(pids, stop, on))
            watcher.start()
            c0, t0 = ticks(pids), time.monotonic()
            f = probe()
            c1, t1 = ticks(pids), time.monotonic()
            stop.set()
            watcher.join()
            stop_all()
            rate = (c1 - c0) / (t1 - t0)
            base = rate if variant == "untouched" else base
            frames.setdefault(variant, []).extend(f)
            ratio.setdefault(variant, []).append(rate / base if base else 0)
            seen.setdefault(variant, set()).update(on)
            print(f"# round {r + 1}: {variant:9s} frame p99 {p99(f):6.2f} ms  hogs {rate:7.1f} ticks/s  "
                  f"allowed {' '.join(sorted(now_allowed))}  seen on {sorted(on)}", flush=True)
    floor = p99(frames["floor"])
    print()
    print(f"4 vCPUs, EfficientCPUs=2-3 in 'placed'; frame p99 over its idle floor ({floor:.2f} ms), frames "
          f"pooled over {rounds} rounds of {SECONDS} s; the hogs' CPU time against untouched, median [range]")
    print()
    print("| variant | frame p99 / floor | hogs' CPU time | hogs allowed on | hogs seen on |")
    print("| --- | ---: | ---: | --- | --- |")
    for v in VARIANTS:
        rs = ratio[v]
        print(f"| {v} | {p99(frames[v]) / floor:.2f}× | {statistics.median(rs) * 100:.0f}% "
              f"[{min(rs) * 100:.0f}–{max(rs) * 100:.0f}] | {' '.join(sorted(masks[v]))} | "
              f"{','.join(str(c) for c in sorted(seen[v]))} |")


if __name__ == "__main__":
    main()
