#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The group layer on a machine systemd runs, as desktops are: Debian 12 in
# qemu (TCG) with systemd as PID 1, cgroup v2, a lingering user with their
# own manager, apps started as `systemd-run --user --scope`. qosd is
# installed from the build (meson install into a staging tree) and started
# by its shipped unit; first, the Debian packages (make deb) are installed
# and purged with apt. The tests run once with dbus-daemon as the system
# bus and once with dbus-broker. Ends with "N passed, N failed, N skipped".
#
# Usage: run.sh BUILD [SCRIPT] (SCRIPT: what the VM runs, default
# guest-tests.sh; bench/systemd-vm uses it for the figures). The disk is
# built once and cached in $QOS_VM_CACHE (default build-systemd-vm/cache).
# QOS_VM_BUSES: "daemon broker" (default) or one of them. QOS_VM_SMOKE=1:
# only the first part (the unit, an app's scope, a build's move).
# QOS_VM_APPEND: more kernel arguments.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
script=${2:-$here/guest-tests.sh}
work=$src/build-systemd-vm
cache=${QOS_VM_CACHE:-$work/cache}

"$src/scripts/install-deps.sh" --group vm
image=$("$here/make-rootfs.sh" "$cache")
key=${image##*/rootfs-}
key=${key%.ext4}

# What the VM sees at /mnt/qos: the staged install, the script and its
# library, and whatever QOS_VM_FILES names.
share=$work/share
rm -rf "$share"
mkdir -p "$share"
DESTDIR=$share/stage meson install -C "$build" --no-rebuild --quiet >/dev/null
cp "$script" "$share/run"
cp "$here/guest-lib.sh" "$here/guest-foreground.sh" "$here/guest-deb.sh" "$share/"
# The tests' own script installs the Debian packages too (guest-deb.sh):
# built by make deb's script unless build-deb/ has them for this source,
# without the unit suite (make check runs it). A failed build leaves no
# packages, which the guest reports as a failure.
if [ "$script" = "$here/guest-tests.sh" ]; then
        mkdir -p "$share/deb"
        if DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" "$src/scripts/deb.sh" --if-stale; then
                cp "$src"/build-deb/*.deb "$share/deb/"
                rm -f "$share"/deb/*-dbgsym_*.deb
        fi
fi
[ -n "${QOS_VM_FILES:-}" ] && cp -r $QOS_VM_FILES "$share/"
chmod -R a+rX "$share"

passed=0 failed=0 skipped=0
for bus in ${QOS_VM_BUSES:-daemon broker}; do
        results=$work/results-$bus.txt log=$work/console-$bus.log
        echo "== systemd VM: system bus $bus"
        QOS_VM_MEMORY=${QOS_VM_MEMORY:-2048M} QOS_VM_TIMEOUT=${QOS_VM_TIMEOUT:-1800} \
        QOS_VM_QEMU_ARGS="-drive file=$image,format=raw,if=virtio,snapshot=on -virtfs local,path=$share,mount_tag=qos,security_model=none,id=qos" \
                "$src/tests/kernels/boot.sh" "$cache/vmlinuz-$key" "$cache/initrd-$key" "$results" "$log" \
                root=/dev/vda rw "qos.bus=$bus" ${QOS_VM_SMOKE:+qos.smoke} ${QOS_VM_APPEND:-} || true
        sed 's/^/  /' "$results"
        p=$(grep -c '^ok ' "$results" || true)
        f=$(grep -c '^not ok ' "$results" || true)
        s=$(grep -c '^skip ' "$results" || true)
        if ! grep -q '^QOS-DONE' "$results"; then
                echo "  not ok - the VM did not finish (console: $log)"
                f=$((f + 1))
        fi
        passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
echo "systemd VM: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
