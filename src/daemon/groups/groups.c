/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/class-table.h"
#include "core/group.h"
#include "groups/groups.h"
#include "core/kernel-caps.h"
#include "core/log.h"

static bool keep_task(pid_t tid, QClass group, void *userdata) {
        Manager *m = userdata;
        TaskAttr cur;

        /* Managed: its record was restored or re-applied by the scan. */
        if (registry_get(&m->tasks, tid))
                return true;
        /* Gone meanwhile: nothing to move. */
        if (task_attr_read(tid, &cur) < 0)
                return true;
        /* Not qosd's doing. In its group's class, it was put there on
         * purpose; with other knobs (a child of a user-class task, whose
         * knobs the kernel reset) it only inherited the group. */
        return class_from_attr(&cur, kernel_caps()) == group;
}

void groups_recover(Manager *m) {
        int n = group_recover(keep_task, m);
        if (n > 0)
                log_info("moved %d thread(s) left in qosd's cpu groups back to the root", n);
}

void groups_tidy(Manager *m) {
        int left = group_remove_all_empty();
        log_debug("cpu groups: %d in use", left);
}
