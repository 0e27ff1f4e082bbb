/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>

#include "config/cpu-kinds-conf.h"
#include "core/macro.h"

int cpu_kinds_from_settings(const char *sys, const Settings *s, CpuKinds *ret, const char **bad) {
        (void) cpu_kinds_read(sys, ret); /* one kind of CPU if even that fails */
        return cpu_kinds_override(ret, s->efficient_cpus, s->performance_cpus, bad);
}

void cpu_kinds_for_root(const char *root, const char *sys, CpuKinds *ret, char *note, size_t size) {
        _cleanup_free_ char *conf = settings_default_path(root);
        const char *bad = NULL;
        Settings s;

        settings_init(&s);
        if (conf)
                (void) settings_load(&s, conf); /* its errors are logged as file:line */
        note[0] = '\0';
        if (cpu_kinds_from_settings(sys, &s, ret, &bad) < 0)
                snprintf(note, size, "%s= in %s names no CPU of its own here, so it is not used", bad, conf);
        settings_done(&s);
}
