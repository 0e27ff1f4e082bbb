/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Crash recovery: the original attributes of every task qosd changed, kept
 * in /run/qos/qosd.state so that a qosd killed with SIGKILL can, on its next
 * start, still restore exactly and knows not to take its own settings for a
 * task's originals. A write-ahead log: one line is appended *before* a task
 * is changed (O_APPEND, one write(2); /run is tmpfs, it survives the
 * process), and the file is rewritten atomically (temp file + rename) from
 * the registry when it has grown. */
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pid-map.h"
#include "qclass.h"
#include "task-attr.h"
#include "task-registry.h"

typedef struct StateRecord {
        pid_t tid;
        uint64_t start_time;
        QClass class;
        TaskAttr orig, set;
} StateRecord;

typedef struct StateFile {
        char *path;
        int fd;
        size_t lines;           /* records appended since the last rewrite */
} StateFile;

int state_file_open(StateFile *sf, const char *path);
void state_file_close(StateFile *sf);

/* Record the entry (its orig and the attributes it is about to get). */
int state_file_append(StateFile *sf, const TaskEntry *e);
/* The task is no longer changed by qosd (exited or restored). */
int state_file_forget(StateFile *sf, pid_t tid, uint64_t start_time);
/* Rewrite from the registry when the log holds much more than it. */
int state_file_maybe_compact(StateFile *sf, const TaskRegistry *reg);
int state_file_compact(StateFile *sf, const TaskRegistry *reg);
/* After a clean exit that restored everything. */
int state_file_remove(StateFile *sf);

/* Replay a state file: the surviving record per TID (StateRecord*, to
 * free with free()) in *ret. A missing file gives an empty map; malformed
 * lines (a torn last line after a crash) are skipped. */
int state_file_load(const char *path, PidMap *ret);
/* The same from an open stream (the parser without the file system: a
 * buffer through fmemopen() in the fuzzer); path only names it in warnings. */
int state_file_read(FILE *f, const char *path, PidMap *ret);
void state_records_free(PidMap *m);

/* One record as a line, and back (exposed for the unit test). */
int state_record_format(const StateRecord *r, char *buf, size_t size);
int state_record_parse(const char *line, StateRecord *ret, int *ret_forget);
