#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian packages (make deb): the source tree as git sees it (tracked
# and new files, not the build directories) is copied to
# build-deb/qosd-VERSION, built there with dpkg-buildpackage (debian/),
# and the .changes checked with lintian, which fails on errors and
# warnings. The .debs, .changes and source package land in build-deb/.
#
# Usage: deb.sh [--if-stale]   --if-stale: do nothing when build-deb/
# holds packages of exactly this source (tests/systemd-vm/run.sh).
# DEB_BUILD_OPTIONS is passed on: nocheck skips the unit suite, which
# the package build runs otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build-deb

scripts/install-deps.sh
scripts/install-deps.sh --group deb

version=$(meson introspect --projectinfo meson.build | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
changelog=$(dpkg-parsechangelog -S Version)
if [ "$version" != "$changelog" ]; then
        echo "deb: meson.build says $version, debian/changelog $changelog; add a changelog entry (dch -v $version)" >&2
        exit 1
fi

# What is packaged: every file git knows of or would add, as it is now.
files() { git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done; }
stamp=$(files | tar --null -T - --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - | sha256sum | cut -c1-16)
if [ "${1:-}" = --if-stale ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
        exit 0
fi

rm -rf "$out"
tree=$out/qosd-$version
mkdir -p "$tree"
files | tar --null -T - -cf - | tar -C "$tree" -xf -

echo "== deb: qosd $version (DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-})"
log=$out/build.log
if ! (cd "$tree" && nice -n 19 dpkg-buildpackage -us -uc -j"$(nproc)") >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "deb: dpkg-buildpackage failed (whole log: $log)" >&2
        exit 1
fi
rm -rf "$tree"

changes=$out/qosd_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).changes
echo "== deb: lintian"
lintian --fail-on error,warning --info "$changes"
(cd "$out" && ls -1 ./*.deb)
echo "$stamp" >"$out/stamp"
