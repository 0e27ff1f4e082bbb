#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run the benchmark scenarios and print what the classes buy.

Every scenario runs all of its variants in one invocation, interleaved: for
each repetition the variants run once each in a freshly shuffled order, so
slow drifts of the machine (other users, thermal, the host) spread over all
variants alike. Latency samples are pooled over repetitions; the headline
is the median over repetitions of each repetition's p99, divided by the
idle floor's from the same run.

    bench/run.py [--build DIR] [--scenarios a,b,...] [--reps N] [--quick]
                 [--wait-quiet MINUTES] [--out DIR]

The probes, the hog and the variant table are C programs in bench/; this
script only starts processes, has qos-bench-apply set them, and counts.
"""
import argparse
import csv
import ctypes
import datetime
import math
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

NPROC = os.cpu_count() or 1

# Periodic probes: (period ms, CPU work ms per period, seconds per repetition).
# Repetition lengths give >= 560 samples each, >= 2,800 pooled over 5 reps.
PROBES = {
    "frame60": dict(period=16.7, work=3.0, seconds=10, what="60 Hz frame: 16.7 ms period, 3 ms work"),
    "frame120": dict(period=8.3, work=1.5, seconds=5, what="120 Hz frame: 8.3 ms period, 1.5 ms work"),
    "audio": dict(period=5.3, work=0.5, seconds=3, what="audio: 5.3 ms period, 0.5 ms work"),
    "wakeup": dict(period=1.0, work=0.0, seconds=2, what="wake-up latency: 1 ms timer, no work"),
}
# The user-initiated pool of scenario (d): a job every 50 ms, split over one
# worker per CPU, 5 ms of work each (20% of the machine).
POOL = dict(period=50, work=5.0, threads=NPROC)

MAIN_VARIANTS = ["untouched", "qosd", "schedqos", "nice-only", "idle-only"]
# The tuning runs: qosd's table against its neighbours (see apply.c).
UI_VARIANTS = ["untouched", "qosd", "ui:nice-10-0.5ms", "ui:nice-10-3ms", "ui:nice-20-0.5ms", "ui:nice-15-3ms"]
TUNE_VARIANTS = ["untouched", "qosd", "bg:normal-19-8ms", "bg:batch-19-8ms", "bg:idle", "bg:idle-30ms"]

# load: "hogs" (2 x nproc qos-bench-hog) or "build" (ninja -j nproc of this
# tree, over and over); load_role: the role the load gets; separate: every
# process in its own session (its own autogroup), as desktop apps are.
SCENARIOS = {
    "a": dict(title="probe user-interactive, %d hogs background, one session" % (2 * NPROC),
              probes=["frame60", "frame120", "audio", "wakeup"], load="hogs", load_role="background",
              separate=False, variants=MAIN_VARIANTS, goal_ratio=1.25, goal_bg=0.95),
    "b": dict(title="as (a), every hog and the probe in its own session (autogroup)",
              probes=["frame60"], load="hogs", load_role="background", separate=True,
              variants=MAIN_VARIANTS + ["qosd+groups"], goal_ratio=1.25, goal_bg=0.95),
    "c": dict(title="hogs untagged, only the probe promoted, one session",
              probes=["frame60"], load="hogs", load_role="untagged", separate=False,
              variants=MAIN_VARIANTS, goal_ratio=1.5),
    "d": dict(title="user-initiated pool (%d threads, 5 ms each per 50 ms job), background hogs, probe"
              % NPROC, probes=["frame60"], pool=True, load="hogs", load_role="background", separate=False,
              variants=MAIN_VARIANTS, goal_ratio=1.25, goal_pool=2.0, goal_bg=0.90),
    "e": dict(title="a real build (ninja -j%d of qosd) as background, one session" % NPROC,
              probes=["frame60"], load="build", load_role="background", separate=False,
              variants=MAIN_VARIANTS, goal_ratio=1.25, goal_bg=0.95),
    "tune": dict(title="tuning background: probe user-interactive, %d hogs with background varied"
                 % (2 * NPROC), probes=["frame60"], load="hogs", load_role="background",
                 separate=False, variants=TUNE_VARIANTS),
    "tune-ui": dict(title="tuning user-interactive: hogs untagged as in (c), the probe's settings varied",
                    probes=["frame60", "audio"], load="hogs", load_role="untagged", separate=False,
                    variants=UI_VARIANTS),
}
ORDER = ["a", "b", "c", "d", "e", "tune", "tune-ui", "starve"]
FOREIGN = {"cc1", "cc1plus", "ninja", "meson", "make", "cargo", "rustc"}  # and qemu*


def die(msg):
    print("run.py: " + msg, file=sys.stderr)
    sys.exit(1)


class Bench:
    def __init__(self, args):
        self.args = args
        self.bin = os.path.join(args.build, "bench")
        self.out = args.out
        self.procs = []         # everything started and not yet reaped
        self.hog_kib = l2_kib() * 3 // 4
        self.runs = []          # one dict per (scenario, probe, variant, rep)
        self.starve = []
        self.build_dir = None
        self.skipped = {}       # variant -> reason
        self.retry_spent = 0.0  # seconds spent measuring noisy repetitions again

    # --- processes -------------------------------------------------------
    def spawn(self, argv, separate=False, group=False, stdout=subprocess.PIPE):
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=stdout, stderr=None, text=True,
                             start_new_session=separate, process_group=0 if group and not separate else None)
        self.procs.append(p)
        return p

    def wait_ready(self, p, name):
        line = p.stdout.readline() if p.stdout else "ready\n"
        if line.strip() != "ready":
            die("%s did not start (%r)" % (name, line))

    def apply(self, variant, role, procs):
        if not procs:
            return True
        r = subprocess.run([os.path.join(self.bin, "qos-bench-apply"), variant, role]
                           + [str(p.pid) for p in procs], stderr=subprocess.PIPE, text=True)
        if r.returncode == 77:
            self.skipped[variant] = r.stderr.strip().split(": ", 1)[-1]
            return False
        if r.returncode != 0:
            die("qos-bench-apply %s %s: %s" % (variant, role, r.stderr.strip()))
        return True

    def stop(self, p, sig=signal.SIGTERM):
        group = False
        try:
            group = p.pid == os.getpgid(p.pid)
            if group:
                os.killpg(p.pid, sig)
            else:
                p.send_signal(sig)
        except ProcessLookupError:
            pass
        out, _ = p.communicate(timeout=30)
        self.procs.remove(p)
        if group:
            reap_group(p.pid)
        return out or ""

    def finish(self, p, timeout):
        out, _ = p.communicate(timeout=timeout)
        self.procs.remove(p)
        if p.returncode != 0:
            die("%s exited with %d" % (p.args[0], p.returncode))
        return out

    def cleanup(self):
        for p in list(self.procs):
            try:
                if p.poll() is None:
                    if p.pid == os.getpgid(p.pid):
                        os.killpg(p.pid, signal.SIGKILL)
                    else:
                        p.kill()
                p.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        self.procs = []
        reap_orphans()
        subprocess.run([os.path.join(self.bin, "qos-bench-apply"), "--cleanup"])

    # --- one measurement -------------------------------------------------
    def start_load(self, sc, variant):
        """Start the load of scenario sc (nothing for the floor)."""
        if variant == "floor":
            return []
        if sc["load"] == "hogs":
            return [self.spawn([os.path.join(self.bin, "qos-bench-hog"), "--buffer-kib", str(self.hog_kib)],
                               separate=sc["separate"]) for _ in range(2 * NPROC)]
        # The build: a shell that waits for the start, then rebuilds the
        # tree again and again; ninja prints one "[k/N]" line per step.
        script = ('read _; while :; do ninja -C "$1" -t clean >/dev/null; ninja -C "$1" -j %d || exit 1; done'
                  % NPROC)
        return [self.spawn(["sh", "-c", script, "build-load", self.build_dir], separate=sc["separate"],
                           group=True)]

    def measure(self, name, sc, probe, variant, rep):
        cfg = PROBES[probe]
        tmp = os.path.join(self.out, "samples")
        os.makedirs(tmp, exist_ok=True)
        base = os.path.join(tmp, "%s-%s-%s-%d" % (name, probe, variant.replace(":", "_"), rep))
        apply_as = "untouched" if variant == "floor" else variant

        load = self.start_load(sc, variant)
        probe_p = self.spawn([os.path.join(self.bin, "qos-bench-loop"), "--period", str(cfg["period"]),
                              "--work", str(cfg["work"]), "--seconds", str(cfg["seconds"]),
                              "--out", base + ".probe"], separate=sc["separate"])
        pool_p = None
        if sc.get("pool"):
            pool_p = self.spawn([os.path.join(self.bin, "qos-bench-pool"), "--threads", str(POOL["threads"]),
                                 "--period", str(POOL["period"]), "--work", str(POOL["work"]),
                                 "--seconds", str(cfg["seconds"]), "--out", base + ".pool"],
                                separate=sc["separate"])
        measured = [probe_p] + ([pool_p] if pool_p else [])
        for p in load + measured:
            if p.args[0] != "sh":
                self.wait_ready(p, os.path.basename(p.args[0]))

        ok = (self.apply(apply_as, sc["load_role"], load) and self.apply(apply_as, "probe", [probe_p])
              and self.apply(apply_as, "initiated", [pool_p] if pool_p else []))
        if not ok:
            self.cleanup()
            return None

        stat0, ru0 = cpu_stat(), children_usage()
        t0 = time.monotonic()
        for p in load:
            p.stdin.write("go\n")
            p.stdin.flush()
        if load:
            time.sleep(0.5)    # the load reaches its steady state first
        for p in measured:
            p.stdin.write("go\n")
            p.stdin.flush()
        summaries = [self.finish(p, cfg["seconds"] + 30) for p in measured]
        outs = [self.stop(p) for p in load]
        wall = time.monotonic() - t0
        reap_orphans()
        stat1, ru1 = cpu_stat(), children_usage()

        run = dict(scenario=name, probe=probe, variant=variant, rep=rep)
        run.update(sample_stats(base + ".probe", "probe"))
        run["probe_missed"] = int(summaries[0].split()[3])
        if pool_p:
            run.update(sample_stats(base + ".pool", "pool"))
            run["pool_missed"] = int(summaries[1].split()[3])
        if sc["load"] == "hogs" and load:
            hogs = [dict(zip(o.split()[::2], map(float, o.split()[1::2]))) for o in outs]
            run["bg_rate"] = sum(h["units"] / h["seconds"] for h in hogs)
            run["bg_switches"] = sum(h["switches"] / h["seconds"] for h in hogs)
        elif load:
            steps = len(re.findall(r"^\[\d+/\d+\]", outs[0], re.M))
            run["bg_rate"] = steps / wall
            # Where a build's steps go (scenario (e)): the CPU it got (all
            # children's time less the probe's own work), the machine's idle
            # time, steps per CPU second, and the build's context switches.
            probe_cpu = int(summaries[0].split()[1]) * cfg["work"] / 1000
            build_cpu = max(1e-9, ru1["cpu"] - ru0["cpu"] - probe_cpu)
            run["build_cpus"] = build_cpu / wall
            run["build_steps_per_cpu_s"] = steps / build_cpu
            run["build_vol_switches"] = (ru1["nvcsw"] - ru0["nvcsw"]) / wall
            run["build_invol_switches"] = (ru1["nivcsw"] - ru0["nivcsw"]) / wall
            run["idle"] = (stat1["idle"] - stat0["idle"]) / os.sysconf("SC_CLK_TCK") / (wall * NPROC)
        busy = (stat1["busy"] - stat0["busy"]) / os.sysconf("SC_CLK_TCK")
        run["foreign_cpu"] = max(0.0, busy - (ru1["cpu"] - ru0["cpu"])) / (wall * NPROC)
        run["steal"] = (stat1["steal"] - stat0["steal"]) / os.sysconf("SC_CLK_TCK") / (wall * NPROC)
        run["others_running"] = foreign_processes()
        return run

    # --- scenarios -------------------------------------------------------
    def scenario(self, name):
        sc = SCENARIOS[name]
        variants = ["floor"] + [v for v in sc["variants"] if v not in self.skipped]
        rng = random.Random(self.args.seed)
        for rep in range(self.args.reps):
            order = variants[:]
            rng.shuffle(order)
            for variant in order:
                if variant in self.skipped:
                    continue
                for probe in sc["probes"]:
                    # A repetition during which others used much of the
                    # machine is measured again (a few times at most; the
                    # count of those left noisy is in the table).
                    for attempt in range(1 + self.args.retries):
                        t = time.monotonic()
                        r = self.measure(name, sc, probe, variant, rep)
                        if attempt > 0:
                            self.retry_spent += time.monotonic() - t
                        if (r is None or r["foreign_cpu"] <= self.args.max_foreign
                                or self.retry_spent > 60 * self.args.retry_minutes):
                            break
                        print("  %-5s rep %d %-17s %-8s others used %.0f%% of the machine: again" % (
                            name, rep + 1, variant, probe, 100 * r["foreign_cpu"]), flush=True)
                    if r is None:
                        print("  (%s skipped: %s)" % (variant, self.skipped[variant]), flush=True)
                        break
                    r["attempts"] = attempt + 1
                    self.runs.append(r)
                    print("  %-5s rep %d %-17s %-8s p99 %6.2f ms%s" % (
                        name, rep + 1, variant, probe, r["probe_p99"],
                        "  bg %.0f/s" % r["bg_rate"] if "bg_rate" in r else ""), flush=True)

    def starvation(self):
        """A background hog's progress while 2 x nproc untagged hogs run
        flat out: once per background setting, against the hog alone."""
        secs = self.args.starve_seconds
        hog = [os.path.join(self.bin, "qos-bench-hog"), "--buffer-kib", str(self.hog_kib), "--seconds", ""]
        for variant in ["alone", "qosd", "nice-only", "untouched"]:
            # Alone, the hog's rate settles within seconds: a third of the time.
            hog[-1] = str(secs / 3 if variant == "alone" else secs)
            bg = self.spawn(hog)
            load = [] if variant == "alone" else [self.spawn(hog) for _ in range(2 * NPROC)]
            for p in [bg] + load:
                self.wait_ready(p, "qos-bench-hog")
            self.apply("untouched" if variant == "alone" else variant, "background", [bg])
            for p in [bg] + load:
                p.stdin.write("go\n")
                p.stdin.flush()
            outs = [self.finish(p, secs + 30) for p in [bg] + load]
            h = [dict(zip(o.split()[::2], map(float, o.split()[1::2]))) for o in outs]
            row = dict(variant=variant, seconds=secs, bg_rate=h[0]["units"] / h[0]["seconds"],
                       bg_max_gap_ms=h[0]["max_gap_ms"],
                       load_rate=sum(x["units"] / x["seconds"] for x in h[1:]))
            self.starve.append(row)
            print("  starve %-16s bg %8.1f units/s  longest stall %8.1f ms" % (
                variant, row["bg_rate"], row["bg_max_gap_ms"]), flush=True)

    def prepare_build(self):
        self.build_dir = os.path.join(self.out, "build-load")
        src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        subprocess.run(["meson", "setup", self.build_dir, src], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["ninja", "-C", self.build_dir], check=True, stdout=subprocess.DEVNULL)


# --- kernel and machine ----------------------------------------------------
def l2_kib():
    try:
        with open("/sys/devices/system/cpu/cpu0/cache/index2/size") as f:
            s = f.read().strip()
        return int(s[:-1]) * (1024 if s.endswith("M") else 1)
    except (OSError, ValueError):
        return 1024


def cpu_stat():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal
    return dict(busy=v[0] + v[1] + v[2] + v[5] + v[6], idle=v[3] + v[4], steal=v[7])


def children_usage():
    """CPU seconds of the runner and its reaped children, and the children's
    context switches."""
    import resource
    c, s = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    return dict(cpu=c.ru_utime + c.ru_stime + s.ru_utime + s.ru_stime, nvcsw=c.ru_nvcsw, nivcsw=c.ru_nivcsw)


def reap_orphans():
    """Grandchildren of a killed build reparent to us (subreaper): reap them."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def reap_group(pgid):
    """Wait for every process of a stopped load's group. A build's ninja
    outlives the shell that ran it while it waits for the compilers it
    stopped; the CPU time of an unfinished build reaches RUSAGE_CHILDREN
    only once ninja itself is reaped (here, as its subreaper), and counted
    as others' use otherwise. An orphan is ours before its parent is
    reapable, so the loop ends only when the whole group is gone."""
    while True:
        try:
            os.waitpid(-pgid, 0)
        except ChildProcessError:
            return


def foreign_processes():
    """Compilers, builds and VMs running that are not ours."""
    n = 0
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/comm" % pid) as f:
                comm = f.read().strip()
        except (OSError, ValueError):
            continue
        if (comm in FOREIGN or comm.startswith("qemu")) and not is_descendant(int(pid), os.getpid()):
            n += 1
    return n


def is_descendant(pid, ancestor):
    for _ in range(64):
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
        try:
            with open("/proc/%d/stat" % pid) as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def quiet():
    with open("/proc/loadavg") as f:
        load1 = float(f.read().split()[0])
    return load1 < 0.3 and foreign_processes() == 0, load1


def wait_quiet(minutes):
    deadline = time.monotonic() + minutes * 60
    while True:
        ok, load1 = quiet()
        if ok:
            return "quiet (1-min load %.2f, no compilers or VMs running)" % load1
        if time.monotonic() >= deadline:
            return "NOT quiet after %d min of waiting (1-min load %.2f)" % (minutes, load1)
        print("waiting for a quiet machine: load %.2f" % load1, flush=True)
        time.sleep(60)


# --- statistics ---------------------------------------------------------------
def percentile(sorted_v, q):
    if not sorted_v:
        return float("nan")
    k = (len(sorted_v) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(sorted_v) - 1)
    return sorted_v[lo] + (sorted_v[hi] - sorted_v[lo]) * (k - lo)


def read_samples(path):
    with open(path) as f:
        return sorted(float(line.split()[0]) / 1000 for line in f if line.strip())


def sample_stats(path, prefix):
    v = read_samples(path)
    return {prefix + "_n": len(v), prefix + "_p50": percentile(v, 0.5), prefix + "_p99": percentile(v, 0.99),
            prefix + "_max": v[-1] if v else float("nan")}


def med(v):
    return statistics.median(v) if v else float("nan")


def summarize(bench, name):
    """One row per (probe or pool, variant) of scenario name."""
    runs = [r for r in bench.runs if r["scenario"] == name]
    rows = []
    for probe in SCENARIOS[name]["probes"] + (["pool"] if SCENARIOS[name].get("pool") else []):
        key = "pool" if probe == "pool" else "probe"
        pr = [r for r in runs if r["probe"] == (SCENARIOS[name]["probes"][0] if probe == "pool" else probe)]
        floor = med([r[key + "_p99"] for r in pr if r["variant"] == "floor"])
        base_bg = med([r["bg_rate"] for r in pr if r["variant"] == "untouched" and "bg_rate" in r])
        for variant in ["floor"] + SCENARIOS[name]["variants"]:
            vr = [r for r in pr if r["variant"] == variant]
            if not vr:
                continue
            pooled = []
            for r in vr:
                f = os.path.join(bench.out, "samples", "%s-%s-%s-%d.%s" % (
                    name, r["probe"], variant.replace(":", "_"), r["rep"], key))
                pooled += read_samples(f)
            pooled.sort()
            p99s = [r[key + "_p99"] for r in vr]
            bg = [r["bg_rate"] / base_bg for r in vr if "bg_rate" in r and base_bg == base_bg and base_bg > 0]
            rows.append(dict(
                scenario=name, probe=probe, variant=variant, reps=len(vr), samples=len(pooled),
                p50=percentile(pooled, 0.5), p99_pooled=percentile(pooled, 0.99),
                p99_median=med(p99s), p99_min=min(p99s), p99_max=max(p99s),
                ratio=med(p99s) / floor, ratio_min=min(p99s) / floor, ratio_max=max(p99s) / floor,
                missed=sum(r[key + "_missed"] for r in vr) / max(1, sum(r[key + "_n"] for r in vr)),
                bg=med(bg) if bg else None, bg_min=min(bg) if bg else None, bg_max=max(bg) if bg else None,
                switches=med([r["bg_switches"] for r in vr if "bg_switches" in r]) if key == "probe" else None,
                foreign=max(r["foreign_cpu"] for r in vr), others=max(r["others_running"] for r in vr),
                noisy=sum(1 for r in vr if r["foreign_cpu"] > bench.args.max_foreign),
                retried=sum(r["attempts"] - 1 for r in vr)))
    return rows


def fmt_table(rows, name, max_foreign):
    sc = SCENARIOS[name]
    lines = ["(%s) %s" % (name, sc["title"])]
    cur = None
    for row in rows:
        if row["probe"] != cur:
            cur = row["probe"]
            what = PROBES[cur]["what"] if cur in PROBES else \
                "user-initiated job: %d x %.0f ms work every %d ms" % (POOL["threads"], POOL["work"], POOL["period"])
            lines.append("  %s — %s" % (cur, what))
            lines.append("    %-17s %7s %7s %21s %14s %7s %16s %9s" % (
                "variant", "p50 ms", "p99 ms", "p99/rep: med [range]", "×floor [range]", "missed",
                "bg work [range]", "switch/s"))
        bg = "%3.0f%% [%3.0f–%3.0f]" % (100 * row["bg"], 100 * row["bg_min"], 100 * row["bg_max"]) \
            if row["bg"] is not None else "-"
        sw = "%.0f" % row["switches"] if row["switches"] == row["switches"] and row["switches"] is not None else "-"
        lines.append("    %-17s %7.2f %7.2f %7.2f [%5.2f–%5.2f] %5.2f [%.2f–%.2f] %6.1f%% %16s %9s" % (
            row["variant"], row["p50"], row["p99_pooled"], row["p99_median"], row["p99_min"], row["p99_max"],
            row["ratio"], row["ratio_min"], row["ratio_max"], 100 * row["missed"], bg, sw))
    worst = max((r["foreign"] for r in rows), default=0)
    noisy = sum(r["noisy"] for r in rows if r["probe"] != "pool")
    retried = sum(r["retried"] for r in rows if r["probe"] != "pool")
    lines.append("  (others' CPU use in a kept repetition: at most %.0f%% of the machine; %d repetitions measured"
                 " again for it, %d kept above %.0f%%)" % (100 * worst, retried, noisy, 100 * max_foreign))
    lines += goal_lines(rows, name)
    return "\n".join(lines)


def goal_lines(rows, name):
    sc = SCENARIOS[name]
    if "goal_ratio" not in sc:
        return []
    out = []
    first = sc["probes"][0]
    by = {(r["probe"], r["variant"]): r for r in rows}
    for variant in sc["variants"]:
        r = by.get((first, variant))
        if not r:
            continue
        checks = ["%s p99 %.2f× ≤ %.2f× %s" % (first, r["ratio"], sc["goal_ratio"],
                                                 "met" if r["ratio"] <= sc["goal_ratio"] else "MISSED")]
        if "goal_pool" in sc and ("pool", variant) in by:
            pr = by[("pool", variant)]
            checks.append("pool p99 %.2f× ≤ %.1f× %s" % (pr["ratio"], sc["goal_pool"],
                                                          "met" if pr["ratio"] <= sc["goal_pool"] else "MISSED"))
        if "goal_bg" in sc and r["bg"] is not None:
            checks.append("bg %.0f%% ≥ %.0f%% %s" % (100 * r["bg"], 100 * sc["goal_bg"],
                                                     "met" if r["bg"] >= sc["goal_bg"] - 1e-9 else "MISSED"))
        out.append("  goal %-12s %s" % (variant + ":", "; ".join(checks)))
    return out


def build_lines(bench, name):
    """Where a build load's work went, per variant (medians of the reps)."""
    runs = [r for r in bench.runs if r["scenario"] == name and "build_cpus" in r]
    if not runs:
        return []
    lines = ["  the build, per variant (medians): steps/s, CPUs it got, the machine's idle share,"
             " steps per CPU second, context switches/s (voluntary, involuntary)",
             "    %-17s %8s %6s %6s %12s %8s %8s" % ("variant", "steps/s", "CPUs", "idle", "steps/CPU s",
                                                   "vol/s", "invol/s")]
    for variant in SCENARIOS[name]["variants"]:
        vr = [r for r in runs if r["variant"] == variant]
        if vr:
            m = lambda k: med([r[k] for r in vr])
            lines.append("    %-17s %8.2f %6.2f %5.1f%% %12.2f %8.0f %8.0f" % (
                variant, m("bg_rate"), m("build_cpus"), 100 * m("idle"), m("build_steps_per_cpu_s"),
                m("build_vol_switches"), m("build_invol_switches")))
    return lines


def write_csv(path, rows):
    if not rows:
        return
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.4f" % v if isinstance(v, float) else v) for k, v in r.items()})


def plot(out, rows, title):
    """p99 per variant as a multiple of the floor, one group per scenario and
    probe, whiskers over the repetitions' range."""
    if not shutil.which("gnuplot"):
        print("run.py: gnuplot not found, no plot (scripts/install-bench-deps.sh installs it)", file=sys.stderr)
        return None
    groups = list(dict.fromkeys((r["scenario"], r["probe"]) for r in rows if r["scenario"] != "tune"))
    variants = list(dict.fromkeys(r["variant"] for r in rows if r["variant"] != "floor" and r["scenario"] != "tune"))
    if not groups:
        return None
    by = {(r["scenario"], r["probe"], r["variant"]): r for r in rows}
    dat = os.path.join(out, "p99.dat")
    with open(dat, "w") as f:
        f.write("# group " + " ".join('"%s" min max' % v for v in variants) + "\n")
        for g in groups:
            cells = []
            for v in variants:
                r = by.get((g[0], g[1], v))
                cells.append("%.3f %.3f %.3f" % (r["ratio"], r["ratio_min"], r["ratio_max"]) if r else "NaN NaN NaN")
            f.write('"(%s) %s" %s\n' % (g[0], g[1], " ".join(cells)))
    # Bars start at the bottom of a log axis: it must reach below the best
    # repetition, or the variants that beat the floor vanish from the plot.
    mins = [r["ratio_min"] for r in rows if r["variant"] != "floor" and r["scenario"] != "tune"]
    ylo = 2 ** math.floor(math.log2(min(mins) / 1.2)) if mins and min(mins) > 0 else 0.8
    png = os.path.join(out, "p99.png")
    colors = ["#7f7f7f", "#1b9e77", "#56b4e9", "#e69f00", "#f0e442", "#d55e00", "#cc79a7", "#0072b2",
              "#000000", "#009e73", "#999933", "#882255"]
    cols = ", ".join("'%s' using %d:%d:%d%s title '%s' lc rgb '%s'" % (
        dat, 2 + 3 * i, 3 + 3 * i, 4 + 3 * i, ":xtic(1)" if i == 0 else "", v, colors[i % len(colors)])
        for i, v in enumerate(variants))
    script = """
set terminal pngcairo size 1280,560 font ',10'
set output '%s'
set title "%s"
set ylabel 'p99 latency / idle floor (median of reps; whiskers: range)'
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.85 border -1
set logscale y 2
set yrange [%g:*]
set grid ytics
set key top right
set xtics rotate by -20
set arrow from graph 0, first 1.25 to graph 1, first 1.25 nohead dt 2 lc rgb '#aa0000'
set label 'dashed: goal 1.25× ((c): 1.5×, (d) pool: 2×)' at graph 0.005, graph 0.97 tc rgb '#aa0000'
plot %s
""" % (png, title.replace('"', "'"), ylo, cols)
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if r.returncode != 0:
        print("run.py: gnuplot failed: " + r.stderr.strip(), file=sys.stderr)
        return None
    return png


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--build", default=os.path.join(here, "build"))
    ap.add_argument("--scenarios", default=",".join(ORDER))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="2 reps of 2 s: a smoke test, not a result")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--starve-seconds", type=float, default=60)
    ap.add_argument("--wait-quiet", type=float, default=0, metavar="MINUTES")
    ap.add_argument("--keep-samples", action="store_true")
    ap.add_argument("--max-foreign", type=float, default=0.10, metavar="FRACTION",
                    help="repeat a repetition when others used more of the machine than this")
    ap.add_argument("--retries", type=int, default=2)
    ap.add_argument("--retry-minutes", type=float, default=15,
                    help="stop repeating noisy repetitions once this much time went into it")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.quick:
        args.reps = 2
        args.starve_seconds = 5
        for p in PROBES.values():
            p["seconds"] = 2
    if os.geteuid() != 0:
        die("needs root: the probe's class raises priority")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    args.out = args.out or os.path.join(here, "bench", "results", stamp)
    os.makedirs(args.out, exist_ok=True)
    names = [n for n in args.scenarios.split(",") if n]
    for n in names:
        if n not in SCENARIOS and n != "starve":
            die("unknown scenario '%s' (have %s)" % (n, ", ".join(ORDER)))

    # Untouched must mean untouched: we and everything we start have the
    # kernel's defaults (a custom slice or nice inherited from the shell
    # would leak into every variant).
    attr = os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, 0)
    if attr != (os.SCHED_OTHER, 0):
        die("the runner itself is not at the kernel's defaults (policy %d nice %d)" % attr)
    # The +groups variants make qosd's per-class cgroups under a prefix of
    # their own, so that a running qosd's groups are never touched.
    os.environ["QOS_CGROUP_PREFIX"] = "qos-bench"
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: a killed build's children come back to us

    quiet_note = wait_quiet(args.wait_quiet) if args.wait_quiet else "not waited for: %s" % (
        "quiet" if quiet()[0] else "busy, load %.2f" % quiet()[1])
    u = platform.uname()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    meta = ("%s, kernel %s, %d CPUs (%s), autogroup %s; %d reps, order shuffled per rep (seed %d); machine: %s"
            % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), u.release, NPROC, cpu,
               open("/proc/sys/kernel/sched_autogroup_enabled").read().strip(), args.reps, args.seed, quiet_note))
    print(meta, flush=True)

    bench = Bench(args)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    t0 = time.monotonic()
    report = [meta, ""]
    try:
        if "e" in names:
            bench.prepare_build()
        for n in names:
            print("== scenario %s" % n, flush=True)
            if n == "starve":
                bench.starvation()
            else:
                bench.scenario(n)
    finally:
        bench.cleanup()
        if bench.build_dir:
            shutil.rmtree(bench.build_dir, ignore_errors=True)

    rows = []
    for n in names:
        if n == "starve":
            continue
        s = summarize(bench, n)
        rows += s
        report += [fmt_table(s, n, args.max_foreign)] + build_lines(bench, n) + [""]
    if bench.starve:
        alone = next(r["bg_rate"] for r in bench.starve if r["variant"] == "alone")
        report.append("(starve) a background hog beside %d untagged hogs for %.0f s, same session"
                      % (2 * NPROC, args.starve_seconds))
        for r in bench.starve:
            report.append("    %-17s bg %6.2f%% of alone   longest stall %8.1f ms   load %8.1f units/s" % (
                r["variant"], 100 * r["bg_rate"] / alone, r["bg_max_gap_ms"], r["load_rate"]))
        report.append("")
    for v, why in bench.skipped.items():
        report.append("skipped %s: %s" % (v, why))
    report.append("total time %.1f min" % ((time.monotonic() - t0) / 60))
    text = "\n".join(report)
    print("\n" + text)
    with open(os.path.join(args.out, "table.txt"), "w") as f:
        f.write(text + "\n")
    write_csv(os.path.join(args.out, "runs.csv"), bench.runs)
    write_csv(os.path.join(args.out, "summary.csv"), rows)
    write_csv(os.path.join(args.out, "starvation.csv"), bench.starve)
    png = plot(args.out, rows, "qosd benchmarks, " + meta.split(";")[0])
    print("results in %s%s" % (args.out, " (plot %s)" % png if png else ""))
    if not args.keep_samples:
        shutil.rmtree(os.path.join(args.out, "samples"), ignore_errors=True)


if __name__ == "__main__":
    main()
