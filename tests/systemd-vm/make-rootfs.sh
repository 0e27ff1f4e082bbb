#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Build the systemd VM's disk once and cache it: a Debian 12 system from
# Debian's packages (mmdebstrap), booted with systemd as PID 1 and cgroup v2
# unified, as desktops run. It has both system buses (dbus-daemon, Debian's
# default, and dbus-broker, chosen at boot by qos.bus=broker), a regular
# user "alice" (UID 1000) whose user@1000.service runs from boot (linger),
# and a oneshot unit that runs the test script the host shares over 9p.
#
# Usage: make-rootfs.sh CACHE    prints the image's path; a no-op when the
# image for this script's version is there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=$1
mkdir -p "$cache"
# The image is named by a hash of what builds it, so a change rebuilds it.
key=$(cat "$0" "$here"/guest/* | sha256sum | cut -c1-12)
image=$cache/rootfs-$key.ext4
if [ -s "$image" ]; then echo "$image"; exit 0; fi

packages=(
        systemd systemd-sysv udev dbus dbus-broker dbus-user-session libpam-systemd
        linux-image-amd64 initramfs-tools kmod procps util-linux passwd login
        libinih1 libjson-c5 libcap2 libsystemd0 libxcb1 libxcb-ewmh2 libxcb-res0 libpipewire-0.3-0
        make gcc libc6-dev python3
)
tmp=$(mktemp -d "$cache/.rootfs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "make-rootfs: mmdebstrap bookworm (${#packages[@]} packages)" >&2
IFS=,
mmdebstrap --quiet --variant=apt --include="${packages[*]}" \
        --customize-hook="$here/guest/customize.sh \"\$1\"" \
        bookworm "$tmp/root" http://deb.debian.org/debian >&2
unset IFS
# Kernel and initramfs beside the image: qemu boots them directly.
cp "$tmp"/root/boot/vmlinuz-* "$cache/vmlinuz-$key"
cp "$tmp"/root/boot/initrd.img-* "$cache/initrd-$key"
truncate -s 4G "$tmp/disk.ext4"
mkfs.ext4 -q -L qosroot -d "$tmp/root" "$tmp/disk.ext4"
mv "$tmp/disk.ext4" "$image"
echo "$image"
