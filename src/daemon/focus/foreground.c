/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "focus/foreground.h"
#include "core/proc.h"

int foreground_set(Foreground *f, const pid_t *pids, size_t n) {
        int taken = 0;
        pid_map_clear(&f->by_pid);
        f->known = true;
        for (size_t i = 0; i < n; i++) {
                pid_t tgid;
                uint64_t start;
                /* A thread ID stands for its process; the set is of processes. */
                if (pids[i] <= 0 || proc_tgid(pids[i], &tgid) < 0 || proc_start_time(tgid, &start) < 0)
                        continue;
                if (pid_map_get(&f->by_pid, tgid))
                        continue;
                if (pid_map_put(&f->by_pid, tgid, (void *) (uintptr_t) (start + 1)) < 0) {
                        pid_map_clear(&f->by_pid);
                        return -ENOMEM;
                }
                taken++;
        }
        return taken;
}

bool foreground_contains(const Foreground *f, pid_t pid, uint64_t start_time) {
        uintptr_t v = (uintptr_t) pid_map_get(&f->by_pid, pid);
        return v != 0 && v - 1 == start_time;
}

static int cmp_pid(const void *a, const void *b) {
        pid_t x = *(const pid_t *) a, y = *(const pid_t *) b;
        return (x > y) - (x < y);
}

int foreground_list(const Foreground *f, pid_t **ret, size_t *ret_n) {
        pid_t *list = calloc(pid_map_size(&f->by_pid) + 1, sizeof *list);
        size_t i = 0, n = 0;
        pid_t pid;
        void *v;
        if (!list)
                return -ENOMEM;
        while (pid_map_next(&f->by_pid, &i, &pid, &v)) {
                uint64_t start;
                if (proc_start_time(pid, &start) >= 0 && start + 1 == (uintptr_t) v)
                        list[n++] = pid;
        }
        qsort(list, n, sizeof *list, cmp_pid);
        *ret = list;
        *ret_n = n;
        return 0;
}

int foreground_moved(const Foreground *f, const pid_t *before, size_t n_before, pid_t **ret, size_t *ret_n) {
        pid_t *after;
        size_t n_after;
        int r = foreground_list(f, &after, &n_after);
        if (r < 0)
                return r;
        pid_t *all = reallocarray(after, n_before + n_after + 1, sizeof *all);
        if (!all) {
                free(after);
                return -ENOMEM;
        }
        if (n_before > 0)
                memcpy(all + n_after, before, n_before * sizeof *all);
        *ret = all;
        *ret_n = n_before + n_after;
        return 0;
}

void foreground_clear(Foreground *f) {
        pid_map_clear(&f->by_pid);
        f->known = false;
}
