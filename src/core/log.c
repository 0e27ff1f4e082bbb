/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/log.h"
#include "core/term-escape.h"

static int max_level = LOG_INFO;

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

int log_level_from_string(const char *s) {
        static const char *const names[] = {
                "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
        };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (strcasecmp(s, names[i]) == 0)
                        return (int) i;
        if (strcasecmp(s, "error") == 0)
                return LOG_ERR;
        if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
                return s[0] - '0';
        return -EINVAL;
}

/* journald sets JOURNAL_STREAM for services whose stderr it reads; then the
 * "<N>" prefix carries the priority, as sd-daemon(3) describes. */
static bool stderr_is_journal(void) {
        static int cached = -1;
        if (cached < 0)
                cached = getenv("JOURNAL_STREAM") != NULL;
        return cached;
}

int log_internal(int level, int error, const char *fmt, ...) {
        int e = error < 0 ? -error : error;
        if (level <= max_level) {
                char buf[1024];
                va_list ap;
                errno = e;
                va_start(ap, fmt);
                vsnprintf(buf, sizeof buf, fmt, ap);
                va_end(ap);
                /* Messages carry names others chose (threads, files): a
                 * control character, a newline among them, must neither
                 * act on the terminal that shows the log nor forge a line. */
                char *text = term_escape(buf);
                if (stderr_is_journal())
                        fprintf(stderr, "<%d>%s\n", level, text ?: buf);
                else
                        fprintf(stderr, "%s\n", text ?: buf);
                free(text);
        }
        return -(e ? e : EIO);
}
