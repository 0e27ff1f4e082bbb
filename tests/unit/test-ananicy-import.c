/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ananicy rule trees: the mapping to classes, what is said to be lost, the
 * messages for bad lines, and that the written files load cleanly. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "ananicy-import.h"
#include "test-tree.h"

#define TREE QOS_TEST_DATA "/ananicy"

typedef struct Fixture {
        AnanicyTree tree;
        DiagList diag;
} Fixture;

static int setup(void **state) {
        static Fixture f;
        f = (Fixture) {};
        assert_int_equal(ananicy_tree_load(&f.tree, TREE, &f.diag), 0);
        *state = &f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        ananicy_tree_done(&f->tree);
        diag_list_clear(&f->diag);
        return 0;
}

static const AnanicyEntry *rule(Fixture *f, const char *name) {
        for (size_t i = 0; i < f->tree.n_rules; i++)
                if (strcmp(f->tree.rules[i].name, name) == 0)
                        return &f->tree.rules[i];
        fail_msg("no rule %s", name);
        return NULL;
}

static const Diag *diag_in(const DiagList *l, const char *file, unsigned line, int level, const char *text) {
        const Diag *d = expect_diag(l, line, level, text);
        if (!strstr(d->path, file))
                fail_msg("'%s' reported in %s, not %s", text, d->path, file);
        return d;
}

static void test_tree_messages(void **state) {
        Fixture *f = *state;
        diag_in(&f->diag, "00-types.types", 11, LOG_ERR, "the object does not end on this line; line skipped");
        diag_in(&f->diag, "misc.rules", 11, LOG_WARNING, "unknown key \"affinity\"; ignored");
        diag_in(&f->diag, "misc.rules", 14, LOG_ERR, "no \"name\" string; line skipped");
        diag_in(&f->diag, "misc.rules", 15, LOG_ERR, "line skipped");
        diag_in(&f->diag, "misc.rules", 16, LOG_ERR, "expected a JSON object; line skipped");
        diag_in(&f->diag, "misc.rules", 18, LOG_ERR, "text after the JSON object; line skipped");
        const Diag *d = diag_in(&f->diag, "misc.rules", 17, LOG_WARNING, "rule 'firefox' again (first at");
        assert_non_null(strstr(d->message, "browsers.rules:4); this one replaces it"));
        assert_int_equal(f->diag.n, 7);
        /* .cgroups files are not rules; every good line of the rest is. */
        assert_int_equal(f->tree.n_types, 9);
        assert_int_equal(f->tree.n_rules, 18);
        assert_int_equal(rule(f, "firefox")->origin.line, 17);
}

static void test_mapping(void **state) {
        Fixture *f = *state;
        static const struct {
                const char *name;
                QClass class;
                const char *reason;
                size_t n_lost;
        } cases[] = {
                { "jackd", QCLASS_USER_INTERACTIVE, "sched \"fifo\" -> user-interactive", 2 },
                { "pulseaudio", QCLASS_USER_INTERACTIVE, "nice -11 (type LowLatency_RT) -> user-interactive", 2 },
                { "mpv", QCLASS_USER_INITIATED, "nice -4 (type Player-Audio) -> user-initiated", 2 },
                { "firefox", QCLASS_USER_INTERACTIVE, "nice -12 -> user-interactive", 1 },
                { "/usr/lib/brave-bin/brave", QCLASS_USER_INITIATED, "nice -4 (type Doc-View)", 1 },
                { "chrome_crashpad_handler", QCLASS_BACKGROUND, "sched \"idle\" (type BG_CPUIO) -> background", 2 },
                { "make", QCLASS_BACKGROUND, "nice 19 -> background", 0 },
                { "cc1", QCLASS_UTILITY, "nice 3 (type compiler) -> utility", 0 },
                { "baloo_file", QCLASS_BACKGROUND, "sched \"batch\" -> background", 0 },
                { "updatedb", QCLASS_BACKGROUND, "ioclass \"idle\" -> background", 0 },
                { "tracker-miner", QCLASS_BACKGROUND, "nice 10 (type Service) -> background", 1 },
                { "game", QCLASS_USER_INITIATED, "nice -7 (type Game) -> user-initiated", 1 },
                { "oomy", QCLASS_UTILITY, "no nice, sched or ioclass -> utility", 1 },
                { "noisy", QCLASS_BACKGROUND, "nice 19 (type Heavy_CPU) -> background", 2 },
                { "odd*name", QCLASS_USER_INITIATED, "nice -2 -> user-initiated", 0 },
                { "Web Content", QCLASS_UTILITY, "no nice, sched or ioclass -> utility", 0 },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                AnanicyConversion c;
                assert_int_equal(ananicy_convert(&f->tree, rule(f, cases[i].name), &c, &f->diag), 1);
                if (c.class != cases[i].class || !strstr(c.reason, cases[i].reason) || c.n_lost != cases[i].n_lost)
                        fail_msg("%s: %s, '%s', %zu lost", cases[i].name, qclass_to_string(c.class), c.reason,
                                 c.n_lost);
                ananicy_conversion_done(&c);
        }
}

/* Per rule, what could not be carried over, at the rule's line. */
static void test_lost_settings(void **state) {
        Fixture *f = *state;
        diag_list_clear(&f->diag);
        AnanicyConversion c;
        assert_int_equal(ananicy_convert(&f->tree, rule(f, "jackd"), &c, &f->diag), 1);
        assert_string_equal(c.lost[0], "sched \"fifo\" not carried over: qosd keeps threads SCHED_NORMAL; "
                                       "user-interactive is the nearest class");
        assert_string_equal(c.lost[1], "rtprio 70 not carried over: qosd gives no real-time priorities");
        diag_in(&f->diag, "audio.rules", 2, LOG_WARNING, "jackd: rtprio 70 not carried over");
        ananicy_conversion_done(&c);

        assert_int_equal(ananicy_convert(&f->tree, rule(f, "chrome_crashpad_handler"), &c, &f->diag), 1);
        assert_string_equal(c.lost[0], "latency_nice 15 not carried over: the class decides the time slice (from type BG_CPUIO)");
        assert_string_equal(c.lost[1], "cgroup \"cpu85\" not carried over: qosd sets group shares per class, not ananicy's cgroups (from type BG_CPUIO)");
        ananicy_conversion_done(&c);

        assert_int_equal(ananicy_convert(&f->tree, rule(f, "pulseaudio"), &c, &f->diag), 1);
        assert_string_equal(c.lost[1], "ioclass \"realtime\" not carried over: the class decides the I/O priority (from type LowLatency_RT)");
        ananicy_conversion_done(&c);

        assert_int_equal(ananicy_convert(&f->tree, rule(f, "oomy"), &c, &f->diag), 1);
        assert_string_equal(c.lost[0], "oom_score_adj 1000 not carried over: qosd does not touch the OOM killer (from type OOM_KILL)");
        ananicy_conversion_done(&c);

        assert_int_equal(ananicy_convert(&f->tree, rule(f, "Web Content"), &c, &f->diag), 1);
        diag_in(&f->diag, "misc.rules", 12, LOG_WARNING, "Web Content: nice \"high\" is not a number; ignored");
        ananicy_conversion_done(&c);
}

static void test_unconvertible(void **state) {
        Fixture *f = *state;
        diag_list_clear(&f->diag);
        AnanicyConversion c;
        assert_int_equal(ananicy_convert(&f->tree, rule(f, "mystery"), &c, &f->diag), 0);
        diag_in(&f->diag, "misc.rules", 10, LOG_ERR, "mystery: unknown type 'NoSuchType'; rule skipped");
        assert_int_equal(ananicy_convert(&f->tree, rule(f, "a ;b"), &c, &f->diag), 0);
        diag_in(&f->diag, "misc.rules", 13, LOG_ERR, "name 'a ;b' contains \" ;\"");
}

/* Odd names, parsed from text (no tree): one that no qos.d file could
 * match is skipped; a backslash is escaped only where the value is a glob. */
static void test_odd_names(void **state) {
        static const char text[] = "{ \"name\": \"kworker/0:1\", \"nice\": 5 }\n"
                                   "{ \"name\": \"/usr/bin/ok\", \"nice\": 5 }\n"
                                   "{ \"name\": \"a\\\\b\" }\n"
                                   "{ \"name\": \"a\\\\b*\" }\n"
                                   "{ \"name\": \"x #1\" }\n";
        AnanicyTree t = {};
        DiagList diag = {};
        AnanicyConversion c;
        assert_int_equal(ananicy_tree_parse(&t, "x.rules", false, text, strlen(text), &diag), 0);
        assert_int_equal(ananicy_tree_finish(&t, &diag), 0);
        assert_int_equal(t.n_rules, 5); /* sorted: "/usr/bin/ok", "a\\b", "a\\b*", "kworker/0:1", "x #1" */
        assert_int_equal(ananicy_convert(&t, &t.rules[0], &c, &diag), 1);
        ananicy_conversion_done(&c);
        static const char *const written[] = { "Executable=a\\b\n", "Executable=a\\\\b\\*\n" };
        for (size_t i = 0; i < 2; i++) {
                char *buf = NULL;
                size_t len;
                FILE *out = open_memstream(&buf, &len);
                assert_non_null(out);
                assert_int_equal(ananicy_convert(&t, &t.rules[1 + i], &c, &diag), 1);
                ananicy_write_conf(out, &t.rules[1 + i], &c);
                assert_int_equal(fclose(out), 0);
                if (!strstr(buf, written[i]))
                        fail_msg("'%s' not in:\n%s", written[i], buf);
                free(buf);
                ananicy_conversion_done(&c);
        }
        assert_int_equal(ananicy_convert(&t, &t.rules[3], &c, &diag), 0);
        diag_in(&diag, "x.rules", 1, LOG_ERR, "name 'kworker/0:1' has a '/' but is not an absolute path");
        assert_int_equal(ananicy_convert(&t, &t.rules[4], &c, &diag), 0);
        diag_in(&diag, "x.rules", 5, LOG_ERR, "name 'x #1' contains \" #\"");
        ananicy_tree_done(&t);
        diag_list_clear(&diag);
}

static void test_file_names(void **state) {
        static const char *const cases[][2] = {
                { "firefox", "firefox.conf" },
                { "/usr/lib/brave-bin/brave", "usr-lib-brave-bin-brave.conf" },
                { "Web Content", "Web_Content.conf" },
                { "odd*name", "odd_name.conf" },
                { ".hidden", "_.hidden.conf" },
                { "gtk+-app@2", "gtk+-app@2.conf" },
                { "/", "_.conf" }, /* not the hidden ".conf" */
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                char *n = ananicy_file_name(cases[i][0]);
                assert_string_equal(n, cases[i][1]);
                free(n);
        }
}

/* What the importer writes loads without a single message, and matches
 * what the ananicy rule named. */
static void test_written_files_load(void **state) {
        Fixture *f = *state;
        char *dir = tree_new();
        size_t written = 0;
        for (size_t i = 0; i < f->tree.n_rules; i++) {
                AnanicyConversion c;
                DiagList ignore = {};
                if (ananicy_convert(&f->tree, &f->tree.rules[i], &c, &ignore) <= 0) {
                        diag_list_clear(&ignore);
                        continue;
                }
                diag_list_clear(&ignore);
                char *name = ananicy_file_name(f->tree.rules[i].name), *path;
                assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
                FILE *out = fopen(path, "we");
                assert_non_null(out);
                ananicy_write_conf(out, &f->tree.rules[i], &c);
                assert_int_equal(fclose(out), 0);
                free(path);
                free(name);
                ananicy_conversion_done(&c);
                written++;
        }
        assert_int_equal(written, 16);

        const char *dirs[] = { dir };
        RuleSources src = { .dirs = dirs, .n_dirs = 1 };
        RuleSet *rs;
        DiagList diag = {};
        assert_int_equal(ruleset_load(&src, &rs, &diag), 0);
        if (diag.n > 0) {
                dump_diags(&diag);
                fail_msg("imported files do not load cleanly");
        }
        assert_int_equal(ruleset_size(rs), 16);

        static const struct {
                const char *exe, *arg0;
                QClass class;
        } cases[] = {
                { "/usr/bin/make", "make", QCLASS_BACKGROUND },
                { "/usr/lib/brave-bin/brave", "brave", QCLASS_USER_INITIATED },
                { "/usr/lib/firefox/firefox", "firefox", QCLASS_USER_INTERACTIVE },
                { "/usr/bin/odd*name", "odd*name", QCLASS_USER_INITIATED },
                { "/usr/bin/oddXname", "oddXname", QCLASS_UNSPECIFIED }, /* escaped: not a glob */
                { "/usr/bin/Web Content", "Web Content", QCLASS_UTILITY },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                ProcessInfo p = { .exe = cases[i].exe, .arg0 = cases[i].arg0 };
                MatchResult m;
                ruleset_match(rs, &p, NULL, &m);
                if (m.class != cases[i].class)
                        fail_msg("%s: %s, expected %s", cases[i].exe, qclass_to_string(m.class),
                                 qclass_to_string(cases[i].class));
        }
        ruleset_free(rs);
        diag_list_clear(&diag);
        tree_remove(dir);
}

static void test_missing_tree(void **state) {
        AnanicyTree t;
        DiagList diag = {};
        assert_int_equal(ananicy_tree_load(&t, "/nonexistent/ananicy.d", &diag), -ENOENT);
        ananicy_tree_done(&t);
        diag_list_clear(&diag);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_tree_messages, setup, teardown),
                cmocka_unit_test_setup_teardown(test_mapping, setup, teardown),
                cmocka_unit_test_setup_teardown(test_lost_settings, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unconvertible, setup, teardown),
                cmocka_unit_test(test_odd_names),
                cmocka_unit_test(test_file_names),
                cmocka_unit_test_setup_teardown(test_written_files_load, setup, teardown),
                cmocka_unit_test(test_missing_tree),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
