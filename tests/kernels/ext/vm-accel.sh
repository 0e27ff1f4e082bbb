#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The qemu accelerator to boot a built ext kernel with: a host thread per
# vCPU, unless that kernel still has jump labels (a cache from before
# ext.config turned them off). Loading a sched_ext scheduler patches their
# branch sites in running code, which multi-threaded TCG gets wrong ("Oops:
# int3" in __schedule); one host thread for both vCPUs runs it correctly.
#
# Usage: vm-accel.sh KERNEL_DIR   (the directory holding its .config)
if grep -qx 'CONFIG_JUMP_LABEL=y' "$1/.config" 2>/dev/null; then
        echo tcg,thread=single
else
        echo tcg
fi
