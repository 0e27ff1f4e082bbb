/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `qosctl check --effective`: the merged rules in qos.d syntax, each
 * setting followed by the file:line it comes from (as a ';' comment, which
 * qos.d allows after a value), and for each file what it masks and which
 * drop-ins extend it. Each application's part reads back as a qos.d file
 * with the same rules. */
#include <string.h>

#include "ruleset-internal.h"

static void origin_comment(FILE *f, int width, RuleOrigin o) {
        if (!o.path)
                fputc('\n', f);
        else if (o.line > 0)
                fprintf(f, "%*s; %s:%u\n", width > 0 ? width : 1, "", o.path, o.line);
        else
                fprintf(f, "%*s; %s\n", width > 0 ? width : 1, "", o.path);
}

/* "Key=value" padded so that the origins line up. */
static void setting(FILE *f, const AppRule *app, const char *key, const char *value, SourceLine l) {
        int n = fprintf(f, "%s=%s", key, value);
        origin_comment(f, 40 - n, app_rule_origin(app, l));
}

static void write_app(FILE *f, const AppRule *app) {
        RuleOrigin o = app_rule_origin(app, app->origin);
        if (o.line > 0)
                fprintf(f, "# application \"%s\" from %s:%u\n", app->name, o.path, o.line);

        fprintf(f, "[Match]\n");
        if (app->implicit_match)
                fprintf(f, "# no Match keys: Executable=%s, from the %s\n", app->name,
                        o.line > 0 ? "schedqos key" : "file name");
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
                fprintf(f, "\n[Thread:%s]\n", t->name.text);
                setting(f, app, "Class", qclass_to_string(t->class.class), t->class.origin);
        }
        const ClassSetting *max = app_rule_max(app);
        if (max->class != QCLASS_UNSPECIFIED) {
                fprintf(f, "\n[Limits]\n");
                setting(f, app, "MaxClass", qclass_to_string(max->class), max->origin);
        }
}

static void write_unit(FILE *f, const ConfUnit *u) {
        if (u->masked_by)
                fprintf(f, "# %s: masked by %s\n", u->name, u->masked_by);
        else if (u->path)
                fprintf(f, "# %s\n", u->path);
        else
                fprintf(f, "# %s: only drop-ins, no file; not loaded\n", u->name);
        for (size_t i = 0; i < u->n_dropins; i++)
                fprintf(f, "# + drop-in %s\n", u->dropins[i]);
        for (size_t i = 0; i < u->n_ignored; i++)
                fprintf(f, "# ignored: %s\n", u->ignored[i]);
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
                        for (size_t d = 0; d < rs->n_dirs; d++)
                                fprintf(f, "%s%s", d == 0 ? " from " : " < ", rs->dirs[d]);
                        fputc('\n', f);
                } else
                        fprintf(f, "\n### rules for uid %u: files its own directories change\n", (unsigned) s->uid);
                write_scope(f, s);
        }
}
