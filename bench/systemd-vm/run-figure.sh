#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The desktop figure, measured inside the systemd VM (tests/systemd-vm):
# a 60 Hz frame loop as an app (a scope in app.slice) and as the
# compositor (session.slice), against loads that rules tag background,
# untouched, with per-thread knobs only (SystemdUnits=no) and with qosd's
# systemd backend. Prints the table; writes it to build-systemd-vm/figure.txt.
#
# Usage: bench/systemd-vm/run-figure.sh [BUILD] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# A real tree for `make -j4`: qosd's own core library, with a Makefile.
mkdir -p "$stage/tree"
cp "$src"/src/core/*.[ch] "$build/qos-config.h" "$stage/tree/"
cp -r "$src/include" "$stage/tree/"
cat >"$stage/tree/Makefile" <<'MAKE'
SRCS := $(wildcard *.c)
OBJS := $(SRCS:.c=.o)
all: $(OBJS)
%.o: %.c
	@gcc -O2 -D_GNU_SOURCE -I. -Iinclude -c $< -o $@ && echo built >>/tmp/qos-built
clean:
	@rm -f $(OBJS)
MAKE
cp "$build/bench/qos-bench-loop" "$here/figure.py" "$stage/"
echo "${2:-3}" >"$stage/rounds"

# idle=poll: under TCG a halted vCPU wakes late (an idle floor of 8-13 ms
# for 3 ms of work, above the loaded figures); polling keeps the floor
# the frame's own cost, so that ratios mean what they say.
QOS_VM_APPEND=idle=poll QOS_VM_BUSES=daemon QOS_VM_TIMEOUT=${QOS_VM_TIMEOUT:-1800} \
QOS_VM_FILES="$stage/tree $stage/qos-bench-loop $stage/figure.py $stage/rounds" \
        "$src/tests/systemd-vm/run.sh" "$build" "$here/guest-figure.sh" | grep -v '^systemd VM:' || true
grep -v '^QOS-DONE$' "$src/build-systemd-vm/results-daemon.txt" >"$src/build-systemd-vm/figure.txt" || true
