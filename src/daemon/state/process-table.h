/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The processes qosd has something to do with: those a rule matched, and
 * those that inherited a class from one. What the matcher needs to know
 * about each is read once (at exec or scan) and reused for its threads, so
 * a new thread costs one comm read, not five /proc files. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/pid-map.h"
#include "config/rules.h"

typedef struct ProcessRecord {
        pid_t pid;
        uint64_t start_time;
        char *exe, *cmdline, *arg0, *comm, *cgroup;
        char *app_id;           /* NULL: none known (units/app-id.h) */
        uid_t uid;
        bool exe_elsewhere;     /* ProcessInfo.exe_elsewhere */
        bool matched;           /* an application rule matched the process */
        unsigned scan_gen;
} ProcessRecord;

typedef struct ProcessTable {
        PidMap by_pid;
} ProcessTable;

/* Read what the matcher looks at from /proc (the caller pins the task and
 * checks it is still alive afterwards). -ESRCH if gone. The app ID comes
 * from the unit's name; with flatpak_info, also from a Flatpak instance's
 * /.flatpak-info where the unit names none (only worth an open when some
 * rule matches by AppId=). */
int process_record_read(pid_t pid, uint64_t start_time, bool flatpak_info, ProcessRecord **ret);
/* A forked child: the same program, so the same facts under another PID. */
int process_record_copy(const ProcessRecord *parent, pid_t pid, uint64_t start_time,
                        ProcessRecord **ret);
/* A process whose main thread has exited shows no executable and no
 * command line (they are read through the leader), though its other
 * threads still run that program: p takes them from the record read
 * before of the very same process (PID and start time), if it has one. */
int process_record_keep_program(ProcessRecord *p, const ProcessRecord *before);
ProcessRecord *process_record_free(ProcessRecord *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProcessRecord *, process_record_free)
ProcessInfo process_record_info(const ProcessRecord *p);

ProcessRecord *process_table_get(const ProcessTable *t, pid_t pid);
/* The record for pid if it describes the process that has pid now (same
 * start time), else NULL. A record qosd kept because it missed the exit
 * (events lost) belongs to a process that is gone, its PID perhaps reused:
 * it is dropped, so nothing of the old program reaches the new one. */
ProcessRecord *process_table_get_current(ProcessTable *t, pid_t pid);
/* Takes ownership; replaces (and frees) an older record for the same PID. */
int process_table_put(ProcessTable *t, ProcessRecord *p);
void process_table_remove(ProcessTable *t, pid_t pid);
void process_table_clear(ProcessTable *t);
size_t process_table_size(const ProcessTable *t);
