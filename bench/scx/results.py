# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reading the results files of bench/scx/run-figure.sh (figure.py, kinds.py)."""


def result_lines(paths):
    """(run, words) for every line of every file. The run (1, 2, ...) names
    the file a line came from: a round is named by its run too ("2.3"), so
    that the rounds of several runs pool."""
    for run, path in enumerate(paths, 1):
        with open(path, errors="replace") as f:
            for line in f:
                yield run, line.split()
