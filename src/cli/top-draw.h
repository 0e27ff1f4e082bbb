/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl top, the terminal view: ncurses draws the lines top-format.c
 * makes, laid out for the screen, from a line the user scrolled to, and
 * reads the keys. */
#pragma once

#include <stddef.h>

#include "cli/top-model.h"

/* Take over the terminal (0) or fail (-ENOTTY); give it back. */
int top_draw_start(void);
void top_draw_stop(void);

/* What the screen shows besides the snapshot. */
typedef struct TopScreen {
        TopSort sort;
        double delay_sec;
        TopFilter filter;
        size_t offset;          /* the first line of the view on the screen; clamped by top_draw */
} TopScreen;

/* Lines of the view that fit under the title: what a page scrolls by. */
size_t top_draw_body_lines(void);

/* Draw one screen: the title, the column names, the view's lines from
 * s->offset, and the keys, where the view is, on the last line. */
void top_draw(const TopSnapshot *cur, const TopView *v, TopScreen *s);

/* Wait up to timeout_ms for a key: the key, KEY_RESIZE after the window
 * changed size, or -1 when the time ran out. */
int top_draw_key(int timeout_ms);

/* Ask for a name on the last line, as top and less do after '/': Enter
 * keeps it (empty: no filter), Escape keeps the one before. Waits for the
 * user. */
void top_draw_ask_filter(TopFilter *f);
