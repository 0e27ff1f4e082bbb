/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The constructor: the same rule directories, loader and matcher as qosd
 * (RuleSources with $QOS_ROOT, as qosd's --root), the same facts about the
 * process, then the class for every thread that exists before main().
 * A program no rule matches keeps nothing: the rules are freed and every
 * wrapper passes its call on. */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/kernel-caps.h"
#include "core/log.h"
#include "preload/preload.h"
#include "core/proc.h"
#include "config/rules.h"
#include "core/tree-open.h"

typedef struct PreloadState {
        RuleSet *rules;
        ProcessInfo info;       /* points into the strings below */
        char *exe, *cmdline, *arg0, *cgroup;
        char comm[PROC_COMM_MAX];
        locale_t c_locale;
} PreloadState;

static PreloadState state;
static atomic_bool active;

bool preload_active(void) {
        return atomic_load_explicit(&active, memory_order_acquire);
}

/* qosd matches in the C locale (it never calls setlocale()); so do we,
 * whatever the program set. It also keeps fnmatch() on its single-byte
 * path, which does not allocate. */
QClass preload_verdict(const char *name) {
        MatchResult m;
        locale_t old = uselocale(state.c_locale);
        int r = ruleset_match(state.rules, &state.info, name, &m);
        uselocale(old);
        return r > 0 ? m.class : QCLASS_UNSPECIFIED;
}

static uint64_t now_usec(void) {
        return clock_usec(CLOCK_MONOTONIC);
}

/* The constructor's own CPU time: on a busy machine the wall clock
 * mostly measures waiting for a CPU (a background process waits behind
 * everyone as soon as its class is applied). */
static uint64_t cpu_usec(void) {
        return clock_usec(CLOCK_THREAD_CPUTIME_ID);
}

/* What qosd's process record holds (src/daemon/process-table.c): what
 * cannot be read stays NULL, as there. */
static int read_facts(PreloadState *s) {
        pid_t pid = getpid();
        int r = proc_comm(pid, 0, s->comm);
        if (r < 0)
                return r;
        (void) proc_exe(pid, &s->exe);
        (void) proc_cmdline(pid, &s->cmdline, &s->arg0);
        (void) proc_cgroup(pid, NULL, &s->cgroup);
        s->info = (ProcessInfo) {
                .exe = s->exe,
                .cmdline = s->cmdline,
                .arg0 = s->arg0,
                .comm = s->comm,
                .cgroup = s->cgroup,
                .uid = getuid(),
        };
        return 0;
}

static void state_free(PreloadState *s) {
        ruleset_free(s->rules);
        free(s->exe);
        free(s->cmdline);
        free(s->arg0);
        free(s->cgroup);
        *s = (PreloadState) {};
}

/* qosd reads ~/.config/qos/apps.d of accounts from uid 1000 up (its
 * UserRulesMinUid default), from the passwd entry; we take $HOME rather
 * than ask NSS from inside every program's start-up. */
#define USER_RULES_MIN_UID 1000

/* Every exec'd program loads the rules again: with one file per
 * application at ananicy's scale (20,000 files) that is a third of a
 * second per exec. Above this many files the preload stays out of the way
 * and qosd alone applies the rules; QOS_PRELOAD_MAX_FILES changes it
 * (0: no limit). */
#define DEFAULT_MAX_FILES 1000

static size_t max_files(void) {
        const char *v = secure_getenv("QOS_PRELOAD_MAX_FILES");
        char *end;
        unsigned long n;

        if (!v || !*v)
                return DEFAULT_MAX_FILES;
        errno = 0;
        n = strtoul(v, &end, 10);
        return errno || *end ? DEFAULT_MAX_FILES : (size_t) n;
}

/* The user's files as qosd reads them: only links that stay in $HOME. */
static int open_user_file(uid_t uid, const char *path, int flags, void *userdata) {
        return tree_open_path(userdata, path, flags);
}

static int load_rules(RuleSet **ret) {
        const char *root = secure_getenv("QOS_ROOT"), *home = secure_getenv("HOME");
        _cleanup_free_ char *user_dir = NULL;
        UserRuleDir user = { .uid = getuid() };
        RuleSources src = { .root = root && *root ? root : NULL, .max_entries = max_files() };
        DiagList diag = {};

        if (user.uid >= USER_RULES_MIN_UID && home && home[0] == '/' &&
            asprintf(&user_dir, "%s/.config/qos/" QOS_APPS_SUBDIR, home) >= 0) {
                user.dir = user_dir;
                src.user_dirs = &user;
                src.n_user_dirs = 1;
                src.open_user = open_user_file;
                src.userdata = (void *) home;
        }
        int r = ruleset_load(&src, ret, &diag);
        /* qosd reports broken files; we load the rest and say so only if asked. */
        for (size_t i = 0; i < diag.n && preload_log_enabled(); i++)
                preload_log("%s:%u: %s", diag.items[i].path, diag.items[i].line, diag.items[i].message);
        diag_list_clear(&diag);
        if (r == -E2BIG)
                preload_log("more than %zu rule files: left to qosd (QOS_PRELOAD_MAX_FILES)", src.max_entries);
        return r;
}

/* Threads that exist already: other libraries' constructors may have
 * started some, without our trampoline. */
static void apply_existing_threads(void) {
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0;

        if (proc_list_tasks(getpid(), &tids, &n) < 0)
                n = 0;
        preload_apply(gettid(), true, PRELOAD_EXEC);
        for (size_t i = 0; i < n; i++)
                if (tids[i] != gettid())
                        preload_apply(tids[i], false, PRELOAD_EXEC);
}

static void on_fork_child(void) {
        preload_thread_starts_reset();
        preload_apply(gettid(), true, PRELOAD_FORK);
}

__attribute__((constructor)) static void preload_init(void) {
        int saved = errno;
        uint64_t t0 = now_usec(), cpu0 = cpu_usec();
        MatchResult m = {};

        preload_log_init();
        /* Never a line from the core's own logging into the program's stderr. */
        log_set_max_level(preload_log_enabled() ? LOG_DEBUG : -1);

        (void) load_rules(&state.rules);
        uint64_t t_load = now_usec();
        if (!state.rules || read_facts(&state) < 0 ||
            ruleset_match(state.rules, &state.info, NULL, &m) <= 0) {
                preload_log("%s: no rule (%zu rules from %zu files); total %llu us, cpu %llu us",
                            state.exe ?: state.comm, ruleset_size(state.rules), ruleset_n_files(state.rules),
                            (unsigned long long) (now_usec() - t0), (unsigned long long) (cpu_usec() - cpu0));
                state_free(&state);
                errno = saved;
                return;
        }

        state.c_locale = newlocale(LC_ALL_MASK, "C", (locale_t) 0);
        if (state.c_locale == (locale_t) 0) {
                state_free(&state);
                errno = saved;
                return;
        }
        /* Probe the kernel now, on a throwaway thread like every other
         * caller: qosd may be applying the program's class to this very
         * thread at this moment, and a probe here would both undo part of
         * it and show qosd its passing values (a 3.141 ms slice) as
         * someone else's change. */
        (void) kernel_caps();
        uint64_t t_caps = now_usec();
        atomic_store_explicit(&active, true, memory_order_release);
        if (pthread_atfork(NULL, NULL, on_fork_child) != 0)
                preload_log("pthread_atfork failed: fork() children keep what they inherit");

        apply_existing_threads();
        preload_lend_init();
        preload_log("%s: application %s, %zu rules from %zu files; load %llu us, kernel probe %llu us, "
                    "total %llu us, cpu %llu us",
                    state.exe ?: state.comm, m.app ?: "?", ruleset_size(state.rules),
                    ruleset_n_files(state.rules), (unsigned long long) (t_load - t0),
                    (unsigned long long) (t_caps - t_load), (unsigned long long) (now_usec() - t0),
                    (unsigned long long) (cpu_usec() - cpu0));
        errno = saved;
}
