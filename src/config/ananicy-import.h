/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ananicy(-cpp) rule trees into qos.d files. ananicy sets nice, policy,
 * I/O class and cgroups per process name; qosd has four classes. Each rule
 * maps to the nearest class, and everything that has no counterpart is
 * said, per rule, instead of dropped silently. */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "rules.h"

typedef struct AnanicyEntry {
        char *name;             /* the rule's process name, or the type's name */
        char *type;             /* rules: the type it refers to; NULL: none */
        json_object *spec;      /* the whole line */
        RuleOrigin origin;
        size_t seq;             /* load order: of two with one name the later wins */
} AnanicyEntry;

typedef struct AnanicyTree {
        char **paths;           /* files read; origins point here */
        size_t n_paths;
        AnanicyEntry *types;    /* *.types, sorted by name */
        size_t n_types;
        AnanicyEntry *rules;    /* *.rules, sorted by name */
        size_t n_rules;
} AnanicyTree;

/* Read every *.types and *.rules file below src (in name order, as ananicy
 * does). Broken lines are reported and skipped; a name given twice keeps
 * the later entry and says so. -ENOMEM, or -errno when src cannot be read. */
int ananicy_tree_load(AnanicyTree *t, const char *src, DiagList *diag);

/* The parser itself, without the file system (what the loader and the
 * fuzzer share): one file's text into t, which starts as (AnanicyTree) {};
 * ananicy_tree_finish() then sorts and drops repeated names. -ENOMEM only. */
int ananicy_tree_parse(AnanicyTree *t, const char *path, bool is_type, const char *text, size_t len,
                       DiagList *diag);
int ananicy_tree_finish(AnanicyTree *t, DiagList *diag);
void ananicy_tree_done(AnanicyTree *t);

typedef struct AnanicyConversion {
        QClass class;
        char *reason;           /* what decided the class: "nice -4 (type Doc-View)" */
        char **lost;            /* one line for each setting not carried over */
        size_t n_lost;
} AnanicyConversion;

/* The class for a rule and what is lost. A rule that cannot be converted
 * (unknown type, a name qos.d cannot hold) is reported and returns 0;
 * 1 on success, -ENOMEM. */
int ananicy_convert(const AnanicyTree *t, const AnanicyEntry *rule, AnanicyConversion *ret, DiagList *diag);
void ananicy_conversion_done(AnanicyConversion *c);

/* Why a rule's name cannot be carried into a qos.d file (ananicy_convert
 * reports it and skips the rule), or NULL. */
const char *ananicy_name_problem(const char *name);

/* "firefox.conf"; a path name becomes "usr-lib-foo-bar.conf". Caller frees. */
char *ananicy_file_name(const char *rule_name);

/* The qos.d file for one converted rule. */
void ananicy_write_conf(FILE *f, const AnanicyEntry *rule, const AnanicyConversion *c);
