/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target for the qos.d INI loader. An input may hold a main file
 * and a drop-in separated by a line "---", so merging is fuzzed too. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "config/ini-load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char sep[] = "\n---\n";
        const char *text = (const char *) data;
        const char *split = memmem(text, size, sep, sizeof sep - 1);
        size_t main_len = split ? (size_t) (split - text) : size;
        RuleStore *store = rule_store_new();
        AppRule app;
        DiagList diag = {};

        if (!store || app_rule_init(&app, store, "fuzz", "fuzz.conf", (RuleOrigin) { "fuzz.conf", 0 }) < 0) {
                rule_store_free(store);
                return 0;
        }
        if (ini_load_buffer(&app, "fuzz.conf", text, main_len, &diag) >= 0 && split)
                (void) ini_load_buffer(&app, "fuzz.conf.d/x.conf", split + sizeof sep - 1,
                                       size - main_len - (sizeof sep - 1), &diag);
        if (app_rule_finalize(&app, &diag) >= 0) {
                (void) app_rule_match_thread(&app, "ui-main");
                (void) app_rule_match_thread(&app, "");
        }
        fuzz_check_diags(&diag);
        app_rule_done(&app);
        rule_store_free(store);
        return 0;
}
