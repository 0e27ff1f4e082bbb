/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/bpf-scheduler.h"
#include "broker/broker.h"
#include "core/log.h"
#include "core/macro.h"
#include "reload/reload.h"
#include "engine/scan.h"


/* Loading frees its temporaries (directory listings, file texts, parser
 * state) between the pages the rule set keeps; 20,000 rule files leave
 * megabytes of such holes. Hand the free pages back rather than keep the
 * load's peak for the daemon's lifetime. */
static void release_load_memory(void) {
        (void) malloc_trim(0);
}

/* What the loader reads: the system directories and the users' of the
 * last listing, each user within the limits of qosd.conf. */
static void sources(const Manager *m, RuleSources *ret) {
        user_dirs_sources(&m->user_dirs, m->root, ret);
        ret->user_limits = (UserLimits) {
                .max_files = m->settings.user_rules_max_files,
                .max_rules = m->settings.user_rules_max_rules,
                .max_bytes = (size_t) m->settings.user_rules_max_bytes,
        };
}

static void log_diags(const DiagList *diag) {
        for (size_t i = 0; i < diag->n; i++)
                log_full_errno(diag->items[i].level, 0, "%s:%u: %s", diag->items[i].path,
                               diag->items[i].line, diag->items[i].message);
}

int reload_rules(Manager *m, bool initial) {
        RuleSources src;
        DiagList diag = {};
        RuleSet *rs = NULL;
        int r;

        /* The one setting a reload reads again: the scheduler, which an
         * administrator may want to take away without stopping qosd.
         * First, so that a rule file with errors does not hold it up. */
        if (!initial)
                bpf_scheduler_reload(m);
        if (m->settings.user_rules && !m->user_rules_off) {
                r = user_dirs_collect(&m->user_dirs, m->settings.user_rules_min_uid);
                if (r < 0)
                        log_warning_errno(r, "cannot list the users' rule directories: %m");
        } else
                user_dirs_free(&m->user_dirs);
        sources(m, &src);
        /* Watch anew before reading, not after: a change made while the
         * directories are read then comes as an event and reloads again,
         * where one made before new watches replaced the old would be
         * lost with the old watches' queue. This load reads every user's
         * directory too: their pending reloads have nothing left to do.
         * Users may have come or gone. */
        if (!initial)
                reload_watch_refresh(m);

        r = ruleset_load(&src, &rs, &diag);
        if (r < 0) {
                diag_list_clear(&diag);
                m->counters.reload_failures++;
                (void) reload_status_failed(&m->last_reload, strerror(-r));
                return log_error_errno(r, "loading rules failed: %m");
        }
        log_diags(&diag);

        /* Errors in the system directories reject a reload. A user's
         * broken file is skipped like at start: it must not let any user
         * block the administrator's reloads. */
        size_t errors = diag_list_count(&diag, LOG_ERR);
        if (reload_status_set(&m->last_reload, &diag, &m->user_dirs, rs) < 0)
                log_error("cannot keep the reload's messages: out of memory");
        if (reload_status_system_errors(&diag, &m->user_dirs) > 0 && !initial) {
                diag_list_clear(&diag);
                ruleset_free(rs);
                release_load_memory();
                m->counters.reload_failures++;
                log_error("reload: %zu error(s); keeping the %zu rules loaded before", errors,
                          m->rules ? ruleset_size(m->rules) : 0);
                return -EINVAL;
        }

        RuleSet *old = m->rules;
        m->rules = rs;
        ruleset_free(old);
        m->counters.reloads++;
        diag_list_clear(&diag);
        release_load_memory();
        log_info("rules: %zu loaded%s", ruleset_size(rs),
                 errors ? " (files with errors skipped)" : "");

        /* The registry outlives the swap: entries copy their origin text. */
        if (initial)
                return 0;
        r = scan_all(m, "rules reloaded");
        broker_reevaluate(m, "the rules changed (MaxClass)");
        return r;
}

int reload_user_rules(Manager *m, uid_t uid) {
        RuleSources src;
        DiagList diag = {};
        bool known = false;
        int r;

        for (size_t i = 0; i < m->user_dirs.n && !known; i++)
                known = m->user_dirs.dirs[i].uid == uid;
        if (!m->rules || !known)
                return 0; /* its directory is gone since the last full load */
        sources(m, &src);
        r = ruleset_reload_user(m->rules, &src, uid, &diag);
        log_diags(&diag);
        if (r >= 0 && reload_status_set_user(&m->last_reload, uid, &diag, &m->user_dirs,
                                             ruleset_user_size(m->rules, uid)) < 0)
                log_error("cannot keep the messages of uid %u's reload: out of memory", (unsigned) uid);
        diag_list_clear(&diag);
        release_load_memory();
        if (r < 0)
                return log_error_errno(r, "reloading the rules of uid %u failed: %m", (unsigned) uid);
        m->counters.user_reloads++;
        log_info("rules of uid %u reloaded: %zu rules of theirs, %zu in all", (unsigned) uid,
                 ruleset_user_size(m->rules, uid), ruleset_size(m->rules));
        r = scan_user(m, uid, "the user's rules reloaded");
        broker_reevaluate(m, "the rules changed (MaxClass)");
        return r;
}

