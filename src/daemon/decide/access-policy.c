/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "decide/access-policy.h"

static bool is_lower_or_equal(QClass a, int arel, QClass b, int brel) {
        return a < b || (a == b && arel <= brel);
}

/* Hold v at cap if the cap binds; the cap that binds lowest names the
 * reason, so the reply says what the user or admin could change. */
static void hold(AccessVerdict *v, QClass cap, const char *key, const char *origin, bool private) {
        if (!qclass_is_valid(cap) || v->granted <= cap)
                return;
        v->granted = cap;
        v->result = ACCESS_HELD;
        v->reason_private = private;
        snprintf(v->reason, sizeof v->reason, "held at %s: %s=%s (%s)", qclass_to_string(cap), key,
                 qclass_to_string(cap), origin);
}

void access_decide(const AccessRequest *req, AccessVerdict *ret) {
        AccessVerdict v = { .result = ACCESS_GRANTED, .granted = req->requested };
        snprintf(v.reason, sizeof v.reason, "granted");

        if (req->caller_privileged) {
                /* It can do all of it with the kernel directly. uid 0 alone
                 * is not enough: a root service without CAP_SYS_NICE would
                 * make qosd its deputy for what the kernel refuses it. */
                *ret = v;
                return;
        }
        if (req->caller_uid != req->target_uid) {
                v.result = ACCESS_DENIED;
                snprintf(v.reason, sizeof v.reason, "thread of another user");
                *ret = v;
                return;
        }
        if (req->caller_pid != req->target_pid && req->requested != QCLASS_BACKGROUND &&
            (!qclass_is_valid(req->current) ||
             !is_lower_or_equal(req->requested, req->requested_relpri, req->current, req->current_relpri))) {
                /* Same user, another process: the kernel lets it demote
                 * anyway; a promotion would let one program lend itself
                 * another's standing. Background is always lower. What it
                 * may ask for, the gate and the caps still hold below. */
                v.result = ACCESS_DENIED;
                snprintf(v.reason, sizeof v.reason, "thread of another process: only a lower class may be asked for");
                *ret = v;
                return;
        }
        if (req->requested == QCLASS_BACKGROUND) {
                *ret = v; /* always allowed: nothing is cheaper for anyone else */
                return;
        }
        if (req->requested == QCLASS_USER_INTERACTIVE && req->outside) {
                /* As for the rules (policy.h): music must not stutter. */
                v.granted = req->playing_audio ? QCLASS_USER_INITIATED : QCLASS_UTILITY;
                v.result = ACCESS_HELD;
                snprintf(v.reason, sizeof v.reason, "held at %s: %s%s", qclass_to_string(v.granted),
                         req->outside_reason ?: "not in the foreground",
                         req->playing_audio ? " (it plays audio)" : "");
        }
        hold(&v, req->app_cap, "MaxClass", req->app_cap_origin ?: "the application's rules", req->app_cap_private);
        hold(&v, req->user_cap, "RequestMaxClass", "qosd.conf", false);
        *ret = v;
}
