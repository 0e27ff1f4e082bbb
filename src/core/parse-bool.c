/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <strings.h>

#include "core/macro.h"
#include "core/parse-bool.h"

int parse_boolean(const char *v) {
        static const char *const yes[] = { "1", "yes", "true", "on" };
        static const char *const no[] = { "0", "no", "false", "off" };
        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(v, yes[i]) == 0)
                        return 1;
                if (strcasecmp(v, no[i]) == 0)
                        return 0;
        }
        return -EINVAL;
}
