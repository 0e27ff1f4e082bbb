/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "units/app-id.h"
#include "units/unit-path.h"

static bool ends_with(const char *s, size_t len, const char *suffix, size_t *ret_stem) {
        size_t n = strlen(suffix);
        if (len < n || memcmp(s + len - n, suffix, n) != 0)
                return false;
        *ret_stem = len - n;
        return true;
}

/* An app ID as the XDG and Flatpak specs allow it: letters, digits, '.',
 * '_' and '-', not empty, no leading or doubled dot. */
static bool id_valid(const char *id) {
        if (!*id || *id == '.')
                return false;
        for (const char *p = id; *p; p++) {
                bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                          *p == '_' || *p == '-' || (*p == '.' && p[1] != '.');
                if (!ok)
                        return false;
        }
        return true;
}

/* s[0..len) with each \x2d as '-'; anything else escaped is not an ID. */
static int unescape_id(const char *s, size_t len, char ret[APP_ID_MAX]) {
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                if (c == '\\') {
                        if (len - i < 4 || memcmp(s + i, "\\x2d", 4) != 0)
                                return -EINVAL;
                        c = '-';
                        i += 3;
                }
                if (o + 1 >= APP_ID_MAX)
                        return -EINVAL;
                ret[o++] = c;
        }
        ret[o] = '\0';
        return id_valid(ret) ? 0 : -EINVAL;
}

/* A UUID as snapd writes it: 8-4-4-4-12 hexadecimal digits. */
static bool is_uuid(const char *s) {
        for (size_t i = 0; i < 36; i++) {
                bool dash = i == 8 || i == 13 || i == 18 || i == 23;
                char c = s[i];
                if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
                        return false;
        }
        return true;
}

/* "snap.NAME.APP-UUID" (older snapd: "-RANDOM"): NAME_APP. */
static int from_snap(const char *s, size_t len, char ret[APP_ID_MAX]) {
        const char *name = s + strlen("snap."), *dot;
        const char *dash = len > strlen("snap.") + 37 && is_uuid(s + len - 36) ? s + len - 37 : memrchr(s, '-', len);
        if (!dash || *dash != '-' || dash < name)
                return -EINVAL;
        dot = memchr(name, '.', (size_t) (dash - name));
        if (!dot || dot == name || dot + 1 == dash)
                return -EINVAL;
        int n = snprintf(ret, APP_ID_MAX, "%.*s_%.*s", (int) (dot - name), name, (int) (dash - dot - 1), dot + 1);
        if (n < 0 || n >= APP_ID_MAX)
                return -EINVAL;
        return id_valid(ret) ? 0 : -EINVAL;
}

int app_id_from_unit(const char *unit, char ret[APP_ID_MAX]) {
        size_t len = strlen(unit), stem;
        bool scope;

        if (ends_with(unit, len, ".scope", &stem))
                scope = true;
        else if (ends_with(unit, len, ".service", &stem))
                scope = false;
        else
                return -ENOENT;
        if (scope && strncmp(unit, "snap.", strlen("snap.")) == 0)
                return from_snap(unit, stem, ret);
        if (strncmp(unit, "app-", strlen("app-")) != 0)
                return -ENOENT;
        const char *s = unit + strlen("app-");
        size_t n = stem - strlen("app-");
        if (scope) {
                /* The last '-' starts the random part. */
                const char *dash = memrchr(s, '-', n);
                if (!dash)
                        return -EINVAL;
                n = (size_t) (dash - s);
        } else {
                const char *at = memchr(s, '@', n);
                if (at)
                        n = (size_t) (at - s);
        }
        /* A '-' left is the end of the launcher's name: the ID's own are
         * escaped. */
        const char *dash = memchr(s, '-', n);
        if (dash) {
                n -= (size_t) (dash + 1 - s);
                s = dash + 1;
        }
        return unescape_id(s, n, ret);
}

int app_id_from_cgroup(const char *path, char ret[APP_ID_MAX]) {
        UnitRef u;
        int r = unit_ref_from_cgroup(path, &u);
        if (r < 0)
                return r == -EINVAL ? -EINVAL : -ENOENT;
        return app_id_from_unit(u.name, ret);
}

int app_id_from_flatpak_info(const char *text, char ret[APP_ID_MAX]) {
        bool in_app = false;
        for (const char *line = text; line && *line;) {
                const char *end = strchr(line, '\n');
                size_t len = end ? (size_t) (end - line) : strlen(line);
                if (len > 0 && line[0] == '[')
                        in_app = len == strlen("[Application]") && memcmp(line, "[Application]", len) == 0;
                else if (in_app && len > strlen("name=") && memcmp(line, "name=", strlen("name=")) == 0) {
                        size_t n = len - strlen("name=");
                        if (n >= APP_ID_MAX)
                                return -EINVAL;
                        memcpy(ret, line + strlen("name="), n);
                        ret[n] = '\0';
                        return id_valid(ret) ? 0 : -EINVAL;
                }
                line = end ? end + 1 : NULL;
        }
        return -ENOENT;
}
