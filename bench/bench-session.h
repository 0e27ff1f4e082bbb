/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The scenario's own session at autogroup nice -20 (run under setsid as
 * root), so that other sessions' load on a shared machine does not decide
 * the tail; the same for every variant compared. Returns what it did. */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

static inline const char *bench_isolate_session(void) {
        FILE *f = fopen("/proc/self/autogroup", "we");
        if (!f || getsid(0) != getpid()) {
                if (f)
                        fclose(f);
                return "shared with other sessions (run under setsid as root to isolate)";
        }
        bool ok = fprintf(f, "-20\n") > 0;
        ok = (fclose(f) == 0) && ok;
        return ok ? "own session at autogroup nice -20" : "autogroup nice refused";
}
