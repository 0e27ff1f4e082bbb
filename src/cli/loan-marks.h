/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The loans qosd holds (ListLoans), as a mark per thread for qosctl ps:
 * "stalled:TID" for a user-class thread that waits on a lock held by a
 * thread of a lower class (TID, raised by the loan while it waits),
 * "waits:TID" for another lender, "lent:CLASS" for a thread raised by
 * loans, "-" for the rest. */
#pragma once

#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "core/qclass.h"

typedef struct CliLoan {
        pid_t owner, lender, via;
        QClass c, base_class;
} CliLoan;

typedef struct CliLoans {
        CliLoan *loans;
        size_t n;
} CliLoans;

/* Ask qosd on the connection of an earlier reply of its; an empty list
 * when it cannot say (nothing printed). */
void cli_loans_fetch(sd_bus_message *earlier, CliLoans *ret);
void cli_loans_clear(CliLoans *l);

/* The mark for thread tid. */
const char *cli_loan_mark(const CliLoans *l, pid_t tid, char *buf, size_t size);
