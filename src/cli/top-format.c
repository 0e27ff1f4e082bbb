/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/table.h"
#include "cli/top-format.h"
#include "core/macro.h"
#include "core/term-escape.h"

enum {
        COL_TID,
        COL_PID,
        COL_COMM,
        COL_CPU,
        COL_WAIT,
        COL_STATE,
        COL_GROUP,
        COL_RULE,
        _COL_MAX,
};

/* Fixed widths but for GROUP and RULE: a live view's columns stay put. A
 * thread's name is at most 15 characters; a PID at most 7 digits. On a
 * narrow screen RULE gives up width first, down to what still names a file
 * ("…/apps.d/firefox.conf:9"), then GROUP is left out and RULE takes its
 * room. */
static const TableColumn columns[_COL_MAX] = {
        [COL_TID] = { "TID", .right = true, .width = 7 },
        [COL_PID] = { "PID", .right = true, .width = 7 },
        [COL_COMM] = { "COMM", .cut = TABLE_CUT_END, .width = 15, .min = 15 },
        [COL_CPU] = { "CPU%", .right = true, .width = 6 },
        [COL_WAIT] = { "WAIT(ms)", .right = true, .width = 8 },
        [COL_STATE] = { "STATE", .width = 9 },
        [COL_GROUP] = { "GROUP", .drop = true, .order = 1, .hide_blank = true },
        [COL_RULE] = { "RULE", .cut = TABLE_CUT_PATH, .min = 20, .order = 0 },
};

static double ms(uint64_t ns) {
        return (double) ns / 1e6;
}

static void format_filter(const TopSnapshot *cur, const TopView *v, const TopFilter *f, char *buf, size_t size) {
        _cleanup_free_ char *text = term_escape(f->text);
        const char *which = !cur->daemon || f->all ? "every thread" : "the threads qosd manages";
        int n = snprintf(buf, size, "showing %zu: %s%s", v->n_rows, which,
                         f->kernel ? ", kernel threads too" : ", no kernel threads");
        if (f->text[0] && n > 0 && (size_t) n < size)
                snprintf(buf + n, size - (size_t) n, ", named like \"%s\"", text ?: "?");
}

void top_format_title(const TopSnapshot *cur, const TopView *v, const TopFilter *filter, TopSort sort,
                      double delay_sec, size_t line, char *buf, size_t size) {
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
                                 v->managed, v->n_threads);
                else {
                        _cleanup_free_ char *why = term_escape(cur->source); /* may quote qosd's error */
                        snprintf(buf, size, "%s: classes read from each thread's kernel attributes",
                                 why ?: "?");
                }
                break;
        case 2:
                if (v->interval_ns == 0)
                        snprintf(buf, size, "total: %zu threads; sampling...", v->n_threads);
                else
                        snprintf(buf, size, "total: %zu threads, cpu %.1f%%, run-queue wait %.1f ms in %.2f s",
                                 v->n_threads, v->cpu_pct, ms(v->wait_ns), (double) v->interval_ns / 1e9);
                break;
        default:
                format_filter(cur, v, filter, buf, size);
                break;
        }
}

/* One escaped cell each; freed with the table. */
static int add_row(Table *t, const TopRow *row) {
        const TopThread *th = row->thread;
        _cleanup_free_ char *comm = term_escape(th->comm), *state = term_escape(th->state),
                            *group = term_escape(th->group), *rule = term_escape(th->rule);
        char tid[16], pid[16], cpu[32], wait[32];

        if (!comm || !state || !group || !rule)
                return -ENOMEM;
        snprintf(tid, sizeof tid, "%d", (int) th->tid);
        snprintf(pid, sizeof pid, "%d", (int) th->pid);
        snprintf(cpu, sizeof cpu, "%.1f", row->cpu_pct);
        snprintf(wait, sizeof wait, "%.1f", ms(row->wait_ns));
        const char *cells[_COL_MAX] = {
                [COL_TID] = tid,     [COL_PID] = pid,     [COL_COMM] = comm,
                [COL_CPU] = cpu,     [COL_WAIT] = wait,   [COL_STATE] = state,
                [COL_GROUP] = *group ? group : "-",       [COL_RULE] = *rule ? rule : "-",
        };
        return table_add_row(t, cells);
}

/* "background: 4 threads" where TID, PID and COMM are, its totals under
 * CPU% and WAIT. */
static char *format_class(const TopClassTotal *c, const size_t *w, size_t width) {
        _cleanup_free_ char *name = term_escape(c->name);
        char label[64], *line = NULL;
        int span = (int) (w[COL_TID] + 1 + w[COL_PID] + 1 + w[COL_COMM]);

        snprintf(label, sizeof label, "%s: %zu thread%s", name ?: "?", c->n, c->n == 1 ? "" : "s");
        if (asprintf(&line, "%-*s %*.1f %*.1f", span, label, (int) w[COL_CPU], c->cpu_pct, (int) w[COL_WAIT],
                     ms(c->wait_ns)) < 0)
                return NULL;
        if (width && strlen(line) > width)
                line[width] = '\0'; /* ASCII: a class name and numbers */
        return line;
}

int top_format_lines(const TopView *v, size_t width, TopLines *ret) {
        _cleanup_(table_clear) Table t;
        size_t w[_COL_MAX], n = top_view_n_lines(v), row = 0;
        TopLines l = {};

        table_init(&t, columns, _COL_MAX);
        for (size_t i = 0; i < v->n_rows; i++)
                if (add_row(&t, &v->rows[i]) < 0)
                        return -ENOMEM;
        table_layout(&t, width, w);
        l.columns = table_format_row(&t, w, width, SIZE_MAX);
        l.lines = calloc(n ?: 1, sizeof *l.lines);
        if (!l.columns || !l.lines)
                goto fail;
        /* The table's rows are the view's rows in order; the totals lines sit
         * between them. */
        for (; l.n < n; l.n++) {
                size_t c;
                const TopRow *r = top_view_line(v, l.n, &c);
                l.lines[l.n] = r ? table_format_row(&t, w, width, row++) : format_class(&v->classes[c], w, width);
                if (!l.lines[l.n])
                        goto fail;
        }
        *ret = l;
        return 0;
fail:
        top_lines_clear(&l);
        return -ENOMEM;
}

void top_lines_clear(TopLines *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->lines[i]);
        free(l->lines);
        free(l->columns);
        *l = (TopLines) {};
}
