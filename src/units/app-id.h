/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An application's ID as desktops name its unit. GNOME, KDE and Flatpak
 * start each app in a unit named after its ID, as systemd's desktop
 * environment integration describes (systemd.io/DESKTOP_ENVIRONMENTS):
 *   app[-LAUNCHER]-APPID-RANDOM.scope    app-gnome-org.gnome.Nautilus-1234.scope
 *                                         app-flatpak-org.mozilla.firefox-5678.scope
 *   app[-LAUNCHER]-APPID[@RANDOM].service app-org.kde.konsole@a1b2.service
 * where a '-' in the ID is written \x2d, so the first '-' after "app-"
 * ends the launcher; and snapd's snap.NAME.APP-UUID.scope, whose
 * application is NAME_APP (its desktop file's name). What the launcher
 * chose: an app's user can name a unit anything. Pure but app_id_read(). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define APP_ID_MAX 256

/* The app ID in a unit's name; -ENOENT when the name is no app's unit,
 * -EINVAL when it is malformed. */
int app_id_from_unit(const char *unit, char ret[APP_ID_MAX]);

/* The same for a process's cgroup v2 path: the unit it is in. */
int app_id_from_cgroup(const char *path, char ret[APP_ID_MAX]);

/* The app ID in the [Application] name= of a Flatpak instance's
 * .flatpak-info (text, as read): -ENOENT when there is none. */
int app_id_from_flatpak_info(const char *text, char ret[APP_ID_MAX]);

/* Not pure: the app ID of process pid, from its cgroup path (read from
 * /proc when NULL), else, with flatpak_info, from its Flatpak instance's
 * /.flatpak-info (proc_root_file()); -ENOENT when neither names one. */
int app_id_read(pid_t pid, const char *cgroup, bool flatpak_info, char ret[APP_ID_MAX]);
