/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A table of text for qosctl's lists: columns as wide as their widest cell,
 * and on a terminal cut to its width, the way ps and systemctl do it: the
 * columns that may shrink give up their width in the order given, a long
 * cell ends (or starts) with an ellipsis, a column that would be too narrow
 * to say anything is left out. Cells are text already escaped for the
 * terminal (term-escape.h); widths are counted in columns on the screen. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum TableCut {
        TABLE_CUT_NEVER,        /* always whole */
        TABLE_CUT_END,          /* "policy=idle nice=1…": the start says most */
        TABLE_CUT_PATH,         /* a path keeps its end ("…/apps.d/firefox.conf:9"),
                                 * other text its start, as TABLE_CUT_END */
} TableCut;

typedef struct TableColumn {
        const char *header;
        bool right;             /* numbers: aligned right */
        TableCut cut;
        size_t min;             /* a cut column is not made narrower than this... */
        bool drop;              /* ...or, when true, left out instead */
        unsigned order;         /* cut columns give up width lowest order first */
        bool hide_blank;        /* on a terminal, left out when every cell is "-" */
        size_t width;           /* >0: this wide whatever the cells, so a live
                                 * view's columns stay put between refreshes */
} TableColumn;

typedef struct Table {
        const TableColumn *columns;
        size_t n_columns;
        char **cells;           /* n_rows * n_columns, owned */
        size_t n_rows;
} Table;

void table_init(Table *t, const TableColumn *columns, size_t n_columns);
void table_clear(Table *t);

/* One row of n_columns cells, copied. -ENOMEM. */
int table_add_row(Table *t, const char *const *cells);

/* The text's width on the screen: one column a character, two for the
 * wide ones of East Asian scripts where the locale can tell. */
size_t table_text_width(const char *s);

/* Whether widths are counted in the user's UTF-8 locale (else a byte is a
 * column and the ellipsis is "..."). */
bool table_locale_is_utf8(void);

/* The bytes of s's longest start that fits in width columns. */
size_t table_fit_bytes(const char *s, size_t width);

/* The width of each column (0: left out) for a screen `width` columns wide
 * (0: no limit); ret has n_columns entries. */
void table_layout(const Table *t, size_t width, size_t *ret);

/* One row (SIZE_MAX: the header) laid out in the widths w (table_layout),
 * one space between columns, no trailing blanks, no longer than width
 * (0: no limit). A new string, NULL without memory. */
char *table_format_row(const Table *t, const size_t *w, size_t width, size_t row);

/* Print the header and the rows, one space between columns and no
 * trailing blanks, no line longer than width (0: no limit). */
void table_print(const Table *t, FILE *f, size_t width);

/* The terminal's width when fd is one (else 0: a pipe or a file, where
 * lines are as long as they need to be). */
size_t table_terminal_width(int fd);
