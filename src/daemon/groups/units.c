/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/class-table.h"
#include "core/clock.h"
#include "core/kernel-caps.h"
#include "core/log.h"
#include "core/macro.h"
#include "core/proc.h"
#include "qos-config.h"
#include "state/runtime-dir.h"
#include "units/unit-bus.h"
#include "units/unit-path.h"
#include "groups/unit-conns.h"
#include "groups/unit-state.h"
#include "groups/units.h"

#define UNITS_FILE QOS_RUNTIME_DIR "/units"
/* Bounds against a hostile user: the units qosd weighs, the processes of
 * one unit it looks at before calling the unit shared, the depth of a
 * parent chain (the managers it keeps a connection to: unit-conns.h). */
#define CLAIMS_MAX 4096
#define UNIT_PROCS_MAX 1024
#define ANCESTRY_MAX 64

struct Units {
        UnitClaim **claims;
        size_t n;
        PidMap by_pid;          /* process -> the claim it holds (not owned) */
        UnitConns conns;
        UnitRecords records;    /* for the next run */
        bool full_reported;
        sd_event *event;
        sd_event_source *retry; /* while records cannot be written: the next attempt */
};

static uint64_t class_weight(QClass c) {
        const ClassKnobs *k = class_knobs(c);
        return k->group_idle ? UNIT_WEIGHT_IDLE : k->group_weight;
}

static const char *weight_str(uint64_t w, char *buf, size_t size) {
        if (w == UNIT_WEIGHT_UNSET)
                snprintf(buf, size, "unset");
        else if (w == UNIT_WEIGHT_IDLE)
                snprintf(buf, size, "idle");
        else
                snprintf(buf, size, "%" PRIu64, w);
        return buf;
}

/* --- claims --- */

static UnitClaim *claim_find(Units *u, const UnitRef *ref) {
        for (size_t i = 0; i < u->n; i++) {
                UnitRef *c = &u->claims[i]->unit;
                if (c->user == ref->user && c->uid == ref->uid && strcmp(c->name, ref->name) == 0)
                        return u->claims[i];
        }
        return NULL;
}

static UnitClaim *claim_add(Units *u, const UnitRef *ref, QClass class, uint64_t weight) {
        if (u->n >= CLAIMS_MAX) {
                if (!u->full_reported)
                        log_warning("systemd: %d units weighed already; further ones keep their weight", CLAIMS_MAX);
                u->full_reported = true;
                return NULL;
        }
        UnitClaim **n = realloc(u->claims, (u->n + 1) * sizeof *n);
        if (!n)
                return NULL;
        u->claims = n;
        UnitClaim *c = calloc(1, sizeof *c);
        if (!c)
                return NULL;
        *c = (UnitClaim) { .unit = *ref, .class = class, .weight = weight };
        u->claims[u->n++] = c;
        return c;
}

static void claim_drop(Units *u, UnitClaim *c) {
        for (size_t i = 0; i < u->n; i++)
                if (u->claims[i] == c) {
                        u->claims[i] = u->claims[--u->n];
                        break;
                }
        free(c);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata);

/* Records that cannot be written are tried again every RUNTIME_RETRY_USEC
 * and at every change (unit-state.h). */
static void save(Units *u) {
        if (unit_records_save(&u->records, u->claims, u->n) < 0 && u->event)
                runtime_retry_arm(u->event, &u->retry, on_retry, u);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Units *u = userdata;
        if (u->records.error < 0)
                save(u);
        return 0;
}

/* Put back the weight qosd set, unless someone changed it since. */
static void claim_restore(Units *u, UnitClaim *c, const char *why) {
        char a[24], b[24];
        uint64_t now;

        if (c->foreign)
                return;
        Conn *conn = unit_conns_get(&u->conns, c->unit.user, c->unit.uid);
        if (!conn)
                return;
        int r = unit_conns_check(conn, unit_bus_get_weight(conn->bus, c->unit.name, &now));
        if (r == -ENOENT)
                return; /* the unit is gone, and its runtime properties with it */
        if (r < 0) {
                log_warning_errno(r, "systemd: cannot read %s back: %m", c->unit.name);
                return;
        }
        if (now != c->weight) {
                log_info("systemd: %s has CPUWeight=%s now, not qosd's %s: someone else changed it, left alone",
                         c->unit.name, weight_str(now, a, sizeof a), weight_str(c->weight, b, sizeof b));
                return;
        }
        r = unit_conns_check(conn, unit_bus_set_weight(conn->bus, c->unit.name, UNIT_WEIGHT_UNSET));
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "systemd: cannot reset CPUWeight of %s: %m", c->unit.name);
        else
                log_debug("systemd: %s back to the default weight (%s)", c->unit.name, why);
}

/* --- what a process's unit holds --- */

static bool descends_from(pid_t q, pid_t ancestor) {
        for (int depth = 0; depth < ANCESTRY_MAX && q > 1; depth++) {
                ProcStat st;
                if (proc_read_stat(0, q, &st) < 0)
                        return false;
                if (st.ppid == ancestor)
                        return true;
                q = st.ppid;
        }
        return false;
}

static QClass process_class(Manager *m, pid_t pid) {
        TaskEntry *e = registry_get(&m->tasks, pid);
        return e && e->state != TASK_FOREIGN ? e->class : QCLASS_UNSPECIFIED;
}

/* The unit's processes (its cgroup.procs; a scope or service without a
 * delegated subtree has no others). Whether every one is the process, its
 * descendant, or in its class: then the unit is the process's own. The
 * process and its descendants are collected for a move. */
static int unit_members(Manager *m, const char *cgroup, pid_t pid, QClass class, pid_t **ret, size_t *ret_n,
                        bool *ret_own) {
        char path[PATH_MAX];
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ pid_t *tree = calloc(UNIT_PROCS_MAX + 1, sizeof *tree);
        size_t n = 0, seen = 0;
        bool own = true;
        int q;

        if (!tree)
                return -ENOMEM;
        snprintf(path, sizeof path, "%s%s/cgroup.procs", kernel_caps()->cgroup.v2_mount, cgroup);
        f = fopen(path, "re");
        if (!f)
                return negative_errno();
        tree[n++] = pid;
        while (fscanf(f, "%d", &q) == 1) {
                if (q == pid)
                        continue;
                if (++seen > UNIT_PROCS_MAX) {
                        own = false; /* too many to tell: treat as shared */
                        break;
                }
                if (descends_from(q, pid))
                        tree[n++] = q;
                else if (process_class(m, q) != class)
                        own = false;
        }
        *ret = TAKE_PTR(tree);
        *ret_n = n;
        *ret_own = own;
        return 0;
}

/* --- the decisions --- */

static int hold(Units *u, UnitClaim *c, pid_t pid) {
        int r = pid_map_put(&u->by_pid, pid, c);
        if (r >= 0) {
                c->n_pids++;
                c->recovered = false;
        }
        return r;
}

static void weigh_own_unit(Units *u, const UnitRef *ref, QClass class, pid_t pid) {
        char a[24], who[64];
        uint64_t cur, want = class_weight(class);
        Conn *conn = unit_conns_get(&u->conns, ref->user, ref->uid);
        int r;

        if (!conn)
                return;
        r = unit_conns_check(conn, unit_bus_get_weight(conn->bus, ref->name, &cur));
        if (r < 0) {
                log_debug_errno(r, "systemd: %s: cannot read CPUWeight: %m", ref->name);
                return;
        }
        UnitClaim *c = claim_add(u, ref, class, want);
        if (!c)
                return;
        if (cur != UNIT_WEIGHT_UNSET && cur != want) {
                c->foreign = true;
                c->weight = cur;
                log_info("systemd: %s (%s) has CPUWeight=%s set by someone else: left alone", ref->name,
                         unit_manager_describe(ref, who, sizeof who), weight_str(cur, a, sizeof a));
        } else if (cur != want) {
                r = unit_conns_check(conn, unit_bus_set_weight(conn->bus, ref->name, want));
                if (r < 0) {
                        log_warning_errno(r, "systemd: cannot set CPUWeight of %s: %m", ref->name);
                        claim_drop(u, c);
                        return;
                }
                log_info("systemd: %s (%s): CPUWeight=%s for %s", ref->name,
                         unit_manager_describe(ref, who, sizeof who), weight_str(want, a, sizeof a),
                         qclass_to_string(class));
        }
        (void) hold(u, c, pid);
        save(u);
}

static int ensure_slice(Conn *conn) {
        if (conn->slice_ready)
                return 0;
        int r = unit_conns_check(conn, unit_bus_ensure_idle_slice(conn->bus));
        conn->slice_ready = r >= 0;
        return r;
}

static void move_to_scope(Units *u, const UnitRef *from, pid_t pid, const pid_t *tree, size_t n) {
        char scope[UNIT_NAME_MAX], desc[UNIT_NAME_MAX + 96], who[64];
        uint64_t start;
        Conn *conn = unit_conns_get(&u->conns, from->user, from->uid);
        int r;

        if (!conn || proc_start_time(pid, &start) < 0)
                return;
        r = ensure_slice(conn);
        if (r < 0) {
                log_warning_errno(r, "systemd: cannot create %s: %m", UNIT_QOS_SLICE);
                return;
        }
        snprintf(scope, sizeof scope, "qos-background-%d-%" PRIu64 ".scope", (int) pid, start);
        snprintf(desc, sizeof desc, "background work of process %d, moved out of %s by qosd", (int) pid, from->name);
        UnitRef to = *from;
        snprintf(to.name, sizeof to.name, "%s", scope);
        UnitClaim *c = claim_add(u, &to, QCLASS_BACKGROUND, UNIT_WEIGHT_IDLE);
        if (!c)
                return;
        c->moved = true;
        save(u); /* write-ahead: a crash right after the move still knows the scope */
        r = unit_conns_check(conn, unit_bus_start_scope(conn->bus, scope, UNIT_QOS_SLICE, tree, n, UNIT_WEIGHT_IDLE, desc));
        if (r < 0) {
                log_warning_errno(r, "systemd: cannot move process %d out of %s: %m", (int) pid, from->name);
                claim_drop(u, c);
                save(u);
                return;
        }
        log_info("systemd: process %d (and %zu descendant(s)) moved out of %s into %s/%s (%s), idle", (int) pid,
                 n - 1, from->name, UNIT_QOS_SLICE, scope, unit_manager_describe(from, who, sizeof who));
        for (size_t i = 0; i < n; i++)
                (void) hold(u, c, tree[i]);
}

void units_release(Manager *m, pid_t pid) {
        Units *u = m->units;
        if (!u)
                return;
        UnitClaim *c = pid_map_remove(&u->by_pid, pid);
        if (!c)
                return;
        if (--c->n_pids > 0)
                return;
        claim_restore(u, c, "no process wants it any more");
        claim_drop(u, c);
        save(u);
}

void units_sync(Manager *m, pid_t pid) {
        _cleanup_free_ char *cgroup = NULL;
        _cleanup_free_ pid_t *tree = NULL;
        Units *u = m->units;
        UnitRef ref;
        size_t n;
        bool own;

        if (!u)
                return;
        QClass class = process_class(m, pid);
        UnitClaim *held = pid_map_get(&u->by_pid, pid);
        if (held && held->class == class)
                return;
        if (held)
                units_release(m, pid);
        if (!class_has_group(class))
                return;
        if (proc_cgroup(pid, "", &cgroup) < 0 || unit_ref_from_cgroup(cgroup, &ref) < 0 || ref.in_subtree)
                return; /* not in a unit, or in a subtree its unit delegates: per-thread only */
        UnitClaim *c = claim_find(u, &ref);
        if (c) {
                if (c->class == class)
                        (void) hold(u, c, pid);
                return; /* another class holds the unit: per-thread knobs inside it */
        }
        cgroup[ref.cgroup_len] = '\0';
        if (unit_members(m, cgroup, pid, class, &tree, &n, &own) < 0)
                return;
        if (own)
                weigh_own_unit(u, &ref, class, pid);
        else if (class == QCLASS_BACKGROUND)
                move_to_scope(u, &ref, pid, tree, n);
}

void units_recover(Manager *m) {
        Units *u = m->units;
        size_t kept = 0, put_back = 0;

        if (!u)
                return;
        for (size_t i = u->n; i-- > 0;) {
                UnitClaim *c = u->claims[i];
                if (!c->recovered) {
                        kept += c->n_pids > 0;
                        continue;
                }
                claim_restore(u, c, "a previous run set it, no rule wants it now");
                claim_drop(u, c);
                put_back++;
        }
        if (put_back)
                log_info("systemd: put back %zu unit weight(s) a previous run set; kept %zu", put_back, kept);
        save(u);
}

int units_start(Manager *m) {
        const CgroupCaps *cg = &kernel_caps()->cgroup;
        UnitClaim **recs = NULL;
        size_t n = 0;

        if (!cg->systemd_units || !m->settings.systemd_units)
                return 0;
        Units *u = calloc(1, sizeof *u);
        if (!u || !(u->records.path = manager_path(m, UNITS_FILE))) {
                free(u);
                return -ENOMEM;
        }
        u->event = m->event;
        char why[256] = "";
        int r = unit_state_load(u->records.path, &recs, &n, why, sizeof why);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "%s: the previous run's units are not read: %s", u->records.path,
                                  *why ? why : strerror(-r));
        u->claims = recs;
        u->n = n;
        for (size_t i = 0; i < n; i++)
                recs[i]->recovered = true;
        if (n)
                log_info("%s: %zu unit(s) weighed by a previous run", u->records.path, n);
        m->units = u;
        return 0;
}

void units_stop(Manager *m, bool restore) {
        Units *u = m->units;
        if (!u)
                return;
        if (restore) {
                for (size_t i = 0; i < u->n; i++)
                        claim_restore(u, u->claims[i], "qosd is exiting");
                unit_state_remove(u->records.path);
        } else
                save(u);
        for (size_t i = 0; i < u->n; i++)
                free(u->claims[i]);
        free(u->claims);
        pid_map_clear(&u->by_pid);
        unit_conns_close(&u->conns);
        sd_event_source_disable_unref(u->retry);
        free(u->records.path);
        free(u);
        m->units = NULL;
}

int units_describe(Manager *m, pid_t pid, char *buf, size_t size) {
        _cleanup_free_ char *cgroup = NULL;
        char who[64], w[24];
        Units *u = m->units;
        UnitRef ref;

        if (!u)
                return -ENOENT;
        UnitClaim *c = pid_map_get(&u->by_pid, pid);
        if (c && c->foreign) {
                snprintf(buf, size, "%s (%s) has CPUWeight=%s set by someone else: qosd leaves it alone",
                         c->unit.name, unit_manager_describe(&c->unit, who, sizeof who),
                         weight_str(c->weight, w, sizeof w));
                return 0;
        }
        if (c) {
                snprintf(buf, size, "%s (%s): %s CPUWeight=%s for %s, against the other units there", c->unit.name,
                         unit_manager_describe(&c->unit, who, sizeof who),
                         c->moved ? "qosd's own scope in " UNIT_QOS_SLICE "," : "qosd set",
                         weight_str(c->weight, w, sizeof w), qclass_to_string(c->class));
                return 0;
        }
        if (proc_cgroup(pid, "", &cgroup) < 0 || unit_ref_from_cgroup(cgroup, &ref) < 0) {
                snprintf(buf, size, "in no systemd unit qosd weighs");
                return 0;
        }
        if (ref.in_subtree)
                snprintf(buf, size, "in a subtree %s delegates: per-thread knobs only, the unit's own manager "
                                    "owns its cgroups", ref.name);
        else if (!class_has_group(process_class(m, pid)))
                snprintf(buf, size, "%s (%s): its class has no unit weight", ref.name,
                         unit_manager_describe(&ref, who, sizeof who));
        else
                snprintf(buf, size, "%s (%s) holds other processes: per-thread knobs inside the unit (only "
                                    "background work moves out)", ref.name, unit_manager_describe(&ref, who, sizeof who));
        return 0;
}

const char *units_status(Manager *m, char *buf, size_t size) {
        Units *u = m->units;
        size_t weighed = 0, moved = 0, foreign = 0;

        if (!u) {
                snprintf(buf, size, "off (%s)", !kernel_caps()->cgroup.systemd_units
                                                        ? "systemd does not run this machine"
                                                        : "SystemdUnits=no");
                return buf;
        }
        for (size_t i = 0; i < u->n; i++) {
                if (u->claims[i]->foreign)
                        foreign++;
                else if (u->claims[i]->moved)
                        moved++;
                else
                        weighed++;
        }
        int n = snprintf(buf, size, "on: %zu unit(s) weighed, %zu scope(s) of moved work, %zu left alone (foreign)",
                         weighed, moved, foreign);
        if (u->records.error < 0 && n >= 0 && (size_t) n < size)
                unit_records_status(&u->records, buf + n, size - (size_t) n);
        return buf;
}
