/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/top-draw.h"
#include "cli/top-format.h"

#define LINE_MAX_CHARS 512

static SCREEN *screen;

int top_draw_start(void) {
        if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
                return -ENOTTY;
        /* newterm, not initscr: initscr exits the program when $TERM is
         * unknown; newterm returns NULL and the caller can say so. */
        screen = newterm(NULL, stdout, stdin);
        if (!screen)
                return -ENOTTY;
        cbreak();
        noecho();
        nonl();
        keypad(stdscr, TRUE);
        curs_set(0);
        return 0;
}

void top_draw_stop(void) {
        endwin();
        delscreen(screen);
        screen = NULL;
}

/* One line at y, cut to the width. A reverse-video line (the column names,
 * the keys) is a bar across the whole screen, as top draws it. */
static void put_line(int y, attr_t attr, const char *s) {
        int x, yy;
        if (y >= LINES)
                return;
        attron(attr);
        mvaddnstr(y, 0, s, COLS);
        getyx(stdscr, yy, x);
        if ((attr & A_REVERSE) && yy == y && x < COLS)
                hline(' ', COLS - x);
        attroff(attr);
}

void top_draw(const TopSnapshot *cur, const TopView *v, TopSort sort, double delay_sec) {
        char line[LINE_MAX_CHARS];
        int y = 0;

        erase();
        for (size_t i = 0; i < TOP_TITLE_LINES; i++) {
                top_format_title(cur, v, sort, delay_sec, i, line, sizeof line);
                put_line(y++, i == 0 ? A_BOLD : A_NORMAL, line);
        }
        y++;
        top_format_columns(line, sizeof line);
        put_line(y++, A_REVERSE, line);

        int body = LINES - y - 1; /* the keys take the last line */
        size_t *shown = calloc(v->n_classes ? v->n_classes : 1, sizeof *shown);
        if (shown && body > 0)
                top_view_fit(v, (size_t) body, shown);
        for (size_t c = 0; shown && c < v->n_classes && y < LINES - 1; c++) {
                top_format_class(&v->classes[c], shown[c], line, sizeof line);
                put_line(y++, A_BOLD, line);
                for (size_t i = 0; i < shown[c] && y < LINES - 1; i++) {
                        top_format_row(&v->rows[v->classes[c].first + i], line, sizeof line);
                        put_line(y++, A_NORMAL, line);
                }
        }
        free(shown);
        snprintf(line, sizeof line, "w: sort by wait   c: sort by cpu   q: quit");
        put_line(LINES - 1, A_REVERSE, line);
        refresh();
}

int top_draw_key(int timeout_ms) {
        timeout(timeout_ms);
        int k = getch();
        return k == ERR ? -1 : k;
}
