#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Build scx_qos, the sched_ext scheduler that knows qosd's four classes
# (src/scx/, scx_qos(8)), for the kernel matrix's "ext" kernel.
#
# Usage: scripts/build-scx-qos.sh
#
# Needs the ext kernel built first (scripts/build-kernel-ext.sh): its vmlinux
# gives the BTF the scheduler is compiled against (CO-RE), and its source
# tree gives libbpf, bpftool and the sched_ext headers of that kernel, so
# the scheduler is built with the API of the kernel it runs on (6.12:
# scx_bpf_dispatch, scx_bpf_consume). Nothing is written into the tree:
# libbpf (static) and the bootstrap bpftool are built out of tree and kept
# for the next run; only the scheduler itself is rebuilt every time (a few
# seconds). Prints the path of the loader.
#
# QOS_KERNEL_EXT_DIR  the ext kernel's directory (default build-kernels/ext)
# QOS_SCX_TOOLS       where libbpf and bpftool go (default
#                     $QOS_KERNEL_EXT_DIR/scx-tools/<tree name>)
# QOS_SCX_OUT         where scx_qos goes (default $QOS_KERNEL_EXT_DIR/current/scx)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
kext=${QOS_KERNEL_EXT_DIR:-$repo/build-kernels/ext}
cur=$kext/current

"$repo/scripts/install-deps.sh" clang-19 llvm-19 libelf-dev zlib1g-dev gcc make pkg-config >&2

if [ ! -s "$cur/vmlinux" ] || [ ! -s "$cur/tree" ]; then
        echo "build-scx-qos: no ext kernel in $cur; run scripts/build-kernel-ext.sh first" >&2
        exit 1
fi
tree=$(cat "$cur/tree")
[ -d "$tree/tools/sched_ext/include/scx" ] || {
        echo "build-scx-qos: $tree has no tools/sched_ext (not a 6.12+ tree?)" >&2
        exit 1
}
# Absolute: libbpf's Makefile names its targets by absolute path.
tools=$(realpath -m "${QOS_SCX_TOOLS:-$kext/scx-tools/$(basename "$tree")}")
out=$(realpath -m "${QOS_SCX_OUT:-$cur/scx}")
obj=$out/obj
mkdir -p "$tools/libbpf" "$tools/bpftool" "$obj"
make_q() { nice -n "${QOS_KERNEL_NICE:-10}" make -s "$@" >&2; }

# libbpf, static and position independent (the loader is a PIE), with its
# headers installed under $tools/include/bpf. make is incremental.
make_q -C "$tree/tools/lib/bpf" OUTPUT="$tools/libbpf/" DESTDIR="$tools" prefix= \
        EXTRA_CFLAGS='-g -O2 -fPIC' "$tools/libbpf/libbpf.a" install_headers
# The bootstrap bpftool is enough for btf dump and gen object/skeleton.
make_q -C "$tree/tools/bpf/bpftool" OUTPUT="$tools/bpftool/" bootstrap
bpftool=$tools/bpftool/bootstrap/bpftool

if [ ! -s "$obj/vmlinux.h" ] || [ "$cur/vmlinux" -nt "$obj/vmlinux.h" ]; then
        "$bpftool" btf dump file "$cur/vmlinux" format c >"$obj/vmlinux.h.tmp"
        mv "$obj/vmlinux.h.tmp" "$obj/vmlinux.h"
fi

# The flags of tools/sched_ext/Makefile: clang's own system include dirs
# after ours (asm/types.h and friends for -target bpf), the tree's uapi.
sys_includes=$(clang-19 -v -E - </dev/null 2>&1 |
        sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
# shellcheck disable=SC2086
clang-19 -g -O2 -mcpu=v3 -target bpf -D__TARGET_ARCH_x86 -mlittle-endian \
        -Wall -Wno-compare-distinct-pointer-types \
        -I"$obj" -I"$tools/include" -I"$repo/src/scx" \
        -I"$tree/tools/sched_ext/include" -I"$tree/tools/sched_ext/include/bpf-compat" \
        -I"$tree/tools/include/uapi" $sys_includes \
        -c "$repo/src/scx/scx_qos.bpf.c" -o "$obj/scx_qos.bpf.o"

# Linking the object with itself is what the kernel's Makefile does before
# the skeleton: it resolves static and extern symbols the way libbpf will.
"$bpftool" gen object "$obj/scx_qos.linked.o" "$obj/scx_qos.bpf.o"
"$bpftool" gen skeleton "$obj/scx_qos.linked.o" name scx_qos >"$obj/scx_qos.bpf.skel.h"

version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$repo/meson.build" | head -n 1)
gcc -g -O2 -Wall -Wextra -DSCX_QOS_VERSION="\"$version\"" -Wno-unused-parameter -Wno-sign-compare \
        -I"$obj" -I"$tools/include" -I"$repo/src/scx" \
        -I"$tree/tools/sched_ext/include" -I"$tree/tools/include/uapi" \
        -o "$out/scx_qos.tmp" "$repo/src/scx/scx_qos.c" \
        "$tools/libbpf/libbpf.a" -lelf -lz
mv "$out/scx_qos.tmp" "$out/scx_qos"
echo "$out/scx_qos"
