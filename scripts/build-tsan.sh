#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A ThreadSanitizer build of the preload library and the helper that
# test-preload-lend.sh runs under it (only those two targets: the rest of
# the tree is not built for TSan). build-tsan/ unless DIR is given.
#
#   scripts/build-tsan.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-tsan}
if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" -Db_sanitize=thread -Db_lundef=false >/dev/null
fi
ninja -C "$dir" src/preload/libqos-preload.so tests/helpers/qos-plain-mutex >/dev/null
