/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* schedqos app configs, read as they are: each sample, each message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "core/macro.h"
#include "config/schedqos-json.h"
#include "test-tree.h"

#define SAMPLE(name) QOS_TEST_DATA "/schedqos/" name

typedef struct Fixture {
        AppRuleList apps;
        DiagList diag;
} Fixture;

static int setup(void **state) {
        static Fixture f;
        f = (Fixture) {};
        *state = &f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        app_rule_list_done(&f->apps);
        diag_list_clear(&f->diag);
        return 0;
}

static void load(Fixture *f, const char *path) {
        assert_int_equal(schedqos_json_load_file(&f->apps, path, "x.json", &f->diag), 0);
}

static const AppRule *app(Fixture *f, const char *name) {
        for (size_t i = 0; i < f->apps.n; i++)
                if (strcmp(f->apps.items[i].name, name) == 0)
                        return &f->apps.items[i];
        fail_msg("no application %s", name);
        return NULL;
}

static const ThreadRule *thread(const AppRule *a, const char *glob) {
        for (size_t i = 0; i < a->n_threads; i++)
                if (strcmp(a->threads[i].name.text, glob) == 0)
                        return &a->threads[i];
        fail_msg("no thread rule %s", glob);
        return NULL;
}

static void test_desktop_sample(void **state) {
        Fixture *f = *state;
        load(f, SAMPLE("desktop.json"));
        /* period is the one thing not carried; version is schedqos' own note. */
        expect_diag(&f->diag, 3, LOG_WARNING, "\"period\" is not supported");
        expect_diag(&f->diag, 17, LOG_WARNING, "thread_qos \"io\" lists 2 classes; the last one counts");
        assert_int_equal(f->diag.n, 2);
        assert_int_equal(f->apps.n, 4);

        const AppRule *c = app(f, "chrome");
        assert_string_equal(c->unit, "x.json");
        assert_int_equal(c->origin.line, 2);
        /* A plain name matches like a qos.d file without [Match]. */
        assert_int_equal(c->n_match[MATCH_EXECUTABLE], 0);
        assert_int_equal(c->process.class, QCLASS_USER_INTERACTIVE);
        assert_int_equal(c->process.origin.line, 4);

        const AppRule *e = app(f, "com.example.app*");
        size_t n;
        const Pattern *p = app_rule_patterns(e, MATCH_EXECUTABLE, &n);
        assert_int_equal(n, 1);
        assert_string_equal(p[0].text, "com.example.app*");
        assert_true(p[0].glob);
        assert_false(e->implicit_match);
        assert_int_equal(e->process.class, QCLASS_USER_INITIATED);
        assert_int_equal(e->process.origin.line, 11);

        const AppRule *w = app(f, "worker*");
        assert_int_equal(w->process.class, QCLASS_UNSPECIFIED);
        assert_int_equal(w->n_threads, 3);
        assert_int_equal(thread(w, "main")->class.class, QCLASS_USER_INTERACTIVE);
        assert_int_equal(thread(w, "main")->class.origin.line, 15);
        assert_int_equal(thread(w, "bg_*")->class.class, QCLASS_BACKGROUND);
        assert_int_equal(thread(w, "bg_*")->name.origin.line, 16);
        /* An array: schedqos applies each in turn, the last one stays. */
        assert_int_equal(thread(w, "io")->class.class, QCLASS_USER_INITIATED);
}

static void test_entry_errors(void **state) {
        Fixture *f = *state;
        load(f, SAMPLE("entries.json"));
        expect_diag(&f->diag, 3, LOG_ERR, "\"notobject\" must map to an object, not string; entry skipped");
        expect_diag(&f->diag, 4, LOG_ERR, "invalid class 'QOS_TURBO' for qos");
        expect_diag(&f->diag, 5, LOG_ERR, "qos must be a string, not int");
        expect_diag(&f->diag, 6, LOG_ERR, "thread_qos must be an object, not array");
        expect_diag(&f->diag, 9, LOG_ERR, "empty thread name in thread_qos");
        expect_diag(&f->diag, 10, LOG_ERR, "thread_qos value must be a string, not int");
        expect_diag(&f->diag, 13, LOG_WARNING, "unknown key \"nice\" in \"threadvalues\"");
        expect_diag(&f->diag, 15, LOG_ERR, "empty application name");
        assert_int_equal(f->diag.n, 8);

        /* What was good in the same entries still loads. */
        assert_int_equal(app(f, "good")->process.class, QCLASS_UTILITY);
        const AppRule *b = app(f, "badqos");
        assert_int_equal(b->process.class, QCLASS_UNSPECIFIED);
        assert_int_equal(thread(b, "t1")->class.class, QCLASS_BACKGROUND);
        const AppRule *t = app(f, "threadvalues");
        assert_int_equal(t->n_threads, 1);
        assert_int_equal(thread(t, "ok")->class.origin.line, 11);
        assert_int_equal(f->apps.n, 5);
}

static void test_broken_files(void **state) {
        Fixture *f = *state;
        load(f, SAMPLE("syntax-error.json"));
        expect_diag(&f->diag, 5, LOG_ERR, "column 2: ");
        load(f, SAMPLE("not-an-object.json"));
        expect_diag(&f->diag, 1, LOG_ERR, "expected an object keyed by command name, not array; file skipped");
        load(f, SAMPLE("trailing.json"));
        expect_diag(&f->diag, 2, LOG_ERR, "column 1: text after the end of the JSON value; file skipped");
        load(f, SAMPLE("truncated.json"));
        expect_diag(&f->diag, 2, LOG_ERR, "unexpected end of file");
        /* A file that is not JSON loads nothing, not half of itself. */
        assert_int_equal(f->apps.n, 0);
        assert_int_equal(f->diag.n, 4);

        char nul[] = "{ \"a\": {}\0 }";
        assert_int_equal(schedqos_json_load_buffer(&f->apps, "nul.json", "nul.json", nul, sizeof nul - 1, &f->diag), 0);
        expect_diag(&f->diag, 1, LOG_ERR, "column 10: NUL byte");
        assert_int_equal(f->apps.n, 0);
}

static int load_text(Fixture *f, const char *text) {
        return schedqos_json_load_buffer(&f->apps, "a.json", "a.json", text, strlen(text), &f->diag);
}

/* ananicy's rules under a .json name: said to be ananicy's, with the
 * command that converts them, whether or not json-c could read them. */
static void test_ananicy_lines(void **state) {
        Fixture *f = *state;
        static const char *const ananicy[] = {
                "# Games\n\n{ \"name\": \"steam\", \"type\": \"Game\" }\n{ \"name\": \"wine\", \"nice\": 5 }\n",
                "{\"name\": \"make\", \"type\": \"BG_CPUIO\"}\n",      /* one line: valid JSON */
                "  {\"name\": \"x\"} # note\n{ broken\n",
        };
        static const unsigned lines[] = { 3, 1, 1 };
        for (size_t i = 0; i < ELEMENTSOF(ananicy); i++) {
                assert_int_equal(load_text(f, ananicy[i]), 0);
                expect_diag(&f->diag, lines[i], LOG_ERR,
                            "ananicy's format (a JSON object per line), not a schedqos app config; file skipped; "
                            "'qosctl import ananicy SRC DEST' converts ananicy rules into qos.d files");
                assert_int_equal(f->diag.n, 1);
                assert_int_equal(f->apps.n, 0);
                diag_list_clear(&f->diag);
        }

        /* schedqos' own files and other broken JSON: no such advice. */
        static const char *const not_ananicy[] = {
                "{ \"name\": { \"qos\": \"QOS_BACKGROUND\" } }\n",   /* an app called "name" */
                "{\n  \"name\": \"x\"\n}\n",                          /* one object over lines */
                "{ \"type\": \"Game\" }\n{ \"type\": \"x\" }\n",      /* not a rule's line */
                "[ { \"name\": \"x\" } ]\n",
                "# only a comment\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(not_ananicy); i++) {
                assert_int_equal(load_text(f, not_ananicy[i]), 0);
                expect_no_diag(&f->diag, "ananicy");
                diag_list_clear(&f->diag);
        }
        assert_non_null(app(f, "name"));
}

/* A key json-c had to unescape is not found verbatim: the origin falls
 * back to where the search stands, never to a later line. */
static void test_escaped_key(void **state) {
        Fixture *f = *state;
        const char *text = "{\n\"a\\u0062c\": {\n\"qos\": \"QOS_BACKGROUND\" } }\n";
        assert_int_equal(schedqos_json_load_buffer(&f->apps, "e.json", "e.json", text, strlen(text), &f->diag), 0);
        assert_int_equal(f->diag.n, 0);
        const AppRule *a = app(f, "abc");
        assert_int_equal(a->origin.line, 1);
        assert_int_equal(a->process.class, QCLASS_BACKGROUND);
        assert_int_equal(a->process.origin.line, 3);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_desktop_sample, setup, teardown),
                cmocka_unit_test_setup_teardown(test_entry_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_broken_files, setup, teardown),
                cmocka_unit_test_setup_teardown(test_escaped_key, setup, teardown),
                cmocka_unit_test_setup_teardown(test_ananicy_lines, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
