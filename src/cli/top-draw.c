/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/table.h"
#include "cli/top-draw.h"
#include "cli/top-format.h"

#define LINE_MAX_CHARS 512
#define KEY_ESCAPE 27

static SCREEN *screen;

int top_draw_start(void) {
        if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
                return -ENOTTY;
        /* newterm, not initscr: initscr exits the program when $TERM is
         * unknown; newterm returns NULL and the caller can say so. */
        /* The lines are cut for the screen in the user's UTF-8 locale
         * (table.h); ncursesw must draw them in it too, or an ellipsis or
         * a name in another script comes out as bytes. */
        if (table_locale_is_utf8())
                (void) setlocale(LC_CTYPE, "");
        screen = newterm(NULL, stdout, stdin);
        if (!screen)
                return -ENOTTY;
        cbreak();
        noecho();
        nonl();
        keypad(stdscr, TRUE);
        set_escdelay(25); /* Escape alone, not the start of an arrow key's sequence */
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
        mvaddnstr(y, 0, s, COLS > 0 ? (int) table_fit_bytes(s, (size_t) COLS) : 0);
        getyx(stdscr, yy, x);
        if ((attr & A_REVERSE) && yy == y && x < COLS)
                hline(' ', COLS - x);
        attroff(attr);
}

/* The title, a blank line, the column names; the keys on the last line. */
#define HEAD_LINES (TOP_TITLE_LINES + 2)

size_t top_draw_body_lines(void) {
        return LINES > HEAD_LINES + 1 ? (size_t) (LINES - HEAD_LINES - 1) : 0;
}

static void draw_keys(const TopView *v, size_t first, size_t shown) {
        char line[LINE_MAX_CHARS];
        size_t n = top_view_n_lines(v);

        if (shown < n)
                snprintf(line, sizeof line, "lines %zu-%zu of %zu   arrows/PgUp/PgDn: scroll   ", n ? first + 1 : 0,
                         first + shown, n);
        else
                line[0] = '\0';
        size_t len = strlen(line);
        snprintf(line + len, sizeof line - len, "/: find   a: all   k: kernel   w/c: sort   q: quit");
        put_line(LINES - 1, A_REVERSE, line);
}

void top_draw(const TopSnapshot *cur, const TopView *v, TopScreen *s) {
        char line[LINE_MAX_CHARS];
        TopLines lines = {};
        int y = 0;

        erase();
        for (size_t i = 0; i < TOP_TITLE_LINES; i++) {
                top_format_title(cur, v, &s->filter, s->sort, s->delay_sec, i, line, sizeof line);
                put_line(y++, i == 0 ? A_BOLD : A_NORMAL, line);
        }
        y++;
        if (top_format_lines(v, COLS > 0 ? (size_t) COLS : 0, &lines) < 0) {
                put_line(y, A_BOLD, "qosctl top: out of memory");
                refresh();
                return;
        }
        put_line(y++, A_REVERSE, lines.columns);

        size_t body = top_draw_body_lines(), shown = 0;
        s->offset = top_scroll_clamp(s->offset, lines.n, body);
        for (size_t i = s->offset; i < lines.n && shown < body; i++, shown++) {
                size_t c;
                put_line(y++, top_view_line(v, i, &c) ? A_NORMAL : A_BOLD, lines.lines[i]);
        }
        draw_keys(v, s->offset, shown);
        top_lines_clear(&lines);
        refresh();
}

int top_draw_key(int timeout_ms) {
        timeout(timeout_ms);
        int k = getch();
        return k == ERR ? -1 : k;
}

void top_draw_ask_filter(TopFilter *f) {
        char text[sizeof f->text] = "";
        size_t len = 0;

        curs_set(1);
        for (;;) {
                char prompt[sizeof text + 32];
                snprintf(prompt, sizeof prompt, "find (thread or process name): %s", text);
                move(LINES - 1, 0);
                clrtoeol();
                put_line(LINES - 1, A_NORMAL, prompt);
                refresh();
                timeout(-1);
                int k = getch();
                if (k == KEY_ESCAPE)
                        break;
                if (k == '\n' || k == '\r' || k == KEY_ENTER) {
                        memcpy(f->text, text, sizeof text);
                        break;
                }
                if ((k == KEY_BACKSPACE || k == 127 || k == '\b') && len > 0)
                        text[--len] = '\0';
                else if (k >= 0x20 && k < 0x7f && len + 1 < sizeof text) {
                        text[len++] = (char) k;
                        text[len] = '\0';
                }
        }
        curs_set(0);
}
