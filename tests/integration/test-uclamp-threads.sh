#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-matrix: vm
# Utilization clamps per thread, on a kernel that has them: qosctl classes
# says uclamp is supported (the kernel's own answer comes from
# qos-kernel-probe, not from qosd's probe), and a thread in each class,
# put there by qosctl run and by a qosd rule, reads back from sched_getattr
# the class table's sched_util_min and sched_util_max.
source "$(dirname "$0")/lib.sh"
require_root
: "${QOS_KERNEL_PROBE:?}"

have=$("$QOS_KERNEL_PROBE" uclamp)
if [ "$have" != supported ]; then
        echo "SKIP: $TEST_NAME: this kernel has no uclamp ($have)"
        exit 77
fi
row=$("$QOSCTL" classes | awk '$1 == "uclamp"')
assert_contains "$row" "supported" "qosctl classes on a kernel with uclamp"
case $row in *"("*) fail "qosctl classes puts the uclamp values in parentheses: $row" ;; esac
ok "qosctl classes: uclamp supported"

CLASSES="user-interactive user-initiated utility background"
clamps() { "$QOS_KERNEL_PROBE" util-clamp "$1"; }

# qosctl run: the process itself.
for c in $CLASSES; do
        want=$(class_uclamp "$c")
        [ -n "$want" ] || fail "no uclamp values for $c in qosctl classes"
        "$QOSCTL" run -c "$c" sleep 30 &
        p=$!
        on_exit "kill $p"
        wait_for grep -qx sleep "/proc/$p/comm" || fail "qosctl run did not start sleep"
        assert_eq "$(clamps "$p")" "$want" "qosctl run -c $c: sched_util_min sched_util_max"
        kill "$p"
        wait "$p" 2>/dev/null || true
done
ok "qosctl run: each class's clamps as the class table has them"

# qosd: one thread per class by a rule, in a process of its own.
qosd_root_init
APP=$(test_program qos-app-uclamp)
write_rule app-uclamp "$APP" utility "ui*" user-interactive "ii*" user-initiated "bg*" background
THREADS_BIN=$APP start_threads ui-t ii-t ut-t bg-t
start_qosd --sys-root /
for t in ui-t:user-interactive ii-t:user-initiated ut-t:utility bg-t:background; do
        name=${t%%:*} c=${t#*:}
        tid=$(tid_of "$name")
        want=$(class_uclamp "$c")
        same() { [ "$(clamps "$1")" = "$2" ]; }
        wait_for same "$tid" "$want" || fail "qosd, thread $name ($c): clamps '$(clamps "$tid")', expected '$want'"
done
stop_qosd
ok "qosd: each class's clamps on its thread as the class table has them"
