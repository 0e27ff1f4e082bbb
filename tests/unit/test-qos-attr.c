/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The public API as an application links it (libqos.so, the exported
 * symbols only): attribute objects, Apple's calls and their errno values,
 * invalid input, and a thread created in a lower class. No root needed. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>
#include <cmocka.h>

#include <qos/darwin.h>

static void test_attr_round_trip(void **state) {
        pthread_attr_t attr;
        qos_class_t c = QOS_CLASS_USER_INTERACTIVE;
        int relpri = -1;

        assert_int_equal(qos_attr_init(&attr), 0);
        assert_int_equal(qos_attr_get_class(&attr, &c, &relpri), 0);
        assert_int_equal(c, QOS_CLASS_UNSPECIFIED);
        assert_int_equal(relpri, 0);

        assert_int_equal(qos_attr_set_class(&attr, QOS_CLASS_USER_INITIATED, -7), 0);
        assert_int_equal(qos_attr_get_class(&attr, &c, &relpri), 0);
        assert_int_equal(c, QOS_CLASS_USER_INITIATED);
        assert_int_equal(relpri, -7);

        /* DEFAULT is stored as utility. */
        assert_int_equal(qos_attr_set_class(&attr, QOS_CLASS_DEFAULT, 0), 0);
        assert_int_equal(qos_attr_get_class(&attr, &c, NULL), 0);
        assert_int_equal(c, QOS_CLASS_UTILITY);

        /* UNSPECIFIED forgets it. */
        assert_int_equal(qos_attr_set_class(&attr, QOS_CLASS_UNSPECIFIED, -3), 0);
        assert_int_equal(qos_attr_get_class(&attr, &c, &relpri), 0);
        assert_int_equal(c, QOS_CLASS_UNSPECIFIED);
        assert_int_equal(relpri, 0);
        assert_int_equal(qos_attr_destroy(&attr), 0);
}

static void test_attr_invalid(void **state) {
        pthread_attr_t attr;
        qos_class_t c;

        qos_attr_init(&attr);
        assert_int_equal(qos_attr_set_class(&attr, QOS_CLASS_BACKGROUND, 0), 0);
        assert_int_equal(qos_attr_set_class(&attr, (qos_class_t) 0x05, 0), -EINVAL);
        assert_int_equal(qos_attr_set_class(&attr, QOS_CLASS_UTILITY, 1), -EINVAL);
        assert_int_equal(qos_attr_set_class(&attr, QOS_CLASS_UTILITY, -16), -EINVAL);
        assert_int_equal(qos_attr_set_class(NULL, QOS_CLASS_UTILITY, 0), -EINVAL);
        assert_int_equal(qos_attr_get_class(NULL, &c, NULL), -EINVAL);
        /* A refused change leaves the recorded class alone. */
        assert_int_equal(qos_attr_get_class(&attr, &c, NULL), 0);
        assert_int_equal(c, QOS_CLASS_BACKGROUND);
        qos_attr_destroy(&attr);
}

/* qos_attr_init() on an address reused after plain pthread_attr_destroy()
 * does not inherit the class the old object had. */
static void test_attr_reinit_forgets(void **state) {
        pthread_attr_t attr;
        qos_class_t c;

        qos_attr_init(&attr);
        qos_attr_set_class(&attr, QOS_CLASS_BACKGROUND, 0);
        pthread_attr_destroy(&attr);
        qos_attr_init(&attr);
        qos_attr_get_class(&attr, &c, NULL);
        assert_int_equal(c, QOS_CLASS_UNSPECIFIED);
        qos_attr_destroy(&attr);
}

/* The table is bounded and says so; freeing an entry makes room again. */
static void test_attr_table_full(void **state) {
        static pthread_attr_t attrs[129];
        int i;

        for (i = 0; i < 128; i++) {
                qos_attr_init(&attrs[i]);
                assert_int_equal(qos_attr_set_class(&attrs[i], QOS_CLASS_BACKGROUND, 0), 0);
        }
        qos_attr_init(&attrs[128]);
        assert_int_equal(qos_attr_set_class(&attrs[128], QOS_CLASS_BACKGROUND, 0), -ENOSPC);
        assert_int_equal(pthread_attr_set_qos_class_np(&attrs[128], QOS_CLASS_BACKGROUND, 0), ENOSPC);
        qos_attr_destroy(&attrs[0]);
        assert_int_equal(qos_attr_set_class(&attrs[128], QOS_CLASS_BACKGROUND, 0), 0);
        for (i = 1; i <= 128; i++)
                qos_attr_destroy(&attrs[i]);
}

/* Apple's calls: positive errno values, EINVAL for UNSPECIFIED. */
static void test_darwin_errno_values(void **state) {
        pthread_attr_t attr;
        qos_class_t c;
        int relpri;

        pthread_attr_init(&attr);
        assert_int_equal(pthread_attr_set_qos_class_np(&attr, QOS_CLASS_UNSPECIFIED, 0), EINVAL);
        assert_int_equal(pthread_attr_set_qos_class_np(&attr, QOS_CLASS_UTILITY, 1), EINVAL);
        assert_int_equal(pthread_attr_set_qos_class_np(&attr, QOS_CLASS_UTILITY, -2), 0);
        assert_int_equal(pthread_attr_get_qos_class_np(&attr, &c, &relpri), 0);
        assert_int_equal(c, QOS_CLASS_UTILITY);
        assert_int_equal(relpri, -2);
        assert_int_equal(pthread_attr_get_qos_class_np(NULL, &c, &relpri), EINVAL);
        assert_int_equal(pthread_set_qos_class_self_np(QOS_CLASS_UNSPECIFIED, 0), EINVAL);
        assert_int_equal(pthread_set_qos_class_self_np((qos_class_t) 0x22, 0), EINVAL);
        assert_int_equal(pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 5), EINVAL);
        qos_attr_destroy(&attr);
}

static void test_set_invalid(void **state) {
        qos_class_t before = qos_class_self();
        assert_int_equal(qos_self_set_class(QOS_CLASS_UNSPECIFIED, 0), -EINVAL);
        assert_int_equal(qos_self_set_class((qos_class_t) 0x05, 0), -EINVAL);
        assert_int_equal(qos_self_set_class(QOS_CLASS_BACKGROUND, -16), -EINVAL);
        assert_int_equal(qos_thread_set_class(0, QOS_CLASS_BACKGROUND, 0), -ESRCH);
        assert_int_equal(qos_thread_set_class(-5, QOS_CLASS_BACKGROUND, 0), -ESRCH);
        assert_int_equal(qos_thread_get_class(1, NULL, NULL), getpid() == 1 ? 0 : -ESRCH);
        assert_int_equal(qos_class_self(), before);
}

typedef struct Seen {
        qos_class_t c;
        int relpri;
} Seen;

static void *report(void *userdata) {
        Seen *s = userdata;
        qos_self_get_class(&s->c, &s->relpri);
        return NULL;
}

/* Background is a demotion from anywhere: the new thread starts in it,
 * privileged or not, and its creator is untouched. */
static void test_create_in_background(void **state) {
        pthread_attr_t attr;
        pthread_t t;
        Seen seen = {};
        qos_class_t before = qos_class_self();

        qos_attr_init(&attr);
        qos_attr_set_class(&attr, QOS_CLASS_BACKGROUND, 0);
        assert_int_equal(qos_pthread_create(&t, &attr, report, &seen), 0);
        qos_attr_destroy(&attr);
        pthread_join(t, NULL);
        assert_int_equal(seen.c, QOS_CLASS_BACKGROUND);
        assert_int_equal(qos_class_self(), before);
}

/* Without a class, qos_pthread_create() is pthread_create(). */
static void test_create_without_class(void **state) {
        pthread_t t;
        Seen seen = {};
        assert_int_equal(qos_pthread_create(&t, NULL, report, &seen), 0);
        pthread_join(t, NULL);
        assert_int_equal(seen.c, qos_class_self());
        assert_int_equal(qos_pthread_create(NULL, NULL, report, &seen), -EINVAL);
        assert_int_equal(qos_pthread_create(&t, NULL, NULL, &seen), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_attr_round_trip),
                cmocka_unit_test(test_attr_invalid),
                cmocka_unit_test(test_attr_reinit_forgets),
                cmocka_unit_test(test_attr_table_full),
                cmocka_unit_test(test_darwin_errno_values),
                cmocka_unit_test(test_set_invalid),
                cmocka_unit_test(test_create_in_background),
                cmocka_unit_test(test_create_without_class),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
