/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* decide(): the verdict on a thread, case by case, from rule files on
 * disk, a thread's settings and qosd's record of it, as a table. No root:
 * nothing here touches a task. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "config/rules.h"
#include "core/class-table.h"
#include "decide/decide.h"
#include "qos-config.h"
#include "test-tree.h"

#define ME 1000
#define UI QCLASS_USER_INTERACTIVE
#define UIN QCLASS_USER_INITIATED
#define UT QCLASS_UTILITY
#define BG QCLASS_BACKGROUND
#define NOCLASS QCLASS_UNSPECIFIED

/* The admin's rules every case runs against. */
static const char *const rules[][2] = {
        { "bg.conf", "[Match]\nExecutable=/usr/bin/indexer\n[Process]\nClass=background\n" },
        { "ui.conf", "[Match]\nExecutable=/usr/bin/editor\n[Process]\nClass=user-interactive\n" },
        { "exempt.conf", "[Match]\nExecutable=/usr/bin/mixer\n[Process]\nClass=user-interactive\n"
                         "[Limits]\nAllowInteractiveInBackground=yes\n" },
        { "capped.conf", "[Match]\nExecutable=/usr/bin/greedy\n[Process]\nClass=user-interactive\n"
                         "[Limits]\nMaxClass=utility\n" },
        { "threads.conf", "[Match]\nExecutable=/usr/bin/player\n[Thread:audio-*]\nClass=user-initiated\n" },
        { "capgame.conf", "[Match]\nExecutable=/usr/bin/capgame\n[Limits]\nMaxClass=background\n" },
};

typedef enum Now {
        NOW_DEFAULT,            /* what a thread has without anyone's class */
        NOW_AS_ENTRY,           /* what qosd set (entry.class's settings) */
        NOW_RENICED,            /* what qosd set, then reniced to 7 by someone else */
        NOW_FIFO,               /* real-time */
        NOW_UI,                 /* user-interactive's settings (the preload put it there) */
} Now;

typedef struct Case {
        const char *name;
        const char *exe, *thread;
        bool outside;           /* the gate holds user-interactive */
        bool game;              /* the main thread of a game gamemode runs */
        bool audio;             /* its process plays audio */
        bool has_entry;
        TaskState state;
        QClass entry_class;
        Now now;
        ForeignPolicy on_foreign;
        /* expected */
        Action action;
        QClass class, wanted;
        bool held, capped, reclaim, newly_foreign;
} Case;

static const Case cases[] = {
        { "no rule, never touched", "/usr/bin/other", "other", .action = ACTION_NONE },
        { "a game no rule names: its main thread user-initiated", "/usr/bin/other", "other", .game = true,
          .action = ACTION_APPLY, .class = UIN, .wanted = UIN },
        { "a game its rule puts in background stays there", "/usr/bin/indexer", "indexer", .game = true,
          .action = ACTION_APPLY, .class = BG, .wanted = BG },
        { "a game whose MaxClass= is background", "/usr/bin/capgame", "capgame", .game = true,
          .action = ACTION_APPLY, .class = BG, .wanted = UIN, .capped = true },
        { "a game that ended: its main thread back", "/usr/bin/other", "other", .has_entry = true,
          .state = TASK_APPLIED, .entry_class = UIN, .now = NOW_AS_ENTRY, .action = ACTION_RESTORE },
        { "application matches, but no Class= for this thread", "/usr/bin/player", "player",
          .action = ACTION_NONE },
        { "thread rule of that application", "/usr/bin/player", "audio-out",
          .action = ACTION_APPLY, .class = UIN, .wanted = UIN },
        { "new thread of a matched program", "/usr/bin/indexer", "indexer",
          .action = ACTION_APPLY, .class = BG, .wanted = BG },
        { "already in its class", "/usr/bin/indexer", "indexer", .has_entry = true, .state = TASK_APPLIED,
          .entry_class = BG, .now = NOW_AS_ENTRY, .action = ACTION_UNCHANGED, .class = BG, .wanted = BG },
        { "the rule changed (a reload)", "/usr/bin/editor", "editor", .has_entry = true, .state = TASK_APPLIED,
          .entry_class = BG, .now = NOW_AS_ENTRY, .action = ACTION_APPLY, .class = UI, .wanted = UI },
        { "user-interactive in front", "/usr/bin/editor", "editor",
          .action = ACTION_APPLY, .class = UI, .wanted = UI },
        { "user-interactive held outside the foreground", "/usr/bin/editor", "editor", .outside = true,
          .action = ACTION_APPLY, .class = UT, .wanted = UI, .held = true },
        { "held, the preload had made it user-interactive", "/usr/bin/editor", "editor", .outside = true,
          .has_entry = true, .state = TASK_APPLIED, .entry_class = UT, .now = NOW_UI,
          .action = ACTION_APPLY, .class = UT, .wanted = UI, .held = true },
        { "held, but playing audio: at user-initiated", "/usr/bin/editor", "editor", .outside = true,
          .audio = true, .action = ACTION_APPLY, .class = UIN, .wanted = UI, .held = true },
        { "playing audio in front: user-interactive", "/usr/bin/editor", "editor", .audio = true,
          .action = ACTION_APPLY, .class = UI, .wanted = UI },
        { "playing audio lifts no other class", "/usr/bin/indexer", "indexer", .outside = true, .audio = true,
          .action = ACTION_APPLY, .class = BG, .wanted = BG },
        { "playing audio with no rule: nothing", "/usr/bin/other", "other", .outside = true, .audio = true,
          .action = ACTION_NONE },
        { "AllowInteractiveInBackground= exempts from the gate", "/usr/bin/mixer", "mixer", .outside = true,
          .action = ACTION_APPLY, .class = UI, .wanted = UI },
        { "MaxClass= caps the rule", "/usr/bin/greedy", "greedy",
          .action = ACTION_APPLY, .class = UT, .wanted = UI, .capped = true },
        { "the program asked qosd: its request stands", "/usr/bin/indexer", "indexer", .has_entry = true,
          .state = TASK_REQUESTED, .entry_class = UIN, .now = NOW_AS_ENTRY,
          .action = ACTION_KEEP_REQUEST, .class = BG, .wanted = BG },
        { "no rule any more: back to the original", "/usr/bin/other", "other", .has_entry = true,
          .state = TASK_APPLIED, .entry_class = BG, .now = NOW_AS_ENTRY, .action = ACTION_RESTORE },
        { "someone else's since earlier, no rule any more: forgotten", "/usr/bin/other", "other",
          .has_entry = true, .state = TASK_FOREIGN, .entry_class = BG, .now = NOW_RENICED,
          .action = ACTION_RESTORE },
        { "inherited, no rule: goes with its creator", "/usr/bin/other", "other", .has_entry = true,
          .state = TASK_INHERITED, .entry_class = BG, .now = NOW_AS_ENTRY, .action = ACTION_NONE },
        { "real-time: never touched", "/usr/bin/indexer", "indexer", .now = NOW_FIFO,
          .action = ACTION_SKIP_REALTIME, .class = BG, .wanted = BG },
        { "real-time after qosd: never touched", "/usr/bin/indexer", "indexer", .has_entry = true,
          .state = TASK_APPLIED, .entry_class = BG, .now = NOW_FIFO,
          .action = ACTION_SKIP_REALTIME, .class = BG, .wanted = BG },
        { "reniced by someone else: left alone", "/usr/bin/indexer", "indexer", .has_entry = true,
          .state = TASK_APPLIED, .entry_class = BG, .now = NOW_RENICED,
          .action = ACTION_FOREIGN, .class = BG, .wanted = BG, .newly_foreign = true },
        { "someone else's, ForeignChange=leave", "/usr/bin/indexer", "indexer", .has_entry = true,
          .state = TASK_FOREIGN, .entry_class = BG, .now = NOW_RENICED, .on_foreign = FOREIGN_LEAVE,
          .action = ACTION_LEAVE_FOREIGN, .class = BG, .wanted = BG },
        { "someone else's, ForeignChange=reapply", "/usr/bin/indexer", "indexer", .has_entry = true,
          .state = TASK_FOREIGN, .entry_class = BG, .now = NOW_RENICED, .on_foreign = FOREIGN_REAPPLY,
          .action = ACTION_APPLY, .class = BG, .wanted = BG, .reclaim = true },
        { "reniced just now, ForeignChange=reapply: said, then taken back", "/usr/bin/indexer", "indexer",
          .has_entry = true, .state = TASK_APPLIED, .entry_class = BG, .now = NOW_RENICED,
          .on_foreign = FOREIGN_REAPPLY, .action = ACTION_APPLY, .class = BG, .wanted = BG, .reclaim = true,
          .newly_foreign = true },
};

static RuleSet *rs;
static char *root;

static int setup(void **state) {
        RuleSources src;
        DiagList diag = {};
        root = tree_new();
        for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
                char *rel;
                assert_true(asprintf(&rel, "%s/%s/%s", QOS_ADMIN_DIR + 1, QOS_APPS_SUBDIR, rules[i][0]) > 0);
                tree_write(root, rel, rules[i][1]);
                free(rel);
        }
        src = (RuleSources) { .root = root };
        assert_int_equal(ruleset_load(&src, &rs, &diag), 0);
        /* Only what the loader says of the capped rule itself. */
        assert_int_equal(diag.n, 1);
        expect_diag(&diag, 4, LOG_WARNING, "above MaxClass=utility");
        diag_list_clear(&diag);
        return 0;
}

static int teardown(void **state) {
        ruleset_free(rs);
        tree_remove(root);
        return 0;
}

/* A kernel with every per-thread knob but uclamp and the groups, as
 * this one: what the table compares is then what the test sets. */
static KernelCaps caps(void) {
        KernelCaps c = {};
        c.supported[KNOB_POLICY] = c.supported[KNOB_NICE] = c.supported[KNOB_SLICE] = true;
        c.supported[KNOB_IOPRIO] = c.supported[KNOB_TIMER_SLACK] = true;
        return c;
}

static TaskAttr attr_for(Now now, QClass entry_class, const KernelCaps *kc) {
        TaskAttr a = {};
        class_target_attr(QCLASS_UTILITY, kc, &a); /* what utility is, as a thread has it by default */
        a.reset_on_fork = false;
        switch (now) {
        case NOW_DEFAULT:
                break;
        case NOW_AS_ENTRY:
                class_target_attr(entry_class, kc, &a);
                break;
        case NOW_RENICED:
                class_target_attr(entry_class, kc, &a);
                a.nice = 7;
                break;
        case NOW_FIFO:
                a.policy = SCHED_FIFO;
                break;
        case NOW_UI:
                class_target_attr(QCLASS_USER_INTERACTIVE, kc, &a);
                break;
        }
        return a;
}

static void test_table(void **state) {
        const KernelCaps kc = caps();
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                const Case *c = &cases[i];
                const char *slash = strrchr(c->exe, '/');
                ProcessRecord p = { .pid = 4242, .exe = (char *) c->exe, .arg0 = (char *) slash + 1,
                                    .cmdline = (char *) c->exe, .comm = (char *) slash + 1,
                                    .cgroup = (char *) "/user.slice", .uid = ME };
                TaskEntry e = { .tid = 4243, .tgid = 4242, .state = c->state, .class = c->entry_class };
                TaskAttr now = attr_for(c->now, c->entry_class, &kc);
                class_target_attr(c->entry_class ?: QCLASS_UTILITY, &kc, &e.set);
                ThreadFacts f = { .rules = rs, .process = &p, .thread_name = c->thread,
                                  .outside_foreground = c->outside, .playing_audio = c->audio,
                                  .game_main = c->game, .now = &now,
                                  .entry = c->has_entry ? &e : NULL, .on_foreign = c->on_foreign, .caps = &kc };
                Verdict v;

                print_message("case: %s\n", c->name);
                assert_int_equal(decide(&f, &v), 0);
                if (v.action != c->action)
                        fail_msg("%s: %s, expected %s", c->name, action_to_string(v.action),
                                 action_to_string(c->action));
                assert_int_equal(v.rule.class, c->class);
                assert_int_equal(v.rule.held, c->held);
                assert_int_equal(v.rule.capped, c->capped);
                assert_int_equal(v.reclaim, c->reclaim);
                assert_int_equal(v.newly_foreign, c->newly_foreign);
                if (c->class != NOCLASS)
                        assert_int_equal(v.rule.wanted, c->wanted);
                if (v.action == ACTION_APPLY || v.action == ACTION_UNCHANGED) {
                        TaskAttr want;
                        class_target_attr(c->class, &kc, &want);
                        assert_int_equal(task_attr_diff(&v.want, &want, KNOBS_ALL), 0);
                }
        }
}

static bool count_and_hold(const void *userdata, pid_t pid) {
        (*(unsigned *) userdata)++;
        return true;
}

/* Counted in hundreds, beside the gate's ones. */
static bool count_and_play_nothing(const void *userdata, pid_t pid) {
        *(unsigned *) userdata += 100;
        return false;
}

/* The gate is asked only when a rule says user-interactive, and whether
 * the process plays audio only when the gate holds it: both may read
 * /proc, and most verdicts are for other classes. */
static void test_gate_asked_only_for_user_interactive(void **state) {
        const KernelCaps kc = caps();
        unsigned asked = 0;
        ProcessRecord bg = { .pid = 10, .exe = (char *) "/usr/bin/indexer", .arg0 = (char *) "indexer",
                             .cmdline = (char *) "/usr/bin/indexer", .comm = (char *) "indexer",
                             .cgroup = (char *) "/", .uid = ME };
        ProcessRecord ui = bg;
        ui.exe = ui.cmdline = (char *) "/usr/bin/editor";
        ui.arg0 = ui.comm = (char *) "editor";
        ThreadFacts f = { .rules = rs, .process = &bg, .thread_name = "indexer", .caps = &kc,
                          .holds_interactive = count_and_hold, .plays_audio = count_and_play_nothing,
                          .holds_userdata = &asked };
        Decision d;

        assert_true(decide_rule(&f, &d) > 0);
        assert_int_equal(d.class, QCLASS_BACKGROUND);
        assert_int_equal(asked, 0);
        f.process = &ui;
        f.thread_name = "editor";
        assert_true(decide_rule(&f, &d) > 0);
        assert_int_equal(asked, 101);
        assert_int_equal(d.class, QCLASS_UTILITY);
        assert_true(d.held);
}

/* Every action has words for qosctl explain. */
static void test_every_action_says_why(void **state) {
        for (Action a = 0; a < _ACTION_MAX; a++)
                assert_string_not_equal(action_to_string(a), "?");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table),
                cmocka_unit_test(test_gate_asked_only_for_user_interactive),
                cmocka_unit_test(test_every_action_says_why),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
