/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ananicy(-cpp) rule trees into qos.d files. ananicy sets nice, policy,
 * I/O class and cgroups per process name; qosd has four classes. Each rule
 * maps to the nearest class, and everything that has no counterpart is
 * said, per rule, instead of dropped silently. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config/rules.h"

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

/* Whether name is a file ananicy reads: *.rules, *.types, *.cgroups. */
bool ananicy_reads_file(const char *name);

/* Whether text is in ananicy's format, a JSON object a line: its first
 * line that is neither blank nor a comment holds one object, and it has a
 * "name" string (a rule). That line's number, or 0: not ananicy's. Never
 * true of a valid schedqos file (one JSON object for the whole file, whose
 * values are objects). */
unsigned ananicy_text_rule_line(const char *text, size_t len);

/* The advice for a file in ananicy's format where qos.d files belong. */
#define ANANICY_IMPORT_HINT "'qosctl import ananicy SRC DEST' converts ananicy rules into qos.d files"

/* Read every *.rules, *.types and *.cgroups file below src, in name order.
 * Each line's keys say what it is, as in ananicy-cpp (see the .c file).
 * Broken lines are reported and skipped; a name given twice keeps the later
 * entry and says so. -ENOMEM, or -errno when src cannot be read. */
int ananicy_tree_load(AnanicyTree *t, const char *src, DiagList *diag);

/* The parser itself, without the file system (what the loader and the
 * fuzzer share): one file's text into t, which starts as (AnanicyTree) {};
 * ananicy_tree_finish() then sorts and drops repeated names. -ENOMEM only. */
int ananicy_tree_parse(AnanicyTree *t, const char *path, const char *text, size_t len, DiagList *diag);
int ananicy_tree_finish(AnanicyTree *t, DiagList *diag);
void ananicy_tree_done(AnanicyTree *t);

typedef struct AnanicyConversion {
        QClass class;
        char *reason;           /* what decided the class: "nice -4 (type Doc-View)" */
        char **lost;            /* one line for each setting not carried over */
        size_t n_lost;
} AnanicyConversion;

/* The class for a rule and what is lost. A rule that cannot be converted
 * (a name qos.d cannot hold) is reported and returns 0; 1 on success,
 * -ENOMEM. An unknown type is a warning: the rule's own keys decide. */
int ananicy_convert(const AnanicyTree *t, const AnanicyEntry *rule, AnanicyConversion *ret, DiagList *diag);
void ananicy_conversion_done(AnanicyConversion *c);

/* Why a rule's name cannot be carried into a qos.d file (control
 * characters; a line or file name that would be too long), or NULL. */
const char *ananicy_name_problem(const char *name);

/* The Executable= value that qos.d reads back as exactly this name: glob
 * characters escaped, white space at either end or before ';' or '#'
 * written as "[ ]". Caller frees; NULL: out of memory. */
char *ananicy_match_value(const char *name);

/* The file for a rule: its name escaped by file_name_escape() (file-name.h)
 * plus ".conf", so distinct names never share a file: "原神.exe.conf",
 * "\x2fusr\x2fbin\x2ffoo.conf" for "/usr/bin/foo". The file name decides
 * nothing: the file matches by Executable=. Caller frees; NULL: no memory. */
char *ananicy_file_name(const char *rule_name);

/* The qos.d file for one converted rule. 0, -ENOMEM. */
int ananicy_write_conf(FILE *f, const AnanicyEntry *rule, const AnanicyConversion *c);
