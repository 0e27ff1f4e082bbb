#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The desktop figure, inside the systemd VM (run-figure.sh starts it).

Two 60 Hz frame loops (3 ms of work per frame, tagged user-interactive by
rules): the app, a scope in app.slice; the compositor, a scope in
session.slice (where gnome-shell and plasmashell run). Three loads, tagged
background by rules:
  hogs      4 CPU hogs, each an app scope of its own
  make      `make -j4` of a real tree, over and over, from a shell in a
            vte-spawn-like scope that also holds an idle process
  hogs+cpu  the hogs after another app scope was given a CPUWeight, so
            that app.slice has the cpu controller on
Variants: untouched (no qosd), per-thread (qosd, SystemdUnits=no), systemd
(qosd's default here). Per round, each probe's p99 over its idle floor of
that round, and the load's throughput against untouched; medians over the
rounds. TCG inflates the floor, so only ratios within a run are compared.
"""
import glob
import os
import statistics
import subprocess
import sys
import time

USER, UID = "alice", 1000
UMGR = f"/sys/fs/cgroup/user.slice/user-{UID}.slice/user@{UID}.service"
SECONDS = 10
ENV = ["env", f"XDG_RUNTIME_DIR=/run/user/{UID}"]
LOADS = ["hogs", "make", "hogs+cpu"]
VARIANTS = ["untouched", "per-thread", "systemd"]
BUILT = "/tmp/qos-built"


def sh(*argv, check=False):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=check).stdout


def user(*argv):
    return ["runuser", "-u", USER, "--"] + ENV + list(argv)


def scope(unit, argv, slice_=None, **kw):
    cmd = ["systemd-run", "--user", "--scope", "--quiet", f"--unit={unit}"]
    if slice_:
        cmd.append(f"--slice={slice_}")
    return subprocess.Popen(user(*cmd, *argv), **kw)


def ustl(*argv):
    return sh(*user("systemctl", "--user", *argv))


def wait(pred, tenths=200):
    for _ in range(tenths):
        if pred():
            return True
        time.sleep(0.1)
    return False


def qosd(variant):
    with open("/etc/qos/qosd.conf", "w") as f:
        f.write("[Daemon]\nSystemdUnits=%s\n" % ("no" if variant == "per-thread" else "yes"))
    if variant != "untouched":
        sh("systemctl", "start", "qosd")


def procs(unit_dir):
    try:
        return [int(p) for p in open(unit_dir + "/cgroup.procs").read().split()]
    except OSError:
        return []


def cpu_ticks(pids):
    t = 0
    for p in pids:
        try:
            f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            t += int(f[11]) + int(f[12])
        except (OSError, IndexError):
            pass
    return t


def start_load(load):
    devnull = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if load == "hogs+cpu":
        scope("app-other", ["sleep", "100000"], **devnull)
        wait(lambda: procs(f"{UMGR}/app.slice/app-other.scope"))
        ustl("set-property", "--runtime", "app-other.scope", "CPUWeight=100")
    if load in ("hogs", "hogs+cpu"):
        for i in range(4):
            scope(f"app-hog{i}", ["/usr/local/bin/qos-hog"], **devnull)
        wait(lambda: all(procs(f"{UMGR}/app.slice/app-hog{i}.scope") for i in range(4)))
        return lambda: cpu_ticks(sum((procs(f"{UMGR}/app.slice/app-hog{i}.scope") for i in range(4)), []))
    loop = f"sleep 100000 & while :; do make -s -j4 -C /home/{USER}/tree clean all; done"
    scope("vte-spawn-bench", ["/bin/sh", "-c", loop], **devnull)
    return lambda: sum(1 for _ in open(BUILT)) if os.path.exists(BUILT) else 0


def stop_all():
    for u in ["app-frame", "shell-frame", "app-other", "vte-spawn-bench"] + [f"app-hog{i}" for i in range(4)]:
        ustl("stop", f"{u}.scope")
    ustl("stop", "qos-background-*.scope")
    sh("pkill", "-x", "make")
    sh("systemctl", "stop", "qosd")
    if os.path.exists(BUILT):
        os.unlink(BUILT)


def app_slice_cpu():
    try:
        return "cpu" in open(f"{UMGR}/app.slice/cgroup.subtree_control").read().split()
    except OSError:
        return False


def probes():
    """Both frame loops at once; returns {probe: p99 ms}."""
    out = {"app": "/tmp/frame-app.txt", "shell": "/tmp/frame-shell.txt"}
    ps = {}
    for name, unit, exe, slice_ in [("app", "app-frame", "qos-frame-app", None),
                                    ("shell", "shell-frame", "qos-frame-shell", "session.slice")]:
        if os.path.exists(out[name]):
            os.unlink(out[name])
        ps[name] = scope(unit, [f"/usr/local/bin/{exe}", "--period", "16.667", "--work", "3",
                                "--seconds", str(SECONDS), "--out", out[name]], slice_,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for p in ps.values():
        p.stdout.readline()  # "ready"
    time.sleep(0.5)  # qosd tags them at exec; give the unit weight time to land
    for p in ps.values():
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in ps.values():
        p.wait(timeout=SECONDS * 5)
    res = {}
    for name, path in out.items():
        v = sorted(float(line.split()[0]) for line in open(path))
        res[name] = v[min(len(v) - 1, int(0.99 * len(v)))] / 1000.0
    return res


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    stop_all()
    probes()  # warm-up: the first run after boot pays for cold caches
    ratio = {}  # (load, variant, what) -> [values]
    cpu_on = {}
    floors = []
    for r in range(rounds):
        qosd("untouched")
        floor = probes()
        floors.append(floor)
        print(f"# round {r + 1}: floor app {floor['app']:.2f} ms, compositor {floor['shell']:.2f} ms", flush=True)
        base = {}
        for load in LOADS:
            for variant in VARIANTS:
                qosd(variant)
                counter = start_load(load)
                time.sleep(3)
                c0, t0 = counter(), time.monotonic()
                p = probes()
                c1, t1 = counter(), time.monotonic()
                cpu_on.setdefault((load, variant), []).append(app_slice_cpu())
                stop_all()
                rate = (c1 - c0) / (t1 - t0)
                if variant == "untouched":
                    base[load] = rate
                key = (load, variant)
                ratio.setdefault(key + ("app",), []).append(p["app"] / floor["app"])
                ratio.setdefault(key + ("shell",), []).append(p["shell"] / floor["shell"])
                ratio.setdefault(key + ("load",), []).append(rate / base[load] if base[load] else 0)
                print(f"#   {load:9s} {variant:10s} app {p['app']:6.2f} ms  compositor {p['shell']:6.2f} ms"
                      f"  load {rate:8.1f}/s", flush=True)
    med = lambda k: statistics.median(ratio[k])
    print()
    print(f"p99 over the idle floor (median of {rounds} rounds of {SECONDS} s; floor app "
          f"{statistics.median(f['app'] for f in floors):.2f} ms, compositor "
          f"{statistics.median(f['shell'] for f in floors):.2f} ms), and the load's throughput against untouched")
    print()
    print("| load | variant | app (app.slice) | compositor (session.slice) | load throughput | app.slice has cpu |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for load in LOADS:
        for variant in VARIANTS:
            k = (load, variant)
            on = sum(cpu_on[k]) * 2 > len(cpu_on[k])
            print(f"| {load} | {variant} | {med(k + ('app',)):.2f}× | {med(k + ('shell',)):.2f}× | "
                  f"{med(k + ('load',)) * 100:.0f}% | {'yes' if on else 'no'} |")


if __name__ == "__main__":
    main()
