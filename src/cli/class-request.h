/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosctl set and run ask qosd for a class (SetThreadClass, the broker), as
 * libqos does for programs: qosd decides by its policy (own process up or
 * down, another process of the user down only, the foreground gate, the
 * caps), applies all of the class (the group and another thread's timer
 * slack too, which a user cannot) and says what it granted. Only when qosd
 * is not running do they set the knobs themselves (cli_apply_to_thread). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "core/qclass.h"

typedef struct ClassRequester {
        sd_bus *bus;            /* NULL: qosd is not running */
        const char *command;    /* "set", "run": names the command in messages */
} ClassRequester;

/* What qosd answered for one thread. */
typedef struct ClassAnswer {
        QClass asked, granted;  /* granted: UNSPECIFIED when the thread exited meanwhile */
        char reason[256];       /* qosd's words ("granted", "held at utility: ..."), escaped */
} ClassAnswer;

/* Find qosd on the system bus: 1 when it owns its name, 0 when it is not
 * running (no system bus, or no one owns the name), so that the caller
 * sets the knobs itself. */
int class_request_open(ClassRequester *q, const char *command);
void class_request_close(ClassRequester *q);

/* Ask qosd for class c for thread tid. 0 with *ret filled in; otherwise it
 * prints why in one line and returns the exit code (cli.h). A thread that
 * has exited is 0 with ret->granted UNSPECIFIED when vanished_ok (it was
 * one of many), else EXIT_NOTFOUND. With verbose, prints the knobs that
 * changed. */
int class_request_thread(ClassRequester *q, pid_t tid, QClass c, bool verbose, bool vanished_ok,
                         ClassAnswer *ret);

/* "user-initiated (granted)", "user-interactive held at utility: not in
 * the foreground": what a user reads. */
const char *class_answer_format(const ClassAnswer *a, char *buf, size_t size);

/* "pid 1234 (make)", or "thread 1240 (cc1) of pid 1234": the thread named
 * as the user knows it, its name escaped. */
const char *cli_thread_subject(pid_t tid, char *buf, size_t size);
