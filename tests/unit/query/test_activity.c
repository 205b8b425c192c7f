// SPDX-License-Identifier: GPL-2.0-only
/* What a sample is doing, in the words the load average and xtop can be held to. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "activity.h"

static void states_that_count_in_the_load(void **state)
{
	(void)state;
	assert_string_equal(activity_of("RUN", NULL, -1, -1, NULL, 0, 0), "cpu");
	assert_string_equal(activity_of("RUN", "read", 5, -1, NULL, 0, 0), "cpu");
	assert_string_equal(activity_of("RUNQ", NULL, -1, -1, NULL, 0, 0), "runq");
	assert_string_equal(activity_of("DISK", "fsync", 300, -1, "/srv/db", 0, 0), "disk");
	assert_string_equal(activity_of("STOPPED", NULL, -1, -1, NULL, 0, 0), "stopped");
	assert_null(activity_of(NULL, NULL, -1, -1, NULL, 0, 0));
}

static void a_lock_is_not_an_idle_futex(void **state)
{
	(void)state;
	/* glibc's contended mutex: FUTEX_WAIT_PRIVATE on 2 */
	assert_string_equal(activity_of("SLEEP", "futex", 50, -1, NULL, 128, 2), "lock");
	/* FUTEX_LOCK_PI */
	assert_string_equal(activity_of("SLEEP", "futex", 50, -1, NULL, 6, 0), "lock");
	/* a condition variable: FUTEX_WAIT_BITSET_PRIVATE */
	assert_string_equal(activity_of("SLEEP", "futex", 50, -1, NULL, 137, 0), "idle");
}

static void input_is_a_terminal_or_a_long_silence(void **state)
{
	(void)state;
	assert_string_equal(activity_of("SLEEP", "read", 200, -1, "/dev/pts/3", 0, 0), "input");
	assert_string_equal(activity_of("SLEEP", "read", 200, -1, "/dev/tty1", 0, 0), "input");
	/* a client waiting on its server's reply is waiting, not idle */
	assert_string_equal(activity_of("SLEEP", "recvfrom", 571000, -1, "tcp 127.0.0.1:1->127.0.0.1:2 ESTABLISHED", 0, 0),
			    "waiting");
	assert_string_equal(activity_of("SLEEP", "read", 300000, -1, "pipe:[7]", 0, 0), "waiting");
	/* ... until nobody has written for 10 s */
	assert_string_equal(activity_of("SLEEP", "read", ACTIVITY_INPUT_AFTER_US, -1, "pipe:[7]", 0, 0), "input");
	assert_string_equal(activity_of("SLEEP", "epoll_wait", 60000000, -1, NULL, 0, 0), "input");
	/* a young event-loop wait is an idle wait */
	assert_string_equal(activity_of("SLEEP", "epoll_wait", 3000, -1, NULL, 0, 0), "idle");
	/* time unknown: not input unless a terminal */
	assert_string_equal(activity_of("SLEEP", "read", -1, -1, "pipe:[7]", 0, 0), "waiting");
	/*
	 * a read begun before tract started: asleep 20 s, so in the read at
	 * least that long; a young sleep there is still a wait
	 */
	assert_string_equal(activity_of("SLEEP", "read", -1, 20000000, "pipe:[7]", 0, 0), "input");
	assert_string_equal(activity_of("SLEEP", "read", -1, 2000, "pipe:[7]", 0, 0), "waiting");
	/* the syscall's own time wins where it is known */
	assert_string_equal(activity_of("SLEEP", "read", 300000, 20000000, "pipe:[7]", 0, 0), "waiting");
}

static void other_sleeps(void **state)
{
	(void)state;
	assert_string_equal(activity_of("SLEEP", "wait4", 9000000, -1, NULL, 0, 0), "idle");
	assert_string_equal(activity_of("SLEEP", "semop", 20, -1, NULL, 0, 0), "waiting");
	/* asleep outside a syscall: a kernel thread */
	assert_string_equal(activity_of("SLEEP", NULL, -1, -1, NULL, 0, 0), "idle");
	assert_string_equal(activity_of("IDLE", NULL, -1, -1, NULL, 0, 0), "idle");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(states_that_count_in_the_load),
		cmocka_unit_test(a_lock_is_not_an_idle_futex),
		cmocka_unit_test(input_is_a_terminal_or_a_long_silence),
		cmocka_unit_test(other_sleeps),
	};
	return cmocka_run_group_tests_name("activity", tests, NULL, NULL);
}
