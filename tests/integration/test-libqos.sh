#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# libqos in a real process of a real unprivileged user: the fast path
# demotes (itself, another thread by TID and by pthread_t, a new thread from
# an attribute object) with no daemon; promotions fail with ENOTCONN and
# change nothing, whether there is no bus or a bus without qosd; with qosd
# the broker grants them; the classes read back are what the kernel reports. Root applies everything
# itself.
. "$(dirname "$0")/lib.sh"
require_root

alice=qos-t-libalice
make_user "$alice"

. "$(dirname "$0")/lib-client.sh"
client_setup

# No system bus at all, unless a test says otherwise.
no_bus="unix:path=$TEST_TMP/no-bus-here"
bus=$no_bus

policy_nice() { # tid
        echo "$(stat_field "$1" 41) $(stat_field "$1" 19)"
}

# --- an unprivileged thread on itself, without qosd ------------------

client_start "$alice"
expect self utility
expect main utility
expect "self-set background 0" 0
assert_eq "$(policy_nice "$MAIN")" "5 19" "the kernel has the thread at SCHED_IDLE, nice 19"
expect self-get "background 0"
expect self background
expect main utility # the class the main thread started with
ok "unprivileged self-demotion to background, no daemon"

before=$(kernel_view "$MAIN")
expect "self-set utility 0" ENOTCONN
expect "self-set user-interactive 0" ENOTCONN
expect "darwin-self-set utility 0" ENOTCONN # Apple's call: the positive errno
assert_eq "$(kernel_view "$MAIN")" "$before" "refused promotions changed nothing"
expect self background
ok "promotion without a bus fails with ENOTCONN and changes nothing"
client_stop

# Relative priority: down within a class is the fast path, up is not.
client_start "$alice"
expect "self-set utility -15" 0
assert_eq "$(policy_nice "$MAIN")" "0 15" "utility at -15 is nice 15"
expect self-get "utility -15"
before=$(kernel_view "$MAIN")
expect "self-set utility -3" ENOTCONN
assert_eq "$(kernel_view "$MAIN")" "$before" "moving up within the class changed nothing"
expect "self-set utility -15" 0
ok "relative priority: down applied, up refused without qosd"
client_stop

# --- other threads of the process: by TID and by pthread_t ------------

client_start "$alice"
ask "spawn w1"
w1=$REPLY
expect "tid-set w1 background 0" 0
assert_eq "$(policy_nice "$w1")" "5 19" "w1 is background"
assert_eq "$(policy_nice "$MAIN")" "0 0" "the main thread is untouched"
expect "tid-get w1" "background 0"
expect "pthread-get w1" "background 0"
ok "another thread of the process by TID"

ask "spawn w2"
w2=$REPLY
expect "pthread-set w2 utility -8" 0
assert_eq "$(policy_nice "$w2")" "0 8" "w2 is utility at nice 8"
expect "pthread-get w2" "utility -8"
expect "darwin-get w2" "utility -8"
before=$(kernel_view "$w2")
expect "pthread-set w2 user-initiated 0" ENOTCONN
assert_eq "$(kernel_view "$w2")" "$before" "w2 unchanged by the refused promotion"
ok "another thread of the process by pthread_t"

# Threads of other processes are not the library's to touch.
sleep 30 &
other=$!
on_exit "kill $other"
before=$(kernel_view "$other")
expect "tid-set $other background 0" ESRCH
expect "tid-get $other" ESRCH
expect "tid-set 1 background 0" ESRCH
assert_eq "$(kernel_view "$other")" "$before" "another process's thread untouched"
ok "a TID outside the process is ESRCH"

# --- new threads from an attribute object ----------------------------

ask "attr-create a1 background 0"
set -- $REPLY
assert_eq "$1 $3" "0 background" "a1 created, and saw background first thing"
assert_eq "$(policy_nice "$2")" "5 19" "a1 is background"
ask "attr-create a2 utility -5"
set -- $REPLY
assert_eq "$1 $3" "0 utility" "a2 created in utility"
assert_eq "$(policy_nice "$2")" "0 5" "a2 at nice 5"
ask threads
n=$REPLY
expect "attr-create a3 user-interactive 0" ENOTCONN
# No thread was left behind. A joined thread can stay listed in /proc for a
# moment after pthread_join() returns (the kernel wakes the joiner before
# the thread is released), so look a few times.
for ((i = 0; i < 50; i++)); do
        ask threads
        [ "$REPLY" = "$n" ] && break
        sleep 0.02
done
assert_eq "$REPLY" "$n" "threads after the failed qos_pthread_create"
assert_eq "$(policy_nice "$MAIN")" "0 0" "the creator is untouched"
ok "qos_pthread_create: lower classes applied at start, a promotion fails and creates nothing"
client_stop

# --- down from a user class: the kernel keeps reset-on-fork ----------

client_start "$alice"
"$QOSCTL" set -c user-interactive -p "$MAIN" || fail "root could not make the client user-interactive"
expect self user-interactive
expect "self-set utility 0" 0
assert_eq "$(policy_nice "$MAIN")" "0 0" "back at nice 0"
expect self utility
assert_contains "$(chrt -p "$MAIN")" "SCHED_RESET_ON_FORK" "reset-on-fork kept (an unprivileged thread cannot clear it)"
ok "unprivileged demotion from user-interactive to utility"
client_stop

# --- qos_class_main(): the class the process started in --------------

client_start "$alice" "$TEST_TMP/bin/qosctl" run -c background
expect main background
expect self background
client_stop
client_start - "$QOSCTL" run -c background
expect "self-set user-interactive 0" 0 # root: the fast path does it all
assert_eq "$(policy_nice "$MAIN")" "0 -20" "root's thread is user-interactive"
# The 0.5 ms slice where the kernel has custom slices (asked of the
# kernel, not of libqos); 6.1 keeps its default and has no se.slice.
if [ "$("$QOS_KERNEL_PROBE" slice)" = supported ]; then
        assert_eq "$(sched_field "$MAIN" se.slice)" 500000 "with the 0.5 ms slice"
else
        assert_eq "$(sched_field "$MAIN" se.slice)" "$(sched_field 2 se.slice)" "with the default slice"
fi
expect self user-interactive
expect main background # still the initial class
expect "self-set user-interactive -15" 0
assert_eq "$(policy_nice "$MAIN")" "0 -6" "user-interactive at -15 is nice -6, above user-initiated's -5"
client_stop
ok "qos_class_main() is the initial class; root promotes without qosd"

# --- a system bus, first without qosd, then with it --------------------

start_dbus
bus=$DBUS_SYSTEM_BUS_ADDRESS
client_start "$alice"
expect "self-set background 0" 0
before=$(kernel_view "$MAIN")
expect "self-set utility 0" ENOTCONN
expect "self-set utility 0" ENOTCONN # and again, on the kept connection
assert_eq "$(kernel_view "$MAIN")" "$before" "refused promotion changed nothing"
ok "promotion with a bus but no qosd fails with ENOTCONN and changes nothing"

# With qosd, the broker answers on the connection the client already has:
# the promotion the kernel refused is granted (utility is not gated), and
# the fast path still needs no one. The policy cases are test-broker's.
qosd_root_init
start_qosd
expect "self-set utility 0" 0
assert_eq "$(policy_nice "$MAIN")" "0 0" "the broker brought the thread back to utility"
expect self utility
expect "self-set background 0" 0 # the fast path needs no one
assert_eq "$(policy_nice "$MAIN")" "5 19" "background again, by the library itself"
client_stop
stop_qosd
ok "with qosd running, the broker grants the promotion the kernel refused"
