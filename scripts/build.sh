#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Configure (once) and build one build directory: build.sh DIR [MESON OPTIONS...]
# Quiet when it works; the whole compiler output when it does not. The
# test suites are built when their libraries (cmocka, expat) are there:
# make demo installs only what the build needs, make check the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
log=$(mktemp)
trap 'rm -f "$log"' EXIT
tests=disabled
pkg-config --exists cmocka expat && tests=enabled
if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" -Dwerror=true -Dtests=$tests "$@" >"$log" 2>&1 || { cat "$log"; exit 1; }
elif ! grep -q "\"name\": \"tests\", \"value\": \"$tests\"" "$dir/meson-info/intro-buildoptions.json" 2>/dev/null; then
        meson configure "$dir" -Dtests=$tests >"$log" 2>&1 || { cat "$log"; exit 1; }
fi
ninja -C "$dir" >"$log" 2>&1 || { cat "$log"; exit 1; }
