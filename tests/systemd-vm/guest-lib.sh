# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the scripts the systemd VM runs (guest-tests.sh, the figure's
# bench): install qosd from the host's staging tree, start apps the way a
# desktop does, read what systemd and the kernel made of them. Sourced.

USER_NAME=alice
USER_ID=1000
UMGR=/sys/fs/cgroup/user.slice/user-$USER_ID.slice/user@$USER_ID.service
RULES=/etc/qos/apps.d

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
skip() { echo "skip - $*"; }
check() { # message command...
        local msg=$1
        shift
        if "$@"; then ok "$msg"; else not_ok "$msg"; fi
}

as_user() { runuser -u "$USER_NAME" -- env XDG_RUNTIME_DIR=/run/user/$USER_ID "$@"; }
user_systemctl() { as_user systemctl --user "$@"; }

# Poll a command for up to QOS_WAIT tenths of a second (TCG is slow: 20 s).
wait_until() { # command...
        local i
        for ((i = 0; i < ${QOS_WAIT:-200}; i++)); do
                "$@" && return 0
                sleep 0.1
        done
        return 1
}

install_qosd() {
        # Debian 12 has merged /usr: /lib is a symlink, which must stay one.
        tar -C /mnt/qos/stage -cf - . | tar -C / -xf - --keep-directory-symlink --no-same-owner
        ldconfig
        systemctl daemon-reload
        systemctl reload dbus.service 2>/dev/null || true
        mkdir -p "$RULES"
}

rule() { # name executable class
        printf '[Match]\nExecutable=%s\n\n[Process]\nClass=%s\n' "$2" "$3" >"$RULES/$1.conf"
}

# A user app in a scope of its own, started as desktops start them.
# Prints nothing; the scope's processes are in its cgroup.procs.
start_app() { # unit command...
        local unit=$1
        shift
        as_user systemd-run --user --scope --quiet --unit="$unit" "$@" </dev/null >/dev/null 2>&1 &
        wait_until test -s "$UMGR/app.slice/$unit.scope/cgroup.procs"
}

scope_dir() { echo "$UMGR/app.slice/$1.scope"; }
procs_of() { cat "$1/cgroup.procs" 2>/dev/null; }
# The cgroup's idle flag: 1, 0, or "none" when the parent has no cpu controller.
idle_of() { cat "$1/cpu.idle" 2>/dev/null || echo none; }
weight_of() { cat "$1/cpu.weight" 2>/dev/null || echo none; }
user_prop() { user_systemctl show -p "$2" --value "$1"; }
cgroup_of() { awk -F: '$1 == 0 { print $3 }' "/proc/$1/cgroup"; }

# Predicates for check and wait_until.
is_idle() { [ "$(idle_of "$1")" = 1 ]; }
not_idle() { [ "$(idle_of "$1")" != 1 ]; }
gone() { [ ! -e "$1" ]; }
weight_is() { [ "$(user_prop "$1" CPUWeight)" = "$2" ]; } # unit value ("[not set]", 50)
in_cgroup() { cgroup_of "$1" | grep -- "$2" >/dev/null; }         # pid pattern
is_sched_idle() { grep -q 'policy *: *5$' "/proc/$1/sched"; }
output_has() { "${@:2}" 2>&1 | grep -- "$1" >/dev/null; }         # pattern command...

qosd_pid() { systemctl show -p MainPID --value qosd; }
journal_has() { journalctl -u qosd -b --no-pager -o cat | grep -- "$1" >/dev/null; }
