#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A program compiles and runs against the build tree with only what
# PKG_CONFIG_PATH=BUILD/meson-uninstalled gives it: the public headers
# from the source tree, libqos.so from the build. No root needed.
. "$(dirname "$0")/lib.sh"

PKG_CONFIG_PATH=$QOS_BUILD_ROOT/meson-uninstalled build_client \
        "$QOS_SOURCE_ROOT/include" "$QOS_BUILD_ROOT/src/lib"
ok "pkg-config libqos from $QOS_BUILD_ROOT/meson-uninstalled: compiled, linked, ran"
