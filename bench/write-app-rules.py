#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Rule files in DIR for programs that do not exist, in one of the shapes of
# bench/bench-rules.c, N applications:
#   files    N qos.d files, each a process class and one thread rule
#            (2N rules: one file per application, as `qosctl import
#            ananicy` writes them)
#   json     N applications in 360 schedqos .json files (ananicy's shape:
#            many rules per file)
#   threads  360 qos.d files with one [Thread:] rule each for the rest of
#            N (N rules; an application with many named threads)
#
#   bench/write-app-rules.py DIR N [SHAPE]
import os
import sys

FILES = 360

d, n = sys.argv[1], int(sys.argv[2])
shape = sys.argv[3] if len(sys.argv) > 3 else "files"


def write(name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)


if shape == "files":
    for i in range(n):
        write("bench-app-%05d.conf" % i,
              "[Match]\nExecutable=/opt/bench/bin/app-%05d\n\n[Process]\nClass=background\n\n"
              "[Thread:worker-*]\nClass=utility\n" % i)
elif shape == "json":
    for k in range(FILES):
        apps = ['\t"bench-app-%05d": { "qos": "QOS_BACKGROUND" }' % i for i in range(k, n, FILES)]
        write("bench-pack-%03d.json" % k, "{\n" + ",\n".join(apps) + "\n}\n")
elif shape == "threads":
    per_file = max(1, n // FILES - 1)   # the [Process] rule counts too
    for k in range(FILES):
        threads = "".join("[Thread:%s%02d%s]\nClass=background\n" % ("pool" if t % 2 else "worker", t,
                                                                     "-*" if t % 2 else "")
                          for t in range(per_file))
        write("bench-app-%03d.conf" % k,
              "[Match]\nExecutable=/opt/bench/bin/app-%03d\n\n[Process]\nClass=utility\n\n%s" % (k, threads))
else:
    sys.exit("write-app-rules.py: unknown shape %r (files, json, threads)" % shape)
