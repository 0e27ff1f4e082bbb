#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-mutex-stress as an unprivileged user with the real qosd: every loan
# goes through BeginOverride/EndOverride. Besides the stress test's own
# checks (exclusion, no lost wake-up or deadlock, every thread back at its
# base, loans made), qosd must hold no override afterwards.
. "$(dirname "$0")/lib.sh"
require_root
: "${QOS_MUTEX_STRESS:?}" "${QOS_LIB:?}"

user=qos-t-stress
make_user "$user"
copy_for_user "$QOS_LIB" "$QOS_MUTEX_STRESS"
start_dbus
qosd_root_init
start_qosd

out=$(runuser -u "$user" -- env QOS_STRESS_VIA_QOSD=1 QOS_STRESS_SECONDS="${QOS_STRESS_SECONDS:-5}" \
        DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" "$TEST_TMP/bin/test-mutex-stress" 2>&1) ||
        fail "the stress run failed: $out"
echo "# $out"
active=$(busctl --system get-property org.qosd.QoS1 /org/qosd/QoS1 org.qosd.QoS1.Manager ActiveOverrides |
        awk '{print $2}')
assert_eq "$active" 0 "overrides qosd holds after the run"
ok "mixed utility/background threads through qosd: no stale override"
