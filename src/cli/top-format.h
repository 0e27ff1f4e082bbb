/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl top: the view as lines of plain text. The batch output prints
 * them; the terminal view draws the same lines, cut to the screen's width,
 * so the two never differ in what they say. */
#pragma once

#include <stddef.h>

#include "cli/top-model.h"

/* The lines above the table: what, when, how often, sorted how; where the
 * classes come from; the totals of every thread. */
#define TOP_TITLE_LINES 3
void top_format_title(const TopSnapshot *cur, const TopView *v, TopSort sort, double delay_sec, size_t line,
                      char *buf, size_t size);

/* The column names. */
void top_format_columns(char *buf, size_t size);

/* A class's totals line ("background: 4 threads" under the CPU% and WAIT
 * columns); `shown` < c->n says how many of its rows are on the screen. */
void top_format_class(const TopClassTotal *c, size_t shown, char *buf, size_t size);

/* One thread. Here and in the lines above, what others chose (a thread's
 * name, a rule file's path, an error quoted from qosd) is escaped for the
 * terminal (term-escape.h). */
void top_format_row(const TopRow *row, char *buf, size_t size);
