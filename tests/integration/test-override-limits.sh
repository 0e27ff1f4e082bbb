#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One user against qosd's overrides and file descriptors: a client that
# begins overrides on hundreds of its threads, up to and past the limit per
# connection, and five connections of the same user past the limit per
# user; then the same under a low RLIMIT_NOFILE, past the reserve qosd
# keeps for itself. Each refusal is a LimitsExceeded with its reason and is
# counted (OverridesLimited); qosd's descriptors stay bounded (read from
# /proc/QOSD_PID/fd); and meanwhile another user is answered and a newly
# started program still gets its class (qosd's /proc reads work).
. "$(dirname "$0")/lib.sh"
require_root
: "${QOS_BUS_CALLER:?}"

alice=qos-t-olalice
bob=qos-t-olbob
make_user "$alice"
make_user "$bob"
caller_bin=$(user_runnable "$QOS_BUS_CALLER")
PER_CONNECTION=256 PER_USER=1024 RESERVE=256

start_dbus
socket=${DBUS_SYSTEM_BUS_ADDRESS#unix:path=}
qosd_root_init
probe=$(test_program qos-ol-probe)
chmod a+rx "$probe"
write_rule ol-probe "$probe" background
BG=$(class_view background)

prop() { busctl --system get-property org.qosd.QoS1 /org/qosd/QoS1 org.qosd.QoS1.Manager "$1" | cut -d' ' -f2-; }
fds() { ls "/proc/$QOSD_PID/fd" | wc -l; }
prop_is() { [ "$(prop "$1")" = "$2" ]; }
fds_at_most() { [ "$(fds)" -le "$1" ]; }

# Callers as alice, one bus connection each, on FIFOs: CALLER_IN[i] and
# CALLER_OUT[i] are the shell's descriptors for caller i.
CALLER_IN=() CALLER_OUT=()
caller_start() { # i
        local i=$1 d="$TEST_TMP/caller.$1"
        mkfifo "$d.in" "$d.out"
        chmod 666 "$d.in" "$d.out"
        runuser -u "$alice" -- "$caller_bin" "$socket" <"$d.in" >"$d.out" &
        on_exit "kill $!"
        exec {CALLER_IN[i]}>"$d.in" {CALLER_OUT[i]}<"$d.out"
        read -r -t 10 _ <&"${CALLER_OUT[i]}" || fail "caller $i did not start"
        read -r -t 10 out _ <&"${CALLER_OUT[i]}" || fail "caller $i did not connect"
        assert_eq "$out" named "caller $i's connection"
}
caller_ask() { # i line; the answer in $out
        echo "$2" >&"${CALLER_IN[$1]}"
        read -r -t 120 out <&"${CALLER_OUT[$1]}" || fail "caller $1 did not answer '$2'"
}
caller_stop() { # i
        echo quit >&"${CALLER_IN[$1]}"
        exec {CALLER_IN[$1]}>&- {CALLER_OUT[$1]}<&-
        rm -f "$TEST_TMP/caller.$1".*
}

# Every BeginOverride of the flood is an attempt; one granted past a limit
# would be an escalation (the assertions below fail first).
attempts=0
# lend I THREADS: caller I spawns THREADS threads and lends to each; sets
# OK, LIMITED and MESSAGE (the last error).
lend() { # i threads
        caller_ask "$1" "spawn $2"
        assert_eq "${out% *}" "threads $2" "caller $1's threads"
        caller_ask "$1" "lend utility"
        read -r _ OK _ LIMITED _ other MESSAGE <<<"$out"
        OK=${OK%:} LIMITED=${LIMITED%:} other=${other%:}
        attempts=$((attempts + $2))
        assert_eq "$other" 0 "caller $1: other errors ($out)"
}

# qosd still serves others and still reads /proc: bob is answered, and a
# program started now gets its rule's class.
still_serves() { # what
        local t
        AS_USER=$bob start_threads b
        t=$(tid_of b)
        out=$(runuser -u "$bob" -- busctl --system call org.qosd.QoS1 /org/qosd/QoS1 org.qosd.QoS1.Manager \
                SetThreadClass itsi "$t" "$(stat_field "$t" 22)" background 0) || fail "$1: bob is not answered"
        assert_eq "$out" 'ss "background" "granted"' "$1: bob's request"
        kill "$THREADS_PID"
        THREADS_BIN=$probe start_threads p
        wait_view "$THREADS_PID" "$BG" "$1: a program started now gets its class"
        kill "$THREADS_PID"
        grep -q "Too many open files" "$QOSD_LOG" && fail "$1: qosd met EMFILE"
        return 0
}

# --- the limits per connection and per user --------------------------------

# The unit's limit: the limits per connection and user bind first.
QOSD_WRAPPER="prlimit --nofile=8192:8192" start_qosd
base=$(fds)
caller_start 0
lend 0 $((PER_CONNECTION + 44))
assert_eq "$OK $LIMITED" "$PER_CONNECTION 44" "one connection past its limit"
assert_contains "$MESSAGE" "org.freedesktop.DBus.Error.LimitsExceeded This connection holds $PER_CONNECTION overrides" \
        "the reason"
held=$(fds)
for i in 1 2 3 4; do
        caller_start "$i"
        lend "$i" "$PER_CONNECTION"
done
assert_eq "$OK $LIMITED" "0 $PER_CONNECTION" "the fifth connection of the user"
assert_contains "$MESSAGE" "LimitsExceeded User $(id -u "$alice") holds $PER_USER overrides" "the reason"
assert_eq "$(prop ActiveOverrides)" "$PER_USER" "the user's overrides"
assert_eq "$(prop OverridesLimited)" $((44 + PER_CONNECTION)) "refusals counted"
now=$(fds)
echo "qosd's descriptors: $base at start, $held with $PER_CONNECTION overrides, $now with $PER_USER"
[ "$now" -le $((base + PER_USER + 8)) ] || fail "qosd holds $now descriptors for $PER_USER overrides"
still_serves "at the user's limit"
for i in 0 1 2 3 4; do caller_stop "$i"; done
wait_for prop_is ActiveOverrides 0 || fail "overrides left after the callers went: $(prop ActiveOverrides)"
wait_for fds_at_most $((base + 2)) || fail "descriptors left after the callers went: $(fds), $base at start"
ok "$PER_CONNECTION per connection, $PER_USER per user, refused with the reason and counted"

table() {
        declare -A tried=(["override flood (BeginOverride from one user past the limits per connection and per user, on five connections, and past the descriptor reserve)"]=$attempts)
        attack_table escalations 0
}

# --- the reserve -------------------------------------------------------------

if [ "$held" -lt $((base + PER_CONNECTION)) ]; then
        # Before Linux 6.9 there are no thread pidfds: an override holds
        # no descriptor, and there is no reserve to reach.
        echo "no thread pidfds on $(uname -r): overrides hold no descriptors; the reserve is not reached"
        stop_qosd
        table
        exit 0
fi
stop_qosd
limit=400
QOSD_WRAPPER="prlimit --nofile=$limit:$limit" start_qosd
limited=$(prop OverridesLimited)
caller_start 5
lend 5 $((limit - RESERVE))
[ "$OK" -gt 0 ] && [ "$LIMITED" -gt 0 ] || fail "the reserve was not reached: ok $OK, refused $LIMITED"
assert_contains "$MESSAGE" "LimitsExceeded qosd keeps its last $RESERVE file descriptors for itself" "the reason"
assert_eq "$(prop OverridesLimited)" $((limited + LIMITED)) "refusals counted"
now=$(fds)
echo "under RLIMIT_NOFILE $limit: $OK overrides, $LIMITED refused, qosd holds $now descriptors"
[ "$now" -le $((limit - RESERVE + 8)) ] || fail "qosd holds $now descriptors under a limit of $limit"
still_serves "at the reserve"
"$QOSCTL" ps >/dev/null || fail "qosctl ps failed at the reserve"
caller_stop 5
stop_qosd
table
ok "the last $RESERVE descriptors stay qosd's: overrides refused before EMFILE, /proc reads go on"
