/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "config/ananicy-import.h"
#include "config/conf-entries.h"
#include "config/conf-skipped.h"
#include "core/macro.h"

void skipped_done(Skipped *k) {
        for (size_t i = 0; i < SKIPPED_SHOWN; i++)
                free(k->first[i]);
        *k = (Skipped) {};
}

int skipped_add(Skipped *k, const char *name) {
        size_t kept = k->n < SKIPPED_SHOWN ? k->n : SKIPPED_SHOWN, at = kept;

        k->n++;
        k->ananicy |= ananicy_reads_file(name);
        while (at > 0 && strcmp(name, k->first[at - 1]) < 0)
                at--;
        if (at == SKIPPED_SHOWN)
                return 0;
        char *copy = strdup(name);
        if (!copy)
                return -ENOMEM;
        if (kept == SKIPPED_SHOWN)
                free(k->first[--kept]);
        memmove(&k->first[at + 1], &k->first[at], (kept - at) * sizeof *k->first);
        k->first[at] = copy;
        return 0;
}

/* One warning for what k holds, at the file when it is one, else at dir:
 * what is not a rule file there is read by nobody, and was most often
 * meant to be. */
int skipped_report(Skipped *k, const char *dir, bool dropins, DiagList *diag) {
        const char *what = dropins ? "drop-in (*.conf)" : "rule file (*.conf, *.json, NAME.conf.d/)";
        const char *hint = k->ananicy ? "; " ANANICY_IMPORT_HINT : "";
        _cleanup_free_ char *path = NULL, *names = NULL;
        size_t len = 0, shown = k->n < SKIPPED_SHOWN ? k->n : SKIPPED_SHOWN;
        int r;

        if (k->n == 0)
                return 0;
        if (k->n == 1) {
                if (conf_path_join(dir, k->first[0], &path) < 0)
                        return -ENOMEM;
                r = diag_add(diag, LOG_WARNING, path, 0, "skipped: not a %s%s", what, hint);
                skipped_done(k);
                return r;
        }
        FILE *f = open_memstream(&names, &len);
        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < shown; i++)
                fprintf(f, "%s'%s'", i == 0 ? "" : i + 1 < shown || k->n > shown ? ", " : " and ", k->first[i]);
        if (k->n > shown)
                fprintf(f, " and %zu more", k->n - shown);
        r = fclose(f) == 0 ? 0 : -ENOMEM;
        if (r >= 0)
                r = diag_add(diag, LOG_WARNING, dir, 0, "%zu files skipped, each not a %s: %s%s", k->n, what, names,
                             hint);
        skipped_done(k);
        return r;
}
