#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs inside the systemd VM (tests/systemd-vm/run.sh) as root: qosd from
# its shipped unit on a desktop-like layout. Prints "ok"/"not ok"/"skip"
# lines, then QOS-DONE.
set -u
. /mnt/qos/guest-lib.sh
trap 'echo QOS-DONE' EXIT

echo "# $(uname -r), systemd $(systemctl --version | awk 'NR == 1 { print $2 }'), bus: $(systemctl show -p Id --value dbus.service)"
wait_until systemctl is-active -q user@$USER_ID.service || not_ok "user@$USER_ID.service is not running"

# --- the Debian packages: install, enable, purge (before the staged install) ---
. /mnt/qos/guest-deb.sh

cp /usr/bin/yes /usr/local/bin/qos-hog
cp /bin/dash /usr/local/bin/qos-build
cp /usr/bin/yes /usr/local/bin/qos-mine
install_qosd
rule hog /usr/local/bin/qos-hog background
rule build /usr/local/bin/qos-build background
kill_scope() { kill $(procs_of "$(scope_dir "$1")") 2>/dev/null; }

# --- the unit under real systemd ---
systemctl start qosd
check "qosd starts by its unit (Type=notify)" systemctl is-active -q qosd
check "the journal has qosd's ready line" journal_has "ready:"
check "qosctl status: the systemd unit layer is on" output_has "SystemdUnits *on" qosctl status
check "qosctl status: per-user rules are on under the sandbox" output_has "UserRules *on" qosctl status
check "qosctl classes names the systemd unit layer" output_has "^systemd units: systemd runs" qosctl classes

# --- (a) an app in its own scope gets the class's weight, and loses it ---
start_app app-hog1 /usr/local/bin/qos-hog
d=$(scope_dir app-hog1)
check "a background app's own scope becomes idle" wait_until is_idle "$d"
hog=$(procs_of "$d" | head -n 1)
check "its thread is SCHED_IDLE too" is_sched_idle "$hog"
check "explain names the unit" output_has "app-hog1.scope.*CPUWeight=idle" qosctl explain "$hog"
kill "$hog"
check "the scope goes with its process" wait_until gone "$d"

start_app app-hog2 /usr/local/bin/qos-hog
d=$(scope_dir app-hog2)
wait_until is_idle "$d"
rm "$RULES/hog.conf"
check "a removed rule puts the weight back" wait_until weight_is app-hog2.scope "[not set]"
check "and the kernel's cgroup is no longer idle" not_idle "$d"
rule hog /usr/local/bin/qos-hog background
check "the rule back: idle again" wait_until is_idle "$d"
systemctl stop qosd
check "stopping qosd puts the weight back" weight_is app-hog2.scope "[not set]"
kill_scope app-hog2

# --- (b) background work in a shared scope moves to an idle scope ---
systemctl start qosd
as_user systemd-run --user --scope --quiet --unit=vte-spawn-t1 \
        /bin/sh -c '/usr/local/bin/qos-build -c "yes >/dev/null & yes >/dev/null & wait" & exec sleep 600' \
        </dev/null >/dev/null 2>&1 &
wait_until pgrep -x qos-build >/dev/null
build=$(pgrep -x qos-build)
check "the build leaves the terminal's scope for qos.slice" \
        wait_until in_cgroup "$build" "/user@$USER_ID.service/qos.slice/qos-background-$build-"
bscope=/sys/fs/cgroup$(cgroup_of "$build")
check "its scope is idle" is_idle "$bscope"
check "qos.slice is idle" is_idle "$UMGR/qos.slice"
children_moved() {
        local p n=0
        for p in $(pgrep -P "$build"); do in_cgroup "$p" qos-background || return 1; n=$((n + 1)); done
        [ "$n" -ge 2 ]
}
check "its children are in it" wait_until children_moved
shell_stays() {
        local p
        for p in $(pgrep -x sleep); do in_cgroup "$p" vte-spawn-t1.scope && return 0; done
        return 1
}
check "the shell stays in the terminal's scope" shell_stays
check "explain says the process moved" output_has "qosd's own scope in qos.slice" qosctl explain "$build"
pkill -x qos-build; pkill -x yes; user_systemctl stop vte-spawn-t1.scope 2>/dev/null

# --- (g) the foreground: seats, a user switch, mutter's marks, the relay ---
. /mnt/qos/guest-foreground.sh

if grep -qw qos.smoke /proc/cmdline; then
        systemctl stop qosd
        exit 0
fi

# --- (c) a weight someone else set is left alone ---
systemctl stop qosd
start_app app-hog3 /usr/local/bin/qos-hog
user_systemctl set-property --runtime app-hog3.scope CPUWeight=50
systemctl start qosd
check "the journal says a foreign weight is left alone" wait_until journal_has "app-hog3.scope.*set by someone else"
check "a foreign CPUWeight=50 stays" weight_is app-hog3.scope 50
systemctl stop qosd
check "and stopping qosd does not touch it" weight_is app-hog3.scope 50
kill_scope app-hog3

systemctl start qosd
start_app app-hog4 /usr/local/bin/qos-hog
wait_until is_idle "$(scope_dir app-hog4)"
user_systemctl set-property --runtime app-hog4.scope CPUWeight=70
systemctl stop qosd
check "a weight changed after qosd set it survives qosd's stop" weight_is app-hog4.scope 70
kill_scope app-hog4

# --- (d) SIGKILL: the restarted qosd knows its own changes ---
systemctl start qosd
start_app app-hog5 /usr/local/bin/qos-hog
d=$(scope_dir app-hog5)
wait_until is_idle "$d"
old=$(qosd_pid)
restarted() { local p; p=$(qosd_pid); [ "$p" != 0 ] && [ "$p" != "$old" ] && systemctl is-active -q qosd; }
systemctl kill -s KILL qosd
check "Restart=on-failure brings qosd back" wait_until restarted
check "the restarted qosd read its records" wait_until journal_has "weighed by a previous run"
check "the unit stays idle (the rule still wants it)" is_idle "$d"
systemctl stop qosd
check "its stop puts the weight back: it was known as qosd's" weight_is app-hog5.scope "[not set]"

systemctl start qosd
wait_until is_idle "$d"
kill -STOP "$(qosd_pid)"
rm "$RULES/hog.conf"
old=$(qosd_pid)
systemctl kill -s KILL qosd
wait_until restarted
check "after SIGKILL with the rule gone, the restarted qosd puts the weight back" \
        wait_until weight_is app-hog5.scope "[not set]"
kill_scope app-hog5
rule hog /usr/local/bin/qos-hog background

# --- (e) per-user rules under the unit's sandbox ---
as_user mkdir -p /home/$USER_NAME/.config/qos/apps.d
as_user sh -c "printf '[Match]\nExecutable=/usr/local/bin/qos-mine\n\n[Process]\nClass=background\n' >/home/$USER_NAME/.config/qos/apps.d/mine.conf"
systemctl restart qosd
check "no 'per-user rules are off' under the unit" eval '! journal_has "per-user rules are off"'
start_app app-mine /usr/local/bin/qos-mine
mine=$(procs_of "$(scope_dir app-mine)" | head -n 1)
check "a user's own rule applies under the sandbox" wait_until is_sched_idle "$mine"
check "and idles the user's own scope" wait_until is_idle "$(scope_dir app-mine)"
kill "$mine"

# --- (f) qosctl run as the user: an idle scope from the user's own manager ---
as_user sh -c 'qosctl run -c background sleep 300 </dev/null >/dev/null 2>&1 &'
wait_until pgrep -u $USER_NAME -x sleep >/dev/null
s=$(pgrep -u $USER_NAME -x sleep | head -n 1)
check "qosctl run -c background as a user: its own scope in qos.slice" wait_until in_cgroup "$s" "/qos.slice/qos-run-"
check "which is idle" is_idle "/sys/fs/cgroup$(cgroup_of "$s")"
kill "$s"

# --- (g) AppId=: apps in units named as Flatpak and GNOME name them ---
cp /bin/sleep /usr/local/bin/qos-appid
printf '[Match]\nAppId=org.example.QosApp\n\n[Process]\nClass=background\n' >"$RULES/qosapp.conf"
qosctl reload >/dev/null
for unit in app-flatpak-org.example.QosApp-71 app-gnome-org.example.QosApp-72; do
        start_app "$unit" /usr/local/bin/qos-appid 300
        p=$(procs_of "$(scope_dir "$unit")" | head -n 1)
        check "AppId=org.example.QosApp: $unit.scope's program is background" wait_until is_sched_idle "$p"
        check "explain shows its app ID" output_has "app id *org.example.QosApp" qosctl explain "$p"
        kill "$p"
done
rm -f "$RULES/qosapp.conf"

# --- (h) placement: background on the efficient CPUs (EfficientCPUs=) ---
allowed() { awk '$1 == "Cpus_allowed_list:" { print $2 }' "/proc/$1/status"; }
allowed_is() { [ "$(allowed "$1")" = "$2" ]; }
ran_only_on() { # pid list: where a busy process ran, 20 samples (stat field 39)
        local c i
        for ((i = 0; i < 20; i++)); do
                c=$(awk '{ print $39 }' "/proc/$1/stat")
                case ",$2," in *",$c,"*) ;; *) return 1 ;; esac
                sleep 0.05
        done
}
ncpu=$(nproc --all)
if [ "$ncpu" -ge 4 ]; then
        all=0-$((ncpu - 1)) eff=$((ncpu - 2))-$((ncpu - 1)) effs=$((ncpu - 2)),$((ncpu - 1))
        cp /etc/qos/qosd.conf /etc/qos/qosd.conf.orig
        printf '\n[Daemon]\nEfficientCPUs=%s\n' "$eff" >>/etc/qos/qosd.conf
        systemctl restart qosd
        check "qosd names the CPUs" wait_until journal_has "cpus: performance 0-$((ncpu - 3)), efficient $eff (qosd.conf"
        start_app app-hog6 /usr/local/bin/qos-hog
        p=$(procs_of "$(scope_dir app-hog6)" | head -n 1)
        check "a background app (its rule) may run only on CPUs $eff" wait_until allowed_is "$p" "$eff"
        check "and ran only there while busy" ran_only_on "$p" "$effs"
        start_app app-plain6 /bin/sleep 300
        q=$(procs_of "$(scope_dir app-plain6)" | head -n 1)
        check "an app no rule names keeps every CPU" allowed_is "$q" "$all"
        start_app app-narrow6 taskset -c "$((ncpu - 1))" /usr/local/bin/qos-hog
        n=$(procs_of "$(scope_dir app-narrow6)" | head -n 1)
        check "a taskset-narrowed background app keeps its narrower mask" \
                wait_until eval "is_sched_idle $n && allowed_is $n $((ncpu - 1))"
        cp /bin/sleep /usr/local/bin/qos-run-sleep # a name of its own: app-plain6 sleeps too
        as_user sh -c 'qosctl run -c background qos-run-sleep 300 </dev/null >/dev/null 2>&1 &'
        wait_until pgrep -u $USER_NAME -x qos-run-sleep >/dev/null
        s=$(pgrep -u $USER_NAME -x qos-run-sleep)
        check "qosctl run -c background as a user: its command on CPUs $eff" wait_until allowed_is "$s" "$eff"
        systemctl stop qosd
        check "stopping qosd restores the background app's CPUs" allowed_is "$p" "$all"
        check "and leaves the narrowed one as it was" allowed_is "$n" "$((ncpu - 1))"
        kill "$s" "$q"
        kill_scope app-hog6
        kill_scope app-narrow6
        mv /etc/qos/qosd.conf.orig /etc/qos/qosd.conf
        systemctl start qosd
else
        skip "placement needs 4 CPUs or more (QOS_VM_CPUS=4), not $ncpu"
fi

systemctl stop qosd
check "qosd stopped cleanly" [ "$(systemctl show -p Result --value qosd)" = success ]
journalctl -u qosd -b --no-pager -o cat | sed 's/^/# qosd: /' | tail -n 40
