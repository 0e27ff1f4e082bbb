/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Scheduler=qos: qosd runs the sched_ext loader scx_qos as its child and
 * keeps it running. The loader attaches the BPF scheduler and holds it;
 * when the loader dies, the kernel unloads the scheduler and the fair
 * class runs again, so the loader's life is the scheduler's.
 *
 * qosd starts it only where the kernel has sched_ext and no other BPF
 * scheduler is loaded, and only from a loader file that root owns and
 * only root may write (it runs as root): the file is checked through the
 * descriptor it is then executed from. An unexpected exit is logged and
 * the loader started again with backoff, at most 5 times a minute. The
 * loader gets SIGTERM when qosd dies (PR_SET_PDEATHSIG), and qosd stops it
 * (SIGTERM, SIGKILL after 2 s) on Scheduler=none and when it exits.
 */
#pragma once

#include "state/manager.h"

/* Act on Scheduler= and SchedulerPath= as m->settings has them, if they
 * differ from what was acted on before (at start: always). What cannot be
 * done is logged with the reason; qosd goes on without it. */
int bpf_scheduler_apply(Manager *m);

/* Read Scheduler= and SchedulerPath= again from m->settings_path (the
 * other settings stay as at start) and apply them; for reloads. */
void bpf_scheduler_reload(Manager *m);

/* At exit: stop the loader (waiting at most 2 s before SIGKILL), reap
 * it, log its last lines, and free everything. */
void bpf_scheduler_free(Manager *m);
