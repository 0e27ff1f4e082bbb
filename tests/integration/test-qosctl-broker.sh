#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosctl set and run as real users, with qosd running on a private bus: they
# ask qosd (SetThreadClass) and say in one line what it granted, held or
# refused; a refused promotion leaves the thread as it was (and qosd still
# manages it); a granted one prints no warnings. qosctl ps (and top) then
# show the class in force and why: requested, held by the foreground gate
# or a cap, with its nice; ps is sorted, fits an 80-column terminal, and
# fails on a PID that does not exist. With qosd stopped, the knobs directly.
. "$(dirname "$0")/lib.sh"
require_root

alice=qos-t-cbalice
bob=qos-t-cbbob
make_user "$alice"
make_user "$bob"
uid=$(id -u "$alice")
ctl=$(user_runnable "$QOSCTL")
threads=$(user_runnable "$QOS_TEST_THREADS")
as() { runuser -u "$1" -- "${@:2}"; }

UI=$(class_view user-interactive)
UIN=$(class_view user-initiated)
UT=$(class_view utility)
BG=$(class_view background)
nice_of() { # kernel_view
        set -- $1
        echo "$2"
}

start_dbus
qosd_root_init
# A program whose rules cap it, and one a rule makes user-interactive,
# which the gate holds at utility for alice (no seat, no foreground source).
CAPPED=$(test_program qos-capped)
printf '[Match]\nExecutable=%s\n\n[Limits]\nMaxClass=utility\n' "$CAPPED" \
        >"$QOSD_ROOT/etc/qos/apps.d/capped.conf"
UIAPP=$(test_program qos-ui-app)
write_rule ui-app "$UIAPP" user-interactive
chmod -R a+rX "$QOSD_BIN"
start_qosd

# A qos-test-threads as USER, started by a command line that ends with the
# program (and its threads' names but the last): a thread NAME is added.
# PID: the process (not runuser's), once it is up; its output in
# $TEST_TMP/NAME.out and .err.
start_as() { # user name command...
        local user=$1 name=$2 tid
        shift 2
        as "$user" "$@" "$name" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" &
        on_exit "kill $!"
        WAIT_TIMEOUT=$STARTUP_TIMEOUT wait_for grep -qx ready "$TEST_TMP/$name.out" ||
                fail "$name did not start: $(cat "$TEST_TMP/$name.err")"
        tid=$(awk -v n="$name" '$2 == n { print $1 }' "$TEST_TMP/$name.out")
        PID=$(awk '$1 == "Tgid:" { print $2 }' "/proc/$tid/status")
}
# qosctl ps's row for thread TID of process PID (piped: every cell whole);
# its fields: PID TID COMM CLASS STATE RULE... KNOBS.
ps_row() { # pid tid
        "$QOSCTL" ps -p "$1" | awk -v t="$2" '$2 == t'
}
class_state() { # pid tid
        ps_row "$1" "$2" | awk '{ print $4, $5 }'
}
state_is() { # pid tid "class state"
        [ "$(class_state "$1" "$2")" = "$3" ]
}
foreign_before=$(qosd_status ForeignChanges)

# --- run: granted through qosd, silently -------------------------------

start_as "$alice" r1 "$ctl" run -c user-initiated "$threads"
p1=$PID
assert_eq "$(kernel_view "$p1")" "$UIN" "alice's qosctl run -c user-initiated: the command runs in it"
assert_eq "$(cat "$TEST_TMP/r1.err")" "" "a granted run prints nothing"
assert_eq "$(class_state "$p1" "$p1")" "user-initiated requested" "ps: the class in force, requested"
assert_contains "$(ps_row "$p1" "$p1")" "nice=$(nice_of "$UIN")" "ps: with its nice"
assert_contains "$("$QOSCTL" explain "$p1")" "requested user-initiated by pid $p1 uid $uid, granted" \
        "explain: the request, kept across the exec"
ok "run as a user: granted by qosd, the command keeps it; ps shows it requested"

# --- run: the command's MaxClass holds it -------------------------------

start_as "$alice" c1 "$ctl" run -c user-initiated "$CAPPED"
pc=$PID
wait_view "$pc" "$UT" "the capped program, once it runs, is held at its MaxClass"
wait_for state_is "$pc" "$pc" "utility held" || fail "ps does not show the capped program held: $(ps_row "$pc" "$pc")"
assert_contains "$("$QOSCTL" explain "$pc")" "held at utility: MaxClass=utility ($QOSD_ROOT/etc/qos/apps.d/capped.conf:" \
        "explain: the cap and its file"
ok "run of a capped program: held at its MaxClass once it runs, and ps says held"

# --- set: granted, held, refused ----------------------------------------

start_as "$alice" s1 "$threads"
p2=$PID
t2=$(awk '$2 == "s1" { print $1 }' "$TEST_TMP/s1.out")
# Alice lowers her own thread: one line, no warnings (qosd sets the group
# and the timer slack, which she could not).
out=$(as "$alice" "$ctl" set -c background -p "$t2" 2>"$TEST_TMP/err") || fail "alice's set -c background exited $?"
assert_eq "$(cat "$TEST_TMP/err")" "" "a granted set prints no warnings"
assert_eq "$out" "thread $t2 (s1) of pid $p2: background (granted)" "set: what was granted, in one line"
assert_eq "$(kernel_view "$t2")" "$BG" "the thread is background, timer slack included"
assert_eq "$(class_state "$p2" "$t2")" "background requested" "ps: background, requested"

# Back up is a promotion of another process's thread: qosd refuses it,
# and nothing changes; qosd still manages the thread (not foreign).
before=$(kernel_view "$t2")
expect_exit 4 as "$alice" "$ctl" set -c user-initiated -p "$t2"
assert_eq "$(wc -l <<<"$OUT")" 1 "a refusal is one line"
assert_contains "$OUT" "qosctl set: thread $t2 (s1) of pid $p2: refused by qosd: thread of another process" \
        "the refusal says why"
assert_contains "$OUT" "qosctl run -c user-initiated" "and what to do instead"
assert_eq "$(kernel_view "$t2")" "$before" "the refused promotion changed nothing"
assert_eq "$(class_state "$p2" "$t2")" "background requested" "qosd still manages the thread"
assert_eq "$(qosd_status ForeignChanges)" "$foreign_before" "qosd found no change by someone else"
ok "set as a user: a lowering granted in one line without warnings; a promotion refused, nothing changed"

# Root raises it; alice may then ask for less, through qosd: granted, and
# ps shows user-initiated requested with its nice.
out=$("$QOSCTL" set -c user-interactive -p "$t2") || fail "root's set exited $?"
assert_eq "$out" "thread $t2 (s1) of pid $p2: user-interactive (granted)" "root's set goes through qosd too"
assert_eq "$(kernel_view "$t2")" "$UI" "root raised it"
out=$(as "$alice" "$ctl" set -c user-initiated -p "$t2" 2>"$TEST_TMP/err") || fail "alice's set -c user-initiated exited $?"
assert_eq "$(cat "$TEST_TMP/err")" "" "no warnings"
assert_eq "$out" "thread $t2 (s1) of pid $p2: user-initiated (granted)" "set -c user-initiated granted"
assert_eq "$(kernel_view "$t2")" "$UIN" "the thread is user-initiated"
assert_eq "$(class_state "$p2" "$t2")" "user-initiated requested" "ps: user-initiated, requested"
assert_contains "$(ps_row "$p2" "$t2")" "nice=$(nice_of "$UIN")" "ps: with user-initiated's nice"
ok "set -c user-initiated as a user through qosd: granted, ps shows it requested with its nice"

# Equal is allowed from another process, and user-interactive meets the
# foreground gate: held at utility, said in one line, exit 0.
"$QOSCTL" set -c user-interactive -p "$t2" >/dev/null
out=$(as "$alice" "$ctl" set -c user-interactive -p "$t2") || fail "a held set exited $?"
assert_eq "$out" "thread $t2 (s1) of pid $p2: user-interactive held at utility: no foreground source, and uid $uid has no active seat session" \
        "set: held, and why"
assert_eq "$(kernel_view "$t2")" "$UT" "held at utility"
assert_eq "$(class_state "$p2" "$t2")" "utility held" "ps: utility, held"
ok "set -c user-interactive outside the foreground: held at utility, and ps says held"

# Another user's thread: refused, untouched.
before=$(kernel_view "$p2")
expect_exit 4 as "$bob" "$ctl" set -c background -p "$p2"
assert_contains "$OUT" "refused by qosd: thread of another user" "bob on alice's thread"
assert_eq "$(kernel_view "$p2")" "$before" "alice's thread untouched by bob"
ok "another user's thread refused, untouched"

# -a: one line for all the threads.
out=$(as "$alice" "$ctl" set -a -c background -p "$p2" 2>"$TEST_TMP/err") || fail "set -a exited $?"
n=$(ls "/proc/$p2/task" | wc -l)
assert_eq "$out" "pid $p2 (qos-test-thread), $n threads: background (granted)" "set -a: one line"
assert_eq "$(cat "$TEST_TMP/err")" "" "set -a: no warnings"
for t in $(ls "/proc/$p2/task"); do
        assert_eq "$(kernel_view "$t")" "$BG" "thread $t of the process"
done
ok "set -a: every thread through qosd, one line"

# --- ps: held by the gate, sorted, on a terminal, a missing PID ---------

start_as "$alice" u1 "$UIAPP" u2 u3
pu=$PID
wait_view "$pu" "$UT" "the rule's user-interactive, held at utility for alice"
wait_for state_is "$pu" "$pu" "utility held" || fail "ps does not show the gate's hold: $(ps_row "$pu" "$pu")"
assert_contains "$(ps_row "$pu" "$pu")" "$QOSD_ROOT/etc/qos/apps.d/ui-app.conf:" "ps: the rule held back"
ok "ps: a rule's user-interactive held by the foreground gate shows as utility held"

# top shows the same class and state.
"$QOSCTL" top -b -n 1 -d 0.2 -p "$pu" >"$TEST_TMP/top.out" || fail "qosctl top -b exited $?"
row=$(awk -v t="$pu" '/^[a-z-]+: [0-9]+ threads?/ { cls = $1 } $1 == t && $2 == t { print cls, $6 }' "$TEST_TMP/top.out")
assert_eq "$row" "utility: held" "top: the class in force and held"
ok "top shows the same class and state as ps"

# Sorted by PID, then TID.
"$QOSCTL" ps >"$TEST_TMP/ps.out"
tail -n +2 "$TEST_TMP/ps.out" | awk '{ print $1, $2 }' >"$TEST_TMP/ids"
sort -n -k1,1 -k2,2 "$TEST_TMP/ids" | cmp -s - "$TEST_TMP/ids" || fail "ps is not sorted by PID, TID: $(cat "$TEST_TMP/ids")"
ok "ps is sorted by PID and TID"

# On an 80-column terminal: no line longer, the columns aligned, held shown.
if command -v tmux >/dev/null; then
        sock="qos-ps-$$"
        on_exit "tmux -L '$sock' kill-server"
        tmux -L "$sock" new-session -d -s ps -x 80 -y 50 \
                "DBUS_SYSTEM_BUS_ADDRESS='$DBUS_SYSTEM_BUS_ADDRESS' '$QOSCTL' ps -p $pu; echo done; sleep 60"
        wait_for sh -c "tmux -L '$sock' capture-pane -p -J -t ps | grep -x done" ||
                fail "ps did not finish in tmux: $(tmux -L "$sock" capture-pane -p -t ps)"
        tmux -L "$sock" capture-pane -p -J -t ps | sed '/^done$/,$d' >"$TEST_TMP/screen"
        [ "$(wc -L <"$TEST_TMP/screen")" -le 80 ] || fail "ps wrote past 80 columns: $(cat "$TEST_TMP/screen")"
        state_at=$(head -n1 "$TEST_TMP/screen" | awk '{ print index($0, "STATE") }')
        grep -E "^ *$pu +$pu " "$TEST_TMP/screen" | awk -v at="$state_at" 'substr($0, at, 5) != "held " { exit 1 }' ||
                fail "held not under STATE on the terminal: $(cat "$TEST_TMP/screen")"
        assert_eq "$(tail -n +2 "$TEST_TMP/screen" | wc -l)" 4 "a row for each thread"
        ok "ps on an 80-column terminal: fits, aligned, says held"

        tmux -L "$sock" new-session -d -s top -x 80 -y 24 \
                "DBUS_SYSTEM_BUS_ADDRESS='$DBUS_SYSTEM_BUS_ADDRESS' '$QOSCTL' top -d 0.3 -p $pu"
        top_screen() { tmux -L "$sock" capture-pane -p -t top; }
        wait_for sh -c "tmux -L '$sock' capture-pane -p -t top | grep -Eq '^ *$pu +$pu '" ||
                fail "top did not show $pu in tmux: $(top_screen)"
        top_screen >"$TEST_TMP/top-screen"
        [ "$(wc -L <"$TEST_TMP/top-screen")" -le 80 ] || fail "top wrote past 80 columns: $(cat "$TEST_TMP/top-screen")"
        state_at=$(grep -m1 -E '^ +TID +PID' "$TEST_TMP/top-screen" | awk '{ print index($0, "STATE") }')
        grep -E "^ *$pu +$pu " "$TEST_TMP/top-screen" | awk -v at="$state_at" 'substr($0, at, 5) != "held " { exit 1 }' ||
                fail "held not under STATE in top: $(cat "$TEST_TMP/top-screen")"
        assert_contains "$(cat "$TEST_TMP/top-screen")" "ui-app.conf:" "top at 80 columns keeps the rule's file name"
        tmux -L "$sock" send-keys -t top q
        ok "top on an 80-column terminal: fits, says held, keeps the rule's file"
fi

expect_exit 3 "$QOSCTL" ps -p 999999
assert_contains "$OUT" "qosctl ps: no such process: 999999" "ps -p of a missing process"
[ -z "$("$QOSCTL" ps -p 999999 2>/dev/null)" ] || fail "ps -p 999999 printed on stdout"
ok "ps -p 999999: an error on stderr, exit 3"

# --- qosd stopped: the knobs directly ----------------------------------

stop_qosd TERM
start_as "$alice" d1 "$threads"
p3=$PID
out=$(as "$alice" "$ctl" set -c background -p "$p3" 2>"$TEST_TMP/err") || fail "set without qosd exited $?"
assert_eq "$out" "pid $p3 (qos-test-thread): background (set directly: qosd is not running)" "set without qosd"
assert_eq "$(cat "$TEST_TMP/err")" "" "without qosd, a lowering prints no warnings either"
before=$(kernel_view "$p3")
expect_exit 4 as "$alice" "$ctl" set -c user-initiated -p "$p3"
assert_contains "$OUT" "needs privilege, and qosd, which grants it, is not running" "a promotion without qosd"
assert_eq "$(kernel_view "$p3")" "$before" "the refused promotion changed nothing"
expect_exit 4 as "$alice" "$ctl" run -c user-initiated true
ok "without qosd: lowering directly, a promotion refused before anything changed"
