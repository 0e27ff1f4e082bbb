#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosd and the group layer: each thread in its class's cpu group and back
# where it came from when the rule goes; a process in another manager's
# cgroup is left there, explained, and not retried on every evaluation; a
# user-interactive thread's new thread does not keep its group (cgroups have
# no reset-on-fork); after SIGKILL a restart leaves no orphaned group and no
# thread demoted without a rule; SIGTERM leaves no group at all.
source "$(dirname "$0")/lib.sh"
require_root
require_groups
start_dbus
qosd_root_init

P=$QOS_CGROUP_PREFIX
bgdir=$CPU_CGROUP/$P.background uidir=$CPU_CGROUP/$P.user-interactive
APP=$(test_program qos-app-mixed)
write_rule app-mixed "$APP" - "bgw*" background "uiw*" user-interactive

in_cgroup() { [ "$(cgroup_of "$1")" = "$2" ]; }
wait_cgroup() { # tid cgroup message
        wait_for in_cgroup "$1" "$2" || fail "$3: in '$(cgroup_of "$1")', expected '$2'"
}

# Running before qosd: the start scan puts each thread in its class's group.
THREADS_BIN=$APP start_threads bgw uiw plain
pid=$THREADS_PID bgt=$(tid_of bgw) uit=$(tid_of uiw) plain=$(tid_of plain)
start_qosd
assert_eq "$(cgroup_of "$bgt")" "/$P.background" "background thread"
assert_eq "$(cgroup_of "$uit")" "/$P.user-interactive" "user-interactive thread"
assert_eq "$(cgroup_of "$plain") $(cgroup_of "$pid")" "/ /" "threads no rule names stay where they were"
assert_eq "$(cgroup_of "$QOSD_PID")" "/$P.user-interactive" "qosd runs in the latency class itself"
assert_contains "$("$QOSCTL" explain "$uit")" "in qosd's group $P.user-interactive" "explain names the group"
ok "each thread of one process in its class's group"

# The rules go away: both threads back where they came from, and the
# background group, empty now, with them.
write_rule app-mixed "$APP" - "uiw*" user-interactive
"$QOSCTL" reload >/dev/null
wait_cgroup "$bgt" / "background thread after its rule went"
assert_eq "$(stat_field "$bgt" 41) $(stat_field "$bgt" 19)" "0 0" "its per-thread knobs too"
[ ! -d "$bgdir" ] || fail "empty background group left"
rm "$QOSD_ROOT/etc/qos/apps.d/app-mixed.conf"
"$QOSCTL" reload >/dev/null
wait_cgroup "$uit" / "user-interactive thread after its rule went"
ok "rule removed: both back where they came from, the empty group removed"

# A process another manager put in its cgroup before it ran: per-thread
# knobs apply, the thread stays, explain says why, and a re-evaluation does
# not try again.
write_rule app-mixed "$APP" - "bgw*" background "uiw*" user-interactive
foreign=$CPU_CGROUP/qos-test-foreign-$$
mkdir "$foreign"
on_exit "remove_cgroup '$foreign'"
printf '#!/bin/sh\necho $$ >"%s/cgroup.procs"\nexec "%s" "$@"\n' "$foreign" "$APP" >"$QOSD_BIN/in-foreign"
chmod 755 "$QOSD_BIN/in-foreign"
"$QOSCTL" reload >/dev/null
wait_cgroup "$bgt" "/$P.background" "first process back in its group"
THREADS_BIN=$QOSD_BIN/in-foreign start_threads bgw
ft=$(tid_of bgw)
wait_view "$ft" "$(kernel_view "$bgt")" "per-thread background in the foreign cgroup"
assert_eq "$(cgroup_of "$ft")" "/qos-test-foreign-$$" "left in the foreign cgroup"
out=$("$QOSCTL" explain "$ft")
assert_contains "$out" "in cpu cgroup /qos-test-foreign-$$, which another manager owns" "explain says why"
refused=$(qosd_status KnobsRefused)
"$QOSCTL" reload >/dev/null
assert_eq "$(qosd_status KnobsRefused)" "$refused" "a re-evaluation does not try the group again"
ok "a thread in a foreign cgroup is left there, and explain says so"

# Another manager takes a thread out of qosd's group later: someone else's
# change, respected like a renice, also on exit.
THREADS_BIN=$APP start_threads bgw
mt=$(tid_of bgw)
wait_cgroup "$mt" "/$P.background" "thread of a process started under the rule"
echo "$mt" >"$foreign/$CGROUP_THREADS"
"$QOSCTL" reload >/dev/null
assert_eq "$(cgroup_of "$mt")" "/qos-test-foreign-$$" "qosd did not take it back"
assert_contains "$("$QOSCTL" explain "$mt")" "changed by someone else" "explain says why"
ok "a thread moved out of qosd's group by someone else is left where they put it"

# A user-interactive thread creates a thread: the kernel resets its knobs,
# not its cgroup; qosd moves it to where its creator came from.
start_commands "$APP"
ua=$(command_tid uiw-a spawn uiw-a)
wait_cgroup "$ua" "/$P.user-interactive" "user-interactive thread of the command helper"
kid=$(command_tid kid spawn-from uiw-a kid)
wait_cgroup "$kid" / "thread created by a user-interactive thread"
assert_eq "$(stat_field "$kid" 19) $(cgroup_of "$ua")" "0 /$P.user-interactive" "kid at defaults, its creator unchanged"
ok "a user-interactive thread's new thread leaves its creator's group"

# SIGKILL, then a restart with the background rule gone and a stale empty
# group lying around: the background thread is back (group and knobs), the
# user-interactive one is kept, no empty group is left.
stop_qosd KILL
assert_eq "$(cgroup_of "$bgt")" "/$P.background" "a killed qosd restores nothing"
mkdir "$CPU_CGROUP/$P.user-initiated"
write_rule app-mixed "$APP" - "uiw*" user-interactive
start_qosd
assert_eq "$(cgroup_of "$bgt")" / "background thread without a rule after the restart"
assert_eq "$(stat_field "$bgt" 41) $(stat_field "$bgt" 19)" "0 0" "and its per-thread knobs"
assert_eq "$(cgroup_of "$uit")" "/$P.user-interactive" "user-interactive thread kept"
[ ! -d "$CPU_CGROUP/$P.user-initiated" ] || fail "orphaned empty group left after the restart"
[ ! -d "$bgdir" ] || fail "background group left after the restart"
ok "SIGKILL and restart: no orphaned group, no thread demoted without a rule"

# SIGTERM: everything back, and qosd's groups are gone with it, also an
# empty one (as a group is after its last thread exited: nothing moves a
# thread out of it, so only qosd's clean-up at exit removes it).
mkdir -p "$bgdir"
stop_qosd TERM
assert_eq "$(cgroup_of "$uit") $(cgroup_of "$ua")" "/ /" "user-interactive threads back at exit"
left=$(find "$CPU_CGROUP" -maxdepth 1 -name "$P.*" | tr '\n' ' ')
assert_eq "$left" "" "qosd's groups after a restoring exit"
ok "SIGTERM: threads back, no group left"
