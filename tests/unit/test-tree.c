/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test-tree.h"

char *tree_new(void) {
        const char *tmp = getenv("TMPDIR");
        char *p;
        assert_true(asprintf(&p, "%s/qos-test-XXXXXX", tmp && *tmp ? tmp : "/tmp") > 0);
        assert_non_null(mkdtemp(p));
        return p;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

void tree_remove(char *root) {
        if (root)
                nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        free(root);
}

char *tree_path(const char *root, const char *rel) {
        char *p;
        assert_true(asprintf(&p, "%s/%s", root, rel) > 0);
        return p;
}

static void make_parents(char *path) {
        for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                if (mkdir(path, 0755) < 0)
                        assert_int_equal(errno, EEXIST);
                *s = '/';
        }
}

void tree_mkdir(const char *root, const char *rel) {
        char *p = tree_path(root, rel);
        make_parents(p);
        if (mkdir(p, 0755) < 0)
                assert_int_equal(errno, EEXIST);
        free(p);
}

void tree_write(const char *root, const char *rel, const char *content) {
        char *p = tree_path(root, rel);
        make_parents(p);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fputs(content, f);
        assert_int_equal(fclose(f), 0);
        free(p);
}

void tree_symlink(const char *root, const char *rel, const char *target) {
        char *p = tree_path(root, rel);
        make_parents(p);
        assert_int_equal(symlink(target, p), 0);
        free(p);
}

void dump_diags(const DiagList *l) {
        diag_list_print(l, stderr);
}

const Diag *expect_diag(const DiagList *l, unsigned line, int level, const char *text) {
        for (size_t i = 0; i < l->n; i++) {
                const Diag *d = &l->items[i];
                if (d->line == line && strstr(d->message, text)) {
                        if (d->level != level) {
                                dump_diags(l);
                                fail_msg("line %u '%s': level %d, expected %d", line, text, d->level, level);
                        }
                        return d;
                }
        }
        dump_diags(l);
        fail_msg("no diagnostic at line %u containing '%s'", line, text);
        return NULL;
}

void expect_no_diag(const DiagList *l, const char *text) {
        for (size_t i = 0; i < l->n; i++)
                if (strstr(l->items[i].message, text)) {
                        dump_diags(l);
                        fail_msg("unexpected diagnostic '%s'", l->items[i].message);
                }
}
