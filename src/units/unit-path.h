/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which systemd unit a process belongs to, from its cgroup v2 path as
 * /proc/PID/cgroup shows it. On a systemd machine every process sits in a
 * unit's cgroup: a service or scope of the system manager
 * (/system.slice/cron.service, /user.slice/user-1000.slice/session-2.scope)
 * or of a user's manager, whose tree is the subtree of its own service
 * (/user.slice/user-1000.slice/user@1000.service/app.slice/app-x.scope).
 * The unit is the outermost service or scope below the manager; what lies
 * deeper is the unit's own delegated subtree. Pure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define UNIT_NAME_MAX 256

typedef struct UnitRef {
        bool user;              /* a user's manager (user@UID.service), else the system's */
        uid_t uid;              /* that user; 0 for the system manager */
        char name[UNIT_NAME_MAX];       /* "app-x.scope" */
        size_t cgroup_len;      /* the unit's cgroup is the path's first cgroup_len bytes */
        bool in_subtree;        /* the process is below the unit's cgroup (Delegate=yes) */
} UnitRef;

/* -ENOENT if the path is in no unit qosd may act on: the root, slices
 * only, a manager's own init.scope, or the user manager's service itself;
 * -EINVAL if it is not a cgroup path or names an invalid unit. */
int unit_ref_from_cgroup(const char *path, UnitRef *ret);

/* A unit name systemd would accept: [A-Za-z0-9:_.\\@-], a known suffix. */
bool unit_name_valid(const char *name);

/* "user 1000's manager" or "the system manager". */
const char *unit_manager_describe(const UnitRef *u, char *buf, size_t size);
