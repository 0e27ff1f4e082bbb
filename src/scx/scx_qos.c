/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scx_qos: load the scheduler of scx_qos.bpf.c, print its counters, and say
 * why it ended. Modelled on tools/sched_ext/scx_simple.c, without the
 * SCX_OPS_* macros of scx/compat.h: they exit(1) on any failure, and the
 * tests tell "could not load" (2) from "was ejected" (1).
 *
 * What tests rely on (scx_qos(8)): "scx_qos: loaded" once attached;
 * "scx_qos: stats k=v ..." lines; "scx_qos: exit: REASON" at the end;
 * exit 0 when stopped by a signal, 1 when the kernel ejected the scheduler,
 * 2 when it could not be loaded ("scx_qos: cannot load: WHY" on stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <scx/common.h>

#include "core/cpu-kinds.h"
#include "scx-qos-stats.h"
#include "scx_qos.bpf.skel.h"

#ifndef SCX_QOS_VERSION
#define SCX_QOS_VERSION "unknown"
#endif

#define SCX_SYSFS "/sys/kernel/sched_ext"
#define EXIT_EJECTED 1
#define EXIT_NOT_LOADED 2

/* include/linux/sched/ext.h's scx_exit_kind: the one we cause ourselves. */
#define SCX_EXIT_UNREG 64

typedef struct Options {
        unsigned stats_sec;
        unsigned timeout_ms;
        unsigned bg_guard_ms;
        unsigned util_guard_ms;
        unsigned error_after_ms;
        const char *stall_comm;
        const char *efficient_cpus;     /* NULL: from /sys */
        bool verbose;
} Options;

static const char *const stat_keys[] = {
#define SCX_QOS_STAT_KEY(id, key) key,
        SCX_QOS_STATS(SCX_QOS_STAT_KEY)
#undef SCX_QOS_STAT_KEY
};

static volatile sig_atomic_t exit_req;
static bool verbose;

static void on_signal(int sig) {
        exit_req = sig;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args) {
        if (level == LIBBPF_DEBUG && !verbose)
                return 0;
        return vfprintf(stderr, fmt, args);
}

static void help(void) {
        printf("Usage: scx_qos [OPTIONS]\n"
               "Run the sched_ext scheduler that knows qosd's four classes.\n\n"
               "  --stats SECONDS            print counters every SECONDS (0: only at exit)\n"
               "  --timeout-ms MS            sched_ext watchdog timeout (default 5000)\n"
               "  --bg-guard-ms MS           run background after MS without (default 100, 0: never)\n"
               "  --util-guard-ms MS         run utility after MS without (default 300, 0: never)\n"
               "  --efficient-cpus LIST      the efficient CPUs, e.g. 8-15 (default: what the kernel\n"
               "                             says; none: treat all CPUs alike)\n"
               "  --test-stall COMM          never run tasks named COMM (tests the watchdog)\n"
               "  --test-error-after-ms MS   fail with an error after MS (tests the fallback)\n"
               "  -v, --verbose              print libbpf's debug messages\n"
               "  -h, --help                 show this help\n"
               "  -V, --version              show the version\n");
}

static int parse_uint(const char *s, unsigned max, unsigned *ret) {
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || end == s || *end || s[0] == '-' || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int parse_options(int argc, char **argv, Options *o) {
        enum { OPT_STATS = 256, OPT_TIMEOUT, OPT_BG_GUARD, OPT_UTIL_GUARD,
               OPT_STALL, OPT_ERROR_AFTER, OPT_EFFICIENT };
        static const struct option longopts[] = {
                { "stats", required_argument, NULL, OPT_STATS },
                { "timeout-ms", required_argument, NULL, OPT_TIMEOUT },
                { "bg-guard-ms", required_argument, NULL, OPT_BG_GUARD },
                { "util-guard-ms", required_argument, NULL, OPT_UTIL_GUARD },
                { "test-stall", required_argument, NULL, OPT_STALL },
                { "test-error-after-ms", required_argument, NULL, OPT_ERROR_AFTER },
                { "efficient-cpus", required_argument, NULL, OPT_EFFICIENT },
                { "verbose", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {}
        };
        int c, r = 0;

        while ((c = getopt_long(argc, argv, "vhV", longopts, NULL)) >= 0) {
                switch (c) {
                case OPT_STATS:
                        r = parse_uint(optarg, 86400, &o->stats_sec);
                        break;
                case OPT_TIMEOUT:
                        /* sched_ext refuses more than 30 s (SCX_WATCHDOG_MAX_TIMEOUT). */
                        r = parse_uint(optarg, 30000, &o->timeout_ms);
                        if (!r && o->timeout_ms == 0)
                                r = -EINVAL;
                        break;
                case OPT_BG_GUARD:
                        r = parse_uint(optarg, 60000, &o->bg_guard_ms);
                        break;
                case OPT_UTIL_GUARD:
                        r = parse_uint(optarg, 60000, &o->util_guard_ms);
                        break;
                case OPT_STALL:
                        o->stall_comm = optarg;
                        if (!optarg[0] || strlen(optarg) >= 16)
                                r = -EINVAL;
                        break;
                case OPT_ERROR_AFTER:
                        r = parse_uint(optarg, UINT_MAX / 2, &o->error_after_ms);
                        if (!r && o->error_after_ms == 0)
                                r = -EINVAL;
                        break;
                case OPT_EFFICIENT:
                        o->efficient_cpus = optarg;
                        break;
                case 'v':
                        o->verbose = true;
                        break;
                case 'h':
                        help();
                        exit(0);
                case 'V':
                        printf("scx_qos %s\n", SCX_QOS_VERSION);
                        exit(0);
                default:
                        return -EINVAL;
                }
                if (r < 0) {
                        fprintf(stderr, "scx_qos: invalid argument for --%s: %s\n",
                                longopts[c - OPT_STATS].name, optarg);
                        return r;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "scx_qos: unexpected argument: %s\n", argv[optind]);
                return -EINVAL;
        }
        return 0;
}

/* Which CPUs are efficient: the kernel's word (qosd's cpu-kinds, which
 * qosd also passes with --efficient-cpus, its settings included), or the
 * option's. Printed, so the log says what placement is based on. -ENODEV
 * if the CPUs cannot be read, -EINVAL for a list that names none of them
 * or all. */
static int efficient_cpus(const Options *o, CpuMask *ret) {
        CpuKinds k;
        char buf[256];
        int r;

        r = cpu_kinds_read("/sys", &k);
        if (r < 0)
                return -ENODEV;
        if (o->efficient_cpus && strcmp(o->efficient_cpus, "none") == 0)
                k.efficient = (CpuMask) {};
        else if (o->efficient_cpus) {
                const char *bad;
                r = cpu_kinds_override(&k, o->efficient_cpus, NULL, &bad);
                if (r < 0)
                        return r;
        }
        if (!cpu_kinds_hybrid(&k))
                k.efficient = (CpuMask) {};
        *ret = k.efficient;
        if (cpu_mask_is_empty(ret))
                printf("scx_qos: cpus: all alike\n");
        else
                printf("scx_qos: cpus: %s (%s)\n", cpu_kinds_describe(&k, buf, sizeof buf),
                       o->efficient_cpus ? "--efficient-cpus" : k.why);
        return 0;
}

static int read_sysfs(const char *name, char *buf, size_t size) {
        char path[128];
        FILE *f;

        snprintf(path, sizeof(path), SCX_SYSFS "/%s", name);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        if (!fgets(buf, size, f))
                buf[0] = '\0';
        fclose(f);
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

/* Why this machine cannot take a scheduler now; NULL if it can. */
static const char *cannot_load_reason(char *buf, size_t size) {
        char state[64], ops[64];

        if (geteuid() != 0)
                return "not root (loading a scheduler needs CAP_SYS_ADMIN and CAP_BPF)";
        if (access(SCX_SYSFS, F_OK) < 0)
                return "this kernel has no sched_ext (" SCX_SYSFS " is missing: CONFIG_SCHED_CLASS_EXT)";
        if (read_sysfs("state", state, sizeof(state)) < 0)
                return "cannot read " SCX_SYSFS "/state";
        if (strcmp(state, "disabled") != 0) {
                if (read_sysfs("root/ops", ops, sizeof(ops)) < 0)
                        snprintf(ops, sizeof(ops), "?");
                snprintf(buf, size, "another scheduler is loaded (state %s, ops %s)", state, ops);
                return buf;
        }
        return NULL;
}

static void read_stats(struct scx_qos *skel, unsigned long long *totals) {
        int nr_cpus = libbpf_num_possible_cpus();
        unsigned long long per_cpu[nr_cpus > 0 ? nr_cpus : 1];

        for (__u32 i = 0; i < SCX_QOS_NR_STATS; i++) {
                totals[i] = 0;
                if (nr_cpus <= 0 || bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &i, per_cpu) < 0)
                        continue;
                for (int cpu = 0; cpu < nr_cpus; cpu++)
                        totals[i] += per_cpu[cpu];
        }
}

static void print_stats(struct scx_qos *skel) {
        unsigned long long totals[SCX_QOS_NR_STATS];

        read_stats(skel, totals);
        printf("scx_qos: stats");
        for (int i = 0; i < SCX_QOS_NR_STATS; i++)
                printf(" %s=%llu", stat_keys[i], totals[i]);
        printf("\n");
        fflush(stdout);
}

static void sleep_ms(unsigned ms) {
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
        nanosleep(&ts, NULL); /* a signal cuts it short, which is what we want */
}

static struct scx_qos *open_skel(const Options *o, const CpuMask *efficient) {
        struct scx_qos *skel = scx_qos__open();
        char seq[32];

        if (!skel)
                return NULL;
        _Static_assert(sizeof skel->rodata->efficient_cpus >= sizeof efficient->w, "CPU bitmap too small");
        memcpy((void *) skel->rodata->efficient_cpus, efficient->w, sizeof efficient->w);
        skel->rodata->have_efficient = !cpu_mask_is_empty(efficient);
        /* A CPU coming or going between here and attach makes the kernel
         * refuse the load instead of running on stale topology. */
        if (read_sysfs("hotplug_seq", seq, sizeof(seq)) == 0)
                skel->struct_ops.qos_ops->hotplug_seq = strtoull(seq, NULL, 10);
        skel->struct_ops.qos_ops->timeout_ms = o->timeout_ms;
        skel->rodata->bg_guard_ns = o->bg_guard_ms * 1000000ULL;
        skel->rodata->util_guard_ns = o->util_guard_ms * 1000000ULL;
        skel->rodata->error_after_ns = o->error_after_ms * 1000000ULL;
        if (o->stall_comm)
                strncpy((char *) skel->rodata->stall_comm, o->stall_comm,
                        sizeof(skel->rodata->stall_comm) - 1);
        UEI_SET_SIZE(skel, qos_ops, uei);
        return skel;
}

static int cannot_load(const char *fmt, ...) {
        va_list ap;

        fputs("scx_qos: cannot load: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return EXIT_NOT_LOADED;
}

/* Runs one load of the scheduler; sets *restart when the kernel asks for one. */
static int run(const Options *o, bool *restart) {
        struct user_exit_info *uei;
        struct bpf_link *link;
        struct scx_qos *skel;
        CpuMask efficient;
        const char *why;
        char buf[256];
        unsigned waited = 0;
        int r;

        *restart = false;
        why = cannot_load_reason(buf, sizeof(buf));
        if (why)
                return cannot_load("%s", why);
        r = efficient_cpus(o, &efficient);
        if (r == -ENODEV)
                return cannot_load("cannot read the CPUs from /sys/devices/system/cpu");
        if (r < 0)
                return cannot_load("--efficient-cpus %s: not a list of this machine's CPUs, or all of them",
                                   o->efficient_cpus);
        skel = open_skel(o, &efficient);
        if (!skel)
                return cannot_load("cannot open the BPF object: %s", strerror(errno));
        r = scx_qos__load(skel);
        if (r < 0) {
                scx_qos__destroy(skel);
                return cannot_load("the kernel refused the BPF program (verifier log above): %s",
                                   strerror(-r));
        }
        bpf_map__set_autoattach(skel->maps.qos_ops, false);
        link = bpf_map__attach_struct_ops(skel->maps.qos_ops);
        if (!link) {
                r = -errno;
                uei = &skel->data->uei;
                if (uei->kind) /* ops.init failed, or the kernel refused the ops */
                        cannot_load("%s%s%s", uei->reason, uei->msg[0] ? ": " : "", uei->msg);
                else if (r == -EBUSY || r == -EEXIST)
                        cannot_load("another scheduler was loaded meanwhile");
                else
                        cannot_load("attach failed: %s", strerror(-r));
                scx_qos__destroy(skel);
                return EXIT_NOT_LOADED;
        }

        printf("scx_qos: loaded\n");
        fflush(stdout);

        while (!exit_req && !UEI_EXITED(skel, uei)) {
                sleep_ms(100);
                waited += 100;
                if (o->stats_sec && waited >= o->stats_sec * 1000) {
                        waited = 0;
                        print_stats(skel);
                }
        }

        /* Detaching is synchronous: ops.exit has run when it returns. */
        bpf_link__destroy(link);
        print_stats(skel);
        uei = &skel->data->uei;
        if (skel->data_uei_dump->uei_dump[0])
                fprintf(stderr, "scx_qos: kernel dump:\n%s\n", skel->data_uei_dump->uei_dump);
        printf("scx_qos: exit: %s%s%s\n", uei->reason[0] ? uei->reason : "unknown",
               uei->msg[0] ? ": " : "", uei->msg);
        fflush(stdout);

        r = uei->kind == SCX_EXIT_UNREG ? 0 : EXIT_EJECTED;
        *restart = !exit_req && UEI_ECODE_RESTART(uei->exit_code);
        scx_qos__destroy(skel);
        return r;
}

int main(int argc, char **argv) {
        Options o = { .timeout_ms = 5000, .bg_guard_ms = 100, .util_guard_ms = 300 };
        struct sigaction sa = { .sa_handler = on_signal };
        bool restart;
        int r;

        if (parse_options(argc, argv, &o) < 0) {
                fprintf(stderr, "Try 'scx_qos --help'.\n");
                return EXIT_NOT_LOADED;
        }
        verbose = o.verbose;
        libbpf_set_print(print_libbpf);
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);

        /* The kernel asks for a restart when CPUs come or go (hotplug). */
        do
                r = run(&o, &restart);
        while (restart && !exit_req);
        return r;
}
