/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/qosd-conf.h"

static char *write_tmp(const char *text) {
        char *path = strdup("/tmp/test-settings.XXXXXX");
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        close(fd);
        return path;
}

static void test_defaults_and_missing_file(void **state) {
        Settings s;
        settings_init(&s);
        assert_true(s.restore_on_exit);
        assert_int_equal(s.on_foreign, FOREIGN_LEAVE);
        assert_int_equal(settings_load(&s, "/nonexistent/qosd.conf"), 0);
        assert_true(s.restore_on_exit);
        settings_done(&s);
}

static void test_values(void **state) {
        char *p = write_tmp("[Daemon]\n"
                            "RestoreOnExit=no\n"
                            "ScanIntervalSec=5\n"
                            "LogLevel=debug\n"
                            "Profile=qos\n"
                            "ForeignChange=reapply\n"
                            "ReceiveBuffer=4M\n"
                            "WatchConfig=off\n"
                            "EventRestUSec=0\n");
        Settings s;
        settings_init(&s);
        assert_int_equal(s.event_rest_usec, 250);
        assert_int_equal(settings_load(&s, p), 0);
        assert_int_equal(s.event_rest_usec, 0);
        assert_false(s.restore_on_exit);
        assert_int_equal(s.scan_interval_usec, 5000000);
        assert_int_equal(s.log_level, LOG_DEBUG);
        assert_string_equal(s.profile, "qos");
        assert_int_equal(s.on_foreign, FOREIGN_REAPPLY);
        assert_int_equal(s.receive_buffer, 4 << 20);
        assert_false(s.watch_config);
        settings_done(&s);
        unlink(p);
        free(p);
}

/* A bad line is an error that loses nothing else: the rest still loads. */
static void test_broker(void **state) {
        Settings s;
        settings_init(&s);
        assert_int_equal(s.foreground_gate, GATE_AUTO);
        assert_int_equal(s.foreground_uid, (uid_t) -1);
        assert_int_equal(s.request_max_class, QCLASS_USER_INTERACTIVE);
        char *p = write_tmp("[Daemon]\n"
                            "ForegroundGate=yes\n"
                            "ForegroundUser=root\n"
                            "ForegroundGroup=4242\n"
                            "RequestMaxClass=user-initiated\n"
                            "RequestRate=5\n"
                            "RequestBurst=10\n");
        assert_int_equal(settings_load(&s, p), 0);
        assert_int_equal(s.foreground_gate, GATE_YES);
        assert_int_equal(s.foreground_uid, 0);
        assert_int_equal(s.foreground_gid, 4242);
        assert_int_equal(s.request_max_class, QCLASS_USER_INITIATED);
        assert_int_equal(s.request_rate, 5);
        assert_int_equal(s.request_burst, 10);
        unlink(p);
        free(p);
        p = write_tmp("[Daemon]\n"
                      "ForegroundGate=sometimes\n"
                      "ForegroundUser=no-such-user-here\n"
                      "RequestMaxClass=unspecified\n"
                      "RequestRate=0\n"
                      "ForegroundGate=no\n");
        assert_int_equal(settings_load(&s, p), 4);
        assert_int_equal(s.foreground_gate, GATE_NO); /* the good line still counts */
        assert_int_equal(s.foreground_uid, 0);
        assert_int_equal(s.request_max_class, QCLASS_USER_INITIATED);
        assert_int_equal(s.request_rate, 5);
        unlink(p);
        free(p);
        settings_done(&s);
}

static void test_user_rule_limits(void **state) {
        Settings s;
        settings_init(&s);
        assert_int_equal(s.user_rules_max_rules, 1024);
        assert_int_equal(s.user_rules_max_rules, 1024);
        assert_int_equal(s.user_rules_max_bytes, 1 << 20);
        assert_int_equal(s.user_rules_reload_interval_usec, 1000000);
        char *p = write_tmp("[Daemon]\n"
                            "UserRulesMaxFiles=10\n"
                            "UserRulesMaxRules=20\n"
                            "UserRulesMaxBytes=64K\n"
                            "UserRulesReloadIntervalSec=5\n"
                            "UserRulesMaxFiles=0\n"      /* at least one file */
                            "UserRulesMaxBytes=100\n");  /* at least a page */
        assert_int_equal(settings_load(&s, p), 2);
        assert_int_equal(s.user_rules_max_files, 10);
        assert_int_equal(s.user_rules_max_rules, 20);
        assert_int_equal(s.user_rules_max_bytes, 64 << 10);
        assert_int_equal(s.user_rules_reload_interval_usec, 5000000);
        settings_done(&s);
        unlink(p);
        free(p);
}

static void test_bad_lines(void **state) {
        char *p = write_tmp("[Daemon]\n"
                            "RestoreOnExit=perhaps\n"
                            "ReceiveBuffer=12\n"
                            "NoSuchKey=1\n"
                            "EventRestUSec=-1\n"
                            "EventRestUSec=2000000\n"
                            "ScanIntervalSec=7\n");
        Settings s;
        settings_init(&s);
        assert_int_equal(settings_load(&s, p), 4); /* four errors; the unknown key warns */
        assert_int_equal(s.event_rest_usec, 250);
        assert_true(s.restore_on_exit);             /* default kept */
        assert_int_equal(s.scan_interval_usec, 7000000);
        settings_done(&s);
        unlink(p);
        free(p);
}

static void test_list_tasks_max(void **state) {
        Settings s;
        settings_init(&s);
        assert_int_equal(s.list_tasks_max, 16384);
        char *p = write_tmp("[Daemon]\nListTasksMax=64\n");
        assert_int_equal(settings_load(&s, p), 0);
        assert_int_equal(s.list_tasks_max, 64);
        unlink(p);
        free(p);
        /* No list at all would hide every thread: 0 is refused. */
        p = write_tmp("[Daemon]\nListTasksMax=0\n");
        assert_int_equal(settings_load(&s, p), 1);
        assert_int_equal(s.list_tasks_max, 64);
        unlink(p);
        free(p);
        settings_done(&s);
}

/* settings_load() of text; its result. */
static int load_text(Settings *s, const char *text) {
        char *p = write_tmp(text);
        int r = settings_load(s, p);
        unlink(p);
        free(p);
        return r;
}

/* settings_load() of text, and what it logged (to stderr) in *log. */
static int load_text_logged(Settings *s, const char *text, char **log) {
        FILE *tmp = tmpfile();
        assert_non_null(tmp);
        fflush(stderr);
        int saved = dup(STDERR_FILENO);
        assert_true(saved >= 0);
        assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
        int r = load_text(s, text);
        fflush(stderr);
        assert_true(dup2(saved, STDERR_FILENO) >= 0);
        close(saved);
        long n = ftell(tmp);
        assert_true(n >= 0);
        *log = calloc(1, (size_t) n + 1);
        assert_non_null(*log);
        rewind(tmp);
        assert_int_equal(fread(*log, 1, (size_t) n, tmp), (size_t) n);
        fclose(tmp);
        return r;
}

/* An unknown key (or section) is a warning that names the nearest known
 * one, and changes nothing. */
static void test_unknown_key_suggests(void **state) {
        Settings s;
        char *log;
        settings_init(&s);
        assert_int_equal(load_text_logged(&s,
                                          "[Daemon]\n"
                                          "RestoreOnExti=no\n"        /* 2: a swap */
                                          "scanintervalsecs=5\n"      /* 3: case and one more */
                                          "UserRulesMaxRoles=3\n"     /* 4: Rules (1 away), not Files (2) */
                                          "NoSuchKey=1\n"             /* 5: nothing near */
                                          "[Deamon]\n"
                                          "LogLevel=debug\n",         /* 7: in the wrong section */
                                          &log),
                         0);
        assert_non_null(strstr(log, ":2: unknown setting RestoreOnExti=; did you mean RestoreOnExit=? Ignored"));
        assert_non_null(strstr(log, ":3: unknown setting scanintervalsecs=; did you mean ScanIntervalSec=?"));
        assert_non_null(strstr(log, ":4: unknown setting UserRulesMaxRoles=; did you mean UserRulesMaxRules=?"));
        assert_non_null(strstr(log, ":5: unknown setting NoSuchKey=, ignored"));
        assert_non_null(strstr(log, ":7: unknown section [Deamon]; did you mean [Daemon]? Ignored"));
        assert_true(s.restore_on_exit);
        assert_int_equal(s.scan_interval_usec, 60 * 1000000ULL);
        assert_int_equal(s.user_rules_max_rules, 1024);
        assert_int_equal(s.log_level, LOG_INFO);
        free(log);

        assert_string_equal(settings_nearest_key("ListTaskMax"), "ListTasksMax");
        assert_string_equal(settings_nearest_key("foregroundgroups"), "ForegroundGroup");
        assert_null(settings_nearest_key("Foreground"));
        assert_null(settings_nearest_key(""));
        settings_done(&s);
}

static void test_scheduler(void **state) {
        Settings s;
        settings_init(&s);
        assert_int_equal(s.scheduler, SCHEDULER_NONE);
        assert_string_equal(settings_scheduler_path(&s), QOS_LIBEXECDIR "/qos/scx_qos");

        assert_int_equal(load_text(&s, "[Daemon]\nScheduler=qos\nSchedulerPath=/opt/scx/scx_qos\n"), 0);
        assert_int_equal(s.scheduler, SCHEDULER_QOS);
        assert_string_equal(settings_scheduler_path(&s), "/opt/scx/scx_qos");

        /* A relative path and an unknown scheduler are errors that keep
         * the values before; an empty path is the default again. */
        assert_int_equal(load_text(&s, "[Daemon]\nScheduler=rusty\nSchedulerPath=scx_qos\n"), 2);
        assert_int_equal(s.scheduler, SCHEDULER_QOS);
        assert_string_equal(settings_scheduler_path(&s), "/opt/scx/scx_qos");
        assert_int_equal(load_text(&s, "[Daemon]\nScheduler=none\nSchedulerPath=\n"), 0);
        assert_int_equal(s.scheduler, SCHEDULER_NONE);
        assert_string_equal(settings_scheduler_path(&s), SCHEDULER_PATH_DEFAULT);
        settings_done(&s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults_and_missing_file),
                cmocka_unit_test(test_values),
                cmocka_unit_test(test_user_rule_limits),
                cmocka_unit_test(test_bad_lines),
                cmocka_unit_test(test_broker),
                cmocka_unit_test(test_list_tasks_max),
                cmocka_unit_test(test_scheduler),
                cmocka_unit_test(test_unknown_key_suggests),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
