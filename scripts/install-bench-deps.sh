#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What `make bench` needs beyond the build's packages: gnuplot (with the
# cairo PNG terminal) for the plot. The probes, the hog and the runner are
# the project's own; python3 is a build dependency already.
set -euo pipefail
"$(dirname "$0")/install-deps.sh"
exec "$(dirname "$0")/install-deps.sh" gnuplot-nox
