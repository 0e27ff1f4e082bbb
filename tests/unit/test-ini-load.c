/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The qos.d INI loader: what each key does, and every message with its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "config/ini-load.h"
#include "core/macro.h"
#include "test-tree.h"

static const char *const PATH = "foo.conf";

typedef struct Fixture {
        RuleStore *store;
        AppRule app;
        DiagList diag;
} Fixture;

static int setup(void **state) {
        static Fixture f;
        f = (Fixture) { .store = rule_store_new() };
        assert_non_null(f.store);
        assert_int_equal(app_rule_init(&f.app, f.store, "foo", "foo.conf", (RuleOrigin) { PATH, 0 }), 0);
        *state = &f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        app_rule_done(&f->app);
        rule_store_free(f->store);
        diag_list_clear(&f->diag);
        return 0;
}

static void load_as(Fixture *f, const char *path, const char *text) {
        assert_int_equal(ini_load_buffer(&f->app, path, text, strlen(text), &f->diag), 0);
}

static void load(Fixture *f, const char *text) {
        load_as(f, PATH, text);
}

static const char *path_of(Fixture *f, SourceLine l) {
        return app_rule_origin(&f->app, l).path;
}

static const Pattern *pattern(Fixture *f, MatchKind kind, size_t i) {
        size_t n;
        const Pattern *p = app_rule_patterns(&f->app, kind, &n);
        assert_in_range(i, 0, n - 1);
        return &p[i];
}

static void test_full_file(void **state) {
        Fixture *f = *state;
        load(f, "# a comment\n"
                "; another\n"
                "[Match]\n"
                "Executable=/usr/bin/foo\n"
                "Executable=foo-bin\n"
                "CommandLine=*--renderer*\n"
                "Cgroup=/user.slice/*\n"
                "\n"
                "[Process]\n"
                "Class=user-initiated\n"
                "[Thread:ui-*]\n"
                "Class=ui\n"
                "[Limits]\n"
                "MaxClass=user-initiated\n");
        assert_int_equal(f->diag.n, 0);
        assert_int_equal(f->app.n_match[MATCH_EXECUTABLE], 2);
        const Pattern *p = pattern(f, MATCH_EXECUTABLE, 0);
        assert_string_equal(p->text, "/usr/bin/foo");
        assert_true(p->path);
        assert_false(p->glob);
        assert_int_equal(p->origin.line, 4);
        assert_ptr_equal(path_of(f, p->origin), PATH);
        assert_false(pattern(f, MATCH_EXECUTABLE, 1)->path);
        assert_true(pattern(f, MATCH_COMMAND_LINE, 0)->glob);
        assert_int_equal(pattern(f, MATCH_CGROUP, 0)->origin.line, 7);
        assert_int_equal(f->app.process.class, QCLASS_USER_INITIATED);
        assert_int_equal(f->app.process.origin.line, 10);
        assert_int_equal(f->app.n_threads, 1);
        assert_string_equal(f->app.threads[0].name.text, "ui-*");
        assert_int_equal(f->app.threads[0].name.origin.line, 11);
        assert_int_equal(f->app.threads[0].class.class, QCLASS_USER_INTERACTIVE);
        assert_int_equal(f->app.threads[0].class.origin.line, 12);
        assert_int_equal(app_rule_max(&f->app)->class, QCLASS_USER_INITIATED);
        assert_int_equal(app_rule_max(&f->app)->origin.line, 14);

        /* Capped thread rule: the warning names the Class= line and the limit. */
        assert_int_equal(app_rule_finalize(&f->app, &f->diag), 0);
        const Diag *d = expect_diag(&f->diag, 12, LOG_WARNING, "[Thread:ui-*] Class=user-interactive is above MaxClass=user-initiated (foo.conf:14)");
        assert_string_equal(d->path, PATH);
        assert_false(f->app.implicit_match);
}

/* Indentation is not continuation, ';' after blanks starts a comment, '#'
 * inside a value does not, CRLF and a BOM are fine. */
static void test_lexical_details(void **state) {
        Fixture *f = *state;
        load(f, "\xef\xbb\xbf[Match]\r\n"
                "    Executable=foo ; trailing comment\r\n"
                "\tCommandLine=a#b;c\n"
                "[Process]\n"
                "  Class = background  \n");
        assert_int_equal(f->diag.n, 0);
        assert_string_equal(pattern(f, MATCH_EXECUTABLE, 0)->text, "foo");
        assert_string_equal(pattern(f, MATCH_COMMAND_LINE, 0)->text, "a#b;c");
        assert_int_equal(pattern(f, MATCH_COMMAND_LINE, 0)->origin.line, 3);
        assert_int_equal(f->app.process.class, QCLASS_BACKGROUND);
        assert_int_equal(f->app.process.origin.line, 5);
}

/* Every error and warning, each at its own line, and the good lines around
 * them still load. */
static void test_messages_and_lines(void **state) {
        Fixture *f = *state;
        load(f, "Class=ui\n"                      /* 1 outside a section */
                "[Match]\n"                       /* 2 */
                "Executable=bin/foo\n"            /* 3 relative path */
                "Cgroup=user.slice\n"             /* 4 no leading '/' */
                "garbage\n"                       /* 5 */
                "=value\n"                        /* 6 */
                "Exe=foo\n"                       /* 7 unknown key */
                "[Process]\n"                     /* 8 */
                "Class=fast\n"                    /* 9 invalid class */
                "class=ui\n"                      /* 10 did you mean */
                "MaxClass=ui\n"                   /* 11 wrong section */
                "Class=bg\n"                      /* 12 good */
                "Class=utility\n"                 /* 13 repeated */
                "[Procss]\n"                      /* 14 unknown section */
                "Class=ui\n"                      /* 15 skipped silently */
                "[match]\n"                       /* 16 case */
                "[Thread:]\n"                     /* 17 empty glob */
                "Class=ui\n"                      /* 18 skipped silently */
                "[Limits\n"                       /* 19 no ']' */
                "MaxClass=bg\n"                   /* 20 skipped: broken section */
                "[Limits]\n"                      /* 21 */
                "MaxClass=utility\n");            /* 22 good */
        expect_diag(&f->diag, 1, LOG_WARNING, "Class= is outside any section");
        expect_diag(&f->diag, 3, LOG_WARNING, "Executable=bin/foo is neither an absolute path nor a basename");
        expect_diag(&f->diag, 4, LOG_WARNING, "Cgroup=user.slice never matches");
        expect_diag(&f->diag, 5, LOG_ERR, "expected 'Key=Value' or '[Section]'");
        expect_diag(&f->diag, 6, LOG_ERR, "missing key name");
        expect_diag(&f->diag, 7, LOG_WARNING, "unknown key 'Exe' in [Match]");
        expect_diag(&f->diag, 9, LOG_ERR, "invalid class 'fast' for Class; valid: user-interactive");
        expect_diag(&f->diag, 10, LOG_WARNING, "did you mean 'Class'?");
        expect_diag(&f->diag, 11, LOG_WARNING, "MaxClass= belongs in [Limits], not [Process]");
        expect_diag(&f->diag, 13, LOG_WARNING, "Class= was already set at line 12");
        expect_diag(&f->diag, 14, LOG_WARNING, "unknown section [Procss]; did you mean [Process]?");
        expect_diag(&f->diag, 16, LOG_WARNING, "unknown section [match]; did you mean [Match]?");
        expect_diag(&f->diag, 17, LOG_ERR, "[Thread:] needs a thread name or glob");
        expect_diag(&f->diag, 19, LOG_ERR, "section header without ']'");
        assert_int_equal(f->diag.n, 14);
        assert_int_equal(diag_list_count(&f->diag, LOG_ERR), 5);

        assert_int_equal(f->app.process.class, QCLASS_UTILITY);
        assert_int_equal(f->app.process.origin.line, 13);
        assert_int_equal(app_rule_max(&f->app)->class, QCLASS_UTILITY);
        assert_int_equal(app_rule_max(&f->app)->origin.line, 22);
        assert_int_equal(f->app.n_threads, 0);
        assert_int_equal(f->app.n_match[MATCH_EXECUTABLE], 1);
}

/* The one comment systemd users will try: '#' after a value. */
static void test_trailing_hash(void **state) {
        Fixture *f = *state;
        load(f, "[Match]\nExecutable=/usr/bin/foo   # the browser\nCommandLine=a#b\n");
        expect_diag(&f->diag, 2, LOG_WARNING, "'#' starts a comment only at the start of a line; \"# the browser\" is part of the value (use ';')");
        assert_int_equal(f->diag.n, 1);
        assert_string_equal(pattern(f, MATCH_EXECUTABLE, 0)->text, "/usr/bin/foo   # the browser");
}

static void test_section_typos(void **state) {
        Fixture *f = *state;
        load(f, "[thread:ui-*]\nClass=ui\n[Limit]\nMaxClass=bg\n[Process]\nClas=bg\nSlice=3\n");
        expect_diag(&f->diag, 1, LOG_WARNING, "unknown section [thread:ui-*]; did you mean [Thread:ui-*]?");
        expect_diag(&f->diag, 3, LOG_WARNING, "unknown section [Limit]; did you mean [Limits]?");
        expect_diag(&f->diag, 6, LOG_WARNING, "unknown key 'Clas' in [Process]; did you mean 'Class'?");
        const Diag *d = expect_diag(&f->diag, 7, LOG_WARNING, "unknown key 'Slice' in [Process]; ignored");
        assert_null(strstr(d->message, "did you mean"));
        assert_int_equal(f->diag.n, 4);
        assert_int_equal(f->app.n_threads, 0);
        assert_int_equal(app_rule_max(&f->app)->class, QCLASS_UNSPECIFIED);
}

static void test_long_line_and_nul(void **state) {
        Fixture *f = *state;
        char text[600];
        memset(text, 'x', sizeof text);
        const char *head = "[Match]\nExecutable=";
        memcpy(text, head, strlen(head));
        /* Line 3 [Process], 4 Class=bg, 5 has a NUL, 6 Class=ui. */
        strcpy(text + 300, "\n[Process]\nClass=bg\nClass=a");
        size_t len = 300 + strlen(text + 300);
        memcpy(text + len, "\0b\nClass=ui\n", 13);
        len += 13;
        assert_int_equal(ini_load_buffer(&f->app, PATH, text, len, &f->diag), 0);
        expect_diag(&f->diag, 2, LOG_ERR, "line longer than 199 characters");
        expect_diag(&f->diag, 5, LOG_ERR, "NUL byte");
        assert_int_equal(f->app.n_match[MATCH_EXECUTABLE], 0);
        /* The line after the NUL still counts: */
        assert_int_equal(f->app.process.class, QCLASS_USER_INTERACTIVE);
        assert_int_equal(f->app.process.origin.line, 6);
}

/* A drop-in amends: single values replace, lists append, empty resets, the
 * same [Thread:] header names the same rule; no "repeated" warning across
 * files. */
static void test_dropin_semantics(void **state) {
        Fixture *f = *state;
        static const char *const DROPIN = "foo.conf.d/10-x.conf";
        load(f, "[Match]\nExecutable=foo\nCommandLine=*a*\nCgroup=/a/*\n[Process]\nClass=bg\n[Thread:w*]\nClass=bg\n");
        load_as(f, DROPIN, "[Match]\nExecutable=bar\nCommandLine=\n[Process]\nClass=ui\n[Thread:w*]\nClass=utility\n");
        assert_int_equal(f->diag.n, 0);
        assert_int_equal(f->app.n_match[MATCH_EXECUTABLE], 2);
        assert_string_equal(pattern(f, MATCH_EXECUTABLE, 1)->text, "bar");
        assert_int_equal(f->app.n_match[MATCH_COMMAND_LINE], 0);
        assert_string_equal(pattern(f, MATCH_CGROUP, 0)->text, "/a/*");
        assert_int_equal(f->app.process.class, QCLASS_USER_INTERACTIVE);
        assert_ptr_equal(path_of(f, f->app.process.origin), DROPIN);
        assert_int_equal(f->app.n_threads, 1);
        assert_int_equal(f->app.threads[0].class.class, QCLASS_UTILITY);
        assert_ptr_equal(path_of(f, f->app.threads[0].class.origin), DROPIN);
        /* The section stays where it was first declared. */
        assert_ptr_equal(path_of(f, f->app.threads[0].name.origin), PATH);

        load_as(f, DROPIN, "[Process]\nClass=\n");
        assert_int_equal(f->app.process.class, QCLASS_UNSPECIFIED);
}

/* A kind holds UINT16_MAX patterns: the next one is an error at its line,
 * and what follows still loads. */
static void test_too_many_patterns(void **state) {
        Fixture *f = *state;
        static const char line[] = "Executable=a\n";
        size_t n = UINT16_MAX + 1, len = strlen("[Match]\n") + n * strlen(line);
        char *text = malloc(len + 64);
        assert_non_null(text);
        char *p = stpcpy(text, "[Match]\n");
        for (size_t i = 0; i < n; i++)
                p = stpcpy(p, line);
        strcpy(p, "CommandLine=x\n");
        load(f, text);
        free(text);
        expect_diag(&f->diag, (unsigned) n + 1, LOG_ERR, "more than 65535 Executable= patterns; ignored");
        assert_int_equal(f->diag.n, 1);
        assert_int_equal(f->app.n_match[MATCH_EXECUTABLE], UINT16_MAX);
        assert_string_equal(pattern(f, MATCH_COMMAND_LINE, 0)->text, "x");
}

static void test_finalize_messages(void **state) {
        Fixture *f = *state;
        load(f, "[Match]\n"
                "[Thread:a-very-long-thread-name]\n" /* 2: > 15 characters */
                "Class=bg\n"
                "[Thread:idle]\n"                    /* 4: no Class */
                "[Process]\n"
                "Class=ui\n"                         /* 6: above the cap */
                "[Limits]\n"
                "MaxClass=utility\n");
        assert_int_equal(app_rule_finalize(&f->app, &f->diag), 0);
        expect_diag(&f->diag, 2, LOG_WARNING, "at most 15 characters; [Thread:a-very-long-thread-name] never matches");
        expect_diag(&f->diag, 4, LOG_WARNING, "[Thread:idle] sets no Class=");
        expect_diag(&f->diag, 6, LOG_WARNING, "[Process] Class=user-interactive is above MaxClass=utility");
        /* An empty [Match] matches by the file name. */
        assert_true(f->app.implicit_match);
        assert_int_equal(app_rule_n_thread_rules(&f->app), 1);
}

static void test_says_nothing(void **state) {
        Fixture *f = *state;
        load(f, "[Match]\nExecutable=foo\n");
        assert_int_equal(app_rule_finalize(&f->app, &f->diag), 0);
        expect_diag(&f->diag, 0, LOG_WARNING, "foo sets no Class= and no MaxClass=");
}

static void test_thread_precedence(void **state) {
        Fixture *f = *state;
        load(f, "[Thread:*]\nClass=bg\n"
                "[Thread:ui-*]\nClass=in\n"
                "[Thread:ui-main]\nClass=ui\n"
                "[Thread:ui-ma*]\nClass=utility\n");
        assert_int_equal(app_rule_finalize(&f->app, &f->diag), 0);
        assert_int_equal(app_rule_match_thread(&f->app, "ui-main")->class.class, QCLASS_USER_INTERACTIVE);
        assert_int_equal(app_rule_match_thread(&f->app, "ui-mail")->class.class, QCLASS_UTILITY);
        assert_int_equal(app_rule_match_thread(&f->app, "ui-x")->class.class, QCLASS_USER_INITIATED);
        assert_int_equal(app_rule_match_thread(&f->app, "gc")->class.class, QCLASS_BACKGROUND);
}

/* Fewer than THREAD_INDEX_MIN thread rules are scanned, more are indexed:
 * both must pick the same rule for every name. */
static void test_thread_scan_equals_index(void **state) {
        static const char *const names[] = { "ui-main", "ui-mail", "ui-x", "gc", "w-1", "w-12", "pool", "pool-3",
                                             "a\\b", "x", "" };
        Fixture *f = *state;
        load(f, "[Thread:*]\nClass=bg\n"
                "[Thread:ui-*]\nClass=in\n"
                "[Thread:ui-main]\nClass=ui\n"
                "[Thread:ui-ma*]\nClass=utility\n"
                "[Thread:w-?]\nClass=ui\n"
                "[Thread:w-*]\nClass=bg\n"
                "[Thread:pool*]\nClass=in\n"
                "[Thread:pool]\nClass=utility\n"
                "[Thread:a\\b]\nClass=ui\n"
                "[Thread:unset]\n"
                "[Thread:p*]\nClass=ui\n");
        assert_int_equal(app_rule_finalize(&f->app, &f->diag), 0);
        assert_int_equal(app_rule_n_thread_rules(&f->app), 10);
        assert_non_null(f->app.extra);
        assert_non_null(f->app.extra->thread_index);
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                const ThreadRule *indexed = app_rule_match_thread(&f->app, names[i]);
                GlobIndex *index = f->app.extra->thread_index;
                f->app.extra->thread_index = NULL;
                const ThreadRule *scanned = app_rule_match_thread(&f->app, names[i]);
                f->app.extra->thread_index = index;
                assert_ptr_equal(indexed, scanned);
        }
        assert_int_equal(app_rule_match_thread(&f->app, "ui-main")->class.class, QCLASS_USER_INTERACTIVE);
        assert_int_equal(app_rule_match_thread(&f->app, "pool-3")->class.class, QCLASS_USER_INITIATED);
        /* A section without Class= is no rule: the name falls to "*". */
        assert_int_equal(app_rule_match_thread(&f->app, "unset")->class.class, QCLASS_BACKGROUND);
}

static void test_file_errors(void **state) {
        Fixture *f = *state;
        char *root = tree_new();
        char *missing = tree_path(root, "missing.conf");
        assert_int_equal(ini_load_file(&f->app, missing, &f->diag), 0);
        const Diag *d = expect_diag(&f->diag, 0, LOG_ERR, "cannot read: No such file or directory; file skipped");
        assert_string_equal(d->path, missing);
        free(missing);
        tree_remove(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_full_file, setup, teardown),
                cmocka_unit_test_setup_teardown(test_lexical_details, setup, teardown),
                cmocka_unit_test_setup_teardown(test_messages_and_lines, setup, teardown),
                cmocka_unit_test_setup_teardown(test_trailing_hash, setup, teardown),
                cmocka_unit_test_setup_teardown(test_section_typos, setup, teardown),
                cmocka_unit_test_setup_teardown(test_long_line_and_nul, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dropin_semantics, setup, teardown),
                cmocka_unit_test_setup_teardown(test_too_many_patterns, setup, teardown),
                cmocka_unit_test_setup_teardown(test_finalize_messages, setup, teardown),
                cmocka_unit_test_setup_teardown(test_says_nothing, setup, teardown),
                cmocka_unit_test_setup_teardown(test_thread_precedence, setup, teardown),
                cmocka_unit_test_setup_teardown(test_thread_scan_equals_index, setup, teardown),
                cmocka_unit_test_setup_teardown(test_file_errors, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
