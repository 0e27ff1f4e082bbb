/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `qosctl check --effective`: the merged rules in qos.d syntax, each
 * setting followed by the file:line it comes from (as a ';' comment, which
 * qos.d allows after a value), and for each file what it masks and which
 * drop-ins extend it. Each application's part reads back as a qos.d file
 * with the same rules (names with control characters aside: those are
 * shown escaped, \xNN). */
#include <stdlib.h>
#include <string.h>

#include "config/ruleset-internal.h"
#include "core/term-escape.h"

/* A name from a file or its name (paths, patterns): escaped, so that it
 * neither acts on the terminal nor, with a newline, adds a line that reads
 * as a rule. */
static int put(FILE *f, const char *s) {
        char *e = term_escape(s);
        int n = fputs(e ?: "?", f) >= 0 ? (int) strlen(e ?: "?") : 0;
        free(e);
        return n;
}

static void origin_comment(FILE *f, int width, RuleOrigin o) {
        if (!o.path)
                fputc('\n', f);
        else {
                fprintf(f, "%*s; ", width > 0 ? width : 1, "");
                put(f, o.path);
                if (o.line > 0)
                        fprintf(f, ":%u", o.line);
                fputc('\n', f);
        }
}

/* "Key=value" padded so that the origins line up. */
static void setting(FILE *f, const AppRule *app, const char *key, const char *value, SourceLine l) {
        int n = fprintf(f, "%s=", key);
        n += put(f, value);
        origin_comment(f, 40 - n, app_rule_origin(app, l));
}

static void write_app(FILE *f, const AppRule *app) {
        RuleOrigin o = app_rule_origin(app, app->origin);
        if (o.line > 0) {
                fputs("# application \"", f);
                put(f, app->name);
                fputs("\" from ", f);
                put(f, o.path);
                fprintf(f, ":%u\n", o.line);
        }

        fprintf(f, "[Match]\n");
        if (app->implicit_match) {
                fputs("# no Match keys: Executable=", f);
                put(f, app->name);
                fprintf(f, ", from the %s\n", o.line > 0 ? "schedqos key" : "file name");
        }
        for (MatchKind k = 0; k < _MATCH_KIND_MAX; k++) {
                size_t n;
                const Pattern *patterns = app_rule_patterns(app, k, &n);
                for (size_t i = 0; i < n; i++)
                        setting(f, app, match_kind_to_string(k), patterns[i].text, patterns[i].origin);
        }
        if (app->process.class != QCLASS_UNSPECIFIED) {
                fprintf(f, "\n[Process]\n");
                setting(f, app, "Class", qclass_to_string(app->process.class), app->process.origin);
        }
        for (size_t i = 0; i < app->n_threads; i++) {
                const ThreadRule *t = &app->threads[i];
                if (t->class.class == QCLASS_UNSPECIFIED)
                        continue;
                fputs("\n[Thread:", f);
                put(f, t->name.text);
                fputs("]\n", f);
                setting(f, app, "Class", qclass_to_string(t->class.class), t->class.origin);
        }
        const ClassSetting *max = app_rule_max(app);
        if (max->class != QCLASS_UNSPECIFIED) {
                fprintf(f, "\n[Limits]\n");
                setting(f, app, "MaxClass", qclass_to_string(max->class), max->origin);
        }
}

static void write_unit(FILE *f, const ConfUnit *u) {
        fputs("# ", f);
        if (u->masked_by) {
                put(f, u->name);
                fputs(": masked by ", f);
                put(f, u->masked_by);
        } else if (u->path)
                put(f, u->path);
        else {
                put(f, u->name);
                fputs(": only drop-ins, no file; not loaded", f);
        }
        fputc('\n', f);
        for (size_t i = 0; i < u->n_dropins; i++) {
                fputs("# + drop-in ", f);
                put(f, u->dropins[i]);
                fputc('\n', f);
        }
        for (size_t i = 0; i < u->n_ignored; i++) {
                fputs("# ignored: ", f);
                put(f, u->ignored[i]);
                fputc('\n', f);
        }
}

static void write_scope(FILE *f, const Scope *s) {
        size_t a = 0;
        for (size_t i = 0; i < s->layout.n_units; i++) {
                const ConfUnit *u = &s->layout.units[i];
                fputc('\n', f);
                write_unit(f, u);
                /* Applications are stored in unit order. */
                for (bool first = true; a < s->apps.n && s->apps.items[a].unit == u->name; a++, first = false) {
                        if (!first)
                                fputc('\n', f);
                        write_app(f, &s->apps.items[a]);
                }
        }
}

void ruleset_write_effective(const RuleSet *rs, FILE *f) {
        for (size_t i = 0; i < rs->n_scopes; i++) {
                const Scope *s = &rs->scopes[i];
                if (!s->user) {
                        fprintf(f, "### system rules");
                        for (size_t d = 0; d < rs->n_dirs; d++) {
                                fputs(d == 0 ? " from " : " < ", f);
                                put(f, rs->dirs[d]);
                        }
                        fputc('\n', f);
                } else
                        fprintf(f, "\n### rules for uid %u: files its own directories change\n", (unsigned) s->uid);
                write_scope(f, s);
        }
}
