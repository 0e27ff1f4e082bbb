/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "focus/focus-mutter.h"
#include "focus/focus.h"
#include "focus/foreground.h"
#include "focus/relayed.h"
#include "core/log.h"
#include "core/macro.h"
#include "core/proc.h"
#include "core/rate-limit.h"
#include "focus/seats.h"

struct Focus {
        Foreground set;                 /* what the newest source said */
        char source[FOCUS_SOURCE_MAX];  /* its name; "" while none has spoken */
        uid_t owner;                    /* the user it spoke for; -1: a trusted caller */
        char *sender;                   /* the connection the claim dies with, or NULL */
        uint64_t since_usec;            /* CLOCK_MONOTONIC of that event */
        uint64_t events, refused;
        Seats seats;
        MutterFocus *mutter;
        RateLimiter cost;               /* per user: what session sources' changes cost qosd, in µs */
};

static bool in_set(const Focus *f, pid_t pid) {
        uint64_t start;
        return proc_start_time(pid, &start) >= 0 && foreground_contains(&f->set, pid, start);
}

static uid_t owner_of(pid_t pid) {
        uid_t uid;
        return proc_uid(pid, &uid) >= 0 ? uid : (uid_t) -1;
}

/* The default policy's answer: root and who sits at a seat. */
static bool sits_at_machine(const Focus *f, uid_t uid) {
        return uid == 0 || seats_user_active(&f->seats, uid);
}

bool focus_holds_interactive(const Manager *m, pid_t pid) {
        const Focus *f = m->focus;
        if (!f || m->settings.foreground_gate == GATE_NO || relayed_contains_pid(m, RELAYED_GAMES, pid))
                return false;
        if (f->set.known || m->settings.foreground_gate == GATE_YES)
                return !in_set(f, pid);
        return !sits_at_machine(f, owner_of(pid));
}

const char *focus_hold_reason(const Manager *m, pid_t pid, char *buf, size_t size) {
        const Focus *f = m->focus;
        if (f && f->set.known)
                snprintf(buf, size, "not in the foreground (source: %s)", f->source);
        else if (m->settings.foreground_gate == GATE_YES)
                snprintf(buf, size, "not in the foreground (no source has spoken; ForegroundGate=yes)");
        else
                snprintf(buf, size, "no foreground source, and uid %u has no active seat session",
                         (unsigned) owner_of(pid));
        return buf;
}

const char *focus_state_of(const Manager *m, pid_t pid, char *buf, size_t size) {
        const Focus *f = m->focus;
        if (!f || m->settings.foreground_gate == GATE_NO)
                snprintf(buf, size, "not checked (ForegroundGate=no)");
        else if (relayed_contains_pid(m, RELAYED_GAMES, pid))
                snprintf(buf, size, "yes (a game gamemode runs)");
        else if (f->set.known)
                snprintf(buf, size, "%s (source: %s)", in_set(f, pid) ? "yes" : "no", f->source);
        else if (m->settings.foreground_gate == GATE_YES)
                snprintf(buf, size, "no (no source has spoken; ForegroundGate=yes)");
        else
                snprintf(buf, size, "no source; %s", sits_at_machine(f, owner_of(pid))
                                 ? "its user is root or sits at a seat: user-interactive allowed"
                                 : "its user has no active seat session: user-interactive held");
        return buf;
}

const char *focus_describe(const Manager *m, char *buf, size_t size) {
        const Focus *f = m->focus;
        char seats[128];
        if (!f || m->settings.foreground_gate == GATE_NO) {
                snprintf(buf, size, "off (ForegroundGate=no)");
                return buf;
        }
        if (f->set.known) {
                char who[32] = "a trusted caller";
                if (f->owner != (uid_t) -1)
                        snprintf(who, sizeof who, "uid %u", (unsigned) f->owner);
                snprintf(buf, size, "%s for %s, %zu process(es), %.1f s ago", f->source, who,
                         pid_map_size(&f->set.by_pid),
                         (double) (clock_usec(CLOCK_MONOTONIC) - f->since_usec) / 1e6);
        } else if (m->settings.foreground_gate == GATE_YES)
                snprintf(buf, size, "no source yet: nothing is in the foreground (ForegroundGate=yes)");
        else
                snprintf(buf, size, "no source: user-interactive for root and active seat users (%s)",
                         seats_describe(&f->seats, seats, sizeof seats));
        return buf;
}

/* Rules and held requests after the gate moved for everyone. */
static void reevaluate_all(Manager *m, const char *why) {
        if (m->gate_moved)
                m->gate_moved(m, NULL, 0, why);
}

static void drop_claim(Manager *m, const char *why) {
        Focus *f = m->focus;
        /* With ForegroundGate=yes nothing is in front without a source:
         * only the processes that were in the set lose. */
        bool moved = m->settings.foreground_gate != GATE_YES || pid_map_size(&f->set.by_pid) > 0;
        log_info("the foreground from %s is dropped: %s", f->source[0] ? f->source : "SetForeground", why);
        foreground_clear(&f->set);
        f->source[0] = '\0';
        f->owner = (uid_t) -1;
        free(f->sender);
        f->sender = NULL;
        if (moved)
                reevaluate_all(m, why);
}

int focus_reset(Manager *m, const char *why) {
        Focus *f = m->focus;
        if (!f->set.known && !f->source[0])
                return 0; /* the default policy already */
        drop_claim(m, why);
        return 1;
}

int focus_set(Manager *m, const char *source, uid_t owner, const char *sender, const pid_t *pids, size_t n) {
        Focus *f = m->focus;
        _cleanup_free_ pid_t *before = NULL, *moved = NULL;
        size_t n_before = 0, n_moved = 0;
        bool was_known = f->set.known;
        char *copy = NULL;
        int r, taken;

        if (sender && !(copy = strdup(sender)))
                return -ENOMEM;
        r = foreground_list(&f->set, &before, &n_before);
        if (r < 0) {
                free(copy);
                return r;
        }
        taken = foreground_set(&f->set, pids, n);
        if (taken < 0) {
                free(copy);
                return taken;
        }
        snprintf(f->source, sizeof f->source, "%s", source);
        f->owner = owner;
        free(f->sender);
        f->sender = copy;
        f->since_usec = clock_usec(CLOCK_MONOTONIC);
        f->events++;
        r = foreground_moved(&f->set, before, n_before, &moved, &n_moved);
        if (r < 0)
                return r;
        log_debug("foreground from %s (uid %d): %zu process(es)", source, owner == (uid_t) -1 ? -1 : (int) owner,
                  n_moved - n_before);
        if (!m->gate_moved)
                return taken;
        /* Only the processes that left or entered change (all of them when
         * the set replaces the default policy). */
        if (!was_known && m->settings.foreground_gate == GATE_AUTO) {
                m->gate_moved(m, NULL, 0, "a foreground source spoke");
                return taken;
        }
        m->gate_moved(m, moved, n_moved, "the foreground changed");
        return taken;
}

bool focus_user_at_seat(const Manager *m, uid_t uid) {
        return m->focus && seats_user_active(&m->focus->seats, uid);
}

bool focus_budget_ready(Manager *m, uid_t uid) {
        return rate_limit_ready(&m->focus->cost, (uint64_t) uid + 1, clock_usec(CLOCK_MONOTONIC));
}

void focus_budget_charge(Manager *m, uid_t uid, uint64_t usec) {
        /* One change is charged a burst at most: however large the
         * programs, the user's next change waits ten seconds at most. */
        double cost = usec > FOCUS_COST_BURST_USEC ? FOCUS_COST_BURST_USEC : (double) usec;
        rate_limit_charge(&m->focus->cost, (uint64_t) uid + 1, cost, clock_usec(CLOCK_MONOTONIC));
}

void focus_count_refused(Manager *m) {
        m->focus->refused++;
}

int focus_list(const Manager *m, pid_t **ret, size_t *ret_n) {
        return foreground_list(&m->focus->set, ret, ret_n);
}

void focus_connection_gone(Manager *m, const char *name) {
        Focus *f = m->focus;
        relayed_connection_gone(m, name);
        if (f && f->sender && strcmp(f->sender, name) == 0)
                drop_claim(m, "its source disconnected");
}

void focus_bus_lost(Manager *m) {
        Focus *f = m->focus;
        relayed_connection_gone(m, NULL);
        if (f && f->sender)
                drop_claim(m, "the bus went away");
}

bool focus_gate_engaged(const Manager *m) {
        return m->focus && m->settings.foreground_gate != GATE_NO &&
               (m->focus->set.known || m->settings.foreground_gate == GATE_YES);
}

uint64_t focus_events(const Manager *m) {
        return m->focus->events;
}

uint64_t focus_refused(const Manager *m) {
        return m->focus->refused;
}

static void on_seats_changed(void *userdata) {
        Manager *m = userdata;
        Focus *f = m->focus;
        mutter_focus_sync(m, f->mutter, &f->seats);
        relayed_user_left(m, focus_user_at_seat);
        if (f->set.known && f->owner != (uid_t) -1 && !seats_user_active(&f->seats, f->owner))
                drop_claim(m, "its user left the seat");
        else if (!f->set.known && m->settings.foreground_gate == GATE_AUTO)
                reevaluate_all(m, "the active seat sessions changed");
}

int focus_start(Manager *m) {
        Focus *f = calloc(1, sizeof *f);
        if (f)
                rate_limit_init(&f->cost, FOCUS_COST_USEC_PER_SEC, FOCUS_COST_BURST_USEC);
        int r;
        if (!f)
                return -ENOMEM;
        f->owner = (uid_t) -1;
        m->focus = f;
        r = seats_start(&f->seats, m->event, on_seats_changed, m);
        if (r < 0)
                return r;
        r = mutter_focus_new(m, &f->mutter);
        if (r < 0)
                return r;
        mutter_focus_sync(m, f->mutter, &f->seats);
        return 0;
}

void focus_free(Manager *m) {
        Focus *f = m->focus;
        if (!f)
                return;
        mutter_focus_free(f->mutter);
        relayed_free(m);
        seats_stop(&f->seats);
        foreground_clear(&f->set);
        free(f->sender);
        free(f);
        m->focus = NULL;
}
