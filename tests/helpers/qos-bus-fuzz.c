/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fuzzer for qosd's D-Bus surface, against a live qosd: it introspects
 * org.qosd.QoS1 at /org/qosd/QoS1 and calls every method of every
 * interface there (a method qosd gains is fuzzed without changing this
 * file) with arguments generated from its signature by a seeded
 * generator (bus-fuzz-gen.c), now and then with a wrong signature or on
 * the wrong object; now and then it opens a new connection (qosd ends the
 * old one's overrides). After every call it checks (bus-fuzz-check.c):
 *   - qosd answers Ping within --answer-timeout (10 s);
 *   - no string of the reply or the error holds the marker, and ListTasks,
 *     ListLoans and Explain show another user's threads only as /proc
 *     would (qosd(8), "Questions anyone may ask");
 *   - no thread of this process is above --ceiling or in a cgroup of
 *     --cgroup-above (qosd's groups of the classes above it), and each
 *     thread of --victim-view is as it was.
 * On a violation it prints the seed, the call's number, method and
 * arguments and the evidence, and exits 1. Otherwise it prints a table of
 * calls per method and answers per error name and exits 0 (2: usage or
 * set-up). The threads fz-ui, fz-in, fz-ut and fz-bg only wait: they are
 * the caller's own targets for SetThreadClass and the overrides.
 *
 *   qos-bus-fuzz [--seed N] [--calls N | --seconds S] [--marker STR]
 *                [--ceiling "POLICY NICE SLICE"] [--cgroup-above PATH]...
 *                [--victim-tid TID]... [--victim-view "TID:POLICY NICE SLICE"]...
 *                [--log FILE] [--answer-timeout S] [--call-timeout S]
 *
 * The marker is taken from QOS_BUS_FUZZ_MARKER when --marker is not given:
 * qosd shows the fuzzer its own command line, which must not hold it.
 *
 * The same seed makes the same choices; the values taken from the running
 * system (TIDs, start times, IDs from replies) are the run's own.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "bus-fuzz-check.h"
#include "bus-fuzz-gen.h"
#include "bus-fuzz-methods.h"
#include "bus-fuzz-proc.h"
#include "bus-fuzz-stats.h"
#include "bus-fuzz-walk.h"
#include "core/bus-protocol.h"

#define USEC_PER_SEC 1000000ULL
#define VICTIMS_MAX 32
#define GROUPS_MAX 8
#define ARGS_SHOWN 4096

typedef struct Options {
        uint64_t seed;
        unsigned long calls;
        double seconds;
        const char *marker, *log;
        Victim victims[VICTIMS_MAX];
        size_t n_victims;
        bool has_ceiling;
        Triple ceiling;
        char *groups_above[GROUPS_MAX];
        size_t n_groups_above;
        double answer_timeout, call_timeout;
} Options;

#define RECENT_MAX 32
#define RECENT_LINE 640

typedef struct Fuzzer {
        const Options *opt;
        sd_bus *bus;
        MethodList methods;
        unsigned *weights;      /* cumulative, per method */
        Gen gen;
        Checker check;
        Stats stats;
        FILE *log;
        pid_t tid;              /* the calling thread */
        uint64_t start;
        char recent[RECENT_MAX][RECENT_LINE];   /* the last calls, for a violation's report */
        unsigned long n_recent;
} Fuzzer;

static volatile sig_atomic_t stopping;

static void on_stop(int sig) {
        stopping = 1;
}

/* --- the caller's own threads ---------------------------------------------- */

static const char *const thread_names[] = { "fz-ui", "fz-in", "fz-ut", "fz-bg" };
#define N_THREADS (sizeof thread_names / sizeof thread_names[0])
static pid_t thread_tids[N_THREADS];
static sem_t threads_started;
/* Addresses a lock override may name: qosd only compares them. */
static pthread_mutex_t locks[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };

static void *waiting_thread(void *arg) {
        size_t i = (size_t) arg;
        sigset_t stop;
        sigemptyset(&stop);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &stop, NULL); /* the calling thread stops the fuzz */
        prctl(PR_SET_NAME, thread_names[i]);
        thread_tids[i] = gettid();
        sem_post(&threads_started);
        for (;;)
                pause();
        return NULL;
}

static int start_threads(Gen *g) {
        sem_init(&threads_started, 0, 0);
        for (size_t i = 0; i < N_THREADS; i++) {
                pthread_t t;
                int r = pthread_create(&t, NULL, waiting_thread, (void *) i);
                if (r != 0)
                        return -r;
                pthread_detach(t);
        }
        for (size_t i = 0; i < N_THREADS; i++)
                sem_wait(&threads_started);
        for (size_t i = 0; i < N_THREADS; i++) {
                uint64_t start = 0;
                proc_start_ticks(thread_tids[i], &start);
                gen_add_tid(g, thread_tids[i], start, true);
        }
        gen_add_address(g, (uint64_t) (uintptr_t) &locks[0]);
        gen_add_address(g, (uint64_t) (uintptr_t) &locks[1]);
        return 0;
}

/* --- set-up ------------------------------------------------------------------- */

static void add_known_tid(Gen *g, pid_t tid) {
        uint64_t start = 0;
        if (tid > 0 && proc_start_ticks(tid, &start) >= 0)
                gen_add_tid(g, tid, start, false);
}

static int connect_bus(Fuzzer *f) {
        f->bus = sd_bus_flush_close_unref(f->bus);
        int r = sd_bus_open_system(&f->bus);
        if (r < 0)
                fprintf(stderr, "qos-bus-fuzz: cannot connect to the system bus: %s\n", strerror(-r));
        return r;
}

static int set_up(Fuzzer *f) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char missing[1024];
        int r;

        f->tid = gettid();
        proc_start_ticks(f->tid, &f->start);
        r = start_threads(&f->gen);
        if (r < 0)
                return r;
        gen_add_tid(&f->gen, f->tid, f->start, true);
        add_known_tid(&f->gen, 1);
        for (size_t i = 0; i < f->opt->n_victims; i++)
                add_known_tid(&f->gen, f->opt->victims[i].tid);

        r = connect_bus(f);
        if (r < 0)
                return r;
        sd_bus_creds *creds = NULL;
        pid_t qosd = 0;
        if (sd_bus_get_name_creds(f->bus, QOS_BUS_NAME, SD_BUS_CREDS_PID, &creds) >= 0 &&
            sd_bus_creds_get_pid(creds, &qosd) >= 0)
                add_known_tid(&f->gen, qosd);
        sd_bus_creds_unref(creds);

        r = methods_introspect(f->bus, QOS_BUS_NAME, QOS_BUS_PATH, &f->methods, &error);
        if (r < 0) {
                fprintf(stderr, "qos-bus-fuzz: cannot introspect %s %s: %s\n", QOS_BUS_NAME, QOS_BUS_PATH,
                        error.message ?: strerror(-r));
                sd_bus_error_free(&error);
                return r;
        }
        size_t n_missing = methods_missing_known(&f->methods, missing, sizeof missing);
        if (n_missing) {
                fprintf(stderr, "qos-bus-fuzz: %s %s does not have %zu of qosd's methods: %s\n", QOS_BUS_NAME,
                        QOS_BUS_PATH, n_missing, missing);
                return -ENOENT;
        }
        for (size_t i = 0; i < f->methods.n_interfaces; i++)
                gen_add_interface(&f->gen, f->methods.interfaces[i]);
        for (size_t i = 0; i < f->methods.n_properties; i++)
                gen_add_property(&f->gen, f->methods.properties[i]);

        /* qosd's own interfaces weigh more than sd-bus's standard ones. */
        f->weights = calloc(f->methods.n_methods, sizeof *f->weights);
        if (!f->weights)
                return -ENOMEM;
        for (size_t i = 0; i < f->methods.n_methods; i++) {
                const char *iface = f->methods.methods[i].interface;
                unsigned w = strcmp(iface, "org.freedesktop.DBus.Peer") == 0 ||
                             strcmp(iface, "org.freedesktop.DBus.Introspectable") == 0 ? 1 : 4;
                f->weights[i] = (i ? f->weights[i - 1] : 0) + w;
        }
        return 0;
}

/* --- one call ------------------------------------------------------------------ */

static const FuzzMethod *pick(Fuzzer *f) {
        uint64_t x = rng_below(&f->gen.rng, f->weights[f->methods.n_methods - 1]);
        size_t i = 0;
        while (f->weights[i] <= x)
                i++;
        return &f->methods.methods[i];
}

static int harvest(char type, const WalkValue *v, void *userdata) {
        Gen *g = userdata;
        if (type == 'i')
                gen_seen_int(g, v->i);
        else if (type == 't')
                gen_seen_u64(g, v->t);
        return 0;
}

/* The reply's out-arguments named *_id (BeginOverride's override_id): what
 * the arguments named so (EndOverride's) are given later. */
static void harvest_ids(Gen *g, const FuzzMethod *fm, sd_bus_message *reply) {
        if (sd_bus_message_rewind(reply, true) < 0)
                return;
        for (size_t k = 0; k < fm->n_out; k++) {
                const char *contents, *name = fm->out_names[k];
                char type, skip[260];
                if (sd_bus_message_peek_type(reply, &type, &contents) <= 0)
                        return;
                size_t n = strlen(name);
                uint64_t id;
                if (type == 't' && n >= 3 && strcmp(name + n - 3, "_id") == 0) {
                        if (sd_bus_message_read_basic(reply, 't', &id) < 0)
                                return;
                        gen_seen_id(g, id);
                        continue;
                }
                if (type == 'a')
                        snprintf(skip, sizeof skip, "a%s", contents);
                else if (type == 'r')
                        snprintf(skip, sizeof skip, "(%s)", contents);
                else
                        snprintf(skip, sizeof skip, "%c", type);
                if (sd_bus_message_skip(reply, skip) < 0)
                        return;
        }
}

/* A calling thread that the fuzz made background would crawl on a busy
 * machine: ask qosd for utility again (what the caller may always have). */
static void keep_running(Fuzzer *f) {
        Triple t;
        if (proc_triple(f->tid, &t) < 0 || (t.policy != SCHED_IDLE && t.policy != SCHED_BATCH && t.nice <= 0))
                return;
        sd_bus_message *reply = NULL;
        sd_bus_call_method(f->bus, QOS_BUS_NAME, QOS_BUS_PATH, QOS_BUS_INTERFACE, QOS_BUS_METHOD_SET_THREAD_CLASS,
                           NULL, &reply, QOS_BUS_SIGNATURE_SET_THREAD_CLASS, (int32_t) f->tid, f->start, "utility",
                           (int32_t) 0);
        sd_bus_message_unref(reply);
        f->stats.restores++;
}

static void format_args(sd_bus_message *call, char *buf, size_t size) {
        if (walk_format(call, buf, size) < 0 && !*buf)
                snprintf(buf, size, "(not printable)");
}

static void report(Fuzzer *f, unsigned long n, const char *method, const char *sig, const char *path,
                   sd_bus_message *call, const char *answer) {
        char *args = malloc(ARGS_SHOWN);
        if (args)
                format_args(call, args, ARGS_SHOWN);
        printf("VIOLATION at call %lu (seed %" PRIu64 ")\n"
               "  method:   %s on %s\n"
               "  args:     (%s) %s\n"
               "  answer:   %s\n"
               "  evidence: %s\n", n, f->opt->seed, method, path, sig, args ?: "?", answer, f->check.evidence);
        printf("  the calls before it, oldest first:\n");
        unsigned long first = f->n_recent > RECENT_MAX ? f->n_recent - RECENT_MAX : 0;
        for (unsigned long i = first; i + 1 < f->n_recent; i++)
                printf("    %s\n", f->recent[i % RECENT_MAX]);
        if (f->log)
                fprintf(f->log, "VIOLATION: %s\n", f->check.evidence);
        free(args);
}

/* snprintf for lines that are cut on purpose. */
static void cut_printf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cut_printf(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, size, fmt, ap);
        va_end(ap);
}

/* One line per call: in the ring of recent calls, and in the log. */
static void note_call(Fuzzer *f, unsigned long n, const char *method, const char *path, const char *sig,
                      sd_bus_message *call, const char *answer, sd_bus_message *reply) {
        char args[1024], out[512] = "";
        format_args(call, args, sizeof args);
        cut_printf(f->recent[f->n_recent++ % RECENT_MAX], RECENT_LINE, "%lu %s%s%s (%s) %.300s -> %.200s", n,
                 method, strcmp(path, QOS_BUS_PATH) ? " on " : "", strcmp(path, QOS_BUS_PATH) ? path : "", sig,
                 args, answer);
        if (!f->log)
                return;
        if (reply)
                walk_format(reply, out, sizeof out);
        fprintf(f->log, "%lu %s on %s (%s) %s -> %s%s%s\n", n, method, path, sig, args, answer, *out ? " " : "",
                out);
}

/* 0: go on, 1: a violation (reported), <0: the fuzzer cannot go on. */
static int call_one(Fuzzer *f, unsigned long n) {
        /* Now and then a new connection: qosd ends the old one's overrides.
         * Rarely enough that a connection reaches its limit of overrides
         * first (some 500 are granted in 20,000 calls). */
        if (rng_one_in(&f->gen.rng, 20000)) {
                int r = connect_bus(f);
                if (r < 0)
                        return r;
                f->stats.new_connections++;
        }
        const FuzzMethod *fm = pick(f);
        sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char method[512], sig[256], answer[700];
        const char *path = QOS_BUS_PATH;
        int r;

        snprintf(method, sizeof method, "%s.%s", fm->interface, fm->member);
        snprintf(sig, sizeof sig, "%s", fm->signature);
        bool mutated = rng_one_in(&f->gen.rng, 8);
        if (mutated)
                gen_signature(&f->gen, sig, sizeof sig);
        if (rng_one_in(&f->gen.rng, 64))
                path = rng_one_in(&f->gen.rng, 2) ? "/" : "/org/qosd";

        r = sd_bus_message_new_method_call(f->bus, &m, QOS_BUS_NAME, path, fm->interface, fm->member);
        if (r < 0)
                return r;
        r = gen_append(&f->gen, m, sig, mutated ? NULL : fm->in_names, fm->n_in);
        if (r < 0) {
                /* sd-bus refused what was made (e.g. more descriptors than a
                 * message may carry): nothing was sent. */
                f->stats.unsent++;
                if (f->log)
                        fprintf(f->log, "%lu %s (%s) not sent: %s\n", n, method, sig, strerror(-r));
                sd_bus_message_unref(m);
                return 0;
        }
        r = sd_bus_call(f->bus, m, (uint64_t) (f->opt->call_timeout * USEC_PER_SEC), &error, &reply);
        const char *error_name = NULL;
        if (r >= 0)
                snprintf(answer, sizeof answer, "ok");
        else {
                if (r == -ETIMEDOUT) {
                        error_name = "(no answer in time)";
                        f->stats.timeouts++;
                } else
                        error_name = error.name ?: "(call failed)";
                char q[512];
                walk_quote(error.message ?: strerror(-r), 400, q, sizeof q);
                snprintf(answer, sizeof answer, "%s: %s", error_name, q);
        }
        stats_count(&f->stats, method, error_name);
        note_call(f, n, method, path, sig, m, answer, reply);
        if (reply) {
                static const WalkVisitor v = { .basic = harvest };
                walk_message(reply, &v, &f->gen);
                harvest_ids(&f->gen, fm, reply);
        }

        int v = check_reply(&f->check, m, reply, &error);
        if (v == 0 && !sd_bus_is_open(f->bus)) {
                /* The bus closed this connection (its limits): a new one. */
                f->stats.reconnects++;
                v = connect_bus(f);
        }
        if (v == 0)
                v = check_alive(&f->check, f->bus, QOS_BUS_NAME, QOS_BUS_PATH);
        if (v == 0)
                v = check_kernel(&f->check);
        if (v > 0) {
                f->stats.violations++;
                report(f, n, method, sig, path, m, answer);
        } else if (v == 0)
                keep_running(f);
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        sd_bus_error_free(&error);
        return v;
}

/* --- options: 0, 1 for --help, or a negative errno ---------------------------- */

static int parse_victim_view(const char *s, Victim *ret) {
        char *end;
        long tid = strtol(s, &end, 10);
        if (end == s || *end != ':' || tid <= 0)
                return -EINVAL;
        ret->tid = (pid_t) tid;
        ret->has_view = true;
        return triple_parse(end + 1, &ret->view);
}

static Victim *victim_slot(Options *o, pid_t tid) {
        for (size_t i = 0; i < o->n_victims; i++)
                if (o->victims[i].tid == tid)
                        return &o->victims[i];
        if (o->n_victims == VICTIMS_MAX)
                return NULL;
        o->victims[o->n_victims] = (Victim) { .tid = tid };
        return &o->victims[o->n_victims++];
}

static int usage(FILE *f, int code) {
        fprintf(f, "usage: qos-bus-fuzz [--seed N] [--calls N | --seconds S] [--marker STR]\n"
                   "                    [--ceiling \"POLICY NICE SLICE\"] [--cgroup-above PATH]...\n"
                   "                    [--victim-tid TID]... [--victim-view \"TID:POLICY NICE SLICE\"]...\n"
                   "                    [--log FILE] [--answer-timeout S] [--call-timeout S]\n"
                   "Calls every method of %s at %s with generated arguments\n"
                   "(1000 calls by default) and checks after each that qosd answers Ping\n"
                   "(--answer-timeout, 10 s), that no reply holds the marker (or\n"
                   "QOS_BUS_FUZZ_MARKER) or shows another user's hidden fields, that no thread\n"
                   "of this process is above the ceiling (/proc policy, nice, slice; SLICE \"-\"\n"
                   "for none) or in a --cgroup-above group (as /proc/TID/cgroup names it), and\n"
                   "that each --victim-view thread is as given. Exit 0: none violated;\n"
                   "1: a violation, printed with the seed; 2: usage or set-up.\n",
                QOS_BUS_NAME, QOS_BUS_PATH);
        return code;
}

static int parse_options(int argc, char **argv, Options *o) {
        static const struct option longopts[] = {
                { "seed", required_argument, NULL, 's' },
                { "calls", required_argument, NULL, 'c' },
                { "seconds", required_argument, NULL, 'S' },
                { "marker", required_argument, NULL, 'm' },
                { "ceiling", required_argument, NULL, 'C' },
                { "victim-tid", required_argument, NULL, 't' },
                { "victim-view", required_argument, NULL, 'v' },
                { "log", required_argument, NULL, 'l' },
                { "answer-timeout", required_argument, NULL, 'a' },
                { "call-timeout", required_argument, NULL, 'T' },
                { "cgroup-above", required_argument, NULL, 'g' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        bool seeded = false;
        Victim v, *slot;
        int c;

        *o = (Options) { .answer_timeout = 10, .call_timeout = 5 };
        while ((c = getopt_long(argc, argv, "", longopts, NULL)) >= 0) {
                char *end = NULL;
                switch (c) {
                case 's': o->seed = strtoull(optarg, &end, 0); seeded = true; break;
                case 'c': o->calls = strtoul(optarg, &end, 10); break;
                case 'S': o->seconds = strtod(optarg, &end); break;
                case 'm': o->marker = optarg; break;
                case 'a': o->answer_timeout = strtod(optarg, &end); break;
                case 'T': o->call_timeout = strtod(optarg, &end); break;
                case 'l': o->log = optarg; break;
                case 'h': return 1;
                case 'g':
                        if (o->n_groups_above == GROUPS_MAX)
                                return -E2BIG;
                        o->groups_above[o->n_groups_above++] = optarg;
                        break;
                case 'C':
                        if (triple_parse(optarg, &o->ceiling) < 0)
                                return -EINVAL;
                        o->has_ceiling = true;
                        break;
                case 't':
                        if (!victim_slot(o, (pid_t) strtol(optarg, &end, 10)))
                                return -E2BIG;
                        break;
                case 'v':
                        if (parse_victim_view(optarg, &v) < 0 || !(slot = victim_slot(o, v.tid)))
                                return -EINVAL;
                        *slot = v;
                        break;
                default:
                        return -EINVAL;
                }
                if (end && *end)
                        return -EINVAL;
        }
        if (!o->marker)
                o->marker = getenv("QOS_BUS_FUZZ_MARKER");
        if (optind != argc || o->answer_timeout <= 0 || o->call_timeout <= 0)
                return -EINVAL;
        if (!o->calls && o->seconds <= 0)
                o->calls = 1000;
        if (!seeded && getrandom(&o->seed, sizeof o->seed, 0) != sizeof o->seed)
                o->seed = (uint64_t) time(NULL) ^ ((uint64_t) getpid() << 32);
        return 0;
}

static void fuzzer_done(Fuzzer *f) {
        if (f->log)
                fclose(f->log);
        sd_bus_flush_close_unref(f->bus);
        methods_free(&f->methods);
        free(f->weights);
        gen_done(&f->gen);
        stats_free(&f->stats);
}

static double now_seconds(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
        Options opt;
        Fuzzer f = { .opt = &opt };
        int r;

        setvbuf(stdout, NULL, _IOLBF, 0);
        r = parse_options(argc, argv, &opt);
        if (r != 0)
                return r > 0 ? usage(stdout, 0) : usage(stderr, 2);
        signal(SIGPIPE, SIG_IGN);
        struct sigaction sa = { .sa_handler = on_stop };
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);

        if (opt.log && !(f.log = fopen(opt.log, "we"))) {
                fprintf(stderr, "qos-bus-fuzz: %s: %s\n", opt.log, strerror(errno));
                return 2;
        }
        if (gen_init(&f.gen, opt.seed, opt.marker) < 0)
                return 2;
        f.check = (Checker) {
                .marker = opt.marker, .uid = getuid(), .pid = getpid(), .has_ceiling = opt.has_ceiling,
                .ceiling = opt.ceiling, .victims = opt.victims, .n_victims = opt.n_victims,
                .groups_above = opt.groups_above, .n_groups_above = opt.n_groups_above,
                .answer_usec = (uint64_t) (opt.answer_timeout * USEC_PER_SEC),
        };
        if (set_up(&f) < 0) {
                fuzzer_done(&f);
                return 2;
        }
        printf("qos-bus-fuzz: seed %" PRIu64 ", uid %u, pid %d, %zu methods to call\n", opt.seed,
               (unsigned) getuid(), (int) getpid(), f.methods.n_methods);

        /* Before the first call, too: the victims and the ceiling as given. */
        r = check_kernel(&f.check);
        if (r > 0) {
                printf("VIOLATION before any call (seed %" PRIu64 "): %s\n", opt.seed, f.check.evidence);
                fuzzer_done(&f);
                return 1;
        }
        double start = now_seconds(), deadline = start + opt.seconds;
        unsigned long n;
        for (n = 1; !stopping; n++) {
                if (opt.calls && n > opt.calls)
                        break;
                if (opt.seconds > 0 && now_seconds() >= deadline)
                        break;
                r = call_one(&f, n);
                if (r != 0)
                        break;
        }
        printf("qos-bus-fuzz: seed %" PRIu64 ", %lu calls in %.1f s\n\n", opt.seed, f.stats.calls,
               now_seconds() - start);
        stats_print(&f.stats, stdout);
        if (f.check.has_highest) {
                char a[TRIPLE_STRING_MAX], b[TRIPLE_STRING_MAX];
                printf("highest of the caller's threads: %s (ceiling %s)\n", triple_format(&f.check.highest, a),
                       triple_format(&f.check.ceiling, b));
        }
        fuzzer_done(&f);
        if (r < 0) {
                fprintf(stderr, "qos-bus-fuzz: stopped at call %lu: %s\n", n, strerror(-r));
                return 2;
        }
        return r > 0 ? 1 : 0;
}
