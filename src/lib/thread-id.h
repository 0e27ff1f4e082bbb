/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which kernel thread a caller means: a pthread_t's TID, and whether a TID
 * is a thread of this process. */
#pragma once

#include <pthread.h>
#include <sys/types.h>

/* The TID behind a thread handle; -ESRCH if the thread has exited. */
int thread_id_from_pthread(pthread_t thread, pid_t *ret);

/* 0 if tid is a live thread of the calling process, -ESRCH otherwise. */
int thread_id_check_own(pid_t tid);
