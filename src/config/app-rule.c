/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "app-rule.h"
#include "macro.h"

/* The kernel's TASK_COMM_LEN is 16 with the terminating NUL. */
#define THREAD_NAME_MAX 15

static const char *const kind_names[_MATCH_KIND_MAX] = {
        [MATCH_EXECUTABLE] = "Executable",
        [MATCH_COMMAND_LINE] = "CommandLine",
        [MATCH_CGROUP] = "Cgroup",
};

const char *match_kind_to_string(MatchKind k) {
        return k < _MATCH_KIND_MAX ? kind_names[k] : NULL;
}

int app_rule_init(AppRule *app, const char *name, const char *unit, RuleOrigin origin) {
        *app = (AppRule) { .unit = unit, .origin = origin };
        app->name = strdup(name);
        return app->name ? 0 : -ENOMEM;
}

static void pattern_list_clear(PatternList *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->items[i].text);
        free(l->items);
        *l = (PatternList) {};
}

void app_rule_done(AppRule *app) {
        free(app->name);
        for (MatchKind k = 0; k < _MATCH_KIND_MAX; k++)
                pattern_list_clear(&app->match[k]);
        for (size_t i = 0; i < app->n_threads; i++)
                free(app->threads[i].name.text);
        free(app->threads);
        glob_index_done(&app->thread_index);
        *app = (AppRule) {};
}

static int pattern_init(Pattern *p, const char *text, RuleOrigin origin) {
        p->text = strdup(text);
        if (!p->text)
                return -ENOMEM;
        p->glob = glob_is_pattern(text);
        p->prefix = p->glob ? glob_literal_prefix(text) : strlen(text);
        p->path = strchr(text, '/') != NULL;
        p->origin = origin;
        return 0;
}

int app_rule_add_match(AppRule *app, MatchKind kind, const char *value, RuleOrigin origin) {
        PatternList *l = &app->match[kind];

        if (!*value) {
                pattern_list_clear(l);
                return 0;
        }
        Pattern *items = reallocarray(l->items, l->n + 1, sizeof *items);
        if (!items)
                return -ENOMEM;
        l->items = items;
        int r = pattern_init(&l->items[l->n], value, origin);
        if (r < 0)
                return r;
        l->n++;
        return 0;
}

void app_rule_set_class(ClassSetting *c, QClass class, RuleOrigin origin) {
        c->class = class;
        c->origin = origin;
}

int app_rule_thread(AppRule *app, const char *glob, RuleOrigin section, ThreadRule **ret) {
        for (size_t i = 0; i < app->n_threads; i++)
                if (strcmp(app->threads[i].name.text, glob) == 0) {
                        *ret = &app->threads[i];
                        return 0;
                }

        ThreadRule *t = reallocarray(app->threads, app->n_threads + 1, sizeof *t);
        if (!t)
                return -ENOMEM;
        app->threads = t;
        t = &app->threads[app->n_threads];
        *t = (ThreadRule) {};
        int r = pattern_init(&t->name, glob, section);
        if (r < 0)
                return r;
        app->n_threads++;
        *ret = t;
        return 0;
}

/* thread: NULL for [Process]. */
static int check_cap(const AppRule *app, const ClassSetting *c, const char *thread, DiagList *diag) {
        if (app->max.class == QCLASS_UNSPECIFIED || c->class <= app->max.class)
                return 0;
        return diag_add(diag, LOG_WARNING, c->origin.path, c->origin.line,
                        "[%s%s] Class=%s is above MaxClass=%s (%s:%u); it gets %s", thread ? "Thread:" : "Process",
                        thread ? thread : "",
                        qclass_to_string(c->class), qclass_to_string(app->max.class), app->max.origin.path,
                        app->max.origin.line, qclass_to_string(app->max.class));
}

int app_rule_finalize(AppRule *app, DiagList *diag) {
        bool says_something = app->process.class != QCLASS_UNSPECIFIED || app->max.class != QCLASS_UNSPECIFIED;
        int r;

        app->implicit_match = true;
        for (MatchKind k = 0; k < _MATCH_KIND_MAX; k++)
                if (app->match[k].n > 0)
                        app->implicit_match = false;

        r = check_cap(app, &app->process, NULL, diag);
        if (r < 0)
                return r;

        for (size_t i = 0; i < app->n_threads; i++) {
                ThreadRule *t = &app->threads[i];
                const RuleOrigin *o = &t->name.origin;

                if (t->class.class == QCLASS_UNSPECIFIED) {
                        r = diag_add(diag, LOG_WARNING, o->path, o->line,
                                     "[Thread:%s] sets no Class=; section ignored", t->name.text);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (!t->name.glob && strlen(t->name.text) > THREAD_NAME_MAX) {
                        r = diag_add(diag, LOG_WARNING, o->path, o->line,
                                     "thread names have at most %d characters; [Thread:%s] never matches",
                                     THREAD_NAME_MAX, t->name.text);
                        if (r < 0)
                                return r;
                }
                r = check_cap(app, &t->class, t->name.text, diag);
                if (r < 0)
                        return r;
                r = glob_index_add(&app->thread_index, t->name.text, (uint32_t) i, 0);
                if (r < 0)
                        return r;
                says_something = true;
        }

        if (!says_something) {
                r = diag_add(diag, LOG_WARNING, app->origin.path, app->origin.line,
                             "%s sets no Class= and no MaxClass=; it changes nothing", app->name);
                if (r < 0)
                        return r;
        }
        return glob_index_build(&app->thread_index);
}

static int first_thread(uint32_t value, uint32_t aux, void *userdata) {
        *(uint32_t *) userdata = value;
        return 1;
}

const ThreadRule *app_rule_match_thread(const AppRule *app, const char *thread_name) {
        uint32_t i;
        if (glob_index_lookup(&app->thread_index, thread_name, first_thread, &i) <= 0)
                return NULL;
        return &app->threads[i];
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
        AppRule *items = reallocarray(l->items, l->n + 1, sizeof *items);
        if (!items)
                return -ENOMEM;
        l->items = items;
        int r = app_rule_init(&items[l->n], name, unit, origin);
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
        *l = (AppRuleList) {};
}
