/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every qosctl subcommand shares: exit codes, the config root, and
 * turning kernel errors into advice. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "core/qclass.h"
#include "config/rules.h"
#include "core/task-apply.h"

/* Exit codes scripts can rely on (documented in qosctl(1)). */
enum {
        EXIT_OK = 0,
        EXIT_FAIL = 1,        /* the operation failed, or errors were found */
        EXIT_USAGE = 2,       /* bad option, unknown class, missing argument */
        EXIT_NOTFOUND = 3,    /* no such process or thread */
        EXIT_DENIED = 4,      /* the kernel refused: needs privilege or the daemon */
        EXIT_NODAEMON = 5,    /* qosd is not running or not reachable */
};

typedef struct CliCommand {
        const char *name;
        int (*run)(int argc, char **argv);
        const char *summary;
} CliCommand;

/* The --root given before the subcommand, else $QOS_ROOT, else NULL (the
 * real directories). */
const char *cli_root(void);
/* Before the first kernel_caps(): the kinds of CPU as qosd finds them
 * (the tree at sys, qosd.conf under cli_root()), so that a class set
 * here directly places threads as qosd would. */
void cli_use_cpu_kinds(const char *sys);
void cli_set_root(const char *root);

/* The options the thread commands share: -c CLASS, -p TID, -a, -v, -P, -h. */
typedef struct CliTaskOptions {
        QClass class;
        pid_t pid;
        bool all;
        bool verbose;
        bool preload;           /* run: load libqos-preload.so into the command */
} CliTaskOptions;

/* The libqos-preload.so that belongs to this qosctl (see preload-path.c):
 * its real path, or -errno (-ENOENT: not installed). */
int cli_preload_library(char **ret);

/* getopt over the shared options; `shortopts` says which this command takes
 * (a subset of "c:p:avPh", '+' first to stop at the first operand). Returns
 * -1 when parsing is done (optind at the first operand), otherwise the exit
 * code to return: EXIT_OK after --help, EXIT_USAGE on errors. */
int cli_parse_task_options(int argc, char **argv, const char *shortopts, void (*help)(void),
                           CliTaskOptions *o);

/* Parse "-c CLASS"; prints the valid names and returns -EINVAL on error. */
int cli_parse_class(const char *s, QClass *ret);

/* Parse a PID/TID argument; prints an error and returns -EINVAL on error. */
int cli_parse_pid(const char *s, pid_t *ret);

/* Map a failed apply to an exit code and print advice once. */
int cli_report_apply_error(pid_t tid, int r, const ApplyResult *res, QClass c);

/* Print the knobs that changed ("policy normal->idle, nice 0->19"). */
void cli_print_changes(pid_t tid, const char *comm, const ApplyResult *res);

/* Apply class c to one thread directly, when qosd is not running (else
 * class-request.h asks qosd); with verbose print what changed. Without
 * privilege only what the kernel allows is tried (a promotion it would
 * refuse changes nothing; the group and another thread's timer slack are
 * left as they are, said with verbose). Returns an exit code; *ret_done
 * (may be NULL) says whether the thread got the class. A thread that has
 * exited counts as success when vanished_ok (it was one of many, seen a
 * moment ago). */
int cli_apply_to_thread(pid_t tid, QClass c, bool verbose, bool vanished_ok, bool *ret_done);

/* The loader's messages to stderr, one a line, escaped for the terminal:
 * they quote file names and the files' text, which others may write. */
void cli_print_diags(const DiagList *l);

/* The subcommands, one file each. */
int cmd_classes(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_import(int argc, char **argv);
/* Asking qosd over D-Bus. */
int cmd_ps(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_reload(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_foreground(int argc, char **argv);
int cmd_top(int argc, char **argv);
