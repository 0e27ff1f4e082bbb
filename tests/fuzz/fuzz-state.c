/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target for the two files qosd reads back after a restart: the
 * state file (/run/qos/qosd.state, state-file.c) and the units it weighed
 * (/run/qos/units, unit-state.c). Both are line formats that skip what
 * does not parse, so the whole input goes to each reader. What a reader
 * keeps must be a valid record that survives its own format and parse
 * unchanged: otherwise the next restart would read something else. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "state/state-file.h"
#include "groups/unit-state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool attr_equal(const TaskAttr *a, const TaskAttr *b) {
        return a->policy == b->policy && a->nice == b->nice && a->slice_ns == b->slice_ns &&
               a->reset_on_fork == b->reset_on_fork && a->uclamp_min == b->uclamp_min &&
               a->uclamp_max == b->uclamp_max && a->ioprio == b->ioprio &&
               a->timer_slack_ns == b->timer_slack_ns && a->group == b->group && cpu_mask_equal(&a->cpus, &b->cpus);
}

static void check_state(const uint8_t *data, size_t size) {
        FILE *f = fmemopen((void *) data, size, "r");
        PidMap m;
        if (!f)
                return; /* size 0 on older C libraries */
        if (state_file_read(f, "fuzz.state", &m) < 0) {
                fclose(f);
                return;
        }
        fclose(f);

        size_t i = 0;
        pid_t key;
        void *v;
        while (pid_map_next(&m, &i, &key, &v)) {
                const StateRecord *r = v;
                StateRecord back;
                char line[STATE_LINE_MAX];
                int forget = -1;
                if (r->tid != key || r->tid <= 0 || !qclass_is_valid(r->class) ||
                    (r->orig.group != QCLASS_UNSPECIFIED && !qclass_is_valid(r->orig.group)))
                        __builtin_trap();
                if (state_record_format(r, line, sizeof line) < 0 || state_record_parse(line, &back, &forget, NULL, 0) < 0 ||
                    forget != 0 || back.tid != r->tid || back.start_time != r->start_time ||
                    back.class != r->class || !attr_equal(&back.orig, &r->orig) || !attr_equal(&back.set, &r->set))
                        __builtin_trap();
        }
        state_records_free(&m);
}

static void check_units(const uint8_t *data, size_t size) {
        FILE *f = fmemopen((void *) data, size, "r");
        UnitClaim **list = NULL;
        size_t n = 0;
        if (!f)
                return;
        if (unit_state_read(f, "fuzz.units", &list, &n) < 0) {
                fclose(f);
                return;
        }
        fclose(f);
        if (n > UNIT_STATE_MAX)
                __builtin_trap();
        for (size_t i = 0; i < n; i++) {
                const UnitClaim *c = list[i];
                UnitClaim back;
                char line[512];
                if (!qclass_is_valid(c->class) || !unit_name_valid(c->unit.name) || (!c->unit.user && c->unit.uid != 0))
                        __builtin_trap();
                if (unit_claim_format(c, line, sizeof line) < 0 || unit_claim_parse(line, &back) < 0 ||
                    back.unit.user != c->unit.user || back.unit.uid != c->unit.uid ||
                    strcmp(back.unit.name, c->unit.name) != 0 || back.class != c->class ||
                    back.weight != c->weight || back.moved != c->moved || back.foreign != c->foreign)
                        __builtin_trap();
                free(list[i]);
        }
        free(list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        /* Every malformed line is a warning: quiet, or the log is the run. */
        log_set_max_level(LOG_CRIT);
        check_state(data, size);
        check_units(data, size);
        return 0;
}
