#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# Every class applied to a real thread and read back from the kernel's own
# reports (/proc/TID/stat, /proc/TID/sched, ionice, timerslack_ns), then
# utility brings the thread back to exactly the kernel's defaults.
. "$(dirname "$0")/lib.sh"
require_root

# The kernel's default slice as it reports it for a task nobody touched:
# se.slice on EEVDF kernels, nothing on CFS ones (6.1).
default_slice=$(sched_field 2 se.slice)

# Custom slices are a 6.12+ feature; the test asks the kernel itself (not
# qosd's probe) and then holds qosd to that answer: slices applied where
# they work, left at the default and shown as n/a where they do not.
if [ "$("$QOS_KERNEL_PROBE" slice)" = supported ]; then
        slices=("500000" "1000000" "8.00ms")
        slice_changes=yes # every step of the loop below changes the slice
else
        slices=("$default_slice" "$default_slice" "n/a")
        slice_changes=no
fi

# policy nice se.slice ionice timerslack — what the class table promises.
declare -A want=(
        [user-interactive]="0 -20 ${slices[0]} best-effort:prio0 10000"
        [user-initiated]="0 -5 ${slices[1]} best-effort:prio2 50000"
        [utility]="0 0 $default_slice none:prio0 50000"
        [background]="5 19  idle 10000000"
)

start_threads worker
tid=$(tid_of worker)
[ -n "$tid" ] || fail "no worker thread"

for class in user-interactive user-initiated background utility; do
        out=$("$QOSCTL" set -v -c "$class" -p "$tid") || fail "set $class exited $?"
        assert_eq "$(kernel_view "$tid")" "${want[$class]}" "kernel view of $class"
        # -v lists what the kernel reads back as changed: a slice the
        # kernel ignored must never show up there as applied.
        [[ $out == *" slice "* ]] && shown=yes || shown=no
        assert_eq "$shown" "$slice_changes" "slice in set -v for $class ($out)"
        got=$("$QOSCTL" get -p "$tid" | awk 'NR == 2 { print $3 }')
        assert_eq "$got" "$class" "qosctl get reads $class back"
        ok "$class applied and read back"
done

# The background slice is not in /proc/TID/sched under SCHED_IDLE; qosctl
# reads it with sched_getattr (and says n/a where the kernel has none).
"$QOSCTL" set -c background -p "$tid"
assert_eq "$("$QOSCTL" get -p "$tid" | awk 'NR == 2 { print $6 }')" "${slices[2]}" "background slice via sched_getattr"

# Utility is the kernel's own default: a kernel thread nobody has touched
# reads back as utility.
assert_eq "$("$QOSCTL" get -p 2 | awk 'NR == 2 { print $3 }')" "utility" "kthreadd reads as utility"

# Leaving background restores exactly the defaults, slice included (a
# custom slice would otherwise be inherited by everything started later).
"$QOSCTL" set -c utility -p "$tid"
assert_eq "$(kernel_view "$tid")" "0 0 $default_slice none:prio0 50000" "back to kernel defaults"
ok "utility restores the kernel defaults exactly"

# reset-on-fork: a child of a user-interactive process starts at utility;
# a child of a background process stays background. The shell forks cat
# because another command follows (a last command may be exec()ed in place,
# as busybox sh does, which would read the parent).
child=$("$QOSCTL" run -c user-interactive sh -c 'cat /proc/self/stat; true')
set -- ${child##*) }
assert_eq "${17} ${39}" "0 0" "child of user-interactive starts at nice 0, SCHED_NORMAL"
child=$("$QOSCTL" run -c background sh -c 'cat /proc/self/stat; true')
set -- ${child##*) }
assert_eq "${17} ${39}" "19 5" "child of background stays background"
ok "reset-on-fork for the user classes, inheritance for background"
