/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every case of the broker's policy table (man qosd(8), POLICY), without
 * root: access_decide() is pure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "decide/access-policy.h"

#define ALICE 1000
#define BOB 1001
#define APP 4242
#define OTHER 4343

/* Alice's own thread, at utility, no gate, no caps. */
static AccessRequest own(QClass requested) {
        return (AccessRequest) {
                .caller_uid = ALICE, .caller_pid = APP,
                .target_uid = ALICE, .target_pid = APP,
                .requested = requested, .current = QCLASS_UTILITY,
        };
}

static AccessVerdict decide(AccessRequest a) {
        AccessVerdict v;
        memset(&v, 0x5a, sizeof v); /* no field may be left as it was */
        access_decide(&a, &v);
        assert_true(v.granted <= a.requested);
        assert_true(v.reason[0]);
        return v;
}

static void test_own_thread(void **state) {
        for (QClass c = QCLASS_BACKGROUND; c < _QCLASS_MAX; c++) {
                AccessVerdict v = decide(own(c));
                assert_int_equal(v.result, ACCESS_GRANTED);
                assert_int_equal(v.granted, c);
                assert_string_equal(v.reason, "granted");
        }
}

static void test_foreground_gate(void **state) {
        AccessRequest a = own(QCLASS_USER_INTERACTIVE);
        a.outside = true;
        AccessVerdict v = decide(a);
        assert_int_equal(v.result, ACCESS_HELD);
        assert_int_equal(v.granted, QCLASS_UTILITY);
        assert_string_equal(v.reason, "held at utility: not in the foreground");
        /* The gate's own words, when it has them. */
        a.outside_reason = "no foreground source, and uid 1001 has no active seat session";
        v = decide(a);
        assert_string_equal(v.reason,
                            "held at utility: no foreground source, and uid 1001 has no active seat session");

        /* An app playing audio is held at user-initiated. */
        a.playing_audio = true;
        v = decide(a);
        assert_int_equal(v.result, ACCESS_HELD);
        assert_int_equal(v.granted, QCLASS_USER_INITIATED);
        assert_string_equal(v.reason, "held at user-initiated: no foreground source, and uid 1001 has no "
                                      "active seat session (it plays audio)");
        a.playing_audio = false;

        a.outside = false;
        v = decide(a);
        assert_int_equal(v.result, ACCESS_GRANTED);
        assert_int_equal(v.granted, QCLASS_USER_INTERACTIVE);

        /* Only user-interactive is gated. */
        a = own(QCLASS_USER_INITIATED);
        a.outside = true;
        assert_int_equal(decide(a).result, ACCESS_GRANTED);
        a = own(QCLASS_BACKGROUND);
        a.outside = true;
        assert_int_equal(decide(a).result, ACCESS_GRANTED);
}

static void test_caps(void **state) {
        AccessRequest a = own(QCLASS_USER_INTERACTIVE);
        a.app_cap = QCLASS_USER_INITIATED;
        a.app_cap_origin = "/etc/qos/apps.d/foo.conf:3";
        AccessVerdict v = decide(a);
        assert_int_equal(v.result, ACCESS_HELD);
        assert_int_equal(v.granted, QCLASS_USER_INITIATED);
        assert_string_equal(v.reason, "held at user-initiated: MaxClass=user-initiated (/etc/qos/apps.d/foo.conf:3)");
        assert_false(v.reason_private);
        a.app_cap_private = true; /* the owner's own file: the reason names it */
        assert_true(decide(a).reason_private);

        /* The lower cap names the reason; a cap at or above the request is silent. */
        a.user_cap = QCLASS_UTILITY;
        v = decide(a);
        assert_int_equal(v.granted, QCLASS_UTILITY);
        assert_string_equal(v.reason, "held at utility: RequestMaxClass=utility (qosd.conf)");
        assert_false(v.reason_private);
        a = own(QCLASS_UTILITY);
        a.app_cap = QCLASS_UTILITY;
        a.user_cap = QCLASS_USER_INTERACTIVE;
        assert_int_equal(decide(a).result, ACCESS_GRANTED);

        /* Gate and cap together: the lowest wins. */
        a = own(QCLASS_USER_INTERACTIVE);
        a.outside = true;
        a.app_cap = QCLASS_USER_INITIATED;
        v = decide(a);
        assert_int_equal(v.granted, QCLASS_UTILITY);
        assert_string_equal(v.reason, "held at utility: not in the foreground");

        /* Background is never capped away. */
        a = own(QCLASS_BACKGROUND);
        a.user_cap = a.app_cap = QCLASS_BACKGROUND;
        assert_int_equal(decide(a).result, ACCESS_GRANTED);
}

static void test_another_user(void **state) {
        for (QClass c = QCLASS_BACKGROUND; c < _QCLASS_MAX; c++) {
                AccessRequest a = own(c);
                a.caller_uid = BOB;
                AccessVerdict v = decide(a);
                assert_int_equal(v.result, ACCESS_DENIED);
                assert_string_equal(v.reason, "thread of another user");
                /* Not even for "its own" PID: the uid decides first. */
                a.caller_pid = OTHER;
                assert_int_equal(decide(a).result, ACCESS_DENIED);
        }
}

static void test_another_process(void **state) {
        struct {
                QClass requested;
                int relpri;
                QClass current;
                int current_relpri;
                AccessResult result;
        } cases[] = {
                { QCLASS_USER_INITIATED, 0, QCLASS_UTILITY, 0, ACCESS_DENIED },
                { QCLASS_USER_INTERACTIVE, 0, QCLASS_USER_INITIATED, 0, ACCESS_DENIED },
                { QCLASS_UTILITY, 0, QCLASS_UTILITY, -5, ACCESS_DENIED }, /* up within the class */
                { QCLASS_UTILITY, -5, QCLASS_UTILITY, 0, ACCESS_GRANTED },
                { QCLASS_UTILITY, 0, QCLASS_UTILITY, 0, ACCESS_GRANTED }, /* no change */
                { QCLASS_UTILITY, 0, QCLASS_USER_INTERACTIVE, 0, ACCESS_GRANTED },
                { QCLASS_BACKGROUND, 0, QCLASS_UTILITY, 0, ACCESS_GRANTED },
                { QCLASS_BACKGROUND, 0, QCLASS_UNSPECIFIED, 0, ACCESS_GRANTED }, /* custom settings */
                { QCLASS_UTILITY, 0, QCLASS_UNSPECIFIED, 0, ACCESS_DENIED },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                AccessRequest a = own(cases[i].requested);
                a.caller_pid = OTHER;
                a.requested_relpri = cases[i].relpri;
                a.current = cases[i].current;
                a.current_relpri = cases[i].current_relpri;
                AccessVerdict v = decide(a);
                assert_int_equal(v.result, cases[i].result);
                if (v.result == ACCESS_GRANTED)
                        assert_int_equal(v.granted, cases[i].requested);
        }
}

/* Another process of the same user may only ask for what the thread has
 * or less, and the gate and the caps hold that request as they hold the
 * program's own: whoever asks, user-interactive outside the foreground is
 * utility (when the focus moves on, the broker asks again). */
static void test_another_process_gated(void **state) {
        AccessRequest a = own(QCLASS_USER_INTERACTIVE);
        a.caller_pid = OTHER;
        a.current = QCLASS_USER_INTERACTIVE;
        a.outside = true;
        AccessVerdict v = decide(a);
        assert_int_equal(v.result, ACCESS_HELD);
        assert_int_equal(v.granted, QCLASS_UTILITY);
        assert_string_equal(v.reason, "held at utility: not in the foreground");

        a.outside = false;
        a.app_cap = QCLASS_USER_INITIATED;
        a.app_cap_origin = "/etc/qos/apps.d/foo.conf:3";
        v = decide(a);
        assert_int_equal(v.result, ACCESS_HELD);
        assert_int_equal(v.granted, QCLASS_USER_INITIATED);

        a.app_cap = QCLASS_UNSPECIFIED;
        a.user_cap = QCLASS_UTILITY;
        assert_int_equal(decide(a).granted, QCLASS_UTILITY);

        /* Background stays open to anyone of the user. */
        a = own(QCLASS_BACKGROUND);
        a.caller_pid = OTHER;
        a.user_cap = a.app_cap = QCLASS_BACKGROUND;
        a.outside = true;
        assert_int_equal(decide(a).result, ACCESS_GRANTED);
}

static void test_root(void **state) {
        AccessRequest a = own(QCLASS_USER_INTERACTIVE);
        a.caller_uid = 0;
        a.caller_privileged = true;
        a.caller_pid = OTHER;
        a.target_uid = BOB;
        a.outside = true;
        a.user_cap = QCLASS_BACKGROUND;
        AccessVerdict v = decide(a);
        assert_int_equal(v.result, ACCESS_GRANTED);
        assert_int_equal(v.granted, QCLASS_USER_INTERACTIVE);
}

/* Root without CAP_SYS_NICE is a user like any other: the kernel would
 * refuse it another user's thread, and so does qosd. */
static void test_root_without_sys_nice(void **state) {
        AccessRequest a = own(QCLASS_USER_INTERACTIVE);
        a.caller_uid = 0;
        a.caller_pid = OTHER;
        a.target_uid = BOB;
        AccessVerdict v = decide(a);
        assert_int_equal(v.result, ACCESS_DENIED);
        assert_string_equal(v.reason, "thread of another user");

        /* Its own thread: the gate and the caps hold it like anyone. */
        a = own(QCLASS_USER_INTERACTIVE);
        a.caller_uid = a.target_uid = 0;
        a.outside = true;
        v = decide(a);
        assert_int_equal(v.result, ACCESS_HELD);
        assert_int_equal(v.granted, QCLASS_UTILITY);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_own_thread),
                cmocka_unit_test(test_foreground_gate),
                cmocka_unit_test(test_caps),
                cmocka_unit_test(test_another_user),
                cmocka_unit_test(test_another_process),
                cmocka_unit_test(test_another_process_gated),
                cmocka_unit_test(test_root),
                cmocka_unit_test(test_root_without_sys_nice),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
