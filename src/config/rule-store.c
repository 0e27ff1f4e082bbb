/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "config/rule-store.h"

RuleStore *rule_store_new(void) {
        RuleStore *s = calloc(1, sizeof *s);
        if (!s)
                return NULL;
        s->arena = arena_new();
        if (!s->arena)
                return rule_store_free(s);
        return s;
}

RuleStore *rule_store_free(RuleStore *s) {
        if (!s)
                return NULL;
        arena_free(s->arena);
        free(s->files);
        free(s);
        return NULL;
}

int rule_store_line(RuleStore *s, RuleOrigin o, SourceLine *ret) {
        if (!o.path) {
                *ret = (SourceLine) { 0, o.line };
                return 0;
        }
        if (s->n_files == 0 || s->files[s->n_files - 1] != o.path) {
                if (s->n_files == UINT32_MAX - 1)
                        return -E2BIG;
                if (s->n_files == s->n_allocated) {
                        size_t n = s->n_allocated ? (size_t) s->n_allocated * 2 : 16;
                        if (n > UINT32_MAX)
                                n = UINT32_MAX;
                        const char **files = reallocarray(s->files, n, sizeof *files);
                        if (!files)
                                return -ENOMEM;
                        s->files = files;
                        s->n_allocated = (uint32_t) n;
                }
                s->files[s->n_files++] = o.path;
        }
        *ret = (SourceLine) { s->n_files, o.line };
        return 0;
}

RuleOrigin rule_store_origin(const RuleStore *s, SourceLine l) {
        return (RuleOrigin) { l.file > 0 && l.file <= s->n_files ? s->files[l.file - 1] : NULL, l.line };
}
