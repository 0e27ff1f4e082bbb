/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What an application gets back when the slow path fails: each D-Bus error
 * and each local failure to its documented errno. No bus needed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/broker-client.h"
#include "core/bus-protocol.h"

static int map(const char *name, int r) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        if (name)
                sd_bus_error_set_const(&e, name, "test");
        int m = broker_error_to_errno(&e, r);
        sd_bus_error_free(&e);
        return m;
}

static void test_remote_errors(void **state) {
        assert_int_equal(map(SD_BUS_ERROR_SERVICE_UNKNOWN, -EHOSTUNREACH), -ENOTCONN);
        assert_int_equal(map(SD_BUS_ERROR_NAME_HAS_NO_OWNER, -ENXIO), -ENOTCONN);
        assert_int_equal(map(SD_BUS_ERROR_UNKNOWN_METHOD, -EBADR), -EOPNOTSUPP);
        assert_int_equal(map(SD_BUS_ERROR_UNKNOWN_OBJECT, -EBADR), -EOPNOTSUPP);
        assert_int_equal(map(SD_BUS_ERROR_ACCESS_DENIED, -EACCES), -EPERM);
        assert_int_equal(map(SD_BUS_ERROR_INVALID_ARGS, -EINVAL), -EINVAL);
        assert_int_equal(map(SD_BUS_ERROR_NO_REPLY, -ETIMEDOUT), -ETIMEDOUT);
        assert_int_equal(map(QOS_BUS_ERROR_NO_SUCH_TASK, -EIO), -ESRCH);
        assert_int_equal(map(QOS_BUS_ERROR_RATE_LIMITED, -EIO), -EAGAIN);
        assert_int_equal(map(QOS_BUS_ERROR_REALTIME, -EIO), -EBUSY);
        assert_int_equal(map("org.example.Undocumented", -EIO), -EIO);
}

/* Failures of the connection itself, with no error name from the bus. */
static void test_local_failures(void **state) {
        assert_int_equal(map(NULL, -ENOENT), -ENOTCONN);       /* no socket */
        assert_int_equal(map(NULL, -ECONNREFUSED), -ENOTCONN); /* nobody listening */
        assert_int_equal(map(NULL, -ECONNRESET), -ENOTCONN);
        assert_int_equal(map(NULL, -EACCES), -ENOTCONN);       /* socket not ours to open */
        assert_int_equal(map(NULL, -ETIMEDOUT), -ETIMEDOUT);
        assert_int_equal(map(NULL, -ENOMEM), -ENOMEM);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_remote_errors),
                cmocka_unit_test(test_local_failures),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
