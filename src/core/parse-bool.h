/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The booleans of systemd's configuration files, for qosd.conf and qos.d. */
#pragma once

/* 1 for yes/true/on/1, 0 for no/false/off/0 (any case); -EINVAL otherwise. */
int parse_boolean(const char *v);
