/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The units qosd weighed, on disk (/run/qos/units) for the next run: one
 * line per unit, rewritten whole and renamed into place, so a crash leaves
 * the old list or the new one, never half. The file and its directory are
 * trusted only as runtime-dir.h says (as the state file): a refusal is a
 * negative errno with why filled. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/qclass.h"
#include "units/unit-path.h"

typedef struct UnitClaim {
        UnitRef unit;           /* the manager and the unit's name */
        QClass class;
        uint64_t weight;        /* the CPUWeight qosd set (foreign: the one found) */
        bool moved;             /* a scope qosd started for moved work */
        bool foreign;           /* someone else set the weight: left alone */
        bool recovered;         /* from the previous run, no process holds it yet */
        size_t n_pids;          /* processes that want it (not saved) */
} UnitClaim;

#define UNIT_STATE_MAX 4096

/* One line; pure. -EINVAL for a line that is not a valid record. */
int unit_claim_format(const UnitClaim *c, char *buf, size_t size);
int unit_claim_parse(const char *line, UnitClaim *ret);

int unit_state_save(const char *path, UnitClaim *const *claims, size_t n, char *why, size_t size);
/* Records of a previous run (allocated each, array to free); invalid lines
 * are skipped with a warning; -ENOENT if there is no file. */
int unit_state_load(const char *path, UnitClaim ***ret, size_t *ret_n, char *why, size_t size);
/* The same from an open stream (the parser without the file system: a
 * buffer through fmemopen() in the fuzzer); path only names it in warnings. */
int unit_state_read(FILE *f, const char *path, UnitClaim ***ret, size_t *ret_n);
/* The records of a running qosd (/run/qos/units). When they cannot be
 * written (a full or read-only /run, a refused directory or file), the
 * weights still apply: qosd says so in the journal once per reason, keeps
 * why for `qosctl status`, and its caller tries again (a save writes every
 * record, so recording comes back complete). */
typedef struct UnitRecords {
        char *path;
        int error;              /* while they cannot be written: why, as a negative errno */
        char reason[256];       /* ... and as a sentence */
} UnitRecords;

int unit_records_save(UnitRecords *rec, UnitClaim *const *claims, size_t n);
/* "; records off: WHY (PATH); tried again every 2 s" */
void unit_records_status(const UnitRecords *rec, char *buf, size_t size);

/* After a clean exit; a file refused as not qosd's is left alone. */
void unit_state_remove(const char *path);
