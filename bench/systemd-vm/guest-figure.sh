#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Inside the systemd VM: install qosd, then measure (figure.py).
set -u
. /mnt/qos/guest-lib.sh
trap 'echo QOS-DONE' EXIT
wait_until systemctl is-active -q user@$USER_ID.service
install_qosd
cp /mnt/qos/qos-bench-loop /usr/local/bin/qos-frame-app
cp /mnt/qos/qos-bench-loop /usr/local/bin/qos-frame-shell
cp /usr/bin/yes /usr/local/bin/qos-hog
rule frame-app /usr/local/bin/qos-frame-app user-interactive
rule frame-shell /usr/local/bin/qos-frame-shell user-interactive
rule hog /usr/local/bin/qos-hog background
rule make /usr/bin/make background
rm -rf /home/$USER_NAME/tree && cp -r /mnt/qos/tree /home/$USER_NAME/tree && chown -R $USER_NAME: /home/$USER_NAME/tree
python3 /mnt/qos/figure.py "$(cat /mnt/qos/rounds)"
