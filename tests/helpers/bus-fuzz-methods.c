/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <expat.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-fuzz-methods.h"

#define SIGNATURE_MAX 255

typedef struct Parse {
        MethodList *list;
        char *interface;        /* inside <interface> */
        FuzzMethod *method;     /* inside <method> */
        int error;
} Parse;

static const char *attr(const XML_Char **attrs, const char *name) {
        for (size_t i = 0; attrs[i]; i += 2)
                if (strcmp(attrs[i], name) == 0)
                        return attrs[i + 1];
        return NULL;
}

static int add_word(char ***words, size_t *n, const char *w) {
        for (size_t i = 0; i < *n; i++)
                if (strcmp((*words)[i], w) == 0)
                        return 0;
        char **grown = realloc(*words, (*n + 1) * sizeof *grown);
        if (!grown)
                return -ENOMEM;
        *words = grown;
        if (!(grown[*n] = strdup(w)))
                return -ENOMEM;
        (*n)++;
        return 0;
}

static int add_method(Parse *p, const char *member) {
        MethodList *l = p->list;
        FuzzMethod *grown = realloc(l->methods, (l->n_methods + 1) * sizeof *grown);
        if (!grown)
                return -ENOMEM;
        l->methods = grown;
        FuzzMethod *m = &l->methods[l->n_methods];
        *m = (FuzzMethod) { .interface = strdup(p->interface), .member = strdup(member), .signature = strdup("") };
        l->n_methods++; /* freed with the list, also when a strdup failed */
        if (!m->interface || !m->member || !m->signature)
                return -ENOMEM;
        p->method = m;
        return 0;
}

static int add_name(char ***names, size_t *n, const char *name) {
        char **grown = realloc(*names, (*n + 1) * sizeof *grown);
        if (!grown)
                return -ENOMEM;
        *names = grown;
        if (!(grown[*n] = strdup(name ?: "")))
                return -ENOMEM;
        (*n)++;
        return 0;
}

static int add_arg(FuzzMethod *m, const char *type, const char *name, bool in) {
        if (!in)
                return add_name(&m->out_names, &m->n_out, name);
        size_t n = strlen(m->signature) + strlen(type);
        if (n > SIGNATURE_MAX)
                return -E2BIG;
        char *s = realloc(m->signature, n + 1);
        if (!s)
                return -ENOMEM;
        strcat(s, type);
        m->signature = s;
        return add_name(&m->in_names, &m->n_in, name);
}

static void on_start(void *userdata, const XML_Char *name, const XML_Char **attrs) {
        Parse *p = userdata;
        const char *n = attr(attrs, "name");
        int r = 0;

        if (p->error)
                return;
        if (strcmp(name, "interface") == 0 && n) {
                free(p->interface);
                if (!(p->interface = strdup(n)))
                        r = -ENOMEM;
                else
                        r = add_word(&p->list->interfaces, &p->list->n_interfaces, n);
        } else if (strcmp(name, "method") == 0 && n && p->interface)
                r = add_method(p, n);
        else if (strcmp(name, "property") == 0 && n && p->interface)
                r = add_word(&p->list->properties, &p->list->n_properties, n);
        else if (strcmp(name, "arg") == 0 && p->method) {
                const char *dir = attr(attrs, "direction"), *type = attr(attrs, "type");
                if (!type)
                        r = -EBADMSG;
                else /* a method's args are "in" by default */
                        r = add_arg(p->method, type, n, !dir || strcmp(dir, "in") == 0);
        }
        if (r < 0)
                p->error = r;
}

static void on_end(void *userdata, const XML_Char *name) {
        Parse *p = userdata;
        if (strcmp(name, "method") == 0)
                p->method = NULL;
        else if (strcmp(name, "interface") == 0) {
                free(p->interface);
                p->interface = NULL;
        }
}

int methods_parse(const char *xml, MethodList *ret) {
        MethodList l = {};
        Parse p = { .list = &l };
        XML_Parser parser = XML_ParserCreate(NULL);
        if (!parser)
                return -ENOMEM;
        XML_SetUserData(parser, &p);
        XML_SetElementHandler(parser, on_start, on_end);
        if (XML_Parse(parser, xml, (int) strlen(xml), 1) != XML_STATUS_OK && !p.error)
                p.error = -EBADMSG;
        XML_ParserFree(parser);
        free(p.interface);
        if (p.error < 0) {
                methods_free(&l);
                return p.error;
        }
        *ret = l;
        return 0;
}

int methods_introspect(sd_bus *bus, const char *destination, const char *path, MethodList *ret,
                       sd_bus_error *error) {
        sd_bus_message *reply = NULL;
        const char *xml;
        int r = sd_bus_call_method(bus, destination, path, "org.freedesktop.DBus.Introspectable", "Introspect",
                                   error, &reply, "");
        if (r >= 0)
                r = sd_bus_message_read(reply, "s", &xml);
        if (r >= 0)
                r = methods_parse(xml, ret);
        sd_bus_message_unref(reply);
        return r;
}

void methods_free(MethodList *l) {
        for (size_t i = 0; i < l->n_methods; i++) {
                FuzzMethod *m = &l->methods[i];
                free(m->interface);
                free(m->member);
                free(m->signature);
                for (size_t j = 0; j < m->n_in; j++)
                        free(m->in_names[j]);
                for (size_t j = 0; j < m->n_out; j++)
                        free(m->out_names[j]);
                free(m->in_names);
                free(m->out_names);
        }
        for (size_t i = 0; i < l->n_interfaces; i++)
                free(l->interfaces[i]);
        for (size_t i = 0; i < l->n_properties; i++)
                free(l->properties[i]);
        free(l->methods);
        free(l->interfaces);
        free(l->properties);
        *l = (MethodList) {};
}

size_t methods_missing_known(const MethodList *l, char *buf, size_t size) {
        static const char *const known[] = {
                "ListTasks", "Explain", "Reload", "SetProfile", "GetProfile", "BeginOverride",
                "BeginLockOverride", "ListLoans", "EndOverride", "SetThreadClass", "SetForeground",
                "SetFocus", "GetForeground", "ResetForeground",
        };
        size_t missing = 0, len = 0;
        if (size)
                buf[0] = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
                bool found = false;
                for (size_t i = 0; i < l->n_methods && !found; i++)
                        found = strcmp(l->methods[i].interface, "org.qosd.QoS1.Manager") == 0 &&
                                strcmp(l->methods[i].member, known[k]) == 0;
                if (found)
                        continue;
                missing++;
                if (len < size) {
                        int n = snprintf(buf + len, size - len, "%sorg.qosd.QoS1.Manager.%s", len ? " " : "",
                                         known[k]);
                        len += n > 0 ? (size_t) n : 0;
                }
        }
        return missing;
}
