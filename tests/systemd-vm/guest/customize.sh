#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# mmdebstrap's customize hook for the systemd VM (make-rootfs.sh): $1 is
# the new root file system, still on the host.
set -euo pipefail
root=$1
here=$(dirname "$0")

echo qos-vm >"$root/etc/hostname"
cat >"$root/etc/fstab" <<'FSTAB'
/dev/vda / ext4 rw,errors=remount-ro 0 1
# The host's share: the staged install, the tests, the results.
qos /mnt/qos 9p trans=virtio,version=9p2000.L,msize=262144,nofail 0 0
FSTAB
mkdir -p "$root/mnt/qos"
# Root logs in on the console without a password (the VM has no network).
chroot "$root" passwd -d root >/dev/null

# A desktop user whose manager runs from boot, as a logged-in session's does.
chroot "$root" useradd -m -u 1000 -s /bin/bash alice
mkdir -p "$root/var/lib/systemd/linger"
touch "$root/var/lib/systemd/linger/alice"

# The system bus as Debian runs it (dbus-daemon), or dbus-broker when the
# kernel command line says qos.bus=broker.
rm -f "$root/etc/systemd/system/dbus.service"
install -D -m 755 "$here/bus-generator" "$root/etc/systemd/system-generators/qos-bus"

# The test run: once the system is up, run what the host shared, power off.
install -m 644 "$here/qos-vm-test.service" "$root/etc/systemd/system/"
ln -s ../qos-vm-test.service "$root/etc/systemd/system/multi-user.target.wants/qos-vm-test.service"

# What a test VM does not need at boot.
for unit in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
        man-db.timer dpkg-db-backup.timer serial-getty@ttyS0.service getty@tty1.service; do
        ln -sf /dev/null "$root/etc/systemd/system/$unit"
done
