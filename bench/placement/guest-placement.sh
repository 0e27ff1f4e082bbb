#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Inside the systemd VM (4 vCPUs): install qosd, then measure (placement.py).
set -u
. /mnt/qos/guest-lib.sh
trap 'echo QOS-DONE' EXIT
wait_until systemctl is-active -q user@$USER_ID.service
install_qosd
cp /mnt/qos/qos-bench-loop /usr/local/bin/qos-frame-app
cp /usr/bin/yes /usr/local/bin/qos-hog
rule frame-app /usr/local/bin/qos-frame-app user-interactive
rule hog /usr/local/bin/qos-hog background
python3 /mnt/qos/placement.py "$(cat /mnt/qos/rounds)"
