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

#include "config/ananicy-import.h"
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
        diag_in(&f->diag, "misc.rules", 14, LOG_ERR, "no \"name\", \"type\" or \"cgroup\" string; line skipped");
        diag_in(&f->diag, "misc.rules", 15, LOG_ERR, "line skipped");
        diag_in(&f->diag, "misc.rules", 16, LOG_ERR, "expected a JSON object; line skipped");
        /* ananicy-cpp reads the object and drops the rest of the line. */
        diag_in(&f->diag, "misc.rules", 18, LOG_NOTICE, "text around the JSON object ignored, as ananicy-cpp does");
        const Diag *d = diag_in(&f->diag, "misc.rules", 17, LOG_WARNING, "rule 'firefox' again (first at");
        assert_non_null(strstr(d->message, "browsers.rules:4); this one replaces it"));
        assert_int_equal(f->diag.n, 7);
        /* .cgroups lines are neither rules nor types; every good line of
         * the rest is one. */
        assert_int_equal(f->tree.n_types, 9);
        assert_int_equal(f->tree.n_rules, 20);
        assert_int_equal(rule(f, "firefox")->origin.line, 17);
        assert_int_equal(rule(f, "x")->origin.line, 18);
}

/* ananicy-cpp's reading of a line: the first '{' starts the object, the
 * keys decide what it is, a type that is not a string is no type. */
static void test_line_shapes(void **state) {
        char *dir = tree_new();
        tree_write(dir, "a.types", "{ \"name\": \"in-types\", \"nice\": 5 }\n"
                                   "garbage { \"type\": \"T\", \"nice\": -3 } ]\n");
        tree_write(dir, "b.rules", "{ \"type\": \"U\", \"nice\": 12 }\n"
                                   "{ \"name\": \"typed\", \"type\": \"T\" }\n"
                                   "{ \"name\": \"untyped\", \"type\": 4, \"nice\": 11 }\n"
                                   "{ \"name\": \"\" }\n");
        tree_write(dir, "c.cgroups", "{ \"cgroup\": \"cpu50\", \"CPUQuota\": 50 }\n"
                                     "{ \"name\": \"in-cgroups\" }\n");
        AnanicyTree t;
        DiagList diag = {};
        assert_int_equal(ananicy_tree_load(&t, dir, &diag), 0);
        assert_int_equal(t.n_rules, 4);
        assert_int_equal(t.n_types, 2);
        assert_string_equal(t.rules[0].name, "in-cgroups");
        assert_string_equal(t.rules[1].name, "in-types");
        assert_string_equal(t.types[0].name, "T");
        assert_string_equal(t.types[1].name, "U");
        expect_diag(&diag, 2, LOG_NOTICE, "text around the JSON object ignored");
        expect_diag(&diag, 3, LOG_WARNING, "\"type\" of 'untyped' is not a string; ignored");
        expect_diag(&diag, 4, LOG_ERR, "empty \"name\"; line skipped");
        assert_int_equal(diag.n, 3);

        AnanicyConversion c;
        diag_list_clear(&diag);
        assert_int_equal(ananicy_convert(&t, &t.rules[2], &c, &diag), 1);
        assert_string_equal(c.reason, "nice -3 (type T) -> user-initiated");
        ananicy_conversion_done(&c);
        assert_int_equal(ananicy_convert(&t, &t.rules[3], &c, &diag), 1);
        assert_string_equal(c.reason, "nice 11 -> background");
        ananicy_conversion_done(&c);
        assert_int_equal(diag.n, 0);
        ananicy_tree_done(&t);
        diag_list_clear(&diag);
        tree_remove(dir);
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

/* ananicy-cpp applies a rule of an unknown type with its own keys, and
 * compares names as they are; only what a qos.d line cannot hold is left. */
static void test_unusual_rules(void **state) {
        Fixture *f = *state;
        diag_list_clear(&f->diag);
        AnanicyConversion c;
        assert_int_equal(ananicy_convert(&f->tree, rule(f, "mystery"), &c, &f->diag), 1);
        assert_int_equal(c.class, QCLASS_UTILITY);
        ananicy_conversion_done(&c);
        diag_in(&f->diag, "misc.rules", 10, LOG_WARNING,
                "mystery: unknown type 'NoSuchType'; converted from the rule's own keys");
        assert_int_equal(ananicy_convert(&f->tree, rule(f, "a ;b"), &c, &f->diag), 1);
        assert_int_equal(c.class, QCLASS_UTILITY);
        ananicy_conversion_done(&c);
        assert_int_equal(ananicy_convert(&f->tree, rule(f, "bell\a"), &c, &f->diag), 0);
        diag_in(&f->diag, "misc.rules", 19, LOG_ERR, "name 'bell\a' contains control characters; rule skipped");
        assert_int_equal(f->diag.n, 2);

        AnanicyEntry e = { .name = (char *) " spaced ", .spec = json_object_new_object(), .origin = { "x.rules", 1 } };
        AnanicyTree t = {};
        assert_int_equal(ananicy_convert(&t, &e, &c, &f->diag), 1);
        ananicy_conversion_done(&c);
        json_object_put(e.spec);
        diag_in(&f->diag, "x.rules", 1, LOG_NOTICE,
                "name ' spaced ' starts or ends with white space; matched as it is, as ananicy-cpp does");
}

static void expect_strings(char *(*fn)(const char *), const char *const cases[][2], size_t n) {
        for (size_t i = 0; i < n; i++) {
                char *v = fn(cases[i][0]);
                assert_string_equal(v, cases[i][1]);
                free(v);
        }
}

/* Convert and write every rule of t into dir, as qosctl import does; a
 * file that exists already fails (no two rules may share one). The
 * number written. */
static size_t write_tree(const AnanicyTree *t, const char *dir) {
        size_t written = 0;
        for (size_t i = 0; i < t->n_rules; i++) {
                AnanicyConversion c;
                DiagList ignore = {};
                int r = ananicy_convert(t, &t->rules[i], &c, &ignore);
                diag_list_clear(&ignore);
                if (r <= 0)
                        continue;
                char *name = ananicy_file_name(t->rules[i].name), *path;
                assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
                FILE *out = fopen(path, "wxe");
                assert_non_null(out);
                assert_int_equal(ananicy_write_conf(out, &t->rules[i], &c), 0);
                assert_int_equal(fclose(out), 0);
                free(path);
                free(name);
                ananicy_conversion_done(&c);
                written++;
        }
        return written;
}

/* The files in dir load without a message. Caller frees. */
static RuleSet *load_written(const char *dir) {
        const char *dirs[] = { dir };
        RuleSources src = { .dirs = dirs, .n_dirs = 1 };
        RuleSet *rs;
        DiagList diag = {};
        assert_int_equal(ruleset_load(&src, &rs, &diag), 0);
        if (diag.n > 0) {
                dump_diags(&diag);
                fail_msg("imported files do not load cleanly");
        }
        return rs;
}

static void expect_class(const RuleSet *rs, const char *exe, QClass class) {
        ProcessInfo p = { .exe = exe, .arg0 = strrchr(exe, '/') + 1 };
        MatchResult m;
        ruleset_match(rs, &p, NULL, &m);
        if (m.class != class)
                fail_msg("'%s': %s, expected %s", exe, qclass_to_string(m.class), qclass_to_string(class));
}

/* A name with a '/' that is no absolute path (a kernel thread's, like
 * "kworker/0:1") has no executable for Executable= to match: skipped.
 * Parsed from text, without a tree, as the fuzzer does. */
static void test_odd_names(void **state) {
        static const char text[] = "{ \"name\": \"kworker/0:1\", \"nice\": 5 }\n"
                                   "{ \"name\": \"/usr/bin/ok\", \"nice\": 5 }\n";
        AnanicyTree t = {};
        DiagList diag = {};
        AnanicyConversion c;
        assert_int_equal(ananicy_tree_parse(&t, "x.rules", text, strlen(text), &diag), 0);
        assert_int_equal(ananicy_tree_finish(&t, &diag), 0);
        assert_int_equal(t.n_rules, 2); /* sorted: "/usr/bin/ok", "kworker/0:1" */
        assert_int_equal(ananicy_convert(&t, &t.rules[0], &c, &diag), 1);
        ananicy_conversion_done(&c);
        assert_int_equal(ananicy_convert(&t, &t.rules[1], &c, &diag), 0);
        diag_in(&diag, "x.rules", 1, LOG_ERR, "name 'kworker/0:1' has a '/' but is not an absolute path");
        ananicy_tree_done(&t);
        diag_list_clear(&diag);
}

/* qos.d reads each value back as the name: nothing trimmed, cut at a
 * comment or read as a glob; a plain name stays plain. */
static void test_match_values(void **state) {
        static const char *const cases[][2] = {
                { "firefox", "firefox" },
                { "Web Content", "Web Content" },
                { "odd*name", "odd\\*name" },
                { "back\\slash", "back\\slash" },
                { "back\\slash[1]", "back\\\\slash\\[1]" },
                { "trailing ", "trailing[ ]" },
                { " leading", "[ ]leading" },
                { "a ;b", "a[ ];b" },
                { "a #b", "a[ ]#b" },
                { "集英社マンガ祭.exe", "集英社マンガ祭.exe" },
        };
        expect_strings(ananicy_match_value, cases, sizeof cases / sizeof cases[0]);
}

static void test_file_names(void **state) {
        static const char *const cases[][2] = {
                { "firefox", "firefox.conf" },
                { "/usr/lib/brave-bin/brave", "\\x2fusr\\x2flib\\x2fbrave-bin\\x2fbrave.conf" },
                { "Web Content", "Web Content.conf" },
                { "odd*name", "odd*name.conf" },
                { ".hidden", "\\x2ehidden.conf" },
                { "gtk+-app@2", "gtk+-app@2.conf" },
                { "原神.exe", "原神.exe.conf" },
                { "trailing ", "trailing .conf" },
        };
        expect_strings(ananicy_file_name, cases, sizeof cases / sizeof cases[0]);
}

/* What the importer writes loads without a single message, and matches
 * what the ananicy rule named. */
static void test_written_files_load(void **state) {
        Fixture *f = *state;
        char *dir = tree_new();
        assert_int_equal(write_tree(&f->tree, dir), 19);
        RuleSet *rs = load_written(dir);
        assert_int_equal(ruleset_size(rs), 19);
        expect_class(rs, "/usr/bin/make", QCLASS_BACKGROUND);
        expect_class(rs, "/usr/lib/brave-bin/brave", QCLASS_USER_INITIATED);
        expect_class(rs, "/usr/lib/firefox/firefox", QCLASS_USER_INTERACTIVE);
        expect_class(rs, "/usr/bin/odd*name", QCLASS_USER_INITIATED);
        expect_class(rs, "/usr/bin/oddXname", QCLASS_UNSPECIFIED); /* escaped: not a glob */
        expect_class(rs, "/usr/bin/Web Content", QCLASS_UTILITY);
        expect_class(rs, "/usr/bin/a ;b", QCLASS_UTILITY);
        expect_class(rs, "/usr/bin/x", QCLASS_UTILITY);
        ruleset_free(rs);
        tree_remove(dir);
}

/* Names that differ only in non-ASCII characters or in white space get
 * files of their own, and each file matches its own executable only. */
static void test_non_ascii_names(void **state) {
        char *src = tree_new(), *dest = tree_new();
        tree_write(src, "games.rules", "{ \"name\": \"東方紅魔郷.exe\", \"nice\": -5 }\n"
                                       "{ \"name\": \"東方紅魔鄉.exe\", \"nice\": 19 }\n"
                                       "{ \"name\": \"Launcher \", \"nice\": -12 }\n"
                                       "{ \"name\": \"Launcher\", \"nice\": 19 }\n");
        AnanicyTree t;
        DiagList diag = {};
        assert_int_equal(ananicy_tree_load(&t, src, &diag), 0);
        assert_int_equal(write_tree(&t, dest), 4);
        ananicy_tree_done(&t);
        diag_list_clear(&diag);

        RuleSet *rs = load_written(dest);
        expect_class(rs, "/games/東方紅魔郷.exe", QCLASS_USER_INITIATED);
        expect_class(rs, "/games/東方紅魔鄉.exe", QCLASS_BACKGROUND);
        expect_class(rs, "/games/Launcher ", QCLASS_USER_INTERACTIVE);
        expect_class(rs, "/games/Launcher", QCLASS_BACKGROUND);
        expect_class(rs, "/games/Launcher  ", QCLASS_UNSPECIFIED);
        ruleset_free(rs);
        tree_remove(src);
        tree_remove(dest);
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
                cmocka_unit_test(test_line_shapes),
                cmocka_unit_test_setup_teardown(test_unusual_rules, setup, teardown),
                cmocka_unit_test(test_match_values),
                cmocka_unit_test(test_odd_names),
                cmocka_unit_test(test_file_names),
                cmocka_unit_test_setup_teardown(test_written_files_load, setup, teardown),
                cmocka_unit_test(test_non_ascii_names),
                cmocka_unit_test(test_missing_tree),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
