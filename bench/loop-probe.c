/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A periodic thread: wakes every PERIOD on an absolute timer, does WORK of
 * CPU time, sleeps again. Per period it records the latency from the
 * release time to the end of the work (a frame's or audio buffer's time),
 * and the wake-up delay alone. With --work 0 it is a wake-up latency probe
 * (what cyclictest measures, at the thread's own policy).
 *
 * Prints "ready", waits for a line on stdin, runs, then prints
 * "periods N missed M": a period is missed when its work ends after the
 * next release; the next release is then the first one still ahead (a late
 * frame drops the frames it overlaps, as with vsync).
 */
#include "bench-util.h"

int main(int argc, char **argv) {
        ProbeOptions o;
        probe_parse_options(argc, argv, "qos-bench-loop --period MS --work MS [--seconds S] --out FILE",
                            false, &o);

        FILE *f = samples_open(o.out);
        wait_for_go();

        uint64_t start = now_ns(), end = start + o.duration_ns, release = start + o.period_ns;
        unsigned long periods = 0, missed = 0;
        while (release < end) {
                sleep_until_ns(release);
                uint64_t woke = now_ns();
                burn_cpu_ns(o.work_ns);
                uint64_t done = now_ns();
                samples_write(f, done - release, woke - release);
                periods++;
                release = next_release(release, o.period_ns, done, &missed);
        }
        fclose(f);
        printf("periods %lu missed %lu\n", periods, missed);
        return 0;
}
