/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A storm of short-lived jobs: N processes exec'd from a fork, up to P at
 * a time, each running `PROGRAM job WORK_US` (qos-class-check, copied to a
 * path a rule matches), which reports its own scheduling at the start of
 * main() and at exit. Counts how many ran their whole life in the class
 * whose "POLICY NICE SLICE_NS" is given:
 *
 *   qos-job-storm N P WORK_US "POLICY NICE SLICE" PROGRAM
 *
 * prints "jobs N whole-life A untagged-at-start B untagged-at-exit C".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct Job {
        pid_t pid;
        FILE *out;
} Job;

static long whole, bad_start, bad_end;

static void collect(Job *j, const char *want) {
        char line[128];
        int start_ok = 0, end_ok = 0;
        while (fgets(line, sizeof line, j->out)) {
                line[strcspn(line, "\n")] = '\0';
                if (strncmp(line, "start ", 6) == 0)
                        start_ok = strcmp(line + 6, want) == 0;
                else if (strncmp(line, "end ", 4) == 0)
                        end_ok = strcmp(line + 4, want) == 0;
        }
        fclose(j->out);
        waitpid(j->pid, NULL, 0);
        whole += start_ok && end_ok;
        bad_start += !start_ok;
        bad_end += !end_ok;
}

static int spawn(Job *j, const char *program, const char *work) {
        int p[2];
        if (pipe(p) < 0)
                return -1;
        j->pid = fork();
        if (j->pid < 0)
                return -1;
        if (j->pid == 0) {
                dup2(p[1], STDOUT_FILENO);
                close(p[0]);
                close(p[1]);
                execl(program, program, "job", work, (char *) NULL);
                _exit(127);
        }
        close(p[1]);
        j->out = fdopen(p[0], "r");
        return j->out ? 0 : -1;
}

int main(int argc, char **argv) {
        if (argc != 6) {
                fprintf(stderr, "usage: qos-job-storm N P WORK_US \"POLICY NICE SLICE\" PROGRAM\n");
                return 2;
        }
        long n = strtol(argv[1], NULL, 10), par = strtol(argv[2], NULL, 10);
        if (n <= 0 || par <= 0)
                return 2;
        Job *jobs = calloc((size_t) par, sizeof *jobs);
        if (!jobs)
                return 1;
        /* Round robin over P slots: wait for the oldest, start the next. */
        for (long i = 0; i < n + par; i++) {
                Job *j = &jobs[i % par];
                if (j->out)
                        collect(j, argv[4]);
                j->out = NULL;
                if (i < n && spawn(j, argv[5], argv[3]) < 0) {
                        perror("qos-job-storm");
                        return 1;
                }
        }
        free(jobs);
        printf("jobs %ld whole-life %ld untagged-at-start %ld untagged-at-exit %ld\n", n, whole, bad_start,
               bad_end);
        return 0;
}
