#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The preload library on its own (no qosd): the process class before
# main(), a new thread's class before its start routine, a rename's class
# before the call returns (the thread itself with PR_SET_NAME, another
# thread with pthread_setname_np), fork() without exec, an unprivileged
# user (demotions applied, promotions left whole to qosd), and silence.
source "$(dirname "$0")/lib.sh"
require_root
qosd_root_init

APP=$(test_program qos-app)
CHECK=$QOSD_BIN/qos-check
cp "$QOS_CLASS_CHECK" "$CHECK"
write_rule app "$APP" user-initiated "ui-*" user-interactive "idx*" background
write_rule check "$CHECK" user-interactive "bg-*" background
ui=$(class_view user-interactive)
init=$(class_view user-initiated)
bg=$(class_view background)
def=$(class_view utility)
t_ui=$(class_triple user-interactive)
t_bg=$(class_triple background)
t_def=$(class_triple utility)
LOG=$TEST_TMP/preload.log
pre=(env "$(preload_env)" "QOS_ROOT=$QOSD_ROOT" "QOS_PRELOAD_DEBUG=$LOG")

# qos-test-threads in command mode: each "TID NAME" answer comes after the
# thread named itself (spawn) or was renamed (rename), so what the kernel
# says at that moment, without waiting, is what the preload did in time.
coproc APPC { exec "${pre[@]}" "$APP" --commands ui-main idx plain; }
on_exit "kill $APPC_PID"
app=$APPC_PID
declare -A tid
for _ in 1 2 3; do
        read -r t name <&"${APPC[0]}" || fail "qos-app did not start"
        tid[$name]=$t
done
read -r line <&"${APPC[0]}"
assert_eq "$line" ready "qos-app ready"
assert_eq "$(kernel_view "$app")" "$init" "main thread (process class, before main)"
assert_eq "$(kernel_view "${tid[ui-main]}")" "$ui" "ui-main, named by itself"
assert_eq "$(kernel_view "${tid[idx]}")" "$bg" "idx, named by itself"
assert_eq "$(kernel_view "${tid[plain]}")" "$init" "plain: the process class"
ok "process class before main(), thread rules at PR_SET_NAME"

for name in ui-main idx plain; do
        t=${tid[$name]}
        grep -q "start tid=$t name=qos-app class=user-initiated: applied" "$LOG" ||
                fail "no trampoline record for $name ($t): $(grep "tid=$t " "$LOG")"
done
ok "every new thread got its class in the trampoline, before its start routine"

echo "spawn ui-late" >&"${APPC[1]}"
read -r t name <&"${APPC[0]}"
assert_eq "$(kernel_view "$t")" "$ui" "a thread created later"
echo "rename plain idx-now" >&"${APPC[1]}"
read -r t name <&"${APPC[0]}"
assert_eq "$name" idx-now "rename answered"
assert_eq "$(kernel_view "$t")" "$bg" "renamed by another thread (pthread_setname_np), at once"
grep -q "rename tid=$t name=idx-now class=background: applied" "$LOG" || fail "no rename record"
ok "pthread_setname_np on another thread applies before it returns"
echo quit >&"${APPC[1]}"
wait "$app" || true

# Reset-on-fork: user-interactive children start at the kernel defaults;
# the fork handler gives the child its class again, as qosd would.
out=$("${pre[@]}" "$CHECK" fork)
assert_eq "$(grep '^child' <<<"$out")" "child $t_ui" "fork child"
assert_eq "$(grep '^parent' <<<"$out")" "parent $t_ui" "fork parent"
out=$("${pre[@]}" "$CHECK" thread bg-worker)
assert_eq "$(grep '^created' <<<"$out")" "created $t_ui" "new thread of a reset-on-fork class"
assert_eq "$(grep '^renamed' <<<"$out")" "renamed $t_bg" "renamed with PR_SET_NAME"
ok "fork without exec and reset-on-fork threads get their class"

# qosctl run --preload: the library beside qosctl in the build tree, after
# whatever LD_PRELOAD the caller had; without -c the rules alone decide.
out=$(env LD_PRELOAD="$(preload_runtime)" "QOS_ROOT=$QOSD_ROOT" "$QOSCTL" run --preload -v "$CHECK" thread bg-y)
assert_contains "$out" "LD_PRELOAD=" "-v says what it preloads"
assert_contains "$(grep LD_PRELOAD= <<<"$out")" "$(realpath "$QOS_PRELOAD")" "the build tree's library"
assert_eq "$(grep '^created' <<<"$out")" "created $t_ui" "qosctl run --preload: new thread"
assert_eq "$(grep '^renamed' <<<"$out")" "renamed $t_bg" "qosctl run --preload: renamed thread"
ok "qosctl run --preload loads the library; the rules decide the classes"

# More rule files than QOS_PRELOAD_MAX_FILES: the preload stays out of the
# way (qosd alone applies them) and says so only when asked.
: >"$TEST_TMP/limit.log"
out=$("${pre[@]}" QOS_PRELOAD_MAX_FILES=1 "QOS_PRELOAD_DEBUG=$TEST_TMP/limit.log" "$CHECK" thread bg-z)
assert_eq "$(grep '^created' <<<"$out")" "created $t_def" "above the file limit: untouched"
assert_contains "$(cat "$TEST_TMP/limit.log")" "more than 1 rule files: left to qosd" "the limit is reported"
ok "above QOS_PRELOAD_MAX_FILES the preload leaves the rules to qosd"

# Silence: nothing on stdout or stderr unless asked, also with broken rules.
printf '[Process]\nClass=nonsense\n' >"$QOSD_ROOT/etc/qos/apps.d/broken.conf"
out=$(env "$(preload_env)" "QOS_ROOT=$QOSD_ROOT" "$CHECK" thread bg-x 2>&1)
assert_eq "$(wc -l <<<"$out")" 2 "only the program's own two lines"
out=$(env "$(preload_env)" QOS_ROOT=/nonexistent "$CHECK" thread x 2>&1)
assert_eq "$(wc -l <<<"$out")" 2 "no rule directories"
chmod 000 "$QOSD_ROOT/etc/qos/apps.d"
out=$(runuser -u nobody -- env "$(QOS_PRELOAD=$(user_runnable "$QOS_PRELOAD") preload_env)" "QOS_ROOT=$QOSD_ROOT" \
        "$(user_runnable "$CHECK")" thread x 2>&1)
chmod 755 "$QOSD_ROOT/etc/qos/apps.d"
assert_eq "$(wc -l <<<"$out")" 2 "an unreadable rule directory"
rm "$QOSD_ROOT/etc/qos/apps.d/broken.conf"
ok "silent without QOS_PRELOAD_DEBUG, with broken or unreadable rules"

# Unprivileged: the demotion is applied directly; the promotion is refused
# whole by the kernel and left to qosd, so the thread stays exactly at the
# defaults (no slice or reset-on-fork of a class it did not get).
user=qos-t-preload
make_user "$user"
chmod 755 "$TEST_TMP" "$QOSD_BIN"
out=$(runuser -u "$user" -- env "$(QOS_PRELOAD=$(user_runnable "$QOS_PRELOAD") preload_env)" "QOS_ROOT=$QOSD_ROOT" \
        "$(user_runnable "$CHECK")" thread bg-worker)
assert_eq "$(grep '^created' <<<"$out")" "created $t_def" "unprivileged promotion: untouched"
assert_eq "$(grep '^renamed' <<<"$out")" "renamed $t_bg" "unprivileged demotion: applied"
ok "unprivileged: demotions applied, promotions left whole to qosd"

# With qosd: a thread qosd already manages is renamed; the preload applies
# the new name's class in the call, qosd's COMM event finds it done and
# adopts it (neither foreign nor re-applied).
start_dbus
start_qosd
foreign0=$(qosd_status ForeignChanges)
coproc APPD { exec "${pre[@]}" "$APP" --commands plain; }
on_exit "kill $APPD_PID"
read -r t name <&"${APPD[0]}"
read -r line <&"${APPD[0]}"
managed() { "$QOSCTL" ps -p "$APPD_PID" | grep " $t .* applied " >/dev/null; }
wait_for managed || fail "qosd does not manage $t: $("$QOSCTL" ps -p "$APPD_PID")"
for step in "plain idx-x background" "idx-x ui-x user-interactive" "ui-x plain user-initiated"; do
        set -- $step
        echo "rename $1 $2" >&"${APPD[1]}"
        read -r t name <&"${APPD[0]}"
        assert_eq "$(kernel_view "$t")" "$(class_view "$3")" "renamed to $2, at once"
        in_class() { "$QOSCTL" ps -p "$APPD_PID" | grep " $1 .*$2.* $3 .*applied " >/dev/null; }
        wait_for in_class "$t" "$2" "$3" || fail "qosd after the rename to $2: $("$QOSCTL" ps -p "$APPD_PID")"
done
assert_eq "$(qosd_status ForeignChanges)" "$foreign0" "renamed threads qosd took for someone else's"
assert_contains "$("$QOSCTL" explain "$t")" "user-initiated" "qosd explains the adopted class"
ok "qosd adopts what the preload applied at a rename"
echo quit >&"${APPD[1]}"
stop_qosd TERM
