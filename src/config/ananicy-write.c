/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The qos.d side of the ananicy import: which names a qos.d file can
 * hold, the file's name, and its text. Whatever is written must load
 * without a message and match the rule's own name (the fuzzer checks). */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ananicy-import.h"
#include "macro.h"

/* The longest line qos.d reads (inih's buffer), and what it leaves for a
 * name after "Executable=". */
#define LINE_MAX_LEN 199
#define NAME_MAX_LEN (LINE_MAX_LEN - 11)

/* ananicy names are plain; qos.d reads a value with '*', '?' or '[' as a
 * glob, and only there does '\\' escape. So glob characters are escaped
 * always, a backslash only in a name that has one of them. */
static bool needs_escape(const char *name, char c) {
        return strchr("*?[", c) || (c == '\\' && strpbrk(name, "*?["));
}

/* qos.d values are trimmed by inih and cut at " ;"; names that would
 * change on the way cannot be carried. */
const char *ananicy_name_problem(const char *name) {
        size_t len = strlen(name);
        for (const char *p = name; *p; p++)
                len += needs_escape(name, *p);
        if (len > NAME_MAX_LEN)
                return "is too long for a qos.d line";
        for (const char *p = name; *p; p++)
                if (iscntrl((unsigned char) *p))
                        return "contains control characters";
        /* Executable= takes a basename or a full path (kernel threads'
         * names like "kworker/0:1" have no executable at all). */
        if (name[0] != '/' && strchr(name, '/'))
                return "has a '/' but is not an absolute path, so no Executable= can match it";
        if (isspace((unsigned char) name[0]) || isspace((unsigned char) name[strlen(name) - 1]))
                return "starts or ends with white space";
        for (const char *p = name + 1; *p; p++)
                if (*p == ';' && isspace((unsigned char) p[-1]))
                        return "contains \" ;\", which starts a comment in qos.d";
        /* qos.d keeps it in the value but warns, as the loader does here. */
        const char *hash = strchr(name, '#');
        if (hash && hash > name && isspace((unsigned char) hash[-1]))
                return "contains \" #\", which qos.d warns about as a misplaced comment";
        return NULL;
}

char *ananicy_file_name(const char *rule_name) {
        const char *s = rule_name;
        while (*s == '/')
                s++;
        size_t n = strlen(s);
        char *f = malloc(n + strlen(".conf") + 2);
        if (!f)
                return NULL;
        char *p = f;
        /* Never a hidden file: not "..conf", nor ".conf" for a name of
         * slashes only. */
        if (*s == '.' || *s == '\0')
                *p++ = '_';
        for (; *s; s++)
                *p++ = *s == '/' ? '-' : (isalnum((unsigned char) *s) || strchr("._+@-", *s)) ? *s : '_';
        strcpy(p, ".conf");
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

void ananicy_write_conf(FILE *f, const AnanicyEntry *rule, const AnanicyConversion *c) {
        write_comment(f, "# Imported from ananicy, %s:%u", rule->origin.path, rule->origin.line);
        write_comment(f, "# rule \"%s\"%s%s: %s", rule->name, rule->type ? ", type " : "",
                      rule->type ? rule->type : "", c->reason);
        if (c->n_lost > 0)
                fprintf(f, "# Not carried over:\n");
        for (size_t i = 0; i < c->n_lost; i++)
                write_comment(f, "#   %s", c->lost[i]);

        fprintf(f, "\n[Match]\nExecutable=");
        for (const char *s = rule->name; *s; s++) {
                if (needs_escape(rule->name, *s))
                        fputc('\\', f);
                fputc(*s, f);
        }
        fprintf(f, "\n\n[Process]\nClass=%s\n", qclass_to_string(c->class));
}
