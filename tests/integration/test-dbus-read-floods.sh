#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Floods of what anyone may send qosd, on a real bus, from a real user:
#  - GetProfile (reads sysfs and debugfs): rate limited per user, counted
#    in QueriesRateLimited;
#  - GetAll, the counters of `qosctl status` (memory only): answered, not
#    limited;
#  - ListTasks(all) on 6,000 threads: answered while the user's budget of
#    listed threads lasts, then RateLimited;
#  - new connections, each making one call: qosd asks the bus who each new
#    sender is (one round trip it waits for), the dbus-daemon's limit of
#    connections per user bounds how many are open at once;
#  - the same while the bus stops answering (SIGSTOP): qosd waits 1 s at
#    most for the bus, then refuses unidentified callers at once for as
#    long, and keeps classing new processes meanwhile.
# During each, root's calls are answered and a new process gets its class
# within the test's waits, and qosd's descriptors and memory stay bounded.
# The test prints its attempts as docs/security.md shows them.
source "$(dirname "$0")/lib.sh"
require_root
: "${QOS_BUS_FLOOD:?QOS_BUS_FLOOD must point at qos-bus-flood}"
: "${QOS_RENAME_STORM:?QOS_RENAME_STORM must point at qos-rename-storm}"

mallory=qos-t-rfflood
make_user "$mallory"
start_dbus
qosd_root_init
BGP=$(test_program qos-rf-bg)
write_rule rf-bg "$BGP" background
CTL=$(user_runnable "$QOSCTL")
BG=$(class_view background)
start_qosd
uid=$(id -u "$mallory")

limited() { qosd_status QueriesRateLimited; }
rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$QOSD_PID/status"; }
fds() { ls "/proc/$QOSD_PID/fd" | wc -l; }

on_exit stop_floods
# "ok N limited N other N connections N" of a flood, as variables.
flood_result() { # label
        read -r _ OKN _ LIM _ OTHER _ CONNS _ <"$TEST_TMP/flood.$1" || fail "flood $1 printed nothing"
}

# Root is answered and a new process gets its class (the waits are the
# tests' usual bounds against a hang, not a measurement).
served() { # label
        local p
        timeout 20 "$QOSCTL" status >/dev/null || fail "$1: root's qosctl status"
        timeout 20 "$QOSCTL" profile >/dev/null || fail "$1: root's qosctl profile"
        timeout 20 "$QOSCTL" explain $$ >/dev/null || fail "$1: root's qosctl explain"
        THREADS_BIN=$BGP start_threads w
        p=$THREADS_PID
        WAIT_TIMEOUT=20 wait_view "$p" "$BG" "$1: a new process"
        kill "$p"
        wait "$p" 2>/dev/null || true
}

attempts=0
declare -A tried
count() { # row n
        tried[$1]=$((${tried[$1]:-0} + $2))
        attempts=$((attempts + $2))
}

rss_before=$(rss)
fds_before=$(fds)

# --- GetProfile: limited ---------------------------------------------------
before=$(limited)
start=$SECONDS
flood_as "$mallory" p1 2 get-profile
flood_as "$mallory" p2 2 get-profile
WAIT_TIMEOUT=60 wait_for status_above QueriesRateLimited $((before + 1000)) ||
        fail "the GetProfile flood was not rate limited: QueriesRateLimited $(limited)"
served "GetProfile flood"
for _ in 1 2 3 4 5; do
        out=$(runuser -u "$mallory" -- "$CTL" profile 2>&1) || break
done
assert_contains "$out" "Too many GetProfile calls from uid $uid" "the flooding user's qosctl profile"
stop_floods
elapsed=$((SECONDS - start + 1))
answered=0
for f in p1 p2; do
        flood_result "$f"
        [ "$OTHER" = 0 ] || fail "flood $f: other errors: $(cat "$TEST_TMP/flood.$f")"
        assert_contains "$(cat "$TEST_TMP/flood.$f")" "limited: Too many GetProfile calls from uid $uid" "flood $f"
        answered=$((answered + OKN))
        count "GetProfile flood (one user, 2 connections)" $((OKN + LIM))
done
# The burst (20) and 5 a second since, and the flooder's own qosctl calls.
[ "$answered" -le $((20 + 5 * elapsed)) ] || fail "GetProfile: $answered answered in ${elapsed}s"
wait_for runuser -u "$mallory" -- "$CTL" profile || fail "the user was not served again after the flood"
ok "GetProfile flood: RateLimited, counted, root served meanwhile, the user served again after it"

# --- GetAll: answered, not limited -----------------------------------------
before=$(limited)
flood_as "$mallory" a1 2 get-all
sleep 3
served "GetAll flood"
stop_floods
flood_result a1
[ "$LIM" = 0 ] && [ "$OTHER" = 0 ] || fail "GetAll refused: $(cat "$TEST_TMP/flood.a1")"
[ "$OKN" -gt 100 ] || fail "GetAll flood: only $OKN calls"
assert_eq "$(limited)" "$before" "QueriesRateLimited after the GetAll flood"
count "GetAll flood (one user, 2 connections; answered, not limited)" "$OKN"
ok "GetAll flood: every call answered ($OKN), root served meanwhile"

# --- ListTasks(all) on 6,000 threads: paid by its rows ---------------------
for i in 1 2 3 4 5 6; do
        "$QOS_RENAME_STORM" 0 1000 0 idle idle >"$TEST_TMP/many.$i" &
        on_exit "kill $!"
done
for i in 1 2 3 4 5 6; do
        wait_for grep -qx done "$TEST_TMP/many.$i" || fail "1,000 threads did not start"
done
# Back to back until the first refusal (ps -a makes two calls, ListTasks
# and ListLoans: the calls' own limit, 10 at once, is not what stops it).
answered=0 refused=0
start=$SECONDS
for _ in 1 2 3 4 5; do
        if out=$(runuser -u "$mallory" -- timeout 25 "$CTL" ps -a 2>&1); then
                [ "$(echo "$out" | wc -l)" -gt 6000 ] || fail "ps -a listed $(echo "$out" | wc -l) lines"
                answered=$((answered + 1))
        else
                assert_contains "$out" "has listed more than 2000 threads a second" "a list past the budget"
                refused=1
                break
        fi
done
elapsed=$((SECONDS - start + 1))
[ "$answered" -ge 1 ] || fail "ListTasks on 6,000 threads: none answered"
# The burst (20,000) and 2,000 a second since, a list answered in full.
# (On a slow machine each list takes long enough to be paid while it runs:
# then none is refused.)
[ "$answered" -le $(((20000 + 2000 * elapsed) / 6000 + 1)) ] || fail "$answered lists in ${elapsed}s"
served "ListTasks on 6,000 threads"
wait_for runuser -u "$mallory" -- "$CTL" ps || fail "the user was not served again"
count "ListTasks(all) on 6,000 threads (one user, back to back)" $((answered + refused))
ok "ListTasks(all) on 6,000 threads: $answered answered in full in ${elapsed}s, $refused refused past the budget, root served"

# --- New connections, one call each ----------------------------------------
# 2 x 100 open at once, below dbus-daemon's 256 connections per user (a
# closed connection counts there until the bus has seen it close).
before=$(limited)
flood_as "$mallory" c1 --churn 100 explain 1
flood_as "$mallory" c2 --churn 100 get-profile
# Each refusal needs the caller identified first: a new sender each.
WAIT_TIMEOUT=120 wait_for status_above QueriesRateLimited $((before + 1000)) ||
        fail "the connection flood did not reach 1000 new callers: QueriesRateLimited $(limited)"
served "new-connection flood"
stop_floods
conns=0
for f in c1 c2; do
        flood_result "$f"
        [ "$OTHER" = 0 ] || fail "flood $f: other errors: $(cat "$TEST_TMP/flood.$f")"
        conns=$((conns + CONNS))
        count "new connections, one call each (one user, 200 open at once)" $((OKN + LIM))
done
[ "$conns" -gt 1000 ] || fail "only $conns connections"
echo "# new connections: $conns, each one call"
ok "new-connection flood: $conns connections identified and answered, root served meanwhile"

# The bus's bound: beyond its connections per user it refuses the user.
flood_as "$mallory" l1 300 get-all
sleep 3
stop_floods
flood_result l1
[ "$OTHER" -gt 0 ] || fail "300 connections of one user all accepted: $(cat "$TEST_TMP/flood.l1")"
echo "# 300 connections of one user: $OTHER calls failed ($(sed 's/.*other [0-9]* connections [0-9]* //;q' "$TEST_TMP/flood.l1"))"
ok "the bus refuses one user's connections past its limit"

# --- The bus stops answering in the middle of it ---------------------------
flood_as "$mallory" s1 --churn 100 explain 1
WAIT_TIMEOUT=60 wait_for status_above QueriesRateLimited $(($(limited) + 500)) || fail "the flood did not start"
kill -STOP "$DBUS_PID"
on_exit "kill -CONT $DBUS_PID"
stopped=$SECONDS
# qosd needs no bus to class a process: it must not be stuck waiting for one.
THREADS_BIN=$BGP start_threads stalled
WAIT_TIMEOUT=20 wait_view "$THREADS_PID" "$BG" "a new process while the bus is stopped"
kill "$THREADS_PID"
sleep $((stopped + 4 - SECONDS > 0 ? stopped + 4 - SECONDS : 0))
kill -CONT "$DBUS_PID"
served "after the bus stopped for 4 s"
stop_floods
flood_result s1
count "new connections while the bus stops answering (SIGSTOP, 4 s)" $((OKN + LIM + OTHER))
if grep -q "the bus did not say within 1000 ms" "$QOSD_LOG"; then
        echo "# qosd gave up waiting for the bus $(grep -c "the bus did not say within" "$QOSD_LOG") time(s)"
fi
ok "the bus stopped: qosd kept classing processes, and answers again once it runs"

# --- Bounded ---------------------------------------------------------------
fds_after=$(fds)
rss_after=$(rss)
echo "# qosd: $fds_before descriptors before the floods, $fds_after after; VmRSS $rss_before kB, $rss_after kB"
[ "$fds_after" -le $((fds_before + 2)) ] || fail "qosd holds $fds_after descriptors, $fds_before before"
memory="memory bounded"
# Not `ldd | grep -q`: under pipefail, grep's early exit fails the pipe.
if qosd_has_asan; then
        memory="memory not measured (the sanitizer keeps freed memory in its quarantine)"
else
        [ $((rss_after - rss_before)) -lt 16384 ] || fail "qosd grew by $((rss_after - rss_before)) kB"
fi
ok "descriptors bounded, $memory"

attack_table hangs 0
stop_qosd TERM
