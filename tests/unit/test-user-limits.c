/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a user's own rule directory may cost the loader: files that are
 * not regular files are never read (and never block), the per-user
 * limits keep the first files in name order, and one user's rules reload
 * without touching the system's or another user's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "core/macro.h"
#include "qos-config.h"
#include "config/rules.h"
#include "test-tree.h"

#define ME 1000
#define OTHER 1001

typedef struct Fixture {
        char *root;
        UserRuleDir users[2];
        RuleSources src;
        RuleSet *rs;
        DiagList diag;
} Fixture;

static int setup(void **state) {
        static Fixture f;
        f = (Fixture) { .root = tree_new() };
        f.users[0] = (UserRuleDir) { ME, tree_path(f.root, "home/me/apps.d") };
        f.users[1] = (UserRuleDir) { OTHER, tree_path(f.root, "home/other/apps.d") };
        f.src = (RuleSources) { .root = f.root, .user_dirs = f.users, .n_user_dirs = 2 };
        tree_mkdir(f.root, "home/me/apps.d");
        tree_mkdir(f.root, "home/other/apps.d");
        *state = &f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        ruleset_free(f->rs);
        diag_list_clear(&f->diag);
        free((char *) f->users[0].dir);
        free((char *) f->users[1].dir);
        tree_remove(f->root);
        return 0;
}

static void load(Fixture *f) {
        f->rs = ruleset_free(f->rs);
        diag_list_clear(&f->diag);
        assert_int_equal(ruleset_load(&f->src, &f->rs, &f->diag), 0);
}

/* A rule for program NAME in the user's directory (me or other). */
static void rule(Fixture *f, const char *who, const char *file, const char *exe, const char *extra) {
        char *rel, *text;
        assert_true(asprintf(&rel, "home/%s/apps.d/%s", who, file) > 0);
        assert_true(asprintf(&text, "[Match]\nExecutable=%s\n[Process]\nClass=background\n%s", exe, extra) > 0);
        tree_write(f->root, rel, text);
        free(rel);
        free(text);
}

static bool matches(Fixture *f, const char *exe, uid_t uid) {
        ProcessInfo p = { .exe = exe, .arg0 = exe, .comm = exe, .cmdline = exe, .uid = uid };
        MatchResult m;
        return ruleset_match(f->rs, &p, NULL, &m) == 1 && m.class == QCLASS_BACKGROUND;
}

static void test_fifo_and_device_not_read(void **state) {
        Fixture *f = *state;
        char *fifo = tree_path(f->root, "home/me/apps.d/fifo.conf");
        char *dropin = tree_path(f->root, "home/me/apps.d/b.conf.d/fifo.conf");
        rule(f, "me", "a.conf", "a", "");
        rule(f, "me", "b.conf", "b", "");
        tree_mkdir(f->root, "home/me/apps.d/b.conf.d");
        assert_int_equal(mkfifo(fifo, 0644), 0);
        assert_int_equal(mkfifo(dropin, 0644), 0);
        tree_symlink(f->root, "home/me/apps.d/tty.conf", "/dev/tty");
        tree_symlink(f->root, "home/me/apps.d/zero.conf", "/dev/zero");
        load(f); /* returns: an open of a FIFO without a writer would block */
        expect_diag(&f->diag, 0, LOG_ERR, "not a regular file");
        const Diag *d = NULL;
        for (size_t i = 0; i < f->diag.n; i++)
                if (strcmp(f->diag.items[i].path, dropin) == 0)
                        d = &f->diag.items[i];
        assert_non_null(d);
        for (size_t i = 0; i < f->diag.n; i++)
                if (strstr(f->diag.items[i].path, "zero.conf") && f->diag.items[i].level == LOG_ERR)
                        assert_non_null(strstr(f->diag.items[i].message, "not a regular file"));
        assert_true(matches(f, "a", ME));
        assert_true(matches(f, "b", ME));
        /* Reloading the user alone counts what a full load counts. */
        size_t n = ruleset_size(f->rs), files = ruleset_n_files(f->rs);
        assert_int_equal(ruleset_reload_user(f->rs, &f->src, ME, &f->diag), 0);
        assert_int_equal(ruleset_size(f->rs), n);
        assert_int_equal(ruleset_n_files(f->rs), files);
        free(fifo);
        free(dropin);
}

/* The first files by name, whatever order the directory lists them in. */
static void test_file_limit_keeps_first_names(void **state) {
        Fixture *f = *state;
        static const char *const names[] = { "m", "c", "x", "a", "q", "b", "z", "k" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                char file[16];
                snprintf(file, sizeof file, "%s.conf", names[i]);
                rule(f, "me", file, names[i], "");
        }
        rule(f, "other", "x.conf", "x", "");
        f->src.user_limits.max_files = 3;
        load(f);
        assert_true(matches(f, "a", ME) && matches(f, "b", ME) && matches(f, "c", ME));
        assert_false(matches(f, "k", ME) || matches(f, "x", ME) || matches(f, "z", ME));
        assert_true(matches(f, "x", OTHER)); /* another user's files are theirs */
        assert_int_equal(ruleset_user_size(f->rs, ME), 3);
        assert_int_equal(ruleset_user_size(f->rs, OTHER), 1);
        const Diag *d = expect_diag(&f->diag, 0, LOG_ERR, "more than 3 rule files (UserRulesMaxFiles=)");
        assert_non_null(strstr(d->path, "/home/me/apps.d/k.conf"));
        assert_non_null(strstr(d->message, "4 after it"));
        assert_int_equal(ruleset_size(f->rs), 4);
}

static void test_rule_and_byte_limits(void **state) {
        Fixture *f = *state;
        rule(f, "me", "a.conf", "a", "[Thread:t1]\nClass=utility\n");
        rule(f, "me", "b.conf", "b", "[Thread:t1]\nClass=utility\n[Thread:t2]\nClass=utility\n");
        rule(f, "me", "c.conf", "c", "");
        f->src.user_limits.max_rules = 4; /* a: 2, b: 3 */
        load(f);
        assert_true(matches(f, "a", ME));
        assert_false(matches(f, "b", ME) || matches(f, "c", ME));
        const Diag *d = expect_diag(&f->diag, 0, LOG_ERR, "limit of 4 rules (UserRulesMaxRules=)");
        assert_non_null(strstr(d->path, "/b.conf"));

        f->src.user_limits = (UserLimits) { .max_bytes = 120 };
        load(f);
        assert_true(matches(f, "a", ME));
        assert_false(matches(f, "b", ME) || matches(f, "c", ME));
        d = expect_diag(&f->diag, 0, LOG_ERR, "limit of 120 bytes (UserRulesMaxBytes=)");
        assert_non_null(strstr(d->path, "/b.conf"));
        assert_non_null(strstr(d->message, "1 after it"));
}

/* Drop-in directories count like files: each costs an open and a listing
 * even when empty, so the first ones by name are read, the rest never
 * opened and reported once. */
static void test_dropin_dir_limit_keeps_first_names(void **state) {
        Fixture *f = *state;
        tree_write(f->root, "home/me/apps.d/x.conf", "[Match]\nExecutable=x\n[Process]\nClass=utility\n");
        tree_write(f->root, "home/me/apps.d/x.conf.d/10-bg.conf", "[Process]\nClass=background\n");
        tree_mkdir(f->root, "home/me/apps.d/b.conf.d");
        tree_mkdir(f->root, "home/me/apps.d/a.conf.d");
        f->src.user_limits.max_files = 3;
        load(f);
        assert_true(matches(f, "x", ME)); /* a, b and x: within the limit */
        assert_int_equal(f->diag.n, 0);

        tree_mkdir(f->root, "home/me/apps.d/c.conf.d");
        load(f);
        assert_false(matches(f, "x", ME)); /* x.conf.d is the fourth */
        const Diag *d = expect_diag(&f->diag, 0, LOG_ERR,
                                    "more than 3 drop-in directories (UserRulesMaxFiles=); this directory and 0 after it");
        assert_non_null(strstr(d->path, "/home/me/apps.d/x.conf.d"));
}

/* However many bad lines, a user's files say a bounded number of things. */
static void test_messages_bounded(void **state) {
        Fixture *f = *state;
        size_t n = 5000;
        char *text = malloc(n * 6 + 1), *p = text;
        for (size_t i = 0; i < n; i++)
                p += sprintf(p, "junk\n");
        tree_write(f->root, "home/me/apps.d/bad.conf", text);
        free(text);
        load(f);
        assert_true(f->diag.n < 100);
        expect_diag(&f->diag, 0, LOG_WARNING, "more messages about uid 1000");
}

static void test_reload_one_user(void **state) {
        Fixture *f = *state;
        tree_write(f->root, "etc/qos/apps.d/sys.conf", "[Match]\nExecutable=sys\n[Process]\nClass=background\n");
        rule(f, "me", "a.conf", "a", "");
        rule(f, "other", "o.conf", "o", "");
        load(f);
        assert_int_equal(ruleset_size(f->rs), 3);

        /* The other user and the system change too, but only mine is read. */
        rule(f, "me", "b.conf", "b", "");
        rule(f, "other", "o2.conf", "o2", "");
        diag_list_clear(&f->diag);
        assert_int_equal(ruleset_reload_user(f->rs, &f->src, ME, &f->diag), 0);
        assert_true(matches(f, "a", ME) && matches(f, "b", ME) && matches(f, "sys", ME));
        assert_true(matches(f, "o", OTHER));
        assert_false(matches(f, "o2", OTHER));
        assert_int_equal(ruleset_size(f->rs), 4);
        assert_int_equal(ruleset_n_files(f->rs), 4);

        /* A user whose directory is gone from the sources has no rules. */
        f->src.n_user_dirs = 1;
        assert_int_equal(ruleset_reload_user(f->rs, &f->src, OTHER, &f->diag), 0);
        assert_false(matches(f, "o", OTHER));
        assert_true(matches(f, "sys", OTHER) && matches(f, "a", ME));
        assert_int_equal(ruleset_size(f->rs), 3);
}

int main(void) {
        const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, setup, teardown)
                T(test_fifo_and_device_not_read),
                T(test_file_limit_keeps_first_names),
                T(test_rule_and_byte_limits),
                T(test_dropin_dir_limit_keeps_first_names),
                T(test_messages_bounded),
                T(test_reload_one_user),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
