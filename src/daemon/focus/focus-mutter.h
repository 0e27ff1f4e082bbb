/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The foreground as GNOME's mutter (41 and later) marks it: on every focus
 * change it writes the xattr user.xdg.inactive-since on the focused
 * window's unit cgroup, "-1" for the app that has the focus and a
 * monotonic timestamp on the one that lost it. qosd follows it as
 * uresourced does, with inotify (IN_ATTRIB) on app.slice of each active
 * seat user's manager, and its direct sub-slices.
 *
 * Only the users who sit at a seat are watched, and a mark may bring only
 * its user's processes into the foreground: those cgroups are the user's
 * own, and anyone may write the mark on their own. */
#pragma once

#include "state/manager.h"
#include "focus/seats.h"

typedef struct MutterFocus MutterFocus;

/* Cgroup v2 with systemd's layout, or *ret = NULL (nothing to follow). */
int mutter_focus_new(Manager *m, MutterFocus **ret);
void mutter_focus_free(MutterFocus *mf);

/* Watch exactly the app slices of the active seat users. */
void mutter_focus_sync(Manager *m, MutterFocus *mf, const Seats *seats);

/* The value of a user.xdg.inactive-since mark: 1 for "-1" (focused), 0 for
 * a timestamp (lost the focus), -EINVAL for anything else. Pure. */
int mutter_mark_parse(const char *value, size_t len);
