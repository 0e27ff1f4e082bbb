/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl top: the view as lines of plain text. The batch output prints
 * them; the terminal view draws the same lines, laid out for the screen's
 * width, so the two never differ in what they say. */
#pragma once

#include <stddef.h>

#include "cli/top-model.h"

/* The lines above the table: what, when, how often, sorted how; where the
 * classes come from; the totals of every thread; which threads are shown. */
#define TOP_TITLE_LINES 4
void top_format_title(const TopSnapshot *cur, const TopView *v, const TopFilter *filter, TopSort sort,
                      double delay_sec, size_t line, char *buf, size_t size);

/* The table under the title: the column names, then each line of the view
 * (top_view_line: a class's totals under the CPU% and WAIT columns, or a
 * thread). The columns keep their place between refreshes; on a screen
 * `width` columns wide (0: no limit) RULE is cut, keeping its end, and
 * GROUP is left out before a line runs past it. What others chose (a
 * thread's name, a rule file's path, an error quoted from qosd) is escaped
 * for the terminal (term-escape.h). */
typedef struct TopLines {
        char *columns;
        char **lines;           /* top_view_n_lines() of them */
        size_t n;
} TopLines;

int top_format_lines(const TopView *v, size_t width, TopLines *ret);
void top_lines_clear(TopLines *l);
