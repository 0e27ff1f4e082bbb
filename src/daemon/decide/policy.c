/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "decide/policy.h"

int policy_decide(const RuleSet *rs, const ProcessRecord *p, const char *thread_name,
                  Decision *ret) {
        ProcessInfo info = process_record_info(p);
        Decision d = {};
        int r;

        if (!rs) {
                *ret = d;
                return 0;
        }
        r = ruleset_match(rs, &info, thread_name, &d.match);
        if (r < 0)
                return r;
        /* The matcher applies MaxClass; requested is what Class= asked. */
        if (r > 0 && qclass_is_valid(d.match.class)) {
                d.class = d.match.class;
                d.wanted = qclass_is_valid(d.match.requested) ? d.match.requested : d.class;
                d.capped = d.class != d.wanted;
        }
        *ret = d;
        return r;
}

void policy_gate_interactive(Decision *d, bool outside, bool audio) {
        if (d->class != QCLASS_USER_INTERACTIVE || !outside || d->match.interactive_exempt)
                return;
        d->class = audio ? QCLASS_USER_INITIATED : QCLASS_UTILITY;
        d->held = true;
}

const char *decision_origin(const Decision *d, char *buf, size_t size) {
        if (d->match.origin.path && !d->game)
                snprintf(buf, size, "%s:%u", d->match.origin.path, d->match.origin.line);
        else if (d->game)
                snprintf(buf, size, "%s", "a game gamemode runs (no rule names it)");
        else
                snprintf(buf, size, "%s", "");
        return buf;
}
