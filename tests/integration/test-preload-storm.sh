#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A storm of short-lived processes of a matched program (user-initiated): each
# job reports its own scheduling at the start of main() and at exit. With
# the preload every job runs its whole life in its class; with qosd alone
# the count of those that started or even finished untagged is reported
# (it depends on the machine's load: qosd learns of an exec by an event).
source "$(dirname "$0")/lib.sh"
require_root
start_dbus
qosd_root_init

JOB=$QOSD_BIN/qos-job
cp "$QOS_CLASS_CHECK" "$JOB"
# user-initiated, not background: a job runs in its class from its first
# instruction, and background ones starve as they should beside a busy
# machine's own work (stress-ng on both CPUs left the storm unfinished
# after 5 minutes). Under ASan a job's start is also ten times the work:
# the sanitizer build checks memory safety with fewer.
write_rule job "$JOB" user-initiated
want=$(class_triple user-initiated)
N=${QOS_STORM_JOBS:-300}
[ -z "$(preload_runtime)" ] || N=${QOS_STORM_JOBS:-100}

start_qosd
foreign0=$(qosd_status ForeignChanges)
out=$("$QOS_JOB_STORM" "$N" 4 1000 "$want" "$JOB")
set -- $out
echo "# qosd alone, $N jobs of 1 ms: $6 started untagged, $8 still untagged at exit"

out=$(env "$(preload_env)" "QOS_ROOT=$QOSD_ROOT" "$QOS_JOB_STORM" "$N" 4 1000 "$want" "$JOB")
assert_eq "$out" "jobs $N whole-life $N untagged-at-start 0 untagged-at-exit 0" "jobs with the preload"
assert_eq "$(qosd_status ForeignChanges)" "$foreign0" "jobs qosd took for someone else's"
ok "with the preload all $N jobs ran their whole life in their class, and qosd agreed"
stop_qosd TERM

# Without qosd, the preload alone.
out=$(env "$(preload_env)" "QOS_ROOT=$QOSD_ROOT" "$QOS_JOB_STORM" "$N" 4 1000 "$want" "$JOB")
assert_eq "$out" "jobs $N whole-life $N untagged-at-start 0 untagged-at-exit 0" "jobs with the preload, no qosd"
ok "the preload alone: all $N jobs in their class"
