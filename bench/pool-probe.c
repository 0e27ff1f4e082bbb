/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Work the user waits for: every PERIOD a job is split over THREADS worker
 * threads, each doing WORK of CPU time. Records, per job, the latency from
 * its release to the moment the last worker finishes (and the time until
 * the first worker started, as the wake-up column).
 *
 *   qos-bench-pool --threads N --period MS --work MS --seconds S --out FILE
 *
 * Prints "ready" once every worker exists (so the runner can set all of
 * them), waits for a line on stdin, runs, prints "periods N missed M".
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "bench-util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_posted = PTHREAD_COND_INITIALIZER;
static pthread_cond_t job_done = PTHREAD_COND_INITIALIZER;
static unsigned long generation;        /* jobs posted so far */
static unsigned remaining;              /* workers still busy on the current job */
static uint64_t first_start;            /* when the first worker began the current job */
static uint64_t work;
static bool stopping;

static void *worker(void *arg) {
        unsigned long seen = 0;

        pthread_mutex_lock(&lock);
        for (;;) {
                while (generation == seen && !stopping)
                        pthread_cond_wait(&job_posted, &lock);
                if (stopping)
                        break;
                seen = generation;
                if (first_start == 0)
                        first_start = now_ns();
                pthread_mutex_unlock(&lock);

                burn_cpu_ns(work);

                pthread_mutex_lock(&lock);
                if (--remaining == 0)
                        pthread_cond_signal(&job_done);
        }
        pthread_mutex_unlock(&lock);
        return NULL;
}

int main(int argc, char **argv) {
        ProbeOptions o;
        probe_parse_options(argc, argv,
                            "qos-bench-pool --threads N --period MS --work MS [--seconds S] --out FILE",
                            true, &o);
        unsigned n = o.threads;
        uint64_t period = o.period_ns;
        work = o.work_ns;

        FILE *f = samples_open(o.out);
        pthread_t threads[64];
        for (unsigned i = 0; i < n; i++)
                if (pthread_create(&threads[i], NULL, worker, NULL) != 0) {
                        fprintf(stderr, "pthread_create failed\n");
                        return 1;
                }
        wait_for_go();

        uint64_t start = now_ns(), end = start + o.duration_ns, release = start + period;
        unsigned long periods = 0, missed = 0;
        while (release < end) {
                sleep_until_ns(release);
                pthread_mutex_lock(&lock);
                first_start = 0;
                remaining = n;
                generation++;
                pthread_cond_broadcast(&job_posted);
                while (remaining > 0)
                        pthread_cond_wait(&job_done, &lock);
                uint64_t done = now_ns(), began = first_start;
                pthread_mutex_unlock(&lock);
                samples_write(f, done - release, began - release);
                periods++;
                release = next_release(release, period, done, &missed);
        }

        pthread_mutex_lock(&lock);
        stopping = true;
        pthread_cond_broadcast(&job_posted);
        pthread_mutex_unlock(&lock);
        for (unsigned i = 0; i < n; i++)
                pthread_join(threads[i], NULL);
        fclose(f);
        printf("periods %lu missed %lu\n", periods, missed);
        return 0;
}
