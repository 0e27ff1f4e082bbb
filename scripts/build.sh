#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Configure (once) and build one build directory: build.sh DIR [MESON OPTIONS...]
# Quiet when it works; the whole compiler output when it does not.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" -Dwerror=true "$@" >"$log" 2>&1 || { cat "$log"; exit 1; }
fi
ninja -C "$dir" >"$log" 2>&1 || { cat "$log"; exit 1; }
