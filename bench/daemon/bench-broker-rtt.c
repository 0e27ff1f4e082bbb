/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The brokered promotion round trip, as an application sees it: the
 * calling thread drops to background by itself (the fast path) and asks
 * libqos for utility again, which the kernel refuses an unprivileged
 * thread, so libqos asks qosd (SetThreadClass) and returns after qosd has
 * applied it. Run as an unprivileged user with qosd running.
 *
 *   bench-broker-rtt [CALLS]     (default 2000) -> "p50 p99 max" in µs
 *
 * The rate limit applies: the loop paces itself below it (RATE per second)
 * so that what is measured is the broker, not the limiter.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <qos/qos.h>

#include "../bench-clock.h"

#define RATE 15

int main(int argc, char **argv) {
        unsigned calls = argc > 1 ? (unsigned) strtoul(argv[1], NULL, 10) : 2000;
        uint64_t *v = calloc(calls ? calls : 1, sizeof *v);
        struct timespec pause = { 0, 1000000000 / RATE };
        if (!v || calls == 0)
                return 2;
        for (unsigned i = 0; i < calls; i++) {
                if (qos_self_set_class(QOS_CLASS_BACKGROUND, 0) < 0)
                        return 1;
                uint64_t t0 = now_ns();
                int r = qos_self_set_class(QOS_CLASS_UTILITY, 0);
                v[i] = now_ns() - t0;
                if (r != 0) {
                        fprintf(stderr, "bench-broker-rtt: promotion failed: %d\n", r);
                        return 1;
                }
                nanosleep(&pause, NULL);
        }
        qsort(v, calls, sizeof *v, cmp_u64);
        printf("%.1f %.1f %.1f\n", v[calls / 2] / 1e3, v[(size_t) (calls * 0.99)] / 1e3, v[calls - 1] / 1e3);
        free(v);
        return 0;
}
