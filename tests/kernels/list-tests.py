#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write the tests the kernel matrix runs, one per line:

    NAME <TAB> SUITE <TAB> TIMEOUT <TAB> WORKDIR <TAB> SHELL COMMAND

from what meson registered in BUILD_DIR (so the commands and environments
are exactly the ones `meson test` uses): every unit test (but those of the source alone), and every
integration test whose script carries the line "# kernel-matrix: vm"
(kernel-facing, and needs nothing a bare VM lacks).

Usage: list-tests.py BUILD_DIR >tests.list
"""
import json
import shlex
import subprocess
import sys

MARKER = "# kernel-matrix: vm"
# Unit tests of the source tree alone, nothing of the kernel's; the VM has
# no python to run them.
SOURCE_ONLY = {"test-folder-layers"}


def wanted(test):
    suites = {s.split(":")[-1] for s in test["suite"]}
    if test["name"] in SOURCE_ONLY:
        return None
    if "unit" in suites:
        return "unit"
    if "integration" in suites:
        try:
            with open(test["cmd"][0], errors="replace") as f:
                if any(line.rstrip("\n") == MARKER for line in f):
                    return "integration"
        except OSError:
            pass
    return None


def main():
    build = sys.argv[1]
    tests = json.loads(subprocess.check_output(["meson", "introspect", build, "--tests"]))
    for t in tests:
        suite = wanted(t)
        if not suite:
            continue
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(t["env"].items()))
        cmd = " ".join(shlex.quote(c) for c in t["cmd"])
        line = "\t".join([t["name"], suite, str(t["timeout"]), t["workdir"] or build,
                          f"{env} {cmd}".strip()])
        print(line)


if __name__ == "__main__":
    main()
