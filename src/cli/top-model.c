/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/macro.h"
#include "core/qclass.h"
#include "cli/top-model.h"

void top_snapshot_clear(TopSnapshot *s) {
        free(s->threads);
        *s = (TopSnapshot) {};
}

static int cmp_tid(const void *a, const void *b) {
        const TopThread *x = a, *y = b;
        return (x->tid > y->tid) - (x->tid < y->tid);
}

void top_snapshot_sort(TopSnapshot *s) {
        if (s->n > 1)
                qsort(s->threads, s->n, sizeof *s->threads, cmp_tid);
}

static const char *const sort_names[_TOP_SORT_MAX] = {
        [TOP_SORT_WAIT] = "wait",
        [TOP_SORT_CPU] = "cpu",
};

const char *top_sort_to_string(TopSort s) {
        return s >= 0 && s < _TOP_SORT_MAX ? sort_names[s] : "?";
}

int top_sort_from_string(const char *s) {
        for (int i = 0; i < _TOP_SORT_MAX; i++)
                if (strcmp(s, sort_names[i]) == 0)
                        return i;
        return -EINVAL;
}

static const TopThread *find_thread(const TopSnapshot *s, pid_t tid) {
        if (!s || s->n == 0)
                return NULL;
        TopThread key = { .tid = tid };
        return bsearch(&key, s->threads, s->n, sizeof *s->threads, cmp_tid);
}

/* Counters only grow; a smaller value can only be a different thread,
 * which start_time already catches, so it is clamped, not trusted. */
static uint64_t delta(uint64_t now, uint64_t before, bool fresh, uint64_t interval) {
        uint64_t d = fresh ? now : now >= before ? now - before : 0;
        return d < interval ? d : interval;
}

/* The four classes first, most important first; anything else ("custom")
 * after them, by name. */
static int class_rank(const char *name) {
        int c = qclass_from_string(name);
        return qclass_is_valid(c) ? _QCLASS_MAX - c : _QCLASS_MAX;
}

static int cmp_class(const char *a, const char *b) {
        int ra = class_rank(a), rb = class_rank(b);
        if (ra != rb)
                return ra - rb;
        return strcmp(a, b);
}

static int cmp_double_desc(double a, double b) {
        return (a < b) - (a > b);
}

static int cmp_u64_desc(uint64_t a, uint64_t b) {
        return (a < b) - (a > b);
}

static int cmp_row(const void *a, const void *b, void *userdata) {
        const TopRow *x = a, *y = b;
        const TopSort *key = userdata;
        int r = cmp_class(x->thread->class, y->thread->class);
        if (r)
                return r;
        if (*key == TOP_SORT_WAIT) {
                r = cmp_u64_desc(x->wait_ns, y->wait_ns);
                if (!r)
                        r = cmp_double_desc(x->cpu_pct, y->cpu_pct);
        } else {
                r = cmp_double_desc(x->cpu_pct, y->cpu_pct);
                if (!r)
                        r = cmp_u64_desc(x->wait_ns, y->wait_ns);
        }
        if (r)
                return r;
        return (x->thread->tid > y->thread->tid) - (x->thread->tid < y->thread->tid);
}

void top_view_sort(TopView *v, TopSort sort) {
        if (v->n_rows > 1)
                qsort_r(v->rows, v->n_rows, sizeof *v->rows, cmp_row, &sort);
}

/* The class totals over rows already grouped by class. */
static void build_classes(TopView *v) {
        v->n_classes = 0;
        for (size_t i = 0; i < v->n_rows; i++) {
                const TopRow *row = &v->rows[i];
                TopClassTotal *c = v->n_classes ? &v->classes[v->n_classes - 1] : NULL;
                if (!c || strcmp(c->name, row->thread->class) != 0) {
                        c = &v->classes[v->n_classes++];
                        *c = (TopClassTotal) { .name = row->thread->class, .first = i };
                }
                c->n++;
                c->cpu_pct += row->cpu_pct;
                c->wait_ns += row->wait_ns;
        }
}

static bool is_managed(const char *state) {
        return *state && strcmp(state, "unmanaged") != 0 && strcmp(state, "realtime") != 0;
}

bool top_filter_matches(const TopFilter *f, const TopThread *t, bool daemon) {
        if (t->kernel && !f->kernel)
                return false;
        /* Without qosd nothing is managed: a managed-only view would be empty. */
        if (daemon && !f->all && !is_managed(t->state))
                return false;
        return !f->text[0] || strcasestr(t->comm, f->text) || strcasestr(t->process, f->text);
}

int top_view_build(const TopSnapshot *prev, const TopSnapshot *cur, TopSort sort, const TopFilter *filter,
                   TopView *ret) {
        static const TopThread none = {}; /* a thread not in prev: every counter from 0 */
        TopView v = {};
        uint64_t interval = prev && cur->mono_ns > prev->mono_ns ? cur->mono_ns - prev->mono_ns : 0;

        v.interval_ns = interval;
        v.n_threads = cur->n;
        if (cur->n > 0) {
                v.rows = calloc(cur->n, sizeof *v.rows);
                v.classes = calloc(cur->n, sizeof *v.classes);
                if (!v.rows || !v.classes) {
                        top_view_clear(&v);
                        return -ENOMEM;
                }
        }
        for (size_t i = 0; i < cur->n; i++) {
                const TopThread *t = &cur->threads[i];
                const TopThread *p = find_thread(prev, t->tid);
                TopRow row = { .thread = t, .fresh = !p || p->start_time != t->start_time };

                if (!p)
                        p = &none;
                uint64_t cpu = delta(t->cpu_ns, p->cpu_ns, row.fresh, interval);
                row.wait_ns = delta(t->wait_ns, p->wait_ns, row.fresh, interval);
                row.cpu_pct = interval ? 100.0 * (double) cpu / (double) interval : 0.0;
                v.cpu_pct += row.cpu_pct;
                v.wait_ns += row.wait_ns;
                v.managed += is_managed(t->state);
                if (top_filter_matches(filter, t, cur->daemon))
                        v.rows[v.n_rows++] = row;
        }
        top_view_sort(&v, sort);
        build_classes(&v);
        *ret = v;
        return 0;
}

void top_view_clear(TopView *v) {
        free(v->rows);
        free(v->classes);
        *v = (TopView) {};
}

size_t top_view_n_lines(const TopView *v) {
        return v->n_classes + v->n_rows;
}

const TopRow *top_view_line(const TopView *v, size_t i, size_t *ret_class) {
        /* Class c's totals line is line classes[c].first + c: the rows
         * before it plus one totals line for each class before it. */
        size_t c = 0;
        while (c + 1 < v->n_classes && v->classes[c + 1].first + c + 1 <= i)
                c++;
        *ret_class = c;
        size_t head = v->classes[c].first + c;
        return i == head ? NULL : &v->rows[v->classes[c].first + (i - head - 1)];
}

size_t top_scroll_clamp(size_t offset, size_t n_lines, size_t body) {
        size_t max = n_lines > body ? n_lines - body : 0;
        return offset < max ? offset : max;
}
