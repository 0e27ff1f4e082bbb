/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ananicy's files are JSON lines: one object per line, '#' comments. A rule
 * names a process and optionally a type; its own keys override the type's.
 * json-c parses each line. What a line is follows ananicy-cpp, so that every
 * rule it loads is imported: the object's keys decide (a "name" string makes
 * a rule, else a "type" string a type, else a "cgroup" string a cgroup),
 * not the file's suffix; text around the object on its line is ignored;
 * names are taken as they are, white space included. */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "config/ananicy-import.h"
#include "config/ananicy-keys.h"
#include "config/file-read.h"
#include "config/glob-index.h"
#include "core/macro.h"

/* Deeper than any real rule tree; stops symlink loops. */
#define TREE_DEPTH_MAX 16

static int push_entry(AnanicyEntry **v, size_t *n, AnanicyEntry *e) {
        AnanicyEntry *t = reallocarray(*v, *n + 1, sizeof *t);
        if (!t)
                return -ENOMEM;
        *v = t;
        t[(*n)++] = *e;
        *e = (AnanicyEntry) {};
        return 0;
}

static void entry_done(AnanicyEntry *e) {
        free(e->name);
        free(e->type);
        json_object_put(e->spec);
        *e = (AnanicyEntry) {};
}

static bool has_string(json_object *obj, const char *key, json_object **ret) {
        return json_object_object_get_ex(obj, key, ret) && json_object_is_type(*ret, json_type_string);
}

/* One line's object into an entry, by its keys as ananicy-cpp sorts them:
 * a "name" string is a rule, else a "type" string a type, else a "cgroup"
 * string one of ananicy's cgroups (which qosd does not make: rules that
 * use one say so when converted). */
static int take_entry(AnanicyTree *t, json_object *obj, RuleOrigin o, DiagList *diag) {
        AnanicyEntry e = { .origin = o, .seq = t->n_types + t->n_rules };
        json_object *v;
        bool is_type = false;
        int r;

        if (!has_string(obj, "name", &v)) {
                is_type = has_string(obj, "type", &v);
                if (!is_type) {
                        bool cgroup = has_string(obj, "cgroup", &v);
                        json_object_put(obj);
                        return cgroup ? 0
                                      : diag_add(diag, LOG_ERR, o.path, o.line,
                                                 "no \"name\", \"type\" or \"cgroup\" string; line skipped");
                }
        }
        if (!*json_object_get_string(v)) {
                json_object_put(obj);
                return diag_add(diag, LOG_ERR, o.path, o.line, "empty \"%s\"; line skipped", is_type ? "type" : "name");
        }
        e.spec = obj;
        e.name = strdup(json_object_get_string(v));
        if (!e.name)
                goto oom;
        /* ananicy-cpp looks a rule's type up by its value: one that is not a
         * string finds none, and the rule stands on its own keys. */
        if (!is_type && json_object_object_get_ex(obj, "type", &v)) {
                if (!json_object_is_type(v, json_type_string)) {
                        r = diag_add(diag, LOG_WARNING, o.path, o.line, "\"type\" of '%s' is not a string; ignored",
                                     e.name);
                        if (r < 0) {
                                entry_done(&e);
                                return r;
                        }
                } else if (!(e.type = strdup(json_object_get_string(v))))
                        goto oom;
        }

        struct json_object_iterator it = json_object_iter_begin(obj), end = json_object_iter_end(obj);
        for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
                const char *key = json_object_iter_peek_name(&it);
                bool known = strcmp(key, "name") == 0 || strcmp(key, "type") == 0;
                for (size_t i = 0; i < ananicy_n_known_keys && !known; i++)
                        known = strcmp(key, ananicy_known_keys[i].key) == 0;
                if (!known && (r = diag_add(diag, LOG_WARNING, o.path, o.line, "unknown key \"%s\"; ignored", key)) < 0) {
                        entry_done(&e);
                        return r;
                }
        }
        r = is_type ? push_entry(&t->types, &t->n_types, &e) : push_entry(&t->rules, &t->n_rules, &e);
        if (r < 0)
                entry_done(&e);
        return r;
oom:
        entry_done(&e);
        return -ENOMEM;
}

unsigned ananicy_text_rule_line(const char *text, size_t len) {
        unsigned line = 1;
        for (const char *s = text, *e = text + len; s < e; line++) {
                const char *nl = memchr(s, '\n', (size_t) (e - s));
                size_t n = (size_t) ((nl ? nl : e) - s), i = 0;
                while (i < n && isspace((unsigned char) s[i]))
                        i++;
                if (i == n || s[i] == '#') {
                        s = nl ? nl + 1 : e;
                        continue;
                }
                if (s[i] != '{')
                        return 0;
                struct json_tokener *tok = json_tokener_new();
                json_object *obj = tok ? json_tokener_parse_ex(tok, s + i, (int) (n - i)) : NULL, *v;
                bool rule = obj && json_object_is_type(obj, json_type_object) && has_string(obj, "name", &v);
                json_object_put(obj);
                json_tokener_free(tok);
                return rule ? line : 0;
        }
        return 0;
}

static int load_line(AnanicyTree *t, struct json_tokener *tok, const char *s, size_t len, RuleOrigin o,
                     DiagList *diag) {
        size_t i = 0;
        bool around = false;
        int r;

        while (i < len && isspace((unsigned char) s[i]))
                i++;
        if (i == len || s[i] == '#')
                return 0;
        if (memchr(s, '\0', len))
                return diag_add(diag, LOG_ERR, o.path, o.line, "NUL byte in line; line skipped");
        if (s[i] != '{') {
                /* ananicy-cpp reads from the first '{' of a line. */
                const char *brace = memchr(s + i, '{', len - i);
                if (!brace)
                        return diag_add(diag, LOG_ERR, o.path, o.line, "expected a JSON object; line skipped");
                i = (size_t) (brace - s);
                around = true;
        }

        json_tokener_reset(tok);
        json_object *obj = json_tokener_parse_ex(tok, s + i, (int) (len - i));
        size_t end = i + json_tokener_get_parse_end(tok);
        if (!obj) {
                enum json_tokener_error e = json_tokener_get_error(tok);
                return diag_add(diag, LOG_ERR, o.path, o.line, "column %zu: %s; line skipped", end + 1,
                                e == json_tokener_continue ? "the object does not end on this line"
                                                           : json_tokener_error_desc(e));
        }
        while (end < len && isspace((unsigned char) s[end]))
                end++;
        around |= end < len && s[end] != '#';
        if (around && (r = diag_add(diag, LOG_NOTICE, o.path, o.line,
                                    "text around the JSON object ignored, as ananicy-cpp does")) < 0) {
                json_object_put(obj);
                return r;
        }
        return take_entry(t, obj, o, diag);
}

int ananicy_tree_parse(AnanicyTree *t, const char *path, const char *text, size_t len, DiagList *diag) {
        int r = 0;

        /* Origins point at the tree's own copy of the path. */
        char *p = strdup(path);
        char **paths = p ? reallocarray(t->paths, t->n_paths + 1, sizeof *paths) : NULL;
        if (!paths) {
                free(p);
                return -ENOMEM;
        }
        t->paths = paths;
        paths[t->n_paths++] = p;

        struct json_tokener *tok = json_tokener_new();
        if (!tok)
                return -ENOMEM;
        unsigned line = 0;
        for (const char *s = text, *e = text + len; s < e && r >= 0;) {
                const char *nl = memchr(s, '\n', (size_t) (e - s));
                const char *stop = nl ? nl : e;
                r = load_line(t, tok, s, (size_t) (stop - s), (RuleOrigin) { p, ++line }, diag);
                s = nl ? nl + 1 : e;
        }
        json_tokener_free(tok);
        return r;
}

static int load_file(AnanicyTree *t, const char *path, DiagList *diag) {
        _cleanup_free_ char *text = NULL;
        size_t len;

        int r = read_rule_file(path, &text, &len, diag);
        if (r <= 0)
                return r;
        return ananicy_tree_parse(t, path, text, len, diag);
}

static bool has_suffix(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);
        return n > k && strcmp(s + n - k, suffix) == 0;
}

bool ananicy_reads_file(const char *name) {
        return has_suffix(name, ".rules") || has_suffix(name, ".types") || has_suffix(name, ".cgroups");
}

static int walk(AnanicyTree *t, const char *dir, unsigned depth, DiagList *diag) {
        struct dirent **names = NULL;
        int r = 0;

        int n = scandir(dir, &names, NULL, alphasort);
        if (n < 0)
                return depth == 0 ? negative_errno() : diag_add(diag, LOG_WARNING, dir, 0, "cannot read directory: %m; skipped");
        for (int i = 0; i < n; i++) {
                const char *name = names[i]->d_name;
                _cleanup_free_ char *path = NULL;
                if (r >= 0 && name[0] != '.') {
                        if (asprintf(&path, "%s/%s", dir, name) < 0) {
                                path = NULL;
                                r = -ENOMEM;
                        } else if (ananicy_reads_file(name))
                                r = load_file(t, path, diag);
                        else if (depth < TREE_DEPTH_MAX) {
                                DIR *d = opendir(path);
                                if (d) {
                                        closedir(d);
                                        r = walk(t, path, depth + 1, diag);
                                }
                        }
                }
                free(names[i]);
        }
        free(names);
        return r;
}

static int cmp_entry(const void *a, const void *b) {
        const AnanicyEntry *x = a, *y = b;
        int c = strcmp(x->name, y->name);
        if (c != 0)
                return c;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort by name; of entries with one name keep the last, as ananicy does.
 * The same line twice (collections have them) changes nothing: a note. */
static int dedup(AnanicyEntry *v, size_t *n, const char *what, DiagList *diag) {
        size_t k = 0;
        if (*n == 0)
                return 0; /* v may be NULL: qsort(NULL, 0, ...) is undefined */
        qsort(v, *n, sizeof *v, cmp_entry);
        for (size_t i = 0; i < *n; i++) {
                if (i + 1 < *n && strcmp(v[i].name, v[i + 1].name) == 0) {
                        bool same = json_object_equal(v[i].spec, v[i + 1].spec);
                        int r = diag_add(diag, same ? LOG_NOTICE : LOG_WARNING, v[i + 1].origin.path,
                                         v[i + 1].origin.line, "%s '%s' again (first at %s:%u)%s", what, v[i].name,
                                         v[i].origin.path, v[i].origin.line,
                                         same ? ", the same" : "; this one replaces it");
                        entry_done(&v[i]);
                        if (r < 0)
                                return r;
                        continue;
                }
                v[k++] = v[i];
        }
        *n = k;
        return 0;
}

int ananicy_tree_finish(AnanicyTree *t, DiagList *diag) {
        int r = dedup(t->types, &t->n_types, "type", diag);
        if (r >= 0)
                r = dedup(t->rules, &t->n_rules, "rule", diag);
        return r;
}

int ananicy_tree_load(AnanicyTree *t, const char *src, DiagList *diag) {
        *t = (AnanicyTree) {};
        int r = walk(t, src, 0, diag);
        if (r >= 0)
                r = ananicy_tree_finish(t, diag);
        return r;
}

void ananicy_tree_done(AnanicyTree *t) {
        for (size_t i = 0; i < t->n_types; i++)
                entry_done(&t->types[i]);
        free(t->types);
        for (size_t i = 0; i < t->n_rules; i++)
                entry_done(&t->rules[i]);
        free(t->rules);
        for (size_t i = 0; i < t->n_paths; i++)
                free(t->paths[i]);
        free(t->paths);
        *t = (AnanicyTree) {};
}
