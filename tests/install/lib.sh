# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the tests that build against libqos from outside, as a program
# that uses it would: through pkg-config, with nothing of the build's own.
set -euo pipefail

: "${QOS_SOURCE_ROOT:?}" "${QOS_BUILD_ROOT:?}" "${CC:?CC must be the compiler meson uses}"
TEST_NAME=$(basename "$0" .sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $TEST_NAME: $*" >&2; exit 1; }
ok() { echo "ok - $*"; }
assert_contains() { # haystack needle message
        case "$1" in
        *"$2"*) ;;
        *) fail "$3: '$2' not in: $1" ;;
        esac
}

# build_client INCLUDEDIR LIBDIR PKG-CONFIG-ARGS...: compile pc-client.c with
# the flags pkg-config gives for libqos, check that <qos/qos.h> and
# <qos/darwin.h> came from INCLUDEDIR (not from a copy installed on this
# machine), then run it against the libqos.so in LIBDIR.
build_client() {
        local incdir=$1 libdir=$2 cflags libs deps out
        shift 2
        cflags=$(pkg-config "$@" --cflags libqos) || fail "pkg-config --cflags libqos failed"
        libs=$(pkg-config "$@" --libs libqos) || fail "pkg-config --libs libqos failed"
        assert_contains "$cflags" "-I$incdir" "pkg-config --cflags"
        # shellcheck disable=SC2086 # word splitting is what flags need
        deps=$($CC $cflags -MM "$QOS_SOURCE_ROOT/tests/install/pc-client.c") || fail "<qos/qos.h> does not compile: $cflags"
        assert_contains "$deps" "$incdir/qos/qos.h" "the header used"
        assert_contains "$deps" "$incdir/qos/darwin.h" "the header used"
        # shellcheck disable=SC2086
        $CC ${QOS_SANITIZE_FLAGS:-} $cflags -o "$tmp/pc-client" "$QOS_SOURCE_ROOT/tests/install/pc-client.c" $libs ||
                fail "pc-client does not link: $libs"
        out=$(LD_LIBRARY_PATH=$libdir "$tmp/pc-client") || fail "pc-client failed against $libdir"
        [ "$out" = background ] || fail "pc-client printed '$out'"
        out=$(LD_LIBRARY_PATH=$libdir ldd "$tmp/pc-client")
        assert_contains "$out" "$libdir/libqos.so.0 " "the libqos pc-client loads"
}
