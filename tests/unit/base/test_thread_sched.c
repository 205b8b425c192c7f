// SPDX-License-Identifier: GPL-2.0-only
/*
 * A thread that gives up the sampler's weight goes back to the nice value
 * tract was started at (nice -n 5 tract record: 5), not to 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>
#include "thread_sched.h"

static void *reset_and_read(void *arg)
{
	int *nice = arg;

	/* it inherits the raised value */
	nice[0] = getpriority(PRIO_PROCESS, 0);
	thread_sched_reset();
	nice[1] = getpriority(PRIO_PROCESS, 0);
	return NULL;
}

static void a_reset_goes_back_to_the_first_nice_value(void **state)
{
	pthread_t t;
	int nice[2];

	(void)state;
	/* the process as its user started it, then the sampler's raise (as root; without, it stays 5) */
	assert_int_equal(setpriority(PRIO_PROCESS, 0, 5), 0);
	thread_sched_set(geteuid() ? 5 : -10, 0);
	assert_int_equal(getpriority(PRIO_PROCESS, 0), geteuid() ? 5 : -10);
	assert_int_equal(pthread_create(&t, NULL, reset_and_read, nice), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(nice[0], geteuid() ? 5 : -10);
	assert_int_equal(nice[1], 5);
	/* and the raised thread itself, later */
	assert_int_equal(thread_sched_reset(), 0);
	assert_int_equal(getpriority(PRIO_PROCESS, 0), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_reset_goes_back_to_the_first_nice_value),
	};

	return cmocka_run_group_tests_name("thread_sched", tests, NULL, NULL);
}
