#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Names qosd does not choose, as root sees them: a user's threads named
# with bytes that are not UTF-8, with terminal escapes, with a C1 control
# and with a noncharacter (UTF-8 that sd-bus refuses), and a user's rule
# files named with bytes that are not UTF-8.
# D-Bus carries only UTF-8, so one such name must not make qosd's answers
# fail for everyone; and qosctl and qosd's log must show every such name
# escaped (\xNN), never send it raw to root's terminal.
source "$(dirname "$0")/lib.sh"
require_root
# Bytes, not characters: the names below are not text in any locale.
export LC_ALL=C
qosd_root_init
printf '[Daemon]\nUserRules=yes\n' >"$QOSD_ROOT/etc/qos/qosd.conf"

user=qos-enc$$
make_user "$user" "$TEST_TMP/home"
udir=$TEST_TMP/home/$user/.config/qos/apps.d
runuser -u "$user" -- mkdir -p "$udir"

# What qosctl printed: no control character but tab and newline (C0, DEL,
# C1 as UTF-8), no directional override, nothing that is not UTF-8.
printable() { # file what
        if LC_ALL=C grep -n $'[\x01-\x08\x0b-\x1f\x7f]' "$1" | cat -v >&2; then
                fail "$2: a control character reached the terminal"
        fi
        if LC_ALL=C grep -n $'\xc2[\x80-\x9f]' "$1" | cat -v >&2; then
                fail "$2: a C1 control reached the terminal"
        fi
        if LC_ALL=C grep -n -e $'\xe2\x80[\xaa-\xae]' -e $'\xe2\x81[\xa6-\xa9]' "$1" | cat -v >&2; then
                fail "$2: a directional override reached the terminal"
        fi
        iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || fail "$2: output that is not UTF-8"
}

# qosctl as root, bounded (a reply qosd cannot send would otherwise wait
# for sd-bus's 25 s), its output checked by printable; in $OUT.
qosctl_ok() { # what args...
        local what=$1 rc=0
        shift
        timeout 20 "$QOSCTL" "$@" >"$TEST_TMP/out" 2>&1 || rc=$?
        [ "$rc" = 0 ] || fail "$what: 'qosctl $*' exited $rc: $(cat -v "$TEST_TMP/out")"
        printable "$TEST_TMP/out" "$what"
        OUT=$(cat "$TEST_TMP/out")
}

start_dbus
start_qosd

# --- Threads of the user's, named from inside themselves (as prctl lets
# any program do): bytes that are not UTF-8, an OSC title and a screen
# clear, a C1 CSI, U+FFFF, a right-to-left override (U+202E: what follows
# on the line shows reversed).
invalid=$(printf 'A\377B')
escapes=$(printf '\033]0;PWNED\007\033[2J')
c1=$(printf 'C\302\2332J')
nonchar=$(printf 'N\357\277\277')
rtl=$(printf 'R\342\200\256gpj')
AS_USER=$user start_threads "$invalid" "$escapes" "$c1" "$nonchar" "$rtl"
t_invalid=$(tid_of "$invalid")
t_escapes=$(tid_of "$escapes")
t_c1=$(tid_of "$c1")
t_nonchar=$(tid_of "$nonchar")
t_rtl=$(tid_of "$rtl")
for t in "$t_invalid" "$t_escapes" "$t_c1" "$t_nonchar" "$t_rtl"; do
        [ -n "$t" ] || fail "the named threads did not start"
done
# The helper's process (THREADS_PID is runuser's).
pid=$(awk '$1 == "Tgid:" { print $2 }' "/proc/$t_invalid/status")

qosctl_ok "ps -a beside a thread named with bytes that are not UTF-8" ps -a
assert_contains "$OUT" "$t_invalid" "ps -a lists the thread"
assert_contains "$OUT" 'A\xffB' "ps -a shows the byte escaped"
assert_contains "$OUT" '\x1b]0;PWNED\x07\x1b[2J' "ps -a shows the escapes escaped"
assert_contains "$OUT" 'C\xc2\x9b2J' "ps -a shows the C1 control escaped"
assert_contains "$OUT" 'N\xef\xbf\xbf' "ps -a shows the noncharacter escaped"
assert_contains "$OUT" 'R\xe2\x80\xaegpj' "ps -a shows the override escaped"
ok "qosctl ps -a as root: every thread listed, names escaped"

qosctl_ok "explain of a thread named with bytes that are not UTF-8" explain "$t_invalid"
assert_contains "$OUT" "$t_invalid (A\\xffB)" "explain names the thread escaped"
qosctl_ok "explain of a thread named with terminal escapes" explain "$t_escapes"
assert_contains "$OUT" '(\x1b]0;PWNED\x07\x1b[2J)' "explain names the thread escaped"
qosctl_ok "explain of a thread named with a C1 control" explain "$t_c1"
qosctl_ok "explain of a thread named with a noncharacter" explain "$t_nonchar"
assert_contains "$OUT" "$t_nonchar (N\\xef\\xbf\\xbf)" "explain names the thread escaped"
ok "qosctl explain as root: names escaped"

qosctl_ok "top beside the named threads" top -b -n 1 -p "$pid"
assert_contains "$OUT" 'A\xffB' "top shows the byte escaped"
assert_contains "$OUT" '\x1b]0;PWNED' "top shows the escapes escaped"
qosctl_ok "get of a thread named with terminal escapes" get -p "$pid" -a
assert_contains "$OUT" '\x1b]0;PWNED' "get shows the escapes escaped"
qosctl_ok "status beside the named threads" status
ok "qosctl top, get and status: names escaped"

# Unprivileged, the same list: the user's own view and another user's.
user_qosctl=$(user_runnable "$QOSCTL")
timeout 20 runuser -u "$user" -- "$user_qosctl" ps -a >"$TEST_TMP/out" 2>&1 || fail "ps -a as the user: $(cat -v "$TEST_TMP/out")"
printable "$TEST_TMP/out" "ps -a as the user"
timeout 20 runuser -u nobody -- "$user_qosctl" ps -a >"$TEST_TMP/out" 2>&1 || fail "ps -a as nobody: $(cat -v "$TEST_TMP/out")"
printable "$TEST_TMP/out" "ps -a as nobody"
ok "qosctl ps -a as the user and as another user"

# --- The user's rule files named with bytes that are not UTF-8: a FIFO
# (reported, skipped) beside one that cannot be read for another reason,
# and a rule file whose rule applies (its name is the thread's origin).
MINE=$(test_program qos-enc-mine)
bad=$(printf '\377')
# And one named with terminal escapes and a newline: qosd's log names it.
mkfifo "$udir/x$bad.conf" "$udir/fifo.conf" "$udir/$(printf 'e\033]0;PWNED\007\nforged: x').conf"
printf '[Match]\nExecutable=%s\n\n[Process]\nClass=background\n' "$MINE" >"$udir/r$bad.conf"
chown -R "$user:" "$TEST_TMP/home/$user/.config"
bg=$(class_view background)

qosctl_ok "reload with rule files named with bytes that are not UTF-8" reload
assert_contains "$OUT" 'x\xff.conf:0: cannot read: not a regular file' "reload reports the FIFO, escaped"
assert_contains "$OUT" 'fifo.conf:0: cannot read: not a regular file' "reload reports the other FIFO"
assert_contains "$OUT" 'e\x1b]0;PWNED\x07\x0aforged: x.conf:0: cannot read' "reload names the file with a newline on one line"
if grep -q '^forged' <<<"$OUT"; then
        fail "a file name forged a line of qosctl reload's report"
fi
qosctl_ok "status after that reload" status
assert_contains "$OUT" 'x\xff.conf:0: cannot read: not a regular file' "status reports the FIFO, escaped"
assert_contains "$OUT" 'fifo.conf:0: cannot read: not a regular file' "status reports the other FIFO"
rules=$(awk '$1 == "RulesLoaded" { print $2 }' <<<"$OUT")
[ "${rules:-0}" -ge 1 ] || fail "the rule from the file named with bytes that are not UTF-8 is not loaded: $OUT"
lrm=$(busctl --system get-property org.qosd.QoS1 /org/qosd/QoS1 org.qosd.QoS1.Manager LastReloadMessage) ||
        fail "LastReloadMessage cannot be read"
assert_contains "$lrm" 'x\\xff.conf' "LastReloadMessage names the FIFO, escaped"
ok "qosctl reload and status: the files named with bytes that are not UTF-8 reported escaped, the others too"

printable "$QOSD_LOG" "qosd's log"
assert_contains "$(cat "$QOSD_LOG")" 'e\x1b]0;PWNED\x07\x0aforged: x.conf:0: cannot read' "qosd's log names the file escaped"
if grep -q '^forged' "$QOSD_LOG"; then
        fail "a file name forged a line of qosd's log"
fi
ok "qosd's log: names escaped, no line forged"

AS_USER=$user THREADS_BIN=$MINE start_threads mine
wait_view "$(tid_of mine)" "$bg" "the rule from the file named with bytes that are not UTF-8"
qosctl_ok "ps of a thread whose rule file is named with bytes that are not UTF-8" ps
assert_contains "$OUT" 'r\xff.conf' "ps shows the rule file escaped"
qosctl_ok "explain of that thread" explain "$(tid_of mine)"
assert_contains "$OUT" 'r\xff.conf' "explain shows the rule file escaped"
qosctl_ok "ps -a at the end" ps -a
ok "a rule from a file named with bytes that are not UTF-8: applied, shown escaped"

stop_qosd
ok "qosd stopped cleanly"
