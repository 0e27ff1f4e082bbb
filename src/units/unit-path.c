/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units/unit-path.h"

static bool has_suffix(const char *s, size_t n, const char *suffix) {
        size_t k = strlen(suffix);
        return n > k && memcmp(s + n - k, suffix, k) == 0;
}

static bool is_unit(const char *s, size_t n) {
        return has_suffix(s, n, ".service") || has_suffix(s, n, ".scope");
}

bool unit_name_valid(const char *name) {
        size_t n = strlen(name);
        if (n == 0 || n >= UNIT_NAME_MAX)
                return false;
        if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.\\@-") != n)
                return false;
        return is_unit(name, n) || has_suffix(name, n, ".slice");
}

/* "user@1000.service" -> 1000 */
static bool user_manager_uid(const char *s, size_t n, uid_t *ret) {
        char buf[32], *end;
        if (n < sizeof "user@.service" || n - 5 >= sizeof buf || memcmp(s, "user@", 5) != 0 ||
            !has_suffix(s, n, ".service"))
                return false;
        size_t digits = n - 5 - strlen(".service");
        memcpy(buf, s + 5, digits);
        buf[digits] = '\0';
        errno = 0;
        unsigned long v = strtoul(buf, &end, 10);
        if (errno || end == buf || *end || v >= (uid_t) -1 || buf[0] == '-' || buf[0] == '+')
                return false;
        *ret = (uid_t) v;
        return true;
}

int unit_ref_from_cgroup(const char *path, UnitRef *ret) {
        UnitRef u = {};
        const char *p = path;

        if (path[0] != '/')
                return -EINVAL;
        while (*p == '/') {
                const char *c = p + 1, *end = strchrnul(c, '/');
                size_t n = (size_t) (end - c);
                p = end;
                if (n == 0)
                        break;
                if (!is_unit(c, n))
                        continue; /* a slice, on the way down */
                uid_t uid;
                if (!u.user && user_manager_uid(c, n, &uid)) {
                        if (*p == '\0')
                                return -ENOENT; /* the user manager's service itself */
                        u.user = true;
                        u.uid = uid;
                        continue;
                }
                if (n >= UNIT_NAME_MAX)
                        return -EINVAL;
                memcpy(u.name, c, n);
                u.name[n] = '\0';
                if (!unit_name_valid(u.name))
                        return -EINVAL;
                /* The manager's own processes: nothing to weigh against. */
                if (strcmp(u.name, "init.scope") == 0)
                        return -ENOENT;
                u.cgroup_len = (size_t) (p - path);
                u.in_subtree = *p == '/' && p[1] != '\0';
                *ret = u;
                return 0;
        }
        return -ENOENT;
}

const char *unit_manager_describe(const UnitRef *u, char *buf, size_t size) {
        if (u->user)
                snprintf(buf, size, "user %u's manager", (unsigned) u->uid);
        else
                snprintf(buf, size, "the system manager");
        return buf;
}
