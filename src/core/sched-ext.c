/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "core/fileio.h"
#include "core/sched-ext.h"

#define SCHED_EXT_DIR "/sys/kernel/sched_ext"

static int read_line(const char *sys_root, const char *file, char *buf, size_t size) {
        char path[512];
        int n = snprintf(path, sizeof path, "%s" SCHED_EXT_DIR "/%s", sys_root ?: "", file);
        if (n < 0 || (size_t) n >= sizeof path)
                return -1;
        int r = read_small_file(path, buf, size, NULL);
        if (r < 0)
                return r;
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

SchedExtState sched_ext_state_from_string(const char *s) {
        size_t n = strcspn(s, "\n");
        if (n == strlen("disabled") && strncmp(s, "disabled", n) == 0)
                return SCHED_EXT_DISABLED;
        if (n == strlen("enabled") && strncmp(s, "enabled", n) == 0)
                return SCHED_EXT_ENABLED;
        /* "enabling", "disabling", and whatever a later kernel adds: not
         * settled, so nobody should act on it. */
        return SCHED_EXT_CHANGING;
}

void sched_ext_read(const char *sys_root, SchedExt *ret) {
        char state[64];

        *ret = (SchedExt) { .state = SCHED_EXT_ABSENT };
        if (read_line(sys_root, "state", state, sizeof state) < 0)
                return;
        ret->state = sched_ext_state_from_string(state);
        /* root/ops exists only while a scheduler is attached (6.12+); an
         * older kernel names it nowhere else. */
        if (read_line(sys_root, "root/ops", ret->ops, sizeof ret->ops) < 0)
                ret->ops[0] = '\0';
}

const char *sched_ext_describe(const SchedExt *x, char *buf, size_t size) {
        switch (x->state) {
        case SCHED_EXT_ABSENT:
                snprintf(buf, size, "fair (no sched_ext)");
                break;
        case SCHED_EXT_DISABLED:
                snprintf(buf, size, "fair (sched_ext idle)");
                break;
        case SCHED_EXT_ENABLED:
                snprintf(buf, size, "sched_ext \"%s\"", x->ops[0] ? x->ops : "?");
                break;
        case SCHED_EXT_CHANGING:
                snprintf(buf, size, "sched_ext changing%s%s%s", x->ops[0] ? " (\"" : "", x->ops,
                         x->ops[0] ? "\")" : "");
                break;
        }
        return buf;
}
