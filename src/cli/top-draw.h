/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl top, the terminal view: ncurses draws the lines top-format.c
 * makes, cut to the screen, and reads the keys. */
#pragma once

#include "cli/top-model.h"

/* Take over the terminal (0) or fail (-ENOTTY); give it back. */
int top_draw_start(void);
void top_draw_stop(void);

/* Draw one screen: the title, the column names, each class's totals and
 * as many of its rows as fit (top_view_fit), the keys on the last line. */
void top_draw(const TopSnapshot *cur, const TopView *v, TopSort sort, double delay_sec);

/* Wait up to timeout_ms for a key: the key, KEY_RESIZE after the window
 * changed size, or -1 when the time ran out. */
int top_draw_key(int timeout_ms);
