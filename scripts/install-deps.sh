#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Install the Debian packages qosd needs; a no-op when they are all there.
#
#   install-deps.sh                 what building qosd and make demo need
#   install-deps.sh --group G...    the packages of groups G (below)
#   install-deps.sh --list G...     print them instead
#   install-deps.sh PACKAGE...      those packages
#
# Groups: build (building qosd and make demo), test (what the suites and
# the fuzzers add: cmocka, expat, clang, the X and GNOME tools, a browser),
# kernels (the kernel matrix's VMs), vm (the systemd VM's disk), deb
# (make deb and lintian).
set -euo pipefail

declare -A groups=(
        [build]="meson ninja-build pkg-config gcc python3 libsystemd-dev libinih-dev
                 libjson-c-dev libncurses-dev libxcb1-dev libxcb-ewmh-dev libxcb-res0-dev libpipewire-0.3-dev
                 dbus-daemon systemd util-linux passwd procps"
        [test]="libcmocka-dev libexpat1-dev clang libclang-rt-14-dev gstreamer1.0-tools gstreamer1.0-plugins-base
                xvfb openbox xdotool x11-utils nodejs gjs tmux bash-completion firefox-esr bubblewrap gamemode
                pipewire pipewire-bin wireplumber python3-dbusmock"
        [kernels]="qemu-system-x86 busybox-static dpkg"
        [vm]="mmdebstrap qemu-system-x86 e2fsprogs"
        [deb]="debhelper dpkg-dev fakeroot lintian"
)

group_packages() { # group...
        local g
        for g in "$@"; do
                [ -n "${groups[$g]:-}" ] || { echo "$(basename "$0"): no group '$g'" >&2; exit 2; }
                echo ${groups[$g]}
        done
}

case ${1:-} in
"") packages=($(group_packages build)) ;;
--list) shift; group_packages "$@" | tr ' ' '\n' | sort -u | xargs; exit 0 ;;
--group) shift; packages=($(group_packages "$@")) ;;
*) packages=("$@") ;;
esac

missing=()
for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
# shellcheck disable=SC2207 # package names are words
missing=($(printf '%s\n' "${missing[@]}" | sort -u))

if [ "$(id -u)" != 0 ]; then
        echo "$(basename "$0"): missing packages: ${missing[*]}; run as root or install them" >&2
        exit 1
fi
echo "$(basename "$0"): installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
