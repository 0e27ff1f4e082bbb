/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include "cli/table.h"
#include "core/macro.h"
#include "core/utf8.h"

/* The user's character type, only when it is UTF-8 (what the cells are),
 * and only for widths: qosctl itself runs in the C locale, where class
 * names compare the same in every language. */
static locale_t utf8_locale(void) {
        static locale_t loc;
        static bool tried;
        if (!tried) {
                tried = true;
                loc = newlocale(LC_CTYPE_MASK, "", (locale_t) 0);
                if (loc && strcmp(nl_langinfo_l(CODESET, loc), "UTF-8") != 0) {
                        freelocale(loc);
                        loc = (locale_t) 0;
                }
        }
        return loc;
}

bool table_locale_is_utf8(void) {
        return utf8_locale() != (locale_t) 0;
}

static const char *ellipsis(void) {
        return utf8_locale() ? "\u2026" : "...";
}

static size_t char_width(uint32_t c) {
        locale_t loc = utf8_locale();
        if (!loc)
                return 1;
        locale_t old = uselocale(loc);
        int w = wcwidth((wchar_t) c);
        uselocale(old);
        return w < 0 ? 1 : (size_t) w;
}

/* The next character of s: its length in bytes (a byte that starts no
 * UTF-8 sequence counts as one character) and its width. */
static size_t next_char(const char *s, size_t *ret_width) {
        uint32_t c;
        size_t n = utf8_decode(s, &c);
        *ret_width = n ? char_width(c) : 1;
        return n ?: 1;
}

size_t table_text_width(const char *s) {
        size_t w = 0, cw;
        while (*s) {
                s += next_char(s, &cw);
                w += cw;
        }
        return w;
}

size_t table_fit_bytes(const char *s, size_t width) {
        const char *p = s;
        size_t used = 0, cw;
        while (*p) {
                size_t n = next_char(p, &cw);
                if (used + cw > width)
                        break;
                used += cw;
                p += n;
        }
        return (size_t) (p - s);
}

void table_init(Table *t, const TableColumn *columns, size_t n_columns) {
        *t = (Table) { .columns = columns, .n_columns = n_columns };
}

void table_clear(Table *t) {
        for (size_t i = 0; i < t->n_rows * t->n_columns; i++)
                free(t->cells[i]);
        free(t->cells);
        t->cells = NULL;
        t->n_rows = 0;
}

int table_add_row(Table *t, const char *const *cells) {
        char **c = realloc(t->cells, (t->n_rows + 1) * t->n_columns * sizeof *c);
        if (!c)
                return -ENOMEM;
        t->cells = c;
        c += t->n_rows * t->n_columns;
        for (size_t i = 0; i < t->n_columns; i++) {
                c[i] = strdup(cells[i] ?: "");
                if (!c[i]) {
                        while (i > 0)
                                free(c[--i]);
                        return -ENOMEM;
                }
        }
        t->n_rows++;
        return 0;
}

static const char *cell(const Table *t, size_t row, size_t col) {
        return t->cells[row * t->n_columns + col];
}

/* A column that would say "-" on every line is room lost on a
 * terminal; a pipe keeps it, for scripts that count columns. */
static bool blank(const Table *t, size_t col) {
        for (size_t r = 0; r < t->n_rows; r++)
                if (strcmp(cell(t, r, col), "-") != 0)
                        return false;
        return true;
}

static size_t natural_width(const Table *t, size_t col) {
        if (t->columns[col].width)
                return t->columns[col].width;
        size_t w = table_text_width(t->columns[col].header);
        for (size_t r = 0; r < t->n_rows; r++) {
                size_t cw = table_text_width(cell(t, r, col));
                if (cw > w)
                        w = cw;
        }
        return w;
}

/* The width of the visible columns with their separators. */
static size_t total_width(const size_t *w, size_t n) {
        size_t total = 0, visible = 0;
        for (size_t i = 0; i < n; i++)
                if (w[i]) {
                        total += w[i];
                        visible++;
                }
        return visible ? total + visible - 1 : 0;
}

/* The column that gives up width next (kind: cut columns above their
 * minimum, or droppable ones still shown), or SIZE_MAX. */
static size_t next_column(const Table *t, const size_t *w, bool drop) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < t->n_columns; i++) {
                const TableColumn *c = &t->columns[i];
                bool can = drop ? c->drop && w[i] > 0 : c->cut != TABLE_CUT_NEVER && w[i] > c->min;
                if (can && (best == SIZE_MAX || c->order < t->columns[best].order))
                        best = i;
        }
        return best;
}

void table_layout(const Table *t, size_t width, size_t *ret) {
        size_t n = t->n_columns;
        _cleanup_free_ bool *dropped = calloc(n ?: 1, sizeof *dropped);

        for (;;) {
                for (size_t i = 0; i < n; i++)
                        ret[i] = dropped && dropped[i] ? 0 : natural_width(t, i);
                if (width == 0 || !dropped)
                        return;
                for (size_t i = 0; i < n; i++)
                        if (t->columns[i].hide_blank && blank(t, i))
                                ret[i] = 0;
                size_t total = total_width(ret, n), i;
                while (total > width && (i = next_column(t, ret, false)) != SIZE_MAX) {
                        size_t take = total - width, room = ret[i] - t->columns[i].min;
                        take = take < room ? take : room;
                        ret[i] -= take;
                        total -= take;
                }
                if (total <= width)
                        return;
                /* Too narrow even so: leave a column out and share again. */
                i = next_column(t, ret, true);
                if (i == SIZE_MAX)
                        return; /* table_print cuts the lines */
                dropped[i] = true;
        }
}

/* Append s to line, cut to width w as the column says, padded to w unless
 * last. */
static void put_cell(FILE *line, const char *s, size_t w, const TableColumn *c, bool last) {
        size_t sw = table_text_width(s), cw;
        const char *e = ellipsis();
        size_t ew = table_text_width(e);

        if (sw > w && w > ew && c->cut == TABLE_CUT_PATH && strchr(s, '/')) {
                /* Skip characters until what is left fits beside the ellipsis. */
                while (*s && sw > w - ew) {
                        s += next_char(s, &cw);
                        sw -= cw;
                }
                fputs(e, line);
                sw += ew;
        } else if (sw > w && w > ew) {
                size_t used = 0;
                while (*s) {
                        size_t len = next_char(s, &cw);
                        if (used + cw > w - ew)
                                break;
                        fwrite(s, 1, len, line);
                        s += len;
                        used += cw;
                }
                fputs(e, line);
                s = "";
                sw = used + ew;
        }
        if (c->right && sw < w)
                fprintf(line, "%*s", (int) (w - sw), "");
        fputs(s, line);
        if (!c->right && !last && sw < w)
                fprintf(line, "%*s", (int) (w - sw), "");
}

char *table_format_row(const Table *t, const size_t *w, size_t width, size_t row) {
        char *text = NULL;
        size_t len, last = 0;
        FILE *line = open_memstream(&text, &len);
        if (!line)
                return NULL;
        for (size_t i = 0; i < t->n_columns; i++)
                if (w[i])
                        last = i;
        bool first = true;
        for (size_t i = 0; i < t->n_columns; i++) {
                if (!w[i])
                        continue;
                if (!first)
                        fputc(' ', line);
                first = false;
                put_cell(line, row == SIZE_MAX ? t->columns[i].header : cell(t, row, i), w[i], &t->columns[i],
                         i == last);
        }
        if (fclose(line) != 0) {
                free(text);
                return NULL;
        }
        /* Within the width whatever the cells held: the last resort. */
        size_t cut = width ? table_fit_bytes(text, width) : strlen(text);
        while (cut > 0 && text[cut - 1] == ' ')
                cut--; /* a cut in a column's padding */
        text[cut] = '\0';
        return text;
}

static void print_row(const Table *t, FILE *f, const size_t *w, size_t width, size_t row) {
        _cleanup_free_ char *text = table_format_row(t, w, width, row);
        if (text) {
                fputs(text, f);
                fputc('\n', f);
        }
}

void table_print(const Table *t, FILE *f, size_t width) {
        _cleanup_free_ size_t *w = calloc(t->n_columns ?: 1, sizeof *w);
        if (!w)
                return;
        table_layout(t, width, w);
        print_row(t, f, w, width, SIZE_MAX);
        for (size_t r = 0; r < t->n_rows; r++)
                print_row(t, f, w, width, r);
}

size_t table_terminal_width(int fd) {
        struct winsize ws;
        if (!isatty(fd))
                return 0;
        if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
                return ws.ws_col;
        const char *e = getenv("COLUMNS");
        long c = e ? strtol(e, NULL, 10) : 0;
        return c > 0 && c < 10000 ? (size_t) c : 80;
}
