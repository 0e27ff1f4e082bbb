/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The methods the fuzzer calls, from the object's own introspection: a
 * method qosd gains is fuzzed without changing the fuzzer. */
#pragma once

#include <stddef.h>
#include <systemd/sd-bus.h>

typedef struct FuzzMethod {
        char *interface;
        char *member;
        char *signature;        /* the in-arguments, in order */
        char **in_names;        /* their names ("" if none), n_in of them */
        size_t n_in;
        char **out_names;       /* the out-arguments' names */
        size_t n_out;
} FuzzMethod;

typedef struct MethodList {
        FuzzMethod *methods;
        size_t n_methods;
        char **interfaces;      /* the names, for string arguments */
        size_t n_interfaces;
        char **properties;
        size_t n_properties;
} MethodList;

/* Parse introspection XML (expat). */
int methods_parse(const char *xml, MethodList *ret);

/* Introspect the object at destination and path on bus, and parse it. */
int methods_introspect(sd_bus *bus, const char *destination, const char *path, MethodList *ret,
                       sd_bus_error *error);

void methods_free(MethodList *l);

/* The methods of qosd's interface version 1 (data/org.qosd.QoS1.xml,
 * which promises never to take one away) that l lacks, as
 * "Interface.Member ..." in buf; 0 if none lacks, else how many. */
size_t methods_missing_known(const MethodList *l, char *buf, size_t size);
