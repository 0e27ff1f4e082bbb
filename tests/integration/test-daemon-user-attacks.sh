#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What a user can try with the rule directory in their home, against the
# real daemon: rule files that are FIFOs or symlinks to terminals (swapped
# in while reloads run), 100,000 files, 50,000 empty drop-in directories,
# and a storm of changes beside the administrator's. qosd must keep
# answering and applying classes, load at
# most the per-user limits, apply the system rules whatever the user does,
# and reload for the user at a bounded rate without holding up the
# administrator's reloads.
source "$(dirname "$0")/lib.sh"
require_root
qosd_root_init
conf=$QOSD_ROOT/etc/qos/qosd.conf
printf '[Daemon]\nUserRules=yes\nUserRulesReloadIntervalSec=1\n' >"$conf"

mallory=qos-atk$$
home=$TEST_TMP/home
mkdir -p "$home"
# The 100,000 files on a tmpfs: on a busy disk making and removing them
# would take minutes.
mount -t tmpfs -o size=1g,nr_inodes=200k,mode=755 qos-test "$home"
on_exit "umount -l '$home'"
remove_user "$mallory"
useradd --create-home --home-dir "$home/$mallory" --shell /bin/sh "$mallory"
# The user's processes (the pty's holder, the loops) end before the user.
on_exit "remove_user '$mallory'"
udir=$home/$mallory/.config/qos/apps.d
as_user() { runuser -u "$mallory" -- "$@"; }
as_user mkdir -p "$udir"

MINE=$(test_program qos-atk-mine)
SYS=$(test_program qos-atk-sys)
ADMIN=$(test_program qos-atk-admin)
write_rule atk-sys "$SYS" user-initiated
as_user sh -c "printf '[Match]\nExecutable=%s\n\n[Process]\nClass=background\n' '$MINE' >'$udir/mine.conf'"

bg=$(class_view background)
ini=$(class_view user-initiated)
def=$(class_view utility)

# qosd answers within 5 s, or it hangs.
responsive() { # what
        timeout 5 "$QOSCTL" status >/dev/null || fail "qosd does not answer $1"
}

# New processes, the user's and root's, get their classes: the loop runs.
applies() { # what
        AS_USER=$mallory THREADS_BIN=$MINE start_threads m
        wait_view "$(tid_of m)" "$bg" "the user's rule, $1"
        THREADS_BIN=$SYS start_threads s
        wait_view "$THREADS_PID" "$ini" "the system rule, $1"
        AS_USER=$mallory THREADS_BIN=$SYS start_threads s
        wait_view "$(tid_of s)" "$ini" "the system rule for the user, $1"
}

# Under AddressSanitizer freed memory waits in a quarantine (256 MiB by
# default) before it is reused, which the RSS below would measure instead
# of qosd's own use; a small one keeps the comparison about qosd.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4

start_dbus
# A FIFO without a writer: an open that waits for one would stop qosd at
# its first load, before it is ready.
as_user mkfifo "$udir/fifo.conf"
start_qosd
assert_contains "$(cat "$QOSD_LOG")" "fifo.conf:0: cannot read: not a regular file" "the FIFO is reported"
responsive "with a FIFO in a user's directory"
applies "beside a FIFO"
ok "a FIFO among a user's rule files is reported and skipped"

# --- Files swapped for FIFOs and terminals while reloads run. A pty of
# the user's own (a read from it would wait for input for good), and
# /dev/tty.
as_user script -qfc "sleep 60" /dev/null </dev/null >/dev/null 2>&1 &
on_exit "kill $!"
user_pty() { find /dev/pts -user "$mallory" 2>/dev/null | grep . >/dev/null; }
wait_for user_pty || fail "no pty for the user"
pty=$(find /dev/pts -user "$mallory" | head -n1)
as_user ln -s "$pty" "$udir/pty.conf"
as_user ln -s /dev/tty "$udir/tty.conf"
as_user mkdir -p "$udir/mine.conf.d"
as_user mkfifo "$udir/mine.conf.d/fifo.conf"
as_user sh -c "
        end=\$((\$(date +%s) + 4))
        while [ \$(date +%s) -lt \$end ]; do
                printf '[Process]\nClass=background\n' >'$udir/swap.tmp' && mv '$udir/swap.tmp' '$udir/swap.conf'
                rm -f '$udir/swap.conf'; mkfifo '$udir/swap.conf'
                rm -f '$udir/swap.conf'; ln -s '$pty' '$udir/swap.conf'
                rm -f '$udir/swap.conf'; ln -s /dev/tty '$udir/swap.conf'
                rm -f '$udir/swap.conf'
        done" &
swapper=$!
on_exit "kill $swapper"
for i in 1 2 3 4; do
        timeout 10 "$QOSCTL" reload >/dev/null || fail "qosctl reload did not come back while files were swapped"
        kill -HUP "$QOSD_PID"
        responsive "while a user swaps files for FIFOs and terminals"
        sleep 0.3
done
wait "$swapper" || true
timeout 10 "$QOSCTL" reload >/dev/null || fail "reload after the swaps"
log=$(cat "$QOSD_LOG")
# Terminals are outside the user's home: the links are not followed.
assert_contains "$log" "pty.conf:0: cannot read: a symbolic link out of the owner's home directory" \
        "the symlink to a pty is refused"
assert_contains "$log" "tty.conf:0: cannot read: a symbolic link out of the owner's home directory" \
        "the symlink to /dev/tty is refused"
assert_contains "$log" "mine.conf.d/fifo.conf:0: cannot read: not a regular file" "a FIFO drop-in is reported"
responsive "after the swaps"
applies "after the swaps"
ok "FIFOs and terminals swapped in during reloads: qosd answers, reports them, applies the rest"
rm -f "$udir"/*.conf "$udir/mine.conf.d/fifo.conf"
as_user sh -c "printf '[Match]\nExecutable=%s\n\n[Process]\nClass=background\n' '$MINE' >'$udir/mine.conf'"

# --- A reload storm: the user changes files for several seconds while
# the administrator adds a rule.
timeout 10 "$QOSCTL" reload >/dev/null
THREADS_BIN=$ADMIN start_threads a
admin_pid=$THREADS_PID
t0=$(date +%s.%N)
user0=$(qosd_status UserReloads)
full0=$(qosd_status Reloads)
as_user sh -c "
        end=\$((\$(date +%s) + 8))
        i=0
        while [ \$(date +%s) -lt \$end ]; do
                i=\$((i + 1))
                printf '[Process]\nClass=background\n' >'$udir/churn\$((i % 20)).conf'
                rm -f '$udir/churn\$(((i + 10) % 20)).conf'
        done" &
churner=$!
on_exit "kill $churner"
sleep 2
write_rule atk-admin "$ADMIN" user-initiated
WAIT_TIMEOUT=5 wait_view "$admin_pid" "$ini" "the administrator's rule during the user's storm"
kill -0 "$churner" 2>/dev/null || fail "the storm ended before the administrator's rule applied"
ok "the administrator's change applies during a user's reload storm"
wait "$churner" || true
sleep 1.5 # the user's last reload, at most one interval after the storm
user_reloads=$(($(qosd_status UserReloads) - user0))
full_reloads=$(($(qosd_status Reloads) - full0))
# One per interval (1 s) of the window between the two readings, one at
# its start, and one that may have been due when it began.
secs=$(echo "$(date +%s.%N) - $t0" | bc)
bound=$(echo "$secs / 1 + 2" | bc)
echo "# a storm in ${secs}s: $user_reloads reloads of the user's rules (bound $bound), $full_reloads full reloads"
[ "$user_reloads" -ge 1 ] || fail "the user's changes were never loaded"
[ "$user_reloads" -le "$bound" ] || fail "$user_reloads reloads for the user's storm, more than $bound"
assert_eq "$full_reloads" 1 "full reloads during the storm: only the administrator's"
responsive "after the storm"
applies "after the storm"
ok "a user's storm: $user_reloads reloads of their rules in ${secs}s, no full reload"
rm -f "$udir"/churn*.conf

# --- 100,000 files, each a valid rule matched by its name: r00000 ...
# r99999. The first UserRulesMaxFiles (256) by name load (mine.conf and
# r00000 ... r00254), the rest not.
rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$QOSD_PID/status"; }
rss0=$(rss)
full0=$(qosd_status Reloads)
uid=$(id -u "$mallory")
loaded() { grep -q "rules of uid $uid reloaded: $1 rules of theirs" "$QOSD_LOG"; }
echo "# $(date +%T) making 100,000 files"
as_user sh -c "cd '$udir' && awk 'BEGIN { for (i = 0; i < 100000; i++) printf \"[Process]\nClass=background\n\" }' |
        split -l 2 -a 5 -d --additional-suffix=.conf - r"
[ "$(find "$udir" -name 'r*.conf' | wc -l)" = 100000 ] || fail "the 100,000 files were not made"
echo "# $(date +%T) made"
# mine.conf and r00000 ... r00254: the user's reload, at most one interval away.
wait_for loaded 256 || fail "the user's reload did not load the 256 rules within the limit"
responsive "with 100,000 files in a user's directory"
# Some 200,000 events, which may overflow the users' inotify queue: that
# makes the users' reloads due, never a full one.
echo "# inotify queue overflows seen: $(grep -c "users' rule directories' inotify queue overflowed" "$QOSD_LOG" || true)"
assert_eq "$(qosd_status Reloads)" "$full0" "full reloads caused by the user's files"
timeout 30 "$QOSCTL" reload >/dev/null || fail "a full reload with 100,000 user files"
assert_contains "$(cat "$QOSD_LOG")" "r00255.conf:0: more than 256 rule files (UserRulesMaxFiles=); this file and 99744 after it" \
        "the limit is reported at the first file left out"
echo "# RulesLoaded $(qosd_status RulesLoaded); VmRSS ${rss0} kB before the files, $(rss) kB after the loads"
cp "$MINE" "$QOSD_BIN/r00007"
cp "$MINE" "$QOSD_BIN/r99999"
AS_USER=$mallory THREADS_BIN=$QOSD_BIN/r00007 start_threads w
wait_view "$(tid_of w)" "$bg" "a rule within the limit applies"
AS_USER=$mallory THREADS_BIN=$QOSD_BIN/r99999 start_threads x
sleep 0.3
assert_eq "$(kernel_view "$(tid_of x)")" "$def" "a rule beyond the limit does not"
applies "with 100,000 files in a user's directory"
# The rules within the limit, not 100,000 rules: loading all of them
# would take some 27 MiB more (qosd loading 100,000 system rules holds
# 31 MiB). The sanitizers' allocator keeps more of what was freed.
rss1=$(rss)
slack=8192
qosd_has_asan && slack=32768
[ "$rss1" -le $((rss0 + slack)) ] || fail "VmRSS grew from $rss0 kB to $rss1 kB with 100,000 user files"
ok "100,000 files: the first 256 load, the limit is reported, system rules apply, VmRSS $rss0 -> $rss1 kB"

# --- 50,000 empty drop-in directories. Each costs an open and a listing
# when read, so they count like files: the first 256 by name are read
# (a.conf.d, d00000 ... d00254), the rest never opened. Before, every
# reload of the user's rules read all of them (0.55 s of qosd's CPU each).
find "$udir" -name 'r*.conf' -delete
DROP=$(test_program qos-atk-drop)
as_user sh -c "printf '[Match]\nExecutable=%s\n\n[Process]\nClass=utility\n' '$DROP' >'$udir/a.conf' &&
        mkdir '$udir/a.conf.d' && printf '[Process]\nClass=background\n' >'$udir/a.conf.d/10-bg.conf'"
echo "# $(date +%T) making 50,000 directories"
as_user sh -c "cd '$udir' && seq -f 'd%05g.conf.d' 0 49999 | xargs mkdir"
echo "# $(date +%T) made"
# 50,002 in all with mine.conf.d: 256 read, 49,746 skipped.
dirs_reported() {
        grep -q "d00255.conf.d:0: more than 256 drop-in directories (UserRulesMaxFiles=); this directory and 49745 after it" \
                "$QOSD_LOG"
}
wait_for dirs_reported || fail "the user's reload did not report the directories beyond the limit: $(grep 'drop-in directories' "$QOSD_LOG" | tail -n 2)"
AS_USER=$mallory THREADS_BIN=$DROP start_threads y
wait_view "$(tid_of y)" "$bg" "a drop-in within the limit applies"
cpu_ns() { awk '{ print $1 }' "/proc/$QOSD_PID/schedstat"; }
reloads0=$(qosd_status UserReloads)
cpu0=$(cpu_ns)
as_user touch "$udir/a.conf"
wait_for status_above UserReloads "$reloads0" || fail "touching a.conf did not reload the user's rules"
echo "# one reload of the user's rules with 50,002 drop-in directories: $((($(cpu_ns) - cpu0) / 1000000)) ms of qosd's CPU"
responsive "with 50,000 drop-in directories in a user's directory"
applies "with 50,000 drop-in directories in a user's directory"
ok "50,000 drop-in directories: the first 256 are read, the rest reported, system rules apply"
stop_qosd
