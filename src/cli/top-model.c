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

int top_view_build(const TopSnapshot *prev, const TopSnapshot *cur, TopSort sort, TopView *ret) {
        static const TopThread none = {}; /* a thread not in prev: every counter from 0 */
        TopView v = {};
        uint64_t interval = prev && cur->mono_ns > prev->mono_ns ? cur->mono_ns - prev->mono_ns : 0;

        v.interval_ns = interval;
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
                TopRow *row = &v.rows[v.n_rows++];

                row->thread = t;
                row->fresh = !p || p->start_time != t->start_time;
                if (!p)
                        p = &none;
                uint64_t cpu = delta(t->cpu_ns, p->cpu_ns, row->fresh, interval);
                row->wait_ns = delta(t->wait_ns, p->wait_ns, row->fresh, interval);
                row->cpu_pct = interval ? 100.0 * (double) cpu / (double) interval : 0.0;
                v.cpu_pct += row->cpu_pct;
                v.wait_ns += row->wait_ns;
                v.managed += is_managed(t->state);
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

void top_view_fit(const TopView *v, size_t lines, size_t *ret_shown) {
        size_t left = lines;

        for (size_t i = 0; i < v->n_classes; i++) {
                ret_shown[i] = 0;
                left = left > 0 ? left - 1 : 0; /* its totals line */
        }
        for (bool more = true; more && left > 0;) {
                more = false;
                for (size_t i = 0; i < v->n_classes && left > 0; i++)
                        if (ret_shown[i] < v->classes[i].n) {
                                ret_shown[i]++;
                                left--;
                                more = true;
                        }
        }
}
