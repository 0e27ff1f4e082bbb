/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* inih does the parsing. Debian builds it without line numbers in the
 * handler and it reports only the first malformed line, so the reader
 * below hands it one physical line per call, counts lines, and turns
 * lines it must not see into comments after reporting them:
 *   - indentation is stripped, so an indented line is an ordinary line
 *     (inih would otherwise append it to the previous value);
 *   - lines longer than inih's buffer, NUL bytes, and lines that are
 *     neither comment, section header nor Key=Value are errors;
 *   - section headers are judged here, at their own line, because inih
 *     calls back only for keys. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <ini.h>

#include "config/file-read.h"
#include "config/ini-load.h"
#include "core/macro.h"
#include "core/parse-bool.h"
#include "config/typo.h"

typedef enum SectionKind {
        SECTION_NONE,           /* before the first header */
        SECTION_BROKEN,         /* a rejected header: its keys are skipped silently */
        SECTION_UNKNOWN,        /* reported once at the header */
        SECTION_MATCH,
        SECTION_PROCESS,
        SECTION_THREAD,
        SECTION_LIMITS,
} SectionKind;

static const struct {
        SectionKind kind;
        const char *name;
} sections[] = {
        { SECTION_MATCH, "Match" },
        { SECTION_PROCESS, "Process" },
        { SECTION_THREAD, "Thread:" },
        { SECTION_LIMITS, "Limits" },
};

typedef struct IniState {
        AppRule *app;
        const char *path;
        const char *pos, *end;
        unsigned line;
        DiagList *diag;
        int error;              /* the first -ENOMEM */
        SectionKind section;
        size_t thread;          /* with SECTION_THREAD: index in app->threads */
} IniState;

typedef int (*key_apply)(IniState *st, int arg, const char *value, RuleOrigin o);

static int apply_match(IniState *st, int kind, const char *value, RuleOrigin o);
static int apply_class(IniState *st, int unused, const char *value, RuleOrigin o);
static int apply_exempt(IniState *st, int unused, const char *value, RuleOrigin o);

static const struct {
        SectionKind section;
        const char *key;
        key_apply apply;
        int arg;
} keys[] = {
        { SECTION_MATCH, "Executable", apply_match, MATCH_EXECUTABLE },
        { SECTION_MATCH, "CommandLine", apply_match, MATCH_COMMAND_LINE },
        { SECTION_MATCH, "Cgroup", apply_match, MATCH_CGROUP },
        { SECTION_MATCH, "AppId", apply_match, MATCH_APP_ID },
        { SECTION_PROCESS, "Class", apply_class, 0 },
        { SECTION_THREAD, "Class", apply_class, 0 },
        { SECTION_LIMITS, "MaxClass", apply_class, 0 },
        { SECTION_LIMITS, "AllowInteractiveInBackground", apply_exempt, 0 },
};

static const char *section_name(SectionKind k) {
        for (size_t i = 0; i < ELEMENTSOF(sections); i++)
                if (sections[i].kind == k)
                        return sections[i].name;
        return "?";
}

/* Remember the first -ENOMEM; inih's handler can only say "error". */
static void note(IniState *st, int r) {
        if (r < 0 && st->error == 0)
                st->error = r;
}

#define report(st, level, line, ...) note(st, diag_add((st)->diag, level, (st)->path, line, __VA_ARGS__))

static int apply_match(IniState *st, int kind, const char *value, RuleOrigin o) {
        /* A '/' means "the full path"; a relative path can never equal one. */
        if (kind == MATCH_EXECUTABLE && strchr(value, '/') && value[0] != '/' && !strchr("*?[", value[0]))
                report(st, LOG_WARNING, o.line, "Executable=%s is neither an absolute path nor a basename; it never matches", value);
        if (kind == MATCH_CGROUP && *value && !strchr("/*?[", value[0]))
                report(st, LOG_WARNING, o.line, "Cgroup=%s never matches: cgroup paths start with '/'", value);
        if (kind == MATCH_APP_ID && strpbrk(value, "/ "))
                report(st, LOG_WARNING, o.line, "AppId=%s never matches: app IDs have no '/' or space "
                       "(they look like org.example.App)", value);
        int r = app_rule_add_match(st->app, (MatchKind) kind, value, o);
        if (r == -E2BIG) {
                report(st, LOG_ERR, o.line, "more than %u %s= patterns; ignored", UINT16_MAX,
                       match_kind_to_string((MatchKind) kind));
                return 0;
        }
        return r;
}

static int apply_exempt(IniState *st, int unused, const char *value, RuleOrigin o) {
        AppRuleExtra *extra;
        int b = *value ? parse_boolean(value) : 0; /* empty: the default again */
        if (b < 0) {
                report(st, LOG_ERR, o.line, "AllowInteractiveInBackground=%s is not a boolean (yes or no)", value);
                return 0;
        }
        int r = app_rule_extra(st->app, &extra);
        if (r < 0)
                return r;
        r = app_rule_line(st->app, o, &extra->exempt_origin);
        if (r < 0)
                return r;
        extra->interactive_exempt = b;
        return 0;
}

static int current_class_setting(IniState *st, ClassSetting **ret) {
        AppRuleExtra *extra;
        int r;

        switch (st->section) {
        case SECTION_PROCESS:
                *ret = &st->app->process;
                return 0;
        case SECTION_LIMITS:
                r = app_rule_extra(st->app, &extra);
                if (r < 0)
                        return r;
                *ret = &extra->max;
                return 0;
        case SECTION_THREAD:
                *ret = &st->app->threads[st->thread].class;
                return 0;
        default:
                return -EINVAL; /* the keys table gives Class= only to these */
        }
}

static int apply_class(IniState *st, int unused, const char *value, RuleOrigin o) {
        const char *key = st->section == SECTION_LIMITS ? "MaxClass" : "Class";
        QClass class = QCLASS_UNSPECIFIED;
        ClassSetting *c;
        int r;

        /* Empty resets, as in systemd: a drop-in can take a setting back. */
        if (*value) {
                r = parse_class_value(key, value, o, st->diag, &class);
                if (r == -EINVAL)
                        return 0;
                if (r < 0)
                        return r;
        }
        r = current_class_setting(st, &c);
        if (r < 0)
                return r;
        RuleOrigin before = app_rule_origin(st->app, c->origin);
        if (before.path == st->path && before.line > 0)
                report(st, LOG_WARNING, o.line, "%s= was already set at line %u of this file; the later value wins", key,
                       before.line);
        return app_rule_set_class(st->app, c, class, o);
}

/* Unknown keys are common typos: say what was probably meant. */
static void report_unknown_key(IniState *st, const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (strcmp(keys[i].key, name) == 0) {
                        report(st, LOG_WARNING, st->line, "%s= belongs in [%s], not [%s]; ignored", keys[i].key,
                               section_name(keys[i].section), section_name(st->section));
                        return;
                }
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (keys[i].section == st->section && typo_of(name, keys[i].key)) {
                        report(st, LOG_WARNING, st->line, "unknown key '%s' in [%s]; did you mean '%s'? Ignored",
                               name, section_name(st->section), keys[i].key);
                        return;
                }
        report(st, LOG_WARNING, st->line, "unknown key '%s' in [%s]; ignored", name, section_name(st->section));
}

static int handler(void *user, const char *section, const char *name, const char *value) {
        IniState *st = user;
        RuleOrigin o = { .path = st->path, .line = st->line };

        if (st->error < 0)
                return 1;
        switch (st->section) {
        case SECTION_BROKEN:
        case SECTION_UNKNOWN:
                return 1;
        case SECTION_NONE:
                report(st, LOG_WARNING, st->line, "%s= is outside any section; ignored", name);
                return 1;
        default:
                break;
        }
        if (!*name) {
                report(st, LOG_ERR, st->line, "missing key name before '='; line ignored");
                return 1;
        }
        /* "Class=bg   # why" keeps the '#' part in the value: a trailing
         * comment needs ';'. Nothing legitimate has a blank before '#'. */
        const char *hash = strchr(value, '#');
        if (hash && hash > value && isspace((unsigned char) hash[-1]))
                report(st, LOG_WARNING, st->line,
                       "'#' starts a comment only at the start of a line; \"%s\" is part of the value (use ';')",
                       hash);
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (keys[i].section == st->section && strcmp(keys[i].key, name) == 0) {
                        note(st, keys[i].apply(st, keys[i].arg, value, o));
                        return 1;
                }
        report_unknown_key(st, name);
        /* Always "success": the error is ours to report, not inih's. */
        return 1;
}

/* inih's rule for an inline comment: ';' after whitespace. The first of
 * chars before such a comment, or NULL. */
static char *find_before_comment(char *s, const char *chars) {
        bool was_space = false;
        for (; *s; s++) {
                if (strchr(chars, *s))
                        return s;
                if (was_space && *s == ';')
                        return NULL;
                was_space = isspace((unsigned char) *s);
        }
        return NULL;
}

static void begin_section(IniState *st, char *name) {
        st->section = SECTION_UNKNOWN;
        for (size_t i = 0; i < ELEMENTSOF(sections); i++) {
                if (sections[i].kind == SECTION_THREAD) {
                        if (strncmp(name, "Thread:", 7) == 0)
                                st->section = SECTION_THREAD;
                } else if (strcmp(name, sections[i].name) == 0)
                        st->section = sections[i].kind;
        }

        if (st->section == SECTION_THREAD) {
                const char *glob = name + 7;
                ThreadRule *t;
                if (!*glob) {
                        report(st, LOG_ERR, st->line, "[Thread:] needs a thread name or glob; section ignored");
                        st->section = SECTION_BROKEN;
                        return;
                }
                int r = app_rule_thread(st->app, glob, (RuleOrigin) { st->path, st->line }, &t);
                note(st, r);
                if (r < 0) {
                        st->section = SECTION_BROKEN;
                        return;
                }
                st->thread = (size_t) (t - st->app->threads);
                return;
        }
        if (st->section != SECTION_UNKNOWN)
                return;
        for (size_t i = 0; i < ELEMENTSOF(sections); i++) {
                bool thread = sections[i].kind == SECTION_THREAD;
                /* "[thread:x]", "[Threads:x]": judge the part before the glob. */
                const char *colon = strchr(name, ':');
                _cleanup_free_ char *head = thread && colon ? strndup(name, (size_t) (colon - name)) : NULL;
                if (thread && colon && !head) {
                        note(st, -ENOMEM);
                        return;
                }
                if (thread ? head && typo_of(head, "Thread") : typo_of(name, sections[i].name)) {
                        report(st, LOG_WARNING, st->line, "unknown section [%s]; did you mean [%s%s]? Its keys are ignored",
                               name, sections[i].name, thread ? colon + 1 : "");
                        return;
                }
        }
        report(st, LOG_WARNING, st->line, "unknown section [%s]; its keys are ignored", name);
}

static char *as_comment(char *str) {
        strcpy(str, "#");
        return str;
}

static char *reader(char *str, int num, void *stream) {
        IniState *st = stream;

        if (st->pos >= st->end)
                return NULL;
        const char *start = st->pos;
        const char *nl = memchr(start, '\n', (size_t) (st->end - start));
        const char *stop = nl ? nl : st->end;
        st->pos = nl ? nl + 1 : st->end;
        st->line++;

        if (memchr(start, '\0', (size_t) (stop - start))) {
                report(st, LOG_ERR, st->line, "NUL byte in line; line ignored");
                return as_comment(str);
        }
        if (st->line == 1 && stop - start >= 3 && memcmp(start, "\xef\xbb\xbf", 3) == 0)
                start += 3;
        while (start < stop && (*start == ' ' || *start == '\t'))
                start++;
        size_t len = (size_t) (stop - start);
        if (len > 0 && start[len - 1] == '\r')
                len--;
        if (len >= (size_t) num) {
                report(st, LOG_ERR, st->line, "line longer than %d characters; %s ignored", num - 1,
                       *start == '[' ? "section" : "line");
                if (*start == '[')
                        st->section = SECTION_BROKEN;
                return as_comment(str);
        }
        memcpy(str, start, len);
        str[len] = '\0';

        if (len == 0 || str[0] == '#' || str[0] == ';')
                return str;
        if (str[0] == '[') {
                char *close = find_before_comment(str + 1, "]");
                if (!close) {
                        report(st, LOG_ERR, st->line, "section header without ']'; section ignored");
                        st->section = SECTION_BROKEN;
                        return as_comment(str);
                }
                *close = '\0';
                begin_section(st, str + 1);
                *close = ']';
                return str;
        }
        if (!find_before_comment(str, "=:")) {
                report(st, LOG_ERR, st->line, "expected 'Key=Value' or '[Section]'; line ignored");
                return as_comment(str);
        }
        return str;
}

int ini_load_buffer(AppRule *app, const char *path, const char *text, size_t len, DiagList *diag) {
        IniState st = {
                .app = app,
                .path = path,
                .pos = text,
                .end = text + len,
                .diag = diag,
        };

        int r = ini_parse_stream(reader, &st, handler, &st);
        if (st.error < 0)
                return st.error;
        if (r == -2)
                return -ENOMEM;
        if (r > 0)
                /* The reader lets through only lines inih accepts; should
                 * the two ever disagree, say so rather than nothing. */
                note(&st, diag_add(diag, LOG_ERR, path, (unsigned) r, "cannot parse this line; ignored"));
        return st.error;
}

int ini_load_file(AppRule *app, const char *path, DiagList *diag) {
        _cleanup_free_ char *text = NULL;
        size_t len;

        int r = read_rule_file(path, &text, &len, diag);
        if (r <= 0)
                return r;
        return ini_load_buffer(app, path, text, len, diag);
}
