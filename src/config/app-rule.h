/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One application's rules, as the loaders build them and the matcher reads
 * them. Both the qos.d INI loader and the schedqos JSON loader fill the same
 * structure through these functions, so merging (drop-ins, repeated keys)
 * follows one set of rules whatever the file format. */
#pragma once

#include <stdint.h>

#include "config/glob-index.h"
#include "config/rule-store.h"
#include "config/rules.h"

typedef enum MatchKind {
        MATCH_EXECUTABLE,
        MATCH_COMMAND_LINE,
        MATCH_CGROUP,
        MATCH_APP_ID,
        _MATCH_KIND_MAX,
} MatchKind;

const char *match_kind_to_string(MatchKind k); /* the key: "Executable" ... */

typedef struct Pattern {
        const char *text;       /* in the rule's arena */
        SourceLine origin;
        uint32_t prefix;        /* glob_literal_prefix(); the length when !glob */
        bool glob;
        bool path;              /* Executable with a '/': matched against the full path */
} Pattern;

typedef struct ClassSetting {
        QClass class;           /* UNSPECIFIED: not set */
        SourceLine origin;
} ClassSetting;

typedef struct ThreadRule {
        Pattern name;           /* glob on the thread's comm; origin: the section header */
        ClassSetting class;
} ThreadRule;

/* What few rules set, kept out of the rule record: [Limits], and the index
 * of a long list of thread rules. In the rule's arena. */
typedef struct AppRuleExtra {
        ClassSetting max;
        SourceLine exempt_origin;
        /* Built by app_rule_finalize() for THREAD_INDEX_MIN threads or more;
         * fewer are scanned, which costs less than the index's memory. */
        GlobIndex *thread_index;
        /* [Limits] AllowInteractiveInBackground=yes: user-interactive from
         * these rules is not held outside the foreground. Kept only when
         * the line is in the admin directory (ruleset.c). */
        bool interactive_exempt;
} AppRuleExtra;

/* Everything a finalized rule points to (its name, patterns, thread rules,
 * extra part) lives in its store's arena, which the list of rules owns; a
 * rule itself owns only the index of a long thread list. While files are
 * read, the pattern and thread arrays grow on the heap;
 * app_rule_finalize() packs them into the arena. Tens of thousands of
 * rules are normal (an imported ananicy tree) and most say no more than a
 * name and a class, so the record holds only what every rule has (88
 * bytes, no holes), and origins are numbered lines of the store's files:
 * app_rule_origin() gives path and line. */
typedef struct AppRule {
        const char *name;       /* "firefox" for firefox.conf; the key in a schedqos file */
        const char *unit;       /* the file name that layers: "firefox.conf", "apps.json" */
        Pattern *patterns;      /* every Match pattern, grouped by kind in MatchKind order */
        ThreadRule *threads;
        AppRuleExtra *extra;    /* NULL: no [Limits] key and no thread index */
        RuleStore *store;
        SourceLine origin;      /* the main file (line 0), or the schedqos key */
        ClassSetting process;
        uint32_t n_threads;
        unsigned level;         /* the highest directory that contributed */
        uint16_t n_match[_MATCH_KIND_MAX];
        bool implicit_match;    /* no Match keys: Executable= the name */
        bool packed;            /* the arrays are in the arena: finalized */
} AppRule;

#define THREAD_INDEX_MIN 8

/* name is copied into the store, unit is borrowed (the layout's), like the
 * paths of all origins given. */
int app_rule_init(AppRule *app, RuleStore *store, const char *name, const char *unit, RuleOrigin origin);
void app_rule_done(AppRule *app);

/* Append a Match pattern; an empty value clears the kind's earlier patterns
 * (systemd's reset, so a drop-in can replace a list). -E2BIG beyond
 * UINT16_MAX patterns of a kind. */
int app_rule_add_match(AppRule *app, MatchKind kind, const char *value, RuleOrigin origin);
/* The patterns of one kind, n of them. */
const Pattern *app_rule_patterns(const AppRule *app, MatchKind kind, size_t *n);

/* The extra part, created empty on first use. */
int app_rule_extra(AppRule *app, AppRuleExtra **ret);
/* [Limits] MaxClass=; class UNSPECIFIED when not set. */
const ClassSetting *app_rule_max(const AppRule *app);
bool app_rule_interactive_exempt(const AppRule *app);

/* A later assignment replaces an earlier one. c is one of app's. */
int app_rule_set_class(AppRule *app, ClassSetting *c, QClass class, RuleOrigin origin);
/* An origin of app's to keep (the store's numbered line), and back. */
int app_rule_line(AppRule *app, RuleOrigin origin, SourceLine *ret);
RuleOrigin app_rule_origin(const AppRule *app, SourceLine l);

/* The rule for a thread glob, created empty on first use so that a drop-in
 * with the same [Thread:GLOB] header amends the same rule. */
int app_rule_thread(AppRule *app, const char *glob, RuleOrigin section, ThreadRule **ret);

/* After the last file: check what only the whole can tell (Class above
 * MaxClass, a thread section without Class=, a file that says nothing),
 * report it at the line concerned, pack the arrays and build the thread
 * index. Nothing may be added after it. */
int app_rule_finalize(AppRule *app, DiagList *diag);

/* The best [Thread:] rule for a thread name, or NULL. */
const ThreadRule *app_rule_match_thread(const AppRule *app, const char *thread_name);
/* The [Thread:] sections that set a class: the thread rules in force. */
size_t app_rule_n_thread_rules(const AppRule *app);

/* Parse a class value; reports an error at origin and returns -EINVAL
 * when it is not one, -ENOMEM when reporting failed. */
int parse_class_value(const char *key, const char *value, RuleOrigin origin, DiagList *diag, QClass *ret);

/* The rules of one scope, in load order, and the store they point into. */
typedef struct AppRuleList {
        AppRule *items;
        size_t n;
        RuleStore *store;       /* created by the first push */
} AppRuleList;

/* A new, initialised rule at the end of the list; pointers into the list
 * are valid until the next push. */
int app_rule_list_push(AppRuleList *l, const char *name, const char *unit, RuleOrigin origin, AppRule **ret);
/* Drop the last rule (a file that turned out to be unusable). */
void app_rule_list_pop(AppRuleList *l);
void app_rule_list_done(AppRuleList *l);
