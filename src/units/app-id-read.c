/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "core/macro.h"
#include "core/proc.h"
#include "units/app-id.h"

int app_id_read(pid_t pid, const char *cgroup, bool flatpak_info, char ret[APP_ID_MAX]) {
        _cleanup_free_ char *own = NULL;
        char info[4096];

        if (!cgroup && proc_cgroup(pid, NULL, &own) >= 0)
                cgroup = own;
        if (cgroup && app_id_from_cgroup(cgroup, ret) >= 0)
                return 0;
        if (flatpak_info && proc_root_file(pid, ".flatpak-info", info, sizeof info) >= 0 &&
            app_id_from_flatpak_info(info, ret) >= 0)
                return 0;
        return -ENOENT;
}
