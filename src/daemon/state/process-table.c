/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/macro.h"
#include "state/process-table.h"
#include "core/proc.h"
#include "units/app-id.h"

ProcessRecord *process_record_free(ProcessRecord *p) {
        if (!p)
                return NULL;
        free(p->exe);
        free(p->cmdline);
        free(p->arg0);
        free(p->comm);
        free(p->cgroup);
        free(p->app_id);
        free(p);
        return NULL;
}

int process_record_read(pid_t pid, uint64_t start_time, bool flatpak_info, ProcessRecord **ret) {
        _cleanup_(process_record_freep) ProcessRecord *p = calloc(1, sizeof *p);
        char comm[PROC_COMM_MAX];
        int r;

        if (!p)
                return -ENOMEM;
        p->pid = pid;
        p->start_time = start_time;
        r = proc_uid(pid, &p->uid);
        if (r < 0)
                return r;
        r = proc_comm(pid, 0, comm);
        if (r < 0)
                return r;
        p->comm = strdup(comm);
        if (!p->comm)
                return -ENOMEM;
        /* Kernel threads have no exe (ENOENT, which reads like "gone") and
         * an empty cmdline: still processes, rules may match them by comm.
         * What cannot be read stays NULL; whether the process vanished is
         * for the caller's pin to say. */
        (void) proc_exe(pid, &p->exe);
        p->exe_elsewhere = p->exe && !proc_exe_path_is_ours(pid, p->exe);
        (void) proc_cmdline(pid, &p->cmdline, &p->arg0);
        (void) proc_cgroup(pid, NULL, &p->cgroup);
        char id[APP_ID_MAX];
        if (app_id_read(pid, p->cgroup, flatpak_info, id) >= 0 && !(p->app_id = strdup(id)))
                return -ENOMEM;
        *ret = TAKE_PTR(p);
        return 0;
}

static int dup_or_null(const char *s, char **ret) {
        *ret = NULL;
        if (s && !(*ret = strdup(s)))
                return -ENOMEM;
        return 0;
}

int process_record_copy(const ProcessRecord *parent, pid_t pid, uint64_t start_time,
                        ProcessRecord **ret) {
        _cleanup_(process_record_freep) ProcessRecord *p = calloc(1, sizeof *p);

        if (!p)
                return -ENOMEM;
        p->pid = pid;
        p->start_time = start_time;
        p->uid = parent->uid;
        p->exe_elsewhere = parent->exe_elsewhere;
        p->matched = parent->matched;
        if (dup_or_null(parent->exe, &p->exe) < 0 || dup_or_null(parent->cmdline, &p->cmdline) < 0 ||
            dup_or_null(parent->arg0, &p->arg0) < 0 || dup_or_null(parent->comm, &p->comm) < 0 ||
            dup_or_null(parent->cgroup, &p->cgroup) < 0 || dup_or_null(parent->app_id, &p->app_id) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(p);
        return 0;
}

int process_record_keep_program(ProcessRecord *p, const ProcessRecord *before) {
        if (!before || before->pid != p->pid || before->start_time != p->start_time || p->exe)
                return 0;
        free(p->cmdline);
        free(p->arg0);
        p->cmdline = p->arg0 = NULL;
        p->exe_elsewhere = before->exe_elsewhere;
        if (dup_or_null(before->exe, &p->exe) < 0 || dup_or_null(before->cmdline, &p->cmdline) < 0 ||
            dup_or_null(before->arg0, &p->arg0) < 0)
                return -ENOMEM;
        return 0;
}

ProcessInfo process_record_info(const ProcessRecord *p) {
        return (ProcessInfo) {
                .exe = p->exe,
                .cmdline = p->cmdline,
                .arg0 = p->arg0,
                .comm = p->comm,
                .cgroup = p->cgroup,
                .app_id = p->app_id,
                .uid = p->uid,
                .exe_elsewhere = p->exe_elsewhere,
        };
}

ProcessRecord *process_table_get(const ProcessTable *t, pid_t pid) {
        return pid_map_get(&t->by_pid, pid);
}

ProcessRecord *process_table_get_current(ProcessTable *t, pid_t pid) {
        ProcessRecord *p = process_table_get(t, pid);
        uint64_t start;

        if (!p)
                return NULL;
        if (proc_start_time(pid, &start) == 0 && start == p->start_time)
                return p;
        process_table_remove(t, pid);
        return NULL;
}

int process_table_put(ProcessTable *t, ProcessRecord *p) {
        process_record_free(pid_map_remove(&t->by_pid, p->pid));
        int r = pid_map_put(&t->by_pid, p->pid, p);
        if (r < 0)
                process_record_free(p);
        return r;
}

void process_table_remove(ProcessTable *t, pid_t pid) {
        process_record_free(pid_map_remove(&t->by_pid, pid));
}

void process_table_clear(ProcessTable *t) {
        size_t i = 0;
        void *v;
        while (pid_map_next(&t->by_pid, &i, NULL, &v))
                process_record_free(v);
        pid_map_clear(&t->by_pid);
}

size_t process_table_size(const ProcessTable *t) {
        return pid_map_size(&t->by_pid);
}
