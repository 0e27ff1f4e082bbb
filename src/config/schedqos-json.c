/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* json-c parses; it keeps no positions, so the Locator below finds each
 * key's line in the text for the origins and messages. Keys come out of
 * json-c in document order, which lets the search only move forward. */
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <json-c/json.h>
#include <json-c/json_object_iterator.h>

#include "config/ananicy-import.h"
#include "config/file-read.h"
#include "core/macro.h"
#include "config/schedqos-json.h"

typedef struct Locator {
        const char *text;
        size_t len;
        size_t pos;             /* where the next search starts */
        size_t line_pos;        /* line is the line number of text[line_pos] */
        unsigned line;
} Locator;

static unsigned locator_line_at(Locator *loc, size_t pos) {
        if (pos < loc->line_pos) {
                loc->line_pos = 0;
                loc->line = 1;
        }
        for (; loc->line_pos < pos; loc->line_pos++)
                loc->line += loc->text[loc->line_pos] == '\n';
        return loc->line;
}

/* The line of "key" followed by ':' at or after loc->pos; on success the
 * next search starts there. A key json-c had to unescape may not be found
 * verbatim; then the line of the current position stands in. */
static unsigned locate_key(Locator *loc, const char *key) {
        size_t k = strlen(key);
        for (size_t p = loc->pos; p + k + 2 <= loc->len; p++) {
                if (loc->text[p] != '"' || memcmp(loc->text + p + 1, key, k) != 0 || loc->text[p + k + 1] != '"')
                        continue;
                size_t q = p + k + 2;
                while (q < loc->len && strchr(" \t\r\n", loc->text[q]))
                        q++;
                if (q < loc->len && loc->text[q] == ':') {
                        loc->pos = q + 1;
                        return locator_line_at(loc, p);
                }
        }
        return locator_line_at(loc, loc->pos);
}

typedef struct JsonState {
        AppRuleList *apps;
        const char *path;
        const char *unit;
        DiagList *diag;
        Locator loc;
} JsonState;

static const char *type_name(json_object *o) {
        return json_type_to_name(json_object_get_type(o));
}

/* A class from a JSON string; 0 with *ret set, 1 when skipped (reported). */
static int json_class(JsonState *st, const char *what, json_object *v, RuleOrigin o, QClass *ret) {
        int r;
        if (!json_object_is_type(v, json_type_string)) {
                r = diag_add(st->diag, LOG_ERR, st->path, o.line, "%s must be a string, not %s; ignored", what,
                             type_name(v));
                return r < 0 ? r : 1;
        }
        r = parse_class_value(what, json_object_get_string(v), o, st->diag, ret);
        return r == -EINVAL ? 1 : r;
}

static int load_thread_qos(JsonState *st, size_t app, json_object *threads, unsigned line) {
        int r;

        if (!json_object_is_type(threads, json_type_object))
                return diag_add(st->diag, LOG_ERR, st->path, line, "thread_qos must be an object, not %s; ignored",
                                type_name(threads));

        struct json_object_iterator it = json_object_iter_begin(threads), end = json_object_iter_end(threads);
        for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
                const char *glob = json_object_iter_peek_name(&it);
                json_object *v = json_object_iter_peek_value(&it);
                RuleOrigin o = { st->path, locate_key(&st->loc, glob) };
                QClass class;

                if (!*glob) {
                        r = diag_add(st->diag, LOG_ERR, st->path, o.line, "empty thread name in thread_qos; ignored");
                        if (r < 0)
                                return r;
                        continue;
                }
                /* schedqos applies an array's entries in turn: the last one stays. */
                if (json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0) {
                        size_t n = json_object_array_length(v);
                        if (n > 1) {
                                r = diag_add(st->diag, LOG_WARNING, st->path, o.line,
                                             "thread_qos \"%s\" lists %zu classes; the last one counts, as in schedqos",
                                             glob, n);
                                if (r < 0)
                                        return r;
                        }
                        v = json_object_array_get_idx(v, n - 1);
                }
                r = json_class(st, "thread_qos value", v, o, &class);
                if (r < 0)
                        return r;
                if (r > 0)
                        continue;

                AppRule *rule = &st->apps->items[app];
                ThreadRule *t;
                r = app_rule_thread(rule, glob, o, &t);
                if (r < 0)
                        return r;
                r = app_rule_set_class(rule, &t->class, class, o);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int load_app(JsonState *st, const char *name, json_object *spec) {
        RuleOrigin origin = { st->path, locate_key(&st->loc, name) };
        AppRule *app;
        int r;

        if (!*name)
                return diag_add(st->diag, LOG_ERR, st->path, origin.line, "empty application name; entry skipped");
        if (!json_object_is_type(spec, json_type_object))
                return diag_add(st->diag, LOG_ERR, st->path, origin.line,
                                "\"%s\" must map to an object, not %s; entry skipped", name, type_name(spec));

        r = app_rule_list_push(st->apps, name, st->unit, origin, &app);
        if (r < 0)
                return r;
        size_t index = st->apps->n - 1;
        /* schedqos identifies applications by their command's basename. A
         * plain name is what a rule without Match keys matches, and costs
         * no pattern: a large collection has tens of thousands of them. */
        if (glob_is_pattern(name) || strchr(name, '/')) {
                r = app_rule_add_match(app, MATCH_EXECUTABLE, name, origin);
                if (r < 0)
                        return r;
        }

        struct json_object_iterator it = json_object_iter_begin(spec), end = json_object_iter_end(spec);
        for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
                const char *key = json_object_iter_peek_name(&it);
                json_object *v = json_object_iter_peek_value(&it);
                RuleOrigin o = { st->path, locate_key(&st->loc, key) };

                if (strcmp(key, "qos") == 0) {
                        QClass class;
                        r = json_class(st, "qos", v, o, &class);
                        if (r == 0)
                                r = app_rule_set_class(app, &app->process, class, o);
                } else if (strcmp(key, "thread_qos") == 0)
                        r = load_thread_qos(st, index, v, o.line);
                else if (strcmp(key, "period") == 0)
                        r = diag_add(st->diag, LOG_WARNING, st->path, o.line,
                                     "\"period\" is not supported: the class decides the time slice; ignored");
                else if (strcmp(key, "version") == 0)
                        r = 0; /* informational in schedqos too */
                else
                        r = diag_add(st->diag, LOG_WARNING, st->path, o.line, "unknown key \"%s\" in \"%s\"; ignored",
                                     key, name);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int report_at(JsonState *st, size_t offset, int level, const char *msg) {
        unsigned line = locator_line_at(&st->loc, offset);
        const char *nl = memrchr(st->loc.text, '\n', offset);
        size_t col = offset - (nl ? (size_t) (nl - st->loc.text) + 1 : 0) + 1;
        return diag_add(st->diag, level, st->path, line, "column %zu: %s; file skipped", col, msg);
}

int schedqos_json_load_buffer(AppRuleList *apps, const char *path, const char *unit, const char *text,
                              size_t len, DiagList *diag) {
        JsonState st = {
                .apps = apps,
                .path = path,
                .unit = unit,
                .diag = diag,
                .loc = { .text = text, .len = len, .line = 1 },
        };
        json_object *root = NULL;
        int r = 0;

        const char *nul = memchr(text, '\0', len);
        if (nul)
                return report_at(&st, (size_t) (nul - text), LOG_ERR, "NUL byte");
        /* A file renamed from ananicy's .rules: what it is, not where the
         * JSON parser gave up. */
        unsigned ananicy_line = ananicy_text_rule_line(text, len);
        if (ananicy_line > 0)
                return diag_add(diag, LOG_ERR, path, ananicy_line,
                                "ananicy's format (a JSON object per line), not a schedqos app config; file skipped; "
                                ANANICY_IMPORT_HINT);

        struct json_tokener *tok = json_tokener_new();
        if (!tok)
                return -ENOMEM;
        root = json_tokener_parse_ex(tok, text, (int) len);
        enum json_tokener_error e = json_tokener_get_error(tok);
        size_t end = json_tokener_get_parse_end(tok);
        json_tokener_free(tok);

        if (!root) {
                r = report_at(&st, end, LOG_ERR,
                              e == json_tokener_continue ? "unexpected end of file" : json_tokener_error_desc(e));
                goto finish;
        }
        for (size_t i = end; i < len; i++)
                if (!strchr(" \t\r\n", text[i])) {
                        r = report_at(&st, i, LOG_ERR, "text after the end of the JSON value");
                        goto finish;
                }
        if (!json_object_is_type(root, json_type_object)) {
                r = diag_add(diag, LOG_ERR, path, 1, "expected an object keyed by command name, not %s; file skipped",
                             type_name(root));
                goto finish;
        }

        struct json_object_iterator it = json_object_iter_begin(root), it_end = json_object_iter_end(root);
        for (; !json_object_iter_equal(&it, &it_end) && r >= 0; json_object_iter_next(&it))
                r = load_app(&st, json_object_iter_peek_name(&it), json_object_iter_peek_value(&it));
finish:
        json_object_put(root);
        return r < 0 ? r : 0;
}

int schedqos_json_load_file(AppRuleList *apps, const char *path, const char *unit, DiagList *diag) {
        _cleanup_free_ char *text = NULL;
        size_t len;

        int r = read_rule_file(path, &text, &len, diag);
        if (r <= 0)
                return r;
        return schedqos_json_load_buffer(apps, path, unit, text, len, diag);
}
