/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A converted ananicy rule as a qos.d file: its name (file-name.h), and a
 * [Match] value that qos.d reads back as exactly the rule's name. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ananicy-import.h"
#include "config/file-name.h"
#include "config/glob-index.h"
#include "core/macro.h"

/* The longest line qos.d reads (inih's buffer), and what it leaves for a
 * name after "Executable=". */
#define LINE_MAX_LEN 199
#define MATCH_VALUE_MAX (LINE_MAX_LEN - 11)
/* NAME_MAX, less ".conf". */
#define FILE_STEM_MAX (255 - 5)

/* inih trims a value and cuts it at a ';' after white space; qos.d warns
 * of a '#' after white space. Such white space is written as a bracket
 * expression of its own, "[ ]", which nothing trims or reads as a comment. */
static bool needs_bracket(const char *name, size_t i, size_t n) {
        return isspace((unsigned char) name[i]) && (i == 0 || i == n - 1 || name[i + 1] == ';' || name[i + 1] == '#');
}

char *ananicy_match_value(const char *name) {
        size_t n = strlen(name);
        bool pattern = glob_is_pattern(name);
        for (size_t i = 0; i < n && !pattern; i++)
                pattern = needs_bracket(name, i, n);

        char *v = malloc(3 * n + 1), *p = v;
        if (!v)
                return NULL;
        /* A value without *?[ is compared as it is; one with them goes to
         * fnmatch(), where '\' escapes: only then must '\' itself be. */
        for (size_t i = 0; i < n; i++) {
                char c = name[i];
                if (pattern && needs_bracket(name, i, n)) {
                        *p++ = '[';
                        *p++ = c;
                        *p++ = ']';
                        continue;
                }
                if (pattern && strchr("*?[\\", c))
                        *p++ = '\\';
                *p++ = c;
        }
        *p = '\0';
        return v;
}

const char *ananicy_name_problem(const char *name) {
        for (const char *p = name; *p; p++)
                if (iscntrl((unsigned char) *p))
                        return "contains control characters";
        char *v = ananicy_match_value(name);
        size_t len = v ? strlen(v) : 0;
        free(v);
        if (!v)
                return "cannot be converted (out of memory)";
        if (len > MATCH_VALUE_MAX)
                return "is too long for a qos.d line";
        if (file_name_escaped_len(name) > FILE_STEM_MAX)
                return "is too long for a file name";
        /* Executable= takes a basename or a full path (kernel threads'
         * names like "kworker/0:1" have no executable at all). */
        if (name[0] != '/' && strchr(name, '/'))
                return "has a '/' but is not an absolute path, so no Executable= can match it";
        return NULL;
}

char *ananicy_file_name(const char *rule_name) {
        char *stem = file_name_escape(rule_name), *f = NULL;
        if (stem && asprintf(&f, "%s.conf", stem) < 0)
                f = NULL;
        free(stem);
        return f;
}

/* A comment in the written file. It holds names, values and paths from
 * the ananicy tree, so it is cut to a line qos.d can read (a longer one
 * is an error there), and control characters, which would end the
 * comment, become '?'. */
_printf_(2, 3) static void write_comment(FILE *f, const char *fmt, ...) {
        char line[LINE_MAX_LEN + 1];
        va_list ap;

        va_start(ap, fmt);
        int n = vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        if ((size_t) n >= sizeof line)
                memcpy(line + sizeof line - 4, "...", 4);
        for (char *p = line; *p; p++)
                if (iscntrl((unsigned char) *p))
                        *p = '?';
        fprintf(f, "%s\n", line);
}

int ananicy_write_conf(FILE *f, const AnanicyEntry *rule, const AnanicyConversion *c) {
        char *value = ananicy_match_value(rule->name);
        if (!value)
                return -ENOMEM;

        write_comment(f, "# Imported from ananicy, %s:%u", rule->origin.path, rule->origin.line);
        write_comment(f, "# %s%s%s%s", rule->type ? "type " : "", rule->type ? rule->type : "", rule->type ? ": " : "",
                      c->reason);
        if (c->n_lost > 0)
                fprintf(f, "# Not carried over:\n");
        for (size_t i = 0; i < c->n_lost; i++)
                write_comment(f, "#   %s", c->lost[i]);
        fprintf(f, "\n[Match]\nExecutable=%s\n\n[Process]\nClass=%s\n", value, qclass_to_string(c->class));
        free(value);
        return 0;
}
