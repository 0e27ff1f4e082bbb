#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The bus fuzzer (tests/helpers/qos-bus-fuzz.c) against a live qosd: three
# unprivileged users call every method qosd's object introspects, at once,
# with generated arguments, for QOS_BUS_FUZZ_SECONDS (60), each with its
# own seed (QOS_BUS_FUZZ_SEED=N gives N, N+1, N+2). After every call each
# fuzzer checks that qosd answers, that nothing of another user's shows in
# the reply, and that no thread is above the class it may have.
#
# What others must not see: a victim user's program runs from a directory
# whose name holds the marker, so its executable and command line hold it,
# and the victim's own rule files are named with it (one is broken, so the
# last reload's message names it too). qosd(8) shows another user's
# executable, command line and rule files as "hidden"; thread names,
# classes and knobs are public (as in /proc), so the victims' thread names
# do not hold the marker.
#
# The ceilings (qosd(8), "The broker"; src/daemon/decide/access-policy.c): the
# fuzzers' threads start in background by an admin rule; a user at no seat
# with no foreground source (ForegroundGate=auto) has user-interactive
# held at utility, but user-initiated is granted: so two fuzzers' ceiling
# is user-initiated, not utility. The third runs a program whose admin
# rule also says MaxClass=utility: its ceiling is utility. Both are what
# the kernel reports for a thread in that class (class_view).
#
# The victims' threads (the victim user's, in user-initiated and
# background by the victim's own rules; root's, in user-interactive and
# background by an admin rule) must keep exactly what the kernel reported
# before the fuzzers began.
#
# An hour: env QOS_BUS_FUZZ_SECONDS=3600 meson test -C build test-bus-fuzz
# --timeout-multiplier 0 (docs/development.md).
source "$(dirname "$0")/lib.sh"
require_root
: "${QOS_BUS_FUZZ:?QOS_BUS_FUZZ must point at qos-bus-fuzz}"

SECONDS_TO_FUZZ=${QOS_BUS_FUZZ_SECONDS:-60}
MARKER=qsecret
fuzzers=(qos-t-fz1 qos-t-fz2 qos-t-fz3)
victim=qos-t-fzvic
home=$TEST_TMP/home
for u in "${fuzzers[@]}"; do
        make_user "$u"
done
make_user "$victim" "$home"

qosd_root_init
printf '[Daemon]\nUserRules=yes\n' >"$QOSD_ROOT/etc/qos/qosd.conf"

# The fuzzers' programs: copies of the fuzzer that admin rules match.
FREE=$QOSD_BIN/qos-fz-free
CAPPED=$QOSD_BIN/qos-fz-capped
cp "$QOS_BUS_FUZZ" "$FREE"
cp "$QOS_BUS_FUZZ" "$CAPPED"
chmod a+rx "$FREE" "$CAPPED"
write_rule fz-free "$FREE" - 'fz-*' background
write_rule fz-capped "$CAPPED" - 'fz-*' background
printf '\n[Limits]\nMaxClass=utility\n' >>"$QOSD_ROOT/etc/qos/apps.d/fz-capped.conf"

# The victims' programs, in a directory named with the marker.
vault=$TEST_TMP/$MARKER-vault
mkdir -p "$vault"
cp "$QOS_TEST_THREADS" "$vault/vic"
cp "$QOS_TEST_THREADS" "$vault/rvic"
chmod -R a+rX "$vault"
write_rule rootvic "$vault/rvic" - ra user-interactive rb background
udir=$home/$victim/.config/qos/apps.d
runuser -u "$victim" -- mkdir -p "$udir"
runuser -u "$victim" -- sh -c "printf '[Match]\nExecutable=%s\n\n[Process]\nClass=user-initiated\n\n[Thread:vb]\nClass=background\n' \
        '$vault/vic' >'$udir/$MARKER-rules.conf'"
runuser -u "$victim" -- sh -c "printf '[Process]\nClass=no-such-class\n' >'$udir/$MARKER-broken.conf'"

UI=$(class_view user-interactive sched_view)
UIN=$(class_view user-initiated sched_view)
UT=$(class_view utility sched_view)
BG=$(class_view background sched_view)

# The bus writes a line for each call its policy refuses: thousands here.
DBUS_LOG=$TEST_TMP/dbus.log start_dbus
start_qosd

AS_USER=$victim THREADS_BIN=$vault/vic start_threads va vb
va=$(tid_of va)
vb=$(tid_of vb)
vmain=$(awk '$1 == "Tgid:" { print $2 }' "/proc/$va/status")
THREADS_BIN=$vault/rvic start_threads ra rb
ra=$(tid_of ra)
rb=$(tid_of rb)
rmain=$THREADS_PID
sched_is() { [ "$(sched_view "$1")" = "$2" ]; }
# Root's main thread has no rule: it keeps what the test was started with.
expected=("$vmain:$UIN" "$va:$UIN" "$vb:$BG" "$ra:$UI" "$rb:$BG" "$rmain:$(sched_view "$rmain")")
for pair in "${expected[@]}"; do
        wait_for sched_is "${pair%%:*}" "${pair#*:}" ||
                fail "victim thread ${pair%%:*} is at '$(sched_view "${pair%%:*}")', expected '${pair#*:}'"
done
# The marker is in what qosd can show (to root): the checks are not empty.
assert_contains "$("$QOSCTL" explain "$va")" "$MARKER" "root's explain of the victim's thread"
assert_contains "$("$QOSCTL" status)" "$MARKER-broken.conf" "root's status (the victim's broken file)"
ok "victims in place: the victim user's threads by its own rules, root's by the admin's"

victim_args=()
for pair in "${expected[@]}"; do
        victim_args+=(--victim-view "$pair")
done
# Where qosd's group layer is in use (a cpu hierarchy, processes in its
# root), a class is also a cpu group: the fuzzers' threads must not be in
# the group of a class above their ceiling. Root's user-interactive thread
# shows what the groups are called here.
ui_group=/$QOS_CGROUP_PREFIX.user-interactive
groups_free=() groups_capped=()
if [ -n "$CPU_CGROUP" ] && [ "$(cgroup_of "$ra")" = "$ui_group" ]; then
        groups_free=(--cgroup-above "$ui_group")
        groups_capped=(--cgroup-above "$ui_group" --cgroup-above "/$QOS_CGROUP_PREFIX.user-initiated")
else
        echo "# qosd's cpu groups are not in use here (root's user-interactive thread is in" \
                "'$(cgroup_of "$ra" 2>/dev/null)'): the fuzzers check the threads' knobs only"
fi

# Every call's line, if QOS_BUS_FUZZ_LOG_DIR names a directory for them
# (an hour makes hundreds of MB); a violation's report has the last 32.
log_dir=${QOS_BUS_FUZZ_LOG_DIR:-}
[ -z "$log_dir" ] || mkdir -p "$log_dir"
base=${QOS_BUS_FUZZ_SEED:-$(((RANDOM << 15) | RANDOM))}
pids=()
for i in 0 1 2; do
        u=${fuzzers[i]}
        seed=$((base + i))
        if [ "$i" = 2 ]; then
                bin=$CAPPED ceiling=$UT groups=("${groups_capped[@]}")
        else
                bin=$FREE ceiling=$UIN groups=("${groups_free[@]}")
        fi
        log=()
        if [ -n "$log_dir" ]; then
                install -o "$u" -m 644 /dev/null "$log_dir/$u.log"
                log=(--log "$log_dir/$u.log")
        fi
        echo "# $u: ${bin##*/}, seed $seed, ceiling '$ceiling'"
        # timeout: a fuzzer that a loaded machine slows past its time
        # still stops with its table (SIGTERM ends it after the call).
        # The marker in the environment: qosd shows the fuzzer its own
        # command line.
        runuser -u "$u" -- env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" QOS_BUS_FUZZ_MARKER="$MARKER" \
                timeout $((SECONDS_TO_FUZZ + 60)) "$bin" --seed "$seed" --seconds "$SECONDS_TO_FUZZ" \
                --ceiling "$ceiling" "${groups[@]}" "${victim_args[@]}" "${log[@]}" \
                >"$TEST_TMP/fuzz.$u" 2>&1 &
        pids+=($!)
        on_exit "kill ${pids[i]}"
done

failed=()
for i in 0 1 2; do
        rc=0
        wait "${pids[i]}" || rc=$?
        echo "# --- ${fuzzers[i]} (exit $rc)"
        cat "$TEST_TMP/fuzz.${fuzzers[i]}"
        [ "$rc" = 0 ] || failed+=("${fuzzers[i]} (exit $rc)")
done
[ ${#failed[@]} = 0 ] || fail "fuzzer(s) failed: ${failed[*]}"
total=0
for u in "${fuzzers[@]}"; do
        n=$(awk '$1 == "calls" { sub(",", "", $2); print $2 }' "$TEST_TMP/fuzz.$u")
        [ "${n:-0}" -gt 0 ] || fail "$u made no calls"
        total=$((total + n))
        # The ceiling is what the policy grants, not more and not less: a
        # fuzzer that never got there would not have tested it.
        highest=$(sed -n 's/^highest of the caller.s threads: \(.*\) (ceiling \(.*\))$/\1|\2/p' "$TEST_TMP/fuzz.$u")
        assert_eq "${highest%|*}" "${highest#*|}" "$u: the highest its threads were at, against its ceiling"
done
ok "$total calls from 3 users in ${SECONDS_TO_FUZZ}s: qosd answered after each, nothing of the victims' shown, no thread above its ceiling, the victims' threads unchanged"

kill -0 "$QOSD_PID" || fail "qosd is gone"
timeout 30 "$QOSCTL" status >/dev/null || fail "qosctl status after the fuzz"
wait_active 0 "the fuzzers' overrides after they exited"
for pair in "${expected[@]}"; do
        assert_eq "$(sched_view "${pair%%:*}")" "${pair#*:}" "victim thread ${pair%%:*} after the fuzz"
done
ok "qosd alive, qosctl status answers, no override left, the victims as they were"

# The checks can fail: a fuzzer told a ceiling one class too low finds a
# thread above it, and the victim's own fuzzer finds the marker in what
# qosd rightly shows its owner (its executable, its rule files).
expect_violation() { # evidence user fuzzer-args...
        local want=$1 user=$2 rc=0
        shift 2
        runuser -u "$user" -- env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" QOS_BUS_FUZZ_MARKER="$MARKER" \
                timeout 120 "$FREE" --seconds 60 "$@" >"$TEST_TMP/fuzz.neg" 2>&1 || rc=$?
        [ "$rc" = 1 ] || fail "a fuzzer that should find '$want' exited $rc: $(cat "$TEST_TMP/fuzz.neg")"
        assert_contains "$(cat "$TEST_TMP/fuzz.neg")" "$want" "the violation found"
        sed -n 's/^VIOLATION \(at call [0-9]*\).*/# found \1:/p; s/^  evidence: /#   /p' "$TEST_TMP/fuzz.neg"
}
expect_violation "above its ceiling" "${fuzzers[0]}" --ceiling "$UT"
expect_violation "holds the marker" "$victim" --victim-tid "$va"
ok "the checks fail where they should: a ceiling set too low, the marker shown to its owner"
stop_qosd TERM
