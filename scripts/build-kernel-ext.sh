#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make kernel-ext: the kernel matrix's "ext" kernel, built from Debian's
# linux-source-6.12 with x86_64's defconfig plus tests/kernels/ext/ext.config
# (sched_ext, uclamp, BTF, what the matrix VM needs built in). About 40
# minutes on 2 CPUs, once: the result is cached in build-kernels/ext/ under
# a key of the source version and the fragment, and rebuilt only when
# either changes. Not part of make check; the matrix runs its row when the
# cache holds the kernel.
#
# Prints the path of the cached bzImage. Also leaves, beside it, vmlinux
# (its BTF is what scx_qos is compiled against) and the source tree's
# tools/ for libbpf, bpftool and the sched_ext headers.
#
# QOS_KERNEL_JOBS (default: the CPU count), QOS_KERNEL_NICE (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
fragment=$src/tests/kernels/ext/ext.config
work=$src/build-kernels/ext

"$src/scripts/install-deps.sh" linux-source-6.12 bc bison flex libelf-dev libssl-dev \
        dwarves cpio gcc make python3 xz-utils >&2

tarball=$(ls /usr/src/linux-source-6.12*.tar.xz | sort -V | tail -n 1)
version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
key=$(printf '%s\n' "$version" | cat - "$fragment" | sha256sum | cut -c1-12)
out=$work/$key
if [ -s "$out/bzImage" ] && [ -s "$out/vmlinux" ]; then
        echo "$out/bzImage"
        exit 0
fi

mkdir -p "$work"
tree=$work/linux-$version
if [ ! -e "$tree/.qos-unpacked" ]; then
        echo "kernel-ext: unpacking $(basename "$tarball") ($version)" >&2
        rm -rf "$tree"
        mkdir -p "$tree"
        tar -xf "$tarball" -C "$tree" --strip-components=1
        touch "$tree/.qos-unpacked"
fi

obj=$work/obj-$key
# A changed fragment starts from the last build's objects: kbuild rebuilds
# what the changed options reach, which for a driver is minutes (and for an
# option in widely included headers most of the kernel).
last=$(readlink "$work/current" 2>/dev/null || true)
if [ ! -d "$obj" ] && [ -n "$last" ] && [ -d "$work/obj-$last" ]; then
        echo "kernel-ext: starting from the objects of $last" >&2
        cp -a "$work/obj-$last" "$obj.tmp"
        mv "$obj.tmp" "$obj"
fi
mkdir -p "$obj"
cd "$tree"
make -s O="$obj" defconfig >&2
scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "$fragment" >&2
make -s O="$obj" olddefconfig >&2

# merge_config.sh only warns about an option Kconfig dropped (a missing
# dependency); here that would be a kernel without what the row is for.
missing=0
while IFS= read -r line; do
        case $line in
        CONFIG_*=*)
                grep -qxF "$line" "$obj/.config" || { echo "kernel-ext: $line did not stick" >&2; missing=1; }
                ;;
        "# CONFIG_"*" is not set")
                opt=${line#\# }
                opt=${opt%% *}
                ! grep -q "^$opt=" "$obj/.config" || { echo "kernel-ext: $opt is still set" >&2; missing=1; }
                ;;
        esac
done <"$fragment"
[ "$missing" = 0 ] || exit 1

start=$SECONDS
echo "kernel-ext: building $version in $obj (-j${QOS_KERNEL_JOBS:-$(nproc)})" >&2
nice -n "${QOS_KERNEL_NICE:-10}" make -s O="$obj" -j"${QOS_KERNEL_JOBS:-$(nproc)}" bzImage >&2
echo "kernel-ext: built in $((SECONDS - start)) s" >&2

mkdir -p "$out.tmp"
cp "$obj/arch/x86/boot/bzImage" "$obj/vmlinux" "$obj/.config" "$out.tmp/"
echo "$version" >"$out.tmp/version"
echo "$tree" >"$out.tmp/tree"
rm -rf "$out"
mv "$out.tmp" "$out"
ln -sfn "$key" "$work/current"
echo "$out/bzImage"
