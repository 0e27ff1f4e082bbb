/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Readers for /proc: what a process and its threads are. No writes. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PROC_COMM_MAX 16

typedef struct ProcStat {
        pid_t pid;
        char comm[PROC_COMM_MAX];
        char state;
        unsigned flags;         /* the kernel's task flags (PF_*), field 9 */
        pid_t ppid;
        pid_t tgid;             /* from status; the process a thread belongs to */
        uint64_t start_time;    /* clock ticks since boot: with pid, a unique identity */
        int nice;
        int policy;
} ProcStat;

/* /proc/PID/task/TID/stat (or /proc/TID/stat when pid is 0). -ESRCH if gone. */
int proc_read_stat(pid_t pid, pid_t tid, ProcStat *ret);

/* Start time only: the identity check before and after acting on a task. */
int proc_start_time(pid_t tid, uint64_t *ret);

/* Whether exe, the path /proc/PID/exe shows, names the file the process
 * runs in the caller's own mount namespace. A process in the same
 * namespace: yes (the kernel writes the path from the reader's root; a
 * deleted file was there). In another one (a user's mount namespace can put
 * any file at /usr/bin/NAME): only if the path opens, here, to the same
 * device and inode. */
bool proc_exe_path_is_ours(pid_t pid, const char *exe);

/* The thread group (process) a TID belongs to. */
int proc_tgid(pid_t tid, pid_t *ret);

/* A thread's number in its own PID namespace (the last of NSpid in
 * /proc/PID/task/TID/status; pid 0: /proc/TID/status) and how many
 * namespaces number it, from the one of this /proc down: 1 for a thread in
 * qosd's own. -ESRCH unless tid is a thread of pid. A kernel without NSpid
 * (before 4.1) has one namespace as far as qosd can tell: tid and 1. */
int proc_ns_tid(pid_t pid, pid_t tid, pid_t *ret_inner, unsigned *ret_depth);

/* A small regular file NAME at the root of the process's own file system
 * view (/proc/PID/root/NAME), as Flatpak's /.flatpak-info. The process
 * chose what is there: a symbolic link, a FIFO, a device or a file on FUSE
 * (whose reads its user's daemon may never answer) is not read (-EINVAL),
 * nor more than size - 1 bytes. -ENOENT when there is none. */
int proc_root_file(pid_t pid, const char *name, char *buf, size_t size);

/* Real uid of a process. */
int proc_uid(pid_t pid, uid_t *ret);

/* 1 if the real, effective, saved and file-system uids of the thread are
 * all uid (the uid half of the kernel's ptrace access check), 0 if not,
 * -ESRCH if gone. */
int proc_owned_by(pid_t tid, uid_t uid);

/* The effective capability set of a process (CapEff in its status), as
 * seen in the process's own user namespace: bit CAP_X is capability X. */
int proc_cap_effective(pid_t pid, uint64_t *ret);

/* Thread name (comm), newline stripped. */
int proc_comm(pid_t pid, pid_t tid, char ret[PROC_COMM_MAX]);

/* readlink of /proc/PID/exe; "(deleted)" suffix stripped. Caller frees. */
int proc_exe(pid_t pid, char **ret);

/* Command line with arguments joined by single spaces, and argv[0]'s
 * basename. Either output may be NULL. Caller frees. */
int proc_cmdline(pid_t pid, char **ret_joined, char **ret_arg0);

/* The process's cgroup path in the named v1 controller ("cpu"), or the v2
 * path ("" controller) when no name is given. Caller frees. */
int proc_cgroup(pid_t pid, const char *controller, char **ret);

/* The threads of a process. *ret is allocated; caller frees. */
int proc_list_tasks(pid_t pid, pid_t **ret, size_t *ret_n);

/* All processes (numeric entries of /proc). Caller frees. */
int proc_list_pids(pid_t **ret, size_t *ret_n);

/* The slice the kernel reports in /proc/PID/task/TID/sched ("se.slice"), in
 * ns; -ENOENT on kernels without the field. */
int proc_sched_slice(pid_t pid, pid_t tid, uint64_t *ret);
