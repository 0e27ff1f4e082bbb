#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every class applied to a real thread and read back from the kernel's own
# reports (/proc/TID/stat, /proc/TID/sched, ionice, timerslack_ns), then
# utility brings the thread back to exactly the kernel's defaults.
. "$(dirname "$0")/lib.sh"
require_root

default_slice=$(sched_field 2 se.slice)
[ -n "$default_slice" ] || fail "no se.slice for kthreadd; is this an EEVDF kernel?"

# policy nice se.slice ionice timerslack — what the class table promises.
declare -A want=(
        [user-interactive]="0 -20 3000000 best-effort:prio0 10000"
        [user-initiated]="0 -5 1000000 best-effort:prio2 50000"
        [utility]="0 0 $default_slice none:prio0 50000"
        [background]="5 19  idle 10000000"
)

start_threads worker
tid=$(tid_of worker)
[ -n "$tid" ] || fail "no worker thread"

for class in user-interactive user-initiated background utility; do
        "$QOSCTL" set -c "$class" -p "$tid" || fail "set $class exited $?"
        assert_eq "$(kernel_view "$tid")" "${want[$class]}" "kernel view of $class"
        got=$("$QOSCTL" get -p "$tid" | awk 'NR == 2 { print $3 }')
        assert_eq "$got" "$class" "qosctl get reads $class back"
        ok "$class applied and read back"
done

# The background slice is not in /proc/TID/sched under SCHED_IDLE; qosctl
# reads it with sched_getattr.
"$QOSCTL" set -c background -p "$tid"
assert_eq "$("$QOSCTL" get -p "$tid" | awk 'NR == 2 { print $6 }')" "8.00ms" "background slice via sched_getattr"

# Utility is the kernel's own default: a kernel thread nobody has touched
# reads back as utility.
assert_eq "$("$QOSCTL" get -p 2 | awk 'NR == 2 { print $3 }')" "utility" "kthreadd reads as utility"

# Leaving background restores exactly the defaults, slice included (a
# custom slice would otherwise be inherited by everything started later).
"$QOSCTL" set -c utility -p "$tid"
assert_eq "$(kernel_view "$tid")" "0 0 $default_slice none:prio0 50000" "back to kernel defaults"
ok "utility restores the kernel defaults exactly"

# reset-on-fork: a child of a user-interactive process starts at utility;
# a child of a background process stays background.
child=$("$QOSCTL" run -c user-interactive sh -c 'sh -c "cat /proc/\$\$/stat"')
set -- ${child##*) }
assert_eq "${17} ${39}" "0 0" "child of user-interactive starts at nice 0, SCHED_NORMAL"
child=$("$QOSCTL" run -c background sh -c 'sh -c "cat /proc/\$\$/stat"')
set -- ${child##*) }
assert_eq "${17} ${39}" "19 5" "child of background stays background"
ok "reset-on-fork for the user classes, inheritance for background"
