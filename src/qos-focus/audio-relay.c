/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <pipewire/pipewire.h>

#include "core/log.h"
#include "core/macro.h"
#include "qos-focus/audio-relay.h"

/* More than a session has; what comes beyond is not followed. */
#define OBJECTS_MAX 4096
#define RETRY_USEC (3 * 1000 * 1000)

typedef struct Client {
        uint32_t id;
        pid_t pid;              /* pipewire.sec.pid */
} Client;

typedef struct Stream {
        AudioRelay *relay;
        uint32_t id, client;
        pid_t app_pid;          /* application.process.id, 0 if none */
        bool running;
        struct pw_proxy *proxy;
        struct spa_hook listener;
} Stream;

struct AudioRelay {
        FocusReport *report;
        sd_event *event;
        sd_event_source *io, *retry;
        struct pw_loop *loop;
        struct pw_context *context;
        struct pw_core *core;
        struct pw_registry *registry;
        struct spa_hook core_listener, registry_listener;
        Client *clients;
        size_t n_clients;
        Stream **streams;
        size_t n_streams;
};

static pid_t parse_positive(const char *s) {
        char *end;
        long v;
        if (!s)
                return 0;
        errno = 0;
        v = strtol(s, &end, 10);
        return errno == 0 && end != s && *end == '\0' && v > 0 && v <= INT32_MAX ? (pid_t) v : 0;
}

static pid_t client_pid(const AudioRelay *a, uint32_t id) {
        for (size_t i = 0; i < a->n_clients; i++)
                if (a->clients[i].id == id)
                        return a->clients[i].pid;
        return 0;
}

static int compare_pids(const void *x, const void *y) {
        pid_t a = *(const pid_t *) x, b = *(const pid_t *) y;
        return (a > b) - (a < b);
}

/* The apps with a running stream, each once, in order: an unchanged list
 * is not sent again. */
static void report(AudioRelay *a) {
        _cleanup_free_ pid_t *pids = calloc(a->n_streams + 1, sizeof *pids);
        size_t n = 0;
        if (!pids)
                return;
        for (size_t i = 0; i < a->n_streams; i++) {
                const Stream *s = a->streams[i];
                pid_t pid = s->app_pid ?: client_pid(a, s->client);
                if (s->running && pid > 0)
                        pids[n++] = pid;
        }
        qsort(pids, n, sizeof *pids, compare_pids);
        size_t unique = 0;
        for (size_t i = 0; i < n; i++)
                if (unique == 0 || pids[unique - 1] != pids[i])
                        pids[unique++] = pids[i];
        if (focus_report_list(a->report, REPORT_AUDIO, pids, unique) < 0)
                log_warning("PipeWire: out of memory for the apps playing audio");
}

static void node_info(void *data, const struct pw_node_info *info) {
        Stream *s = data;
        if (info->change_mask & PW_NODE_CHANGE_MASK_PROPS)
                s->app_pid = parse_positive(spa_dict_lookup(info->props, PW_KEY_APP_PROCESS_ID));
        s->running = info->state == PW_NODE_STATE_RUNNING;
        report(s->relay);
}

static const struct pw_node_events node_events = {
        PW_VERSION_NODE_EVENTS,
        .info = node_info,
};

static void stream_free(Stream *s) {
        spa_hook_remove(&s->listener);
        pw_proxy_destroy(s->proxy);
        free(s);
}

/* An output stream: bound, so that its state changes come to us. */
static void add_stream(AudioRelay *a, uint32_t id, const char *type, const struct spa_dict *props) {
        Stream **grown, *s;
        if (a->n_streams >= OBJECTS_MAX ||
            !(grown = reallocarray(a->streams, a->n_streams + 1, sizeof *grown)))
                return;
        a->streams = grown;
        if (!(s = calloc(1, sizeof *s)))
                return;
        *s = (Stream) { .relay = a, .id = id, .client = (uint32_t) parse_positive(spa_dict_lookup(props, PW_KEY_CLIENT_ID)) };
        s->proxy = pw_registry_bind(a->registry, id, type, PW_VERSION_NODE, 0);
        if (!s->proxy) {
                free(s);
                return;
        }
        pw_proxy_add_object_listener(s->proxy, &s->listener, &node_events, s);
        a->streams[a->n_streams++] = s;
}

static void add_client(AudioRelay *a, uint32_t id, const struct spa_dict *props) {
        Client *grown;
        if (a->n_clients >= OBJECTS_MAX || !(grown = reallocarray(a->clients, a->n_clients + 1, sizeof *grown)))
                return;
        a->clients = grown;
        a->clients[a->n_clients++] = (Client) { .id = id, .pid = parse_positive(spa_dict_lookup(props, PW_KEY_SEC_PID)) };
}

static void registry_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                            const struct spa_dict *props) {
        AudioRelay *a = data;
        const char *class;
        if (!props)
                return;
        if (strcmp(type, PW_TYPE_INTERFACE_Client) == 0)
                add_client(a, id, props);
        else if (strcmp(type, PW_TYPE_INTERFACE_Node) == 0 && (class = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS)) &&
                 strcmp(class, "Stream/Output/Audio") == 0)
                add_stream(a, id, type, props);
}

static void registry_global_remove(void *data, uint32_t id) {
        AudioRelay *a = data;
        for (size_t i = 0; i < a->n_clients; i++)
                if (a->clients[i].id == id) {
                        a->clients[i] = a->clients[--a->n_clients];
                        return;
                }
        for (size_t i = 0; i < a->n_streams; i++)
                if (a->streams[i]->id == id) {
                        stream_free(a->streams[i]);
                        a->streams[i] = a->streams[--a->n_streams];
                        report(a);
                        return;
                }
}

static const struct pw_registry_events registry_events = {
        PW_VERSION_REGISTRY_EVENTS,
        .global = registry_global,
        .global_remove = registry_global_remove,
};

static void disconnect(AudioRelay *a) {
        for (size_t i = 0; i < a->n_streams; i++)
                stream_free(a->streams[i]);
        a->n_streams = a->n_clients = 0;
        if (a->registry) {
                spa_hook_remove(&a->registry_listener);
                pw_proxy_destroy((struct pw_proxy *) a->registry);
                a->registry = NULL;
        }
        if (a->core) {
                spa_hook_remove(&a->core_listener);
                pw_core_disconnect(a->core);
                a->core = NULL;
        }
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata);

/* Try again later: PipeWire is not there (yet), or went away. */
static void retry_later(AudioRelay *a, uint64_t usec) {
        int r = a->retry ? sd_event_source_set_time_relative(a->retry, usec) : 0;
        if (r >= 0 && a->retry)
                r = sd_event_source_set_enabled(a->retry, SD_EVENT_ONESHOT);
        else if (r >= 0)
                r = sd_event_add_time_relative(a->event, &a->retry, CLOCK_MONOTONIC, usec, 0, on_retry, a);
        if (r < 0)
                log_warning_errno(r, "PipeWire: cannot wait to connect again: %m");
}

static void core_error(void *data, uint32_t id, int seq, int res, const char *message) {
        AudioRelay *a = data;
        if (id != PW_ID_CORE)
                return;
        log_info("PipeWire: %s; trying again in a few seconds", message ?: strerror(-res));
        /* Not here: the core is still in use below this callback. */
        retry_later(a, 0);
}

static const struct pw_core_events core_events = {
        PW_VERSION_CORE_EVENTS,
        .error = core_error,
};

static int connect_now(AudioRelay *a) {
        a->core = pw_context_connect(a->context, NULL, 0);
        if (!a->core)
                return -errno;
        pw_core_add_listener(a->core, &a->core_listener, &core_events, a);
        a->registry = pw_core_get_registry(a->core, PW_VERSION_REGISTRY, 0);
        if (!a->registry) {
                disconnect(a);
                return -ENOMEM;
        }
        pw_registry_add_listener(a->registry, &a->registry_listener, &registry_events, a);
        log_debug("PipeWire: connected");
        return 0;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        AudioRelay *a = userdata;
        bool was_connected = a->core != NULL;
        disconnect(a);
        if (was_connected)
                report(a); /* nothing plays that we can see */
        int r = connect_now(a);
        if (r < 0) {
                log_debug_errno(r, "PipeWire: cannot connect: %m");
                retry_later(a, RETRY_USEC);
        }
        return 0;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        AudioRelay *a = userdata;
        pw_loop_enter(a->loop);
        pw_loop_iterate(a->loop, 0);
        pw_loop_leave(a->loop);
        return 0;
}

int audio_relay_start(sd_event *event, FocusReport *report, AudioRelay **ret) {
        AudioRelay *a = calloc(1, sizeof *a);
        int r;
        if (!a)
                return -ENOMEM;
        pw_init(NULL, NULL);
        *a = (AudioRelay) { .report = report, .event = sd_event_ref(event) };
        a->loop = pw_loop_new(NULL);
        if (a->loop)
                a->context = pw_context_new(a->loop, NULL, 0);
        if (!a->context) {
                audio_relay_free(a);
                return -ENOMEM;
        }
        r = sd_event_add_io(event, &a->io, pw_loop_get_fd(a->loop), EPOLLIN, on_io, a);
        if (r < 0) {
                audio_relay_free(a);
                return r;
        }
        r = connect_now(a);
        if (r < 0) {
                log_info("PipeWire is not running (%s): trying again every few seconds", strerror(-r));
                retry_later(a, RETRY_USEC);
        }
        *ret = a;
        return 0;
}

void audio_relay_free(AudioRelay *a) {
        if (!a)
                return;
        disconnect(a);
        free(a->streams);
        free(a->clients);
        sd_event_source_disable_unref(a->io);
        sd_event_source_disable_unref(a->retry);
        if (a->context)
                pw_context_destroy(a->context);
        if (a->loop)
                pw_loop_destroy(a->loop);
        sd_event_unref(a->event);
        free(a);
        pw_deinit();
}
