/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libqos-preload.so: classes from the rules at process start, at thread
 * creation and at rename, before qosd's events arrive. Its parts: the state
 * the constructor builds (read-only afterwards), applying a class to one
 * thread, the calls it wraps, and diagnostics that stay silent unless
 * QOS_PRELOAD_DEBUG asks for them. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "macro.h"
#include "qclass.h"

/* Why a thread is looked at; printed in diagnostics. */
typedef enum PreloadEvent {
        PRELOAD_EXEC,           /* the constructor, before main() */
        PRELOAD_START,          /* a new thread, before its start routine */
        PRELOAD_RENAME,         /* pthread_setname_np() or PR_SET_NAME */
        PRELOAD_FORK,           /* the child of fork() */
} PreloadEvent;

/* True once the constructor found a rule for this program: until then, and
 * for every program no rule matches, the wrappers only pass calls on. */
bool preload_active(void);

/* The class the rules give a thread of this process called name
 * (QCLASS_UNSPECIFIED: none). */
QClass preload_verdict(const char *name);

/* Give thread tid of this process (self: the caller) the class of its
 * current name, all or nothing; what needs privilege is left to qosd.
 * Never fails the caller: errno is kept, cancellation is held off, nothing
 * is allocated. */
void preload_apply(pid_t tid, bool self, PreloadEvent ev);

/* The fork() child handler: the new process's only thread. */
void preload_thread_starts_reset(void);

/* The next definitions of the calls we wrap (libc's, or another
 * preload's); NULL only if the C library lacks them. */
typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*pthread_setname_np_fn)(pthread_t, const char *);
typedef int (*prctl_fn)(int, unsigned long, unsigned long, unsigned long, unsigned long);
pthread_create_fn real_pthread_create(void);
pthread_setname_np_fn real_pthread_setname_np(void);
prctl_fn real_prctl(void);

/* Diagnostics: QOS_PRELOAD_DEBUG=1 (stderr) or =/absolute/file (appended,
 * opened for each line so that a program closing its descriptors cannot
 * make us write into one of its files). Ignored in setuid programs. */
void preload_log_init(void);
bool preload_log_enabled(void);
void preload_log(const char *fmt, ...) _printf_(1, 2);

const char *preload_event_to_string(PreloadEvent ev);
