/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Layering: precedence, masks, drop-ins, and what is ignored and why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>

#include "config/conf-dirs.h"
#include "core/macro.h"
#include "test-tree.h"

typedef struct Fixture {
        char *root;
        char *dirs[3];
        ConfLayout layout;
        DiagList diag;
} Fixture;

static int setup(void **state) {
        static Fixture f;
        f = (Fixture) { .root = tree_new() };
        f.dirs[0] = tree_path(f.root, "vendor");
        f.dirs[1] = tree_path(f.root, "admin");
        f.dirs[2] = tree_path(f.root, "run");
        *state = &f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        conf_layout_done(&f->layout);
        diag_list_clear(&f->diag);
        for (size_t i = 0; i < 3; i++)
                free(f->dirs[i]);
        tree_remove(f->root);
        return 0;
}

static void build(Fixture *f) {
        assert_int_equal(conf_layout_build(&f->layout, (const char *const *) f->dirs, 3, &f->diag), 0);
}

static const ConfUnit *unit(Fixture *f, const char *name) {
        const ConfUnit *u = conf_layout_find(&f->layout, name);
        if (!u)
                fail_msg("no unit %s", name);
        return u;
}

static void assert_path_ends(const char *path, const char *suffix) {
        assert_non_null(path);
        size_t n = strlen(path), k = strlen(suffix);
        if (n < k || strcmp(path + n - k, suffix) != 0)
                fail_msg("'%s' does not end in '%s'", path, suffix);
}

static void test_higher_directory_wins(void **state) {
        Fixture *f = *state;
        tree_write(f->root, "vendor/a.conf", "[Process]\nClass=bg\n");
        tree_write(f->root, "admin/a.conf", "[Process]\nClass=ui\n");
        tree_write(f->root, "vendor/b.conf", "x\n");
        tree_write(f->root, "run/c.json", "{}\n");
        tree_write(f->root, "admin/c.json", "{}\n");
        tree_write(f->root, "vendor/readme.txt", "not a rule file\n");
        tree_write(f->root, "vendor/.hidden.conf", "x\n");
        tree_write(f->root, "vendor/a.conf.d/ignored.txt", "x\n");
        build(f);
        /* What is not read is said, hidden files aside. */
        assert_int_equal(f->diag.n, 2);
        const Diag *d = expect_diag(&f->diag, 0, LOG_WARNING, "skipped: not a rule file (*.conf, *.json, NAME.conf.d/)");
        assert_path_ends(d->path, "/vendor/readme.txt");
        d = expect_diag(&f->diag, 0, LOG_WARNING, "skipped: not a drop-in (*.conf)");
        assert_path_ends(d->path, "/vendor/a.conf.d/ignored.txt");
        expect_no_diag(&f->diag, "hidden");
        assert_int_equal(f->layout.n_units, 3);
        /* Sorted by name. */
        assert_string_equal(f->layout.units[0].name, "a.conf");
        assert_string_equal(f->layout.units[2].name, "c.json");

        const ConfUnit *a = unit(f, "a.conf");
        assert_path_ends(a->path, "/admin/a.conf");
        assert_int_equal(a->level, 1);
        assert_int_equal(a->top_level, 1);
        assert_int_equal(a->n_ignored, 1);
        assert_path_ends(a->ignored[0], "/vendor/a.conf");
        assert_int_equal(a->kind, UNIT_CONF);

        const ConfUnit *c = unit(f, "c.json");
        assert_int_equal(c->kind, UNIT_JSON);
        assert_path_ends(c->path, "/run/c.json");
        assert_null(conf_layout_find(&f->layout, "readme.txt"));
        assert_null(conf_layout_find(&f->layout, ".hidden.conf"));
}

static void test_masks(void **state) {
        Fixture *f = *state;
        tree_write(f->root, "vendor/empty.conf", "[Process]\nClass=bg\n");
        tree_write(f->root, "admin/empty.conf", "");
        tree_write(f->root, "vendor/null.conf", "[Process]\nClass=bg\n");
        tree_write(f->root, "vendor/null.conf.d/10-x.conf", "[Process]\nClass=ui\n");
        tree_symlink(f->root, "run/null.conf", "/dev/null");
        /* A mask in the lowest directory with nothing below: still a mask. */
        tree_write(f->root, "vendor/alone.conf", "");
        build(f);
        assert_int_equal(f->diag.n, 0);

        const ConfUnit *e = unit(f, "empty.conf");
        assert_null(e->path);
        assert_path_ends(e->masked_by, "/admin/empty.conf");
        assert_int_equal(e->n_ignored, 1);

        const ConfUnit *n = unit(f, "null.conf");
        assert_null(n->path);
        assert_path_ends(n->masked_by, "/run/null.conf");
        assert_int_equal(n->level, 2);
        /* Drop-ins of a masked file are not applied either. */
        assert_int_equal(n->n_dropins, 0);
        assert_int_equal(n->n_ignored, 2);

        assert_non_null(unit(f, "alone.conf")->masked_by);
}

static void test_dropins(void **state) {
        Fixture *f = *state;
        tree_write(f->root, "vendor/app.conf", "[Process]\nClass=bg\n");
        tree_write(f->root, "vendor/app.conf.d/20-b.conf", "x\n");
        tree_write(f->root, "vendor/app.conf.d/10-a.conf", "x\n");
        tree_write(f->root, "admin/app.conf.d/20-b.conf", "y\n"); /* replaces vendor's 20-b */
        tree_write(f->root, "run/app.conf.d/15-c.conf", "z\n");
        tree_write(f->root, "run/app.conf.d/30-d.conf", "");      /* masks nothing, applies nothing */
        tree_write(f->root, "admin/app.conf.d/05-m.conf", "x\n");
        tree_symlink(f->root, "run/app.conf.d/05-m.conf", "/dev/null"); /* masks admin's 05-m */
        tree_write(f->root, "run/app.conf.d/notes.txt", "x\n");
        build(f);
        assert_int_equal(f->diag.n, 1);
        expect_diag(&f->diag, 0, LOG_WARNING, "skipped: not a drop-in (*.conf)");

        const ConfUnit *a = unit(f, "app.conf");
        assert_path_ends(a->path, "/vendor/app.conf");
        assert_int_equal(a->top_level, 2);
        assert_int_equal(a->n_dropins, 3);
        /* Lexical order of the drop-in names, whatever the directory. */
        assert_path_ends(a->dropins[0], "/vendor/app.conf.d/10-a.conf");
        assert_path_ends(a->dropins[1], "/run/app.conf.d/15-c.conf");
        assert_path_ends(a->dropins[2], "/admin/app.conf.d/20-b.conf");
        /* 05-m twice, vendor's 20-b, and the empty 30-d. */
        assert_int_equal(a->n_ignored, 4);
}

/* However many names a directory skips, one message: the count, the
 * first three by name, and advice for ananicy's files. */
static void test_skipped_names(void **state) {
        Fixture *f = *state;
        static const char *const junk[] = { "z.txt", "app.conf~", "#app.conf#", "games.rules", "app.conf.bak",
                                            "notes" };
        for (size_t i = 0; i < sizeof junk / sizeof *junk; i++) {
                _cleanup_free_ char *rel = NULL;
                assert_true(asprintf(&rel, "admin/%s", junk[i]) > 0);
                tree_write(f->root, rel, "x\n");
        }
        tree_write(f->root, "admin/app.conf", "[Process]\nClass=bg\n");
        tree_write(f->root, "admin/.app.conf.swp", "x\n");
        tree_mkdir(f->root, "admin/old");
        build(f);
        assert_int_equal(f->diag.n, 1);
        const Diag *d = expect_diag(&f->diag, 0, LOG_WARNING,
                                    "7 files skipped, each not a rule file (*.conf, *.json, NAME.conf.d/): "
                                    "'#app.conf#', 'app.conf.bak', 'app.conf~' and 4 more; "
                                    "'qosctl import ananicy SRC DEST' converts ananicy rules into qos.d files");
        assert_path_ends(d->path, "/admin");
        assert_non_null(unit(f, "app.conf")->path);
}

/* Two: both named, and no advice without an ananicy file. */
static void test_skipped_two(void **state) {
        Fixture *f = *state;
        tree_write(f->root, "admin/b~", "x\n");
        tree_write(f->root, "admin/a~", "x\n");
        build(f);
        expect_diag(&f->diag, 0, LOG_WARNING, "2 files skipped, each not a rule file (*.conf, *.json, NAME.conf.d/): "
                                              "'a~' and 'b~'");
        expect_no_diag(&f->diag, "ananicy");
}

/* A user's scope scans the system directories again: what they skip was
 * said by the system's scan, and only the user's directory speaks. */
static void test_skipped_only_from_cap(void **state) {
        Fixture *f = *state;
        tree_write(f->root, "vendor/readme", "x\n");
        tree_write(f->root, "run/mine.rules", "x\n");
        tree_write(f->root, "run/app.conf.d/notes", "x\n");
        tree_write(f->root, "run/app.conf", "[Process]\nClass=bg\n");
        ConfCap cap = { .from_level = 2, .max_files = 10, .setting = "UserRulesMaxFiles" };
        assert_int_equal(conf_layout_build_capped(&f->layout, (const char *const *) f->dirs, 3, &cap, NULL, &f->diag),
                         0);
        assert_int_equal(f->diag.n, 2);
        const Diag *d = expect_diag(&f->diag, 0, LOG_WARNING, "skipped: not a rule file");
        assert_path_ends(d->path, "/run/mine.rules");
        assert_non_null(strstr(d->message, "qosctl import ananicy"));
        d = expect_diag(&f->diag, 0, LOG_WARNING, "skipped: not a drop-in");
        assert_path_ends(d->path, "/run/app.conf.d/notes");
        expect_no_diag(&f->diag, "readme");
        conf_layout_done(&f->layout);
        diag_list_clear(&f->diag);

        /* Without a limit on files the same holds. */
        cap.max_files = SIZE_MAX;
        assert_int_equal(conf_layout_build_capped(&f->layout, (const char *const *) f->dirs, 3, &cap, NULL, &f->diag),
                         0);
        assert_int_equal(f->diag.n, 2);
        expect_no_diag(&f->diag, "readme");
}

static void test_dropins_without_file(void **state) {
        Fixture *f = *state;
        tree_write(f->root, "admin/ghost.conf.d/10-x.conf", "[Process]\nClass=bg\n");
        tree_mkdir(f->root, "admin/data.json.d");
        build(f);
        const ConfUnit *g = unit(f, "ghost.conf");
        assert_null(g->path);
        assert_null(g->masked_by);
        assert_int_equal(g->n_dropins, 0);
        assert_int_equal(g->n_ignored, 1);
        const Diag *d = expect_diag(&f->diag, 0, LOG_WARNING, "drop-in for ghost.conf, but there is no ghost.conf; ignored");
        assert_path_ends(d->path, "/admin/ghost.conf.d/10-x.conf");
        d = expect_diag(&f->diag, 0, LOG_WARNING, "drop-in directories extend .conf files only");
        assert_path_ends(d->path, "/admin/data.json.d");
}

static void test_unreadable_and_missing(void **state) {
        Fixture *f = *state;
        /* Missing directories are normal: no message at all. */
        build(f);
        assert_int_equal(f->layout.n_units, 0);
        assert_int_equal(f->diag.n, 0);
        conf_layout_done(&f->layout);

        /* A broken symlink is reported, the rest loads. */
        tree_symlink(f->root, "admin/broken.conf", "/nonexistent/target");
        tree_write(f->root, "admin/good.conf", "[Process]\nClass=bg\n");
        tree_write(f->root, "vendor", "a file where a directory should be");
        build(f);
        expect_diag(&f->diag, 0, LOG_WARNING, "cannot stat: No such file or directory; skipped");
        expect_diag(&f->diag, 0, LOG_WARNING, "cannot read directory: Not a directory");
        assert_int_equal(f->layout.n_units, 1);
        assert_non_null(unit(f, "good.conf")->path);
}

static void test_keep_from(void **state) {
        Fixture *f = *state;
        tree_write(f->root, "vendor/sys.conf", "x\n");
        tree_write(f->root, "vendor/both.conf", "x\n");
        tree_write(f->root, "run/both.conf.d/me.conf", "x\n");
        tree_write(f->root, "run/mine.conf", "");
        build(f);
        conf_layout_keep_from(&f->layout, 2);
        assert_int_equal(f->layout.n_units, 2);
        assert_null(conf_layout_find(&f->layout, "sys.conf"));
        assert_int_equal(unit(f, "both.conf")->n_dropins, 1);
        assert_non_null(unit(f, "mine.conf")->masked_by);
}

static void test_root_prefix(void **state) {
        char *p;
        assert_int_equal(conf_dir_under_root(NULL, "/etc/qos/apps.d", &p), 0);
        assert_string_equal(p, "/etc/qos/apps.d");
        free(p);
        assert_int_equal(conf_dir_under_root("/", "/etc/qos/apps.d", &p), 0);
        assert_string_equal(p, "/etc/qos/apps.d");
        free(p);
        assert_int_equal(conf_dir_under_root("/tmp/r//", "/etc/qos/apps.d", &p), 0);
        assert_string_equal(p, "/tmp/r/etc/qos/apps.d");
        free(p);
}

static void test_single_files(void **state) {
        Fixture *f = *state;
        tree_write(f->root, "x/one.conf", "[Process]\nClass=bg\n");
        tree_write(f->root, "y/one.conf", "");
        tree_write(f->root, "x/notes.txt", "x\n");
        char *one = tree_path(f->root, "x/one.conf"), *masked = tree_path(f->root, "y/one.conf");
        char *txt = tree_path(f->root, "x/notes.txt"), *gone = tree_path(f->root, "x/gone.conf");
        assert_int_equal(conf_layout_add_file(&f->layout, one, &f->diag), 0);
        assert_int_equal(conf_layout_add_file(&f->layout, masked, &f->diag), 0);
        assert_int_equal(conf_layout_add_file(&f->layout, txt, &f->diag), 0);
        assert_int_equal(conf_layout_add_file(&f->layout, gone, &f->diag), 0);
        /* Files on their own do not mask each other. */
        assert_int_equal(f->layout.n_units, 2);
        assert_string_equal(f->layout.units[0].path, one);
        assert_string_equal(f->layout.units[1].masked_by, masked);
        expect_diag(&f->diag, 0, LOG_ERR, "not a .conf or .json file");
        expect_no_diag(&f->diag, "ananicy"); /* notes.txt is not ananicy's */
        expect_diag(&f->diag, 0, LOG_ERR, "cannot read: No such file");
        free(one);
        free(masked);
        free(txt);
        free(gone);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_higher_directory_wins, setup, teardown),
                cmocka_unit_test_setup_teardown(test_masks, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dropins, setup, teardown),
                cmocka_unit_test_setup_teardown(test_skipped_names, setup, teardown),
                cmocka_unit_test_setup_teardown(test_skipped_two, setup, teardown),
                cmocka_unit_test_setup_teardown(test_skipped_only_from_cap, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dropins_without_file, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unreadable_and_missing, setup, teardown),
                cmocka_unit_test_setup_teardown(test_keep_from, setup, teardown),
                cmocka_unit_test(test_root_prefix),
                cmocka_unit_test_setup_teardown(test_single_files, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
