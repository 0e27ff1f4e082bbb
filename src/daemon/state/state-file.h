/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Crash recovery: the original attributes of every task qosd changed, kept
 * in /run/qos/qosd.state so that a qosd killed with SIGKILL can, on its next
 * start, still restore exactly and knows not to take its own settings for a
 * task's originals. A write-ahead log: one line is appended *before* a task
 * is changed (O_APPEND, one write(2); /run is tmpfs, it survives the
 * process), and the file is rewritten atomically (temp file + rename) from
 * the registry when it has grown.
 *
 * The file and its directory are trusted only as runtime-dir.h says. When
 * records cannot be kept (a full or read-only /run, a refused directory or
 * file), qosd carries on without them and says so (state_file_status());
 * every 2 s it tries again by rewriting the file from the registry, so
 * recording comes back on with every record it missed. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "core/pid-map.h"
#include "core/qclass.h"
#include "core/state-record.h"
#include "core/task-attr.h"
#include "state/task-registry.h"

/* Writes the live records (state_file_write_record() each) to fd for a
 * rewrite; *ret_n: how many. */
typedef int (*StateRecordsWriter)(int fd, const void *source, size_t *ret_n);

typedef struct StateFile {
        char *path, *dir, *name;
        int fd;                 /* -1 while records cannot be kept */
        size_t lines;           /* records appended since the last rewrite */
        StateRecordsWriter writer;      /* what a rewrite writes: the registry's entries, */
        const void *source;             /* ... or another book's */
        sd_event *event;
        sd_event_source *retry; /* while off: the next attempt */
        int error;              /* while off: why, as a negative errno */
        char reason[256];       /* ... and as a sentence */
} StateFile;

/* Open the log for appending (creating the directory). Never fails for
 * the file system's sake (only -ENOMEM): recording is then off, and tried
 * again from the event loop. */
int state_file_open(StateFile *sf, const char *path, const TaskRegistry *reg, sd_event *event);
/* The same for records kept elsewhere than in the registry. */
int state_file_open_with(StateFile *sf, const char *path, StateRecordsWriter writer, const void *source,
                         sd_event *event);
void state_file_close(StateFile *sf);

/* Records are being kept. */
bool state_file_recording(const StateFile *sf);
/* "on (PATH)" or "off: WHY (PATH); ..." for `qosctl status`. */
const char *state_file_status(const StateFile *sf, char *buf, size_t size);

/* Record the entry (its orig and the attributes it is about to get). A
 * failure turns recording off (and is returned); callers go on. */
int state_file_append(StateFile *sf, const TaskEntry *e);
int state_file_append_record(StateFile *sf, const StateRecord *r);
/* The task is no longer changed by qosd (exited or restored). */
int state_file_forget(StateFile *sf, pid_t tid, uint64_t start_time);
/* Rewrite from the registry when the log holds much more than it. */
int state_file_maybe_compact(StateFile *sf, const TaskRegistry *reg);
int state_file_compact(StateFile *sf, const TaskRegistry *reg);
/* Rewrite from the writer's source when the log holds much more than the
 * n records that are live. */
int state_file_maybe_rewrite(StateFile *sf, size_t n);
int state_file_rewrite(StateFile *sf);
/* For a writer: one record into the new file. */
int state_file_write_record(int fd, const StateRecord *r);
/* After a clean exit that restored everything (a file refused as not
 * qosd's is left alone). */
int state_file_remove(StateFile *sf);

/* Replay a state file: the surviving record per TID (StateRecord*, to
 * free with free()) in *ret. A missing file gives an empty map; malformed
 * lines (a torn last line after a crash) are skipped, each with a warning
 * that says why. A file or directory refused as runtime-dir.h says is not
 * read (a warning, and an error). */
int state_file_load(const char *path, PidMap *ret);
/* The same from an open stream (the parser without the file system: a
 * buffer through fmemopen() in the fuzzer); path only names it in warnings. */
int state_file_read(FILE *f, const char *path, PidMap *ret);
void state_records_free(PidMap *m);
