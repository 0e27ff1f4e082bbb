# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian packages on a systemd machine (sourced by guest-tests.sh
# before qosd is installed from the staging tree): `apt install` of the
# .debs that run.sh built with `make deb` (the VM has no network, so every
# dependency must be in the image), qosd enabled and running from the
# package's maintainer scripts, then `apt purge`: qosd stopped, every
# thread it changed back at its own nice and policy, the files gone.

stat_of() { awk '{ print $41, $19 }' "/proc/$1/stat"; } # "policy nice"
stat_is() { [ "$(stat_of "$1")" = "$2" ]; }             # pid "policy nice"
# Purged: no file listed, no status but "not-installed" (or none at all).
gone_from_dpkg() {
        [ -z "$(dpkg -L "$1" 2>/dev/null)" ] &&
                ! dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null | grep -v '^not-installed$' >/dev/null
}
apt_log() { # what apt said, shown when it failed
        sed 's/^/# apt: /' /tmp/qos-apt.log | tail -n 20
        return 1
}
run_apt() { DEBIAN_FRONTEND=noninteractive apt -y "$@" >/tmp/qos-apt.log 2>&1 || apt_log; }

deb_tests() {
        local debs=/tmp/qos-deb packages=(qosd libqos0 libqos-preload qos-focus) p
        if ! compgen -G "/mnt/qos/deb/qosd_*.deb" >/dev/null; then
                not_ok "the Debian packages were built (make deb; see the host's build-deb/build.log)"
                return
        fi
        # apt reads local packages as _apt: a copy it may read.
        rm -rf "$debs"
        mkdir -m 755 "$debs"
        cp /mnt/qos/deb/*.deb "$debs/"
        chmod 644 "$debs"/*.deb

        # Two processes that were there before qosd, each at a nice of its
        # own: one matched by a rule the admin drops in /etc/qos, one (make)
        # by a rule the package ships in /usr/share/qos.
        cp /bin/sleep /usr/local/bin/qos-deb-admin
        mkdir -p "$RULES"
        rule deb-admin /usr/local/bin/qos-deb-admin background
        nice -n 3 /usr/local/bin/qos-deb-admin 600 &
        local admin=$!
        printf 'all:\n\tsleep 600\n' >/tmp/qos-deb.mk
        nice -n 5 make -s -f /tmp/qos-deb.mk >/dev/null 2>&1 &
        local make=$!
        wait_until pgrep -P "$make" -x sleep >/dev/null
        check "before qosd: both at their own nice, SCHED_OTHER" eval 'stat_is $admin "0 3" && stat_is $make "0 5"'

        # What the project asks of the package: apt install ./qosd_*.deb.
        check "apt install ./qosd_*.deb (offline: its dependencies are in the image)" \
                run_apt install "$debs"/qosd_*.deb
        check "qosd is enabled by the package" systemctl is-enabled -q qosd
        check "and running" wait_until systemctl is-active -q qosd
        local out rc=0 version
        version=$(dpkg-query -W -f='${Version}' qosd)
        out=$(qosctl status 2>&1) || rc=$?
        check "qosctl status answers (exit $rc)" [ "$rc" = 0 ]
        check "qosctl status names the packaged version $version" grep -Eq "^Version +$version\$" <<<"$out"
        check "qosd.conf is a conffile" output_has '/etc/qos/qosd.conf' dpkg-query -W -f='${Conffiles}' qosd
        check "the admin's rule applies: SCHED_IDLE" wait_until is_sched_idle "$admin"
        check "the shipped make rule applies: SCHED_IDLE" wait_until is_sched_idle "$make"

        check "the libraries and qos-focus install beside it" \
                run_apt install "$debs"/libqos0_*.deb "$debs"/libqos-preload_*.deb "$debs"/qos-focus_*.deb
        local preload
        preload=$(dpkg -L libqos-preload | grep '/libqos-preload\.so$')
        check "qosctl finds the packaged preload library ($preload)" \
                eval '[ -f "$preload" ] && output_has "preload library *$preload" qosctl --help'
        check "qos-focus's user unit is shipped, not enabled" \
                eval '[ -f /usr/lib/systemd/user/qos-focus.service ] && ! systemctl --global is-enabled -q qos-focus.service'

        check "apt purge ${packages[*]}" run_apt purge "${packages[@]}"
        check "qosd is stopped" eval '! pgrep -x qosd >/dev/null'
        check "the admin-rule process is back at nice 3, SCHED_OTHER ($(stat_of "$admin"))" stat_is "$admin" "0 3"
        check "make is back at nice 5, SCHED_OTHER ($(stat_of "$make"))" stat_is "$make" "0 5"
        for p in "${packages[@]}"; do
                check "dpkg knows no file of $p" gone_from_dpkg "$p"
        done
        check "qosd.conf is gone with the purge" [ ! -e /etc/qos/qosd.conf ]
        check "only the admin's own rule is left in /etc/qos" \
                [ "$(find /etc/qos -type f)" = "$RULES/deb-admin.conf" ]
        check "the programs, the unit and the bus policy are gone" eval \
                '[ ! -e /usr/sbin/qosd ] && [ ! -e /usr/bin/qosctl ] && [ ! -e /lib/systemd/system/qosd.service ] &&
                 [ ! -e /usr/share/dbus-1/system.d/org.qosd.QoS1.conf ] && [ ! -e /usr/share/qos ]'
        check "no enablement is left (symlink, deb-systemd-helper's state)" eval \
                '[ ! -e /etc/systemd/system/multi-user.target.wants/qosd.service ] &&
                 ! compgen -G "/var/lib/systemd/deb-systemd-helper-enabled/*qosd*" >/dev/null &&
                 ! systemctl is-enabled -q qosd 2>/dev/null'
        check "qosd removed its state file on stop" [ -z "$(find /run/qos -type f 2>/dev/null)" ]

        pkill -x -P "$make" sleep
        kill "$admin" "$make" 2>/dev/null
        rm -f "$RULES/deb-admin.conf" /usr/local/bin/qos-deb-admin /tmp/qos-deb.mk
}
deb_tests
