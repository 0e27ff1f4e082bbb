/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <time.h>

#include "core/macro.h"
#include "core/term-escape.h"
#include "cli/top-format.h"

/* TID, PID and COMM take 32 columns: a class's name and count sit there,
 * its totals under CPU% and WAIT. */
#define ROW_FMT "%7s %7s %-16s %6s %9s %-9s %-20s %s"
#define NUM_FMT "%7d %7d %-16s %6.1f %9.1f %-9s %-20s %s"
#define CLASS_FMT "%-32s %6.1f %9.1f"

static double ms(uint64_t ns) {
        return (double) ns / 1e6;
}

void top_format_title(const TopSnapshot *cur, const TopView *v, TopSort sort, double delay_sec, size_t line,
                      char *buf, size_t size) {
        char clock[16] = "--:--:--";
        time_t t = (time_t) cur->wall_sec;
        struct tm tm;

        switch (line) {
        case 0:
                if (localtime_r(&t, &tm))
                        strftime(clock, sizeof clock, "%H:%M:%S", &tm);
                snprintf(buf, size, "qosctl top - %s - every %.1f s - %u CPU%s - sorted by %s", clock, delay_sec,
                         cur->n_cpus, cur->n_cpus == 1 ? "" : "s", top_sort_to_string(sort));
                break;
        case 1:
                if (cur->daemon)
                        snprintf(buf, size, "qosd: %zu of %zu threads managed; rules and groups from qosd",
                                 v->managed, v->n_rows);
                else {
                        _cleanup_free_ char *why = term_escape(cur->source); /* may quote qosd's error */
                        snprintf(buf, size, "%s: classes read from each thread's kernel attributes",
                                 why ?: "?");
                }
                break;
        default:
                if (v->interval_ns == 0)
                        snprintf(buf, size, "total: %zu threads; sampling...", v->n_rows);
                else
                        snprintf(buf, size, "total: %zu threads, cpu %.1f%%, run-queue wait %.1f ms in %.2f s",
                                 v->n_rows, v->cpu_pct, ms(v->wait_ns), (double) v->interval_ns / 1e9);
                break;
        }
}

void top_format_columns(char *buf, size_t size) {
        snprintf(buf, size, ROW_FMT, "TID", "PID", "COMM", "CPU%", "WAIT(ms)", "STATE", "GROUP", "RULE");
}

void top_format_class(const TopClassTotal *c, size_t shown, char *buf, size_t size) {
        _cleanup_free_ char *name = term_escape(c->name);
        char label[64];
        snprintf(label, sizeof label, "%s: %zu thread%s", name ?: "?", c->n, c->n == 1 ? "" : "s");
        int n = snprintf(buf, size, CLASS_FMT, label, c->cpu_pct, ms(c->wait_ns));
        if (shown < c->n && n > 0 && (size_t) n < size)
                snprintf(buf + n, size - (size_t) n, "   (%zu shown)", shown);
}

void top_format_row(const TopRow *row, char *buf, size_t size) {
        const TopThread *t = row->thread;
        _cleanup_free_ char *comm = term_escape(t->comm), *state = term_escape(t->state),
                            *group = term_escape(t->group), *rule = term_escape(t->rule);
        snprintf(buf, size, NUM_FMT, (int) t->tid, (int) t->pid, comm ?: "?", row->cpu_pct, ms(row->wait_ns),
                 state ?: "?", group && *group ? group : "-", rule && *rule ? rule : "-");
}
