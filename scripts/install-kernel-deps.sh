#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What the kernel matrix (make check-kernels) needs beyond the build: qemu
# to boot the kernels, busybox-static for the VM's small tools and for
# cpio, dpkg-deb to unpack the kernel packages. The kernels themselves are
# fetched by tests/kernels/fetch-kernel.sh.
exec "$(dirname "$0")/install-deps.sh" --group kernels
