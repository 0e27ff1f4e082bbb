/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/bus-client.h"
#include "cli/loan-marks.h"
#include "core/macro.h"

static int read_loans(sd_bus_message *reply, CliLoans *ret) {
        int r = sd_bus_message_enter_container(reply, 'a', QOS_BUS_SIGNATURE_LOAN_ROW);
        while (r > 0) {
                int32_t pid, owner, lender, via;
                uint64_t lock;
                const char *c, *base, *lender_class;
                r = sd_bus_message_read(reply, QOS_BUS_SIGNATURE_LOAN_ROW, &pid, &owner, &lender, &via, &lock, &c,
                                        &base, &lender_class);
                if (r <= 0)
                        break;
                CliLoan *l = realloc(ret->loans, (ret->n + 1) * sizeof *l);
                if (!l)
                        return -ENOMEM;
                ret->loans = l;
                int lc = qclass_from_string(c), bc = qclass_from_string(base);
                ret->loans[ret->n++] = (CliLoan) { .owner = owner, .lender = lender, .via = via,
                                                   .c = lc > 0 ? (QClass) lc : QCLASS_UNSPECIFIED,
                                                   .base_class = bc > 0 ? (QClass) bc : QCLASS_UNSPECIFIED };
        }
        return r;
}

void cli_loans_fetch(sd_bus_message *earlier, CliLoans *ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        *ret = (CliLoans) {};
        /* Quietly: a qosd without ListLoans leaves the column empty. */
        if (sd_bus_call_method(sd_bus_message_get_bus(earlier), QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE,
                               QOS_BUS_METHOD_LIST_LOANS, &error, &reply, "") < 0 ||
            read_loans(reply, ret) < 0)
                cli_loans_clear(ret);
}

void cli_loans_clear(CliLoans *l) {
        free(l->loans);
        *l = (CliLoans) {};
}

const char *cli_loan_mark(const CliLoans *l, pid_t tid, char *buf, size_t size) {
        QClass lent = QCLASS_UNSPECIFIED;
        pid_t waits = 0;
        bool stalled = false;
        for (size_t i = 0; i < l->n; i++) {
                const CliLoan *x = &l->loans[i];
                if (x->owner == tid)
                        lent = qclass_max(lent, x->c);
                if (x->lender == tid && x->via == 0 && !stalled) {
                        waits = x->owner;
                        stalled = x->c >= QCLASS_USER_INITIATED && x->base_class < x->c;
                }
        }
        if (stalled || waits)
                snprintf(buf, size, "%s:%d", stalled ? "stalled" : "waits", (int) waits);
        else if (lent != QCLASS_UNSPECIFIED)
                snprintf(buf, size, "lent:%s", qclass_to_string(lent));
        else
                snprintf(buf, size, "-");
        return buf;
}
