#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The kernel matrix's whole root file system, as an initramfs: this
# machine's own command-line tools (and PAM for runuser), busybox for what
# else a bare system needs, the build and source trees at the same absolute
# paths as here (so the commands meson registered run unchanged), and every
# shared library any of them needs. No disk image, no network.
#
# Usage: make-initramfs.sh OUT.cpio BUILD_DIR SOURCE_DIR TESTS.LIST
# QOS_VM_TOOLS adds programs (by name, looked up in PATH) for tests that
# need more, e.g. QOS_VM_TOOLS="python3" (without its modules).
set -euo pipefail

out=$(realpath -m "$1")
build=$(realpath "$2")
source=$(realpath "$3")
list=$(realpath "$4")
here=$(dirname "$(realpath "$0")")
# The host's own programs, so that tests meet in the VM the commands they
# meet on the host: busybox lacks some (nice, pgrep) and differs in others
# (its renice -n adds to the nice value, which at nice 19 changes nothing).
# So: every program of these packages, the shell and awk Debian links
# (dash, mawk), and what the daemon's tests use where installed (a private
# D-Bus bus). Busybox fills the rest (mount, ip, poweroff).
packages=(coreutils grep sed findutils diffutils procps util-linux bsdutils passwd)
read -ra extra_tools <<<"${QOS_VM_TOOLS:-}"
tools=(bash sh awk ionice runuser useradd userdel "${extra_tools[@]}")
optional_tools=(dbus-daemon busctl)

root=$(mktemp -d /tmp/qos-initramfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"

# Merged /usr, all programs in usr/bin (busybox puts some in sbin).
mkdir -p "$root"/{usr/bin,usr/lib,usr/lib64,proc,sys,dev,run,root,etc,var/log,var/tmp}
install -d -m 1777 "$root/tmp"
ln -s usr/bin "$root/bin"
ln -s usr/bin "$root/sbin"
ln -s bin "$root/usr/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"

# Copy a file to the same path inside, following symlinks.
put() { # path...
        local f
        for f in "$@"; do
                [ -e "$root$f" ] && continue
                mkdir -p "$root$(dirname "$f")"
                cp -L "$f" "$root$f"
        done
}

# The shared libraries (and the loader) of each ELF file given; scripts
# and static programs have none.
libs_of() { # file...
        local f
        for f in "$@"; do
                { ldd "$f" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
        done | sort -u
}

elves=()
while IFS= read -r p; do
        [ -f "$p" ] || continue
        put "$p"
        elves+=("$p")
done < <(for pkg in "${packages[@]}"; do dpkg -L "$pkg" 2>/dev/null; done | grep -E '^(/usr)?/s?bin/[^/]+$')
for t in "${tools[@]}"; do
        p=$(command -v "$t") || { echo "make-initramfs: $t not found" >&2; exit 1; }
        put "$p"
        elves+=("$p")
done
for t in "${optional_tools[@]}"; do
        if p=$(command -v "$t"); then
                put "$p"
                elves+=("$p")
        fi
done

# PAM for runuser: the host's own configuration and the modules it names
# (dlopen()ed, so ldd cannot see them).
pam_dir=$(dirname "$(libs_of "$(command -v runuser)" | grep '/libpam\.so')")/security
for f in /etc/pam.d/{runuser,runuser-l,other,common-*} /etc/security/limits.conf; do
        [ -e "$f" ] && put "$f"
done
for m in $(grep -ho 'pam_[a-z0-9_]*\.so' "$root"/etc/pam.d/* | sort -u); do
        [ -e "$pam_dir/$m" ] && put "$pam_dir/$m" && elves+=("$pam_dir/$m")
done
# glibc loads libgcc_s when a thread exits or is cancelled.
gcc_s=$(ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/ && !f { f = $NF } END { print f }')
[ -n "$gcc_s" ] && put "$gcc_s" && elves+=("$gcc_s")

# The build tree's programs and libraries, and the source tree (the test
# scripts, and whatever data files tests read from QOS_SOURCE_ROOT).
while IFS= read -r f; do
        put "$f"
        elves+=("$f")
done < <(find "$build" -type f \( -perm -u+x -o -name '*.so*' \) \
        -not -path '*/meson-*' -not -path '*.p/*' -not -name '*.py')
if git -C "$source" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$source" ls-files -co --exclude-standard
else
        (cd "$source" && find . -type f -not -path './build*' -not -path './.git/*')
fi | while IFS= read -r f; do
        [ -f "$source/$f" ] && put "$source/$f"
done

# scx_qos, where make kernel-ext built it, for the "ext" kernel's rows.
scx=$source/build-kernels/ext/current/scx
if [ -d "$scx" ]; then
        for f in "$scx"/*; do
                [ -f "$f" ] || continue
                put "$f"
                [ -x "$f" ] && elves+=("$f")
        done
fi

mapfile -t libs < <(libs_of "${elves[@]}")
put "${libs[@]}"

cp /bin/busybox "$root/usr/bin/busybox"
for a in $(busybox --list); do
        [ -e "$root/usr/bin/$a" ] || ln -s busybox "$root/usr/bin/$a"
done

# Only root and the groups useradd expects; the tests add their own users.
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
users:x:100:
nogroup:x:65534:
EOF
printf 'root:*:19000:0:99999:7:::\nnobody:*:19000:0:99999:7:::\n' >"$root/etc/shadow"
printf 'root:*::\nusers:*::\nnogroup:*::\n' >"$root/etc/gshadow"
chmod 640 "$root/etc/shadow" "$root/etc/gshadow"
printf 'passwd: files\ngroup: files\nshadow: files\n' >"$root/etc/nsswitch.conf"
put /etc/login.defs
echo qos-matrix >"$root/etc/hostname"

install -m 755 "$here/init" "$root/init"
mkdir -p "$root/qos-matrix"
cp "$list" "$root/qos-matrix/tests.list"
cat >"$root/qos-matrix/paths" <<EOF
build=$build
source=$source
EOF

# Uncompressed: the kernel would unpack a compressed one under TCG, which
# costs more than qemu reading a larger file.
(cd "$root" && find . | LC_ALL=C sort | busybox cpio -o -H newc 2>/dev/null) >"$out"
