#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# qosctl top against the real daemon and kernel: a process whose threads
# rules put in four classes plus a thread that spins; the batch output
# shows each under its class with its rule and group, the spinning thread
# with the highest CPU share; the terminal view under tmux draws, resorts
# on w/c, survives resizing and quits on q; without qosd the classes come
# from the kernel attributes and the header says qosd is not running.
source "$(dirname "$0")/lib.sh"
require_root
command -v tmux >/dev/null || fail "tmux is missing (scripts/install-deps.sh installs it)"
qosd_root_init

APP=$(test_program qos-app-top)
write_rule app-top "$APP" utility "render*" user-interactive "fetch*" user-initiated "index*" background
RULE_FILE="$QOSD_ROOT/etc/qos/apps.d/app-top.conf"
rule_line() { # class: file:line of its Class= in the rule file, as qosd reports the origin
        echo "$RULE_FILE:$(grep -n "^Class=$1\$" "$RULE_FILE" | cut -d: -f1)"
}

start_dbus
start_qosd
THREADS_BIN=$APP start_threads --busy spinner render-main fetcher indexer
pid=$THREADS_PID
wait_view "$(tid_of render-main)" "$(class_view user-interactive)" "render-main in its class"
wait_view "$(tid_of indexer)" "$(class_view background)" "indexer in its class"
spinner=
for t in /proc/"$pid"/task/*; do
        [ "$(cat "$t/comm")" = spinner ] && spinner=${t##*/}
done
[ -n "$spinner" ] || fail "no spinner thread in $pid"

# "CLASS TID PID COMM CPU% WAIT STATE GROUP RULE" for each thread of the
# last frame of a batch output.
last_frame_rows() { # file
        awk '/^qosctl top - / { n = 0 }
             /^[a-z-]+: [0-9]+ threads?( |$)/ { cls = $1; sub(/:$/, "", cls); next }
             $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { rows[++n] = cls " " $0 }
             END { for (i = 1; i <= n; i++) print rows[i] }' "$1"
}
row_of() { # rows-file tid
        awk -v t="$2" '$2 == t' "$1"
}
field() { # row n
        echo "$1" | awk -v n="$2" '{ print $n }'
}
# The group qosd reports for a thread (ps's knobs "group=..."), "-" if none.
ps_group() { # tid
        "$QOSCTL" ps -a -p "$pid" | awk -v t="$1" '$2 == t { for (i = 1; i <= NF; i++) if ($i ~ /^group=/) { sub(/^group=/, "", $i); g = $i } } END { print g ? g : "-" }'
}

# ---- batch, with qosd
"$QOSCTL" top -b -n 2 -d 1 >"$TEST_TMP/top.out" || fail "qosctl top -b exited $?"
out=$(cat "$TEST_TMP/top.out")
assert_eq "$(grep -c '^qosctl top - ' "$TEST_TMP/top.out")" 2 "-n 2 prints two frames"
! grep -q $'\e' "$TEST_TMP/top.out" || fail "escape codes in the batch output"
assert_contains "$out" "sorted by wait" "the default sort key is wait"
grep -Eq '^qosd: [1-9][0-9]* of [0-9]+ threads managed' "$TEST_TMP/top.out" || fail "no qosd line in the header: $(head -3 "$TEST_TMP/top.out")"
last_frame_rows "$TEST_TMP/top.out" >"$TEST_TMP/rows"

for spec in render-main:user-interactive fetcher:user-initiated indexer:background; do
        name=${spec%%:*} class=${spec#*:} tid=$(tid_of "${spec%%:*}")
        row=$(row_of "$TEST_TMP/rows" "$tid")
        [ -n "$row" ] || fail "$name ($tid) is not in the view"
        assert_eq "$(field "$row" 1) $(field "$row" 4) $(field "$row" 7)" "$class $name applied" "$name's class and state"
        assert_eq "$(field "$row" 9)" "$(rule_line "$class")" "$name's rule"
        assert_eq "$(field "$row" 8)" "$(ps_group "$tid")" "$name's group, as qosd reports it"
        awk -v c="$(field "$row" 5)" 'BEGIN { exit !(c < 1) }' || fail "$name idles but has $(field "$row" 5)% CPU"
        if [ -n "$CPU_CGROUP" ] && [ "$(cgroup_of $$)" = / ]; then
                assert_contains "$(field "$row" 8)" "$class" "$name is in its class's group"
        fi
done
ok "batch: each thread under its class, with state, rule and group"

row=$(row_of "$TEST_TMP/rows" "$spinner")
[ -n "$row" ] || fail "the spinner ($spinner) is not in the view"
assert_eq "$(field "$row" 1) $(field "$row" 4)" "utility spinner" "the spinner's class (the process rule)"
spin_cpu=$(field "$row" 5)
interval_ms=$(awk '/ run-queue wait .* in / { s = $(NF - 1) } END { print s * 1000 }' "$TEST_TMP/top.out")
awk -v c="$spin_cpu" 'BEGIN { exit !(c >= 2 && c <= 100.05) }' || fail "spinner CPU share $spin_cpu% is not plausible"
awk -v p="$pid" -v s="$spinner" -v c="$spin_cpu" '$3 == p && $2 != s && $5 + 0 >= c + 0 { bad = 1 } END { exit bad }' \
        "$TEST_TMP/rows" || fail "a thread of $pid has more CPU than the spinner: $(cat "$TEST_TMP/rows")"
# The header rounds the interval to 10 ms.
awk -v i="$interval_ms" '$6 + 0 < 0 || $6 + 0 > i + 10 { bad = 1 } END { exit bad }' "$TEST_TMP/rows" ||
        fail "a wait longer than the interval ($interval_ms ms)"
ok "batch: the spinning thread has the highest CPU share ($spin_cpu%), waits within the interval"

# Every class's totals line: its count is its rows, its CPU their sum.
awk '/^qosctl top - / { delete n; delete cpu; delete tot; delete cnt; cls = "" }
     /^[a-z-]+: [0-9]+ threads?( |$)/ { cls = $1; cnt[cls] = $2; tot[cls] = $(NF - 1); next }
     cls != "" && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n[cls]++; cpu[cls] += $4 }
     END { for (c in cnt) if (n[c] != cnt[c] || cpu[c] - tot[c] > 0.05 * n[c] + 0.1 || tot[c] - cpu[c] > 0.05 * n[c] + 0.1) {
             print c, n[c], cnt[c], cpu[c], tot[c]; bad = 1 }
           exit bad }' "$TEST_TMP/top.out" || fail "a class's totals do not add up"
ok "batch: the class totals add up"

"$QOSCTL" top -b -n 1 -d 0.5 -s cpu -p "$pid" >"$TEST_TMP/top-p.out" || fail "qosctl top -p exited $?"
last_frame_rows "$TEST_TMP/top-p.out" >"$TEST_TMP/rows-p"
assert_eq "$(awk '{ print $3 }' "$TEST_TMP/rows-p" | sort -u)" "$pid" "-p shows only that process"
assert_eq "$(wc -l <"$TEST_TMP/rows-p")" 5 "-p shows every thread of the process"
"$QOSCTL" top -b -n 1 -d 0.2 -p "$$,$pid" -p "$DBUS_PID" >"$TEST_TMP/top-pp.out" || fail "qosctl top -p list exited $?"
assert_eq "$(last_frame_rows "$TEST_TMP/top-pp.out" | awk '{ print $3 }' | sort -un | tr '\n' ' ')" \
        "$(printf '%s\n' "$$" "$pid" "$DBUS_PID" | sort -un | tr '\n' ' ')" "-p with a list, repeated"
assert_eq "$(awk '$1 == "utility" { print $4; exit }' "$TEST_TMP/rows-p")" spinner "-s cpu: the spinner first in its class"
assert_contains "$(cat "$TEST_TMP/top-p.out")" "sorted by cpu" "-s cpu in the header"
ok "batch: -p and -s cpu"

# The default view: the threads qosd manages, no kernel threads; -a adds
# the others, -k kernel threads, -f narrows to a name.
states_of() { # file: the STATE column of the last frame
        last_frame_rows "$1" | awk '{ print $7 }' | sort -u | tr '\n' ' '
}
"$QOSCTL" top -b -n 1 -d 0.3 >"$TEST_TMP/top-def.out" || fail "qosctl top -b exited $?"
assert_contains "$(sed -n 4p "$TEST_TMP/top-def.out")" "the threads qosd manages, no kernel threads" "the default view, said"
case " $(states_of "$TEST_TMP/top-def.out")" in *" unmanaged "* | *" realtime "*) fail "unmanaged threads in the default view: $(states_of "$TEST_TMP/top-def.out")" ;; esac
[ -n "$(row_of <(last_frame_rows "$TEST_TMP/top-def.out") "$(tid_of render-main)")" ] || fail "render-main not in the default view"
"$QOSCTL" top -b -n 1 -d 0.3 -a >"$TEST_TMP/top-a.out" || fail "qosctl top -a exited $?"
assert_contains "$(states_of "$TEST_TMP/top-a.out")" "unmanaged" "-a: the threads qosd leaves alone too"
[ -z "$(row_of <(last_frame_rows "$TEST_TMP/top-a.out") 2)" ] || fail "-a shows kthreadd, a kernel thread"
"$QOSCTL" top -b -n 1 -d 0.3 -a -k >"$TEST_TMP/top-k.out" || fail "qosctl top -a -k exited $?"
assert_eq "$(row_of <(last_frame_rows "$TEST_TMP/top-k.out") 2 | awk '{ print $4 }')" kthreadd "-k: kernel threads too"
"$QOSCTL" top -b -n 1 -d 0.3 -f RENDER >"$TEST_TMP/top-f.out" || fail "qosctl top -f exited $?"
assert_eq "$(last_frame_rows "$TEST_TMP/top-f.out" | awk '{ print $4 }' | sort -u)" render-main "-f: the thread's name, any case"
"$QOSCTL" top -b -n 1 -d 0.3 -f "$(basename "$APP")" >"$TEST_TMP/top-fp.out" || fail "qosctl top -f exited $?"
assert_eq "$(last_frame_rows "$TEST_TMP/top-fp.out" | awk '{ print $3 }' | sort -u) $(last_frame_rows "$TEST_TMP/top-fp.out" | wc -l)" \
        "$pid 5" "-f: the process's name finds all its threads"
ok "batch: managed threads by default; -a, -k and -f"

expect_exit 2 "$QOSCTL" top -b -s memory
expect_exit 2 "$QOSCTL" top -b -d 0
expect_exit 2 "$QOSCTL" top -b -n -1
expect_exit 2 "$QOSCTL" top -b -p 1,x
expect_exit 3 "$QOSCTL" top -b -p "$pid",999999999
expect_exit 2 "$QOSCTL" top </dev/null
assert_contains "$OUT" "use -b" "without a terminal"
ok "bad options and no terminal: usage errors"

# ---- a real terminal: tmux
sock="qos-top-$$"
tm() { tmux -L "$sock" "$@"; }
on_exit "tmux -L '$sock' kill-server"
screen() { tm capture-pane -p -t top; }
screen_has() { screen | grep -- "$1" >/dev/null; }
# A column of the rows under each class line is in descending order. The
# values are right-aligned under their headers, so they are cut out where
# the header ends: a thread's name may hold spaces ("tmux: server") and
# ends in digits ("memfd:sealed-91"), so fields cannot be counted.
screen_sorted() { # cpu|wait
        screen | awk -v col="$1" '
                /^ +TID +PID COMM/ { cpu_end = index($0, "CPU%") + 3; wait_end = index($0, "WAIT(ms)") + 7; next }
                /^[a-z-]+: [0-9]+ threads?/ { last = ""; next }
                cpu_end && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
                        v = col == "cpu" ? substr($0, cpu_end - 5, 6) + 0 : substr($0, wait_end - 9, 10) + 0
                        if (last != "" && v > last) bad = 1
                        last = v
                }
                END { exit bad }'
}
tm new-session -d -s top -x 120 -y 40 \
        "DBUS_SYSTEM_BUS_ADDRESS='$DBUS_SYSTEM_BUS_ADDRESS' '$QOSCTL' top -d 0.5; echo \$? >'$TEST_TMP/tty.rc'"
WAIT_TIMEOUT=30 wait_for screen_has "run-queue wait" || fail "the view did not draw: $(screen)"
WAIT_TIMEOUT=30 wait_for screen_has "^user-interactive: " || fail "no user-interactive class: $(screen)"
s=$(screen)
assert_contains "$s" "qosctl top - " "the title"
assert_contains "$s" "sorted by wait" "the sort key"
assert_contains "$s" "threads managed" "qosd in the header"
for class in user-interactive user-initiated utility background; do
        assert_contains "$s" "$class: " "the $class group"
done
assert_contains "$s" "q: quit" "the keys line"
[ "$(screen | wc -l)" -le 40 ] || fail "more lines than the terminal has"
ok "tty: the view draws, with its header and the class groups"

tm send-keys -t top c
wait_for screen_has "sorted by cpu" || fail "c did not resort: $(screen)"
WAIT_TIMEOUT=30 wait_for screen_sorted cpu || fail "rows not by CPU after c: $(screen)"
tm send-keys -t top w
wait_for screen_has "sorted by wait" || fail "w did not resort: $(screen)"
WAIT_TIMEOUT=30 wait_for screen_sorted wait || fail "rows not by wait after w: $(screen)"
ok "tty: c and w resort"

# Scrolling through every thread, and finding one by name.
tm send-keys -t top a
wait_for screen_has "showing [0-9]*: every thread" || fail "a did not show every thread: $(screen)"
wait_for screen_has "lines 1-[0-9]* of [0-9]*" || fail "no scroll position with every thread: $(screen)"
total=$(screen | sed -n 's/.*lines 1-[0-9]* of \([0-9]*\).*/\1/p')
tm send-keys -t top Down
wait_for screen_has "lines 2-" || fail "Down did not scroll: $(screen)"
tm send-keys -t top End
wait_for screen_has "lines [0-9]*-[0-9]* of " || fail "no position after End: $(screen)"
WAIT_TIMEOUT=10 wait_for sh -c "tmux -L '$sock' capture-pane -p -t top | grep -Eq 'lines [0-9]+-([0-9]+) of \\1'" ||
        fail "End did not reach the last line: $(screen)"
tm send-keys -t top Home
wait_for screen_has "lines 1-" || fail "Home did not go back: $(screen)"
ok "tty: every thread ($total lines) scrolls with Down, End and Home"

tm send-keys -t top / r e n d e r - m Enter
wait_for screen_has 'named like "render-m"' || fail "/ did not find: $(screen)"
wait_for sh -c "tmux -L '$sock' capture-pane -p -t top | grep -q ' render-main '" || fail "render-main not found: $(screen)"
! screen | grep -q " spinner " || fail "/ render-m still shows the spinner: $(screen)"
tm send-keys -t top / Enter a
wait_for screen_has "showing [0-9]*: the threads qosd manages, no kernel threads\$" ||
        fail "an empty / and a did not go back to the default view: $(screen)"
ok "tty: / finds by name, an empty / shows all again, a goes back to managed threads"

for size in "60 12" "20 4" "200 60" "120 40"; do
        tm resize-window -t top -x "${size% *}" -y "${size#* }"
        sleep 0.7
        [ ! -e "$TEST_TMP/tty.rc" ] || fail "qosctl top ended after a resize to $size: rc $(cat "$TEST_TMP/tty.rc")"
done
wait_for screen_has "qosctl top - " || fail "nothing drawn after resizing: $(screen)"
ok "tty: resizing keeps it running and drawing"

tm send-keys -t top q
wait_for test -s "$TEST_TMP/tty.rc" || fail "q did not quit: $(screen)"
assert_eq "$(cat "$TEST_TMP/tty.rc")" 0 "exit status after q"
ok "tty: q quits with status 0"

# ---- a qosd that does not answer: the view goes on without it
kill -STOP "$QOSD_PID"
on_exit "kill -CONT $QOSD_PID"
timeout 30 "$QOSCTL" top -b -n 1 -d 0.2 -p "$pid" >"$TEST_TMP/top-hung.out" || fail "qosctl top with a stopped qosd exited $?"
kill -CONT "$QOSD_PID"
assert_contains "$(sed -n 2p "$TEST_TMP/top-hung.out")" "qosd not reachable" "header with a stopped qosd"
last_frame_rows "$TEST_TMP/top-hung.out" >"$TEST_TMP/rows-hung"
assert_eq "$(field "$(row_of "$TEST_TMP/rows-hung" "$(tid_of render-main)")" 1)" user-interactive \
        "classes from the kernel attributes while qosd hangs"
ok "a qosd that does not answer: classes from the kernel, header says so"

# ---- without qosd: classes from the kernel attributes
stop_qosd TERM
"$QOSCTL" set -c background -p "$(tid_of fetcher)"
"$QOSCTL" top -b -n 1 -d 0.5 -p "$pid" >"$TEST_TMP/top-nod.out" || fail "qosctl top without qosd exited $?"
assert_eq "$(sed -n 2p "$TEST_TMP/top-nod.out")" "qosd not running: classes read from each thread's kernel attributes" "header without qosd"
last_frame_rows "$TEST_TMP/top-nod.out" >"$TEST_TMP/rows-nod"
row=$(row_of "$TEST_TMP/rows-nod" "$(tid_of fetcher)")
assert_eq "$(field "$row" 1) $(field "$row" 7) $(field "$row" 9)" "background unmanaged -" "a thread set by hand, without qosd"
row=$(row_of "$TEST_TMP/rows-nod" "$(tid_of render-main)")
assert_eq "$(field "$row" 1) $(field "$row" 7)" "utility unmanaged" "a thread qosd put back"
ok "without qosd: classes from the kernel attributes, header says so"
