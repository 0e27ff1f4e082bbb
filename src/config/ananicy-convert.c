/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One ananicy rule, with its type, into a qosd class: the nearest class
 * and every key that cannot be carried over, said as a warning. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "config/ananicy-import.h"
#include "config/ananicy-keys.h"
#include "core/macro.h"

static int cmp_name_key(const void *key, const void *e) {
        return strcmp(key, ((const AnanicyEntry *) e)->name);
}

/* A rule's own setting, else its type's; *from_type says which. */
static json_object *setting(const AnanicyEntry *rule, const AnanicyEntry *type, const char *key, bool *from_type) {
        json_object *v;
        *from_type = false;
        if (json_object_object_get_ex(rule->spec, key, &v))
                return v;
        if (type && json_object_object_get_ex(type->spec, key, &v)) {
                *from_type = true;
                return v;
        }
        return NULL;
}

typedef struct Convert {
        const AnanicyEntry *rule, *type;
        AnanicyConversion *out;
        DiagList *diag;
} Convert;

static const char *value_text(json_object *v) {
        return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
}

static int lose(Convert *c, const char *key, json_object *v, bool from_type, const char *why) {
        char *s;
        if (asprintf(&s, "%s %s not carried over: %s%s%s%s", key, value_text(v), why, from_type ? " (from type " : "",
                     from_type ? c->type->name : "", from_type ? ")" : "") < 0)
                return -ENOMEM;
        char **l = reallocarray(c->out->lost, c->out->n_lost + 1, sizeof *l);
        if (!l) {
                free(s);
                return -ENOMEM;
        }
        c->out->lost = l;
        l[c->out->n_lost++] = s;
        return diag_add(c->diag, LOG_WARNING, c->rule->origin.path, c->rule->origin.line, "%s: %s", c->rule->name, s);
}

/* The value of key if it has the right JSON type; a wrong one is reported. */
static int typed(Convert *c, const char *key, ValueType type, json_object **ret, bool *from_type) {
        json_object *v = setting(c->rule, c->type, key, from_type);
        *ret = NULL;
        if (!v)
                return 0;
        if (type == VALUE_INT ? json_object_is_type(v, json_type_int)
                              : json_object_is_type(v, json_type_string)) {
                *ret = v;
                return 0;
        }
        return diag_add(c->diag, LOG_WARNING, c->rule->origin.path, c->rule->origin.line,
                        "%s: %s %s is not a %s; ignored", c->rule->name, key, value_text(v),
                        type == VALUE_INT ? "number" : "string");
}

static int set_reason(Convert *c, QClass class, const char *key, json_object *v, bool from_type) {
        c->out->class = class;
        int r = key ? asprintf(&c->out->reason, "%s %s%s%s%s -> %s", key, value_text(v),
                               from_type ? " (type " : "", from_type ? c->type->name : "", from_type ? ")" : "",
                               qclass_to_string(class))
                    : asprintf(&c->out->reason, "no nice, sched or ioclass -> %s", qclass_to_string(class));
        if (r < 0) {
                c->out->reason = NULL;
                return -ENOMEM;
        }
        return 0;
}

static bool str_is(json_object *v, const char *s) {
        return v && strcasecmp(json_object_get_string(v), s) == 0;
}

/* The nearest class, first match wins:
 *   sched rr/fifo/iso, or nice <= -10      -> user-interactive
 *   sched idle/batch, nice >= 10, ioclass idle -> background
 *   nice < 0                               -> user-initiated
 *   anything else                          -> utility */
static int decide_class(Convert *c) {
        json_object *nice, *sched, *ioclass;
        bool nice_t, sched_t, io_t;
        int r;

        if ((r = typed(c, "nice", VALUE_INT, &nice, &nice_t)) < 0 ||
            (r = typed(c, "sched", VALUE_STRING, &sched, &sched_t)) < 0 ||
            (r = typed(c, "ioclass", VALUE_STRING, &ioclass, &io_t)) < 0)
                return r;
        int n = nice ? json_object_get_int(nice) : 0;
        bool rt = str_is(sched, "rr") || str_is(sched, "fifo") || str_is(sched, "iso");

        if (sched && !rt && !str_is(sched, "normal") && !str_is(sched, "other") && !str_is(sched, "batch") &&
            !str_is(sched, "idle") &&
            (r = diag_add(c->diag, LOG_WARNING, c->rule->origin.path, c->rule->origin.line,
                          "%s: unknown sched \"%s\"; ignored", c->rule->name, json_object_get_string(sched))) < 0)
                return r;
        if (ioclass && !str_is(ioclass, "idle") && !str_is(ioclass, "best-effort") && !str_is(ioclass, "realtime") &&
            !str_is(ioclass, "none") &&
            (r = diag_add(c->diag, LOG_WARNING, c->rule->origin.path, c->rule->origin.line,
                          "%s: unknown ioclass \"%s\"; ignored", c->rule->name, json_object_get_string(ioclass))) < 0)
                return r;

        if (rt) {
                r = set_reason(c, QCLASS_USER_INTERACTIVE, "sched", sched, sched_t);
                if (r >= 0)
                        r = lose(c, "sched", sched, sched_t,
                                 "qosd keeps threads SCHED_NORMAL; user-interactive is the nearest class");
                return r;
        }
        if (nice && n <= -10)
                return set_reason(c, QCLASS_USER_INTERACTIVE, "nice", nice, nice_t);
        if (str_is(sched, "idle") || str_is(sched, "batch"))
                return set_reason(c, QCLASS_BACKGROUND, "sched", sched, sched_t);
        if (nice && n >= 10)
                return set_reason(c, QCLASS_BACKGROUND, "nice", nice, nice_t);
        if (str_is(ioclass, "idle"))
                return set_reason(c, QCLASS_BACKGROUND, "ioclass", ioclass, io_t);
        if (nice && n < 0)
                return set_reason(c, QCLASS_USER_INITIATED, "nice", nice, nice_t);
        if (nice)
                return set_reason(c, QCLASS_UTILITY, "nice", nice, nice_t);
        return set_reason(c, QCLASS_UTILITY, NULL, NULL, false);
}

int ananicy_convert(const AnanicyTree *t, const AnanicyEntry *rule, AnanicyConversion *ret, DiagList *diag) {
        Convert c = { .rule = rule, .out = ret, .diag = diag };
        const char *problem;
        int r;

        *ret = (AnanicyConversion) {};
        if ((problem = ananicy_name_problem(rule->name)))
                return diag_add(diag, LOG_ERR, rule->origin.path, rule->origin.line, "name '%s' %s; rule skipped",
                                rule->name, problem);
        /* A typo, most likely; but ananicy-cpp compares names as they are. */
        size_t len = strlen(rule->name);
        if ((isspace((unsigned char) rule->name[0]) || isspace((unsigned char) rule->name[len - 1])) &&
            (r = diag_add(diag, LOG_NOTICE, rule->origin.path, rule->origin.line,
                          "name '%s' starts or ends with white space; matched as it is, as ananicy-cpp does",
                          rule->name)) < 0)
                return r;
        /* ananicy-cpp applies a rule whose type it does not know with the
         * rule's own keys; so does the conversion. */
        if (rule->type) {
                c.type = t->n_types ? bsearch(rule->type, t->types, t->n_types, sizeof *t->types, cmp_name_key)
                                    : NULL;
                if (!c.type && (r = diag_add(diag, LOG_WARNING, rule->origin.path, rule->origin.line,
                                             "%s: unknown type '%s'; converted from the rule's own keys",
                                             rule->name, rule->type)) < 0)
                        return r;
        }

        r = decide_class(&c);
        for (size_t i = 0; i < ananicy_n_known_keys && r >= 0; i++) {
                json_object *v;
                bool from_type;
                if (!ananicy_known_keys[i].lost)
                        continue;
                r = typed(&c, ananicy_known_keys[i].key, ananicy_known_keys[i].type, &v, &from_type);
                if (r >= 0 && v)
                        r = lose(&c, ananicy_known_keys[i].key, v, from_type, ananicy_known_keys[i].lost);
        }
        if (r >= 0) {
                json_object *io;
                bool from_type;
                r = typed(&c, "ioclass", VALUE_STRING, &io, &from_type);
                if (r >= 0 && str_is(io, "realtime"))
                        r = lose(&c, "ioclass", io, from_type, "the class decides the I/O priority");
        }
        if (r < 0) {
                ananicy_conversion_done(ret);
                return r;
        }
        return 1;
}

void ananicy_conversion_done(AnanicyConversion *c) {
        free(c->reason);
        for (size_t i = 0; i < c->n_lost; i++)
                free(c->lost[i]);
        free(c->lost);
        *c = (AnanicyConversion) {};
}
