/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target for the schedqos JSON loader. */
#include <stdint.h>

#include "fuzz.h"
#include "config/schedqos-json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        AppRuleList apps = {};
        DiagList diag = {};

        if (schedqos_json_load_buffer(&apps, "fuzz.json", "fuzz.json", (const char *) data, size, &diag) >= 0)
                for (size_t i = 0; i < apps.n; i++) {
                        if (app_rule_finalize(&apps.items[i], &diag) < 0)
                                break;
                        (void) app_rule_match_thread(&apps.items[i], "main");
                }
        fuzz_check_diags(&diag);
        app_rule_list_done(&apps);
        return 0;
}
