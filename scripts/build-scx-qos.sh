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
# scx_bpf_dispatch, scx_bpf_consume); Debian 12's own libbpf and bpftool
# are too old for it (src/scx/meson.build). Nothing is written into the
# tree: libbpf (static) and the bootstrap bpftool are built out of tree
# and kept for the next run. meson builds scx_qos itself, in a build
# directory of its own configured with those and -Dscx=enabled, so a
# missing piece is an error, not a skip; after the first run only what
# changed in src/scx is rebuilt. Prints the path of the loader.
#
# QOS_KERNEL_EXT_DIR  the ext kernel's directory (default build-kernels/ext)
# QOS_SCX_TOOLS       where libbpf and bpftool go (default
#                     $QOS_KERNEL_EXT_DIR/scx-tools/<tree name>)
# QOS_SCX_OUT         where scx_qos goes (default $QOS_KERNEL_EXT_DIR/current/scx);
#                     its meson build directory is build/ there
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
kext=${QOS_KERNEL_EXT_DIR:-$repo/build-kernels/ext}
cur=$kext/current

# meson configures the whole project, so the build group too.
"$repo/scripts/install-deps.sh" --group build >&2
"$repo/scripts/install-deps.sh" clang-19 llvm-19 libelf-dev zlib1g-dev make >&2

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
build=$out/build
mkdir -p "$tools/libbpf" "$tools/bpftool" "$out"
rm -rf "$out/obj" # what this script compiled itself, before meson did
make_q() { nice -n "${QOS_KERNEL_NICE:-10}" make -s "$@" >&2; }

# libbpf, static and position independent (the loader is a PIE), with its
# headers and libbpf.pc under $tools, where meson finds it. lib/ holds only
# the static library, so -lbpf cannot pick the system's older libbpf.so.1
# (same soname) at link or run time. make is incremental.
make_q -C "$tree/tools/lib/bpf" OUTPUT="$tools/libbpf/" prefix="$tools" libdir_relative=lib \
        EXTRA_CFLAGS='-g -O2 -fPIC' "$tools/libbpf/libbpf.a" install_headers install_pkgconfig
install -m 644 "$tools/libbpf/libbpf.a" "$tools/lib/libbpf.a"
# The bootstrap bpftool is enough for btf dump and gen object/skeleton.
make_q -C "$tree/tools/bpf/bpftool" OUTPUT="$tools/bpftool/" bootstrap

# meson finds programs by name; a native file points these two at ours.
printf "[binaries]\nbpftool = '%s'\nclang = 'clang-19'\n" \
        "$tools/bpftool/bootstrap/bpftool" >"$tools/native.ini"
options=(-Dscx=enabled -Dscx_kernel_source="$tree" -Dscx_vmlinux="$cur/vmlinux"
        -Dpkg_config_path="$tools/lib/pkgconfig" -Dtests=disabled -Dx11=disabled)
# The build directory builds the clone that runs this: another clone's
# (a worktree sharing QOS_KERNEL_EXT_DIR) starts it afresh.
source_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["directories"]["source"])' "$1"; }
if [ -e "$build/meson-info/meson-info.json" ] && [ "$(source_of "$build/meson-info/meson-info.json")" != "$repo" ]; then
        rm -rf "$build"
fi
if [ -e "$build/meson-private/coredata.dat" ]; then
        meson configure "$build" "${options[@]}" >&2
else
        meson setup "$build" "$repo" --native-file "$tools/native.ini" "${options[@]}" >&2
fi
nice -n "${QOS_KERNEL_NICE:-10}" meson compile -C "$build" src/scx/scx_qos >&2
cp "$build/src/scx/scx_qos" "$out/scx_qos.tmp"
mv "$out/scx_qos.tmp" "$out/scx_qos"
echo "$out/scx_qos"
