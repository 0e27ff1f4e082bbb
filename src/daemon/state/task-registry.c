/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/macro.h"
#include "state/task-registry.h"

static const char *const state_names[_TASK_STATE_MAX] = {
        [TASK_APPLIED] = "applied",
        [TASK_INHERITED] = "inherited",
        [TASK_FOREIGN] = "foreign",
        [TASK_REQUESTED] = "requested",
};

const char *task_state_to_string(TaskState s) {
        return s < _TASK_STATE_MAX ? state_names[s] : "unknown";
}

static uintptr_t process_count(const TaskRegistry *r, pid_t tgid) {
        return (uintptr_t) pid_map_get(&r->count_by_tgid, tgid);
}

/* A task whose process is not known (0: an entry recovered from the state
 * file) is counted nowhere. */
static int process_count_add(TaskRegistry *r, pid_t tgid, int delta) {
        if (tgid <= 0)
                return 0;
        uintptr_t n = process_count(r, tgid) + (uintptr_t) (intptr_t) delta;
        if (n == 0) {
                pid_map_remove(&r->count_by_tgid, tgid);
                return 0;
        }
        return pid_map_put(&r->count_by_tgid, tgid, (void *) n);
}

/* Out of the map, and out of its process's count. */
static TaskEntry *entry_take(TaskRegistry *r, pid_t tid) {
        TaskEntry *e = pid_map_remove(&r->by_tid, tid);
        if (e)
                (void) process_count_add(r, e->tgid, -1);
        return e;
}

static void entry_free(TaskEntry *e) {
        if (!e)
                return;
        free(e->origin);
        free(e->app);
        free(e);
}

TaskEntry *registry_get(const TaskRegistry *r, pid_t tid) {
        return pid_map_get(&r->by_tid, tid);
}

int registry_add(TaskRegistry *r, pid_t tid, pid_t tgid, uint64_t start_time, TaskEntry **ret) {
        TaskEntry *e = calloc(1, sizeof *e);
        int k;

        if (!e)
                return -ENOMEM;
        e->tid = tid;
        e->tgid = tgid;
        e->start_time = start_time;
        entry_free(entry_take(r, tid));
        k = process_count_add(r, tgid, +1);
        if (k < 0) {
                free(e);
                return k;
        }
        k = pid_map_put(&r->by_tid, tid, e);
        if (k < 0) {
                (void) process_count_add(r, tgid, -1);
                free(e);
                return k;
        }
        *ret = e;
        return 0;
}

void registry_remove(TaskRegistry *r, pid_t tid) {
        entry_free(entry_take(r, tid));
}

bool registry_has_process(const TaskRegistry *r, pid_t tgid) {
        return process_count(r, tgid) > 0;
}

size_t registry_size(const TaskRegistry *r) {
        return pid_map_size(&r->by_tid);
}

void registry_clear(TaskRegistry *r) {
        size_t i = 0;
        void *v;
        while (pid_map_next(&r->by_tid, &i, NULL, &v))
                entry_free(v);
        pid_map_clear(&r->by_tid);
        pid_map_clear(&r->count_by_tgid);
}

static int replace_str(char **dst, const char *src) {
        char *s = NULL;
        if (src && !(s = strdup(src)))
                return -ENOMEM;
        free(*dst);
        *dst = s;
        return 0;
}

int registry_set_origin(TaskEntry *e, const char *app, const char *origin, bool origin_private) {
        int r = replace_str(&e->app, app);
        e->origin_private = origin_private;
        return r < 0 ? r : replace_str(&e->origin, origin);
}

int registry_list(const TaskRegistry *r, TaskEntry ***ret, size_t *ret_n) {
        size_t n = pid_map_size(&r->by_tid), i = 0, k = 0;
        TaskEntry **list = calloc(n + 1, sizeof *list);
        void *v;

        if (!list)
                return -ENOMEM;
        while (pid_map_next(&r->by_tid, &i, NULL, &v) && k < n)
                list[k++] = v;
        *ret = list;
        *ret_n = k;
        return 0;
}
