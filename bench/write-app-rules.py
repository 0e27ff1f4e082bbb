#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# N one-application rule files in DIR, each with a process class and a
# thread rule, for programs that do not exist: the "20,000 rules" case of
# the benchmarks (an ananicy-sized rule tree).
#
#   bench/write-app-rules.py DIR N
import os
import sys

d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open(os.path.join(d, "bench-app-%05d.conf" % i), "w") as f:
        f.write("[Match]\nExecutable=/opt/bench/bin/app-%05d\n\n[Process]\nClass=background\n\n"
                "[Thread:worker-*]\nClass=utility\n" % i)
