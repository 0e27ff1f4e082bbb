/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which application describes a process, and what it says for one thread.
 * Candidates come from the indexes (exact executables by hash, globs from
 * a list); every candidate must match all the Match kinds it gives; the
 * most specific one decides, by, in order:
 *   1. the number of Match kinds it gives (each one narrows the set),
 *   2. how its Executable= matched: full path > basename > path glob >
 *      basename glob > none,
 *   3. the literal prefix lengths of the matching patterns, summed,
 *   4. the directory: runtime > admin > vendor,
 *   5. the file name, alphabetically first.
 * Within the deciding application a [Thread:] rule beats [Process]: exact
 * name first, then the glob with the longest literal prefix. */
#include <string.h>

#include "config/ruleset-internal.h"

typedef struct Score {
        unsigned kinds;
        unsigned tier;
        size_t prefix;
        unsigned level;
        uint32_t seq;
} Score;

enum {
        TIER_NONE,
        TIER_NAME_GLOB,
        TIER_PATH_GLOB,
        TIER_NAME,
        TIER_PATH,
};

typedef struct MatchCtx {
        const Scope *scope;
        const ProcessInfo *proc;
        const Scope *shadow;    /* a user scope whose files hide same-named system files */
        const AppRule *best;
        Score best_score;
} MatchCtx;

static int score_cmp(const Score *a, const Score *b) {
        if (a->kinds != b->kinds)
                return a->kinds > b->kinds ? 1 : -1;
        if (a->tier != b->tier)
                return a->tier > b->tier ? 1 : -1;
        if (a->prefix != b->prefix)
                return a->prefix > b->prefix ? 1 : -1;
        if (a->level != b->level)
                return a->level > b->level ? 1 : -1;
        return a->seq < b->seq ? 1 : a->seq > b->seq ? -1 : 0;
}

static const char *basename_of(const char *path) {
        const char *s = path ? strrchr(path, '/') : NULL;
        return s ? s + 1 : path;
}

/* The longest literal prefix among the patterns that match s; -1: none. */
static ssize_t best_pattern(const Pattern *patterns, size_t n, const char *s) {
        ssize_t best = -1;
        for (size_t i = 0; i < n; i++)
                if (glob_match(patterns[i].text, patterns[i].glob, s) && (ssize_t) patterns[i].prefix > best)
                        best = (ssize_t) patterns[i].prefix;
        return best;
}

static const char *process_field(const ProcessInfo *p, MatchKind k) {
        switch (k) {
        case MATCH_COMMAND_LINE:
                return p->cmdline;
        case MATCH_CGROUP:
                return p->cgroup;
        case MATCH_APP_ID:
                return p->app_id;
        default:
                return NULL;
        }
}

static void consider(MatchCtx *ctx, uint32_t index, uint32_t pattern) {
        const AppRule *app = &ctx->scope->apps.items[index];
        Score s = { .level = app->level, .seq = index };

        if (ctx->shadow && conf_layout_find(&ctx->shadow->layout, app->unit))
                return;

        if (app->implicit_match) {
                s.kinds = 1;
                s.tier = TIER_NAME;
                s.prefix = strlen(app->name);
        } else if (pattern != PATTERN_IMPLICIT) {
                size_t n;
                const Pattern *p = &app_rule_patterns(app, MATCH_EXECUTABLE, &n)[pattern];
                s.kinds = 1;
                s.tier = p->path ? (p->glob ? TIER_PATH_GLOB : TIER_PATH) : (p->glob ? TIER_NAME_GLOB : TIER_NAME);
                s.prefix = p->prefix;
        }
        for (MatchKind k = MATCH_COMMAND_LINE; k < _MATCH_KIND_MAX; k++) {
                size_t n;
                const Pattern *patterns = app_rule_patterns(app, k, &n);
                if (n == 0)
                        continue;
                ssize_t prefix = best_pattern(patterns, n, process_field(ctx->proc, k));
                if (prefix < 0)
                        return;
                s.kinds++;
                s.prefix += (size_t) prefix;
        }
        if (!ctx->best || score_cmp(&s, &ctx->best_score) > 0) {
                ctx->best = app;
                ctx->best_score = s;
        }
}

static int consider_cb(uint32_t value, uint32_t aux, void *userdata) {
        consider(userdata, value, aux);
        return 0;
}

static const AppRule *scope_match(const Scope *s, const ProcessInfo *proc, const Scope *shadow) {
        MatchCtx ctx = { .scope = s, .proc = proc, .shadow = shadow };
        const char *exe_name = basename_of(proc->exe);

        /* A path is an identity only where it names the same file as for
         * the rules' author; the name alone is anyone's. */
        if (!proc->exe_elsewhere)
                (void) glob_index_lookup(&s->by_path, proc->exe, consider_cb, &ctx);
        (void) glob_index_lookup(&s->by_name, exe_name, consider_cb, &ctx);
        if (proc->arg0 && (!exe_name || strcmp(proc->arg0, exe_name) != 0))
                (void) glob_index_lookup(&s->by_name, proc->arg0, consider_cb, &ctx);
        for (size_t i = 0; i < s->n_unindexed; i++)
                consider(&ctx, s->unindexed[i], PATTERN_IMPLICIT);
        return ctx.best;
}

static const Scope *user_scope(const RuleSet *rs, uid_t uid) {
        for (size_t i = 1; i < rs->n_scopes; i++)
                if (rs->scopes[i].user && rs->scopes[i].uid == uid)
                        return &rs->scopes[i];
        return NULL;
}

/* The lower of two limits, with where it comes from (user: app is from
 * the owner's own scope). */
static void apply_limit(MatchResult *ret, const AppRule *app, bool user) {
        const ClassSetting *max = app ? app_rule_max(app) : NULL;
        if (!max || max->class == QCLASS_UNSPECIFIED)
                return;
        if (ret->max_class == QCLASS_UNSPECIFIED || max->class < ret->max_class) {
                ret->max_class = max->class;
                ret->limit_origin = app_rule_origin(app, max->origin);
                ret->limit_user = user;
        }
}

int ruleset_match(const RuleSet *rs, const ProcessInfo *proc, const char *thread_name, MatchResult *ret) {
        const AppRule *decide, *system;
        const Scope *user;

        *ret = (MatchResult) {};
        if (!rs || rs->n_scopes == 0)
                return 0;

        system = scope_match(&rs->scopes[0], proc, NULL);
        user = user_scope(rs, proc->uid);
        decide = user ? scope_match(user, proc, NULL) : NULL;
        if (decide)
                ret->user_rule = true;
        else if (user && system && conf_layout_find(&user->layout, system->unit))
                /* The user's same-named file (or mask) hides it for them. */
                decide = scope_match(&rs->scopes[0], proc, user);
        else
                decide = system;

        /* A user's files never lift the system's limit for the process,
         * not even by masking the file that sets it. */
        apply_limit(ret, decide, ret->user_rule);
        if (user)
                apply_limit(ret, system, false);
        if (!decide) {
                if (ret->max_class == QCLASS_UNSPECIFIED)
                        return 0;
                ret->app = system->name;
                return 1;
        }

        const ThreadRule *t = thread_name ? app_rule_match_thread(decide, thread_name) : NULL;
        const ClassSetting *c = t ? &t->class : &decide->process;
        ret->app = decide->name;
        ret->interactive_exempt = app_rule_interactive_exempt(decide);
        ret->thread_rule = t != NULL;
        ret->requested = c->class;
        ret->origin = app_rule_origin(decide, c->origin);
        ret->class = c->class;
        if (ret->max_class != QCLASS_UNSPECIFIED && ret->class > ret->max_class)
                ret->class = ret->max_class;
        return 1;
}
