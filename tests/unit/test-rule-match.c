/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The precedence rules of qos.d(5), one test each, through the public
 * interface the daemon uses: files on disk under a root, ruleset_load(),
 * ruleset_match(). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "qos-config.h"
#include "config/rules.h"
#include "test-tree.h"

enum { VENDOR, ADMIN, RUNTIME };
#define ME 1000
#define OTHER 1001

typedef struct Fixture {
        char *root;
        char *user_dir;
        RuleSet *rs;
        DiagList diag;
} Fixture;

static int setup(void **state) {
        static Fixture f;
        f = (Fixture) { .root = tree_new() };
        f.user_dir = tree_path(f.root, "home/me/.config/qos/apps.d");
        *state = &f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        ruleset_free(f->rs);
        diag_list_clear(&f->diag);
        free(f->user_dir);
        tree_remove(f->root);
        return 0;
}

static void sys_write(Fixture *f, int level, const char *name, const char *content) {
        static const char *const dirs[] = { QOS_VENDOR_DIR, QOS_ADMIN_DIR, QOS_RUNTIME_DIR };
        char *rel;
        assert_true(asprintf(&rel, "%s/%s/%s", dirs[level] + 1, QOS_APPS_SUBDIR, name) > 0);
        tree_write(f->root, rel, content);
        free(rel);
}

static void sys_remove(Fixture *f, int level, const char *name) {
        static const char *const dirs[] = { QOS_VENDOR_DIR, QOS_ADMIN_DIR, QOS_RUNTIME_DIR };
        char *p;
        assert_true(asprintf(&p, "%s%s/%s/%s", f->root, dirs[level], QOS_APPS_SUBDIR, name) > 0);
        assert_int_equal(unlink(p), 0);
        free(p);
}

static void user_write(Fixture *f, const char *name, const char *content) {
        char *rel;
        assert_true(asprintf(&rel, "home/me/.config/qos/apps.d/%s", name) > 0);
        tree_write(f->root, rel, content);
        free(rel);
}

/* (Re)load everything; the user directory belongs to uid ME. */
static void load(Fixture *f) {
        UserRuleDir u = { .uid = ME, .dir = f->user_dir };
        RuleSources src = { .root = f->root, .user_dirs = &u, .n_user_dirs = 1 };
        f->rs = ruleset_free(f->rs);
        diag_list_clear(&f->diag);
        assert_int_equal(ruleset_load(&src, &f->rs, &f->diag), 0);
}

static ProcessInfo proc(const char *exe, const char *cmdline, uid_t uid) {
        const char *slash = exe ? strrchr(exe, '/') : NULL;
        return (ProcessInfo) {
                .exe = exe,
                .arg0 = slash ? slash + 1 : exe,
                .cmdline = cmdline ? cmdline : exe,
                .comm = slash ? slash + 1 : exe,
                .cgroup = "/user.slice/user-1000.slice/session-1.scope",
                .uid = uid,
        };
}

/* Match and return the deciding application's name ("" for none). */
static const char *who(Fixture *f, const ProcessInfo *p, const char *thread, MatchResult *m) {
        MatchResult local;
        m = m ? m : &local;
        int r = ruleset_match(f->rs, p, thread, m);
        assert_true(r == 0 || r == 1);
        assert_int_equal(r == 1, m->app != NULL);
        return r ? m->app : "";
}

static void assert_origin(RuleOrigin o, const char *suffix, unsigned line) {
        assert_non_null(o.path);
        size_t n = strlen(o.path), k = strlen(suffix);
        if (n < k || strcmp(o.path + n - k, suffix) != 0)
                fail_msg("origin %s does not end in %s", o.path, suffix);
        assert_int_equal(o.line, line);
}

static void test_thread_rule_beats_process_rule(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "foo.conf",
                  "[Match]\nExecutable=/usr/bin/foo\n"
                  "[Process]\nClass=background\n"
                  "[Thread:ui-*]\nClass=user-interactive\n"
                  "[Thread:ui-main]\nClass=user-initiated\n");
        load(f);
        assert_int_equal(f->diag.n, 0);
        assert_int_equal(ruleset_size(f->rs), 3);
        ProcessInfo p = proc("/usr/bin/foo", NULL, ME);
        MatchResult m;

        assert_string_equal(who(f, &p, "ui-render", &m), "foo");
        assert_int_equal(m.class, QCLASS_USER_INTERACTIVE);
        assert_true(m.thread_rule);
        assert_false(m.user_rule);
        assert_origin(m.origin, "/apps.d/foo.conf", 6);

        /* Exact thread name beats the glob. */
        who(f, &p, "ui-main", &m);
        assert_int_equal(m.class, QCLASS_USER_INITIATED);
        assert_origin(m.origin, "/apps.d/foo.conf", 8);

        /* Any other thread, and the process as a whole: [Process]. */
        who(f, &p, "worker", &m);
        assert_int_equal(m.class, QCLASS_BACKGROUND);
        assert_false(m.thread_rule);
        assert_origin(m.origin, "/apps.d/foo.conf", 4);
        who(f, &p, NULL, &m);
        assert_int_equal(m.class, QCLASS_BACKGROUND);
        assert_int_equal(m.max_class, QCLASS_UNSPECIFIED);
}

/* Full path > basename > path glob > basename glob: remove the winner,
 * the next one decides. */
static void test_executable_specificity(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "a-path.conf", "[Match]\nExecutable=/usr/bin/foo\n[Process]\nClass=ui\n");
        sys_write(f, VENDOR, "b-name.conf", "[Match]\nExecutable=foo\n[Process]\nClass=in\n");
        sys_write(f, VENDOR, "c-pathglob.conf", "[Match]\nExecutable=/usr/*/foo\n[Process]\nClass=ut\n");
        sys_write(f, VENDOR, "d-nameglob.conf", "[Match]\nExecutable=fo*\n[Process]\nClass=bg\n");
        /* Given last, in the highest directory: order and directory must not matter. */
        sys_write(f, RUNTIME, "0-nameglob.conf", "[Match]\nExecutable=f*\n[Process]\nClass=bg\n");
        ProcessInfo p = proc("/usr/bin/foo", NULL, ME);
        static const char *const order[] = { "a-path", "b-name", "c-pathglob", "d-nameglob", "0-nameglob" };
        for (size_t i = 0; i < 5; i++) {
                load(f);
                assert_string_equal(who(f, &p, NULL, NULL), order[i]);
                char *file;
                assert_true(asprintf(&file, "%s.conf", order[i]) > 0);
                sys_remove(f, i < 4 ? VENDOR : RUNTIME, file);
                free(file);
        }
        load(f);
        assert_string_equal(who(f, &p, NULL, NULL), "");
}

/* A path that may name another file than the rules' author meant (the
 * process runs in a mount namespace of its own): no path pattern matches
 * it, a basename one still does. */
static void test_exe_elsewhere(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "a-path.conf", "[Match]\nExecutable=/usr/bin/foo\n[Process]\nClass=ui\n");
        sys_write(f, VENDOR, "c-pathglob.conf", "[Match]\nExecutable=/usr/*/foo\n[Process]\nClass=ut\n");
        load(f);
        ProcessInfo p = proc("/usr/bin/foo", NULL, ME);
        assert_string_equal(who(f, &p, NULL, NULL), "a-path");
        p.exe_elsewhere = true;
        assert_string_equal(who(f, &p, NULL, NULL), "");
        sys_write(f, VENDOR, "b-name.conf", "[Match]\nExecutable=foo\n[Process]\nClass=bg\n");
        load(f);
        assert_string_equal(who(f, &p, NULL, NULL), "b-name");
}

static void test_longer_literal_prefix(void **state) {
        Fixture *f = *state;
        sys_write(f, ADMIN, "short.conf", "[Match]\nExecutable=foo*\n[Process]\nClass=bg\n");
        sys_write(f, VENDOR, "long.conf", "[Match]\nExecutable=foo-b*\n[Process]\nClass=ui\n");
        load(f);
        ProcessInfo p = proc("/usr/bin/foo-bar", NULL, ME);
        assert_string_equal(who(f, &p, NULL, NULL), "long");
        p = proc("/usr/bin/foo-car", NULL, ME);
        assert_string_equal(who(f, &p, NULL, NULL), "short");
}

/* Each Match kind narrows the set: the interpreter plus its script beats
 * the interpreter's full path. */
static void test_more_kinds_win(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "python.conf", "[Match]\nExecutable=/usr/bin/python3\n[Process]\nClass=utility\n");
        sys_write(f, VENDOR, "indexer.conf",
                  "[Match]\nExecutable=python3\nCommandLine=*indexer.py*\n[Process]\nClass=background\n");
        load(f);
        ProcessInfo p = proc("/usr/bin/python3", "python3 /opt/indexer.py --all", ME);
        assert_string_equal(who(f, &p, NULL, NULL), "indexer");
        p = proc("/usr/bin/python3", "python3 other.py", ME);
        assert_string_equal(who(f, &p, NULL, NULL), "python");
}

static void test_directory_then_name_break_ties(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "a.conf", "[Match]\nExecutable=foo\n[Process]\nClass=bg\n");
        sys_write(f, ADMIN, "b.conf", "[Match]\nExecutable=foo\n[Process]\nClass=ui\n");
        sys_write(f, ADMIN, "c.conf", "[Match]\nExecutable=foo\n[Process]\nClass=in\n");
        load(f);
        ProcessInfo p = proc("/usr/bin/foo", NULL, ME);
        /* Higher directory beats lower; within one, the first name. */
        assert_string_equal(who(f, &p, NULL, NULL), "b");
        /* A drop-in from a higher directory lifts a file to that level. */
        sys_write(f, RUNTIME, "a.conf.d/x.conf", "[Thread:x]\nClass=bg\n");
        load(f);
        assert_string_equal(who(f, &p, NULL, NULL), "a");
}

static void test_match_keys(void **state) {
        Fixture *f = *state;
        /* No Match keys: the file name is the executable's basename. */
        sys_write(f, VENDOR, "foo.conf", "[Process]\nClass=bg\n");
        /* Any of several keys of a kind; all of the kinds given. */
        sys_write(f, VENDOR, "multi.conf",
                  "[Match]\nExecutable=alpha\nExecutable=beta\nCgroup=/user.slice/*\n[Process]\nClass=in\n");
        sys_write(f, VENDOR, "sys.conf", "[Match]\nExecutable=gamma\nCgroup=/system.slice/*\n[Process]\nClass=in\n");
        /* CommandLine only: no executable to index by. */
        sys_write(f, VENDOR, "render.conf", "[Match]\nCommandLine=* --type=renderer *\n[Process]\nClass=ui\n");
        sys_write(f, VENDOR, "scope.conf", "[Match]\nCgroup=/user.slice/*/app-batch-*\n[Process]\nClass=bg\n");
        load(f);
        assert_int_equal(f->diag.n, 0);

        ProcessInfo p = proc("/usr/bin/foo", NULL, ME);
        assert_string_equal(who(f, &p, NULL, NULL), "foo");
        p = proc("/usr/bin/foobar", NULL, ME);
        assert_string_equal(who(f, &p, NULL, NULL), "");
        /* argv[0] counts as the basename too (exe unknown, or a wrapper). */
        p = proc(NULL, NULL, ME);
        p.arg0 = "foo";
        assert_string_equal(who(f, &p, NULL, NULL), "foo");

        p = proc("/usr/bin/beta", NULL, ME);
        assert_string_equal(who(f, &p, NULL, NULL), "multi");
        p = proc("/usr/bin/gamma", NULL, ME);
        assert_string_equal(who(f, &p, NULL, NULL), ""); /* wrong cgroup */
        p.cgroup = "/system.slice/gamma.service";
        assert_string_equal(who(f, &p, NULL, NULL), "sys");
        p.cgroup = NULL; /* unknown cgroup: a Cgroup= rule cannot match */
        assert_string_equal(who(f, &p, NULL, NULL), "");

        p = proc("/usr/lib/chromium/chromium", "chromium --type=renderer --lang=de", ME);
        assert_string_equal(who(f, &p, NULL, NULL), "render");
        p = proc("/usr/bin/make", NULL, ME);
        p.cgroup = "/user.slice/user-1000.slice/app-batch-make.scope";
        assert_string_equal(who(f, &p, NULL, NULL), "scope");
}

/* AppId=: the app's ID from its unit or Flatpak instance; globs allowed;
 * it counts as a Match kind, so beside Executable= it narrows. An
 * exemption from the gate needs an Executable= too: an app ID is the
 * launcher's word. */
static void test_app_id(void **state) {
        Fixture *f = *state;
        sys_write(f, ADMIN, "nautilus.conf", "[Match]\nAppId=org.gnome.Nautilus\n[Process]\nClass=in\n");
        sys_write(f, ADMIN, "kde.conf", "[Match]\nAppId=org.kde.*\n[Process]\nClass=bg\n");
        sys_write(f, ADMIN, "konsole.conf",
                  "[Match]\nExecutable=konsole\nAppId=org.kde.konsole\n[Process]\nClass=ui\n");
        sys_write(f, ADMIN, "game.conf", "[Match]\nAppId=com.example.Game\n[Process]\nClass=ui\n"
                                         "[Limits]\nAllowInteractiveInBackground=yes\n");
        sys_write(f, ADMIN, "typo.conf", "[Match]\nAppId=/usr/bin/x\n[Process]\nClass=bg\n");
        load(f);
        expect_diag(&f->diag, 6, LOG_WARNING, "AllowInteractiveInBackground= needs Executable= beside AppId=");
        expect_diag(&f->diag, 2, LOG_WARNING, "AppId=/usr/bin/x never matches");

        MatchResult m;
        ProcessInfo p = proc("/app/bin/nautilus", NULL, ME);
        assert_string_equal(who(f, &p, NULL, NULL), ""); /* no app ID known */
        p.app_id = "org.gnome.Nautilus";
        assert_string_equal(who(f, &p, NULL, &m), "nautilus");
        assert_int_equal(m.class, QCLASS_USER_INITIATED);
        p = proc("/usr/bin/dolphin", NULL, ME);
        p.app_id = "org.kde.dolphin";
        assert_string_equal(who(f, &p, NULL, NULL), "kde");
        p = proc("/usr/bin/konsole", NULL, ME);
        p.app_id = "org.kde.konsole";
        assert_string_equal(who(f, &p, NULL, NULL), "konsole"); /* two kinds beat one */
        p = proc("/usr/bin/anything", NULL, ME);
        p.app_id = "com.example.Game";
        assert_string_equal(who(f, &p, NULL, &m), "game");
        assert_false(m.interactive_exempt);
}

static void test_json_apps(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "schedqos.json",
                  "{ \"chrome\": { \"qos\": \"QOS_USER_INITIATED\", \"thread_qos\": { \"Compositor\": \"QOS_USER_INTERACTIVE\" } } }\n");
        load(f);
        ProcessInfo p = proc("/opt/google/chrome/chrome", NULL, ME);
        MatchResult m;
        assert_string_equal(who(f, &p, "Compositor", &m), "chrome");
        assert_int_equal(m.class, QCLASS_USER_INTERACTIVE);
        assert_origin(m.origin, "/apps.d/schedqos.json", 1);
        /* Same-named .json in a higher directory masks it. */
        sys_write(f, ADMIN, "schedqos.json", "");
        load(f);
        assert_string_equal(who(f, &p, NULL, NULL), "");
}

static void test_limits(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "greedy.conf",
                  "[Match]\nExecutable=greedy\n[Process]\nClass=user-interactive\n"
                  "[Thread:bg]\nClass=background\n[Limits]\nMaxClass=utility\n");
        load(f);
        expect_diag(&f->diag, 4, LOG_WARNING, "above MaxClass=utility");
        ProcessInfo p = proc("/usr/bin/greedy", NULL, ME);
        MatchResult m;
        who(f, &p, NULL, &m);
        assert_int_equal(m.class, QCLASS_UTILITY);
        assert_int_equal(m.requested, QCLASS_USER_INTERACTIVE);
        assert_int_equal(m.max_class, QCLASS_UTILITY);
        assert_origin(m.limit_origin, "/apps.d/greedy.conf", 8);
        /* Below the limit nothing changes. */
        who(f, &p, "bg", &m);
        assert_int_equal(m.class, QCLASS_BACKGROUND);
        assert_int_equal(m.requested, QCLASS_BACKGROUND);
}

/* Only the admin directory (its files and drop-ins) may exempt an
 * application from the foreground gate; the key elsewhere is reported and
 * has no effect. */
static void test_interactive_exemption(void **state) {
        Fixture *f = *state;
        const char *ui = "[Process]\nClass=user-interactive\n";
        sys_write(f, ADMIN, "admin.conf", "[Process]\nClass=ui\n[Limits]\nAllowInteractiveInBackground=yes\n");
        sys_write(f, VENDOR, "vendor.conf", "[Process]\nClass=ui\n[Limits]\nAllowInteractiveInBackground=yes\n");
        sys_write(f, VENDOR, "lifted.conf", ui);
        sys_write(f, ADMIN, "lifted.conf.d/exempt.conf", "[Limits]\nAllowInteractiveInBackground=on\n");
        sys_write(f, RUNTIME, "runtime.conf", "[Process]\nClass=ui\n[Limits]\nAllowInteractiveInBackground=yes\n");
        sys_write(f, ADMIN, "plain.conf", ui);
        sys_write(f, ADMIN, "bad.conf", "[Process]\nClass=ui\n[Limits]\nAllowInteractiveInBackground=maybe\n");
        user_write(f, "mine.conf", "[Process]\nClass=ui\n[Limits]\nAllowInteractiveInBackground=yes\n");
        load(f);
        expect_diag(&f->diag, 4, LOG_ERR, "AllowInteractiveInBackground=maybe is not a boolean");
        struct {
                const char *exe;
                bool exempt;
        } cases[] = {
                { "/usr/bin/admin", true },   { "/usr/bin/vendor", false }, { "/usr/bin/lifted", true },
                { "/usr/bin/runtime", false }, { "/usr/bin/plain", false }, { "/usr/bin/bad", false },
                { "/usr/bin/mine", false },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                ProcessInfo p = proc(cases[i].exe, NULL, ME);
                MatchResult m;
                assert_string_equal(who(f, &p, NULL, &m), strrchr(cases[i].exe, '/') + 1);
                assert_int_equal(m.class, QCLASS_USER_INTERACTIVE);
                if (m.interactive_exempt != cases[i].exempt)
                        fail_msg("%s: exempt %d", cases[i].exe, m.interactive_exempt);
        }
        size_t ignored = 0;
        for (size_t i = 0; i < f->diag.n; i++)
                ignored += strstr(f->diag.items[i].message, "is honoured only in") != NULL;
        assert_int_equal(ignored, 3); /* vendor, runtime, the user's */
}

static void test_masking_and_dropins(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "foo.conf", "[Process]\nClass=background\n");
        sys_write(f, ADMIN, "foo.conf.d/50-ui.conf", "[Process]\nClass=user-interactive\n");
        load(f);
        ProcessInfo p = proc("/usr/bin/foo", NULL, ME);
        MatchResult m;
        who(f, &p, NULL, &m);
        assert_int_equal(m.class, QCLASS_USER_INTERACTIVE);
        assert_origin(m.origin, "/foo.conf.d/50-ui.conf", 2);

        sys_write(f, RUNTIME, "foo.conf", "");
        load(f);
        assert_string_equal(who(f, &p, NULL, NULL), "");
}

/* A broken file is reported and skipped; a broken line costs that line. */
static void test_broken_files_do_not_spread(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "good.conf", "[Process]\nClass=bg\n");
        sys_write(f, VENDOR, "half.conf", "[Match]\nExecutable=half\nthis is not ini\n[Process]\nClass=nonsense\nClass=in\n");
        sys_write(f, VENDOR, "bad.json", "{ not json");
        sys_write(f, ADMIN, "huge.conf", "");
        /* Unreadable: a directory named like a file would be skipped; use a
         * file larger than the limit instead. */
        char *big = malloc(1100 * 1024);
        assert_non_null(big);
        memset(big, '#', 1100 * 1024 - 1);
        big[1100 * 1024 - 1] = '\0';
        sys_write(f, RUNTIME, "big.conf", big);
        free(big);
        load(f);
        expect_diag(&f->diag, 3, LOG_ERR, "expected 'Key=Value'");
        expect_diag(&f->diag, 5, LOG_ERR, "invalid class 'nonsense'");
        expect_diag(&f->diag, 1, LOG_ERR, "file skipped");
        expect_diag(&f->diag, 0, LOG_ERR, "cannot read: larger than 1 MiB; file skipped");

        ProcessInfo p = proc("/usr/bin/good", NULL, ME);
        assert_string_equal(who(f, &p, NULL, NULL), "good");
        MatchResult m;
        p = proc("/usr/bin/half", NULL, ME);
        assert_string_equal(who(f, &p, NULL, &m), "half");
        assert_int_equal(m.class, QCLASS_USER_INITIATED);
}

static void test_user_files_apply_to_their_owner_only(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "editor.conf", "[Match]\nExecutable=editor\n[Process]\nClass=utility\n");
        user_write(f, "mine.conf", "[Match]\nExecutable=editor\n[Process]\nClass=user-initiated\n");
        load(f);
        MatchResult m;
        ProcessInfo mine = proc("/usr/bin/editor", NULL, ME), theirs = proc("/usr/bin/editor", NULL, OTHER);
        assert_string_equal(who(f, &mine, NULL, &m), "mine");
        assert_true(m.user_rule);
        assert_int_equal(m.class, QCLASS_USER_INITIATED);
        /* The user has the last word, even against a more specific system rule. */
        sys_write(f, ADMIN, "editor-path.conf", "[Match]\nExecutable=/usr/bin/editor\n[Process]\nClass=background\n");
        load(f);
        assert_string_equal(who(f, &mine, NULL, &m), "mine");
        assert_string_equal(who(f, &theirs, NULL, &m), "editor-path");
        assert_false(m.user_rule);
}

static void test_user_masks_and_dropins(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "player.conf",
                  "[Match]\nExecutable=player\n[Process]\nClass=user-initiated\n[Thread:decode]\nClass=user-interactive\n");
        sys_write(f, VENDOR, "player-any.conf", "[Match]\nExecutable=play*\n[Process]\nClass=background\n");
        /* A user drop-in extends the system file, for that user only. */
        user_write(f, "player.conf.d/me.conf", "[Thread:decode]\nClass=utility\n");
        load(f);
        MatchResult m;
        ProcessInfo mine = proc("/usr/bin/player", NULL, ME), theirs = proc("/usr/bin/player", NULL, OTHER);
        who(f, &mine, "decode", &m);
        assert_int_equal(m.class, QCLASS_UTILITY);
        assert_true(m.user_rule);
        assert_origin(m.origin, "/player.conf.d/me.conf", 2);
        who(f, &mine, "other", &m);
        assert_int_equal(m.class, QCLASS_USER_INITIATED); /* the rest of the system file */
        who(f, &theirs, "decode", &m);
        assert_int_equal(m.class, QCLASS_USER_INTERACTIVE);

        /* A user mask hides the system file from that user; the next
         * system rule then decides. */
        user_write(f, "player.conf", "");
        load(f);
        assert_string_equal(who(f, &mine, "decode", &m), "player-any");
        assert_int_equal(m.class, QCLASS_BACKGROUND);
        assert_false(m.user_rule);
        assert_string_equal(who(f, &theirs, "decode", NULL), "player");
}

/* However the user's file is named, the system's MaxClass for the process
 * stays; a user's own MaxClass can only lower it. */
static void test_user_capped_by_admin(void **state) {
        Fixture *f = *state;
        sys_write(f, ADMIN, "game.conf", "[Match]\nExecutable=game\n[Process]\nClass=utility\n[Limits]\nMaxClass=user-initiated\n");
        user_write(f, "fast.conf", "[Match]\nExecutable=game\n[Process]\nClass=user-interactive\n");
        user_write(f, "game.conf.d/lift.conf", "[Limits]\nMaxClass=user-interactive\n");
        load(f);
        MatchResult m;
        ProcessInfo mine = proc("/usr/bin/game", NULL, ME);
        who(f, &mine, NULL, &m);
        assert_true(m.user_rule);
        assert_int_equal(m.requested, QCLASS_USER_INTERACTIVE);
        assert_int_equal(m.class, QCLASS_USER_INITIATED);
        assert_int_equal(m.max_class, QCLASS_USER_INITIATED);
        assert_origin(m.limit_origin, "/etc/qos/apps.d/game.conf", 6);
        assert_false(m.limit_user); /* the admin's: anyone may see where */

        /* Masking the admin's file does not lift its limit either. */
        user_write(f, "game.conf", "");
        load(f);
        who(f, &mine, NULL, &m);
        assert_int_equal(m.class, QCLASS_USER_INITIATED);
        assert_int_equal(m.max_class, QCLASS_USER_INITIATED);

        /* Nor does a mask with no rule of the user's own left. */
        char *fast = tree_path(f->root, "home/me/.config/qos/apps.d/fast.conf");
        assert_int_equal(unlink(fast), 0);
        free(fast);
        load(f);
        assert_int_equal(ruleset_match(f->rs, &mine, NULL, &m), 1);
        assert_int_equal(m.class, QCLASS_UNSPECIFIED);
        assert_int_equal(m.max_class, QCLASS_USER_INITIATED);

        /* A lower limit of the user's own applies (once the drop-in that
         * sets a higher one, later in order, is gone). */
        char *lift = tree_path(f->root, "home/me/.config/qos/apps.d/game.conf.d/lift.conf");
        assert_int_equal(unlink(lift), 0);
        free(lift);
        user_write(f, "game.conf", "[Process]\nClass=utility\n[Limits]\nMaxClass=background\n");
        load(f);
        who(f, &mine, NULL, &m);
        assert_int_equal(m.class, QCLASS_BACKGROUND);
        assert_origin(m.limit_origin, "/.config/qos/apps.d/game.conf", 4);
        assert_true(m.limit_user); /* the user's: theirs alone to see */
}

/* A system file read again for a user's scope says its warnings once; what
 * only the user's merge shows is still said. */
static void test_user_scope_messages_once(void **state) {
        Fixture *f = *state;
        sys_write(f, VENDOR, "app.conf", "[Process]\nClass=bg\nBogus=1\n");
        user_write(f, "app.conf.d/me.conf", "[Process]\nClass=ui\n[Limits]\nMaxClass=utility\n");
        load(f);
        size_t bogus = 0;
        for (size_t i = 0; i < f->diag.n; i++)
                bogus += strstr(f->diag.items[i].message, "unknown key 'Bogus'") != NULL;
        assert_int_equal(bogus, 1);
        const Diag *d = expect_diag(&f->diag, 2, LOG_WARNING, "[Process] Class=user-interactive is above MaxClass=utility");
        assert_non_null(strstr(d->path, "/home/me/.config/qos/apps.d/app.conf.d/me.conf"));
        assert_int_equal(f->diag.n, 2);
        /* Two files, though the system one was read for both scopes. */
        assert_int_equal(ruleset_n_files(f->rs), 2);
        assert_int_equal(ruleset_size(f->rs), 2);
}

static void test_no_rules(void **state) {
        Fixture *f = *state;
        load(f);
        assert_int_equal(ruleset_size(f->rs), 0);
        ProcessInfo p = proc("/usr/bin/foo", NULL, ME);
        MatchResult m;
        memset(&m, 0x5a, sizeof m);
        assert_int_equal(ruleset_match(f->rs, &p, "x", &m), 0);
        assert_int_equal(m.class, QCLASS_UNSPECIFIED);
        assert_int_equal(m.max_class, QCLASS_UNSPECIFIED);
        assert_null(m.app);
        /* Nothing known about the process at all. */
        ProcessInfo empty = { .uid = ME };
        assert_int_equal(ruleset_match(f->rs, &empty, NULL, &m), 0);
}

/* A caller that loads in every process (the preload) gives up before
 * parsing when the system directories hold more files than it can afford. */
static void test_max_entries(void **state) {
        Fixture *f = *state;
        RuleSources src = { .root = f->root, .max_entries = 2 };
        sys_write(f, 0, "a.conf", "[Process]\nClass=background\n");
        sys_write(f, 1, "b.conf", "[Process]\nClass=background\n");
        assert_int_equal(ruleset_load(&src, &f->rs, &f->diag), 0);
        assert_int_equal(ruleset_n_files(f->rs), 2);
        f->rs = ruleset_free(f->rs);
        sys_write(f, 2, "c.conf", "[Process]\nClass=background\n");
        assert_int_equal(ruleset_load(&src, &f->rs, &f->diag), -E2BIG);
        assert_null(f->rs);
        src.max_entries = 0;
        assert_int_equal(ruleset_load(&src, &f->rs, &f->diag), 0);
        assert_int_equal(ruleset_n_files(f->rs), 3);
}

int main(void) {
        const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, setup, teardown)
                T(test_thread_rule_beats_process_rule),
                T(test_executable_specificity),
                T(test_exe_elsewhere),
                T(test_longer_literal_prefix),
                T(test_more_kinds_win),
                T(test_directory_then_name_break_ties),
                T(test_match_keys),
                T(test_app_id), T(test_json_apps),
                T(test_limits),
                T(test_interactive_exemption),
                T(test_masking_and_dropins),
                T(test_broken_files_do_not_spread),
                T(test_user_files_apply_to_their_owner_only),
                T(test_user_masks_and_dropins),
                T(test_user_capped_by_admin),
                T(test_user_scope_messages_once),
                T(test_no_rules),
                T(test_max_entries),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
