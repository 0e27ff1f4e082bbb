#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job (make demo): the class table of this kernel, then a command
# run in each class, with what the kernel reports back for it.
set -euo pipefail
cd "$(dirname "$0")/.."
qosctl=build/src/cli/qosctl

echo "== qosctl classes"
"$qosctl" classes
echo
echo "== qosctl run -c CLASS: what the kernel reports for the command"
"$qosctl" get -p $$ | head -1
for class in user-interactive user-initiated utility background; do
        echo "-- $class"
        "$qosctl" run -c "$class" sh -c "'$qosctl' get -p \$\$ | sed 1d"
done
