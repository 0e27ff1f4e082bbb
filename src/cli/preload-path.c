/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where libqos-preload.so is for this qosctl. The library is private
 * (QOS_PRELOAD_PATH, below libdir/qos), so qosctl finds it from where it
 * runs itself:
 *   - from the configured bindir, or from that bindir below a staging root
 *     (meson install --destdir D): the library below the same root, and
 *     nowhere else, so an installed qosctl never looks into a build tree;
 *   - from anywhere else, which is the build tree (src/cli/qosctl): the
 *     library built beside it (src/preload/), else the configured one. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/macro.h"
#include "core/proc.h"
#include "qos-config.h"

/* The staging root when dir is QOS_BINDIR below one ("" for none). */
static int staging_root(const char *dir, char **ret) {
        size_t n = strlen(dir), k = strlen(QOS_BINDIR);
        if (n < k || strcmp(dir + n - k, QOS_BINDIR) != 0)
                return -ENOENT;
        *ret = strndup(dir, n - k);
        return *ret ? 0 : -ENOMEM;
}

static int existing(const char *path, char **ret) {
        if (access(path, R_OK) < 0)
                return negative_errno();
        *ret = realpath(path, NULL);
        return *ret ? 0 : negative_errno();
}

int cli_preload_library(char **ret) {
        _cleanup_free_ char *self = NULL, *root = NULL, *path = NULL;
        int r;

        *ret = NULL;
        r = proc_exe(getpid(), &self);
        if (r < 0)
                return existing(QOS_PRELOAD_PATH, ret);
        const char *dir = dirname(self);
        r = staging_root(dir, &root);
        if (r == -ENOMEM)
                return r;
        if (r >= 0)
                return asprintf(&path, "%s%s", root, QOS_PRELOAD_PATH) < 0 ? -ENOMEM : existing(path, ret);
        if (asprintf(&path, "%s/../preload/libqos-preload.so", dir) < 0)
                return -ENOMEM;
        r = existing(path, ret);
        return r >= 0 ? r : existing(QOS_PRELOAD_PATH, ret);
}
