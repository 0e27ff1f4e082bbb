/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target for the ananicy importer (ananicy-import.c): the parser,
 * the conversion to a class, and the qos.d file it writes. Input: a .types
 * file, a line "---", a .rules file; without that line the whole input is
 * both (each line's keys say what it is, as in ananicy-cpp). Every rule that converts must give a file name that stays in the
 * target directory and a qos.d file that loads without a message and
 * matches the rule's own name with the class the conversion chose. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ananicy-import.h"
#include "fuzz.h"
#include "config/ini-load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_file_name(const char *rule_name) {
        char *f = ananicy_file_name(rule_name);
        if (!f)
                return;
        size_t n = strlen(f);
        if (strchr(f, '/') || f[0] == '.' || n <= strlen(".conf") || strcmp(f + n - strlen(".conf"), ".conf") != 0)
                __builtin_trap();
        free(f);
}

/* Write the rule's file and read it back as qosd would. */
static void check_written(const AnanicyEntry *rule, const AnanicyConversion *c) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
                return;
        if (ananicy_write_conf(f, rule, c) < 0 || fclose(f) != 0) {
                free(text);
                return;
        }

        RuleStore *store = rule_store_new();
        AppRule app;
        DiagList diag = {};
        if (store && app_rule_init(&app, store, "fuzz", "fuzz.conf", (RuleOrigin) { "fuzz.conf", 0 }) >= 0) {
                if (ini_load_buffer(&app, "fuzz.conf", text, len, &diag) >= 0 &&
                    app_rule_finalize(&app, &diag) >= 0) {
                        size_t n;
                        const Pattern *p = app_rule_patterns(&app, MATCH_EXECUTABLE, &n);
                        if (diag.n > 0 || n != 1 || !glob_match(p[0].text, p[0].glob, rule->name) ||
                            app.process.class != c->class)
                                __builtin_trap();
                }
                app_rule_done(&app);
        }
        diag_list_clear(&diag);
        rule_store_free(store);
        free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char sep[] = "\n---\n";
        const char *text = (const char *) data;
        const char *split = memmem(text, size, sep, sizeof sep - 1);
        const char *rules = split ? split + sizeof sep - 1 : text;
        size_t types_len = split ? (size_t) (split - text) : size;
        size_t rules_len = size - (size_t) (rules - text);
        AnanicyTree t = {};
        DiagList diag = {};

        if (ananicy_tree_parse(&t, "fuzz.types", text, types_len, &diag) >= 0 &&
            ananicy_tree_parse(&t, "fuzz.rules", rules, rules_len, &diag) >= 0 &&
            ananicy_tree_finish(&t, &diag) >= 0)
                for (size_t i = 0; i < t.n_rules; i++) {
                        AnanicyConversion c;
                        int r = ananicy_convert(&t, &t.rules[i], &c, &diag);
                        if (r < 0)
                                break;
                        if (r == 0)
                                continue;
                        if (!qclass_is_valid(c.class) || !c.reason)
                                __builtin_trap();
                        check_file_name(t.rules[i].name);
                        check_written(&t.rules[i], &c);
                        ananicy_conversion_done(&c);
                }
        fuzz_check_diags(&diag);
        ananicy_tree_done(&t);
        return 0;
}
