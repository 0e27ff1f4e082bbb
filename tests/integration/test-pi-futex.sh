#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The kernel's PI futexes do not lend a SCHED_NORMAL waiter's weight to
# the owner, which is why libqos lends classes in user space. A nice 19
# owner holds a FUTEX_LOCK_PI lock while a nice -10 waiter blocks: its
# se.load.weight must stay nice 19's. The control, a SCHED_FIFO waiter,
# shows the measurement does see a boost (the owner's prio goes real-time).
. "$(dirname "$0")/lib.sh"
: "${QOS_PI_FUTEX:?}"
require_root

read -r kind p0 w0 p1 w1 < <("$QOS_PI_FUTEX" normal)
echo "# nice -10 waiter: owner prio $p0 -> $p1, se.load.weight $w0 -> $w1"
assert_eq "$kind" normal "helper output"
assert_eq "$w1" "$w0" "owner's load weight while a nice -10 waiter blocks"
assert_eq "$w0" 15360 "nice 19's load weight"
ok "a PI futex leaves a SCHED_NORMAL owner's weight at nice 19's ($w0) although its prio reads $p1"

read -r kind p0 w0 p1 w1 < <("$QOS_PI_FUTEX" fifo)
echo "# SCHED_FIFO 10 waiter: owner prio $p0 -> $p1, se.load.weight $w0 -> $w1"
[ "$p1" -lt 100 ] || fail "a SCHED_FIFO waiter did not boost the owner (prio $p1)"
ok "the same measurement sees the real-time boost (prio $p0 -> $p1)"
