/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "state/rename-queue.h"

typedef struct RenameBudget {
        uint64_t start_time;
        double tokens;
        uint64_t last_usec;
        bool pending;
        RenameWork work;
} RenameBudget;

static void refill(RenameBudget *b, uint64_t now_usec) {
        if (now_usec > b->last_usec) {
                b->tokens += (double) (now_usec - b->last_usec) / 1e6 * RENAME_RATE;
                if (b->tokens > RENAME_BURST)
                        b->tokens = RENAME_BURST;
        }
        b->last_usec = now_usec;
}

static int pending_push(RenameQueue *q, pid_t tgid) {
        if (q->n_pending == q->n_alloc) {
                size_t n = q->n_alloc ? q->n_alloc * 2 : 16;
                pid_t *p = realloc(q->pending, n * sizeof *p);
                if (!p)
                        return -ENOMEM;
                q->pending = p;
                q->n_alloc = n;
        }
        q->pending[q->n_pending++] = tgid;
        return 0;
}

static void work_add(RenameWork *w, pid_t tid) {
        if (w->whole)
                return;
        if (w->n_tids == RENAME_TIDS_MAX) {
                w->whole = true;
                w->n_tids = 0;
                return;
        }
        for (size_t i = 0; i < w->n_tids; i++)
                if (w->tids[i] == tid)
                        return;
        w->tids[w->n_tids++] = tid;
}

int rename_queue_note(RenameQueue *q, pid_t tgid, uint64_t start_time, pid_t tid) {
        RenameBudget *b = pid_map_get(&q->by_tgid, tgid);
        if (b && b->start_time != start_time) {
                /* Another process under a reused PID: nothing of the old one's. */
                rename_queue_forget(q, tgid);
                b = NULL;
        }
        if (!b) {
                b = calloc(1, sizeof *b);
                if (!b)
                        return -ENOMEM;
                b->start_time = start_time;
                b->tokens = RENAME_BURST;
                int r = pid_map_put(&q->by_tgid, tgid, b);
                if (r < 0) {
                        free(b);
                        return r;
                }
        }
        if (!b->pending) {
                int r = pending_push(q, tgid);
                if (r < 0)
                        return r;
                b->pending = true;
                b->work = (RenameWork) { .tgid = tgid, .start_time = start_time };
        }
        work_add(&b->work, tid);
        return 0;
}

static void pending_remove_at(RenameQueue *q, size_t i) {
        memmove(q->pending + i, q->pending + i + 1, (q->n_pending - i - 1) * sizeof *q->pending);
        q->n_pending--;
}

bool rename_queue_take(RenameQueue *q, uint64_t now_usec, RenameWork *ret, uint64_t *ret_wake_usec) {
        uint64_t wake = 0;
        for (size_t i = 0; i < q->n_pending; i++) {
                RenameBudget *b = pid_map_get(&q->by_tgid, q->pending[i]);
                refill(b, now_usec);
                if (b->tokens > 0) {
                        *ret = b->work;
                        b->pending = false;
                        pending_remove_at(q, i);
                        return true;
                }
                /* In debt: back once the refill pays it. */
                uint64_t at = now_usec + (uint64_t) (-b->tokens / RENAME_RATE * 1e6) + 1;
                if (!wake || at < wake)
                        wake = at;
        }
        *ret_wake_usec = wake;
        return false;
}

void rename_queue_charge(RenameQueue *q, pid_t tgid, size_t n_threads, uint64_t now_usec) {
        RenameBudget *b = pid_map_get(&q->by_tgid, tgid);
        if (!b)
                return;
        refill(b, now_usec);
        b->tokens -= (double) n_threads;
}

void rename_queue_forget(RenameQueue *q, pid_t tgid) {
        RenameBudget *b = pid_map_remove(&q->by_tgid, tgid);
        if (!b)
                return;
        if (b->pending)
                for (size_t i = 0; i < q->n_pending; i++)
                        if (q->pending[i] == tgid) {
                                pending_remove_at(q, i);
                                break;
                        }
        free(b);
}

void rename_queue_keep(RenameQueue *q, const PidMap *alive) {
        size_t i = 0, n = 0;
        pid_t tgid;
        pid_t *gone = calloc(pid_map_size(&q->by_tgid) + 1, sizeof *gone);
        if (!gone)
                return;
        while (pid_map_next(&q->by_tgid, &i, &tgid, NULL))
                if (!pid_map_get(alive, tgid))
                        gone[n++] = tgid;
        for (i = 0; i < n; i++)
                rename_queue_forget(q, gone[i]);
        free(gone);
}

bool rename_queue_has_work(const RenameQueue *q) {
        return q->n_pending > 0;
}

size_t rename_queue_size(const RenameQueue *q) {
        return pid_map_size(&q->by_tgid);
}

void rename_queue_clear(RenameQueue *q) {
        size_t i = 0;
        void *v;
        while (pid_map_next(&q->by_tgid, &i, NULL, &v))
                free(v);
        pid_map_clear(&q->by_tgid);
        free(q->pending);
        *q = (RenameQueue) {};
}
