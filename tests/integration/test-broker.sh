#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The broker (SetThreadClass) and its policy, on a real bus with two real
# users: libqos clients as alice, attacks as alice and bob. Promotion in
# and out of the foreground (held requests raised and lowered without the
# program asking again), background always, MaxClass caps, another user's
# thread, another process's thread upwards, a forged start time, a reused
# caller PID, malformed calls, a flood. The attacks are counted: the test
# prints "N attempts tried, 0 escalations" and fails on any escalation.
. "$(dirname "$0")/lib.sh"
require_root
. "$(dirname "$0")/lib-client.sh"
: "${QOS_BUS_CALLER:?QOS_BUS_CALLER must point at qos-bus-caller}"
: "${QOS_SPAWN_AT_PID:?}"

alice=qos-t-bralice
bob=qos-t-brbob
make_user "$alice"
make_user "$bob"
client_setup
cp "$QOS_BUS_CALLER" "$TEST_TMP/bin/"
chmod a+rx "$TEST_TMP/bin/qos-bus-caller"

UI=$(class_view user-interactive)
UIN=$(class_view user-initiated)
UT=$(class_view utility)
BG=$(class_view background)

start_dbus
bus=$DBUS_SYSTEM_BUS_ADDRESS
socket=${DBUS_SYSTEM_BUS_ADDRESS#unix:path=}
qosd_root_init
# A program whose rules cap it: a copy of the client under another name.
CAPPED="$QOSD_BIN/qos-capped"
cp "$QOS_LIB_CLIENT" "$CAPPED"
chmod a+rx "$CAPPED"
printf '[Match]\nExecutable=%s\n\n[Limits]\nMaxClass=user-initiated\n' "$CAPPED" \
        >"$QOSD_ROOT/etc/qos/apps.d/capped.conf"
# Rules that say user-interactive: from the admin directory, from the
# vendor's (which tries to exempt itself), and an admin exemption.
UIAPP=$(test_program qos-ui-admin)
UIVEND=$(test_program qos-ui-vendor)
UIEX=$(test_program qos-ui-exempt)
write_rule ui-admin "$UIAPP" user-interactive
printf '[Match]\nExecutable=%s\n\n[Process]\nClass=user-interactive\n\n[Limits]\nAllowInteractiveInBackground=yes\n' \
        "$UIVEND" >"$QOSD_ROOT/usr/share/qos/apps.d/ui-vendor.conf"
write_rule ui-exempt "$UIEX" user-interactive
printf '\n[Limits]\nAllowInteractiveInBackground=yes\n' >>"$QOSD_ROOT/etc/qos/apps.d/ui-exempt.conf"
start_qosd --log-level debug
grep -q "ui-vendor.conf:8: .*AllowInteractiveInBackground= is honoured only in" "$QOSD_LOG" ||
        fail "the vendor's exemption was not reported as ignored"

policy_nice() { # tid
        echo "$(stat_field "$1" 41) $(stat_field "$1" 19)"
}

# qos-bus-caller as alice, on FIFOs (its first process may exit while the
# connection lives on, which a coprocess would not survive). CALLER_PID:
# the PID the bus has for the connection.
caller_start() { # [--orphan]
        rm -f "$TEST_TMP/caller.in" "$TEST_TMP/caller.out"
        mkfifo "$TEST_TMP/caller.in" "$TEST_TMP/caller.out"
        chmod 666 "$TEST_TMP/caller.in" "$TEST_TMP/caller.out"
        runuser -u "$alice" -- "$TEST_TMP/bin/qos-bus-caller" "$@" "$socket" \
                <"$TEST_TMP/caller.in" >"$TEST_TMP/caller.out" &
        on_exit "kill $!"
        exec 7>"$TEST_TMP/caller.in" 8<"$TEST_TMP/caller.out"
        read -r -t "$STARTUP_TIMEOUT" CALLER_PID <&8 || fail "qos-bus-caller did not start"
        read -r -t 10 out serving <&8 || fail "qos-bus-caller did not connect"
        assert_eq "$out" named "qos-bus-caller's connection"
        on_exit "kill $serving"
}

caller_ask() { # line; the answer in $out
        echo "$1" >&7
        read -r -t 60 out <&8 || fail "qos-bus-caller did not answer '$1'"
}

caller_stop() {
        echo quit >&7
        exec 7>&- 8<&-
}

explain_has() { # tid needle message
        assert_contains "$("$QOSCTL" explain "$1")" "$2" "$3"
}

# --- the policy through libqos ------------------------------------------

client_start "$alice"
uid=$(id -u "$alice")
# No foreground source, and alice sits at no seat (a fresh user; this
# machine may not run logind at all): ForegroundGate=auto holds her.
expect "self-set user-interactive 0" held
assert_eq "$(kernel_view "$MAIN")" "$UT" "no source, no seat: user-interactive held at utility"
explain_has "$MAIN" "requested user-interactive by pid $MAIN uid $uid, held at utility: no foreground source, and uid $uid has no active seat session" \
        "explain: the request and why it is held"
explain_has "$MAIN" "its user has no active seat session: user-interactive held" "explain: the default policy"
assert_contains "$("$QOSCTL" status)" "no source: user-interactive for root and active seat users" \
        "status: the policy in force"
ok "without a foreground source, user-interactive only for root and the users at a seat"

"$QOSCTL" foreground --clear
assert_eq "$(kernel_view "$MAIN")" "$UT" "the foreground is known (empty): the request is held at utility"
explain_has "$MAIN" "held at utility: not in the foreground" "explain: why held"
explain_has "$MAIN" "foreground          no" "explain: foreground"
"$QOSCTL" foreground "$MAIN"
assert_eq "$(kernel_view "$MAIN")" "$UI" "entering the foreground raises the held request"
assert_contains "$("$QOSCTL" status)" "SetForeground for a trusted caller, 1 process(es)" "status: the source"
assert_eq "$("$QOSCTL" foreground | awk '{print $1}')" "$MAIN" "qosctl foreground lists it"
"$QOSCTL" foreground --clear
assert_eq "$(kernel_view "$MAIN")" "$UT" "leaving the foreground lowers it again"
ok "held at utility outside the foreground; raised when it enters, lowered when it leaves"

"$QOSCTL" foreground "$MAIN"
assert_eq "$(kernel_view "$MAIN")" "$UI" "in the foreground again"
out=$(runuser -u "$alice" -- "$(user_runnable "$QOSCTL")" foreground --auto 2>&1) && fail "a user reset the foreground: $out"
assert_contains "$out" "ForegroundUser=" "a user's --auto is refused, saying who may"
assert_eq "$(kernel_view "$MAIN")" "$UI" "a user's --auto changes nothing"
"$QOSCTL" foreground --auto
assert_eq "$(kernel_view "$MAIN")" "$UT" "--auto: no source, and alice has no seat: held at utility again"
assert_contains "$("$QOSCTL" status)" "no source: user-interactive for root and active seat users" \
        "status: the default policy again"
assert_contains "$("$QOSCTL" foreground 2>&1)" "no source has set the foreground" "foreground: no source"
ok "qosctl foreground --auto goes back to the default policy; root's only"

ask "spawn w1"
w1=$REPLY
expect "tid-set w1 user-interactive 0" held
assert_eq "$(kernel_view "$w1")" "$UT" "w1 held at utility"
"$QOSCTL" foreground "$MAIN"
assert_eq "$(kernel_view "$w1")" "$UI" "w1 raised with its process"
expect "tid-set w1 user-interactive 0" 0
ok "a request from the foreground is granted"
"$QOSCTL" foreground --clear
# libqos demotes by itself (the kernel allows it; only the timer slack of
# another thread is beyond it); qosd sees the program changed the thread
# and forgets the held request.
expect "tid-set w1 background 0" 0
assert_eq "$(policy_nice "$w1")" "5 19" "w1 is background"
"$QOSCTL" foreground "$MAIN"
assert_eq "$(policy_nice "$w1")" "5 19" "the program's newer choice replaced the held request: not raised"
"$QOSCTL" foreground --clear
# Through qosd: a held request replaced by a newer one for background.
ask "spawn w2"
w2=$REPLY
expect "tid-set w2 user-interactive 0" held
expect "tid-set w2 background 0" 0 # held: libqos sends it through qosd
assert_eq "$(kernel_view "$w2")" "$BG" "background granted by qosd (timer slack included)"
"$QOSCTL" foreground "$MAIN"
assert_eq "$(kernel_view "$w2")" "$BG" "the newer request replaced the held one: not raised"
explain_has "$w2" "requested background by pid $MAIN uid $uid, granted" "explain: the newer request"
"$QOSCTL" foreground --clear
ok "background always; a newer request replaces a held one"
expect "self-set user-initiated 0" 0
assert_eq "$(kernel_view "$MAIN")" "$UIN" "user-initiated is not gated"
client_stop

# A thread in a user class creates threads: the kernel resets their policy
# and nice (reset-on-fork), qosd the I/O priority and timer slack they kept,
# whichever thread created them (the kernel names only the process).
client_start "$alice"
ask "spawn w1"
expect "tid-set w1 user-initiated 0" 0
ask "spawn-from w1 w2"
wait_view "$REPLY" "$UT" "a thread created by a user-initiated thread (not the main one)"
expect "self-set user-initiated 0" 0
ask "spawn w3"
wait_view "$REPLY" "$UT" "a thread created by the user-initiated main thread"
client_stop
ok "threads created by a user-initiated thread start at utility, I/O priority and timer slack too"

CLIENT_BIN=$CAPPED client_start "$alice"
"$QOSCTL" foreground "$MAIN"
expect "self-set user-interactive 0" held
assert_eq "$(kernel_view "$MAIN")" "$UIN" "held at the app's MaxClass"
explain_has "$MAIN" "held at user-initiated: MaxClass=user-initiated ($QOSD_ROOT/etc/qos/apps.d/capped.conf:" \
        "explain: the cap and its file"
client_stop
"$QOSCTL" foreground --clear
ok "above MaxClass: held at the cap, and explain says where the cap is"

# --- attacks: counted, each must be refused and change nothing ---------

attempts=0 escalations=0
declare -A tried=()
victim_pid= victim_tids=()
victim_views() {
        local t
        for t in "${victim_tids[@]}"; do
                echo "$t $(kernel_view "$t")"
        done
}

# attack ROW USER EXPECTED-ERROR METHOD ARGS...: one attempt as USER with
# dbus-send (which prints the error's name and message; ARGS typed as
# dbus-send takes them); it must fail with EXPECTED-ERROR, and nothing of
# the victim may change. BUSCTL=1: through busctl (ARGS as busctl takes
# them: a signature, then values), for arrays too big for one argument.
attack() {
        local row=$1 user=$2 want=$3 method=$4 rc=0 out before
        shift 4
        before=$(victim_views)
        if [ -n "${BUSCTL:-}" ]; then
                out=$(runuser -u "$user" -- busctl --system call org.qosd.QoS1 /org/qosd/QoS1 \
                        org.qosd.QoS1.Manager "$method" "$@" 2>&1) || rc=$?
        else
                out=$(runuser -u "$user" -- dbus-send --system --print-reply --dest=org.qosd.QoS1 \
                        /org/qosd/QoS1 "org.qosd.QoS1.Manager.$method" "$@" 2>&1) || rc=$?
        fi
        attempts=$((attempts + 1))
        tried[$row]=$((${tried[$row]:-0} + 1))
        if [ "$(victim_views)" != "$before" ]; then
                escalations=$((escalations + 1))
                fail "attack '$row' changed the victim: $out"
        fi
        [ "$rc" != 0 ] || fail "attack '$row' ($method $*) succeeded: $out"
        assert_contains "$out" "$want" "attack '$row' ($method $*)"
}

# The victim: alice's program, not in the foreground, at utility.
client_start "$alice"
victim_pid=$MAIN
ask "spawn v1"
v1=$REPLY
victim_tids=("$MAIN" "$v1")
st=$(stat_field "$MAIN" 22)
stv=$(stat_field "$v1" 22)

DENIED=org.freedesktop.DBus.Error.AccessDenied
INVALID=org.freedesktop.DBus.Error.InvalidArgs
req() { # tid start class relpri: SetThreadClass's arguments for dbus-send
        echo "int32:$1 uint64:$2 string:$3 int32:$4"
}
for c in user-interactive user-initiated utility background; do
        # shellcheck disable=SC2046
        attack "another user's thread" "$bob" "$DENIED: Not allowed: thread of another user" \
                SetThreadClass $(req "$MAIN" "$st" "$c" 0)
done
# shellcheck disable=SC2046
attack "another user's thread" "$bob" "$DENIED: Not allowed: thread of another user" \
        SetThreadClass $(req "$DBUS_PID" "$(stat_field "$DBUS_PID" 22)" user-interactive 0)
for c in user-interactive user-initiated; do
        # shellcheck disable=SC2046
        attack "another process of the same user, upwards" "$alice" \
                "$DENIED: Not allowed: thread of another process: only a lower class" \
                SetThreadClass $(req "$v1" "$stv" "$c" 0)
done
for d in 1 -1 1000000; do
        # shellcheck disable=SC2046
        attack "forged start time" "$alice" "org.qosd.QoS1.Error.NoSuchTask" \
                SetThreadClass $(req "$v1" $((stv + d)) utility 0)
done
for args in "0 $st utility 0" "-1 $st utility 0" "$MAIN 0 utility 0" "$MAIN $st UI 0" \
            "$MAIN $st unspecified 0" "$MAIN $st User-Interactive 0" "$MAIN $st utility 1" \
            "$MAIN $st utility -16" "$MAIN $st utility 2147483647" "$MAIN $st utility -2147483648" \
            "$MAIN $st $(printf 'u%.0s' {1..300}) 0"; do
        # shellcheck disable=SC2046,SC2086
        attack "out-of-range values" "$alice" "$INVALID" SetThreadClass $(req $args)
done
attack "out-of-range values" "$alice" "$INVALID" SetThreadClass int32:"$MAIN" uint64:"$st" string: int32:0
attack "wrong signature" "$alice" "$INVALID" SetThreadClass string:user-interactive
attack "wrong signature" "$alice" "$INVALID" SetThreadClass int32:"$MAIN" uint64:"$st" \
        string:user-interactive int32:0 int32:0
attack "wrong signature" "$alice" "$INVALID" SetThreadClass
attack "wrong signature" "$alice" "$INVALID" SetThreadClass int32:"$MAIN" int64:"$st" \
        string:user-interactive int32:0
attack "wrong signature" "$alice" "$INVALID" SetThreadClass int32:"$MAIN" uint64:"$st" \
        array:string:user-interactive int32:0
attack "wrong signature" root "$INVALID" SetForeground int32:"$victim_pid"
attack "foreground without trust" "$alice" "$DENIED" SetForeground array:int32:1,"$victim_pid"
attack "foreground without trust" "$bob" "$DENIED" SetForeground array:int32:
attack "out-of-range values" root "$INVALID" SetForeground array:int32:"$victim_pid",0
# SetFocus: a session source speaks only for the user at the seat, and
# neither alice nor bob sits at one.
refused=$(qosd_status ForegroundRefused)
attack "focus without an active seat session" "$alice" "$DENIED: Refused: the caller's user has no active session on a seat" \
        SetFocus string:x11 int32:"$victim_pid"
attack "focus without an active seat session" "$bob" "$DENIED: Refused" SetFocus string:x11 int32:"$victim_pid"
attack "focus without an active seat session" "$bob" "$DENIED: Refused" SetFocus string:x11 int32:0
assert_eq "$(qosd_status ForegroundRefused)" $((refused + 3)) "refused focus claims are counted"
for src in string:X11 string: "string:$(printf 'x%.0s' {1..32})" "string:a/b"; do
        attack "out-of-range values" root "$INVALID" SetFocus "$src" int32:"$victim_pid"
done
attack "out-of-range values" root "$INVALID" SetFocus string:x11 int32:-1
attack "wrong signature" root "$INVALID" SetFocus int32:"$victim_pid"
attack "out-of-range values" root "$INVALID" SetForeground array:int32:-5
# Huge arrays: 100000 PIDs to SetForeground (root, over the limit), and to
# SetThreadClass (wrong signature).
big=$(seq 1 100000 | tr '\n' ' ')
# shellcheck disable=SC2086
BUSCTL=1 attack "huge arrays" root "At most 1024 PIDs, not 100000" SetForeground ai 100000 $big
# shellcheck disable=SC2086
BUSCTL=1 attack "huge arrays" "$alice" "Invalid" SetThreadClass ai 100000 $big
assert_eq "$("$QOSCTL" foreground)" "" "the foreground is still empty"

# A real-time thread is never touched.
chrt -f -p 1 "$v1"
victim_tids=("$MAIN")
# shellcheck disable=SC2046
attack "real-time thread" "$alice" "org.qosd.QoS1.Error.RealTime" SetThreadClass $(req "$v1" "$stv" background 0)
chrt -o -p 0 "$v1"
victim_tids=("$MAIN" "$v1")

# A caller PID that is not the caller's any more: the connection was made
# by a process that exited; its PID now belongs to another program of
# alice's. Were the bus's PID believed, the request would be for "its own"
# process and granted.
caller_start --orphan
ghost=$CALLER_PID
wait_for sh -c "! kill -0 $ghost" || fail "the orphan's parent did not exit"
# Start times are in clock ticks (10 ms): a PID reused within the tick the
# connection appeared in cannot be told apart (qosd(8), LIMITATIONS). An
# unprivileged user needs far longer to cycle the PID space; the test's
# clone3(set_tid) does not, so it waits out the tick like a real attacker.
sleep 0.03
"$QOS_SPAWN_AT_PID" "$ghost" "$(command -v setpriv)" --reuid="$alice" --regid="$alice" --init-groups \
        "$QOS_TEST_THREADS" g1 >"$TEST_TMP/ghost.out" 2>"$TEST_TMP/ghost.err" &
on_exit "kill $ghost; kill $!"
wait_for grep -qx ready "$TEST_TMP/ghost.out" || fail "no program under the reused PID $ghost: $(cat "$TEST_TMP/ghost.err" "$TEST_TMP/ghost.out"; ps -o pid,stat,comm -p "$ghost")"
g1=$(awk '$2 == "g1" { print $1 }' "$TEST_TMP/ghost.out")
victim_tids=("$MAIN" "$v1" "$g1")
for c in user-initiated user-interactive; do
        before=$(victim_views)
        caller_ask "call $g1 $(stat_field "$g1" 22) $c 0"
        attempts=$((attempts + 1))
        tried["reused caller PID"]=$((${tried["reused caller PID"]:-0} + 1))
        [ "$(victim_views)" = "$before" ] || { escalations=$((escalations + 1)); fail "reused PID: $out"; }
        assert_eq "$out" "org.freedesktop.DBus.Error.AccessDenied" "a reused caller PID is refused"
done
caller_stop
ok "a reused caller PID is not taken for the caller"
kill -0 "$QOSD_PID" || fail "qosd died"

# --- a flood: a clear error, a daemon that still answers -----------------

ps_before=$("$QOSCTL" ps | sort)
caller_start
fpid=$CALLER_PID
# Its own main thread, down to background and back is what a program may ask.
caller_ask "flood 400 $fpid $(stat_field "$fpid" 22) background"
set -- $out
[ "$4" -ge 1 ] || fail "400 requests at once were not rate limited: $out"
[ "$2" -ge 40 ] || fail "the burst was refused: $out"
[ "$6" = 0 ] || fail "other errors in the flood: $out"
attempts=$((attempts + 400))
tried["request flood (400 calls)"]=400
kill -0 "$QOSD_PID" || fail "qosd died in the flood"
[ "$(qosd_status RequestsRateLimited)" -ge "$4" ] || fail "status does not count the rate-limited requests"
# Others are not starved: bob's own request right after is answered.
out=$(runuser -u "$bob" -- busctl --system call org.qosd.QoS1 /org/qosd/QoS1 org.qosd.QoS1.Manager \
        Explain i "$victim_pid") || fail "qosd does not answer after the flood"
sleep 1.2 # the bucket refills
caller_ask "call $fpid $(stat_field "$fpid" 22) utility 0"
assert_eq "$out" "utility granted" "after a pause the caller is served again"
caller_stop
ps_after=$("$QOSCTL" ps | sort | grep -v " $fpid ")
assert_eq "$ps_after" "$(echo "$ps_before" | grep -v " $fpid ")" "the managed threads are as before the flood"
ok "a flood is rate limited with a clear error; qosd answers and keeps its state"

# --- what was allowed: downwards in another own process ------------------

out=$(runuser -u "$alice" -- busctl --system call org.qosd.QoS1 /org/qosd/QoS1 org.qosd.QoS1.Manager \
        SetThreadClass itsi "$v1" "$stv" background 0)
assert_eq "$out" 'ss "background" "granted"' "another process of the same user, downwards"
assert_eq "$(kernel_view "$v1")" "$BG" "v1 is background"
ok "another process of the same user may lower a thread"

# Equal, from another process while the program is in front: granted, and
# held by the gate like the program's own request once the focus moves.
"$QOSCTL" foreground "$MAIN"
ask "spawn v2"
v2=$REPLY
expect "tid-set v2 user-interactive 0" 0
out=$(runuser -u "$alice" -- busctl --system call org.qosd.QoS1 /org/qosd/QoS1 org.qosd.QoS1.Manager \
        SetThreadClass itsi "$v2" "$(stat_field "$v2" 22)" user-interactive 0)
assert_eq "$out" 'ss "user-interactive" "granted"' "another process of the same user, equal, in front"
"$QOSCTL" foreground --clear
assert_eq "$(kernel_view "$v2")" "$UT" "the focus moves on: that request is held at utility too"
"$QOSCTL" foreground "$MAIN"
assert_eq "$(kernel_view "$v2")" "$UI" "and raised again with its process"
"$QOSCTL" foreground --clear
ok "a request from another process of the user meets the foreground gate"
client_stop

# --- the same gate on the rules ------------------------------------------

THREADS_BIN=$UIAPP start_threads t
p1=$THREADS_PID
wait_view "$p1" "$UT" "an admin rule's user-interactive, outside the foreground"
explain_has "$p1" "held                at utility: not in the foreground" "explain: held by the gate"
"$QOSCTL" foreground "$p1"
wait_view "$p1" "$UI" "the same process in the foreground"
"$QOSCTL" foreground --clear
wait_view "$p1" "$UT" "out of the foreground again"
THREADS_BIN=$UIVEND start_threads t
wait_view "$THREADS_PID" "$UT" "a vendor rule cannot exempt itself"
THREADS_BIN=$UIEX start_threads t
wait_view "$THREADS_PID" "$UI" "the admin's exemption"
ok "rules' user-interactive meets the gate too; only an admin file exempts"

attack_table escalations "$escalations"
stop_qosd
ok "the broker held every line"
