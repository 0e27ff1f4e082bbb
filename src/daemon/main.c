/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qosd: wiring only. Options and settings, then the event loop with the
 * proc connector, the rules, the bus and the signals; see qosd(8). */
#include <errno.h>
#include <grp.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "scheduler/bpf-scheduler.h"
#include "broker/broker.h"
#include "bus/bus-link.h"
#include "engine/event-handler.h"
#include "focus/focus.h"
#include "groups/groups.h"
#include "groups/units.h"
#include "config/cpu-kinds-conf.h"
#include "power/power.h"
#include "core/kernel-caps.h"
#include "core/log.h"
#include "core/macro.h"
#include "state/manager.h"
#include "qos-config.h"
#include "reload/reload.h"
#include "engine/renames.h"
#include "engine/scan.h"
#include "overrides/override-book.h"
#include "overrides/overrides.h"
#include "core/sched-profile.h"
#include "core/task-apply.h"
#include "control/task-control.h"
#include "core/task-ref.h"

#define STATE_FILE QOS_RUNTIME_DIR "/qosd.state"
#define LOANS_FILE QOS_RUNTIME_DIR "/qosd.loans"
#define SETTINGS_FILE QOS_ADMIN_DIR "/qosd.conf"

typedef struct Options {
        const char *root, *sys_root, *bus_address, *config, *log_level;
        bool no_bus;
        int restore;            /* -1: from the settings */
        int receive_buffer;     /* 0: from the settings */
} Options;

static void help(void) {
        printf("Usage: qosd [OPTIONS]\n\n"
               "Give every thread the QoS class its rules say, from the moment it appears.\n\n"
               "  -R, --root DIR          prefix for " QOS_ADMIN_DIR ", " QOS_VENDOR_DIR ",\n"
               "                          " QOS_RUNTIME_DIR " (also $QOS_ROOT)\n"
               "      --config FILE       daemon settings (default ROOT" SETTINGS_FILE ")\n"
               "      --sys-root DIR      prefix for the profile files and sched_ext's state\n"
               "                          in /sys (default: ROOT)\n"
               "      --bus-address ADDR  D-Bus address (default: the system bus,\n"
               "                          $DBUS_SYSTEM_BUS_ADDRESS)\n"
               "      --no-bus            do not connect to D-Bus\n"
               "      --log-level LEVEL   err, warning, notice, info, debug\n"
               "      --receive-buffer N  proc connector socket buffer in bytes\n"
               "      --restore-on-exit=yes|no  override RestoreOnExit=\n"
               "  -h, --help              show this help\n"
               "  -V, --version           show the version\n\n"
               "See qosd(8).\n");
}

static int parse_options(int argc, char **argv, Options *o) {
        enum { OPT_CONFIG = 256, OPT_SYS_ROOT, OPT_BUS, OPT_NO_BUS, OPT_LOG, OPT_RCVBUF, OPT_RESTORE };
        static const struct option opts[] = {
                { "root", required_argument, NULL, 'R' },
                { "config", required_argument, NULL, OPT_CONFIG },
                { "sys-root", required_argument, NULL, OPT_SYS_ROOT },
                { "bus-address", required_argument, NULL, OPT_BUS },
                { "no-bus", no_argument, NULL, OPT_NO_BUS },
                { "log-level", required_argument, NULL, OPT_LOG },
                { "receive-buffer", required_argument, NULL, OPT_RCVBUF },
                { "restore-on-exit", required_argument, NULL, OPT_RESTORE },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {},
        };
        int c;

        *o = (Options) { .root = getenv("QOS_ROOT"), .restore = -1 };
        while ((c = getopt_long(argc, argv, "R:hV", opts, NULL)) >= 0) {
                switch (c) {
                case 'R':
                        o->root = optarg;
                        break;
                case OPT_CONFIG:
                        o->config = optarg;
                        break;
                case OPT_SYS_ROOT:
                        o->sys_root = optarg;
                        break;
                case OPT_BUS:
                        o->bus_address = optarg;
                        break;
                case OPT_NO_BUS:
                        o->no_bus = true;
                        break;
                case OPT_LOG:
                        if (log_level_from_string(optarg) < 0) {
                                fprintf(stderr, "qosd: invalid log level '%s'\n", optarg);
                                return 2;
                        }
                        o->log_level = optarg;
                        break;
                case OPT_RCVBUF:
                        o->receive_buffer = atoi(optarg);
                        if (o->receive_buffer < 4096) {
                                fprintf(stderr, "qosd: --receive-buffer needs at least 4096 bytes\n");
                                return 2;
                        }
                        break;
                case OPT_RESTORE:
                        if (strcmp(optarg, "yes") == 0)
                                o->restore = 1;
                        else if (strcmp(optarg, "no") == 0)
                                o->restore = 0;
                        else {
                                fprintf(stderr, "qosd: --restore-on-exit takes yes or no\n");
                                return 2;
                        }
                        break;
                case 'h':
                        help();
                        return 0;
                case 'V':
                        printf("qosd %s\n", QOS_VERSION);
                        return 0;
                default:
                        return 2;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "qosd: unexpected argument '%s'\n", argv[optind]);
                return 2;
        }
        return -1;
}

static int on_terminate(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        log_info("signal %d: stopping", (int) si->ssi_signo);
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

static int on_hangup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        log_info("SIGHUP: reloading rules");
        reload_rules(userdata, false);
        return 0;
}

static int on_periodic(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        scan_all(m, "periodic");
        groups_tidy(m);
        sd_event_source_set_time_relative(s, m->settings.scan_interval_usec);
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

/* Records of the previous run that the first scan did not claim: tasks
 * qosd changed that no rule covers now. They go back to their originals
 * (if nobody else changed them meanwhile). */
static void recover_leftovers(Manager *m) {
        size_t i = 0, n = 0;
        void *v;
        while (pid_map_next(&m->recovered, &i, NULL, &v)) {
                StateRecord *rec = v;
                TaskRef ref;
                TaskEntry *e;
                if (task_ref_open(rec->tid, rec->start_time, &ref) < 0)
                        continue; /* gone, or its TID belongs to another task now */
                task_ref_close(&ref);
                if (registry_add(&m->tasks, rec->tid, 0, rec->start_time, &e) < 0)
                        continue;
                e->class = rec->class;
                e->orig = rec->orig;
                e->set = rec->set;
                e->state = TASK_APPLIED;
                e->recovered = true;
                m->counters.recovered++;
                control_restore(m, e, "recovered, no rule covers it now");
                n++;
        }
        state_records_free(&m->recovered);
        if (n > 0)
                log_info("recovered %zu task(s) from the previous run that no rule covers now", n);
}

/* The foreground gate moved (focus.h only says so): the rules and the
 * held requests of the processes it moved, or of all. */
static void on_gate_moved(Manager *m, const pid_t *pids, size_t n, const char *why) {
        if (!pids)
                scan_all(m, why);
        for (size_t i = 0; pids && i < n; i++)
                scan_process(m, pids[i], SCAN_REEVALUATE);
        broker_reevaluate(m, why);
}

/* The previous run's records (crash recovery) and this run's files.
 * Neither an unreadable nor an unwritable state file stops qosd: it
 * applies classes without crash recovery and says so. */
static int open_state_files(Manager *m) {
        _cleanup_free_ char *state = manager_path(m, STATE_FILE), *loans = manager_path(m, LOANS_FILE);
        int r;

        if (!state || !loans)
                return -ENOMEM;
        (void) state_file_load(state, &m->recovered);
        if (pid_map_size(&m->recovered) > 0)
                log_info("%s: %zu task(s) changed by a previous run; recovering their originals", state,
                         pid_map_size(&m->recovered));
        r = state_file_open(&m->state, state, &m->tasks, m->event);
        if (r < 0)
                return r;
        /* Loans end with the qosd that held them: their threads back at
         * their bases first, so that the records above find what they set. */
        (void) override_log_recover(loans);
        r = state_file_open_with(&m->loans_state, loans, override_log_write, m, m->event);
        if (r < 0)
                return r;
        (void) state_file_rewrite(&m->loans_state);
        return 0;
}

static int watch_signals(Manager *m) {
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigaddset(&mask, SIGCHLD); /* sd-event's child sources (bpf-scheduler.c) need it blocked */
        sigprocmask(SIG_BLOCK, &mask, NULL);
        if ((r = sd_event_add_signal(m->event, NULL, SIGTERM, on_terminate, m)) < 0 ||
            (r = sd_event_add_signal(m->event, NULL, SIGINT, on_terminate, m)) < 0 ||
            (r = sd_event_add_signal(m->event, NULL, SIGHUP, on_hangup, m)) < 0)
                return log_error_errno(r, "cannot watch signals: %m");
        return 0;
}

/* Profile= of qosd.conf: the kernel scheduler's tunables. */
static void switch_profile(Manager *m) {
        _cleanup_free_ char *report = NULL;
        int r = sched_profile_switch(&m->profile, m->sys_root, m->settings.profile, &report);
        if (r == -EINVAL)
                log_error("Profile=%s: unknown profile (valid: %s), ignored", m->settings.profile,
                          sched_profile_names());
        else if (r >= 0) {
                log_info("profile %s:", m->settings.profile);
                for (char *line, *rest = report; (line = strsep(&rest, "\n"));)
                        if (*line)
                                log_info("%s", line);
        }
}

static int setup(Manager *m, const Options *o) {
        static const EventSourceOps ops = {
                .event = manager_on_proc_event,
                .lost = manager_on_events_lost,
        };
        int r;

        r = sd_event_default(&m->event);
        if (r < 0)
                return log_error_errno(r, "cannot create the event loop: %m");
        r = open_state_files(m);
        if (r >= 0)
                r = watch_signals(m);
        if (r < 0)
                return r;

        /* Listen first, then scan: a process started in between is seen by
         * both, never by neither. */
        r = event_source_new(m->event, m->settings.receive_buffer, m->settings.event_rest_usec, &ops, m, &m->source);
        if (r >= 0)
                r = reload_rules(m, true);
        if (r >= 0)
                r = units_start(m);
        m->gate_moved = on_gate_moved;
        if (r >= 0)
                r = focus_start(m);
        if (r >= 0)
                r = scan_all(m, "start");
        if (r < 0)
                return r;
        recover_leftovers(m);
        groups_recover(m);
        units_recover(m);
        state_file_compact(&m->state, &m->tasks);

        if (!o->no_bus) {
                r = bus_link_start(m, o->bus_address);
                if (r < 0)
                        return r;
        }
        if (m->settings.watch_config)
                reload_watch(m);
        if (m->settings.scan_interval_usec > 0) {
                r = sd_event_add_time_relative(m->event, &m->periodic_timer, CLOCK_MONOTONIC,
                                               m->settings.scan_interval_usec, 0, on_periodic, m);
                if (r < 0)
                        return log_error_errno(r, "cannot arm the periodic scan: %m");
        }
        if (m->settings.profile)
                switch_profile(m);
        /* Last: the rules already apply whatever the CPU scheduler does. */
        (void) bpf_scheduler_apply(m);
        return 0;
}

static void teardown(Manager *m) {
        m->exiting = true;
        bpf_scheduler_free(m);
        units_stop(m, m->settings.restore_on_exit);
        if (m->settings.restore_on_exit) {
                size_t n = control_restore_all(m);
                log_info("restored %zu thread(s) to their original settings", n);
                state_file_remove(&m->state);
        } else {
                /* Left as they are; the state file lets a later qosd restore them. */
                state_file_compact(&m->state, &m->tasks);
                log_info("leaving %zu thread(s) with their classes (RestoreOnExit=no)",
                         registry_size(&m->tasks));
        }
        /* Out of the user-interactive group it took at start, so that the
         * group can go with the others emptied by exiting threads. */
        ApplyResult self;
        (void) task_apply_attr(gettid(), &m->self_orig, KNOB_BIT(KNOB_GROUP), &self);
        groups_tidy(m);
        sched_profile_restore(m->profile);
        m->profile = NULL;
        overrides_free(m);
        state_file_remove(&m->loans_state); /* every loan ended, every owner restored */
        bus_link_stop(m);
        focus_free(m);
        power_free(m);
        reload_free(m);
        event_source_free(m->source);
        sd_event_source_disable_unref(m->rescan_timer);
        renames_free(m);
        sd_event_source_disable_unref(m->periodic_timer);
        sd_event_unref(m->event);
        registry_clear(&m->tasks);
        process_table_clear(&m->procs);
        state_records_free(&m->recovered);
        state_file_close(&m->state);
        state_file_close(&m->loans_state);
        ruleset_free(m->rules);
        user_dirs_free(&m->user_dirs);
        reload_status_clear(&m->last_reload);
        settings_done(&m->settings);
}

/* Which CPUs background may be confined to: read once, at start. */
static void use_cpu_kinds(const Manager *m) {
        CpuKinds k;
        const char *bad = NULL;
        char buf[512];
        if (cpu_kinds_from_settings("/sys", &m->settings, &k, &bad) < 0)
                log_warning("%s: %s= names no CPU of this machine, or overlaps the other list; the kernel's word "
                            "stands", m->settings_path, bad);
        log_info("cpus: %s (%s)", cpu_kinds_describe(&k, buf, sizeof buf), k.why);
        kernel_caps_use_cpu_kinds(&k);
}

int main(int argc, char **argv) {
        Manager m = { .state.fd = -1, .loans_state.fd = -1 }; /* not open yet */
        Options o;
        int r;

        r = parse_options(argc, argv, &o);
        if (r >= 0)
                return r;
        /* The proc connector, other users' threads, /run/qos: nothing qosd
         * does works for another user, so say so before anything is tried.
         * Only the uid counts: root without some capabilities is a setup
         * qosd serves, saying what it cannot do. */
        if (geteuid() != 0) {
                fprintf(stderr, "qosd: must run as root (it changes the scheduling of every user's threads)\n");
                return EXIT_FAILURE;
        }
        kernel_caps_probe_rt_groups(true); /* before anything asks kernel_caps() */
        m.root = o.root && *o.root && strcmp(o.root, "/") != 0 ? (char *) o.root : NULL;
        m.sys_root = o.sys_root ? (char *) o.sys_root : m.root;

        settings_init(&m.settings);
        _cleanup_free_ char *conf = o.config ? strdup(o.config) : manager_path(&m, SETTINGS_FILE);
        if (!conf || settings_load(&m.settings, conf) < 0)
                return EXIT_FAILURE;
        m.settings_path = conf;
        if (o.log_level)
                m.settings.log_level = log_level_from_string(o.log_level);
        if (o.restore >= 0)
                m.settings.restore_on_exit = o.restore;
        if (o.receive_buffer > 0)
                m.settings.receive_buffer = o.receive_buffer;
        log_set_max_level(m.settings.log_level);

        /* Users' rule files are read with their file-system uid and gid
         * (user-rules.c); root's supplementary groups would still let them
         * point at group-readable files, and qosd needs none. */
        if (setgroups(0, NULL) < 0)
                log_debug_errno(errno, "cannot drop supplementary groups: %m");
        if (m.settings.user_rules && user_identity_check() < 0) {
                m.user_rules_off = true;
                log_warning("per-user rules are off: qosd cannot read files as their user "
                            "(it needs CAP_SETUID and CAP_SETGID, and no supplementary groups)");
        }

        use_cpu_kinds(&m);
        const KernelCaps *caps = kernel_caps();
        for (Knob k = 0; k < _KNOB_MAX; k++)
                if (!caps->supported[k])
                        log_info("kernel: %s not available (%s); classes apply without it",
                                 knob_to_string(k), kernel_caps_reason(caps, k));

        /* qosd's own work is microseconds per event, and every microsecond
         * it waits behind busy threads a new thread runs without its class:
         * it takes the latency class itself (reset-on-fork: not inherited). */
        ApplyResult self;
        r = task_apply_class(gettid(), QCLASS_USER_INTERACTIVE, &self);
        if (r < 0 || !apply_result_ok(&self))
                log_debug("could not give qosd itself the user-interactive class");
        if (r >= 0)
                m.self_orig = self.before;
        else
                (void) task_attr_read(gettid(), &m.self_orig);

        r = setup(&m, &o);
        if (r >= 0) {
                sd_notifyf(0, "READY=1\nSTATUS=Managing %zu threads with %zu rules",
                           registry_size(&m.tasks), m.rules ? ruleset_size(m.rules) : 0);
                log_info("ready: %zu rules, %zu threads managed, receive buffer %d bytes",
                         m.rules ? ruleset_size(m.rules) : 0, registry_size(&m.tasks),
                         event_source_rcvbuf(m.source));
                r = sd_event_loop(m.event);
                sd_notify(0, "STOPPING=1");
        }
        teardown(&m);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
