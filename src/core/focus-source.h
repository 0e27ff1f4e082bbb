/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The name a foreground source gives itself in SetFocus ("x11", "kwin",
 * "gnome-shell"), shown by `qosctl status`: [a-z0-9-], 1 to 31 bytes. */
#pragma once

#include <stdbool.h>

#define FOCUS_SOURCE_MAX 32

bool focus_source_name_valid(const char *s);
