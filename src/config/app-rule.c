/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "config/app-rule.h"
#include "core/macro.h"

/* The kernel's TASK_COMM_LEN is 16 with the terminating NUL. */
#define THREAD_NAME_MAX 15

static const char *const kind_names[_MATCH_KIND_MAX] = {
        [MATCH_EXECUTABLE] = "Executable",
        [MATCH_COMMAND_LINE] = "CommandLine",
        [MATCH_CGROUP] = "Cgroup",
        [MATCH_APP_ID] = "AppId",
};

const char *match_kind_to_string(MatchKind k) {
        return k < _MATCH_KIND_MAX ? kind_names[k] : NULL;
}

int app_rule_init(AppRule *app, RuleStore *store, const char *name, const char *unit, RuleOrigin origin) {
        *app = (AppRule) { .unit = unit, .store = store };
        app->name = arena_strdup(store->arena, name);
        if (!app->name)
                return -ENOMEM;
        return rule_store_line(store, origin, &app->origin);
}

int app_rule_line(AppRule *app, RuleOrigin origin, SourceLine *ret) {
        return rule_store_line(app->store, origin, ret);
}

RuleOrigin app_rule_origin(const AppRule *app, SourceLine l) {
        return rule_store_origin(app->store, l);
}

void app_rule_done(AppRule *app) {
        if (!app->packed) {
                free(app->patterns);
                free(app->threads);
        }
        if (app->extra && app->extra->thread_index)
                glob_index_done(app->extra->thread_index);
        *app = (AppRule) {};
}

static int pattern_init(AppRule *app, Pattern *p, const char *text, RuleOrigin origin) {
        size_t len = strlen(text);
        if (len > UINT32_MAX)
                return -E2BIG;
        p->text = arena_strdup(app->store->arena, text);
        if (!p->text)
                return -ENOMEM;
        p->glob = glob_is_pattern(text);
        p->prefix = (uint32_t) (p->glob ? glob_literal_prefix(text) : len);
        p->path = strchr(text, '/') != NULL;
        return app_rule_line(app, origin, &p->origin);
}

/* Room for one more after n items. The arrays grow while files are read
 * and are packed at finalize, so they double at each power of two, a
 * capacity that needs no field of its own (and may be more after a reset
 * emptied a list, which only leaves more room). */
static int grow(void **items, size_t n, size_t size) {
        if (n > 0 && (n & (n - 1)) != 0)
                return 0;
        void *p = reallocarray(*items, n > 0 ? 2 * n : 1, size);
        if (!p)
                return -ENOMEM;
        *items = p;
        return 0;
}

/* Where kind's group starts in the patterns (kind _MATCH_KIND_MAX: the end). */
static size_t kind_start(const AppRule *app, MatchKind kind) {
        size_t start = 0;
        for (MatchKind k = 0; k < kind; k++)
                start += app->n_match[k];
        return start;
}

static size_t n_patterns(const AppRule *app) {
        return kind_start(app, _MATCH_KIND_MAX);
}

int app_rule_add_match(AppRule *app, MatchKind kind, const char *value, RuleOrigin origin) {
        size_t start = kind_start(app, kind), end = start + app->n_match[kind];
        size_t total = n_patterns(app);
        Pattern p;
        int r;

        if (!*value) {
                if (end > start)
                        memmove(app->patterns + start, app->patterns + end, (total - end) * sizeof(Pattern));
                app->n_match[kind] = 0;
                return 0;
        }
        if (app->n_match[kind] == UINT16_MAX)
                return -E2BIG;
        r = pattern_init(app, &p, value, origin);
        if (r < 0)
                return r;
        r = grow((void **) &app->patterns, total, sizeof(Pattern));
        if (r < 0)
                return r;
        Pattern *items = app->patterns;
        memmove(items + end + 1, items + end, (total - end) * sizeof *items);
        items[end] = p;
        app->n_match[kind]++;
        return 0;
}

const Pattern *app_rule_patterns(const AppRule *app, MatchKind kind, size_t *n) {
        *n = app->n_match[kind];
        return *n > 0 ? app->patterns + kind_start(app, kind) : NULL;
}

int app_rule_extra(AppRule *app, AppRuleExtra **ret) {
        if (!app->extra) {
                app->extra = arena_alloc(app->store->arena, sizeof *app->extra, alignof(AppRuleExtra));
                if (!app->extra)
                        return -ENOMEM;
                *app->extra = (AppRuleExtra) {};
        }
        *ret = app->extra;
        return 0;
}

const ClassSetting *app_rule_max(const AppRule *app) {
        static const ClassSetting unset = { .class = QCLASS_UNSPECIFIED };
        return app->extra ? &app->extra->max : &unset;
}

bool app_rule_interactive_exempt(const AppRule *app) {
        return app->extra && app->extra->interactive_exempt;
}

int app_rule_set_class(AppRule *app, ClassSetting *c, QClass class, RuleOrigin origin) {
        int r = app_rule_line(app, origin, &c->origin);
        if (r < 0)
                return r;
        c->class = class;
        return 0;
}

int app_rule_thread(AppRule *app, const char *glob, RuleOrigin section, ThreadRule **ret) {
        for (size_t i = 0; i < app->n_threads; i++)
                if (strcmp(app->threads[i].name.text, glob) == 0) {
                        *ret = &app->threads[i];
                        return 0;
                }

        if (app->n_threads == UINT32_MAX)
                return -E2BIG;
        int r = grow((void **) &app->threads, app->n_threads, sizeof(ThreadRule));
        if (r < 0)
                return r;
        ThreadRule *t = &app->threads[app->n_threads];
        *t = (ThreadRule) {};
        r = pattern_init(app, &t->name, glob, section);
        if (r < 0)
                return r;
        app->n_threads++;
        *ret = t;
        return 0;
}

static const GlobIndex *thread_index_of(const AppRule *app) {
        return app->extra ? app->extra->thread_index : NULL;
}

/* thread: NULL for [Process]. */
static int check_cap(const AppRule *app, const ClassSetting *c, const char *thread, DiagList *diag) {
        const ClassSetting *max = app_rule_max(app);
        if (max->class == QCLASS_UNSPECIFIED || c->class <= max->class)
                return 0;
        RuleOrigin at = app_rule_origin(app, c->origin), limit = app_rule_origin(app, max->origin);
        return diag_add(diag, LOG_WARNING, at.path, at.line, "[%s%s] Class=%s is above MaxClass=%s (%s:%u); it gets %s",
                        thread ? "Thread:" : "Process", thread ? thread : "", qclass_to_string(c->class),
                        qclass_to_string(max->class), limit.path, limit.line, qclass_to_string(max->class));
}

/* A copy of the array in the arena, exactly sized, and the heap's one
 * freed: arrays grow with room to spare while files are read (grow()),
 * and are never changed once the rule is finalized. */
static int pack_array(Arena *arena, void **items, size_t n, size_t size, size_t align) {
        if (n == 0) {
                free(*items); /* what a reset emptied */
                *items = NULL;
                return 0;
        }
        void *packed = arena_alloc(arena, n * size, align);
        if (!packed)
                return -ENOMEM;
        memcpy(packed, *items, n * size);
        free(*items);
        *items = packed;
        return 0;
}

static int pack(AppRule *app) {
        int r;
        if (app->packed)
                return 0;
        if ((r = pack_array(app->store->arena, (void **) &app->patterns, n_patterns(app), sizeof(Pattern),
                            alignof(Pattern))) < 0)
                return r;
        if ((r = pack_array(app->store->arena, (void **) &app->threads, app->n_threads, sizeof(ThreadRule),
                            alignof(ThreadRule))) < 0)
                return r;
        app->packed = true;
        return 0;
}

static int build_thread_index(AppRule *app) {
        AppRuleExtra *extra;
        GlobIndex *index;
        int r;

        r = app_rule_extra(app, &extra);
        if (r < 0)
                return r;
        index = arena_alloc(app->store->arena, sizeof *index, alignof(GlobIndex));
        if (!index)
                return -ENOMEM;
        *index = (GlobIndex) {};
        extra->thread_index = index; /* from here on app_rule_done() frees what it holds */
        for (uint32_t i = 0; i < app->n_threads; i++)
                if (app->threads[i].class.class != QCLASS_UNSPECIFIED &&
                    (r = glob_index_add(index, app->threads[i].name.text, i, 0)) < 0)
                        return r;
        return glob_index_build(index);
}

int app_rule_finalize(AppRule *app, DiagList *diag) {
        bool says_something = app->process.class != QCLASS_UNSPECIFIED || app_rule_max(app)->class != QCLASS_UNSPECIFIED;
        int r;

        app->implicit_match = n_patterns(app) == 0;

        r = check_cap(app, &app->process, NULL, diag);
        if (r < 0)
                return r;

        for (size_t i = 0; i < app->n_threads; i++) {
                ThreadRule *t = &app->threads[i];
                RuleOrigin o = app_rule_origin(app, t->name.origin);

                if (t->class.class == QCLASS_UNSPECIFIED) {
                        r = diag_add(diag, LOG_WARNING, o.path, o.line,
                                     "[Thread:%s] sets no Class=; section ignored", t->name.text);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (!t->name.glob && strlen(t->name.text) > THREAD_NAME_MAX) {
                        r = diag_add(diag, LOG_WARNING, o.path, o.line,
                                     "thread names have at most %d characters; [Thread:%s] never matches",
                                     THREAD_NAME_MAX, t->name.text);
                        if (r < 0)
                                return r;
                }
                r = check_cap(app, &t->class, t->name.text, diag);
                if (r < 0)
                        return r;
                says_something = true;
        }

        if (!says_something) {
                RuleOrigin o = app_rule_origin(app, app->origin);
                r = diag_add(diag, LOG_WARNING, o.path, o.line,
                             "%s sets no Class= and no MaxClass=; it changes nothing", app->name);
                if (r < 0)
                        return r;
        }
        r = pack(app);
        if (r < 0)
                return r;
        return app_rule_n_thread_rules(app) >= THREAD_INDEX_MIN && !thread_index_of(app) ? build_thread_index(app) : 0;
}

static int first_thread(uint32_t value, uint32_t aux, void *userdata) {
        *(uint32_t *) userdata = value;
        return 1;
}

/* What the index would answer, by scanning: an exact name first (the first
 * one given), then the glob with the longest literal prefix (the first of
 * equals). */
static const ThreadRule *scan_threads(const AppRule *app, const char *thread_name) {
        const ThreadRule *best = NULL;
        for (uint32_t i = 0; i < app->n_threads; i++) {
                const ThreadRule *t = &app->threads[i];
                if (t->class.class == QCLASS_UNSPECIFIED || !glob_match(t->name.text, t->name.glob, thread_name))
                        continue;
                if (!t->name.glob)
                        return t;
                if (!best || t->name.prefix > best->name.prefix)
                        best = t;
        }
        return best;
}

const ThreadRule *app_rule_match_thread(const AppRule *app, const char *thread_name) {
        uint32_t i;
        if (!thread_name)
                return NULL;
        const GlobIndex *index = thread_index_of(app);
        if (!index)
                return scan_threads(app, thread_name);
        if (glob_index_lookup(index, thread_name, first_thread, &i) <= 0)
                return NULL;
        return &app->threads[i];
}

size_t app_rule_n_thread_rules(const AppRule *app) {
        size_t n = 0;
        for (uint32_t i = 0; i < app->n_threads; i++)
                n += app->threads[i].class.class != QCLASS_UNSPECIFIED;
        return n;
}

int parse_class_value(const char *key, const char *value, RuleOrigin origin, DiagList *diag, QClass *ret) {
        int c = qclass_from_string(value);
        if (c < 0 || !qclass_is_valid(c)) {
                int r = diag_add(diag, LOG_ERR, origin.path, origin.line, "invalid class '%s' for %s; valid: %s",
                                 value, key, qclass_valid_names());
                return r < 0 ? r : -EINVAL;
        }
        *ret = (QClass) c;
        return 0;
}

int app_rule_list_push(AppRuleList *l, const char *name, const char *unit, RuleOrigin origin, AppRule **ret) {
        if (!l->store && !(l->store = rule_store_new()))
                return -ENOMEM;
        /* One at a time: a large array is moved by mremap(), and an exact
         * size wastes nothing in a list that is never shrunk. */
        AppRule *items = reallocarray(l->items, l->n + 1, sizeof *items);
        if (!items)
                return -ENOMEM;
        l->items = items;
        int r = app_rule_init(&items[l->n], l->store, name, unit, origin);
        if (r < 0)
                return r;
        *ret = &items[l->n++];
        return 0;
}

void app_rule_list_pop(AppRuleList *l) {
        if (l->n > 0)
                app_rule_done(&l->items[--l->n]);
}

void app_rule_list_done(AppRuleList *l) {
        for (size_t i = 0; i < l->n; i++)
                app_rule_done(&l->items[i]);
        free(l->items);
        rule_store_free(l->store);
        *l = (AppRuleList) {};
}
