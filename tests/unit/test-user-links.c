/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A user's directory read through an opener that keeps to the user's home
 * (tree_open(), as qosd's): links within the home load, links out of it
 * are reported in the same words whether their target exists, a link to
 * /dev/null still masks, and a directory that is a link out is refused. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "core/macro.h"
#include "config/rules.h"
#include "test-tree.h"
#include "core/tree-open.h"

#define ME 1000
#define REFUSED "a symbolic link out of the owner's home directory, not followed"

typedef struct Fixture {
        char *root, *home;
        UserRuleDir user;
        RuleSources src;
        RuleSet *rs;
        DiagList diag;
} Fixture;

/* qosd's opener, without the change of identity. */
static int open_in_home(uid_t uid, const char *path, int flags, void *userdata) {
        const Fixture *f = userdata;
        if (!tree_relative(f->home, path)) {
                int fd = open(path, flags);
                return fd < 0 ? -errno : fd;
        }
        _cleanup_close_ int home = open(f->home, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (home < 0)
                return -errno;
        return tree_open(home, f->home, path, flags);
}

static int setup(void **state) {
        static Fixture f;
        f = (Fixture) { .root = tree_new() };
        f.home = tree_path(f.root, "home/me");
        f.user = (UserRuleDir) { ME, tree_path(f.root, "home/me/.config/qos/apps.d") };
        f.src = (RuleSources) { .root = f.root, .user_dirs = &f.user, .n_user_dirs = 1,
                                .open_user = open_in_home, .userdata = &f };
        tree_mkdir(f.root, "home/me/.config/qos/apps.d");
        tree_mkdir(f.root, "etc/qos/apps.d");
        *state = &f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        ruleset_free(f->rs);
        diag_list_clear(&f->diag);
        free((char *) f->user.dir);
        free(f->home);
        tree_remove(f->root);
        return 0;
}

static void load(Fixture *f) {
        f->rs = ruleset_free(f->rs);
        diag_list_clear(&f->diag);
        assert_int_equal(ruleset_load(&f->src, &f->rs, &f->diag), 0);
}

static void write_rule(Fixture *f, const char *rel, const char *exe) {
        char *text;
        assert_true(asprintf(&text, "[Match]\nExecutable=%s\n[Process]\nClass=background\n", exe) > 0);
        tree_write(f->root, rel, text);
        free(text);
}

static bool matches(Fixture *f, const char *exe) {
        ProcessInfo p = { .exe = exe, .arg0 = exe, .comm = exe, .cmdline = exe, .uid = ME };
        MatchResult m;
        return ruleset_match(f->rs, &p, NULL, &m) == 1 && m.class == QCLASS_BACKGROUND;
}

/* The one error about the file name in the user's directory (a file not
 * read is also one that "sets no Class=", a warning). */
static const Diag *about(Fixture *f, const char *name) {
        const Diag *found = NULL;
        for (size_t i = 0; i < f->diag.n; i++) {
                const char *p = f->diag.items[i].path, *slash = strrchr(p, '/');
                if (slash && strcmp(slash + 1, name) == 0 && f->diag.items[i].level == LOG_ERR) {
                        if (found) {
                                dump_diags(&f->diag);
                                fail_msg("more than one message about %s", name);
                        }
                        found = &f->diag.items[i];
                }
        }
        if (!found) {
                dump_diags(&f->diag);
                fail_msg("nothing said about %s", name);
        }
        return found;
}

static void test_links_within_home(void **state) {
        Fixture *f = *state;
        char *abs = tree_path(f->root, "home/me/dotfiles/abs.conf");
        write_rule(f, "home/me/dotfiles/abs.conf", "abs");
        write_rule(f, "home/me/dotfiles/rel.conf", "rel");
        tree_symlink(f->root, "home/me/.config/qos/apps.d/abs.conf", abs);
        tree_symlink(f->root, "home/me/.config/qos/apps.d/rel.conf", "../../../dotfiles/rel.conf");
        load(f);
        assert_true(matches(f, "abs"));
        assert_true(matches(f, "rel"));
        assert_int_equal(f->diag.n, 0);
        free(abs);
}

static void test_links_out_refused_alike(void **state) {
        Fixture *f = *state;
        char *there = tree_path(f->root, "elsewhere/there.conf");
        char *missing = tree_path(f->root, "elsewhere/missing.conf");
        write_rule(f, "elsewhere/there.conf", "there");
        tree_symlink(f->root, "home/me/.config/qos/apps.d/there.conf", there);
        tree_symlink(f->root, "home/me/.config/qos/apps.d/missing.conf", missing);
        tree_symlink(f->root, "home/me/.config/qos/apps.d/up.conf", "../../../../../elsewhere/there.conf");
        tree_symlink(f->root, "home/me/.config/qos/apps.d/proc.conf", "/proc/1/cwd/x.conf");
        load(f);
        assert_false(matches(f, "there"));
        const char *names[] = { "there.conf", "missing.conf", "up.conf", "proc.conf" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                const Diag *d = about(f, names[i]);
                assert_string_equal(d->message, "cannot read: " REFUSED "; file skipped");
        }
        free(there);
        free(missing);
}

static void test_dev_null_masks(void **state) {
        Fixture *f = *state;
        write_rule(f, "etc/qos/apps.d/sys.conf", "sys");
        tree_symlink(f->root, "home/me/.config/qos/apps.d/sys.conf", "/dev/null");
        load(f);
        assert_false(matches(f, "sys"));
        ProcessInfo p = { .exe = "sys", .arg0 = "sys", .comm = "sys", .cmdline = "sys", .uid = ME + 1 };
        MatchResult m;
        assert_int_equal(ruleset_match(f->rs, &p, NULL, &m), 1); /* for others it stays */
        assert_int_equal(f->diag.n, 0);
}

static void test_directory_out_refused(void **state) {
        Fixture *f = *state;
        char *theirs = tree_path(f->root, "elsewhere/apps.d");
        write_rule(f, "elsewhere/apps.d/there.conf", "there");
        tree_remove(tree_path(f->root, "home/me/.config/qos/apps.d"));
        tree_symlink(f->root, "home/me/.config/qos/apps.d", theirs);
        load(f);
        assert_false(matches(f, "there"));
        const Diag *d = about(f, "apps.d");
        assert_string_equal(d->message, "cannot read directory: " REFUSED "; skipped");
        free(theirs);
}

int main(void) {
        const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, setup, teardown)
                T(test_links_within_home),
                T(test_links_out_refused_alike),
                T(test_dev_null_masks),
                T(test_directory_out_refused),
#undef T
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
