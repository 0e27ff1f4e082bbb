/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a thread competes: naming qosd's groups and reading /proc. No writes. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/class-table.h"
#include "core/group.h"
#include "core/kernel-caps.h"
#include "core/macro.h"
#include "core/proc.h"

#define GROUP_PREFIX_DEFAULT "qos"
#define GROUP_PREFIX_MAX 64

static char prefix[GROUP_PREFIX_MAX] = GROUP_PREFIX_DEFAULT;
static pthread_once_t prefix_once = PTHREAD_ONCE_INIT;

static bool prefix_valid(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n >= GROUP_PREFIX_MAX)
                return false;
        return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == n;
}

static void prefix_init(void) {
        const char *e = getenv("QOS_CGROUP_PREFIX");
        if (e && prefix_valid(e))
                snprintf(prefix, sizeof prefix, "%s", e);
}

const char *group_prefix(void) {
        pthread_once(&prefix_once, prefix_init);
        return prefix;
}

int group_dir(QClass c, char *buf, size_t size) {
        return group_dir_in(&kernel_caps()->cgroup, c, buf, size);
}

int group_dir_in(const CgroupCaps *cg, QClass c, char *buf, size_t size) {
        if (!class_has_group(c))
                return -EINVAL;
        if (cg->backend == CGROUP_BACKEND_NONE)
                return -EOPNOTSUPP;
        int n = snprintf(buf, size, "%s/%s.%s", cg->mount, group_prefix(), qclass_to_string(c));
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

GroupPlace group_classify(const char *path, const char *pfx, QClass *ret_class) {
        size_t n = strlen(pfx);

        *ret_class = QCLASS_UNSPECIFIED;
        if (strcmp(path, "/") == 0)
                return GROUP_PLACE_ROOT;
        if (path[0] != '/' || strncmp(path + 1, pfx, n) != 0 || path[1 + n] != '.')
                return GROUP_PLACE_FOREIGN;
        /* Exactly a class's name: anything else under the prefix (a
         * subdirectory, a class this version does not know) is not ours. */
        for (QClass c = QCLASS_UNSPECIFIED + 1; c < _QCLASS_MAX; c++)
                if (class_has_group(c) && strcmp(path + 2 + n, qclass_to_string(c)) == 0) {
                        *ret_class = c;
                        return GROUP_PLACE_QOS;
                }
        return GROUP_PLACE_FOREIGN;
}

int group_locate(pid_t tid, GroupPlace *ret_place, QClass *ret_class, char **ret_path) {
        const CgroupCaps *cg = &kernel_caps()->cgroup;
        _cleanup_free_ char *path = NULL;
        QClass c;
        int r;

        if (cg->backend == CGROUP_BACKEND_NONE)
                return -EOPNOTSUPP;
        r = proc_cgroup(tid, cg->backend == CGROUP_BACKEND_V1 ? "cpu" : "", &path);
        if (r < 0)
                return r;
        GroupPlace p = group_classify(path, group_prefix(), &c);
        if (ret_place)
                *ret_place = p;
        if (ret_class)
                *ret_class = c;
        if (ret_path)
                *ret_path = TAKE_PTR(path);
        return 0;
}

static const char *group_share(QClass c, char *buf, size_t size) {
        const ClassKnobs *k = class_knobs(c);
        if (k->group_idle && kernel_caps()->cgroup.idle)
                snprintf(buf, size, "idle: it runs only when no other group wants the CPU");
        else
                snprintf(buf, size, "weight %u, where a session has 100", k->group_weight);
        return buf;
}

int group_describe(pid_t tid, QClass c, char *buf, size_t size) {
        const CgroupCaps *cg = &kernel_caps()->cgroup;
        _cleanup_free_ char *path = NULL;
        char why[128], share[96];
        GroupPlace place;
        QClass in;
        int r;

        if (cg->backend == CGROUP_BACKEND_NONE) {
                snprintf(buf, size, "no cpu cgroup hierarchy qosd can use (%s)%s", cgroup_caps_describe(cg, why, sizeof why),
                         cg->autogroup ? ": the class acts only against threads of the same session" : "");
                return 0;
        }
        r = group_locate(tid, &place, &in, &path);
        if (r < 0)
                return r;
        switch (place) {
        case GROUP_PLACE_QOS:
                snprintf(buf, size, "in qosd's group %s.%s (%s)", group_prefix(), qclass_to_string(in),
                         group_share(in, share, sizeof share));
                break;
        case GROUP_PLACE_FOREIGN:
                snprintf(buf, size,
                         "in cpu cgroup %s, which another manager owns: qosd leaves it there, so the class "
                         "orders it only against threads of that cgroup, not against other applications",
                         path);
                break;
        case GROUP_PLACE_ROOT:
                if (class_has_group(c))
                        snprintf(buf, size, "in the root cpu cgroup, not yet in qosd's group for %s", qclass_to_string(c));
                else if (cg->autogroup)
                        snprintf(buf, size, "in the root cpu cgroup, so in its session's autogroup, which "
                                            "shares the CPU equally with every other session");
                else
                        snprintf(buf, size, "in the root cpu cgroup (autogroup off: it competes with every thread there)");
                break;
        }
        return 0;
}
