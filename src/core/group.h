/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * qosd's scheduling groups: the part of a class that acts *between*
 * applications. Per-thread knobs order threads only inside the group they
 * compete in; with autogroup every session is such a group, and a cgroup
 * with the cpu controller is one too. So a class also names a cpu cgroup
 * that qosd owns, one per class that has group fields in the class table,
 * directly below the root of the hierarchy cgroup-probe.h chose:
 *
 *     <mount>/<prefix>.<class>      e.g. /sys/fs/cgroup/cpu/qos.background
 *
 * Directly below the root, because a group's share is taken at its
 * parent's level: an idle group inside a "qos" parent would be idle only
 * against its siblings, and the parent would compete like any session.
 * Utility has no group: its threads stay where the kernel put them (the
 * root, so their session's autogroup), and an untouched system is unchanged.
 *
 * Only threads in the root cgroup are ever moved. A thread in any other
 * cgroup belongs to another manager (a systemd unit, a container); qosd
 * leaves it there and says so. So the original of a moved thread is always
 * the root or one of qosd's groups, which TaskAttr.group records exactly.
 *
 * Needs write access to the hierarchy (root). Errors are negative errno.
 * The prefix is "qos", or $QOS_CGROUP_PREFIX (letters, digits, '-', '_'),
 * so that tests and a second instance never touch the real groups.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/cgroup-probe.h"
#include "core/qclass.h"

typedef enum GroupPlace {
        GROUP_PLACE_ROOT,       /* the root cgroup: autogroup applies */
        GROUP_PLACE_QOS,        /* one of qosd's groups */
        GROUP_PLACE_FOREIGN,    /* a cgroup another manager owns */
} GroupPlace;

const char *group_prefix(void);

/* The directory of class c's group; -EINVAL if c has no group, -EOPNOTSUPP
 * if the machine has no usable cpu hierarchy. */
int group_dir(QClass c, char *buf, size_t size);
/* The same in the hierarchy cg describes (for the probe, which runs while
 * kernel_caps() is being made). */
int group_dir_in(const CgroupCaps *cg, QClass c, char *buf, size_t size);

/* Classify a cgroup path as /proc/TID/cgroup shows it ("/qos.background").
 * Pure. *ret_class is the group's class for GROUP_PLACE_QOS, else
 * QCLASS_UNSPECIFIED. */
GroupPlace group_classify(const char *path, const char *prefix, QClass *ret_class);

/* Where thread tid is now in the chosen hierarchy; ret_path (optional, to
 * free) is its cgroup path. -ESRCH if the thread is gone. */
int group_locate(pid_t tid, GroupPlace *ret_place, QClass *ret_class, char **ret_path);

/* Create class c's group if needed and give it the class's weight, idle
 * flag and real-time budget, each read back (-EOPNOTSUPP if the kernel kept
 * another value), and its utilization clamps where the kernel has them
 * (best effort: a kernel without them is reported once). */
int group_ensure(QClass c);

/* A clamp of the class table (0..1024) as cpu.uclamp.min/max take it: a
 * percentage with two decimals, "max" for 1024. Pure. */
const char *group_uclamp_percent(int value, char *buf, size_t size);

/* A group of ours was made on a kernel without cpu.uclamp.min/max
 * (CONFIG_UCLAMP_TASK_GROUP): the groups go without clamps. */
bool group_uclamp_missing(void);

/* Move one thread into class c's group (created if needed), or with
 * QCLASS_UNSPECIFIED back to the root. The caller has checked that the
 * thread is not in a foreign cgroup. -ESRCH if the thread is gone. */
int group_move(pid_t tid, QClass c);

/* Can a real-time thread live in qosd's groups? With CONFIG_RT_GROUP_SCHED
 * the kernel refuses SCHED_FIFO/RR (EPERM, to root too) to a thread whose
 * group has no real-time budget, and refuses to move a real-time thread
 * into one: rtkit could no longer make an audio thread real-time once
 * qosd had moved it. v1 gives each group a budget (best effort: another
 * manager may hold the parent's); cgroup v2 has no budget files at all.
 * So the calling thread (a throwaway one: it is moved and made real-time
 * for a moment) is put into each group and asks for SCHED_FIFO. 1: every
 * group can hold real-time threads; 0: one cannot; negative errno: could
 * not tell (the thread could not be moved there). The groups it made stay
 * if keep is true and they pass (for qosd, which uses them), else are
 * removed. Needs root. */
int group_rt_probe(const CgroupCaps *cg, bool keep);

/* Remove class c's group if no task is in it: 0 if removed or absent,
 * -EBUSY if it is in use. The kernel decides atomically, so a racing
 * group_move() sees ENOENT and recreates the group. */
int group_remove_if_empty(QClass c);

/* group_remove_if_empty() for every class; the number of groups left. */
int group_remove_all_empty(void);

/* After a crash: every task found in one of qosd's groups is offered to
 * keep (the daemon says whether a rule still wants it there); those it
 * does not keep (all, if keep is NULL) go back to the root, then empty
 * groups are removed. Per-thread knobs are not touched: keep may restore
 * them. Returns the number of tasks moved back. */
typedef bool (*GroupKeepFn)(pid_t tid, QClass group, void *userdata);
int group_recover(GroupKeepFn keep, void *userdata);

/* One sentence on where tid competes and what that means for class c,
 * for `qosctl` and `explain`: qosd's group, the root with or without
 * autogroup, or a foreign cgroup whose manager limits the class to
 * per-thread knobs. */
int group_describe(pid_t tid, QClass c, char *buf, size_t size);
