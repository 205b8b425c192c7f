// SPDX-License-Identifier: GPL-2.0-only
/* Finding the cgroup2 mount among the lines of /proc/self/mountinfo. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cgroups.h"

static void cgroup2_lines_give_their_mount_point(void **state)
{
	(void)state;
	assert_string_equal(cgroups__mount_from_line(
		"36 25 0:30 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"),
		"/sys/fs/cgroup/unified");
	assert_string_equal(cgroups__mount_from_line(
		"29 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw\n"), "/sys/fs/cgroup");
}

static void other_lines_do_not(void **state)
{
	(void)state;
	/* cgroup v1 and look-alikes */
	assert_null(cgroups__mount_from_line(
		"37 25 0:31 / /sys/fs/cgroup/cpu rw,nosuid shared:10 - cgroup cgroup rw,cpu\n"));
	assert_null(cgroups__mount_from_line("22 1 0:21 / /cgroup2 rw - tmpfs cgroup2 rw\n"));
	assert_null(cgroups__mount_from_line("garbage"));
	assert_null(cgroups__mount_from_line(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cgroup2_lines_give_their_mount_point),
		cmocka_unit_test(other_lines_do_not),
	};
	return cmocka_run_group_tests_name("cgroups", tests, NULL, NULL);
}
