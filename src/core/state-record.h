/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One record of the state file (the daemon's state/state-file.h): a task's
 * original and what qosd set it to, as a line of text and back. Pure, no
 * file system, so the parser is tested and fuzzed on its own.
 *
 * A record is one line, its fields named:
 *
 *   C tid=1234 start=98765 class=background orig.policy=0 orig.nice=0 ...
 *     ... set.policy=5 set.nice=19 ... set.group=background
 *   F tid=1234 start=98765
 *
 * "C" keeps a task's original and what qosd set it to, "F" forgets it.
 * After "orig." and "set." come the knobs' names, with values in their
 * rows' persist format (knob-table.h), so a new knob is kept with no change
 * here; a knob a record does not name (written before the knob existed)
 * reads as TASK_ATTR_NEUTRAL has it, as an "A" record's group does. A
 * named record counts only with its newline, so a line torn by a crash is
 * never read as a shorter one; an unknown, repeated or unparsable field
 * refuses the whole record, and the reason given names the field.
 *
 * Earlier qosd wrote positional records, still read: "A TID START CLASS"
 * with eight attribute fields per side, "B" with the group (which of
 * qosd's cpu groups, 0: none) as a ninth, a new tag rather than a longer
 * "A" so that a torn "B" line never parses as a shorter "A" one, and
 * "F TID START".
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/qclass.h"
#include "core/task-attr.h"

typedef struct StateRecord {
        pid_t tid;
        uint64_t start_time;
        QClass class;
        TaskAttr orig, set;
} StateRecord;

/* The longest line a record may take, its newline included. */
#define STATE_LINE_MAX 1024

/* One record as a line ("C ...\n"); its length, or -ENOBUFS. */
int state_record_format(const StateRecord *r, char *buf, size_t size);
/* A line of any kind back: *ret_forget is 1 for "F". A refused line
 * gives -EINVAL and, in why (if not NULL), which field and why. */
int state_record_parse(const char *line, StateRecord *ret, int *ret_forget, char *why, size_t why_size);
