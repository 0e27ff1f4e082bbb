#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The classes follow the power profile: power-profiles-daemon and UPower
# mocked by python3-dbusmock's templates on the test's private system bus.
# power-saver changes the running background threads' knobs (timer slack)
# and the table qosctl status names; balanced restores them; performance
# lets background use every CPU (EfficientCPUs= names the last one); on
# battery is power-saver too; when power-profiles-daemon goes, balanced.
# How long each switch took is printed, not asserted.
source "$(dirname "$0")/lib.sh"
require_root
# Debian's python3, the one python3-dbusmock is for.
py=/usr/bin/python3
"$py" -c 'import dbusmock' 2>/dev/null ||
        fail "python3-dbusmock is missing (scripts/install-deps.sh --group test installs it)"
ncpu=$(nproc --all)
last=$((ncpu - 1))
all=0-$last
qosd_root_init
printf '[Daemon]\nUserRules=no\nEfficientCPUs=%s\n' "$last" >"$QOSD_ROOT/etc/qos/qosd.conf"
[ "$ncpu" -ge 2 ] || printf '[Daemon]\nUserRules=no\n' >"$QOSD_ROOT/etc/qos/qosd.conf"

# The mocked daemons' names, as their packages' policies allow them.
cat >"$TEST_TMP/power-policy.conf" <<'POLICY'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy user="root">
    <allow own="net.hadess.PowerProfiles"/>
    <allow own="org.freedesktop.UPower"/>
  </policy>
  <policy context="default">
    <allow send_destination="net.hadess.PowerProfiles"/>
    <allow send_destination="org.freedesktop.UPower"/>
  </policy>
</busconfig>
POLICY
DBUS_EXTRA_POLICY=$TEST_TMP/power-policy.conf start_dbus

APP=$(test_program qos-power-app)
write_rule power-app "$APP" - "bgw*" background "utw*" utility
THREADS_BIN=$APP start_threads bgw utw
bg=$(tid_of bgw)
slack() { cat "/proc/$1/timerslack_ns"; }
allowed() { awk '$1 == "Cpus_allowed_list:" { print $2 }' "/proc/$1/status"; }
power() { qosd_status_text Power; }
mock() { # template log
        "$py" -m dbusmock --system --template "$1" >"$TEST_TMP/$1.log" 2>&1 &
        on_exit "kill $! 2>/dev/null"
}
set_prop() { # name path iface property type value
        busctl --system call "$1" "$2" org.freedesktop.DBus.Properties Set ssv "$3" "$4" "$5" "$6" >/dev/null ||
                fail "cannot set $4 of the mocked $1"
}
profile() { set_prop net.hadess.PowerProfiles /net/hadess/PowerProfiles net.hadess.PowerProfiles ActiveProfile s "$1"; }
battery() { set_prop org.freedesktop.UPower /org/freedesktop/UPower org.freedesktop.UPower OnBattery b "$1"; }
# Wait for a thread's knob, and say how long the switch took.
reads() { [ "$(eval "$1")" = "$2" ]; } # command expected
took() { # what command expected
        local t0 t1
        t0=$(date +%s%N)
        wait_for reads "$2" "$3" || fail "$1: '$(eval "$2")', expected '$3'; Power $(power)"
        t1=$(date +%s%N)
        echo "# $1: $(((t1 - t0) / 1000000)) ms"
}

mock power_profiles_daemon
mock upower
wait_for busctl --system status net.hadess.PowerProfiles || fail "the mocked power-profiles-daemon did not start"
wait_for busctl --system status org.freedesktop.UPower || fail "the mocked UPower did not start"
start_qosd
balanced_slack=10000000
wait_for sh -c "[ \"\$(cat /proc/$bg/timerslack_ns)\" = $balanced_slack ]" || fail "background not applied"
assert_contains "$(power)" "balanced (profile balanced)" "status: the profile in force"
[ "$ncpu" -lt 2 ] || assert_eq "$(allowed "$bg")" "$last" "balanced: background on the efficient CPU"
ok "balanced: the table as it stands"

profile power-saver
took "power-saver: background's timer slack" "slack $bg" 50000000
assert_contains "$(power)" "power-saver (profile power-saver)" "status names power-saver"
assert_contains "$("$QOSCTL" explain "$bg")" "50.00ms" "explain shows the new slack"
ok "power-saver: the running background thread's knobs change"

profile balanced
took "balanced again: background's timer slack" "slack $bg" "$balanced_slack"
ok "back to balanced: the balanced table again"

if [ "$ncpu" -ge 2 ]; then
        profile performance
        took "performance: background's CPUs" "allowed $bg" "$all"
        assert_contains "$(power)" "performance" "status names performance"
        profile balanced
        took "balanced: background's CPUs" "allowed $bg" "$last"
        ok "performance: background may use every CPU; balanced puts it back"
fi

battery true
took "on battery: background's timer slack" "slack $bg" 50000000
assert_contains "$(power)" "power-saver (profile balanced; on battery)" "status says why"
battery false
took "on the charger: background's timer slack" "slack $bg" "$balanced_slack"
ok "on battery is power-saver too"

profile power-saver
took "power-saver before power-profiles-daemon goes" "slack $bg" 50000000
pkill -f 'dbusmock --system --template power_profiles_daemon'
took "power-profiles-daemon gone: background's timer slack" "slack $bg" "$balanced_slack"
assert_contains "$(power)" "balanced" "status: balanced without it"
ok "without power-profiles-daemon: balanced"
