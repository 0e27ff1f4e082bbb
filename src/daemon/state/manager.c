/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "state/manager.h"

char *manager_path(const Manager *m, const char *path) {
        char *s;
        const char *root = m->root && strcmp(m->root, "/") != 0 ? m->root : "";
        if (asprintf(&s, "%s%s", root, path) < 0)
                return NULL;
        return s;
}
