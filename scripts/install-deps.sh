#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Install the Debian packages that building and testing qosd need (or the
# packages named as arguments); a no-op when they are all there.
set -euo pipefail

packages=(
        meson ninja-build pkg-config gcc clang libclang-rt-14-dev
        libcmocka-dev libsystemd-dev libinih-dev libjson-c-dev
        dbus-daemon systemd util-linux passwd procps python3
        gstreamer1.0-tools gstreamer1.0-plugins-base
        libxcb1-dev libxcb-ewmh-dev libxcb-res0-dev xvfb openbox xdotool x11-utils
        nodejs gjs
        libncurses-dev tmux
        bash-completion
)
[ $# -gt 0 ] && packages=("$@")

missing=()
for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
        echo "$(basename "$0"): missing packages: ${missing[*]}; run as root or install them" >&2
        exit 1
fi
echo "$(basename "$0"): installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
