#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Configure (once) and build one build directory: build.sh DIR [MESON OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" -Dwerror=true "$@" >/dev/null
fi
ninja -C "$dir" >/dev/null
