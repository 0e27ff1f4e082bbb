/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Cases of qos-plain-mutex beyond one holder and one waiter.
 *
 * lend_chain(): bg-tail holds m2; bg-middle holds m1 and waits on m2;
 * then ui-waiter waits on m1. The loan must reach bg-tail along the chain.
 * Prints bg-tail's settings before, while waited on (polled until they
 * change, poll_ms at most) and after its unlock, bg-middle's once it has
 * m2 (still lent: ui-waiter waits on m1) and after its unlocks.
 *
 * lend_second(): bg-holder holds m; ui-first waits with a timedlock that
 * gives up after give_up_ms, ui-second waits the moment ui-first's loan
 * shows on the holder (before its lender may have heard back). After ui-first gave up, the holder must still be raised
 * (ui-second's loan) until its unlock.
 *
 * lend_signal(): ui-waiter sleeps in pthread_cond_wait(); bg-signaller
 * takes the mutex, signals (or broadcasts) and reads its settings while it
 * still holds the mutex the waiter must take again, then after its unlock.
 */
#pragma once

#include <stdbool.h>

int lend_chain(unsigned poll_ms);
int lend_signal(bool broadcast);
int lend_second(unsigned poll_ms, unsigned give_up_ms);
