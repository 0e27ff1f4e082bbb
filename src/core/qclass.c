/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "core/macro.h"
#include "core/qclass.h"

static const char *const class_names[_QCLASS_MAX] = {
        [QCLASS_UNSPECIFIED] = "unspecified",
        [QCLASS_BACKGROUND] = "background",
        [QCLASS_UTILITY] = "utility",
        [QCLASS_USER_INITIATED] = "user-initiated",
        [QCLASS_USER_INTERACTIVE] = "user-interactive",
};

/* Spellings after normalisation (lower case, '_' -> '-'). Apple's
 * QOS_CLASS_USER_INTERACTIVE becomes "qos-class-user-interactive", schedqos'
 * QOS_USER_INTERACTIVE becomes "qos-user-interactive"; both prefixes are
 * stripped before this lookup, so only the bare names need listing. */
static const struct {
        const char *name;
        QClass class;
} aliases[] = {
        { "user-interactive", QCLASS_USER_INTERACTIVE },
        { "userinteractive", QCLASS_USER_INTERACTIVE },
        { "interactive", QCLASS_USER_INTERACTIVE },
        { "ui", QCLASS_USER_INTERACTIVE },
        { "user-initiated", QCLASS_USER_INITIATED },
        { "userinitiated", QCLASS_USER_INITIATED },
        { "initiated", QCLASS_USER_INITIATED },
        { "in", QCLASS_USER_INITIATED },
        { "utility", QCLASS_UTILITY },
        { "ut", QCLASS_UTILITY },
        { "default", QCLASS_UTILITY },
        { "background", QCLASS_BACKGROUND },
        { "bg", QCLASS_BACKGROUND },
        { "unspecified", QCLASS_UNSPECIFIED },
};

const char *qclass_to_string(QClass c) {
        if (c < 0 || c >= _QCLASS_MAX)
                return NULL;
        return class_names[c];
}

const char *qclass_valid_names(void) {
        return "user-interactive (ui), user-initiated (in), utility (ut, default), background (bg)";
}

int qclass_from_string(const char *s) {
        char buf[64];
        size_t n;

        if (!s)
                return -EINVAL;
        n = strlen(s);
        if (n == 0 || n >= sizeof buf)
                return -EINVAL;
        for (size_t i = 0; i <= n; i++)
                buf[i] = s[i] == '_' ? '-' : (char) tolower((unsigned char) s[i]);

        const char *p = buf;
        if (strncmp(p, "qos-class-", 10) == 0)
                p += 10;
        else if (strncmp(p, "qos-", 4) == 0)
                p += 4;

        for (size_t i = 0; i < ELEMENTSOF(aliases); i++)
                if (strcmp(p, aliases[i].name) == 0)
                        return aliases[i].class;
        return -EINVAL;
}
