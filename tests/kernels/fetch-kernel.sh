#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The kernel image of the newest Debian package matching a pattern, from
# the apt sources this machine already has: downloaded once into CACHE,
# unpacked with dpkg-deb (only /boot is needed: the matrix loads no
# modules). Prints the path of the vmlinuz.
#
# Usage: fetch-kernel.sh 'linux-image-6.1.0-*-cloud-amd64-unsigned' CACHE
set -euo pipefail

pattern=$1
cache=$2
mkdir -p "$cache"

matching() {
        local p
        while read -r p; do
                # shellcheck disable=SC2053 # the pattern is a glob on purpose
                if [[ $p == $pattern ]]; then echo "$p"; fi
        done
}
newest() { apt-cache pkgnames linux-image- | matching | sort -V | tail -n 1; }
pkg=$(newest)
if [ -z "$pkg" ]; then
        apt-get update -qq >&2 # a fresh machine may have no package lists yet
        pkg=$(newest)
fi
if [ -z "$pkg" ]; then
        echo "fetch-kernel: no package matches $pattern in the apt lists" >&2
        exit 1
fi
version=$(apt-cache show --no-all-versions "$pkg" | awk '$1 == "Version:" && !v { v = $2 } END { print v }')
dir=$cache/${pkg}_$version

if ! compgen -G "$dir/boot/vmlinuz-*" >/dev/null; then
        tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
        trap 'rm -rf "$tmp"' EXIT
        (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$pkg=$version" >&2)
        mkdir -p "$tmp/root"
        dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp/root" --wildcards './boot/*'
        rm -rf "$dir"
        mv "$tmp/root" "$dir"
fi
vmlinuz=("$dir"/boot/vmlinuz-*)
echo "${vmlinuz[0]}"
