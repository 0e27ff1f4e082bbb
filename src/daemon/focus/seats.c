/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-login.h>
#include <unistd.h>

#include "core/log.h"
#include "core/macro.h"
#include "focus/seats.h"

static void strv_free(char **v) {
        for (char **p = v; p && *p; p++)
                free(*p);
        free(v);
}

static void seats_read(Seats *s) {
        char **seats = NULL;
        int n = sd_get_seats(&seats);
        s->n_active = 0;
        for (int i = 0; i < n && s->n_active < SEATS_MAX; i++) {
                uid_t uid;
                if (sd_seat_get_active(seats[i], NULL, &uid) >= 0)
                        s->active[s->n_active++] = uid;
        }
        strv_free(seats);
}

static int on_monitor(sd_event_source *es, int fd, uint32_t revents, void *userdata) {
        Seats *s = userdata;
        uid_t before[SEATS_MAX];
        size_t n_before = s->n_active;
        memcpy(before, s->active, sizeof before);
        sd_login_monitor_flush(s->monitor);
        seats_read(s);
        if (n_before == s->n_active && memcmp(before, s->active, n_before * sizeof *before) == 0)
                return 0; /* a session came or went, the active ones did not change */
        char buf[128];
        log_info("active seat sessions: %s", seats_describe(s, buf, sizeof buf));
        s->changed(s->userdata);
        return 0;
}

int seats_start(Seats *s, sd_event *event, void (*changed)(void *userdata), void *userdata) {
        sd_login_monitor *mon = NULL;
        int r;

        *s = (Seats) { .changed = changed, .userdata = userdata };
        if (access("/run/systemd/seats", F_OK) < 0) {
                log_info("logind is not running: no seat has an active session");
                return 0;
        }
        s->logind = true;
        /* The monitor first, so that a change between it and the read is
         * not lost. "session" covers seats' active sessions too. */
        r = sd_login_monitor_new(NULL, &mon);
        if (r < 0)
                return log_error_errno(r, "cannot watch logind's sessions: %m");
        s->monitor = mon;
        r = sd_event_add_io(event, &s->source, sd_login_monitor_get_fd(mon),
                            (uint32_t) sd_login_monitor_get_events(mon), on_monitor, s);
        if (r < 0) {
                seats_stop(s);
                return log_error_errno(r, "cannot watch logind's sessions: %m");
        }
        seats_read(s);
        char buf[128];
        log_info("active seat sessions: %s", seats_describe(s, buf, sizeof buf));
        return 0;
}

void seats_stop(Seats *s) {
        s->source = sd_event_source_disable_unref(s->source);
        s->monitor = sd_login_monitor_unref(s->monitor);
}

bool seats_user_active(const Seats *s, uid_t uid) {
        for (size_t i = 0; i < s->n_active; i++)
                if (s->active[i] == uid)
                        return true;
        return false;
}

int seats_session_of_pid_active(pid_t pid) {
        _cleanup_free_ char *session = NULL;
        int r = sd_pid_get_session(pid, &session);
        if (r < 0)
                return 1; /* no session: judged by its user alone */
        return sd_session_is_active(session) > 0;
}

const char *seats_describe(const Seats *s, char *buf, size_t size) {
        if (!s->logind) {
                snprintf(buf, size, "none (logind is not running)");
                return buf;
        }
        if (s->n_active == 0) {
                snprintf(buf, size, "none");
                return buf;
        }
        size_t used = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < s->n_active && used < size; i++)
                used += (size_t) snprintf(buf + used, size - used, "%suid %u", i ? ", " : "",
                                          (unsigned) s->active[i]);
        return buf;
}
