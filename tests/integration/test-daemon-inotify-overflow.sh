#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A user overflows the inotify queue of the users' rule directories: qosd
# starts with a queue of 16 events (fs.inotify.max_queued_events, lowered
# for its start only and restored at once, and on exit), is stopped
# (SIGSTOP) so that it cannot read, and the user makes a burst of changes
# whose first events are of no interest (not rule files) and whose last,
# the ones that matter, are lost in the overflow. Once qosd runs again all
# it has is "the queue overflowed": it must reload the users' rules (one
# reload per user, within UserRulesReloadIntervalSec=, no full reload) and
# end with the user's final rules in force and the system's untouched.
source "$(dirname "$0")/lib.sh"
require_root
qosd_root_init
knob=/proc/sys/fs/inotify/max_queued_events
[ -w "$knob" ] || {
        echo "SKIP: $TEST_NAME: $knob is not writable here"
        exit 77
}

user=qos-t-inoflow
home=$TEST_TMP/home
make_user "$user" "$home"
uid=$(id -u "$user")
printf '[Daemon]\nUserRules=yes\nUserRulesMinUid=%s\nUserRulesReloadIntervalSec=1\n' "$uid" \
        >"$QOSD_ROOT/etc/qos/qosd.conf"
udir=$home/$user/.config/qos/apps.d
as_user() { runuser -u "$user" -- "$@"; }
as_user mkdir -p "$udir"
user_rule() { # file exe class
        as_user sh -c "printf '[Match]\nExecutable=%s\n\n[Process]\nClass=%s\n' '$2' '$3' >'$udir/$1'"
}

OLD=$(test_program qos-ino-old)
NEW=$(test_program qos-ino-new)
SYS=$(test_program qos-ino-sys)
write_rule ino-sys "$SYS" user-initiated
user_rule old.conf "$OLD" background
# Drop-in directories: each is a watch of its own, and an overflow reaches
# every watch of the queue.
for d in old.conf.d a.conf.d b.conf.d; do
        as_user mkdir "$udir/$d"
done

bg=$(class_view background)
ini=$(class_view user-initiated)
def=$(class_view utility)

# The user's process of PROGRAM gets EXPECTED.
user_gets() { # program expected what
        AS_USER=$user THREADS_BIN=$1 start_threads t
        WAIT_TIMEOUT=30 wait_view "$(tid_of t)" "$2" "$3"
        kill "$THREADS_PID"
}

start_dbus
saved=$(cat "$knob")
on_exit "echo '$saved' >'$knob'"
echo 16 >"$knob"
# inotify sizes a queue when it is created: qosd's keep 16 once it is ready.
start_qosd
echo "$saved" >"$knob"
user_gets "$OLD" "$bg" "the user's first rule"
user_gets "$SYS" "$ini" "the system rule for the user, before"
reloads0=$(qosd_status Reloads)
user0=$(qosd_status UserReloads)

kill -STOP "$QOSD_PID"
on_exit "kill -CONT $QOSD_PID"
# 200 events of no interest (not rule files) fill the queue; then the
# user's real change, which the kernel can no longer queue.
as_user sh -c "cd '$udir' && for i in \$(seq 100); do : >scratch.\$i; rm scratch.\$i; done"
as_user rm "$udir/old.conf"
user_rule new.conf "$NEW" background
kill -CONT "$QOSD_PID"

WAIT_TIMEOUT=30 wait_for grep -q "the users' rule directories' inotify queue overflowed" "$QOSD_LOG" ||
        fail "qosd did not notice the overflow"
WAIT_TIMEOUT=30 wait_for status_above UserReloads "$user0" || fail "no reload of the user's rules after the overflow"
assert_eq "$(grep -c "inotify queue overflowed" "$QOSD_LOG")" 1 "journal lines for one overflow seen by 4 watches"
user_gets "$NEW" "$bg" "the user's new rule, lost in the overflow"
user_gets "$OLD" "$def" "the user's removed rule, lost in the overflow"
user_gets "$SYS" "$ini" "the system rule for the user, after"
THREADS_BIN=$SYS start_threads r
WAIT_TIMEOUT=30 wait_view "$THREADS_PID" "$ini" "the system rule for root, after"
kill "$THREADS_PID"
assert_eq "$(qosd_status Reloads)" "$reloads0" "full reloads caused by the user's overflow"
n=$(($(qosd_status UserReloads) - user0))
echo "# after the overflow: $n reload(s) of the user's rules, no full reload"
[ "$n" -le 2 ] || fail "$n reloads of the user's rules for one overflow"
ok "an overflowed queue of the users' directories: their rules reloaded, the final ones apply, the system's untouched"

# qosd's queue is an ordinary one again after that reload.
user_rule more.conf "$OLD" background
user_gets "$OLD" "$bg" "a change after the overflow"
ok "changes after the overflow are seen as usual"
stop_qosd TERM
