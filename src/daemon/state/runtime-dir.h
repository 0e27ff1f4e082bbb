/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The runtime directory (/run/qos) as qosd trusts it. Its files steer what
 * qosd does to other users' threads after a crash, so qosd reads and
 * writes them only where nobody else can put or change a file: the
 * directory must belong to qosd's own user and be writable by nobody
 * else, and the files are opened through the directory's descriptor
 * without following symbolic links. Each refusal comes with a sentence
 * that says why (for the journal and `qosctl status`). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-event.h>

/* While records cannot be written, this often qosd tries again. */
#define RUNTIME_RETRY_USEC (2ull * 1000 * 1000)

/* Arm *retry (made on first use, one-shot) to call handler in
 * RUNTIME_RETRY_USEC; a timer already armed is pushed back. */
void runtime_retry_arm(sd_event *event, sd_event_source **retry, sd_event_time_handler_t handler,
                       void *userdata);

/* Open the directory (creating it and its parents, mode 0755, if create)
 * and check its owner and mode. Returns the descriptor, or a negative
 * errno with why filled: -EPERM for a directory someone else could write. */
int runtime_dir_open(const char *dir, bool create, char *why, size_t size);

/* "/run/qos/units" -> "/run/qos", "units" (both to free); -EINVAL for a
 * path without a file name. */
int runtime_path_split(const char *path, char **ret_dir, char **ret_name);
/* runtime_dir_open() for the directory of a file's path (created if create); the
 * file's name in *ret_name (to free). */
int runtime_path_open(const char *path, bool create, char **ret_name, char *why, size_t size);

/* Check what stands at name in the directory: 0 if nothing or a regular
 * file of qosd's user; -ELOOP for a symbolic link, -EPERM for another
 * owner, -EINVAL for anything but a regular file, with why filled. */
int runtime_file_check(int dirfd, const char *name, char *why, size_t size);

/* Open name for reading (O_NOFOLLOW), checked as above; -ENOENT if absent. */
int runtime_file_open_read(int dirfd, const char *name, char *why, size_t size);

/* The file at path for reading as a stream, its directory and itself
 * checked as above; NULL with *ret (and why) set if not: -ENOENT if absent. */
FILE *runtime_path_fopen_read(const char *path, char *why, size_t size, int *ret);

/* Open name for appending, creating it (mode 0600), checked as above. */
int runtime_file_open_append(int dirfd, const char *name, char *why, size_t size);

/* A new file to take the place of name: created exclusively as
 * "name.tmp" (a stale one is removed first); returns its descriptor. */
int runtime_file_new(int dirfd, const char *name, char *why, size_t size);
/* Move the new file over name (rename(2): readers see the old file or
 * the new one, never a part); on failure the new file is removed. */
int runtime_file_commit(int dirfd, const char *name, char *why, size_t size);
void runtime_file_discard(int dirfd, const char *name);
